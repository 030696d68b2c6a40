/*
 * The fast readers of the records that make up most of a trace (plain
 * event, string, scheduling, log and thread records), inline in the
 * framing loop (fxt_decoder.c, their only user): as a call per record,
 * with its saved registers and reloaded decoder state, the event reader
 * alone cost 6% of the instructions of reading gen_stress.
 *
 * They make the same callbacks with the same contents as fxt_record, the
 * general reader and their oracle: the chunk tests compare them (a record
 * gathered across feeds takes the general path). Each returns FXT_OK,
 * FXT_PAUSE, or FXT_SLOW having done nothing, for fxt_record to read the
 * record. Only where no step is to be skipped (d->resume_step 0).
 */
#ifndef TREAD_FXT_FAST_H
#define TREAD_FXT_FAST_H
#include "fxt/fxt_emit.h"
#include "fxt/fxt_time.h"
#include "fxt/fxt_wire.h"

#include <string.h>

/* The raw hook of a record read by a fast reader, as fxt_record makes it
 * (step 0); steps events will take follow from d->step. */
static inline void fast_raw(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t off,
                            uint64_t h, unsigned type, size_t args_offset, unsigned nargs,
                            unsigned steps)
{
    tread_fxt_record *rec = &d->rec;
    rec->data = r;
    rec->len = len;
    rec->offset = off;
    rec->header = h;
    rec->type = type;
    rec->size_words = (h >> 4) & 0xfff;
    rec->args_offset = args_offset;
    rec->nargs = nargs;
    rec->skipped = 0; /* a fast reader skips nothing (FXT_SLOW instead) */
    d->actx.rec = r; /* fxt_event_fast set these already: the same */
    d->actx.rec_end = r + len;
    d->actx.synth_kind = FXT_SYNTH_NONE;
    d->step = steps;
    d->raw_done = 1;
    d->c.by_type[type]++;
    tread__emit_fxt_record(d->p, rec);
}

/* The decoder's event, as fxt_event_init_fast leaves it, minus the groups
 * in keep (the caller writes every field of those) and the fields every
 * fast reader sets itself: ts, pid, tid, name, cat, args. */
static inline tread_event *fast_event(fxt_decoder *d, unsigned keep, tread_event_kind kind,
                                      uint32_t flags, uint64_t off)
{
    tread_event *ev = d->ev;
    unsigned stale = d->ev_dirty & ~keep;
    if (stale)
        fxt_event_clear_inline(d, stale);
    ev->kind = kind;
    ev->flags = d->ev_flags | flags;
    ev->offset = off;
    return ev;
}

static inline void fast_no_args(tread_event *ev)
{
    ev->args.data = NULL;
    ev->args.len = 0;
    ev->args.encoding = TREAD_ARGS_TOKENS;
    ev->args.ctx = NULL;
}

/* The record's argument words [args, aend) as the event's args, as
 * fxt_set_args makes them: none when there are none and no synthetic
 * fields (synth) come first. */
static inline void fast_args(fxt_decoder *d, tread_event *ev, const unsigned char *args,
                             const unsigned char *aend, int synth)
{
    if (synth || aend != args) {
        ev->args.data = args;
        ev->args.len = (size_t)(aend - args);
        ev->args.encoding = TREAD_ARGS_FXT;
        ev->args.ctx = &d->actx;
    } else {
        fast_no_args(ev);
    }
}

/* A string record: the table store and the raw hook, without fxt_record's
 * per-record set-up. Anything unusual (index 0, a string past the record
 * or over the limit, a failed store) is left to fxt_record, which repeats
 * the store (idempotent) and reports. */
static inline int fxt_string_fast(fxt_decoder *d, const unsigned char *r, size_t len,
                                  uint64_t off, uint64_t h)
{
    unsigned idx = (unsigned)(h >> 16) & 0x7fffu;
    size_t n = (size_t)(h >> 32) & 0x7fffu;
    if (idx == 0 || fxt_pad8(n) > len - 8 || n > d->p->max_string_bytes ||
        fxt_string_put(&d->tables, d->cur, idx, (const char *)r + 8, n) != 0)
        return FXT_SLOW;
    fast_raw(d, r, len, off, h, FXT_REC_STRING, 0, 0, 1);
    return FXT_OK;
}

/* A string ref of a plain record: in the table (index 0 is the empty
 * string there: fxt_tables.h), inline, or empty before any table. Returns
 * -1 for an index not in the table. */
