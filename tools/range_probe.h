/*
 * range_probe: what a file is, for cutting it into byte ranges
 * (range_cuts.h): its format and compression as a parser sees its first
 * 64 KiB, and what a gzip file holds. Used by `tread stats`
 * (stats_ranges.c) and bench/count_events, so that both cut a file alike.
 */
#ifndef TREAD_TOOLS_RANGE_PROBE_H
#define TREAD_TOOLS_RANGE_PROBE_H

#include <stdint.h>
#include <tread.h>

/* What the probe reads. */
#define RANGE_PROBE_BYTES 65536u

/* The format and compression of the start of the file at path, as a
 * parser sees them once configure (if not NULL) has set its options
 * (configure: 0, or non-zero to give up); 1, or 0 if it cannot tell. */
int range_probe(const char *path, int (*configure)(tread_parser *p, const void *arg),
                const void *arg, tread_format *f, tread_compression *c);

/* What a gzip file holds, from its last member's trailer (ISIZE: its
 * size modulo 4 GiB), taken as the whole file's: exact for one member
 * under 4 GiB, as gzip writes, and a guess otherwise, which only moves
 * the cut: the ranges cover the input end to end wherever they are cut.
 * ISIZE under the compressed size means it wrapped (JSON is never
 * larger gzip'd), and 4 GiB is added until it is not; deflate expands at
 * most 1032 times, so under 4 MiB nothing wraps. 0 when unreadable. */
uint64_t range_gzip_holds(const char *path, uint64_t file_size);

/* How a file is cut (range_cuts.h): the bytes cut, what scanning them
 * costs, and what inflating them costs (0: not compressed). */
typedef struct range_plan {
    uint64_t size;
    double prefix_cost, inflate_cost;
} range_plan;

/* Whether the regular file at path (file_size bytes) can be read in byte
 * ranges, FXT or JSON uncompressed or JSON in gzip, probed as
 * range_probe does: 1 with *plan, else 0. The one rule for tread stats
 * and bench/count_events. */
int range_plan_file(const char *path, uint64_t file_size,
                    int (*configure)(tread_parser *p, const void *arg), const void *arg,
                    range_plan *plan);

#endif
