/*
 * convert_pf_stacks: the stack frames of a conversion to Perfetto. The
 * STACK_FRAME definitions met so far are held (bounded); an event whose
 * sf names one gets TrackEvent.callstack_iid, its chain of frames (root
 * first, the leaf-most CVP_STACK_MAX_DEPTH) interned on the sequence: a
 * Frame per definition (function name, a Mapping whose path is the
 * frame's category, rel_pc, source file and line from its args) and a
 * Callstack per leaf, each once per generation of the sequence's
 * interned state. doc/convert.md says what reads back.
 */
#ifndef TREAD_TOOLS_CONVERT_PF_STACKS_H
#define TREAD_TOOLS_CONVERT_PF_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include <tread.h>

#include "pb_encode.h"

/* Frames of one callstack written (the leaf-most; the reader's
 * PF_PROF_MAX_DEPTH). */
#define CVP_STACK_MAX_DEPTH 1024

typedef struct cvp_stacks cvp_stacks;

/* max_bytes: definitions held (0: FRAME_TABLE_DEFAULT_MAX_BYTES). NULL
 * when out of memory. */
cvp_stacks *cvp_stacks_new(size_t max_bytes);
void cvp_stacks_free(cvp_stacks *st);

/* A STACK_FRAME event: 0 held (a new id, or a new definition of one: the
 * one later references find), 1 not held (over max_bytes), -1 out of
 * memory. */
int cvp_stacks_define(cvp_stacks *st, const tread_event *ev);

/* The chain of frames sf names, for the next cvp_stacks_write: its
 * length (0: sf is empty or names no definition held). */
size_t cvp_stacks_resolve(cvp_stacks *st, tread_str sf);

/* Interned entries the resolved chain would add in this generation. */
size_t cvp_stacks_new_entries(const cvp_stacks *st);

/* Interns the resolved chain: appends the InternedData fields it lacks
 * in this generation to idata and returns its Callstack iid (0: no chain
 * resolved). */
uint64_t cvp_stacks_write(cvp_stacks *st, pb_buf *idata);

/* Iids handed out in this generation. */
uint64_t cvp_stacks_interned(const cvp_stacks *st);

/* The sequence's interned state was cleared: everything is interned
 * again. */
void cvp_stacks_reset(cvp_stacks *st);

/* For a second pass over the same input: the definitions held (all of
 * the first pass's) are known ahead of the events that name them; each
 * met again, the same, is kept as it is (a different one replaces it);
 * nothing is interned or used yet. */
void cvp_stacks_rewind(cvp_stacks *st);

/* Definitions no callstack written used (held now, or replaced). */
uint64_t cvp_stacks_unused(const cvp_stacks *st);

#endif
