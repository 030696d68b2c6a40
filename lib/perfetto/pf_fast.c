/*
 * The fast reader of the common Perfetto packets: a TracePacket that holds
 * a timestamp (and its clock id), a sequence id and flags, at most one
 * interned_data, and one TrackEvent with a type, a name (iid or string), up to FAST_MAX_CATS
 * category iids (packed or not), a track uuid (or the sequence's default track), a counter value,
 * extra counter values on the sequence's default extra-counter tracks,
 * flow ids, and any number of fields left to the lazy args codec (debug
 * annotations, typed fields). That is almost every packet of the SDK and
 * Chrome traces.
 *
 * The general reader (pf_decoder.c process_packet, pf_track_event.c) is
 * the oracle: this one reads the packet in two passes over nothing but
 * its bytes first (the packet's fields, then the TrackEvent's), and
 * returns a reason (PF_FAST_*) without changing any state when anything
 * is outside that shape; the general reader then reads the packet. Once
 * it has decided, it makes the same state changes, warnings and events as
 * the general reader would, in the same order, through the same helpers
 * (pf_set_ts, pf_lookup_str, pf_resolve_track, pf_set_counter). What it
 * saves: the general reader's per-packet set-up (a dozen optional
 * payloads, legacy fields, correlation ids, timestamps in the
 * TrackEvent), re-checks of state that cannot apply, and resetting the
 * event members only the general reader sets (pf_qitem.general).
 * tests/unit/test_perfetto_fast.c checks every reason, and that both
 * readers give identical events over the whole Perfetto corpus.
 */
#include "perfetto/pf_fast.h"
#include "perfetto/pf_context.h"
#include "perfetto/pf_seq.h"
#include "perfetto/pf_time.h"
#include "perfetto/pf_tracks.h"
#include "perfetto/pf_queue.h"

#include <string.h>

/* TracePacket fields the fast reader reads (pf_internal.h has the rest). */
enum { PKT_TRUSTED_UID = 3, PKT_TRUSTED_PID = 79 };

/* TrackEvent fields it reads (numbers as in pf_track_event.c). */
enum {
    TE_CATEGORY_IIDS = 3,
    TE_TYPE = 9,
    TE_NAME_IID = 10,
    TE_TRACK_UUID = 11,
    TE_EXTRA_COUNTER_VALUES = 12,
    TE_NAME = 23,
    TE_COUNTER_VALUE = 30,
    TE_DOUBLE_COUNTER_VALUE = 44,
    TE_FLOW_IDS = 47,
    TE_TERMINATING_FLOW_IDS = 48
};

/* The other TrackEvent fields pf_track_event.c reads, left to it:
 * timestamp/thread time/instruction count (1, 2, 8, 16, 17, 20), the
 * legacy event (6), the log message (21), categories as strings (22),
 * extra counter track uuids and double extra counters (31, 45, 46), the
 * old flow ids (36, 42), correlation ids (52, 53, 54) and callstacks (55,
 * 56). Every other
 * field is an argument. A field the general reader learns to read must be
 * added here (test_perfetto_fast lists them too). */
#define TE_GENERAL_ONLY                                                                      \
    ((1ull << 1) | (1ull << 2) | (1ull << 6) | (1ull << 8) | (1ull << 16) | (1ull << 17) |   \
     (1ull << 20) | (1ull << 21) | (1ull << 22) | (1ull << 31) | (1ull << 36) |              \
     (1ull << 42) | (1ull << 45) | (1ull << 46) | (1ull << 52) | (1ull << 53) |              \
     (1ull << 54) | (1ull << 55) | (1ull << 56))

/* The field readers below are for well-formed input only: anything
 * unusual (a tag longer than two bytes, a group, a varint over ten bytes,
 * an overrun) makes the fast reader give up, and the general reader then
 * reads the packet and says what is wrong. Fields are dispatched on their
 * whole tag (number and wire type in one switch), values kept in
 * registers. */
#define TAG(num, wire) (((unsigned)(num) << 3) | (unsigned)(wire))

/* A tag of one or two bytes at *pp (< end): 1, or 0. Field number 0 is
 * left to the callers' default branches, which give up on it. */
