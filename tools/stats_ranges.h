/*
 * stats_ranges: `tread stats` on several threads. An uncompressed FXT or
 * JSON file, or a gzip'd JSON file, is cut into N byte ranges (TREAD_OPT_RANGE_BEGIN/END), each read by
 * a parser and a stats collector of its own on a thread of its own; the
 * collectors are merged in order (stats_merge.h), the library's stats and
 * format counters added up, and each range's warnings and errors printed
 * in order after it: the report, and what goes to stderr, are those of
 * one pass.
 */
#ifndef TREAD_TOOLS_STATS_RANGES_H
#define TREAD_TOOLS_STATS_RANGES_H

#include <tread.h>

#include "cli_input.h"
#include "cli_options.h"
#include "stats_collect.h"

/* Files smaller than this are read on one thread unless --jobs says
 * otherwise: two threads save little there. */
#define STATS_RANGES_MIN_BYTES (64u * 1024u * 1024u)
/* --jobs by default: at most this many (each range holds a parser and
 * a collector: 2 stay within 16 MiB), and no more than the CPUs. */
#define STATS_RANGES_AUTO_MAX 2

typedef struct stats_ranges {
    int n;
    stats_collector *cols;      /* n of them; merged into cols[0] */
    cli_input *ins;             /* n of them */
    const cli_input *last;      /* the range whose error (if any) stands */
    tread_stats st;             /* the ranges' stats added up */
    tread_counter *counters;    /* format counters added up */
    size_t n_counters;
    diag diag;                  /* the ranges' diagnostics, replayed */
    int opened;                 /* the file was opened: there is a report */
} stats_ranges;

/* How a file is read: in how many ranges, cut where. */
typedef struct stats_plan {
    int n;                  /* ranges; 1: one pass, as always */
    uint64_t size;          /* the bytes the ranges cut: the file's, or
                               what a gzip file holds (stats_ranges.c) */
    double prefix_cost;     /* range_cuts.h */
    double inflate_cost;
    int compressed;         /* each range inflates on its own thread */
} stats_plan;

/* How to read opt->path: one pass (plan->n 1, as always) unless it is a
 * regular file of FXT or JSON, uncompressed, or JSON in gzip, and --jobs
 * or its size and the CPUs online say more. */
void stats_ranges_plan(const cli_options *opt, stats_plan *plan);

/* Reads the ranges of the plan and merges them into r. Returns 0,
 * EXIT_INPUT_ERROR or EXIT_USAGE as cli_input_run does. */
int stats_ranges_run(stats_ranges *r, const cli_options *opt, const stats_plan *plan);

void stats_ranges_free(stats_ranges *r);

#endif
