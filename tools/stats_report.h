/*
 * stats_report: prints what `tread stats` gathered, as text for people or
 * as one JSON object (keys documented in tread(1)).
 */
#ifndef TREAD_TOOLS_STATS_REPORT_H
#define TREAD_TOOLS_STATS_REPORT_H

#include <stddef.h>

#include <tread.h>

#include "cli_input.h"
#include "out_buf.h"
#include "stats_collect.h"

typedef struct stats_report {
    const char *path;
    const tread_stats *st;      /* from tread_get_stats */
    const stats_collector *c;
    const cli_input *in;        /* for the error, if any */
    size_t top;                 /* --top */
    const tread_counter *counters; /* tread_get_format_counters */
    size_t n_counters;
} stats_report;

/* Both return 0, or -1 when out of memory. */
int stats_report_text(out_buf *o, const stats_report *r);
int stats_report_json(out_buf *o, const stats_report *r);

#endif
