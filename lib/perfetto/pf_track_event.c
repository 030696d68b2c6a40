/* TrackEvent -> tread_events, in one pass over the message's fields that
 * leaves debug annotations (and every typed field) to the lazy args codec:
 * type or legacy phase, name, categories, timestamps, thread time and
 * instruction counts, track, counters (with unit_multiplier and
 * is_incremental), extra counters, flows, correlation ids. */
#include "perfetto/pf_track_event.h"
#include "perfetto/pf_profile.h"
#include "perfetto/pf_seq.h"
#include "perfetto/pf_tracks.h"
#include "perfetto/pf_queue.h"
#include "perfetto/pf_system.h"
#include "core/phase.h"
#include "perfetto/pf_v8.h"

#include <string.h>

enum {
    TE_TS_DELTA_US = 1,
    TE_TT_DELTA_US = 2,
    TE_CATEGORY_IIDS = 3,
    TE_LEGACY_EVENT = 6,
    TE_TI_DELTA = 8,
    TE_TYPE = 9,
    TE_LOG_MESSAGE = 21,
    TE_NAME_IID = 10,
    TE_TRACK_UUID = 11,
    TE_EXTRA_COUNTER_VALUES = 12,
    TE_TS_ABS_US = 16,
    TE_TT_ABS_US = 17,
    TE_TI_ABS = 20,
    TE_CATEGORIES = 22,
    TE_NAME = 23,
    TE_COUNTER_VALUE = 30,
    TE_EXTRA_COUNTER_TRACK_UUIDS = 31,
    TE_FLOW_IDS_OLD = 36,
    TE_TERMINATING_FLOW_IDS_OLD = 42,
    TE_DOUBLE_COUNTER_VALUE = 44,
    TE_EXTRA_DOUBLE_COUNTER_TRACK_UUIDS = 45,
    TE_EXTRA_DOUBLE_COUNTER_VALUES = 46,
    TE_FLOW_IDS = 47,
    TE_TERMINATING_FLOW_IDS = 48,
    TE_CORRELATION_ID = 52,
    TE_CORRELATION_ID_STR = 53,
    TE_CORRELATION_ID_STR_IID = 54,
    TE_CALLSTACK = 55,
    TE_CALLSTACK_IID = 56
};

#define INTERNED_CORRELATION_ID_STR 43

typedef pf_u64list u64list;

#define read_repeated pf_read_repeated

/* Flow ids go to a growable buffer (no fixed bound but the packet's). */
static int read_flows(pf_decoder *d, const pf_field *f, int fixed, tread_buf *b)
{
    u64list tmp;
    tmp.n = 0;
    tmp.present = tmp.overflow = 0;
    if (f->wire == PF_WIRE_LEN && fixed && f->len % 8)
        return -1;
    if (f->wire == PF_WIRE_LEN && fixed) {
        if (tread_buf_append(b, f->data, f->len))
            return -2;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        for (size_t i = b->len - f->len; i < b->len; i += 8) {
            uint64_t v = pf_le64(b->data + i);
            memcpy(b->data + i, &v, 8);
        }
#endif
        return 0;
    }
    if (f->wire == PF_WIRE_LEN) {
        pf_reader r;
        uint64_t v;
        int rc;
        pf_reader_init(&r, f->data, f->len);
        while ((rc = pf_packed_varint(&r, &v)) == PF_OK)
            if (tread_buf_append(b, &v, 8))
                return -2;
        return rc == PF_BAD ? -1 : 0;
    }
    if ((fixed && f->wire != PF_WIRE_FIXED64) || (!fixed && f->wire != PF_WIRE_VARINT))
        return -1;
    (void)d;
    uint64_t v = f->v;
    return tread_buf_append(b, &v, 8) ? -2 : 0;
}


typedef struct legacy {
    int present;
    int phase;
    int has_name_iid;
    uint64_t name_iid;
    int has_dur, has_tdur;
    int64_t dur_us, tdur_us;
    int has_id;
    uint64_t id;
    int id_kind;           /* 0 unscoped, 1 local, 2 global */
    tread_str id_scope;
    int has_bind;
    uint64_t bind;
    int use_async_tts, bind_enclosing;
    int flow_dir;
    int scope;
    int has_pid, has_tid;
    int64_t pid, tid;
    int has_tidelta;
    int64_t tidelta;
} legacy;