static inline int fast_str(fxt_decoder *d, const fxt_provider *pv, unsigned ref,
                           const unsigned char **at, tread_str *out)
{
    if (ref < pv->string_slots) { /* string_slots <= 0x8000: never inline */
        const fxt_string *e = &pv->strings[ref];
        if (e->len == FXT_STRING_UNSET)
            return -1;
        out->ptr = e->ptr;
        out->len = e->len;
        return 0;
    }
    if (ref & 0x8000u) {
        size_t n = ref & 0x7fffu;
        out->ptr = fxt_inline_str(&d->actx, *at, n);
        out->len = n;
        *at += (n + 7) & ~(size_t)7;
        return 0;
    }
    if (ref == 0) {
        out->ptr = "";
        out->len = 0;
        return 0;
    }
    return -1;
}

/* An event record of a plain trace, read in one go: every reference
 * resolves, the arguments are of known layouts, the times convert. */
static inline int fxt_event_fast(fxt_decoder *d, const unsigned char *r, size_t len,
                                 uint64_t off, uint64_t h)
{
    unsigned et = (unsigned)(h >> 16) & 15, nargs = (unsigned)(h >> 20) & 15;
    unsigned tref = (unsigned)(h >> 24) & 0xff, cref = (unsigned)(h >> 32) & 0xffff;
    unsigned nref = (unsigned)(h >> 48);
    if (et > 10)
        return FXT_SLOW; /* unknown types */
    const fxt_provider *pv = d->cur;
    const unsigned char *end = r + len;
    size_t tb = tref ? 0 : 16, sb = 0;
    if (FXT_UNLIKELY((cref | nref) & 0x8000u)) /* inline strings: rare */
        sb = ((cref & 0x8000u) ? ((cref & 0x7fffu) + 7) & ~(size_t)7 : 0) +
             ((nref & 0x8000u) ? ((nref & 0x7fffu) + 7) & ~(size_t)7 : 0);
    if (len < 16 + tb + sb)
        return FXT_SLOW;
    const unsigned char *strs = r + 16 + tb, *args = strs + sb, *aend = args;
    if (fxt_args_walk_fast(pv, args, end, nargs, &aend))
        return FXT_SLOW;
    if (et == 1) {
        /* a counter whose arguments are all numeric: one event each */
        if (nargs == 0)
            return FXT_SLOW;
        for (const unsigned char *a = args; a < aend; a += ((fxt_load64(a) >> 4) & 0xfff) * 8) {
            unsigned t = (unsigned)fxt_load64(a) & 15;
            if (t < FXT_ARG_INT32 || t > FXT_ARG_DOUBLE)
                return FXT_SLOW;
        }
    }
    uint64_t w = 0;
    if ((0x7f2u >> et) & 1) { /* a word after the arguments */
        if (end - aend < 8)
            return FXT_SLOW;
        w = fxt_load64(aend);
    }
    int64_t ts, end_ns = 0;
    if (fxt_rate_to_ns(&pv->rate, fxt_load64(r + 8), &ts) ||
        (et == 4 && fxt_rate_to_ns(&pv->rate, w, &end_ns)))
        return FXT_SLOW;
    uint64_t pid, tid;
    if (tref == 0) {
        pid = fxt_load64(r + 16);
        tid = fxt_load64(r + 24);
    } else {
        if (!pv->threads || !pv->threads[tref].set)
            return FXT_SLOW;
        pid = pv->threads[tref].pid;
        tid = pv->threads[tref].tid;
    }
    tread_str cat, name;
    d->actx.rec = r;
    d->actx.rec_end = end;
    if (fast_str(d, pv, cref, &strs, &cat) || fast_str(d, pv, nref, &strs, &name))
        return FXT_SLOW;

    fast_raw(d, r, len, off, h, FXT_REC_EVENT, nargs ? (size_t)(args - r) : 0, nargs, 2);
    tread_parser *p = d->p;

    /* the event; the groups this event type writes whatever the record
     * says need no clearing */
    static const unsigned char overwritten[11] = {
        0, FXT_EV_ID | FXT_EV_TRACK, 0, 0, FXT_EV_DUR, FXT_EV_ID | FXT_EV_TRACK,
        FXT_EV_ID | FXT_EV_TRACK, FXT_EV_ID | FXT_EV_TRACK, FXT_EV_ID, FXT_EV_ID, FXT_EV_ID};
    tread_event *ev = fast_event(d, overwritten[et], fxt_event_kinds[et],
                                 TREAD_HAS_TS | TREAD_HAS_PID | TREAD_HAS_TID, off);
    ev->ts = ts;
    ev->pid = (int64_t)pid;
    ev->tid = (int64_t)tid;
    ev->name = name;
    ev->cat = cat;
    fast_args(d, ev, args, aend, 0);
    switch (et) {
    case 0:
        if (end - aend >= 8 && (w = fxt_load64(aend)) <= 2) {
            ev->scope = (tread_scope)(w + 1);
            d->ev_dirty |= FXT_EV_SCOPE;
        }
        return tread__emit_inline(p, ev) ? FXT_PAUSE : FXT_OK;
    case 1:
        ev->id_num = w;
        ev->track_uuid = w;
        ev->track_kind = TREAD_TRACK_COUNTER;
        ev->flags |= TREAD_HAS_ID | TREAD_HAS_ID_NUM | TREAD_HAS_TRACK;
        d->ev_dirty |= FXT_EV_ID | FXT_EV_TRACK;
        break; /* below */
    case 4:
        ev->dur = end_ns - ts;
        ev->flags |= TREAD_HAS_DUR;
        d->ev_dirty |= FXT_EV_DUR;
        return tread__emit_inline(p, ev) ? FXT_PAUSE : FXT_OK;
    case 5:
    case 6:
    case 7:
    case 8:
    case 9:
    case 10:
        fxt_set_event_id(d, ev, et, w);
        return tread__emit_inline(p, ev) ? FXT_PAUSE : FXT_OK;
    default:
        return tread__emit_inline(p, ev) ? FXT_PAUSE : FXT_OK;
    }

    /* a counter: one event a series */
    d->ev_dirty |= FXT_EV_VALUE;
    uint32_t flags = ev->flags;
    unsigned step = 1;
    for (const unsigned char *a = args; a < aend;) {
        uint64_t ah = fxt_load64(a);
        const unsigned char *at = a + 8;
        a += ((ah >> 4) & 0xfff) * 8;
        tread_str key;
        (void)fast_str(d, pv, (unsigned)(ah >> 16) & 0xffff, &at, &key); /* walked */
        int64_t i;
        uint64_t u;
        switch (ah & 15) {
        case FXT_ARG_INT32:
            i = (int32_t)(uint32_t)(ah >> 32);
            goto integer;
        case FXT_ARG_UINT32:
            i = (int64_t)(uint32_t)(ah >> 32);
            goto integer;
        case FXT_ARG_INT64:
            i = (int64_t)fxt_load64(at);
            goto integer;
        case FXT_ARG_UINT64:
            u = fxt_load64(at);
            if (u <= (uint64_t)INT64_MAX) {
                i = (int64_t)u;
                goto integer;
            }
            ev->value = (double)u;
            ev->flags = flags | TREAD_HAS_VALUE;
            break;
        default: /* FXT_ARG_DOUBLE */
            u = fxt_load64(at);
            memcpy(&ev->value, &u, sizeof u);
            ev->flags = flags | TREAD_HAS_VALUE;
            break;
        integer:
            ev->value = (double)i;
            ev->value_int = i;
            ev->flags = flags | TREAD_HAS_VALUE | TREAD_VALUE_IS_INT;
            break;
        }
        ev->series = key;
        d->step = ++step;
        if (tread__emit_inline(p, ev))
            return FXT_PAUSE;
    }
    return FXT_OK;
}

