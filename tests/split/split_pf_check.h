/* split_pf_check: runs split_perfetto over a trace in memory (pieces kept
 * by pieces_mem) and checks the pieces against the whole, as properties:
 *  - every input packet is in exactly one piece, in order, byte for byte
 *    (a packet may gain its sequence id field, or an incremental
 *    counter's value rewritten as its running value);
 *  - the events of each copied packet, read from its piece, equal the
 *    events of that packet read from the whole file, every field but the
 *    byte offset;
 *  - the packets a piece adds make only metadata and clock-sync events,
 *    each a fact the whole file states too (same fields, offset and time
 *    aside);
 *  - every piece is at most max_bytes, unless it holds a single input
 *    packet and was declared oversize. */
#ifndef TREAD_TESTS_SPLIT_PF_CHECK_H
#define TREAD_TESTS_SPLIT_PF_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <tread.h>

#include "pieces_mem.h"
#include "split_perfetto.h"

/* Packets whose whole-file events begin with the end of a state (a
 * TrackEvent TYPE_STATE: the decoder ends the state open on its track)
 * opened in an earlier piece: a piece's parser cannot know that state, so
 * the piece gives the same events without that end (doc/convert.md), a
 * loss the split reports (state_ends_lost), counted by split_pf_verify. */
extern size_t split_pf_state_ends;

/* Splits in[0, len) (fed in chunks of `chunk` bytes, 0: whole) into *pm
 * (split_pf_run.c, with pieces_mem.c's split_pieces).
 * 0, or -1 with the reason in err. */
int split_pf_run(const void *in, size_t len, uint64_t max_bytes, size_t chunk, pieces_mem *pm,
                 split_perfetto_stats *st, char *err, size_t errlen);

/* Feeds in[0, len) to p in chunks of `chunk` bytes (0: whole), resuming
 * after every stop, and finishes. */
tread_status split_pf_feed(tread_parser *p, const unsigned char *in, size_t len, size_t chunk);

/* Checks pm against in (the properties above) and, given the split's
 * stats st, that the state ends the pieces lack are those it reported as
 * lost. 0, or -1 with the first difference in err. */
int split_pf_verify(const void *in, size_t len, const pieces_mem *pm, uint64_t max_bytes,
                    const split_perfetto_stats *st, char *err, size_t errlen);

/* The whole file's side of split_pf_verify, read once for several splits
 * of one file (tests/split/split_perfetto_corpus.c: three sizes); the
 * same checks as split_pf_verify with it. */
typedef struct split_pf_whole split_pf_whole;
split_pf_whole *split_pf_whole_read(const void *in, size_t len);
void split_pf_whole_free(split_pf_whole *w);
int split_pf_verify_whole(split_pf_whole *w, const void *in, size_t len, const pieces_mem *pm,
                          uint64_t max_bytes, const split_perfetto_stats *st, char *err,
                          size_t errlen);

#endif
