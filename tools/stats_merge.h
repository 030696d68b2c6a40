/*
 * stats_merge: `tread stats` over byte ranges read on several threads
 * (TREAD_OPT_RANGE_BEGIN/END): the collectors of the ranges, merged in
 * order into the first, give the report one collector over the whole
 * trace would. B/E slices that cross a range boundary are matched here:
 * the collector of each range after the first keeps the E events that
 * found their stack empty (stats_underflow), and the merge pops them from
 * the stacks the ranges before it left open, then pushes its own open B
 * slices on top.
 */
#ifndef TREAD_TOOLS_STATS_MERGE_H
#define TREAD_TOOLS_STATS_MERGE_H

#include "stats_collect.h"

/* Merges from (the range after the ones merged into c so far) into c.
 * Returns 0, or -1 when out of memory. */
int stats_collector_merge(stats_collector *c, const stats_collector *from);

/* After the last merge: each process's thread count, from the merged
 * thread table. */
void stats_collector_merge_done(stats_collector *c);

#endif
