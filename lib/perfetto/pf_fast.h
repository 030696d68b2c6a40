/*
 * The fast reader of the common TrackEvent packets (pf_fast.c): a handler
 * beside the general reader, which pf_decoder.c tries first.
 */
#ifndef TREAD_PERFETTO_PF_FAST_H
#define TREAD_PERFETTO_PF_FAST_H

#include <stddef.h>
#include <stdint.h>

typedef struct pf_decoder pf_decoder;

/* pf_fast.c: the fast reader of the common TrackEvent packets (see there).
 * PF_FAST_DONE: the packet was read (events delivered, or the rest queued
 * after a stop: stop_requested is then set); PF_FAST_ERROR: after
 * tread__fail; any other value: a reason it was not taken, nothing changed
 * (the general reader reads the packet). */
enum {
    PF_FAST_DONE = 0,
    PF_FAST_ERROR,
    PF_FAST_NO_HOOK,         /* the perfetto_packet raw hook is set */
    PF_FAST_PACKET_FIELD,    /* a packet field other than timestamp, clock
                                id, sequence id and flags, trusted uid/pid,
                                one interned_data and one track_event */
    PF_FAST_MALFORMED,       /* a packet or TrackEvent field that does not
                                decode, or a known field of the wrong type */
    PF_FAST_NO_TRACK_EVENT,  /* no track_event, or more than one */
    PF_FAST_NO_TIMESTAMP,
    PF_FAST_SEQUENCE,        /* first packet of its sequence, or a sequence
                                not kept */
    PF_FAST_SEQ_STATE,       /* clears the incremental state, or needs it
                                while it is invalid */
    PF_FAST_TE_FIELD,        /* a TrackEvent field the fast reader leaves
                                to the general one (legacy event, its own
                                timestamps, categories as strings, extra
                                counter uuids, correlation ids, ...) */
    PF_FAST_TE_TYPE,         /* no type, or not one of the four */
    PF_FAST_CATEGORIES,      /* more than 8 category iids (pf_fast.c
                                FAST_MAX_CATS), or an empty packed list */
    PF_FAST_EXTRA_COUNTERS,  /* extra counter values beyond the sequence's
                                default uuids (or more than
                                PF_MAX_EXTRA_COUNTERS) */
    PF_FAST_REASONS_
};

/* The fast reader (PF_FAST_* above). */
int pf_fast_packet(pf_decoder *d, const unsigned char *data, size_t len, uint64_t off,
                   int level);

#endif