/* A scheduling record: context switch (1) and thread wakeup (2) with
 * arguments of known layouts; the legacy context switch (0) and the rest
 * are fxt_record's. */
static inline int fxt_sched_fast(fxt_decoder *d, const unsigned char *r, size_t len,
                                 uint64_t off, uint64_t h)
{
    unsigned st = (unsigned)(h >> 60);
    if (st != 1 && st != 2)
        return FXT_SLOW;
    unsigned nargs = (unsigned)(h >> 16) & 15, cpu = (unsigned)(h >> 20) & 0xffff;
    size_t fixed = st == 1 ? 24 : 16;
    if (len - 8 < fixed)
        return FXT_SLOW;
    const fxt_provider *pv = d->cur;
    const unsigned char *q = r + 8, *args = q + fixed, *aend = args;
    if (nargs && fxt_args_walk_fast(pv, args, r + len, nargs, &aend))
        return FXT_SLOW;
    int64_t ts;
    if (fxt_rate_to_ns(&pv->rate, fxt_load64(q), &ts))
        return FXT_SLOW;
    fast_raw(d, r, len, off, h, FXT_REC_SCHEDULING, nargs ? (size_t)(args - r) : 0, nargs, 2);
    uint64_t out = fxt_load64(q + 8);
    tread_event *ev = fast_event(d, FXT_EV_CPU,
                                 st == 1 ? TREAD_EVENT_CONTEXT_SWITCH : TREAD_EVENT_WAKEUP,
                                 TREAD_HAS_TS | TREAD_HAS_TID | TREAD_HAS_CPU, off);
    d->ev_dirty |= FXT_EV_CPU;
    ev->cpu = cpu;
    ev->ts = ts;
    ev->pid = 0;
    ev->tid = (int64_t)out;
    ev->name.ptr = NULL;
    ev->name.len = 0;
    ev->cat.ptr = NULL;
    ev->cat.len = 0;
    if (st == 1) {
        fxt_args_ctx *c = &d->actx;
        c->synth_kind = FXT_SYNTH_SWITCH;
        c->sw[0] = (fxt_synth_thread){.tid = out,
                                      .state = (int64_t)((h >> 36) & 15),
                                      .prio = -1,
                                      .have = 1};
        c->sw[1] = (fxt_synth_thread){.tid = fxt_load64(q + 16), .state = -1, .prio = -1,
                                      .have = 1};
    }
    fast_args(d, ev, args, aend, st == 1);
    return tread__emit_inline(d->p, ev) ? FXT_PAUSE : FXT_OK;
}