static int read_legacy(const unsigned char *m, size_t len, legacy *lg)
{
    pf_reader r;
    pf_field f;
    int rc;
    memset(lg, 0, sizeof *lg);
    lg->present = 1;
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.num == 7 && f.wire == PF_WIRE_LEN) {
            lg->id_scope.ptr = (const char *)f.data;
            lg->id_scope.len = f.len;
            continue;
        }
        if (f.wire != PF_WIRE_VARINT)
            continue;
        switch (f.num) {
        case 1: lg->has_name_iid = 1, lg->name_iid = f.v; break;
        case 2: lg->phase = (int)(int32_t)f.v; break;
        case 3: lg->has_dur = 1, lg->dur_us = (int64_t)f.v; break;
        case 4: lg->has_tdur = 1, lg->tdur_us = (int64_t)f.v; break;
        case 6: lg->has_id = 1, lg->id = f.v, lg->id_kind = 0; break;
        case 8: lg->has_bind = 1, lg->bind = f.v; break;
        case 9: lg->use_async_tts = f.v != 0; break;
        case 10: lg->has_id = 1, lg->id = f.v, lg->id_kind = 1; break;
        case 11: lg->has_id = 1, lg->id = f.v, lg->id_kind = 2; break;
        case 12: lg->bind_enclosing = f.v != 0; break;
        case 13: lg->flow_dir = (int)f.v; break;
        case 14: lg->scope = (int)f.v; break;
        case 15: lg->has_tidelta = 1, lg->tidelta = (int64_t)f.v; break;
        case 18: lg->has_pid = 1, lg->pid = (int64_t)(int32_t)f.v; break;
        case 19: lg->has_tid = 1, lg->tid = (int64_t)(int32_t)f.v; break;
        }
    }
    return rc == PF_BAD ? -1 : 0;
}

/* A microsecond value as ns in *dst: 1, or 0 (warned) out of range. */
static int set_us(pf_decoder *d, int64_t us, int64_t *dst, const tread_event *ev, uint64_t off,
                  const char *what)
{
    (void)ev;
    if (pf_us_to_ns(us, dst) == 0)
        return 1;
    tread__warn(d->p, TREAD_WARN_NUMBER_RANGE, off,
                "%s of %lld us is out of the int64 ns range: ignored", what, (long long)us);
    return 0;
}

static void bad_field(pf_decoder *d, uint64_t off, const char *what)
{
    tread__warn(d->p, TREAD_WARN_BAD_FIELD, off, "track_event %s has the wrong type: ignored",
                what);
}

/* TYPE_STATE (5): the event sets the state of its (state) track, which
 * holds until the next state event on that track, as trace_processor
 * reads it: a named state is a slice begun here, an unnamed one only ends
 * the state before. The queued event (q_main) is a SLICE_BEGIN; it becomes
 * the end of the open state, and a copy of it the begin, when one is open;
 * an unnamed one becomes the end. -1 after tread__fail. */
static int state_event(pf_decoder *d, uint64_t uuid, size_t q_main, const pf_base *base)
{
    pf_track *st = uuid ? pf_track_find(d, uuid) : NULL;
    tread_event *me = &d->q[q_main].ev;
    if (me->name.len == 0) {
        me->kind = TREAD_EVENT_SLICE_END;
        me->phase = 'E';
        if (st)
            st->state_open = 0;
        return 0;
    }
    if (!st || !st->state_open) {
        if (st)
            st->state_open = 1;
        return 0;
    }
    pf_qitem *bq = pf_queue_event(d, base);
    if (!bq)
        return -1;
    *bq = d->q[q_main]; /* (the queue may have moved: by index) */
    if (bq->ev.flags & TREAD_TRACK_UNRESOLVED)
        d->n_parent_missing++; /* the counter counts delivered events */
    pf_qitem *eq = &d->q[q_main];
    tread_event *end = &eq->ev;
    static const tread_str none = {NULL, 0};
    end->kind = TREAD_EVENT_SLICE_END;
    end->phase = 'E';
    end->name = none;
    eq->nul &= ~PF_NUL_NAME;
    end->args.data = NULL;
    end->args.len = 0;
    end->flow_ids.n = 0;
    end->terminating_flow_ids.n = 0;
    end->flags &= ~(uint32_t)(TREAD_HAS_ID | TREAD_HAS_ID_NUM);
    eq->fmt_id = 0;
    return 0;
}

