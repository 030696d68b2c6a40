/*
 * split_meta: the process and thread metadata records (names, sort
 * indexes, labels) of a JSON split, so that each piece carries those its
 * own events use, once each, at the value in force (doc/convert.md, "tread
 * split"). A record that repeats the value in force is no new fact: the
 * caller leaves it out. Bounded: past max_bytes of records, new ones are
 * not tracked (the caller warns; they are still written where they occur).
 */
#ifndef TREAD_TOOLS_SPLIT_META_H
#define TREAD_TOOLS_SPLIT_META_H

#include <stddef.h>
#include <stdint.h>

#include <tread.h>

typedef struct split_meta split_meta;

/* One metadata value: its record as written, and the piece it was last
 * written to. */
typedef struct split_meta_slot {
    char *rec;
    size_t len;
    size_t ts_at, ts_len; /* its "ts" field in rec (ts_len 0: none), which
                             a repeat of the value may differ in */
    uint64_t epoch;     /* the piece (epoch) it is in, 0: none yet */
} split_meta_slot;

/* The records a piece needs before one event: at most this many. */
#define SPLIT_META_MAX_NEEDED 5

split_meta *split_meta_new(size_t max_bytes);
void split_meta_free(split_meta *m);

/* 1 when a metadata event's record (rec/len) only repeats the value in
 * force for its process or thread: the same record but for its "ts". */
int split_meta_repeats(split_meta *m, const tread_event *ev, const char *rec,
                       size_t len);

/* A metadata event's record (its JSON text, rec/len). Returns 1 when it
 * only repeats the value in force (leave it out), 0 when it is a new fact
 * (stored, and counted as written in epoch), 2 when it is not tracked
 * (not a process/thread record, or the table is full: write it). */
int split_meta_put(split_meta *m, const tread_event *ev, const char *rec,
                   size_t len, uint64_t epoch);

/* The stored records of ev's process and thread not written in epoch yet:
 * up to SPLIT_META_MAX_NEEDED in out; returns how many. */
size_t split_meta_needed(split_meta *m, const tread_event *ev, uint64_t epoch,
                         split_meta_slot **out);

/* 1 once the table was full (a record was not tracked). */
int split_meta_full(const split_meta *m);

#endif