static inline PF_ALWAYS_INLINE int rd_tag(const unsigned char **pp, const unsigned char *end,
                                          unsigned *tag)
{
    const unsigned char *p = *pp;
    unsigned t = *p++;
    if (t & 0x80) {
        if (p >= end || (*p & 0x80))
            return 0;
        t = (t & 0x7f) | ((unsigned)*p++ << 7);
    }
    *tag = t; /* (field number 0: no case of the callers' switches) */
    *pp = p;
    return 1;
}

/* A LEN field's payload after its tag: 1, or 0. */
static inline PF_ALWAYS_INLINE int rd_len(const unsigned char **pp, const unsigned char *end,
                                          const unsigned char **data, size_t *len)
{
    uint64_t n;
    if (pf_varint(pp, end, &n) != PF_OK || n > (uint64_t)(end - *pp))
        return 0;
    *data = *pp;
    *len = (size_t)n;
    *pp += n;
    return 1;
}

/* Skips the value of a field of wire type w: 1, or 0 (groups too). */
static inline PF_ALWAYS_INLINE int skip_value(const unsigned char **pp, const unsigned char *end, unsigned w)
{
    uint64_t v;
    const unsigned char *data;
    size_t len;
    switch (w) {
    case PF_WIRE_VARINT: return pf_varint(pp, end, &v) == PF_OK;
    case PF_WIRE_LEN: return rd_len(pp, end, &data, &len);
    case PF_WIRE_FIXED64:
        if (end - *pp < 8)
            return 0;
        *pp += 8;
        return 1;
    case PF_WIRE_FIXED32:
        if (end - *pp < 4)
            return 0;
        *pp += 4;
        return 1;
    default: return 0;
    }
}

/* Category iids the fast reader joins itself (more: the general reader). */
#define FAST_MAX_CATS 8

/* Bits of fast_te.has: which fields were seen (a member is read only when
 * its bit is set, so that one store resets them all). */
enum { FT_NAME = 1, FT_NAME_IID = 2, FT_TRACK = 4, FT_CV = 8, FT_DCV = 16, FT_X = 32 };

/* The scalars of a TrackEvent, reset with one assignment (a few vector
 * stores); the lists after them are read only up to their counts. */
typedef struct fast_scalars {
    int type;
    unsigned has;              /* FT_* */
    tread_str name;
    uint64_t name_iid, track;
    int64_t cv;
    double dcv;
    size_t ncat, nx;
} fast_scalars;

typedef struct fast_te {
    fast_scalars f;
    uint64_t cat[FAST_MAX_CATS];
    uint64_t x[PF_MAX_EXTRA_COUNTERS];
} fast_te;

/* Appends a flow id (the general reader's read_flows for one fixed64). */
static int add_flow(tread_buf *b, uint64_t v)
{
    return tread_buf_append(b, &v, 8);
}

/* The TrackEvent's fields into t (flow ids into the decoder's flow
 * buffers, which the general reader empties again when it takes over).
 * PF_FAST_DONE, or a reason. */
