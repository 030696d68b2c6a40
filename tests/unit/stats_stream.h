/*
 * A random stream of events for the stats collector's tests: on threads
 * and tracks, nested B/E slices, unmatched E, B left open, stacks past the
 * depth limit (one thread, events DEEP_FROM..DEEP_TO), X, instants,
 * process names, string pids, providers; and a collector described as
 * text (everything the report reads).
 */
#ifndef TREAD_TEST_STATS_STREAM_H
#define TREAD_TEST_STATS_STREAM_H

#include <tread.h>

#include "stats_collect.h"

#define N_EVENTS 6000
/* Where one thread nests past SLICE_STACK_MAX_DEPTH. */
#define DEEP_FROM 2000
#define DEEP_TO 3300

/* The stream: N_EVENTS events, the same every time. */
extern tread_event stats_stream[N_EVENTS];
void stats_stream_make(void);

/* Everything the report reads from a collector, as text (malloc'd);
 * without the slice counts and durations unless slices. */
char *stats_describe(const stats_collector *c, int slices);

#endif
