/*
 * convert_perfetto: tread events as a Perfetto protobuf trace (a stream of
 * TracePacket records, each framed as Trace.packet), for `tread convert
 * --to perfetto` and `tread split`. One packet sequence; event names and
 * categories interned in a bounded table; a TrackDescriptor for every
 * process, thread, counter and async track before its first event. See
 * doc/convert.md for the mapping and for what cannot be carried.
 */
#ifndef TREAD_TOOLS_CONVERT_PERFETTO_H
#define TREAD_TOOLS_CONVERT_PERFETTO_H

#include <stdint.h>

#include <tread.h>

#include "pb_encode.h"
#include "convert_pf_stacks.h"

/* Strings interned per table (names, categories) before the sequence's
 * incremental state is cleared and interning starts over. */
#define CONVERT_PF_MAX_INTERNED_DEFAULT 65536
/* Distinct tracks (threads, processes, counters, async tracks) held. */
#define CONVERT_PF_MAX_TRACKS_DEFAULT 262144
/* The packet sequence every packet is on. */
#define CONVERT_PF_SEQUENCE_ID 1

typedef struct cvp_intern cvp_intern;
typedef struct cvp_tracks cvp_tracks;

typedef struct convert_perfetto {
    pb_buf out;               /* framed packets, ready to write */
    pb_buf pkt;               /* the packet being built */
    pb_buf tmp;               /* a descriptor being built */
    pb_buf idata;             /* an event's callstack entries */
    cvp_intern *names, *cats;
    cvp_tracks *tracks;
    cvp_stacks *stacks;       /* stack frame definitions (at the first) */
    uint64_t max_frame_bytes; /* their limit (0: the default) */
    int last_sf_missing;      /* the last event's sf named no definition */
    uint64_t max_interned;
    int need_clear;           /* next event packet clears the state */
    uint32_t epoch;           /* the current trace (split piece), from 1:
                                 a track is described once in each */
    uint64_t intern_resets;   /* times the interning table filled up */
    uint64_t lossy_ids;       /* ids that are not numbers: dropped */
    uint64_t lossy_ts;        /* negative timestamps: dropped */
    char error[160];          /* why convert_perfetto_event failed */
} convert_perfetto;

/* 0, or -1 when out of memory. */
int convert_perfetto_init(convert_perfetto *w, uint64_t max_interned,
                          uint64_t max_tracks);
void convert_perfetto_free(convert_perfetto *w);

/* 1 if the event becomes packets (else doc/convert.md says why not). */
int convert_perfetto_wanted(const tread_event *ev);

/* A STACK_FRAME definition, held for the callstacks of the events that
 * name it (it makes no packet): 0 held, 1 not held (over
 * max_frame_bytes), -1 out of memory (w->error set). */
int convert_perfetto_frame(convert_perfetto *w, const tread_event *ev);

/* Appends the packets of one event to w->out (the caller writes and
 * clears it). Returns 0, or -1 with w->error set (out of memory, too many
 * tracks). */
int convert_perfetto_event(convert_perfetto *w, const tread_event *ev);

/* Starts a new trace (a `tread split` piece): the next event packet
 * clears the sequence's incremental state and interns its names again, and
 * each track is described again before the first event on it (with its
 * parents), so that the packets that follow need nothing from before and
 * carry only the descriptors their own events use. Returns 0. */
int convert_perfetto_restart(convert_perfetto *w);

#endif