/* A log record whose thread resolves and whose time converts. */
static inline int fxt_log_fast(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t off,
                               uint64_t h)
{
    size_t n = (size_t)(h >> 16) & 0x7fff;
    unsigned tref = (unsigned)(h >> 32) & 0xff;
    if (len - 8 < 8 + (tref ? 0 : 16) + fxt_pad8(n))
        return FXT_SLOW;
    const fxt_provider *pv = d->cur;
    const unsigned char *at = r + 16;
    int64_t ts;
    if (fxt_rate_to_ns(&pv->rate, fxt_load64(r + 8), &ts))
        return FXT_SLOW;
    uint64_t pid, tid;
    if (tref == 0) {
        pid = fxt_load64(at);
        tid = fxt_load64(at + 8);
        at += 16;
    } else {
        if (!pv->threads || !pv->threads[tref].set)
            return FXT_SLOW;
        pid = pv->threads[tref].pid;
        tid = pv->threads[tref].tid;
    }
    fast_raw(d, r, len, off, h, FXT_REC_LOG, 0, 0, 2);
    tread_event *ev = fast_event(d, 0, TREAD_EVENT_LOG,
                                 TREAD_HAS_TS | TREAD_HAS_PID | TREAD_HAS_TID, off);
    ev->ts = ts;
    ev->pid = (int64_t)pid;
    ev->tid = (int64_t)tid;
    ev->name.ptr = NULL;
    ev->name.len = 0;
    ev->cat.ptr = NULL;
    ev->cat.len = 0;
    d->actx.synth_kind = FXT_SYNTH_MESSAGE;
    d->actx.message = (tread_str){fxt_inline_str(&d->actx, at, n), n};
    ev->args.data = r + len;
    ev->args.len = 0;
    ev->args.encoding = TREAD_ARGS_FXT;
    ev->args.ctx = &d->actx;
    return tread__emit_inline(d->p, ev) ? FXT_PAUSE : FXT_OK;
}

/* A thread record: the table store, and the metadata event that places
 * the thread in its process. */
static inline int fxt_thread_fast(fxt_decoder *d, const unsigned char *r, size_t len,
                                  uint64_t off, uint64_t h)
{
    unsigned idx = (unsigned)(h >> 16) & 0xff;
    if (idx == 0 || len < 24)
        return FXT_SLOW;
    uint64_t pid = fxt_load64(r + 8), tid = fxt_load64(r + 16);
    if (fxt_thread_put(&d->tables, d->cur, idx, pid, tid) != 0)
        return FXT_SLOW; /* fxt_record repeats it and reports */
    fast_raw(d, r, len, off, h, FXT_REC_THREAD, 0, 0, 2);
    tread_event *ev = fast_event(d, 0, TREAD_EVENT_METADATA,
                                 TREAD_HAS_PID | TREAD_HAS_TID, off);
    d->ev_dirty |= FXT_EV_META;
    ev->meta = TREAD_META_OTHER;
    ev->ts = 0;
    ev->pid = (int64_t)pid;
    ev->tid = (int64_t)tid;
    ev->name.ptr = "thread";
    ev->name.len = 6;
    ev->cat.ptr = NULL;
    ev->cat.len = 0;
    fast_no_args(ev);
    return tread__emit_inline(d->p, ev) ? FXT_PAUSE : FXT_OK;
}

#endif