static int read_te(pf_decoder *d, const unsigned char *m, size_t len, fast_te *t, uint64_t off)
{
    static const fast_scalars zero;
    t->f = zero;
    d->flowbuf.len = 0;
    d->tflowbuf.len = 0;
    const unsigned char *p = m, *end = m + len;
    while (p < end) {
        unsigned tag;
        uint64_t v;
        const unsigned char *data;
        size_t n;
        if (!rd_tag(&p, end, &tag))
            return PF_FAST_MALFORMED;
        switch (tag) {
        case TAG(TE_TYPE, PF_WIRE_VARINT):
            if (pf_varint(&p, end, &v) != PF_OK)
                return PF_FAST_MALFORMED;
            t->f.type = (int)(int32_t)v;
            break;
        case TAG(TE_NAME_IID, PF_WIRE_VARINT):
            if (pf_varint(&p, end, &t->f.name_iid) != PF_OK)
                return PF_FAST_MALFORMED;
            t->f.has |= FT_NAME_IID;
            break;
        case TAG(TE_NAME, PF_WIRE_LEN):
            if (!rd_len(&p, end, &data, &n))
                return PF_FAST_MALFORMED;
            t->f.has |= FT_NAME, t->f.name.ptr = (const char *)data, t->f.name.len = n;
            break;
        case TAG(TE_CATEGORY_IIDS, PF_WIRE_VARINT):
            if (t->f.ncat == FAST_MAX_CATS)
                return PF_FAST_CATEGORIES;
            if (pf_varint(&p, end, &t->cat[t->f.ncat]) != PF_OK)
                return PF_FAST_MALFORMED;
            t->f.ncat++;
            break;
        case TAG(TE_CATEGORY_IIDS, PF_WIRE_LEN): {
            /* packed (Chrome writes several categories so) */
            if (!rd_len(&p, end, &data, &n))
                return PF_FAST_MALFORMED;
            if (!n)
                return PF_FAST_CATEGORIES; /* present but empty: no category */
            const unsigned char *e = data + n;
            while (data < e) {
                if (t->f.ncat == FAST_MAX_CATS)
                    return PF_FAST_CATEGORIES;
                if (pf_varint(&data, e, &t->cat[t->f.ncat]) != PF_OK)
                    return PF_FAST_MALFORMED;
                t->f.ncat++;
            }
            break;
        }
        case TAG(TE_TRACK_UUID, PF_WIRE_VARINT):
            if (pf_varint(&p, end, &t->f.track) != PF_OK)
                return PF_FAST_MALFORMED;
            t->f.has |= FT_TRACK;
            break;
        case TAG(TE_COUNTER_VALUE, PF_WIRE_VARINT):
            if (pf_varint(&p, end, &v) != PF_OK)
                return PF_FAST_MALFORMED;
            t->f.has |= FT_CV, t->f.cv = (int64_t)v;
            break;
        case TAG(TE_DOUBLE_COUNTER_VALUE, PF_WIRE_FIXED64):
            if (end - p < 8)
                return PF_FAST_MALFORMED;
            t->f.has |= FT_DCV, t->f.dcv = pf_double(pf_le64(p));
            p += 8;
            break;
        case TAG(TE_EXTRA_COUNTER_VALUES, PF_WIRE_VARINT):
            t->f.has |= FT_X;
            if (t->f.nx == PF_MAX_EXTRA_COUNTERS)
                return PF_FAST_EXTRA_COUNTERS;
            if (pf_varint(&p, end, &t->x[t->f.nx]) != PF_OK)
                return PF_FAST_MALFORMED;
            t->f.nx++;
            break;
        case TAG(TE_EXTRA_COUNTER_VALUES, PF_WIRE_LEN): {
            t->f.has |= FT_X;
            if (!rd_len(&p, end, &data, &n))
                return PF_FAST_MALFORMED;
            const unsigned char *e = data + n;
            while (data < e) {
                if (t->f.nx == PF_MAX_EXTRA_COUNTERS)
                    return PF_FAST_EXTRA_COUNTERS;
                if (pf_varint(&data, e, &t->x[t->f.nx]) != PF_OK)
                    return PF_FAST_MALFORMED;
                t->f.nx++;
            }
            break;
        }
        case TAG(TE_FLOW_IDS, PF_WIRE_FIXED64):
        case TAG(TE_TERMINATING_FLOW_IDS, PF_WIRE_FIXED64):
            if (end - p < 8)
                return PF_FAST_MALFORMED;
            if (add_flow(tag == TAG(TE_FLOW_IDS, PF_WIRE_FIXED64) ? &d->flowbuf : &d->tflowbuf,
                         pf_le64(p))) {
                tread__fail(d->p, TREAD_ERROR_NOMEM, off, "out of memory");
                return PF_FAST_ERROR;
            }
            p += 8;
            break;
        default: {
            unsigned num = tag >> 3;
            switch (num) {
            case 0:
            case TE_TYPE:
            case TE_NAME_IID:
            case TE_NAME:
            case TE_TRACK_UUID:
            case TE_COUNTER_VALUE:
            case TE_DOUBLE_COUNTER_VALUE:
            case TE_EXTRA_COUNTER_VALUES:
            case TE_CATEGORY_IIDS:
                return PF_FAST_MALFORMED; /* field 0, a known field of the wrong type */
            case TE_FLOW_IDS:
            case TE_TERMINATING_FLOW_IDS:
                return PF_FAST_TE_FIELD; /* packed: the general reader */
            default:
                break;
            }
            if (num < 64 && ((TE_GENERAL_ONLY >> num) & 1))
                return PF_FAST_TE_FIELD;
            /* debug annotations and typed fields: lazy args */
            if (!skip_value(&p, end, tag & 7))
                return PF_FAST_MALFORMED;
            break;
        }
        }
    }
    if (t->f.type < 1 || t->f.type > 4)
        return PF_FAST_TE_TYPE;
    return PF_FAST_DONE;
}

