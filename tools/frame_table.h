/*
 * frame_table: the stack frame definitions of a conversion to Chrome JSON
 * (TREAD_EVENT_STACK_FRAME, from a JSON `stackFrames` object), written as
 * the output's top-level `stackFrames` object after `traceEvents`. For a
 * split, each piece carries, once each, the frames its own events use (an
 * event's `sf` and `esf` ids) and the frames defined while it is open,
 * each with its parent chain; nothing else is repeated (doc/convert.md).
 * Pieces are "epochs" (1, 2, ...); a whole conversion is one epoch.
 * Bounded: past max_bytes of definitions, a new one is not kept (the
 * caller counts it as a loss).
 */
#ifndef TREAD_TOOLS_FRAME_TABLE_H
#define TREAD_TOOLS_FRAME_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include <tread.h>

/* Where the footer goes: 0, or -1 (the caller's error). */
typedef int (*frame_write_fn)(void *user, const void *p, size_t n);

/* Default of --max-frame-bytes: definitions held (their JSON text). */
#define FRAME_TABLE_DEFAULT_MAX_BYTES (64u << 20)
/* Parents followed from one frame (a longer chain is cut, counted). */
#define FRAME_TABLE_MAX_DEPTH 4096

typedef struct frame_table frame_table;

frame_table *frame_table_new(size_t max_bytes);
void frame_table_free(frame_table *t);

typedef enum frame_put {
    FRAME_NEW = 0,       /* stored, carried by the piece of epoch */
    FRAME_REPEAT,        /* the same definition as the one in force: no new fact */
    FRAME_REPLACED,      /* a new definition of an id: a frame of its own,
                            the one later references find */
    FRAME_NOT_KEPT       /* over max_bytes, or out of memory */
} frame_put;

/* The bytes the frames of ev's sf and esf chains that epoch does not
 * carry yet would add to its stackFrames (a STACK_FRAME event: its own
 * record if new). */
size_t frame_table_cost(frame_table *t, const tread_event *ev, uint64_t epoch);

/* A STACK_FRAME event, defined while the piece of epoch is open. */
frame_put frame_table_put(frame_table *t, const tread_event *ev, uint64_t epoch);

/* Another event, written in the piece of epoch: its frames and their
 * parents are carried by that piece. */
void frame_table_use(frame_table *t, const tread_event *ev, uint64_t epoch);

/* Bytes the stackFrames of epoch will take (0: none, the plain footer). */
size_t frame_table_bytes(const frame_table *t, uint64_t epoch);

/* Ends the output of epoch: the footer, with `"stackFrames":{...}` when
 * epoch carries frames (in the order they were defined). Counts the ids
 * its events used that no definition had by then (frame_table_unresolved).
 * -1 when w fails. */
int frame_table_footer(frame_table *t, uint64_t epoch, frame_write_fn w, void *user);

/* References to frames no definition had by the end of the piece using
 * them (defined later, in another piece, or never), and chains cut at
 * FRAME_TABLE_MAX_DEPTH. */
uint64_t frame_table_unresolved(const frame_table *t);

#endif
