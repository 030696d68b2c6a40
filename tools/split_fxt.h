/*
 * split_fxt: an FXT trace split into FXT pieces, records copied byte for
 * byte, cut at record boundaries (doc/convert.md, "tread split"). Each
 * piece starts with the magic number record; before a record it carries,
 * once each, what the record needs to decode alone: its provider (info or
 * section record), the provider's initialization record, and the string,
 * thread and kernel-object records it references (at the value in force).
 * A record the raw hook marks skipped (the decoder skips it) is copied
 * alone and defines nothing, as in the decoder's tables.
 * Large records and blobs are streamed, never held whole.
 *
 * Fed from the raw hooks: split_fxt_record for every record (before its
 * events), split_fxt_event for the events made from it, split_fxt_blob for
 * blob payload pieces. Memory: the definitions in force (strings, threads,
 * kernel objects, providers), at most SPLIT_FXT_MAX_DEFS_BYTES; beyond it
 * new ones are not repeated (a warning says so, pieces that needed them
 * name them unresolved).
 */
#ifndef TREAD_TOOLS_SPLIT_FXT_H
#define TREAD_TOOLS_SPLIT_FXT_H

#include <tread.h>
#include <tread/fxt.h>

#include "split_pieces.h"

#define SPLIT_FXT_MAX_DEFS_BYTES (32u << 20)

typedef struct split_fxt split_fxt;

split_fxt *split_fxt_new(split_pieces *sp /* suffix "fxt" */);
int split_fxt_record(split_fxt *s, const tread_fxt_record *rec); /* 0 / -1 */
int split_fxt_event(split_fxt *s, const tread_event *ev);        /* 0 / -1 */
int split_fxt_blob(split_fxt *s, const tread_blob *b);           /* 0 / -1 */
/* Ends the last piece; input_end: the input's decoded size (a large
 * record the input cut short stays cut there). 0 / -1 */
int split_fxt_finish(split_fxt *s, uint64_t input_end);
const char *split_fxt_error(const split_fxt *s);
/* 1 when the definitions outgrew SPLIT_FXT_MAX_DEFS_BYTES. */
int split_fxt_defs_full(const split_fxt *s);
/* Definition records repeated in pieces (not input records). */
uint64_t split_fxt_repeated(const split_fxt *s);
void split_fxt_free(split_fxt *s);

#endif