/* A queue slot with base's fields. Only the members the fast reader sets
 * are reset, unless the general reader filled the slot last. */
static inline pf_qitem *queue_fast(pf_decoder *d, const pf_base *base)
{
    if (d->q_len == d->q_cap && pf_queue_grow(d, base->offset))
        return NULL;
    pf_qitem *it = &d->q[d->q_len++];
    it->is_hook = it->skip = it->fmt_id = it->fmt_bind = 0;
    it->nul = 0;
    it->plain = 0;
    it->bind_num = 0;
    if (it->general) {
        pf_reset_event_rare(&it->ev);
        it->general = 0;
    }
    pf_reset_event_common(&it->ev, base);
    return it;
}

/* pf_lookup_str, with a hit in the sequence's cache read here. */
static inline int fast_str(pf_decoder *d, pf_seq *s, uint32_t field, uint64_t iid,
                           tread_str *out, uint64_t off, const char *what)
{
    const struct pf_icache *c = pf_icache_of(s, field, iid);
    if (PF_LIKELY(c->e && c->iid == iid && c->field == field && c->e->str)) {
        out->ptr = c->e->str;
        out->len = c->e->str_len;
        return 0;
    }
    return pf_lookup_str(d, s, field, iid, out, off, what);
}

/* Several category iids: looked up in order and joined with ',' in the
 * decoder's category buffer, as pf_track_event joins them (an empty
 * string adds no comma before the next). 0, or -1 after tread__fail. */
static int join_cats(pf_decoder *d, pf_seq *s, const fast_te *t, tread_event *ev, unsigned *nul)
{
    tread_buf *b = &d->catbuf;
    b->len = 0;
    for (size_t i = 0; i < t->f.ncat; i++) {
        tread_str c;
        if (fast_str(d, s, PF_INTERN_EVENT_CATEGORIES, t->cat[i], &c, ev->offset, "category"))
            ev->flags |= TREAD_CAT_UNRESOLVED;
        if ((b->len && tread_buf_append(b, ",", 1)) || tread_buf_append(b, c.ptr, c.len))
            goto nomem;
    }
    if (tread_buf_append(b, "", 1))
        goto nomem;
    ev->cat.ptr = (const char *)b->data;
    ev->cat.len = b->len - 1;
    *nul |= PF_NUL_CAT;
    return 0;
nomem:
    tread__fail(d->p, TREAD_ERROR_NOMEM, ev->offset, "out of memory");
    return -1;
}

/* The extra counters from the i-th on, queued when a callback stopped
 * emit_direct before them: one COUNTER event per value, on the sequence's
 * default extra-counter tracks (read_te checked there are enough). Each
 * takes its time and category from the event before it: prev (with its
 * nul bits) for the first, the queue's last for the others. 0, or -1
 * after tread__fail. */
static int queue_extras(pf_decoder *d, pf_seq *s, const fast_te *t, const pf_base *base,
                        size_t i, const tread_event *prev, unsigned prev_nul)
{
    const pf_u64list *uuids = &s->default_extra[0];
    for (; i < t->f.nx; i++) {
        pf_qitem *xq = queue_fast(d, base);
        if (!xq)
            return -1;
        /* the previous event (the main one, or an extra one with the same
         * time and category): prev for the first, else the queue's one
         * before, wherever the queue has moved it */
        const tread_event *main_ev = prev;
        unsigned main_nul = prev_nul;
        if (!prev) {
            const pf_qitem *mq = &d->q[d->q_len - 2];
            main_ev = &mq->ev;
            main_nul = mq->nul;
        }
        prev = NULL;
        pf_extra_counter_event(xq, s, main_ev, main_nul);
        tread_event *xe = &xq->ev;
        const pf_track *xt = pf_resolve_track(d, s, uuids->v[i], xe);
        if (pf_set_counter(d, s, xt, xq, 1, (int64_t)t->x[i], pf_double(t->x[i])))
            return -1;
        xq->plain = !xe->cat.ptr || (xq->nul & PF_NUL_CAT);
    }
    return 0;
}

