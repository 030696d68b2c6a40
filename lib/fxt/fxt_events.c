/*
 * FXT event records ("Event record" and its eleven event types) to
 * events; counters become one event per numeric argument.
 */
#include "fxt/fxt_emit.h"
#include "fxt/fxt_time.h"
#include "fxt/fxt_wire.h"

#include <stdio.h>
#include <string.h>

/* ---- event records ------------------------------------------------------- */

static const tread_event_kind event_kinds[11] = {
    TREAD_EVENT_INSTANT,     TREAD_EVENT_COUNTER,    TREAD_EVENT_SLICE_BEGIN,
    TREAD_EVENT_SLICE_END,   TREAD_EVENT_COMPLETE,   TREAD_EVENT_ASYNC_BEGIN,
    TREAD_EVENT_ASYNC_STEP,  TREAD_EVENT_ASYNC_END,  TREAD_EVENT_FLOW_BEGIN,
    TREAD_EVENT_FLOW_STEP,   TREAD_EVENT_FLOW_END,
};

static const char *const event_words[11] = {
    NULL, "counter id", NULL, NULL, "end time", "async correlation id",
    "async correlation id", "async correlation id", "flow correlation id",
    "flow correlation id", "flow correlation id",
};

/* Counter: one event per numeric argument (as JSON "C" events). */
static int emit_counter(fxt_decoder *d, tread_event *ev, const unsigned char *p,
                        const unsigned char *end)
{
    unsigned series = 0;
    while (p < end) {
        fxt_arg_raw a;
        tread_arg v;
        if (fxt_arg_locate(p, end, &a) != FXT_ARG_OK)
            break; /* walked before: cannot happen */
        p = a.end;
        if (fxt_arg_decode(&d->actx, &a, &v))
            continue;
        ev->flags &= ~(TREAD_HAS_VALUE | TREAD_VALUE_IS_INT);
        if (v.type == TREAD_ARG_INT) {
            ev->value = (double)v.v.i;
            ev->value_int = v.v.i;
            ev->flags |= TREAD_VALUE_IS_INT;
        } else if (v.type == TREAD_ARG_UINT) {
            ev->value = (double)v.v.u;
        } else if (v.type == TREAD_ARG_DOUBLE) {
            ev->value = v.v.d;
        } else {
            fxt_warn(d, TREAD_WARN_BAD_COUNTER_VALUE,
                     "counter series \"%.*s\" is not a number (%s): skipped",
                     (int)(v.key.len > 60 ? 60 : v.key.len), v.key.ptr,
                     tread_arg_type_name(v.type));
            continue;
        }
        ev->flags |= TREAD_HAS_VALUE;
        ev->series = v.key;
        series++;
        if (fxt_emit_event(d, ev))
            return FXT_PAUSE;
    }
    if (series == 0)
        fxt_warn(d, TREAD_WARN_BAD_COUNTER_VALUE, "counter event \"%.*s\" has no numeric series",
                 (int)(ev->name.len > 60 ? 60 : ev->name.len), ev->name.ptr);
    return FXT_OK;
}

/* The id word of async (5..7) and flow (8..10) events: both readers. */
static inline void set_event_id(fxt_decoder *d, tread_event *ev, unsigned et, uint64_t w)
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

