/* split_pf_legacy.c: the legacy delta-encoded references of a sequence.
 *
 * A ThreadDescriptor's reference_timestamp_us, reference_thread_time_us
 * and reference_thread_instruction_count set them; a TrackEvent's
 * timestamp_delta_us, thread_time_delta_us and
 * thread_instruction_count_delta move them on, and its _absolute_ fields
 * set them. The decoder keeps them per sequence and no clear resets them
 * (lib/perfetto/pf_track_event.c), so a piece's decoder starts a sequence
 * from the references of the ThreadDescriptor the piece restates (or 0):
 * the first delta of a piece on a base that differs from the whole file's
 * is written as the absolute value the whole file's decoder reaches, and
 * from there both move alike. A StreamingProfilePacket's
 * timestamp_delta_us move the timestamp too (after the TrackEvent's, each
 * delta the decoder pairs with a callstack or reads past them); having no
 * absolute form, its first delta is moved by the difference instead. */
#include "split_pf_internal.h"

/* TrackEvent fields, and ThreadDescriptor's references, by LG_* */
static const uint32_t delta_field[LG_N] = {1, 2, 8};
static const uint32_t abs_field[LG_N] = {16, 17, 20};
static const uint32_t ref_field[LG_N] = {6, 7, 8};

static int64_t wrap_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* A ThreadDescriptor's references, as the decoder reads them (varints; a
 * descriptor that does not decode is skipped whole): 0, or -1. */
static int read_refs(const unsigned char *m, size_t n, int has[LG_N], int64_t v[LG_N])
{
    rd r;
    fld f;
    int rc;
    for (int k = 0; k < LG_N; k++)
        has[k] = 0, v[k] = 0;
    rd_init(&r, m, n);
    while ((rc = rd_next(&r, &f)) > 0)
        for (int k = 0; k < LG_N; k++)
            if (f.num == ref_field[k] && f.wire == 0)
                has[k] = 1, v[k] = (int64_t)f.v;
    return rc == 0 ? 0 : -1;
}

void spf_legacy_field(lg_packet *t, const fld *f)
{
    if (f->wire != 0 || f->num > 20)
        return;
    for (int k = 0; k < LG_N; k++) {
        if (f->num == delta_field[k])
            t->has_delta[k] = 1, t->delta[k] = (int64_t)f->v, t->any = 1;
        else if (f->num == abs_field[k])
            t->has_abs[k] = 1, t->abs[k] = (int64_t)f->v, t->any = 1;
    }
}

void spf_legacy_refs(const unsigned char *thdesc, size_t thdesc_len, lg_packet *lp)
{
    memset(lp, 0, sizeof *lp);
    lp->has_refs = thdesc && read_refs(thdesc, thdesc_len, lp->has_ref, lp->ref) == 0;
    lp->any = lp->has_refs;
}

/* The values of repeated varint field num of a message, packed or not, as
 * the decoder's rep_next reads them: 1 with *v, 0 at the end, -1. */
typedef struct rep_it {
    rd r, packed;
    int in_packed;
    uint32_t num;
} rep_it;

static int rep_next(rep_it *it, uint64_t *v)
{
    for (;;) {
        if (it->in_packed) {
            if (it->packed.p < it->packed.end)
                return rd_varint(&it->packed, v) ? -1 : 1;
            it->in_packed = 0;
        }
        fld f;
        int rc = rd_next(&it->r, &f);
        if (rc <= 0)
            return rc;
        if (f.num != it->num)
            continue;
        if (f.wire == 0) {
            *v = f.v;
            return 1;
        }
        if (f.wire != 2)
            return -1;
        rd_init(&it->packed, f.data, f.len);
        it->in_packed = 1;
    }
}

