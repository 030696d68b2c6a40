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

const tread_event_kind fxt_event_kinds[11] = {
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
        ev->kind = fxt_event_kinds[et];
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
        fxt_set_event_id(d, ev, et, w);
        break;
    default:
        break;
    }
    return fxt_emit_event(d, ev) ? FXT_PAUSE : FXT_OK;
}
