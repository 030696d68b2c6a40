/*
 * The state the stages of the Perfetto decoder share (the layers:
 * doc/architecture.md, "lib/perfetto"): each member group names the file
 * that owns it; the stage headers (pf_seq.h, pf_time.h, pf_tracks.h,
 * pf_queue.h) give the functions that read and change it. The decoder's
 * own framing, pause and expansion state is not here: it is private to
 * pf_decoder.c (a handler cannot reach it). doc/formats/perfetto.md
 * describes the mapping.
 */
#ifndef TREAD_PERFETTO_PF_CONTEXT_H
#define TREAD_PERFETTO_PF_CONTEXT_H

#include <tread.h>
#include <tread/perfetto.h>
#include "core/parser.h"
#include "perfetto/pf_wire.h"
#include "perfetto/pf_clock.h"

#define PF_TRACK_CACHE 64           /* track lookups cached (a power of two) */

/* TracePacket fields. */
enum {
    PF_PKT_PROCESS_TREE = 2,
    PF_PKT_CHROME_EVENTS = 5,
    PF_PKT_CLOCK_SNAPSHOT = 6,
    PF_PKT_TIMESTAMP = 8,
    PF_PKT_SEQ_ID = 10,
    PF_PKT_TRACK_EVENT = 11,
    PF_PKT_INTERNED_DATA = 12,
    PF_PKT_SEQUENCE_FLAGS = 13,
    PF_PKT_INCREMENTAL_STATE_CLEARED = 41,
    PF_PKT_PREVIOUS_PACKET_DROPPED = 42,
    PF_PKT_PROCESS_DESCRIPTOR = 43,
    PF_PKT_THREAD_DESCRIPTOR = 44,
    PF_PKT_COMPRESSED = 50,
    PF_PKT_TIMESTAMP_CLOCK_ID = 58,
    PF_PKT_DEFAULTS = 59,
    PF_PKT_TRACK_DESCRIPTOR = 60,
    PF_PKT_FIRST_PACKET_ON_SEQUENCE = 87,
    PF_PKT_ZSTD_COMPRESSED = 133
};

/* What every event of a packet shares (set once per packet). */
typedef struct pf_base {
    uint64_t offset;
    uint32_t flags;            /* TREAD_HAS_SEQ, TREAD_HAS_TS / _RAW_TS */
    uint32_t seq_id;
    uint32_t clock_id;
    int64_t ts, raw_ts;
    const void *raw;
} pf_base;

/* pf_fast.c: the fast reader of the common TrackEvent packets (see there).
 * PF_FAST_DONE: the packet was read (events delivered, or the rest queued
 * after a stop: stop_requested is then set); PF_FAST_ERROR: after
 * tread__fail; any other value: a reason it was not taken, nothing changed
 * (the general reader reads the packet). */
enum {
    PF_FAST_DONE = 0,
    PF_FAST_ERROR,
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

typedef struct pf_seq pf_seq;
typedef struct pf_track pf_track;
typedef struct pf_qitem pf_qitem;

typedef struct pf_decoder {
    tread_parser *p;
    pf_clocks *clocks;         /* pf_clock.c's: the clock snapshots */

    /* pf_sequence.c's: sequences, open addressing on the id */
    struct pf_seq **seqs;
    size_t seq_size, seq_used;
    struct pf_seq *last_seq;

    /* pf_tracks.c's: tracks */
    struct pf_track *tracks;
    size_t track_size, track_used;
    /* recently found tracks, direct-mapped on the uuid; emptied when the
     * table moves (tracks are never removed otherwise) */
    struct pf_tcache {
        uint64_t uuid;
        struct pf_track *t;
    } tcache[PF_TRACK_CACHE];
    tread_buf track_names;
    uint64_t interned_total;   /* all sequences + track names */

    /* pf_queue.c's: the events of the packet being delivered */
    tread_perfetto_packet pkt; /* the raw hook's view of the packet */
    struct pf_qitem *q;
    size_t q_len, q_cap, q_pos;
    /* the fast reader's own event, delivered without the queue (pf_fast.c
     * emit_direct): zeroed when made, and only the members
     * pf_reset_event_common names are ever set in it. 64-byte aligned
     * (tread_malloc_line; fev_mem is the allocation): inside the decoder,
     * the 16-byte store of pid and tid happened to straddle a page
     * boundary, and that one store made count_events 11% slower on
     * chromium_startup */
    tread_event *fev;
    void *fev_mem;
    tread_buf strbuf;          /* NUL-terminated copies at delivery */
    tread_buf catbuf;          /* joined categories of the TrackEvent */
    tread_buf flowbuf;         /* the TrackEvent's flow ids */
    tread_buf tflowbuf;        /* ...and terminating flow ids */

    /* pf_chrome.c's: ChromeEventBundle legacy JSON through a nested JSON
     * decoder (pf_decoder.c reads chrome_active, and moves chrome_json and
     * chrome_bundle with a paused packet) */
    int chrome_active;
    void *chrome_dec;
    const unsigned char *chrome_json;
    size_t chrome_json_len, chrome_json_pos, chrome_json_resume_pos;
    int chrome_stage;          /* 0 "[", 1 data, 2 "]", 3 finish */
    const unsigned char *chrome_bundle; /* remaining bundle fields */
    size_t chrome_bundle_len;
    uint64_t chrome_off;
    uint64_t chrome_fed;       /* bytes the nested decoder consumed */

    struct pf_sys *sys;        /* pf_system.c's: system data sources */
    struct pf_prof *prof;      /* pf_profile.c's: CPU samples */
    struct pf_v8 *v8;          /* pf_v8.c's: V8 profiles in legacy events */

    /* counters, each counted where it happens */
    uint64_t n_packets, n_packets_inner, n_zero_len, n_skipped_top;
    uint64_t n_dropped_invalid, n_data_loss[32], n_data_loss_packets;
    uint64_t n_interning_misses, n_clock_fail, n_compressed, n_compressed_bytes;
    uint64_t n_track_events, n_tracks_dropped, n_seq_dropped, n_unknown_track;
    uint64_t n_parent_missing;  /* events marked TREAD_TRACK_UNRESOLVED */
    uint64_t n_tracks_parent_missing_end; /* tracks still so at the end */
    uint64_t n_descriptors, n_chrome_json, n_chrome_events, n_interned_entries;
    uint64_t n_clears, n_bad_packets, n_interned_ignored;
    /* packets the fast reader left to the general one, by reason
     * (PF_FAST_*; internal, for the unit tests) */
    uint64_t n_fast_declined[PF_FAST_REASONS_];
} pf_decoder;

/* Microseconds to ns: 0, or -1 when the result leaves int64. */
static inline int pf_us_to_ns(int64_t us, int64_t *ns)
{
    if (us > INT64_MAX / 1000 || us < INT64_MIN / 1000)
        return -1;
    *ns = us * 1000;
    return 0;
}

/* Running sums written by the producer wrap rather than overflow. */
static inline int64_t pf_wrap_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

#endif