void spf_legacy_stream(lg_packet *lp, const unsigned char *m, size_t n)
{
    rep_it ci, ti;
    memset(&ci, 0, sizeof ci);
    memset(&ti, 0, sizeof ti);
    rd_init(&ci.r, m, n);
    rd_init(&ti.r, m, n);
    ci.num = 1;
    ti.num = 2;
    lp->stream_sum = 0;
    lp->has_stream = 0;
    for (;;) {
        uint64_t cs, delta;
        int crc = rep_next(&ci, &cs);
        int trc = rep_next(&ti, &delta);
        if (crc < 0 || trc <= 0)
            break;
        lp->stream_sum = wrap_add(lp->stream_sum, (int64_t)delta);
        lp->has_stream = 1;
    }
    lp->any |= lp->has_stream;
}

void spf_legacy_plan(const split_perfetto *s, const seqst *q, lg_packet *lp)
{
    int64_t pv[LG_N], wv[LG_N];
    int has[LG_N];
    lp->rewrite = 0;
    if (!lp->any && q->lg_piece == s->piece) { /* most packets */
        memcpy(lp->piece, q->lg_pv, sizeof lp->piece);
        return;
    }
    if (q->lg_piece == s->piece) {
        memcpy(pv, q->lg_pv, sizeof pv);
    } else if (!q->has_thread || read_refs(q->thread.p, q->thread.len, has, pv)) {
        /* the sequence is new to the piece: its references are those of
         * the descriptor needs() restated, or 0 */
        memset(pv, 0, sizeof pv);
    }
    memcpy(wv, q->lg_whole, sizeof wv);
    lp->rewrite = 0;
    for (int k = 0; k < LG_N; k++) {
        if (lp->has_refs && lp->has_ref[k])
            pv[k] = wv[k] = lp->ref[k];
        if (lp->has_delta[k]) {
            if (pv[k] != wv[k])
                lp->rewrite |= 1u << k;
            pv[k] = wrap_add(wv[k], lp->delta[k]);
        } else if (lp->has_abs[k]) {
            pv[k] = lp->abs[k];
        }
        lp->piece[k] = lp->te[k] = pv[k];
    }
    if (lp->has_stream) {
        /* the whole file's timestamp after the TrackEvent; the piece's
         * equals it from the first delta on */
        int64_t w = lp->has_delta[0] ? wrap_add(wv[0], lp->delta[0])
                    : lp->has_abs[0] ? lp->abs[0]
                                     : wv[0];
        lp->stream_fix = (int64_t)((uint64_t)w - (uint64_t)pv[0]);
        if (lp->stream_fix)
            lp->rewrite |= LG_STREAM;
        pv[0] = wrap_add(w, lp->stream_sum);
        lp->piece[0] = pv[0];
    }
}

void spf_legacy_advance(const split_perfetto *s, seqst *q, const lg_packet *lp)
{
    for (int k = 0; lp->any && k < LG_N; k++) {
        if (lp->has_refs && lp->has_ref[k])
            q->lg_whole[k] = lp->ref[k];
        if (lp->has_delta[k])
            q->lg_whole[k] = wrap_add(q->lg_whole[k], lp->delta[k]);
        else if (lp->has_abs[k])
            q->lg_whole[k] = lp->abs[k];
    }
    if (lp->has_stream)
        q->lg_whole[0] = wrap_add(q->lg_whole[0], lp->stream_sum);
    memcpy(q->lg_pv, lp->piece, sizeof q->lg_pv);
    q->lg_piece = s->piece;
}

/* The StreamingProfilePacket m[0..n) with its first timestamp delta moved
 * by fix, into t. 0, or -1 after spf_nomem. */
