/*
 * The event queue and event building (pf_queue.c): every handler builds
 * its events in queue slots; pf_decoder.c delivers them (and keeps the
 * rest across a pause). Below the handlers and the tracks; it reads
 * nothing but the shared state (pf_context.h).
 */
#ifndef TREAD_PERFETTO_PF_QUEUE_H
#define TREAD_PERFETTO_PF_QUEUE_H

#include "perfetto/pf_context.h"

/* Bits of pf_qitem.nul: strings already NUL-terminated in memory that
 * outlives the delivery (arena copies, static text, the decoder's own
 * buffers), which delivery need not copy. */
#define PF_NUL_NAME 1u
#define PF_NUL_CAT 2u
#define PF_NUL_META 4u
#define PF_NUL_SERIES 8u

/* One queued delivery: the raw hook or an event. Pointers in ev may point
 * into the packet (relocated on pause) or into the interning arena;
 * strings are copied NUL-terminated at delivery. */
struct pf_qitem {
    int is_hook;
    int skip;                  /* not delivered (pf_v8.c took its event) */
    int general;               /* filled by the general reader: members
                                  outside pf_reset_event_common may be set */
    int plain;                 /* (fast reader) every string NUL-terminated
                                  in place, nothing to format at delivery */
    unsigned nul;              /* PF_NUL_* */
    int fmt_id;                /* print id_num as the id text */
    int fmt_bind;              /* print bind_num as bind_id text */
    uint64_t bind_num;
    pf_seq *seq;               /* for lazy args */
    tread_event ev;
};

/* The raw hook's view of the packet being read: both readers (pf_decoder.c,
 * pf_fast.c) describe it the same way. */
static inline void pf_describe_packet(pf_decoder *d, const unsigned char *data, size_t len,
                                      uint32_t seq_id, uint32_t clock_id, const pf_base *base,
                                      uint32_t sequence_flags, uint32_t state, uint64_t off)
{
    d->pkt.data = data;
    d->pkt.len = len;
    d->pkt.seq_id = seq_id;
    d->pkt.clock_id = clock_id;
    d->pkt.ts = (base->flags & TREAD_HAS_TS) ? base->ts : base->raw_ts;
    d->pkt.sequence_flags = sequence_flags;
    d->pkt.state = state;
    d->pkt.offset = off;
}

/* Gives the raw hook the packet pf_describe_packet described, with the
 * trace clock as of now (the packet's own timestamps read, its events not
 * yet delivered): what both readers do before a packet's events. */
static inline void pf_emit_packet_hook(pf_decoder *d)
{
    d->pkt.trace_clock_id = pf_clocks_trace_clock(d->clocks);
    if (pf_clocks_fixed(d->clocks))
        d->pkt.state |= TREAD_PF_STATE_CLOCK_FIXED;
    tread__emit_perfetto_packet(d->p, &d->pkt);
}

/* A queued extra counter value's event (TrackEvent extra_counter_values):
 * the time and category of the event before it (main_ev, with its nul
 * bits main_nul), on the sequence s; the caller resolves its track and
 * sets its value. */
static inline void pf_extra_counter_event(pf_qitem *xq, pf_seq *s, const tread_event *main_ev,
                                          unsigned main_nul)
{
    tread_event *xe = &xq->ev;
    xq->seq = s;
    xe->kind = TREAD_EVENT_COUNTER;
    xe->phase = 'C';
    xe->ts = main_ev->ts;
    xe->flags = main_ev->flags & (TREAD_HAS_TS | TREAD_HAS_RAW_TS | TREAD_HAS_SEQ);
    xe->raw_ts = main_ev->raw_ts;
    xe->clock_id = main_ev->clock_id;
    xe->cat = main_ev->cat;
    xq->nul |= main_nul & PF_NUL_CAT;
}

/* Appends s NUL-terminated to b (room reserved by the caller) and points
 * s at the copy: a string delivered with an event. (inline: most events
 * have several absent strings) */
static inline PF_ALWAYS_INLINE void pf_put_str(tread_buf *b, tread_str *s)
{
    if (!s->ptr)
        return;
    char *dst = (char *)b->data + b->len;
    if (s->len)
        memcpy(dst, s->ptr, s->len);
    dst[s->len] = 0;
    b->len += s->len + 1;
    s->ptr = dst;
}


/* Resetting an event: queue slots are zeroed once when the queue grows;
 * after that only the members the Perfetto decoder ever sets (in
 * pf_decoder.c, pf_track_event.c, pf_fast.c, pf_tracks.c, pf_chrome.c, and
 * tread__emit's format) are reset. Every other member (pid_str,
 * cname, sf, stack, value_text, provider, ...) stays zero. Measured:
 * clearing all 560 bytes per event was ~9% of the instructions on
 * chromium_startup. The common members are what the fast reader sets
 * (pf_fast.c); the rare ones only the general reader sets, so they are
 * reset only in a slot the general reader filled last (pf_qitem.general). */
static inline void pf_event_set_base(tread_event *ev, const pf_base *base)
{
    ev->offset = base->offset;
    ev->flags = base->flags;
    ev->seq_id = base->seq_id;
    ev->ts = base->ts;
    ev->raw_ts = base->raw_ts;
    ev->clock_id = base->clock_id;
    ev->raw = base->raw;
}

static inline void pf_reset_event_common(tread_event *ev, const pf_base *base)
{
    static const tread_str z = {NULL, 0};
    pf_event_set_base(ev, base);
    ev->kind = TREAD_EVENT_UNKNOWN;
    ev->format = TREAD_FORMAT_UNKNOWN;
    ev->phase = 0;
    ev->pid = ev->tid = 0;
    ev->name = z;
    ev->cat = z;
    ev->series = z;
    ev->value = 0;
    ev->value_int = 0;
    ev->args.data = NULL;
    ev->args.len = 0;
    ev->args.encoding = TREAD_ARGS_TOKENS;
    ev->args.ctx = NULL;
    ev->track_uuid = 0;
    ev->track_kind = TREAD_TRACK_NONE;
    ev->flow_ids.v = NULL;
    ev->flow_ids.n = 0;
    ev->terminating_flow_ids.v = NULL;
    ev->terminating_flow_ids.n = 0;
}

static inline void pf_reset_event_rare(tread_event *ev)
{
    static const tread_str z = {NULL, 0};
    ev->dur = ev->tts = ev->tdur = 0;
    ev->id = z;
    ev->id_num = 0;
    ev->id_scope = z;
    ev->bind_id = z;
    ev->scope = TREAD_SCOPE_NONE;
    ev->tidelta = ev->ticount = 0;
    ev->meta = TREAD_META_NONE;
    ev->meta_str = z;
    ev->meta_num = 0;
    ev->cpu = 0; /* the system data sources' counters and ftrace events */
    ev->sf = z;  /* CPU samples and their frames (pf_profile.c) */
    ev->parent = z;
}

/* Doubles the queue (new slots zeroed). -1 after tread__fail. */
int pf_queue_grow(pf_decoder *d, uint64_t off);
/* A new queue slot, reset, with base's fields (NULL base: the raw hook's
 * slot); NULL after tread__fail. */
pf_qitem *pf_queue_event(pf_decoder *d, const pf_base *base);
/* A new queue slot whose event is not reset: for a caller that resets the
 * whole event itself (tread__ftrace_event_init). NULL after tread__fail. */
pf_qitem *pf_queue_slot(pf_decoder *d, uint64_t off);

#endif