int fxt_event_record(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t h)
{
    unsigned et = (unsigned)fxt_bits(h, 16, 19), nargs = (unsigned)fxt_bits(h, 20, 23);
    unsigned tref = (unsigned)fxt_bits(h, 24, 31), cref = (unsigned)fxt_bits(h, 32, 47);
    unsigned nref = (unsigned)fxt_bits(h, 48, 63);
    const unsigned char *end = r + len, *q = r + 8;
    if ((uint64_t)(end - q) < 8 + fxt_tref_bytes(tref))
        return fxt_bad(d, "no room for the timestamp and thread");
    uint64_t ticks = fxt_load64(q);
    const unsigned char *thread_at = q + 8;
    q = thread_at + fxt_tref_bytes(tref);
    uint64_t sb = fxt_sref_bytes(cref) + fxt_sref_bytes(nref);
    if (sb > (uint64_t)(end - q))
        return fxt_bad(d, "category or name past the end of the record");
    const unsigned char *strs = q, *args = q + sb;
    fxt_args_check chk;
    d->rec.nargs = nargs;
    d->rec.args_offset = nargs ? (size_t)(args - r) : 0;
    if (nargs == 0) {
        chk.end = args;
        chk.missing = 0;
    } else if (fxt_args_walk(d->cur, args, end, nargs, &chk)) {
        fxt_warn_bad_args(d, &chk);
        return FXT_OK;
    }
    q = chk.end;
    if (et <= 10 && event_words[et] && end - q < 8) {
        char msg[64];
        snprintf(msg, sizeof msg, "no room for the %s", event_words[et]);
        return fxt_bad(d, msg);
    }

    tread_event *ev = fxt_event_init_fast(d);
    if (et <= 10) {
        ev->kind = event_kinds[et];
    } else {
        ev->kind = TREAD_EVENT_UNKNOWN;
        fxt_warn(d, TREAD_WARN_UNKNOWN_RECORD,
                 "event record of unknown event type %u: delivered as an unknown event", et);
    }
    fxt_event_ts(d, ev, ticks);
    uint64_t pid, tid;
    if (fxt_thread_ref(d, tref, &thread_at, &pid, &tid) == 0)
        fxt_set_thread(ev, pid, tid);
    else
        ev->flags |= TREAD_THREAD_UNRESOLVED;
    if (fxt_string_ref(d, cref, &strs, &ev->cat, "the category"))
        ev->flags |= TREAD_CAT_UNRESOLVED;
    if (fxt_string_ref(d, nref, &strs, &ev->name, "the name"))
        ev->flags |= TREAD_NAME_UNRESOLVED;
    if (chk.missing)
        fxt_warn_missing_args(d, &chk);
    fxt_set_args(d, ev, args, (size_t)(chk.end - args));

    uint64_t w = et <= 10 && event_words[et] ? fxt_load64(q) : 0;
    switch (et) {
    case 0:
        /* A scope word after the arguments: the instant event layout of
         * older writers (0 thread, 1 process, 2 global). */
        if (end - q >= 8 && (w = fxt_load64(q)) <= 2) {
            ev->scope = (tread_scope)(w + 1);
            d->ev_dirty |= FXT_EV_SCOPE;
        }
        break;
    case 1:
        ev->id_num = w;
        ev->track_uuid = w;
        ev->track_kind = TREAD_TRACK_COUNTER;
        ev->flags |= TREAD_HAS_ID | TREAD_HAS_ID_NUM | TREAD_HAS_TRACK;
        d->ev_dirty |= FXT_EV_ID | FXT_EV_TRACK | FXT_EV_VALUE;
        return emit_counter(d, ev, args, chk.end);
    case 4: {
        int64_t end_ns;
        if (fxt_ticks_to_ns(w, d->cur->ticks_per_second, &end_ns) != 0) {
            fxt_warn_count(d, &d->c.ts_overflows, TREAD_WARN_NUMBER_RANGE,
                       "end time of %llu ticks at %llu ticks/s is beyond the int64 "
                       "nanosecond range: no duration",
                       (unsigned long long)w, (unsigned long long)d->cur->ticks_per_second);
        } else if (ev->flags & TREAD_HAS_TS) {
            ev->dur = end_ns - ev->ts; /* both in 0..INT64_MAX: cannot overflow */
            ev->flags |= TREAD_HAS_DUR;
            d->ev_dirty |= FXT_EV_DUR;
        }
        break;
    }
    case 5:
    case 6:
    case 7:
    case 8:
    case 9:
    case 10:
        set_event_id(d, ev, et, w);
        break;
    default:
        break;
    }
    return fxt_emit_event(d, ev) ? FXT_PAUSE : FXT_OK;
}

/* ---- the fast path --------------------------------------------------------
 * The event record of a plain trace, read in one go: every reference
 * resolves, the arguments are of known layouts, the times convert. It
 * makes the same callbacks with the same contents as fxt_record (the
 * chunk tests compare them: a record gathered across feeds takes the
 * general path). Called only where no step is to be skipped. */

static inline int fast_str(fxt_decoder *d, const fxt_provider *pv, unsigned ref,
                           const unsigned char **at, tread_str *out)
{
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
    if (ref >= pv->string_slots || pv->strings[ref].len == FXT_STRING_UNSET)
        return -1;
    out->ptr = pv->strings[ref].ptr;
    out->len = pv->strings[ref].len;
    return 0;
}

