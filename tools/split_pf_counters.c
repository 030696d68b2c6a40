/* split_pf_counters.c: incremental counter tracks: their running values
 * per sequence, and a TrackEvent's values rewritten where a piece lacks
 * the running value. */
#include "split_pf_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- incremental counters --------------------------------------------- */

counter *spf_counter_get(split_perfetto *s, seqst *q, uint64_t uuid)
{
    for (size_t i = 0; i < q->n_ctr; i++)
        if (q->ctr[i].uuid == uuid)
            return &q->ctr[i];
    if (q->n_ctr >= SPLIT_PF_MAX_COUNTERS) {
        s->st.counters_not_kept++;
        return NULL;
    }
    if (!q->ctr) {
        q->ctr = calloc(SPLIT_PF_MAX_COUNTERS, sizeof *q->ctr);
        if (!q->ctr) {
            spf_nomem(s);
            return NULL;
        }
    }
    counter *c = &q->ctr[q->n_ctr++];
    memset(c, 0, sizeof *c);
    c->uuid = uuid;
    c->piece = s->piece; /* a new value starts at 0 in both decoders */
    return c;
}

/* The counter values of a TrackEvent: the main one (counter_value or
 * double_counter_value, on its track) and the extra ones (on the event's
 * or the defaults' extra track uuids, in order), each with the running
 * value of its track when that track is incremental. */
/* A repeated uint64/int64 (varint) or double (fixed, fixed64) field,
 * packed or not, appended to v[*n] as the decoder takes it
 * (pf_read_repeated): an element of another wire type, or a packed fixed
 * run whose length 8 does not divide, gives nothing. */
static void read_repeated(const fld *f, uint64_t *v, size_t *n, int fixed)
{
    if (f->wire != 2) {
        if (f->wire == (fixed ? 1 : 0) && *n < TE_MAX_VALUES)
            v[(*n)++] = f->v;
        return;
    }
    if (fixed && f->len % 8)
        return;
    rd p;
    rd_init(&p, f->data, f->len);
    while (p.p < p.end && *n < TE_MAX_VALUES) {
        uint64_t x = 0;
        if (fixed) {
            if (p.end - p.p < 8)
                return;
            for (int i = 7; i >= 0; i--)
                x = (x << 8) | p.p[i];
            p.p += 8;
        } else if (rd_varint(&p, &x)) {
            return;
        }
        v[(*n)++] = x;
    }
}

static counter *incremental(split_perfetto *s, seqst *q, uint64_t uuid)
{
    track *t = spf_track_find(s, uuid);
    return t && t->incremental ? spf_counter_get(s, q, uuid) : NULL;
}

/* TracePacketDefaults.track_event_defaults: the first track uuid, and
 * every extra counter track uuid (int, double) in order. */
typedef struct te_defaults {
    int has_uuid;
    uint64_t uuid;
    size_t n_ui, n_ud;
    uint64_t ui[TE_MAX_VALUES], ud[TE_MAX_VALUES];
} te_defaults;

static void read_defaults(const seqst *q, te_defaults *dd)
{
    rd d, e;
    fld g, h;
    dd->has_uuid = 0;
    dd->n_ui = dd->n_ud = 0;
    rd_init(&d, q->defaults.p, q->defaults.len);
    while (rd_next(&d, &g) > 0) {
        if (g.num != 11 || g.wire != 2)
            continue;
        rd_init(&e, g.data, g.len);
        while (rd_next(&e, &h) > 0) {
            if (h.num == 11 && h.wire == 0) {
                if (!dd->has_uuid)
                    dd->has_uuid = 1, dd->uuid = h.v;
            } else if (h.num == 31) {
                read_repeated(&h, dd->ui, &dd->n_ui, 0);
            } else if (h.num == 45) {
                read_repeated(&h, dd->ud, &dd->n_ud, 0);
            }
        }
    }
}

/* The sequence's defaults read, once while they do not change (Chrome
 * gives most events extra counter values on the defaults' tracks: reading
 * the defaults again for each was ~10% of splitting chromium_startup);
 * into *tmp when there is no memory to keep them. */
static const te_defaults *defaults_of(seqst *q, te_defaults *tmp)
{
    if (q->dflt_ok)
        return q->dflt;
    if (!q->dflt)
        q->dflt = malloc(sizeof *q->dflt);
    te_defaults *dd = q->dflt ? q->dflt : tmp;
    read_defaults(q, dd);
    q->dflt_ok = q->dflt != NULL;
    return dd;
}

void spf_counter_begin(te_counter_raw *cr, te_counter *tc)
{
    cr->has_ui = cr->has_ud = cr->has_uuid = 0;
    cr->uuid = 0;
    cr->n_ui = cr->n_ud = 0;
    spf_counter_clear(tc);
}

void spf_counter_field(te_counter_raw *cr, te_counter *tc, const fld *f)
{
    switch (f->num) {
    case 30:
        if (f->wire == 0)
            tc->has_main = 1, tc->main.is_double = 0, tc->main.iv = (int64_t)f->v;
        break;
    case 44:
        if (f->wire == 1) {
            tc->has_main = 1, tc->main.is_double = 1;
            memcpy(&tc->main.dv, &f->v, sizeof tc->main.dv);
        }
        break;
    case 11:
        if (f->wire == 0)
            cr->has_uuid = 1, cr->uuid = f->v;
        break;
    case 12: read_repeated(f, cr->xi, &tc->n_xi, 0); break;
    case 46: read_repeated(f, cr->xd, &tc->n_xd, 1); break;
    case 31:
        cr->has_ui = 1;
        read_repeated(f, cr->ui, &cr->n_ui, 0);
        break;
    case 45:
        cr->has_ud = 1;
        read_repeated(f, cr->ud, &cr->n_ud, 0);
        break;
    }
}

