/*
 * V8 CPU profiles that Chrome writes as legacy TrackEvents (pf_v8.c):
 * phase 'P' events named "Profile" and "ProfileChunk" whose "data" debug
 * annotation holds the profile as JSON text (legacy_json_value). Each is
 * expanded by the JSON decoder's expansion (json_profile.c) into
 * STACK_FRAME and SAMPLE events, as in a JSON trace: the same frame ids
 * ("<pid>:<id>:<node>"), names, parents and sample times, the profile's
 * startTime moved from CLOCK_MONOTONIC to the trace clock.
 * doc/formats/perfetto.md, "V8 CPU profiles".
 */
#ifndef TREAD_PERFETTO_PF_V8_H
#define TREAD_PERFETTO_PF_V8_H

#include "perfetto/pf_context.h"
#include "perfetto/pf_seq.h"

/* The TrackEvent (bytes te) whose event q holds, on sequence s: when it is
 * a profile record, its expansion is made pending and q is not delivered
 * (1); 0 when it is not one (or its data is not JSON: warned, delivered
 * as it is); -1 after tread__fail. */
int pf_v8_take(pf_decoder *d, pf_seq *s, pf_qitem *q, const unsigned char *te, size_t te_len,
               uint64_t off);

/* 1 while an expansion is pending. */
int pf_v8_pending(const pf_decoder *d);

/* Delivers the pending expansion, after the packet's queued events:
 * PAUSED when a callback asked to stop (the next call goes on). */
tread_status pf_v8_continue(pf_decoder *d);

/* Frees d->v8. */
void pf_v8_free(pf_decoder *d);

/* Appends its format counters. */
size_t pf_v8_counters(const pf_decoder *d, tread_counter *out, size_t max, size_t n);

#endif
