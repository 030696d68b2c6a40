/*
 * stats_rank: the top lists of `tread stats` (names by count, names by
 * total duration, processes by events), as arrays of table indices.
 */
#ifndef TREAD_TOOLS_STATS_RANK_H
#define TREAD_TOOLS_STATS_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "stats_collect.h"

typedef struct stats_ranking {
    uint32_t *by_count;      /* name ids */
    size_t n_by_count;
    uint32_t *by_duration;   /* name ids with a positive total */
    size_t n_by_duration;
    uint32_t *processes;     /* process table slots */
    size_t n_processes;
} stats_ranking;

/* Returns 0, or -1 when out of memory. */
int stats_rank(stats_ranking *r, const stats_collector *c, size_t top);
void stats_ranking_free(stats_ranking *r);

#endif