int pf_track_event(pf_decoder *d, pf_seq *s, const unsigned char *m, size_t len,
                   const pf_base *base)
{
    pf_reader r;
    pf_field f;
    int rc;
    uint64_t off = base->offset;
    int type = 0, has_type = 0;
    int has_name = 0, has_name_iid = 0;
    tread_str name = {NULL, 0};
    uint64_t name_iid = 0;
    int has_track = 0;
    uint64_t track = 0;
    int has_cv = 0, has_dcv = 0;
    int64_t cv = 0;
    double dcv = 0;
    int has_ts_delta = 0, has_ts_abs = 0, has_tt_delta = 0, has_tt_abs = 0;
    int has_ti_delta = 0, has_ti_abs = 0;
    int64_t ts_delta = 0, ts_abs = 0, tt_delta = 0, tt_abs = 0, ti_delta = 0, ti_abs = 0;
    /* categories: up to a few iids or strings, joined at the end */
    u64list cat_iids;
    int ncat_str = 0;
    tread_str cat_str = {NULL, 0};
    const unsigned char *legacy_msg = NULL, *log_msg = NULL;
    size_t legacy_len = 0, log_len = 0;
    int has_corr = 0, has_corr_iid = 0;
    uint64_t corr = 0, corr_iid = 0;
    tread_str corr_str = {NULL, 0};
    int has_cs = 0, has_cs_iid = 0;
    const unsigned char *cs_msg = NULL;
    size_t cs_len = 0;
    uint64_t cs_iid = 0;
    u64list xv, xu, xdv, xdu;
    cat_iids.n = xv.n = xu.n = xdv.n = xdu.n = 0;
    cat_iids.present = xv.present = xu.present = xdv.present = xdu.present = 0;
    cat_iids.overflow = xv.overflow = xu.overflow = xdv.overflow = xdu.overflow = 0;
    int cats_joined = 0;

    d->flowbuf.len = 0;
    d->tflowbuf.len = 0;
    d->catbuf.len = 0;
    d->n_track_events++;

    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        switch (f.num) {
        case TE_TYPE:
            if (f.wire == PF_WIRE_VARINT)
                has_type = 1, type = (int)(int32_t)f.v;
            break;
        case TE_NAME_IID:
            if (f.wire == PF_WIRE_VARINT)
                has_name_iid = 1, name_iid = f.v;
            break;
        case TE_NAME:
            if (f.wire == PF_WIRE_LEN)
                has_name = 1, name.ptr = (const char *)f.data, name.len = f.len;
            break;
        case TE_CATEGORY_IIDS:
            if (f.wire == PF_WIRE_VARINT && cat_iids.n < PF_MAX_EXTRA_COUNTERS) {
                cat_iids.present = 1; /* the common case: one iid */
                cat_iids.v[cat_iids.n++] = f.v;
            } else if (read_repeated(&f, 0, &cat_iids))
                bad_field(d, off, "category_iids");
            break;
        case TE_CATEGORIES:
            if (f.wire != PF_WIRE_LEN)
                break;
            if (ncat_str++ == 0) {
                cat_str.ptr = (const char *)f.data;
                cat_str.len = f.len;
            } else {
                if (d->catbuf.len == 0 &&
                    tread_buf_append(&d->catbuf, cat_str.ptr, cat_str.len))
                    goto nomem;
                if (tread_buf_append(&d->catbuf, ",", 1) ||
                    tread_buf_append(&d->catbuf, f.data, f.len))
                    goto nomem;
                cats_joined = 1;
            }
            break;
        case TE_TRACK_UUID:
            if (f.wire == PF_WIRE_VARINT)
                has_track = 1, track = f.v;
            break;
        case TE_TS_DELTA_US:
            if (f.wire == PF_WIRE_VARINT)
                has_ts_delta = 1, ts_delta = (int64_t)f.v;
            break;
        case TE_TS_ABS_US:
            if (f.wire == PF_WIRE_VARINT)
                has_ts_abs = 1, ts_abs = (int64_t)f.v;
            break;
        case TE_TT_DELTA_US:
            if (f.wire == PF_WIRE_VARINT)
                has_tt_delta = 1, tt_delta = (int64_t)f.v;
            break;
        case TE_TT_ABS_US:
            if (f.wire == PF_WIRE_VARINT)
                has_tt_abs = 1, tt_abs = (int64_t)f.v;
            break;
        case TE_TI_DELTA:
            if (f.wire == PF_WIRE_VARINT)
                has_ti_delta = 1, ti_delta = (int64_t)f.v;
            break;
        case TE_TI_ABS:
            if (f.wire == PF_WIRE_VARINT)
                has_ti_abs = 1, ti_abs = (int64_t)f.v;
            break;
        case TE_COUNTER_VALUE:
            if (f.wire == PF_WIRE_VARINT)
                has_cv = 1, cv = (int64_t)f.v;
            else
                bad_field(d, off, "counter_value");
            break;
        case TE_DOUBLE_COUNTER_VALUE:
            if (f.wire == PF_WIRE_FIXED64)
                has_dcv = 1, dcv = pf_double(f.v);
            else
                bad_field(d, off, "double_counter_value");
            break;
        case TE_EXTRA_COUNTER_VALUES:
            if (read_repeated(&f, 0, &xv))
                bad_field(d, off, "extra_counter_values");
            break;
        case TE_EXTRA_COUNTER_TRACK_UUIDS:
            if (read_repeated(&f, 0, &xu))
                bad_field(d, off, "extra_counter_track_uuids");
            break;
        case TE_EXTRA_DOUBLE_COUNTER_VALUES:
            if (read_repeated(&f, 1, &xdv))
                bad_field(d, off, "extra_double_counter_values");
            break;
        case TE_EXTRA_DOUBLE_COUNTER_TRACK_UUIDS:
            if (read_repeated(&f, 0, &xdu))
                bad_field(d, off, "extra_double_counter_track_uuids");
            break;
        case TE_FLOW_IDS:
        case TE_FLOW_IDS_OLD:
        case TE_TERMINATING_FLOW_IDS:
        case TE_TERMINATING_FLOW_IDS_OLD: {
            int term = f.num == TE_TERMINATING_FLOW_IDS || f.num == TE_TERMINATING_FLOW_IDS_OLD;
            int fixed = f.num == TE_FLOW_IDS || f.num == TE_TERMINATING_FLOW_IDS;
            int frc = read_flows(d, &f, fixed, term ? &d->tflowbuf : &d->flowbuf);
            if (frc == -2)
                goto nomem;
            if (frc)
                bad_field(d, off, term ? "terminating_flow_ids" : "flow_ids");
            break;
        }
        case TE_LEGACY_EVENT:
            if (f.wire == PF_WIRE_LEN)
                legacy_msg = f.data, legacy_len = f.len;
            break;
        case TE_LOG_MESSAGE: /* a LOG event after this one (pf_system.c) */
            if (f.wire == PF_WIRE_LEN)
                log_msg = f.data, log_len = f.len;
            break;
        case TE_CORRELATION_ID:
            if (f.wire == PF_WIRE_VARINT)
                has_corr = 1, corr = f.v;
            break;
        case TE_CORRELATION_ID_STR:
            if (f.wire == PF_WIRE_LEN)
                corr_str.ptr = (const char *)f.data, corr_str.len = f.len;
            break;
        case TE_CORRELATION_ID_STR_IID:
            if (f.wire == PF_WIRE_VARINT)
                has_corr_iid = 1, corr_iid = f.v;
            break;
        case TE_CALLSTACK: /* a oneof with callstack_iid: the last wins */
            if (f.wire == PF_WIRE_LEN)
                has_cs = 1, has_cs_iid = 0, cs_msg = f.data, cs_len = f.len;
            else
                bad_field(d, off, "callstack");
            break;
        case TE_CALLSTACK_IID:
            if (f.wire == PF_WIRE_VARINT)
                has_cs_iid = 1, has_cs = 0, cs_iid = f.v;
            else
                bad_field(d, off, "callstack_iid");
            break;
        default:
            break; /* debug annotations and typed fields: lazy args */
        }
    }
    if (rc == PF_BAD) {
        d->n_bad_packets++;
        tread__warn(d->p, TREAD_WARN_BAD_RECORD, off, "track_event does not decode: skipped");
        return 0;
    }

    legacy lg;
    lg.present = 0;
    if (legacy_msg && read_legacy(legacy_msg, legacy_len, &lg)) {
        tread__warn(d->p, TREAD_WARN_BAD_FIELD, off, "legacy_event does not decode: ignored");
        lg.present = 0;
    }

    /* the callstack's new frames are defined before the event */
    tread_str sf = {NULL, 0};
    if ((has_cs || has_cs_iid) &&
        pf_profile_track_event(d, s, has_cs, cs_msg, cs_len, cs_iid, base, &sf) < 0)
        return -1;

    pf_qitem *q = pf_queue_event(d, base);
    if (!q)
        return -1;
    size_t q_main = d->q_len - 1;
    q->seq = s;
    tread_event *ev = &q->ev;
    ev->args.data = m;
    ev->args.len = len;
    ev->args.encoding = TREAD_ARGS_PERFETTO;
    ev->sf = sf;

    /* kind */
    if (has_type && type != 0) {
        switch (type) {
        case 1: ev->kind = TREAD_EVENT_SLICE_BEGIN, ev->phase = 'B'; break;
        case 2: ev->kind = TREAD_EVENT_SLICE_END, ev->phase = 'E'; break;
        case 3: ev->kind = TREAD_EVENT_INSTANT, ev->phase = 'i'; break;
        case 4: ev->kind = TREAD_EVENT_COUNTER, ev->phase = 'C'; break;
        case 5: ev->kind = TREAD_EVENT_SLICE_BEGIN, ev->phase = 'B'; break; /* below */
        default:
            ev->kind = TREAD_EVENT_UNKNOWN;
            tread__warn(d->p, TREAD_WARN_UNKNOWN_PHASE, off,
                        "track_event type %d: delivered as an unknown event", type);
            break;
        }
    } else if (lg.present && lg.phase) {
        ev->phase = lg.phase;
        ev->kind = tread__kind_of_phase(lg.phase);
        if (ev->kind == TREAD_EVENT_METADATA)
            ev->meta = TREAD_META_OTHER; /* every METADATA event says what it sets */
        if (ev->kind == TREAD_EVENT_UNKNOWN)
            tread__warn(d->p, TREAD_WARN_UNKNOWN_PHASE, off,
                        "legacy_event phase %d: delivered as an unknown event", lg.phase);
    } else {
        ev->kind = TREAD_EVENT_UNKNOWN;
        tread__warn(d->p, TREAD_WARN_UNKNOWN_PHASE, off,
                    "track_event without a type or legacy phase: delivered as an unknown event");
    }

    /* name */
    if (has_name) {
        ev->name = name;
    } else if (has_name_iid || (lg.present && lg.has_name_iid)) {
        uint64_t iid = has_name_iid ? name_iid : lg.name_iid;
        if (pf_lookup_str(d, s, PF_INTERN_EVENT_NAMES, iid, &ev->name, off, "event name"))
            ev->flags |= TREAD_NAME_UNRESOLVED;
        q->nul |= PF_NUL_NAME; /* the arena's copy, or "" */
    }

    /* categories */
    if (cat_iids.present) {
        for (size_t i = 0; i < cat_iids.n; i++) {
            tread_str c;
            if (pf_lookup_str(d, s, PF_INTERN_EVENT_CATEGORIES, cat_iids.v[i], &c, off,
                              "category"))
                ev->flags |= TREAD_CAT_UNRESOLVED;
            if (cat_iids.n == 1 && !ncat_str) {
                ev->cat = c;
                q->nul |= PF_NUL_CAT;
                break;
            }
            if (!cats_joined && ncat_str && d->catbuf.len == 0 &&
                tread_buf_append(&d->catbuf, cat_str.ptr, cat_str.len))
                goto nomem;
            if ((d->catbuf.len && tread_buf_append(&d->catbuf, ",", 1)) ||
                tread_buf_append(&d->catbuf, c.ptr, c.len))
                goto nomem;
            cats_joined = 1;
        }
    }
    if (cats_joined) {
        if (tread_buf_append(&d->catbuf, "", 1))
            goto nomem;
        ev->cat.ptr = (const char *)d->catbuf.data;
        ev->cat.len = d->catbuf.len - 1;
        q->nul |= PF_NUL_CAT;
    } else if (ncat_str) {
        ev->cat = cat_str;
    }

    /* timestamps: TrackEvent's own legacy microsecond fields win */
    if ((has_ts_delta && s) || has_ts_abs) {
        int64_t us = ts_abs;
        if (has_ts_delta && s)
            us = s->ts_us = pf_wrap_add(s->ts_us, ts_delta);
        else if (s)
            s->ts_us = ts_abs;
        if (set_us(d, us, &ev->ts, ev, off, "timestamp"))
            ev->flags = (ev->flags | TREAD_HAS_TS) & ~TREAD_HAS_RAW_TS;
    }
    if ((has_tt_delta && s) || has_tt_abs) {
        int64_t us = tt_abs;
        if (has_tt_delta && s)
            us = s->tt_us = pf_wrap_add(s->tt_us, tt_delta);
        else if (s)
            s->tt_us = tt_abs;
        if (set_us(d, us, &ev->tts, ev, off, "thread time"))
            ev->flags |= TREAD_HAS_TTS;
    }
    if (has_ti_delta && s) {
        s->ti = pf_wrap_add(s->ti, ti_delta);
        ev->flags |= TREAD_HAS_TICOUNT;
        ev->ticount = s->ti;
    } else if (has_ti_abs) {
        if (s)
            s->ti = ti_abs;
        ev->flags |= TREAD_HAS_TICOUNT;
        ev->ticount = ti_abs;
    }

    /* track */
    uint64_t uuid = has_track ? track : (s && s->has_default_track ? s->default_track : 0);
    const pf_track *t = pf_resolve_track(d, s, uuid, ev);

    /* legacy event fields */
    if (lg.present) {
        if (lg.has_dur && set_us(d, lg.dur_us, &ev->dur, ev, off, "duration"))
            ev->flags |= TREAD_HAS_DUR;
        if (lg.has_tdur && set_us(d, lg.tdur_us, &ev->tdur, ev, off, "thread duration"))
            ev->flags |= TREAD_HAS_TDUR;
        if (lg.has_id) {
            ev->flags |= TREAD_HAS_ID | TREAD_HAS_ID_NUM;
            if (lg.id_kind == 1)
                ev->flags |= TREAD_ID_LOCAL;
            else if (lg.id_kind == 2)
                ev->flags |= TREAD_ID_GLOBAL;
            ev->id_num = lg.id;
            q->fmt_id = 1;
        }
        ev->id_scope = lg.id_scope;
        if (lg.has_bind) {
            q->fmt_bind = 1;
            q->bind_num = lg.bind;
        }
        if (lg.use_async_tts)
            ev->flags |= TREAD_USE_ASYNC_TTS;
        if (lg.bind_enclosing)
            ev->flags |= TREAD_BIND_ENCLOSING;
        if (lg.flow_dir & 1)
            ev->flags |= TREAD_FLOW_IN;
        if (lg.flow_dir & 2)
            ev->flags |= TREAD_FLOW_OUT;
        switch (lg.scope) {
        case 1: ev->scope = TREAD_SCOPE_GLOBAL; break;
        case 2: ev->scope = TREAD_SCOPE_PROCESS; break;
        case 3: ev->scope = TREAD_SCOPE_THREAD; break;
        default: break;
        }
        if (lg.has_tidelta) {
            ev->flags |= TREAD_HAS_TIDELTA;
            ev->tidelta = lg.tidelta;
        }
        if (lg.has_pid) {
            ev->flags |= TREAD_HAS_PID;
            ev->pid = lg.pid;
            if (!(ev->flags & TREAD_HAS_TID))
                ev->tid = lg.pid;
        }
        if (lg.has_tid) {
            ev->flags |= TREAD_HAS_TID;
            ev->tid = lg.tid;
        }
    }

    /* correlation ids: the event's id when no legacy id took it */
    if (!(ev->flags & TREAD_HAS_ID)) {
        if (has_corr) {
            ev->flags |= TREAD_HAS_ID | TREAD_HAS_ID_NUM;
            ev->id_num = corr;
            q->fmt_id = 1;
        } else if (corr_str.ptr) {
            ev->flags |= TREAD_HAS_ID;
            ev->id = corr_str;
        } else if (has_corr_iid) {
            ev->flags |= TREAD_HAS_ID;
            (void)pf_lookup_str(d, s, INTERNED_CORRELATION_ID_STR, corr_iid, &ev->id, off,
                                "correlation id");
        }
    }

    /* a V8 profile record: its expansion stands for it (pf_v8.h) */
    if (lg.present && lg.phase == 'P' && !(has_type && type != 0)) {
        int v8 = pf_v8_take(d, s, q, m, len, off);
        if (v8 < 0)
            return -1;
        q->skip = v8;
    }

    /* counter value */
    if (ev->kind == TREAD_EVENT_COUNTER && (has_cv || has_dcv)) {
        if (pf_set_counter(d, s, t, q, has_cv, cv, dcv))
            return -1;
    } else if (ev->kind == TREAD_EVENT_COUNTER) {
        tread_str tn = pf_track_name(d, t);
        if (!ev->name.len && tn.ptr) {
            ev->name = tn;
            q->nul |= PF_NUL_NAME;
        }
        ev->series = tn;
        q->nul |= PF_NUL_SERIES;
    }

    /* flows: pointers are set at delivery, the buffers may still grow */
    ev->flow_ids.n = d->flowbuf.len / 8;
    ev->terminating_flow_ids.n = d->tflowbuf.len / 8;

    /* extra counters: one COUNTER event per value, on its own track */
    for (int dbl = 0; dbl < 2; dbl++) {
        u64list *vals = dbl ? &xdv : &xv, *uuids = dbl ? &xdu : &xu;
        if (!vals->present)
            continue;
        if (vals->overflow)
            tread__warn(d->p, TREAD_WARN_BAD_FIELD, off,
                        "more than %d extra counter values: the rest are ignored",
                        PF_MAX_EXTRA_COUNTERS);
        if (!uuids->present && s)
            uuids = &s->default_extra[dbl];
        for (size_t i = 0; i < vals->n; i++) {
            if (i >= uuids->n) {
                tread__warn(d->p, TREAD_WARN_BAD_FIELD, off,
                            "extra counter value %zu has no track uuid: ignored", i);
                break;
            }
            pf_qitem *xq = pf_queue_event(d, base);
            if (!xq)
                return -1;
            /* the main event's fields may have moved with the queue */
            const pf_qitem *mq = &d->q[d->q_len - 2];
            pf_extra_counter_event(xq, s, &mq->ev, mq->nul);
            tread_event *xe = &xq->ev;
            const pf_track *xt = pf_resolve_track(d, s, uuids->v[i], xe);
            if (pf_set_counter(d, s, xt, xq, !dbl, (int64_t)vals->v[i],
                               pf_double(vals->v[i])))
                return -1;
        }
    }
    if (log_msg && pf_log_message(d, s, log_msg, log_len, q_main, base))
        return -1;
    if (has_type && type == 5 && state_event(d, uuid, q_main, base))
        return -1;
    return 0;
nomem:
    tread__fail(d->p, TREAD_ERROR_NOMEM, off, "out of memory");
    return -1;
}