/* The raw hook asked to stop before the TrackEvent's events: the main
 * event (ev, as emit_direct made it, its nul bits nul) and the extra
 * counters are queued for tread_resume, in the order they would have
 * been delivered. A literal name points into the packet again (deliver
 * copies it, and a paused packet is moved with the queue's pointers).
 * 0, or -1 after tread__fail. */
static int queue_all(pf_decoder *d, pf_seq *s, const fast_te *t, const pf_base *base,
                     const tread_event *ev, unsigned nul)
{
    pf_qitem *q = queue_fast(d, base);
    if (!q)
        return -1;
    q->ev = *ev; /* (d->fev: only the common members are ever set) */
    if ((t->f.has & FT_NAME) && !(nul & PF_NUL_NAME))
        q->ev.name = t->f.name;
    q->nul = nul;
    q->seq = s;
    return queue_extras(d, s, t, base, 0, NULL, 0);
}

static const unsigned char te_phase[5] = {0, 'B', 'E', 'i', 'C'};
static const tread_event_kind te_kind[5] = {TREAD_EVENT_UNKNOWN, TREAD_EVENT_SLICE_BEGIN,
                                            TREAD_EVENT_SLICE_END, TREAD_EVENT_INSTANT,
                                            TREAD_EVENT_COUNTER};

/* The events of the TrackEvent read into t: what pf_track_event does for
 * the same fields, delivered without the queue (handle_packet calls the
 * fast reader only when it is empty): each event goes to the callback
 * from the decoder's own event (*d->fev), which only this writes, every
 * member pf_reset_event_common names once, so nothing is reset, and
 * nothing is copied into a queue slot and out again at delivery (~7% of
 * the instructions of chromium_startup). What each event holds is what
 * the general reader queues and deliver hands over. When a callback asks
 * to stop, the extra counters not yet delivered are queued
 * (queue_extras), and handle_packet pauses (stop_requested) rather than
 * drains. 0, or -1 after tread__fail. */
