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

/* Both return 0, or -1 when out of memory. When r->in holds an error,
 * the report is marked partial: it covers the input before the error. */
int stats_report_text(out_buf *o, const stats_report *r);
int stats_report_json(out_buf *o, const stats_report *r);

/* --json for an input that failed before its first event: the file and
 * the error, no statistics. */
void stats_report_json_error(out_buf *o, const char *path, const cli_input *in);

/* Several files: what they add up to. */
typedef struct stats_total {
    uint64_t files, failed;
    uint64_t bytes_in, bytes_decoded, records, events, warnings;
    uint64_t events_by_kind[TREAD_EVENT_KIND_COUNT_];
    uint64_t warnings_by_kind[TREAD_WARN_KIND_COUNT_];
} stats_total;

void stats_total_add(stats_total *t, const tread_stats *st, int failed);
void stats_report_total_text(out_buf *o, const stats_total *t);
void stats_report_total_json(out_buf *o, const stats_total *t);

#endif
