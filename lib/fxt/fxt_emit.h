/*
 * A record's callbacks, as numbered steps (see fxt_decoder.h on pausing
 * inside a record): the raw hook, warnings, events and blob pieces; the
 * reset of the decoder's one event; string and thread references with
 * their warnings; the synthetic arguments. Shared by the record readers
 * (fxt_records.c, fxt_events.c, fxt_large.c). The per-event helpers are
 * inline: they run for every event.
 */
#ifndef TREAD_FXT_EMIT_H
#define TREAD_FXT_EMIT_H

#include "fxt/fxt_decoder.h"
#include "fxt/fxt_time.h"
#include "fxt/fxt_wire.h"

/* 1 when the next callback is to be made: not one taken before a pause. */
static inline int fxt_step(fxt_decoder *d) { return d->step++ >= d->resume_step; }

/* The record's provider, after a provider switch too: set in the record,
 * the args context and the event once per switch, not per record. */
static inline void fxt_rec_provider(fxt_decoder *d)
{
    const fxt_provider *pv = d->cur;
    tread_str name = {pv->name ? pv->name : "", pv->name ? pv->name_len : 0};
    d->rec.has_provider = !pv->implicit;
    d->rec.provider_id = pv->id;
    d->rec.provider_name = name;
    d->actx.pv = pv;
    d->ev->provider_id = pv->implicit ? 0 : pv->id;
    d->ev->provider_name = pv->implicit ? (tread_str){NULL, 0} : name;
    d->ev_flags = pv->implicit ? 0 : TREAD_HAS_PROVIDER;
}

/* Starts the callbacks of a record at r (len bytes, at input offset off):
 * fills d->rec and the args context (the provider part is set by
 * fxt_rec_provider when the provider changes). */
static inline void fxt_record_begin(fxt_decoder *d, const unsigned char *r, size_t len,
                                    uint64_t off)
{
    tread_fxt_record *rec = &d->rec;
    uint64_t h = fxt_load64(r);
    unsigned type = (unsigned)(h & 15);
    d->step = 0;
    d->raw_done = 0;
    rec->data = r;
    rec->len = len;
    rec->offset = off;
    rec->header = h;
    rec->type = type;
    rec->size_words = type == FXT_REC_LARGE ? fxt_bits(h, 4, 35) : fxt_bits(h, 4, 15);
    rec->args_offset = 0;
    rec->nargs = 0;
    rec->skipped = 0;
    d->actx.rec = r;
    d->actx.rec_end = r + len;
    d->actx.synth_kind = FXT_SYNTH_NONE;
}

/* The raw hook (once per record; counts the record). */
static inline void fxt_emit_raw(fxt_decoder *d)
{
    if (d->raw_done)
        return;
    d->raw_done = 1;
    if (!fxt_step(d))
        return;
    d->c.by_type[d->rec.type]++;
    tread__emit_fxt_record(d->p, &d->rec);
}

/* A warning (printf-style); fxt_warn_count also counts it in *counter,
 * once. */
