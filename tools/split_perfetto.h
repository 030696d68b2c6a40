/*
 * split_perfetto: a Perfetto trace split into Perfetto pieces, packets
 * copied byte for byte (doc/convert.md, "Perfetto pieces"). Each piece
 * decodes alone: before the first packet of a piece that needs it, the
 * piece gets the state that packet needs and the piece lacks (a sequence's
 * SEQ_INCREMENTAL_STATE_CLEARED packet with its defaults and only the
 * interned entries referenced, the clock snapshots in force, the track
 * descriptors used and their parents); every piece starts with the
 * trace-level packets (trace config, system info, ...).
 *
 * Driven by the raw packet hook and the event hook of one parse: a packet
 * is held until its events have been seen (they name the tracks it uses),
 * then written when the next packet arrives or at finish.
 */
#ifndef TREAD_TOOLS_SPLIT_PERFETTO_H
#define TREAD_TOOLS_SPLIT_PERFETTO_H

#include <stdint.h>
#include <stdio.h>
#include <tread.h>
#include <tread/perfetto.h>

#include "split_pieces.h"

/* Named limits (each overflow is a counted warning, never unbounded). */
#define SPLIT_PF_MAX_SEQUENCES 65536      /* sequences whose state is kept */
#define SPLIT_PF_MAX_STATE_BYTES (32u << 20) /* interned entries, defaults
                                               and descriptors kept, in all */
#define SPLIT_PF_MAX_TRACKS 65536         /* track descriptors kept */
#define SPLIT_PF_MAX_TRACE_PACKETS 32     /* trace-level packets repeated */
#define SPLIT_PF_MAX_TRACE_BYTES (16u << 10) /* ...and their bytes */
#define SPLIT_PF_MAX_TRACE_PACKET_BYTES 8192 /* a larger one (Chrome's 80 KiB
                                                extension_descriptor) stays in
                                                its own piece only */
#define SPLIT_PF_CLOCK_SNAPSHOTS 8        /* global ClockSnapshots in force
                                             (the latest of each set of
                                             clocks) repeated in every piece */
#define SPLIT_PF_MAX_SEQ_CLOCKS 16        /* sequence-scoped clocks per sequence */
#define SPLIT_PF_MAX_COUNTERS 1024        /* incremental counter tracks per sequence */
#define SPLIT_PF_MAX_REFS 65536           /* interned references of one packet */
#define SPLIT_PF_MAX_PACKET_TRACKS 1024   /* tracks used by one packet */
#define SPLIT_PF_MAX_PARENT_DEPTH 64      /* track parents followed */
#define SPLIT_PF_MAX_RAILS 1024           /* PowerRails descriptors: the
                                             decoder's PF_SYS_MAX_RAILS */
#define SPLIT_PF_MAX_CPUS 4096            /* cpus whose last switch is
                                             followed: PF_SYS_MAX_CPUS */
#define SPLIT_PF_PACKET_CPUS 8            /* cpus of one packet's switches
                                             (a bundle has one) */
#define SPLIT_PF_MAX_V8_PROFILES 4096     /* V8 profiles followed (past it:
                                             each record of another counted
                                             in v8_records_split) */
#define SPLIT_PF_PACKET_V8 4              /* profiles of one packet's events */

typedef struct split_perfetto split_perfetto;

/* What the split did (for tests and the warnings summary). */
typedef struct split_perfetto_stats {
    uint64_t packets;          /* input packets copied */
    uint64_t events;           /* events seen */
    uint64_t state_packets;    /* packets synthesised (state, descriptors,
                                  clocks, trace-level copies) */
    uint64_t state_bytes;      /* their bytes, framing included */
    uint64_t seq_added;        /* packets given their sequence id field */
    uint64_t counters_rewritten; /* packets whose incremental counter values
                                    were written as the running values (the
                                    first on their track in a piece) */
    uint64_t deltas_rewritten; /* packets whose legacy TrackEvent deltas
                                  (timestamp_delta_us and the like) were
                                  written as absolutes (the first on a base
                                  the piece's decoder lacks) */
    /* counted warnings */
    uint64_t seq_not_kept, state_not_kept, tracks_not_kept, trace_not_kept;
    uint64_t refs_not_kept, tracks_of_packet_not_kept, unknown_refs;
    uint64_t counters_not_kept, clocks_not_kept, snapshots_not_kept;
    uint64_t unwalkable_packets; /* malformed: every entry of the sequence given */
    uint64_t clock_shift_inexact;
    /* a loss (doc/convert.md): the implicit end of a TYPE_STATE state that
     * began in an earlier piece (the piece's decoder has no open state) */
    uint64_t state_ends_lost;
    /* also a loss: the previous thread of a compact_sched sched_switch
     * that is the first switch on its CPU in a piece (the decoder knows it
     * from the CPU's last switch, in an earlier piece) */
    uint64_t sched_prevs_lost;
    /* also a loss: V8 profile records (Chrome's legacy Profile and
     * ProfileChunk TrackEvents, lib/perfetto/pf_v8.c) in a piece after
     * the one that holds their profile's first record, whose running time
     * the split cannot restate (tools/split_pf_v8.c): the piece's decoder
     * lacks it (the samples' times are missing or differ) and may lack a
     * node's parent named by an earlier node's children */
    uint64_t v8_records_split;
    uint64_t v8_starts_restated; /* ProfileChunk records written to give a
                                    piece's decoder a profile's running
                                    time (tools/split_pf_v8.c) */
} split_perfetto_stats;

/* sp's suffix should be "pftrace". NULL when out of memory. */
split_perfetto *split_perfetto_new(split_pieces *sp);
/* From the raw packet hook (cli_input_run_packets' on_packet): every
 * TracePacket, the packets inside compressed_packets included. 0 / -1. */
int split_perfetto_packet(split_perfetto *s, const tread_perfetto_packet *pk);
/* From the event hook: the events made from the packet last given. */
int split_perfetto_event(split_perfetto *s, const tread_event *ev);
/* Writes the packet held and ends the last piece. 0 / -1. */
int split_perfetto_finish(split_perfetto *s);
const char *split_perfetto_error(const split_perfetto *s);
const split_perfetto_stats *split_perfetto_get_stats(const split_perfetto *s);
/* Prints one line per kind of counted warning ("tread: split: ..."). */
void split_perfetto_print_warnings(const split_perfetto *s, FILE *f);
/* Events left out of the pieces (state_ends_lost), for --strict. */
uint64_t split_perfetto_lost(const split_perfetto *s);
/* Prints them as convert's losses ("tread: left out N KIND events:
 * REASON"), whatever -q says. */
void split_perfetto_print_losses(const split_perfetto *s, FILE *f);
void split_perfetto_free(split_perfetto *s);

#endif
