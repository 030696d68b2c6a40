/*
 * stats_async: the stats collector on a thread of its own. The event
 * callback copies what the collector reads of each event (stats_collect.c)
 * into a batch; full batches go to a thread that runs the collector on
 * them, in order, so that the report is the one of the collector called
 * in place. While busy says the second core has other work (the parser's
 * decompression thread), the callback collects in place instead, once
 * the thread has caught up. The collector is the thread's until
 * stats_async_finish returns. Measured: doc/architecture.md, section 6.
 */
#ifndef TREAD_TOOLS_STATS_ASYNC_H
#define TREAD_TOOLS_STATS_ASYNC_H

#include <tread.h>

#include "stats_collect.h"

#define SA_BATCH (1u << 20)
#define SA_BUFS 3

/* Events collected in place between two looks at busy (below). */
#define SA_PROBE_EVENTS 8192u

typedef struct stats_async stats_async;

/* Whether the second core has other work since the last call (the
 * parser's decompression thread): then the collector runs in place. */
typedef int (*stats_async_busy_fn)(void *ctx);

/* A stats_async_busy_fn for a parser: whether its decompression thread
 * has worked since the last call. Compressed input (gzip, zstd) is
 * expanded there throughout, Perfetto compressed packets where they come
 * (its compressed_bytes_expanded counter grew). Zero it but for parser;
 * free cs after. */
typedef struct stats_probe {
    const tread_parser *const *parser; /* where the parser will be */
    uint64_t expanded;
    tread_counter *cs;
    size_t cap;
} stats_probe;
int stats_probe_decompressing(void *probe);

/* NULL when memory or a thread cannot be had. busy (may be NULL) is
 * called from stats_async_event, each time a batch is handed over and
 * every SA_PROBE_EVENTS events while collecting in place. */
stats_async *stats_async_start(stats_collector *c, stats_async_busy_fn busy, void *ctx);

/* A tread_callbacks.event callback; user is a stats_async *. */
int stats_async_event(void *user, const tread_event *ev);

/* Collects what is left, ends the thread, frees it. */
void stats_async_finish(stats_async *a);

#endif