static int emit_direct(pf_decoder *d, pf_seq *s, const unsigned char *m, size_t len,
                       const fast_te *t, const pf_base *base)
{
    static const tread_str z = {NULL, 0};
    tread_parser *p = d->p;
    uint64_t off = base->offset;
    d->n_track_events++;
    tread_event *ev = d->fev;
    pf_event_set_base(ev, base);
    ev->kind = te_kind[t->f.type];
    ev->phase = te_phase[t->f.type];
    ev->args.data = m;
    ev->args.len = len;
    ev->args.encoding = TREAD_ARGS_PERFETTO;
    ev->args.ctx = &s->actx;
    unsigned nul = 0;

    ev->name = z;
    if (t->f.has & FT_NAME) {
        ev->name = t->f.name;
    } else if (t->f.has & FT_NAME_IID) {
        if (fast_str(d, s, PF_INTERN_EVENT_NAMES, t->f.name_iid, &ev->name, off, "event name"))
            ev->flags |= TREAD_NAME_UNRESOLVED;
        nul |= PF_NUL_NAME;
    }
    ev->cat = z;
    if (t->f.ncat == 1) {
        if (fast_str(d, s, PF_INTERN_EVENT_CATEGORIES, t->cat[0], &ev->cat, off, "category"))
            ev->flags |= TREAD_CAT_UNRESOLVED;
        nul |= PF_NUL_CAT;
    } else if (t->f.ncat && join_cats(d, s, t, ev, &nul)) {
        return -1;
    }

    ev->pid = ev->tid = 0;
    ev->track_uuid = 0;
    ev->track_kind = TREAD_TRACK_NONE;
    uint64_t uuid = (t->f.has & FT_TRACK) ? t->f.track : s->has_default_track ? s->default_track : 0;
    const pf_track *tr = pf_resolve_track(d, s, uuid, ev);

    ev->series = z;
    ev->value = 0;
    ev->value_int = 0;
    if (ev->kind == TREAD_EVENT_COUNTER) {
        if (t->f.has & (FT_CV | FT_DCV)) {
            /* (an integer value wins, as in pf_track_event) */
            int is_int = (t->f.has & FT_CV) != 0;
            if (pf_set_counter_ev(d, s, tr, ev, &nul, is_int, t->f.cv, t->f.dcv))
                return -1;
        } else {
            tread_str tn = pf_track_name(d, tr);
            if (!ev->name.len && tn.ptr) {
                ev->name = tn;
                nul |= PF_NUL_NAME;
            }
            ev->series = tn;
        }
    }
    size_t nf = d->flowbuf.len / 8, nt = d->tflowbuf.len / 8;
    ev->flow_ids.n = nf;
    ev->flow_ids.v = nf ? (const uint64_t *)(const void *)d->flowbuf.data : NULL;
    ev->terminating_flow_ids.n = nt;
    ev->terminating_flow_ids.v = nt ? (const uint64_t *)(const void *)d->tflowbuf.data : NULL;
    if ((t->f.has & FT_NAME) && !(nul & PF_NUL_NAME)) {
        /* a literal name: NUL-terminated in the delivery buffer, as
         * deliver copies it */
        d->strbuf.len = 0;
        if (tread_buf_reserve(&d->strbuf, ev->name.len + 1))
            return tread__fail(p, TREAD_ERROR_NOMEM, off, "out of memory"), -1;
        pf_put_str(&d->strbuf, &ev->name);
    }
    if (p->cb.perfetto_packet) {
        /* the raw hook: the packet before its events, as deliver gives
         * the general reader's */
        pf_emit_packet_hook(d);
        if (p->stop_requested)
            return queue_all(d, s, t, base, ev, nul);
    }
    (void)tread__emit_inline(p, ev);

    /* extra counters: one COUNTER event per value, on the sequence's
     * default extra-counter tracks (read_te checked there are enough),
     * from the same event: its time, flags and category stay */
    const pf_u64list *uuids = &s->default_extra[0];
    for (size_t i = 0; i < t->f.nx; i++) {
        if (p->stop_requested)
            return queue_extras(d, s, t, base, i, ev, nul);
        ev->kind = TREAD_EVENT_COUNTER;
        ev->phase = 'C';
        ev->flags &= TREAD_HAS_TS | TREAD_HAS_RAW_TS | TREAD_HAS_SEQ;
        ev->name = z;
        ev->args.data = NULL;
        ev->args.len = 0;
        ev->args.encoding = TREAD_ARGS_TOKENS;
        ev->pid = ev->tid = 0;
        ev->track_uuid = 0;
        ev->track_kind = TREAD_TRACK_NONE;
        ev->series = z;
        ev->value = 0;
        ev->value_int = 0;
        ev->flow_ids.n = 0;
        ev->flow_ids.v = NULL;
        ev->terminating_flow_ids.n = 0;
        ev->terminating_flow_ids.v = NULL;
        nul &= PF_NUL_CAT;
        const pf_track *xt = pf_resolve_track(d, s, uuids->v[i], ev);
        if (pf_set_counter_ev(d, s, xt, ev, &nul, 1, (int64_t)t->x[i], pf_double(t->x[i])))
            return -1;
        (void)tread__emit_inline(p, ev);
    }
    return 0;
}

