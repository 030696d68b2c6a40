/*
 * stats_collect: the per-event side of `tread stats`. Counts names and
 * their durations (X dur; B/E pairs matched per thread), processes,
 * threads and the time range, in bounded memory and with no allocation
 * per event. The per-kind and per-warning counters come from
 * tread_get_stats instead.
 */
#ifndef TREAD_TOOLS_STATS_COLLECT_H
#define TREAD_TOOLS_STATS_COLLECT_H

#include <tread.h>

#include "name_table.h"
#include "process_table.h"
#include "thread_table.h"

/* A B event without a name: its duration is attributed to nobody. */
#define STATS_NO_NAME UINT32_MAX

/* FXT providers seen on events: few in practice, so a small array. */
#define STATS_MAX_PROVIDERS 256
#define STATS_PROVIDER_NAME_MAX 64

typedef struct provider_entry {
    uint32_t id;
    uint64_t events;
    size_t name_len;               /* 0: no name seen */
    char name[STATS_PROVIDER_NAME_MAX];
} provider_entry;

/* An E event that found its thread's (or track's) stack empty, kept by
 * the collector of a byte range after the first (stats_merge.h): the
 * ranges before it may have left that B open. */
typedef struct stats_underflow {
    int64_t pid, tid;        /* the thread table's key */
    int64_t ts;
    int has_ts;
} stats_underflow;

/* Underflows kept at most (32 bytes each); past it, E events without a B
 * stay unmatched even where an earlier range left one open. */
#define STATS_UNDERFLOW_MAX 65536u

typedef struct stats_collector {
    name_table names;
    thread_table threads;
    process_table processes;

    int has_time;
    int64_t min_ts;          /* ns */
    int64_t max_end;         /* ns: max of ts + dur */

    uint64_t slices_matched;   /* B/E pairs */
    uint64_t unmatched_end;    /* E with no open B on its thread */
    uint64_t unclosed_begin;   /* B still open at the end */
    uint64_t depth_overflow;   /* B past the stack limits: not timed */
    uint64_t untracked;        /* B/E on threads past the thread cap */

    provider_entry providers[STATS_MAX_PROVIDERS];
    uint32_t n_providers;
    uint32_t last_provider;      /* index of the last one found */
    int providers_capped;

    /* a byte range after the first: its underflows, in order */
    int keep_underflows;
    stats_underflow *under;
    uint32_t n_under, under_cap;
    int under_capped;

} stats_collector;

int stats_collector_init(stats_collector *c);
void stats_collector_free(stats_collector *c);

/* A tread_callbacks.event callback; user is a stats_collector *. */
int stats_collector_event(void *user, const tread_event *ev);

/* The same for an event whose name is a copy (stats_async.h): name_key
 * is the address the name had, for the name table's cache. */
int stats_collector_event_keyed(stats_collector *c, const tread_event *ev, const void *name_key);

/* After the parse: counts the B slices left open. */
void stats_collector_finish(stats_collector *c);

/* For stats_merge.c: adds dur (if > 0) to name id's total; a + b, saturated. */
void stats_collector_add_duration(stats_collector *c, uint32_t id, int64_t dur);
int64_t stats_add_sat(int64_t a, int64_t b);

#endif
