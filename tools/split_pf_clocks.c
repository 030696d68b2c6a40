/* split_pf_clocks.c: the sequence-scoped clocks (an incremental clock's
 * running value) and the global clock snapshots in force. */
#include "split_pf_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef __int128 spf_i128;

/* ---- clocks ----------------------------------------------------------- */

seq_clock *spf_seq_clock_get(split_perfetto *s, seqst *q, uint32_t id, int create)
{
    for (size_t i = 0; i < q->n_clk; i++)
        if (q->clk[i].id == id)
            return &q->clk[i];
    if (!create)
        return NULL;
    if (q->n_clk >= SPLIT_PF_MAX_SEQ_CLOCKS) {
        s->st.clocks_not_kept++;
        return NULL;
    }
    if (!q->clk) {
        q->clk = calloc(SPLIT_PF_MAX_SEQ_CLOCKS, sizeof *q->clk);
        if (!q->clk) {
            spf_nomem(s);
            return NULL;
        }
    }
    seq_clock *c = &q->clk[q->n_clk++];
    memset(c, 0, sizeof *c);
    c->id = id;
    c->unit = 1;
    return c;
}


/* The clock_id of a ClockSnapshot.Clock message (0 when absent). */
static uint64_t clock_entry_id(const unsigned char *p, size_t n)
{
    rd c;
    fld g;
    uint64_t id = 0;
    rd_init(&c, p, n);
    while (rd_next(&c, &g) > 0)
        if (g.num == 1 && g.wire == 0)
            id = g.v;
    return id;
}

/* Whether every clock the snapshot a names, b names too (b then links
 * every pair a links, with later values). */
static int clocks_within(const unsigned char *a, size_t na, const unsigned char *b, size_t nb)
{
    rd r, rb;
    fld f, fb;
    rd_init(&r, a, na);
    while (rd_next(&r, &f) > 0) {
        if (f.num != 1 || f.wire != 2)
            continue;
        uint64_t id = clock_entry_id(f.data, f.len);
        int found = 0;
        rd_init(&rb, b, nb);
        while (!found && rd_next(&rb, &fb) > 0)
            found = fb.num == 1 && fb.wire == 2 && clock_entry_id(fb.data, fb.len) == id;
        if (!found)
            return 0;
    }
    return 1;
}

/* A ClockSnapshot seen on q (not dropped): kept as the global snapshots
 * in force, or as q's, its incremental clocks reset to their values. */
int spf_note_snapshot(split_perfetto *s, seqst *q, uint32_t seq, const unsigned char *m,
                      size_t n)
{
    rd r, c;
    fld f, g;
    int scoped = 0;
    rd_init(&r, m, n);
    while (rd_next(&r, &f) > 0) {
        if (f.num != 1 || f.wire != 2)
            continue;
        uint64_t id = 0, ts = 0, unit = 1;
        int incr = 0;
        rd_init(&c, f.data, f.len);
        while (rd_next(&c, &g) > 0) {
            if (g.wire != 0)
                continue;
            if (g.num == 1)
                id = g.v;
            else if (g.num == 2)
                ts = g.v;
            else if (g.num == 3)
                incr = g.v != 0;
            else if (g.num == 4)
                unit = g.v ? g.v : 1;
        }
        if (!spf_seq_scoped(id) || !q)
            continue;
        scoped = 1;
        seq_clock *k = spf_seq_clock_get(s, q, (uint32_t)id, 1);
        if (!k)
            continue;
        k->incremental = incr;
        k->unit = unit;
        k->base = (int64_t)ts;
        k->running = (int64_t)ts;
        k->snap.len = 0;
        if (buf_put(&k->snap, m, n))
            return spf_nomem(s);
    }
    if (scoped)
        return 0;
    /* A global snapshot. The decoder keeps a series per pair of clocks
     * (lib/perfetto/pf_clock.c) and converts with the one at or before
     * the value, so the latest SPLIT_PF_CLOCK_SNAPSHOTS are kept (a
     * piece's times before the latest snapshot convert as the whole's);
     * when they are full the oldest that a later one supersedes (names
     * all its clocks) goes, and only when none is superseded the oldest
     * (counted): fuzz_split_perfetto found four snapshots of other clocks
     * pushing the one that linked clock 3 out of a ring of the latest
     * four. */
    if (s->n_snaps == SPLIT_PF_CLOCK_SNAPSHOTS) {
        size_t drop = 0;
        int found = 0;
        for (size_t i = 0; i < s->n_snaps && !found; i++) {
            const buf *a = &s->snaps[i].msg;
            found = clocks_within(a->p, a->len, m, n);
            for (size_t j = i + 1; j < s->n_snaps && !found; j++)
                found = clocks_within(a->p, a->len, s->snaps[j].msg.p, s->snaps[j].msg.len);
            if (found)
                drop = i;
        }
        if (!found)
            s->st.snapshots_not_kept++;
        saved t = s->snaps[drop];
        memmove(&s->snaps[drop], &s->snaps[drop + 1],
                (s->n_snaps - drop - 1) * sizeof s->snaps[0]);
        s->snaps[--s->n_snaps] = t; /* (its buffer reused) */
    }
    saved *sv = &s->snaps[s->n_snaps++];
    sv->seq = seq;
    sv->msg.len = 0;
    return buf_put(&sv->msg, m, n) ? spf_nomem(s) : 0;
}