int pf_fast_packet(pf_decoder *d, const unsigned char *data, size_t len, uint64_t off,
                   int level)
{
    tread_parser *p = d->p;
    int has_ts = 0, has_clk = 0;
    uint64_t ts = 0;
    uint32_t clk = 0, seq_id = 0, flags = 0;
    const unsigned char *te = NULL, *interned = NULL;
    size_t te_len = 0, interned_len = 0;

    /* pass 1: the packet's fields, nothing changed yet */
    const unsigned char *q = data, *end = data + len;
    while (q < end) {
        unsigned tag;
        uint64_t v;
        if (!rd_tag(&q, end, &tag))
            return PF_FAST_MALFORMED;
        switch (tag) {
        case TAG(PF_PKT_TIMESTAMP, PF_WIRE_VARINT):
            if (pf_varint(&q, end, &ts) != PF_OK)
                return PF_FAST_MALFORMED;
            has_ts = 1;
            break;
        case TAG(PF_PKT_SEQ_ID, PF_WIRE_VARINT):
            if (pf_varint(&q, end, &v) != PF_OK)
                return PF_FAST_MALFORMED;
            seq_id = (uint32_t)v;
            break;
        case TAG(PF_PKT_SEQUENCE_FLAGS, PF_WIRE_VARINT):
            if (pf_varint(&q, end, &v) != PF_OK)
                return PF_FAST_MALFORMED;
            flags = (uint32_t)v;
            break;
        case TAG(PF_PKT_TIMESTAMP_CLOCK_ID, PF_WIRE_VARINT):
            if (pf_varint(&q, end, &v) != PF_OK)
                return PF_FAST_MALFORMED;
            has_clk = 1, clk = (uint32_t)v;
            break;
        case TAG(PKT_TRUSTED_UID, PF_WIRE_VARINT):
        case TAG(PKT_TRUSTED_PID, PF_WIRE_VARINT):
            if (pf_varint(&q, end, &v) != PF_OK)
                return PF_FAST_MALFORMED;
            break;
        case TAG(PF_PKT_INTERNED_DATA, PF_WIRE_LEN): {
            const unsigned char *payload;
            size_t n;
            if (!rd_len(&q, end, &payload, &n))
                return PF_FAST_MALFORMED;
            if (interned)
                return PF_FAST_PACKET_FIELD; /* two: the general reader */
            interned = payload, interned_len = n;
            break;
        }
        case TAG(PF_PKT_TRACK_EVENT, PF_WIRE_LEN): {
            const unsigned char *payload;
            size_t n;
            if (!rd_len(&q, end, &payload, &n))
                return PF_FAST_MALFORMED;
            if (te)
                return PF_FAST_NO_TRACK_EVENT; /* two: the general reader */
            te = payload, te_len = n;
            break;
        }
        default:
            return PF_FAST_PACKET_FIELD;
        }
    }
    if (!te)
        return PF_FAST_NO_TRACK_EVENT;
    if (!has_ts)
        return PF_FAST_NO_TIMESTAMP;
    /* (creates the sequence when new, as the general reader then would) */
    pf_seq *s = d->last_seq && d->last_seq->id == seq_id ? d->last_seq : pf_seq_get(d, seq_id);
    if (!s || !s->seen)
        return PF_FAST_SEQUENCE;
    if ((flags & PF_SEQ_INCREMENTAL_STATE_CLEARED) ||
        ((flags & PF_SEQ_NEEDS_INCREMENTAL_STATE) && !s->valid))
        return PF_FAST_SEQ_STATE;

    /* pass 2: the TrackEvent's fields */
    fast_te t;
    int rc = read_te(d, te, te_len, &t, off);
    if (rc != PF_FAST_DONE)
        return rc;
    if ((t.f.has & FT_X) && t.f.nx > s->default_extra[0].n)
        return PF_FAST_EXTRA_COUNTERS;

    /* decided: what process_packet does for such a packet */
    if (level)
        d->n_packets_inner++;
    else
        d->n_packets++;
    p->stats.fast_records++;
    s->packets++;
    uint32_t state = level ? TREAD_PF_STATE_COMPRESSED : 0;
    if (s->valid)
        state |= TREAD_PF_STATE_VALID;
    if (interned) {
        /* stored before the TrackEvent reads it; ignored (counted) while
         * the sequence's state is not valid */
        if (!s->valid)
            d->n_interned_ignored++;
        else if (pf_seq_intern(d, s, interned, interned_len, off))
            return PF_FAST_ERROR;
    }
    pf_base base;
    base.offset = off;
    base.flags = TREAD_HAS_SEQ;
    base.seq_id = seq_id;
    base.clock_id = 0;
    base.ts = base.raw_ts = 0;
    base.raw = &d->pkt;
    uint32_t cid = has_clk ? clk
                           : s->has_default_clock ? s->default_clock
                                                  : pf_clocks_trace_clock(d->clocks);
    pf_set_ts(d, s, cid, ts, &base);
    state |= TREAD_PF_STATE_HAS_TS;
    if (base.flags & TREAD_HAS_RAW_TS)
        state |= TREAD_PF_STATE_TS_RAW;
    pf_describe_packet(d, data, len, seq_id, cid, &base, flags, state, off);
    if (!p->cb.perfetto_packet)
        p->stats.records++; /* what tread__emit_perfetto_packet counts */
    return emit_direct(d, s, te, te_len, &t, &base) ? PF_FAST_ERROR : PF_FAST_DONE;
}
