/*
 * convert_sink: where `tread convert` and `tread split` send events. It
 * writes Chrome JSON or Perfetto protobuf through convert_json /
 * convert_perfetto into one output file, or, for split, into numbered
 * pieces (split_pieces.c) of at most max_bytes each that stand alone
 * (doc/convert.md). What it cannot write it counts, by reason and kind.
 */
#ifndef TREAD_TOOLS_CONVERT_SINK_H
#define TREAD_TOOLS_CONVERT_SINK_H

#include <stdint.h>
#include <stdio.h>

#include <tread.h>

#include "convert_json.h"
#include "convert_perfetto.h"
#include "frame_table.h"
#include "out_buf.h"
#include "split_meta.h"
#include "split_pieces.h"

typedef enum convert_to {
    CONVERT_TO_NONE = 0,
    CONVERT_TO_JSON,
    CONVERT_TO_PERFETTO
} convert_to;

/* JSON metadata records (process and thread names, sort indexes, labels)
 * held to start split pieces with; beyond this, later ones are not
 * repeated (a warning says so). */
#define CONVERT_MAX_REPEATED_METADATA (16u << 20)

/* Why an event has no record in the output (doc/convert.md). */
typedef enum convert_loss {
    CONVERT_LOSS_STACK_FRAME = 0,  /* stack frame definitions */
    CONVERT_LOSS_BLOB,             /* blobs */
    CONVERT_LOSS_CLOCK,            /* clock snapshots */
    CONVERT_LOSS_TRACE_KEYS,       /* top-level keys (META_TRACE) */
    CONVERT_LOSS_NONFINITE,        /* NaN or infinite counter values (JSON) */
    CONVERT_LOSS_UNKNOWN,          /* unknown kind without a phase */
    CONVERT_LOSS_TRACK,            /* track descriptors the format cannot hold */
    CONVERT_LOSS_METADATA,         /* metadata other than names (Perfetto) */
    CONVERT_LOSS_NO_VALUE,         /* a counter without a value (Perfetto) */
    CONVERT_LOSS_DUPLICATE,        /* metadata repeating the value in force */
    CONVERT_LOSS_FRAME_LIMIT,      /* stack frames beyond --max-frame-bytes */
    CONVERT_LOSS_FRAME_UNUSED,     /* stack frames no event names (Perfetto) */
    CONVERT_LOSS_COUNT_
} convert_loss;

const char *convert_loss_reason(convert_loss l);

typedef struct convert_sink {
    convert_to to;
    uint64_t max_bytes;        /* split: piece size; 0 = one output */
    uint64_t max_total_bytes;  /* split: the total guard (0: none) */
    split_pieces_guard_fn guard; /* split: a guard that follows the input */
    void *guard_user;
    const char *path;          /* convert: the output ("-" stdout) */
    const char *prefix;        /* split: PREFIX-NNNNN.json / .pftrace */

    /* convert: the one output */
    FILE *fp;
    out_buf *ob;               /* to fp */
    int created;               /* the output exists (an error leaves it) */

    /* split */
    split_pieces *sp;
    uint64_t *piece_numbers;   /* split: numbers shared with another
                                  writer's pieces (NULL: its own) */
    uint64_t epoch;            /* the current piece, from 1 */
    uint64_t piece_records;    /* records in the current piece */
    uint64_t piece_events;     /* of which events (not repeated metadata) */
    uint64_t piece_frames;     /* stack frames defined while it is open
                                  (JSON: in its footer, not its records) */
    int piece_oversize;        /* counted already */
    split_meta *meta;          /* JSON: the process/thread metadata */
    frame_table *frames;       /* JSON: stack frame definitions (made at
                                  the first event) */
    uint64_t max_frame_bytes;  /* their limit (0: FRAME_TABLE_DEFAULT_MAX_BYTES);
                                  set after open, before the first event */
    int meta_warned;

    convert_json cj;
    convert_perfetto cp;

    /* split to JSON: each record is staged in memory to know its size */
    FILE *mem;
    char *mem_data;
    size_t mem_size;
    out_buf *stage;

    uint64_t records;          /* input events written */
    uint64_t sf_missing;       /* Perfetto: events whose sf named no frame
                                  defined before them */
    uint64_t frames_unused;    /* Perfetto: definitions counted unused */
    uint64_t frames_late;      /* Perfetto: definitions held after an
                                  event's sf named none (a second pass
                                  would give it its stack) */
    int frames_ahead;          /* Perfetto: the definitions are the first
                                  pass's (convert_sink_preload_frames) */
    uint64_t repeated;         /* metadata records repeated in a piece */
    uint64_t lost[CONVERT_LOSS_COUNT_][TREAD_EVENT_KIND_COUNT_];
    uint64_t lost_total;
    int failed;
    char error[4096];
} convert_sink;

/* 0, or -1 with sink->error set. For split, set max_total_bytes and guard
 * after it, before the first event. */
int convert_sink_open(convert_sink *s, convert_to to, const char *path,
                      const char *prefix, uint64_t max_bytes,
                      uint64_t max_interned);

/* 0, or -1 (failed: stop the parse). */
int convert_sink_event(convert_sink *s, const tread_event *ev);

/* Ends the output (footer, flush, close). 0 or -1. */
int convert_sink_close(convert_sink *s);

/* Perfetto: the stack frame definitions the conversion held, taken out
 * of the sink (before convert_sink_free) for a second pass: NULL when
 * none. */
cvp_stacks *convert_sink_take_frames(convert_sink *s);

/* Perfetto, after open and before the first event: the definitions of a
 * first pass over the same input, so that an event before its frames'
 * definitions gets its stack (cvp_stacks_rewind). The sink owns st. */
void convert_sink_preload_frames(convert_sink *s, cvp_stacks *st);

/* Prints what was left out, by reason and kind, to fp (one line each,
 * "tread: left out N KIND events: REASON"). */
void convert_sink_print_losses(const convert_sink *s, FILE *fp);

void convert_sink_free(convert_sink *s);

#endif