int spf_seq_snapshots(split_perfetto *s, seqst *q, buf *out)
{
    size_t mark;
    /* each clock's last snapshot, once */
    for (size_t i = 0; i < q->n_clk; i++) {
        buf *b = &q->clk[i].snap;
        int dup = 0;
        for (size_t j = 0; j < i && !dup; j++)
            dup = q->clk[j].snap.len == b->len && memcmp(q->clk[j].snap.p, b->p, b->len) == 0;
        if (dup || !b->len)
            continue;
        if (spf_put_snapshot(s, out, q->id, b->p, b->len))
            return -1;
    }
    for (size_t i = 0; i < q->n_clk; i++) {
        seq_clock *k = &q->clk[i];
        if (!k->incremental || k->running == k->base || !k->snap.len)
            continue;
        /* (running - base) in ns: how far every clock of the snapshot moves */
        spf_i128 shift = (spf_i128)(k->running - k->base) * (spf_i128)k->unit;
        s->tmp2.len = 0;
        rd r, c;
        fld f, g;
        rd_init(&r, k->snap.p, k->snap.len);
        while (rd_next(&r, &f) > 0) {
            if (f.num != 1 || f.wire != 2)
                continue; /* (primary_trace_clock: spf_pin_trace_clock's) */
            uint64_t id = 0, ts = 0, unit = 1;
            int incr = 0;
            rd_init(&c, f.data, f.len);
            while (rd_next(&c, &g) > 0) {
                if (g.wire != 0)
                    continue;
                if (g.num == 1)
                    id = g.v;
                else if (g.num == 2)
                    ts = g.v;
                else if (g.num == 3)
                    incr = g.v != 0;
                else if (g.num == 4)
                    unit = g.v ? g.v : 1;
            }
            if (spf_seq_scoped(id) && id != k->id)
                continue; /* another sequence clock: its own packet */
            int64_t v;
            if (id == k->id) {
                v = k->running;
            } else {
                if (shift % (spf_i128)unit)
                    s->st.clock_shift_inexact++;
                v = (int64_t)((spf_i128)(int64_t)ts + shift / (spf_i128)unit);
            }
            s->tmp.len = 0;
            buf_tag(&s->tmp, 1, 0), buf_varint(&s->tmp, id);
            buf_tag(&s->tmp, 2, 0), buf_varint(&s->tmp, (uint64_t)v);
            if (incr)
                buf_tag(&s->tmp, 3, 0), buf_varint(&s->tmp, 1);
            if (unit != 1)
                buf_tag(&s->tmp, 4, 0), buf_varint(&s->tmp, unit);
            if (buf_lenfield(&s->tmp2, 1, s->tmp.p, s->tmp.len))
                return spf_nomem(s);
        }
        if (put_packet_begin(out, &mark) || buf_tag(out, F_SEQ_ID, 0) ||
            buf_varint(out, q->id) || buf_lenfield(out, F_CLOCK_SNAPSHOT, s->tmp2.p, s->tmp2.len))
            return spf_nomem(s);
        put_packet_end(out, mark);
    }
    return 0;
}

int spf_put_snapshot(split_perfetto *s, buf *out, uint32_t seq, const unsigned char *m,
                     size_t n)
{
    /* The whole file's decoder took primary_trace_clock from the snapshot
     * when it was first read, or ignored it once a timestamp had fixed the
     * trace clock; restated later, it would set the piece's trace clock to
     * one the whole does not have (fuzz_split_perfetto). Only a varint
     * field 2 goes: a snapshot that does not decode must still not. */
    size_t mark;
    rd r;
    fld f;
    int rc;
    if (put_packet_begin(out, &mark) ||
        (seq && (buf_tag(out, F_SEQ_ID, 0) || buf_varint(out, seq))))
        return spf_nomem(s);
    s->tmp.len = 0;
    rd_init(&r, m, n);
    while ((rc = rd_next(&r, &f)) > 0)
        if (!(f.num == 2 && f.wire == 0) &&
            buf_put(&s->tmp, f.start, (size_t)(r.p - f.start)))
            return spf_nomem(s);
    if (rc < 0 && buf_put(&s->tmp, f.start, (size_t)(m + n - f.start)))
        return spf_nomem(s);
    if (buf_lenfield(out, F_CLOCK_SNAPSHOT, s->tmp.p, s->tmp.len))
        return spf_nomem(s);
    put_packet_end(out, mark);
    return 0;
}

int spf_pin_trace_clock(split_perfetto *s, buf *out)
{
    /* The trace clock: a snapshot with only primary_trace_clock (none for
     * BOOTTIME, the decoder's own default). Fixed: a timestamp on it, read
     * in the same packet after the snapshot. The whole file had a snapshot
     * naming that clock, so the piece's clock_sync event restates one. */
    if (s->trace_clock == SPF_CLOCK_BOOTTIME && !s->clock_fixed)
        return 0;
    size_t mark;
    unsigned char snap[12];
    size_t sl = 0;
    if (s->trace_clock != SPF_CLOCK_BOOTTIME) {
        snap[sl++] = 2 << 3;
        sl += varint_to(snap + sl, s->trace_clock);
    }
    if (put_packet_begin(out, &mark) ||
        (sl && buf_lenfield(out, F_CLOCK_SNAPSHOT, snap, sl)))
        return spf_nomem(s);
    if (s->clock_fixed &&
        (buf_tag(out, F_TIMESTAMP, 0) || buf_varint(out, 0) ||
         buf_tag(out, F_CLOCK_ID, 0) || buf_varint(out, s->trace_clock)))
        return spf_nomem(s);
    put_packet_end(out, mark);
    return 0;
}
