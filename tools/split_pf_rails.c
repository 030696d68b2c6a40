/* split_pf_rails: PowerRails descriptors (TracePacket.power_rails, 40) for
 * split_perfetto. The decoder keeps, for the whole parse, each rail's
 * index -> name from the descriptors it has read (up to PF_SYS_MAX_RAILS,
 * lib/perfetto/pf_system.c); energy data names only the index. So a piece
 * whose packet has energy data of a rail described in an earlier piece
 * gets, before it, a power_rails packet holding that rail's last
 * descriptor, copied (doc/convert.md, "Perfetto pieces"). This file
 * follows the decoder's reading exactly: descriptors first (a packet may
 * carry both, in any order), each field until one does not decode; energy
 * data only when the whole message decodes. */
#include "split_pf_internal.h"

enum { PR_DESCRIPTOR = 1, PR_ENERGY = 2 };

static spf_rail *rail_find(split_perfetto *s, uint32_t index)
{
    for (size_t i = 0; i < s->n_rails; i++)
        if (s->rails[i].index == index)
            return &s->rails[i];
    return NULL;
}

/* The index a descriptor gives (the decoder's reading: the last varint
 * field 1 before the first field that does not decode; 0 without one). */
static uint32_t desc_index(const unsigned char *p, size_t n)
{
    rd r;
    fld f;
    uint32_t index = 0;
    rd_init(&r, p, n);
    while (rd_next(&r, &f) > 0)
        if (f.num == 1 && f.wire == 0)
            index = (uint32_t)f.v;
    return index;
}

/* Whether the packet's descriptors (m, n) describe index. */
static int describes(const unsigned char *m, size_t n, uint32_t index)
{
    rd r;
    fld f;
    rd_init(&r, m, n);
    while (rd_next(&r, &f) > 0)
        if (f.num == PR_DESCRIPTOR && f.wire == 2 && desc_index(f.data, f.len) == index)
            return 1;
    return 0;
}

static int add_desc(split_perfetto *s, buf *out, const spf_rail *k)
{
    const unsigned char *p = k->len ? s->rails_arena.p + k->off : (const unsigned char *)"";
    return buf_lenfield(out, PR_DESCRIPTOR, p, k->len);
}

int spf_rails_needs(split_perfetto *s, const unsigned char *m, size_t n, buf *out)
{
    rd r;
    fld f;
    int rc, full_miss = 0;
    /* a descriptor the whole file's table had no room for: the piece's
     * table must be full too, or the piece would name that rail */
    rd_init(&r, m, n);
    while ((rc = rd_next(&r, &f)) > 0)
        if (f.num == PR_DESCRIPTOR && f.wire == 2 && s->n_rails >= SPLIT_PF_MAX_RAILS &&
            !rail_find(s, desc_index(f.data, f.len)))
            full_miss = 1;
    s->tmp2.len = 0;
    if (full_miss) {
        for (size_t i = 0; i < s->n_rails; i++)
            if (s->rails[i].piece != s->piece && s->rails[i].kept) {
                if (add_desc(s, &s->tmp2, &s->rails[i]))
                    return spf_nomem(s);
                s->rails[i].piece = s->piece;
            }
    } else if (rc == 0) { /* energy data is read only when all decodes */
        rd_init(&r, m, n);
        while (rd_next(&r, &f) > 0) {
            if (f.num != PR_ENERGY || f.wire != 2)
                continue;
            rd e;
            fld g;
            uint32_t index = 0;
            rd_init(&e, f.data, f.len);
            while (rd_next(&e, &g) > 0)
                if (g.num == 1 && g.wire == 0)
                    index = (uint32_t)g.v;
            spf_rail *k = rail_find(s, index);
            if (!k || k->piece == s->piece || !k->kept || describes(m, n, index))
                continue;
            if (add_desc(s, &s->tmp2, k))
                return spf_nomem(s);
            k->piece = s->piece;
        }
    }
    if (!s->tmp2.len)
        return 0;
    size_t mark;
    if (put_packet_begin(out, &mark) || buf_lenfield(out, F_POWER_RAILS, s->tmp2.p, s->tmp2.len))
        return spf_nomem(s);
    put_packet_end(out, mark);
    return 0;
}

int spf_rails_note(split_perfetto *s, const unsigned char *m, size_t n)
{
    rd r;
    fld f;
    rd_init(&r, m, n);
    while (rd_next(&r, &f) > 0) {
        if (f.num != PR_DESCRIPTOR || f.wire != 2)
            continue;
        uint32_t index = desc_index(f.data, f.len);
        spf_rail *k = rail_find(s, index);
        if (!k) {
            if (s->n_rails >= SPLIT_PF_MAX_RAILS)
                continue; /* the decoder skips it too */
            if (!s->rails) {
                s->rails = calloc(SPLIT_PF_MAX_RAILS, sizeof *s->rails);
                if (!s->rails)
                    return spf_nomem(s);
            }
            k = &s->rails[s->n_rails++];
            k->index = index;
        }
        k->piece = s->piece; /* this packet, copied, describes it there */
        if (k->kept && k->len >= f.len) { /* in place */
            if (f.len)
                memcpy(s->rails_arena.p + k->off, f.data, f.len);
            k->len = f.len;
            continue;
        }
        if (spf_charge(s, NULL, f.len)) {
            k->kept = 0; /* not repeated (counted) */
            continue;
        }
        k->kept = 1;
        k->off = s->rails_arena.len;
        k->len = f.len;
        if (buf_put(&s->rails_arena, f.data, f.len))
            return spf_nomem(s);
    }
    return 0;
}
