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

/* The record's provider, after a provider switch too. */
static inline void fxt_rec_provider(fxt_decoder *d)
{
    const fxt_provider *pv = d->cur;
    d->rec.has_provider = !pv->implicit;
    d->rec.provider_id = pv->id;
    d->rec.provider_name.ptr = pv->name ? pv->name : "";
    d->rec.provider_name.len = pv->name ? pv->name_len : 0;
    d->actx.pv = pv;
}

/* Starts the callbacks of a record at r (len bytes, at input offset off):
 * fills d->rec and the args context. */
static inline void fxt_record_begin(fxt_decoder *d, const unsigned char *r, size_t len,
                                    uint64_t off)
{
    tread_fxt_record *rec = &d->rec;
    d->step = 0;
    d->raw_done = 0;
    rec->data = r;
    rec->len = len;
    rec->offset = off;
    rec->header = fxt_load64(r);
    rec->type = (unsigned)(rec->header & 15);
    rec->size_words = rec->type == FXT_REC_LARGE ? fxt_bits(rec->header, 4, 35)
                                                 : fxt_bits(rec->header, 4, 15);
    rec->args_offset = 0;
    rec->nargs = 0;
    d->actx.rec = r;
    d->actx.rec_end = r + len;
    d->actx.shadow = d->shadow;
    d->actx.nsynth = 0;
    fxt_rec_provider(d);
}

/* The raw hook (once per record; counts the record). */
void fxt_emit_raw(fxt_decoder *d);

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
 * warnings; both return FXT_OK. */
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
    if (!d->raw_done)
        fxt_emit_raw(d);
    if (!fxt_step(d))
        return 0;
    tread_parser *p = d->p;
    int before = p->stop_requested;
    p->stop_requested = 0;
    tread__emit(p, ev);
    return fxt_asked_to_stop(p, before);
}

/* A blob piece (a step of the record when stepped). Returns 1 when the
 * callback asked to stop. */
int fxt_emit_piece(fxt_decoder *d, const tread_blob *b, int stepped);

/* The event to fill: reset, with what every event of the record has. */
tread_event *fxt_event_init(fxt_decoder *d);

void fxt_warn_ts_overflow(fxt_decoder *d, uint64_t ticks);
void fxt_warn_missing_string(fxt_decoder *d, unsigned idx, const char *what);
void fxt_warn_missing_thread(fxt_decoder *d, unsigned ref);

/* Sets ev->ts from ticks, or warns of an overflow. */
static inline void fxt_event_ts(fxt_decoder *d, tread_event *ev, uint64_t ticks)
{
    if (fxt_ticks_to_ns(ticks, d->cur->ticks_per_second, &ev->ts) == 0)
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
    if (n || d->actx.nsynth)
        ev->args = (tread_args){.data = p, .len = n, .encoding = TREAD_ARGS_FXT, .ctx = &d->actx};
}

/* Synthetic fields (see fxt_args.h): value v.u, or a string. */
void fxt_synth(fxt_decoder *d, tread_arg_type type, const char *key, uint64_t v);
void fxt_synth_str(fxt_decoder *d, const char *key, tread_str s);

/* The event records (fxt_events.c). */
int fxt_event_record(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t h);

#endif