static int stream_rewrite(split_perfetto *s, const unsigned char *m, size_t n, int64_t fix,
                          buf *t)
{
    rd r;
    fld f;
    int done = 0;
    t->len = 0;
    rd_init(&r, m, n);
    const unsigned char *at = r.p;
    while (rd_next(&r, &f) > 0) {
        at = r.p;
        if (done || f.num != 2 || (f.wire != 0 && f.wire != 2) ||
            (f.wire == 2 && f.len == 0)) {
            if (buf_put(t, f.start, (size_t)(r.p - f.start)))
                return spf_nomem(s);
            continue;
        }
        done = 1;
        if (f.wire == 0) {
            if (buf_tag(t, 2, 0) || buf_varint(t, (uint64_t)wrap_add((int64_t)f.v, fix)))
                return spf_nomem(s);
            continue;
        }
        /* packed: the first element moved, the rest as written */
        rd pr;
        uint64_t v;
        rd_init(&pr, f.data, f.len);
        if (rd_varint(&pr, &v)) { /* the decoder applied none of it */
            if (buf_put(t, f.start, (size_t)(r.p - f.start)))
                return spf_nomem(s);
            continue;
        }
        unsigned char first[10];
        size_t fl = varint_to(first, (uint64_t)wrap_add((int64_t)v, fix));
        size_t rest = (size_t)(pr.end - pr.p);
        if (buf_tag(t, 2, 2) || buf_varint(t, fl + rest) || buf_put(t, first, fl) ||
            buf_put(t, pr.p, rest))
            return spf_nomem(s);
    }
    /* a tail that does not decode stays as it is: the decoder read the
     * deltas before it, and warns of it */
    if (at < r.end && buf_put(t, at, (size_t)(r.end - at)))
        return spf_nomem(s);
    return 0;
}

/* Where the packet's last length-delimited field num begins (the one the
 * decoder reads), or NULL. */
static const unsigned char *last_field(const unsigned char *p, size_t n, uint32_t num)
{
    rd r;
    fld f;
    const unsigned char *last = NULL;
    rd_init(&r, p, n);
    while (rd_next(&r, &f) > 0)
        if (f.num == num && f.wire == 2)
            last = f.start;
    return last;
}

int spf_legacy_rewrite(split_perfetto *s, const lg_packet *lp,
                       const unsigned char *p, size_t n, buf *out)
{
    if (!lp->rewrite)
        return 0;
    if (lp->rewrite & LG_STREAM) {
        /* (then no TrackEvent delta is rewritten: after one, the piece's
         * timestamp is the whole file's) the decoder reads the last
         * streaming_profile_packet of the packet */
        rd r;
        fld f;
        const unsigned char *last = last_field(p, n, F_STREAMING_PROFILE);
        out->len = 0;
        rd_init(&r, p, n);
        while (rd_next(&r, &f) > 0) {
            if (f.start != last) {
                if (buf_put(out, f.start, (size_t)(r.p - f.start)))
                    return spf_nomem(s);
                continue;
            }
            if (stream_rewrite(s, f.data, f.len, lp->stream_fix, &s->tmp3) ||
                buf_lenfield(out, F_STREAMING_PROFILE, s->tmp3.p, s->tmp3.len))
                return spf_nomem(s);
        }
        return 1;
    }
    /* the decoder reads the last TrackEvent of the packet: that one */
    rd r, e;
    fld f, g;
    const unsigned char *last = last_field(p, n, F_TRACK_EVENT);
    out->len = 0;
    rd_init(&r, p, n);
    while (rd_next(&r, &f) > 0) {
        if (f.start != last) {
            if (buf_put(out, f.start, (size_t)(r.p - f.start)))
                return spf_nomem(s);
            continue;
        }
        buf *t = &s->tmp3;
        t->len = 0;
        rd_init(&e, f.data, f.len);
        while (rd_next(&e, &g) > 0) {
            int drop = 0;
            for (int k = 0; k < LG_N; k++)
                if ((lp->rewrite & (1u << k)) && g.wire == 0 &&
                    (g.num == delta_field[k] || g.num == abs_field[k]))
                    drop = 1;
            if (!drop && buf_put(t, g.start, (size_t)(e.p - g.start)))
                return spf_nomem(s);
        }
        /* the whole file's value after it (not after the packet's
         * streaming deltas, which the decoder applies later:
         * fuzz_split_perfetto, regress_stream_after_track_event) */
        for (int k = 0; k < LG_N; k++)
            if ((lp->rewrite & (1u << k)) &&
                (buf_tag(t, abs_field[k], 0) || buf_varint(t, (uint64_t)lp->te[k])))
                return spf_nomem(s);
        if (buf_lenfield(out, F_TRACK_EVENT, t->p, t->len))
            return spf_nomem(s);
    }
    return 1;
}
