/*
 * Perfetto callstacks into the event model (pf_profile.c): PerfSample
 * (traced_perf), StreamingProfilePacket (Chrome's sampling profiler),
 * StackSample (the generic sampling packet) and a TrackEvent's own
 * callstack (inline or interned). Each sample is a
 * TREAD_EVENT_SAMPLE, and a TrackEvent's event, whose sf names the
 * leaf of its callstack; the callstack's frames are TREAD_EVENT_STACK_FRAME
 * definitions, given the first time the parser meets each (the same model
 * as V8 CPU profiles in JSON). doc/formats/perfetto.md, "CPU samples", has
 * the mapping.
 *
 * A frame's id is a hash of its content and its parent's id, so that the
 * same callsite has the same id wherever it is met: in another sequence,
 * after a clear, in a piece of a split trace.
 */
#ifndef TREAD_PERFETTO_PF_PROFILE_H
#define TREAD_PERFETTO_PF_PROFILE_H

#include "perfetto/pf_context.h"
#include "perfetto/pf_seq.h"

/* TracePacket fields read here. */
enum {
    PF_PKT_STREAMING_PROFILE = 54,
    PF_PKT_PERF_SAMPLE = 66,
    PF_PKT_STACK_SAMPLE = 135
};

/* Frames of one callstack read: a deeper one keeps its leaf-most frames
 * (a warned TREAD_WARN_LIMIT). Bounds the events one callstack makes. */
#define PF_PROF_MAX_DEPTH 1024
/* New callsites one packet defines (each is a queued event): past it, the
 * rest are defined where next met (a warned TREAD_WARN_LIMIT). */
#define PF_PROF_MAX_PACKET_FRAMES 65536

static inline int pf_profile_wants(uint32_t num)
{
    return num == PF_PKT_STREAMING_PROFILE || num == PF_PKT_PERF_SAMPLE ||
           num == PF_PKT_STACK_SAMPLE;
}

/* The events of one such field (num, its message bytes) of a packet on
 * sequence s. 0, or -1 after tread__fail. */
int pf_profile_packet(pf_decoder *d, pf_seq *s, uint32_t num, const unsigned char *m, size_t len,
                      const pf_base *base);

/* The callstack of a TrackEvent (callstack, 55: is_inline, the
 * InlineCallstack's bytes m; or callstack_iid, 56: iid) on sequence s:
 * queues the STACK_FRAME definitions of its callsites not met before (so
 * before the event, which the caller queues next) and sets *sf to the
 * leaf's id, valid until the next packet. 1, 0 when it names no frame
 * (warned where it should), -1 after tread__fail. */
int pf_profile_track_event(pf_decoder *d, pf_seq *s, int is_inline, const unsigned char *m,
                           size_t len, uint64_t iid, const pf_base *base, tread_str *sf);

/* Points the packet's queued definitions and samples at their strings,
 * once all its fields are read (process_packet, last). */
void pf_profile_packet_done(pf_decoder *d);

/* Frees d->prof. */
void pf_profile_free(pf_decoder *d);

/* Appends the format counters of the CPU samples. */
size_t pf_profile_counters(const pf_decoder *d, tread_counter *out, size_t max, size_t n);

#endif