int fxt_event_fast(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t off, uint64_t h)
{
    unsigned et = (unsigned)(h >> 16) & 15, nargs = (unsigned)(h >> 20) & 15;
    unsigned tref = (unsigned)(h >> 24) & 0xff, cref = (unsigned)(h >> 32) & 0xffff;
    unsigned nref = (unsigned)(h >> 48);
    if (et > 10)
        return FXT_SLOW; /* unknown types */
    const fxt_provider *pv = d->cur;
    const unsigned char *end = r + len;
    size_t tb = tref ? 0 : 16;
    size_t sb = ((cref & 0x8000u) ? ((cref & 0x7fffu) + 7) & ~(size_t)7 : 0) +
                ((nref & 0x8000u) ? ((nref & 0x7fffu) + 7) & ~(size_t)7 : 0);
    if (len < 16 + tb + sb)
        return FXT_SLOW;
    const unsigned char *strs = r + 16 + tb, *args = strs + sb, *aend = args;
    if (nargs && fxt_args_walk_fast(pv, args, end, nargs, &aend))
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

    /* the raw hook */
    tread_fxt_record *rec = &d->rec;
    rec->data = r;
    rec->len = len;
    rec->offset = off;
    rec->header = h;
    rec->type = FXT_REC_EVENT;
    rec->size_words = (h >> 4) & 0xfff;
    rec->args_offset = nargs ? (size_t)(args - r) : 0;
    rec->nargs = nargs;
    d->actx.synth_kind = FXT_SYNTH_NONE;
    d->step = 2;
    d->raw_done = 1;
    d->c.records++;
    d->c.by_type[FXT_REC_EVENT]++;
    tread_parser *p = d->p;
    tread__emit_fxt_record(p, rec);

    /* the event */
    tread_event *ev = &d->ev;
    /* the groups this event type writes whatever the record says need no
     * clearing */
    static const unsigned char overwritten[11] = {
        0, FXT_EV_ID | FXT_EV_TRACK, 0, 0, FXT_EV_DUR, FXT_EV_ID | FXT_EV_TRACK,
        FXT_EV_ID | FXT_EV_TRACK, FXT_EV_ID | FXT_EV_TRACK, FXT_EV_ID, FXT_EV_ID, FXT_EV_ID};
    unsigned stale = d->ev_dirty & ~(unsigned)overwritten[et];
    if (stale)
        fxt_event_clear_inline(d, stale);
    ev->kind = event_kinds[et];
    ev->flags = d->ev_flags | TREAD_HAS_TS | TREAD_HAS_PID | TREAD_HAS_TID;
    ev->ts = ts;
    ev->pid = (int64_t)pid;
    ev->tid = (int64_t)tid;
    ev->name = name;
    ev->cat = cat;
    ev->offset = off;
    if (aend != args) {
        ev->args.data = args;
        ev->args.len = (size_t)(aend - args);
        ev->args.encoding = TREAD_ARGS_FXT;
        ev->args.ctx = &d->actx;
    } else {
        ev->args.data = NULL;
        ev->args.len = 0;
        ev->args.encoding = TREAD_ARGS_TOKENS;
        ev->args.ctx = NULL;
    }
    switch (et) {
    case 0:
        if (end - aend >= 8 && (w = fxt_load64(aend)) <= 2) {
            ev->scope = (tread_scope)(w + 1);
            d->ev_dirty |= FXT_EV_SCOPE;
        }
        break;
    case 1: {
        ev->id_num = w;
        ev->track_uuid = w;
        ev->track_kind = TREAD_TRACK_COUNTER;
        ev->flags |= TREAD_HAS_ID | TREAD_HAS_ID_NUM | TREAD_HAS_TRACK;
        d->ev_dirty |= FXT_EV_ID | FXT_EV_TRACK | FXT_EV_VALUE;
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
    case 4:
        ev->dur = end_ns - ts;
        ev->flags |= TREAD_HAS_DUR;
        d->ev_dirty |= FXT_EV_DUR;
        break;
    case 5:
    case 6:
    case 7:
    case 8:
    case 9:
    case 10:
        set_event_id(d, ev, et, w);
        break;
    default:
        break;
    }
    return tread__emit_inline(p, ev) ? FXT_PAUSE : FXT_OK;
}