void spf_read_counter(split_perfetto *s, seqst *q, te_counter_raw *cr, te_counter *tc)
{
    const uint64_t *xi = cr->xi, *xd = cr->xd, *ui = cr->ui, *ud = cr->ud;
    size_t n_ui = cr->n_ui, n_ud = cr->n_ud;
    int has_ui = cr->has_ui, has_ud = cr->has_ud, has_uuid = cr->has_uuid;
    uint64_t uuid = cr->uuid;
    /* the defaults, where a value needs what the event itself lacks */
    if (q->has_defaults && ((tc->has_main && !has_uuid) || (tc->n_xi && !has_ui) ||
                            (tc->n_xd && !has_ud))) {
        te_defaults tmp;
        const te_defaults *dd = defaults_of(q, &tmp);
        if (!has_uuid && dd->has_uuid)
            has_uuid = 1, uuid = dd->uuid;
        if (!has_ui)
            ui = dd->ui, n_ui = dd->n_ui;
        if (!has_ud)
            ud = dd->ud, n_ud = dd->n_ud;
    }
    if (tc->has_main && has_uuid)
        tc->main.ctr = incremental(s, q, uuid);
    for (size_t i = 0; i < tc->n_xi; i++) {
        tc->xi[i] = (te_value){0};
        tc->xi[i].iv = (int64_t)xi[i];
        tc->xi[i].ctr = i < n_ui ? incremental(s, q, ui[i]) : NULL;
    }
    for (size_t i = 0; i < tc->n_xd; i++) {
        tc->xd[i] = (te_value){0};
        tc->xd[i].is_double = 1;
        memcpy(&tc->xd[i].dv, &xd[i], sizeof(double));
        tc->xd[i].ctr = i < n_ud ? incremental(s, q, ud[i]) : NULL;
    }
}

/* The value to write for v in the current piece: the running value plus
 * v when the piece's decoder lacks the running value (1), else v (0). */
static int piece_value(const split_perfetto *s, const te_value *v, te_value *out)
{
    *out = *v;
    const counter *c = v->ctr;
    if (!c || c->piece == s->piece || (v->is_double ? c->dval == 0 : c->ival == 0))
        return 0;
    if (v->is_double)
        out->dv = c->dval + v->dv;
    else
        out->iv = (int64_t)((uint64_t)c->ival + (uint64_t)v->iv);
    return 1;
}

void spf_advance(split_perfetto *s, te_value *v)
{
    if (!v->ctr)
        return;
    v->ctr->ival = (int64_t)((uint64_t)v->ctr->ival + (uint64_t)v->iv);
    v->ctr->dval += v->dv;
    v->ctr->piece = s->piece;
}

static int put_double(buf *b, double d)
{
    uint64_t bits;
    unsigned char t[8];
    memcpy(&bits, &d, sizeof bits);
    for (int i = 0; i < 8; i++)
        t[i] = (unsigned char)(bits >> (8 * i));
    return buf_put(b, t, 8);
}

/* A copy of the packet with its TrackEvent's counter values as the piece
 * needs them, into out; 0 when none needs rewriting (out untouched). */
int spf_rewrite_counters(split_perfetto *s, const unsigned char *p, size_t n,
                         const te_counter *tc, buf *out)
{
    te_value m, xi[TE_MAX_VALUES], xd[TE_MAX_VALUES];
    int any = tc->has_main && piece_value(s, &tc->main, &m);
    for (size_t i = 0; i < tc->n_xi; i++)
        any |= piece_value(s, &tc->xi[i], &xi[i]);
    for (size_t i = 0; i < tc->n_xd; i++)
        any |= piece_value(s, &tc->xd[i], &xd[i]);
    if (!any)
        return 0;
    rd r, e;
    fld f, g;
    rd_init(&r, p, n);
    out->len = 0;
    while (rd_next(&r, &f) > 0) {
        if (f.num != F_TRACK_EVENT || f.wire != 2) {
            if (buf_put(out, f.start, (size_t)(r.p - f.start)))
                return spf_nomem(s);
            continue;
        }
        s->tmp2.len = 0;
        rd_init(&e, f.data, f.len);
        while (rd_next(&e, &g) > 0)
            if (!((g.num == 30 && g.wire == 0) || (g.num == 44 && g.wire == 1) || g.num == 12 ||
                  g.num == 46) &&
                buf_put(&s->tmp2, g.start, (size_t)(e.p - g.start)))
                return spf_nomem(s);
        buf *t = &s->tmp2;
        if (tc->has_main && m.is_double && (buf_tag(t, 44, 1) || put_double(t, m.dv)))
            return spf_nomem(s);
        if (tc->has_main && !m.is_double && (buf_tag(t, 30, 0) || buf_varint(t, (uint64_t)m.iv)))
            return spf_nomem(s);
        if (tc->n_xi) {
            size_t len = 0;
            for (size_t i = 0; i < tc->n_xi; i++)
                len += varint_size((uint64_t)xi[i].iv);
            if (buf_tag(t, 12, 2) || buf_varint(t, len))
                return spf_nomem(s);
            for (size_t i = 0; i < tc->n_xi; i++)
                if (buf_varint(t, (uint64_t)xi[i].iv))
                    return spf_nomem(s);
        }
        if (tc->n_xd) {
            if (buf_tag(t, 46, 2) || buf_varint(t, 8 * tc->n_xd))
                return spf_nomem(s);
            for (size_t i = 0; i < tc->n_xd; i++)
                if (put_double(t, xd[i].dv))
                    return spf_nomem(s);
        }
        if (buf_lenfield(out, F_TRACK_EVENT, s->tmp2.p, s->tmp2.len))
            return spf_nomem(s);
    }
    return 1;
}