void fxt_warn(fxt_decoder *d, tread_warning_kind kind, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void fxt_warn_count(fxt_decoder *d, uint64_t *counter, tread_warning_kind kind,
                    const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* BAD_RECORD ("<type> record: <what>: skipped") and UNKNOWN_RECORD
 * warnings; both mark the record skipped (tread_fxt_record.skipped) and
 * return FXT_OK. Each reader calls them before any other callback of the
 * record, so the raw hook, made with the warning, sees the mark. */
int fxt_bad(fxt_decoder *d, const char *what);
int fxt_unknown(fxt_decoder *d, const char *what, unsigned value);
/* A table store failed (rc -1 no memory, -2 over the interned limit):
 * the error; returns FXT_FAIL. */
int fxt_fail_store(fxt_decoder *d, int rc);

/* Whether the callback just made, not an earlier one, asked to stop. */
static inline int fxt_asked_to_stop(tread_parser *p, int before)
{
    int asked = p->stop_requested;
    p->stop_requested |= before;
    return asked;
}

/* An event. Returns 1 when its callback asked to stop. */
static inline int fxt_emit_event(fxt_decoder *d, tread_event *ev)
{
    fxt_emit_raw(d);
    if (!fxt_step(d))
        return 0;
    return tread__emit_inline(d->p, ev);
}

/* A blob piece (a step of the record when stepped). Returns 1 when the
 * callback asked to stop. */
int fxt_emit_piece(fxt_decoder *d, const tread_blob *b, int stepped);

/* The event to fill: reset, with what every event of the record has.
 * fxt_event_init clears every field FXT writes (any record reader);
 * fxt_event_init_fast, for the readers that say what they set in
 * d->ev_dirty (event records), clears only the groups set since. */
enum {
    FXT_EV_DUR = 1u << 0,    /* dur */
    FXT_EV_CPU = 1u << 1,    /* cpu */
    FXT_EV_VALUE = 1u << 2,  /* series, value, value_int */
    FXT_EV_META = 1u << 3,   /* meta, meta_str */
    FXT_EV_ID = 1u << 4,     /* id_num */
    FXT_EV_SCOPE = 1u << 5,  /* scope */
    FXT_EV_TRACK = 1u << 6,  /* track_uuid, track_kind */
    FXT_EV_FLOWS = 1u << 7,  /* flow_ids, terminating_flow_ids */
    FXT_EV_ALL = 0xffu
};
/* The decoder's one event is zeroed when the decoder is made; FXT writes
 * only the fields of fxt_event_init_fast and of these groups, so the
 * others stay zero without clearing the whole (large) struct for every
 * event. One store per field, each from a constant: chained assignments
 * (a = b = {0}) read back what was just stored, a store-forwarding stall. */
static inline void fxt_event_clear_inline(fxt_decoder *d, unsigned groups)
{
    tread_event *ev = d->ev;
    if (groups & FXT_EV_DUR)
        ev->dur = 0;
    if (groups & FXT_EV_CPU)
        ev->cpu = 0;
    if (groups & FXT_EV_VALUE) {
        ev->series.ptr = NULL;
        ev->series.len = 0;
        ev->value = 0;
        ev->value_int = 0;
    }
    if (groups & FXT_EV_META) {
        ev->meta = TREAD_META_NONE;
        ev->meta_str.ptr = NULL;
        ev->meta_str.len = 0;
    }
    if (groups & FXT_EV_ID)
        ev->id_num = 0;
    if (groups & FXT_EV_SCOPE)
        ev->scope = TREAD_SCOPE_NONE;
    if (groups & FXT_EV_TRACK) {
        ev->track_uuid = 0;
        ev->track_kind = TREAD_TRACK_NONE;
    }
    if (groups & FXT_EV_FLOWS) {
        ev->flow_ids.v = NULL;
        ev->flow_ids.n = 0;
        ev->terminating_flow_ids.v = NULL;
        ev->terminating_flow_ids.n = 0;
    }
    d->ev_dirty = 0;
}
void fxt_event_clear(fxt_decoder *d, unsigned groups);

static inline tread_event *fxt_event_init_fast(fxt_decoder *d)
{
    tread_event *ev = d->ev;
    if (d->ev_dirty)
        fxt_event_clear(d, d->ev_dirty);
    ev->kind = TREAD_EVENT_UNKNOWN;
    ev->flags = d->ev_flags;
    ev->ts = 0;
    ev->pid = 0;
    ev->tid = 0;
    ev->name.ptr = NULL;
    ev->name.len = 0;
    ev->cat.ptr = NULL;
    ev->cat.len = 0;
    ev->args.data = NULL;
    ev->args.len = 0;
    ev->args.encoding = TREAD_ARGS_TOKENS;
    ev->args.ctx = NULL;
    ev->offset = d->rec.offset;
    return ev;
}

static inline tread_event *fxt_event_init(fxt_decoder *d)
{
    d->ev_dirty = FXT_EV_ALL;
    tread_event *ev = fxt_event_init_fast(d);
    d->ev_dirty = FXT_EV_ALL; /* the reader may set anything */
    return ev;
}

void fxt_warn_ts_overflow(fxt_decoder *d, uint64_t ticks);
void fxt_warn_missing_string(fxt_decoder *d, unsigned idx, const char *what);
void fxt_warn_missing_thread(fxt_decoder *d, unsigned ref);

/* Sets ev->ts from ticks, or warns of an overflow. */
static inline void fxt_event_ts(fxt_decoder *d, tread_event *ev, uint64_t ticks)
{
    if (fxt_rate_to_ns(&d->cur->rate, ticks, &ev->ts) == 0)
        ev->flags |= TREAD_HAS_TS;
    else
        fxt_warn_ts_overflow(d, ticks);
}

/* A string ref of the record, warning when its index is not in the
 * table. Returns 0 or -1 (unresolved: ""). */
static inline int fxt_string_ref(fxt_decoder *d, unsigned ref, const unsigned char **inline_at,
                                 tread_str *out, const char *what)
{
    if (fxt_resolve_str(&d->actx, ref, inline_at, out) == 0)
        return 0;
    fxt_warn_missing_string(d, ref, what);
    return -1;
}

/* A thread ref: inline koids at *inline_at (advanced), or the table.
 * Returns 0 or -1 (unresolved, warned). */
static inline int fxt_thread_ref(fxt_decoder *d, unsigned ref, const unsigned char **inline_at,
                                 uint64_t *pid, uint64_t *tid)
{
    if (ref == 0) {
        *pid = fxt_load64(*inline_at);
        *tid = fxt_load64(*inline_at + 8);
        *inline_at += 16;
        return 0;
    }
    const fxt_thread *t = fxt_thread_get(d->cur, ref);
    if (t) {
        *pid = t->pid;
        *tid = t->tid;
        return 0;
    }
    fxt_warn_missing_thread(d, ref);
    return -1;
}

/* Warns of the args' indices that are not in the string table. */
void fxt_warn_missing_args(fxt_decoder *d, const fxt_args_check *chk);
/* The BAD_RECORD warning for an argument walk that failed. */
void fxt_warn_bad_args(fxt_decoder *d, const fxt_args_check *chk);

static inline void fxt_set_thread(tread_event *ev, uint64_t pid, uint64_t tid)
{
    ev->pid = (int64_t)pid;
    ev->tid = (int64_t)tid;
    ev->flags |= TREAD_HAS_PID | TREAD_HAS_TID;
}

/* The event's args: n bytes of argument words at p (with synthetic
 * fields, p is set even when n is 0). */
static inline void fxt_set_args(fxt_decoder *d, tread_event *ev, const unsigned char *p, size_t n)
{
    if (n || d->actx.synth_kind)
        ev->args = (tread_args){.data = p, .len = n, .encoding = TREAD_ARGS_FXT, .ctx = &d->actx};
}

/* Event types 0..10 to event kinds (fxt_events.c). */
extern const tread_event_kind fxt_event_kinds[11];

/* The id word of async (5..7) and flow (8..10) events: both readers. */
static inline void fxt_set_event_id(fxt_decoder *d, tread_event *ev, unsigned et, uint64_t w)
{
    ev->id_num = w;
    ev->flags |= TREAD_HAS_ID | TREAD_HAS_ID_NUM;
    if (et <= 7) {
        ev->track_uuid = w;
        ev->track_kind = TREAD_TRACK_ASYNC;
        ev->flags |= TREAD_HAS_TRACK;
        d->ev_dirty |= FXT_EV_ID | FXT_EV_TRACK;
        return;
    }
    d->ev_dirty |= FXT_EV_ID | FXT_EV_FLOWS;
    d->flow_id = w;
    if (et == 10)
        ev->terminating_flow_ids = (tread_ids){&d->flow_id, 1};
    else
        ev->flow_ids = (tread_ids){&d->flow_id, 1};
}

/* The event records (fxt_events.c). */
int fxt_event_record(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t h);

#endif
