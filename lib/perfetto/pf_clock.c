/*
 * Perfetto clocks: ClockSnapshot bookkeeping and conversion to the trace
 * clock (see pf_clock.h for the API).
 *
 * What the reference says (perfetto_reference.txt, ClockSnapshot): clock ids
 * 1..63 are builtin, 64..127 are scoped to the sequence that wrote the
 * snapshot, a clock may count in units of unit_multiplier_ns, and an
 * incremental clock's packet timestamps are deltas from the previous packet
 * on that clock and sequence, the first one after a snapshot relative to the
 * snapshot's value. The trace clock is primary_trace_clock, else BOOTTIME.
 *
 * Where it is silent we do what trace_processor's clock tracker does
 * (v58), except where noted:
 *  - A snapshot links every pair of clocks it names. A value converts along
 *    the shortest chain of such links (breadth-first, at most
 *    PF_CLOCK_MAX_HOPS hops, as trace_processor); in each hop the snapshot
 *    used is the latest one whose source-clock value is at or before the
 *    value, the earliest one when the value precedes them all. Ties between
 *    equally short chains go to the link recorded first.
 *  - trace_processor keeps one series per set of clocks a snapshot names
 *    (its "snapshot hash"); we keep one series per pair of clocks, so a
 *    snapshot of {A,B,C} and one of {A,B} both serve A<->B. With the same
 *    snapshots the result differs only when trace_processor would pick an
 *    older series.
 *  - A value on the trace clock itself is returned unchanged (no unit
 *    multiplier), as trace_processor does.
 *  - unit_multiplier_ns 0 means 1. A snapshot is ignored whole (counted as
 *    bad) when it is not valid protobuf, names a clock twice, names a
 *    sequence-scoped clock on sequence 0, declares a non-sequence-scoped
 *    clock incremental, gives a clock another unit or incremental flag than
 *    an earlier snapshot did, has a timestamp * unit out of int64 ns, or
 *    names more than PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT clocks.
 *    trace_processor rejects the same ones (it keeps the clocks read before
 *    the offending one; we keep none).
 *  - primary_trace_clock changes the trace clock only while no timestamp
 *    has been converted yet (trace_processor logs an error and keeps the old
 *    clock); a sequence-scoped id there is ignored.
 *  - A clock whose values go backwards from one snapshot to the next
 *    (within one pair's series) is non-monotonic. trace_processor refuses to
 *    convert from it; we convert from it with the latest snapshot in file
 *    order, which is what a writer that resets its clock means. It may still
 *    be a target, as in trace_processor.
 *  - When no chain exists the conversion fails (PF_CLOCK_NO_PATH) and the
 *    caller keeps the raw value; trace_processor drops such packets.
 *  - Overflow: a value * unit or a result outside int64 ns is
 *    PF_CLOCK_OVERFLOW (trace_processor wraps). Intermediate values are
 *    exact (__int128), so only the final result must fit.
 *
 * Memory: domains, pairs and snapshots per pair are capped (pf_clock.h).
 * Past a cap the oldest is dropped: the snapshot at the head of a pair's
 * ring, the pair or the domain snapshotted least recently (never one of the
 * snapshot being added, never the trace clock). Nothing is buffered while
 * waiting for a path.
 *
 * Speed: pf_clocks_to_trace runs for every timestamp. A direct-mapped cache
 * keyed by (sequence, clock) holds the domain, its unit, the path, and the
 * range of source values over which every hop picks the same snapshot, with
 * the offset to add: the common case is a multiply (skipped for unit 1), two
 * compares and an add. Any new snapshot or trace-clock change bumps a
 * generation number that invalidates the whole cache.
 */
#include "perfetto/pf_clock.h"

#include <string.h>

#include "perfetto/pf_wire.h"

#if !defined(__SIZEOF_INT128__)
#error "tread needs a compiler with __int128 (gcc or clang on a 64-bit target)"
#endif
__extension__ typedef __int128 pf_i128;

#define PF_NONE UINT32_MAX
#define PF_RING_MIN 4

_Static_assert((PF_CLOCK_MAX_SNAPSHOTS_PER_DOMAIN & (PF_CLOCK_MAX_SNAPSHOTS_PER_DOMAIN - 1)) == 0 &&
                   PF_CLOCK_MAX_SNAPSHOTS_PER_DOMAIN >= PF_RING_MIN,
               "the snapshot ring grows by doubling up to its cap");
_Static_assert((PF_CLOCK_CACHE_SIZE & (PF_CLOCK_CACHE_SIZE - 1)) == 0,
               "the cache is indexed by a mask");
_Static_assert(PF_CLOCK_MAX_PAIRS >= PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT *
                                         (PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT - 1) / 2,
               "one snapshot's pairs must fit");
_Static_assert(PF_CLOCK_MAX_DOMAINS > PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT,
               "one snapshot's domains must fit with the trace clock's");

typedef struct pf_snap {
    int64_t t[2]; /* ns on the pair's d[0], d[1] */
} pf_snap;

typedef struct pf_pair {
    uint32_t d[2];      /* domains; d[0] == PF_NONE when the slot is free */
    uint32_t head, n, cap;
    pf_snap *ring;      /* file order from head; wraps only once cap is the
                           maximum, so growing it never reorders */
    uint64_t serial;    /* last snapshot that named both */
    uint8_t nonmono[2]; /* d[i]'s values went backwards in this series */
    uint32_t next_free;
} pf_pair;

typedef struct pf_domain {
    uint64_t key;       /* seq << 32 | clock id (seq 0 unless 64..127) */
    int64_t unit;       /* ns per unit, >= 1 */
    int64_t running;    /* incremental: the current value, in units */
    uint64_t serial;    /* last snapshot that named it */
    uint32_t *links;    /* pairs */
    uint32_t nlinks, caplinks;
    uint8_t incremental, used;
    uint32_t next_free;
} pf_domain;

typedef struct pf_cache_entry {
    uint64_t key, gen;  /* valid when gen == the current generation */
    uint32_t dom;       /* PF_NONE: no snapshot named this clock */
    uint8_t incremental;
    int8_t path;        /* 0 not searched yet, 1 found, -1 none */
    uint8_t nhops, range_ok;
    int64_t unit;
    int64_t lo, hi, off; /* range_ok: source ns in [lo, hi] -> ns + off */
    uint32_t hop_pair[PF_CLOCK_MAX_HOPS];
    uint8_t hop_col[PF_CLOCK_MAX_HOPS]; /* the source column of each hop */
} pf_cache_entry;

struct pf_clocks {
    pf_clocks_head head;  /* first: pf_clocks_generation reads it inline */
    tread_alloc a;
    pf_domain *dom;
    uint32_t dom_cap, dom_top, ndom, dom_free; /* slots, high water, live */
    uint32_t *hash;     /* open addressing: domain index or PF_NONE */
    uint32_t hash_cap;
    pf_pair *pair;
    uint32_t pair_cap, pair_top, npair, pair_free;
    /* breadth-first search scratch, dom_cap long */
    uint32_t *bfs_stamp, *bfs_prev, *bfs_queue;
    uint8_t *bfs_depth;
    uint32_t stamp;
    uint32_t trace_clock;
    int converted;      /* a timestamp was converted: the trace clock is set */
    uint64_t serial, bad, nopath, overflows;
    pf_cache_entry cache[PF_CLOCK_CACHE_SIZE];
};

static inline int pf_seq_scoped(uint32_t id)
{
    return id >= PF_CLOCK_FIRST_SEQ_SCOPED && id <= PF_CLOCK_LAST_SEQ_SCOPED;
}

static inline uint64_t pf_clock_key(uint32_t seq, uint32_t id)
{
    return pf_seq_scoped(id) ? ((uint64_t)seq << 32) | id : id;
}

static inline uint32_t pf_key_hash(uint64_t key)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32);
}

static inline pf_snap *pf_ring_at(const pf_pair *p, uint32_t i)
{
    return &p->ring[(p->head + i) & (p->cap - 1)];
}

/* ------------------------------------------------------------------------ */
/* Domains                                                                  */

static uint32_t pf_dom_find(const pf_clocks *c, uint64_t key)
{
    if (!c->hash_cap)
        return PF_NONE;
    uint32_t mask = c->hash_cap - 1;
    for (uint32_t h = pf_key_hash(key) & mask;; h = (h + 1) & mask) {
        uint32_t i = c->hash[h];
        if (i == PF_NONE || c->dom[i].key == key)
            return i;
    }
}

static void pf_hash_put(pf_clocks *c, uint32_t idx)
{
    uint32_t mask = c->hash_cap - 1;
    uint32_t h = pf_key_hash(c->dom[idx].key) & mask;
    while (c->hash[h] != PF_NONE)
        h = (h + 1) & mask;
    c->hash[h] = idx;
}

/* Rebuilds the hash at cap slots (a power of two, > live domains). */
static int pf_hash_rebuild(pf_clocks *c, uint32_t cap)
{
    uint32_t *h = tread_malloc(&c->a, (size_t)cap * sizeof *h);
    if (!h)
        return PF_CLOCK_NOMEM;
    tread_free(&c->a, c->hash);
    c->hash = h;
    c->hash_cap = cap;
    for (uint32_t i = 0; i < cap; i++)
        h[i] = PF_NONE;
    for (uint32_t i = 0; i < c->dom_top; i++)
        if (c->dom[i].used)
            pf_hash_put(c, i);
    return PF_CLOCK_OK;
}

static int pf_link_add(pf_clocks *c, pf_domain *d, uint32_t pair)
{
    if (d->nlinks == d->caplinks) {
        uint32_t cap = d->caplinks ? d->caplinks * 2 : 4;
        uint32_t *l = tread_realloc(&c->a, d->links, (size_t)cap * sizeof *l);
        if (!l)
            return PF_CLOCK_NOMEM;
        d->links = l;
        d->caplinks = cap;
    }
    d->links[d->nlinks++] = pair;
    return PF_CLOCK_OK;
}

static void pf_link_remove(pf_domain *d, uint32_t pair)
{
    for (uint32_t i = 0; i < d->nlinks; i++)
        if (d->links[i] == pair) {
            d->links[i] = d->links[--d->nlinks];
            return;
        }
}

static void pf_pair_remove(pf_clocks *c, uint32_t idx)
{
    pf_pair *p = &c->pair[idx];
    pf_link_remove(&c->dom[p->d[0]], idx);
    pf_link_remove(&c->dom[p->d[1]], idx);
    tread_free(&c->a, p->ring);
    memset(p, 0, sizeof *p);
    p->d[0] = p->d[1] = PF_NONE;
    p->next_free = c->pair_free;
    c->pair_free = idx;
    c->npair--;
}

static void pf_dom_remove(pf_clocks *c, uint32_t idx)
{
    pf_domain *d = &c->dom[idx];
    while (d->nlinks)
        pf_pair_remove(c, d->links[d->nlinks - 1]);
    tread_free(&c->a, d->links);
    memset(d, 0, sizeof *d);
    d->next_free = c->dom_free;
    c->dom_free = idx;
    c->ndom--;
    /* deletion from linear probing: put the others back in place (rare:
     * only when the domain cap is reached) */
    for (uint32_t i = 0; i < c->hash_cap; i++)
        c->hash[i] = PF_NONE;
    for (uint32_t i = 0; i < c->dom_top; i++)
        if (c->dom[i].used)
            pf_hash_put(c, i);
}

static int pf_dom_grow(pf_clocks *c)
{
    uint32_t cap = c->dom_cap ? c->dom_cap * 2 : 16;
    if (cap > PF_CLOCK_MAX_DOMAINS)
        cap = PF_CLOCK_MAX_DOMAINS;
    pf_domain *d = tread_realloc(&c->a, c->dom, (size_t)cap * sizeof *d);
    if (!d)
        return PF_CLOCK_NOMEM;
    c->dom = d;
    uint32_t *s = tread_realloc(&c->a, c->bfs_stamp, (size_t)cap * sizeof *s);
    if (!s)
        return PF_CLOCK_NOMEM;
    c->bfs_stamp = s;
    memset(s + c->dom_cap, 0, (size_t)(cap - c->dom_cap) * sizeof *s);
    uint32_t *pv = tread_realloc(&c->a, c->bfs_prev, (size_t)cap * sizeof *pv);
    if (!pv)
        return PF_CLOCK_NOMEM;
    c->bfs_prev = pv;
    uint32_t *q = tread_realloc(&c->a, c->bfs_queue, (size_t)cap * sizeof *q);
    if (!q)
        return PF_CLOCK_NOMEM;
    c->bfs_queue = q;
    uint8_t *dp = tread_realloc(&c->a, c->bfs_depth, cap);
    if (!dp)
        return PF_CLOCK_NOMEM;
    c->bfs_depth = dp;
    c->dom_cap = cap;
    return PF_CLOCK_OK;
}

/* The domain snapshotted least recently, other than those of the snapshot
 * being added (serial) and the trace clock's. */
static uint32_t pf_dom_oldest(const pf_clocks *c, uint64_t serial)
{
    uint32_t best = PF_NONE;
    for (uint32_t i = 0; i < c->dom_top; i++) {
        const pf_domain *d = &c->dom[i];
        if (!d->used || d->serial == serial || d->key == c->trace_clock)
            continue;
        if (best == PF_NONE || d->serial < c->dom[best].serial)
            best = i;
    }
    return best;
}

static int pf_dom_create(pf_clocks *c, uint64_t key, int64_t unit, int incremental,
                         uint64_t serial, uint32_t *out)
{
    if (c->ndom >= PF_CLOCK_MAX_DOMAINS) {
        uint32_t victim = pf_dom_oldest(c, serial);
        if (victim == PF_NONE)
            return PF_CLOCK_NOMEM; /* excluded by the static asserts */
        pf_dom_remove(c, victim);
    }
    if ((c->ndom + 1) * 2 > c->hash_cap) {
        uint32_t cap = c->hash_cap ? c->hash_cap * 2 : 32;
        if (pf_hash_rebuild(c, cap) != PF_CLOCK_OK)
            return PF_CLOCK_NOMEM;
    }
    uint32_t idx;
    if (c->dom_free != PF_NONE) {
        idx = c->dom_free;
        c->dom_free = c->dom[idx].next_free;
    } else {
        if (c->dom_top == c->dom_cap && pf_dom_grow(c) != PF_CLOCK_OK)
            return PF_CLOCK_NOMEM;
        idx = c->dom_top++;
    }
    pf_domain *d = &c->dom[idx];
    memset(d, 0, sizeof *d);
    d->key = key;
    d->unit = unit;
    d->incremental = (uint8_t)(incremental != 0);
    d->serial = serial;
    d->used = 1;
    c->ndom++;
    pf_hash_put(c, idx);
    *out = idx;
    return PF_CLOCK_OK;
}

/* ------------------------------------------------------------------------ */
/* Pairs                                                                    */

static uint32_t pf_pair_find(const pf_clocks *c, uint32_t da, uint32_t db)
{
    const pf_domain *d = &c->dom[da];
    if (c->dom[db].nlinks < d->nlinks)
        d = &c->dom[db];
    for (uint32_t i = 0; i < d->nlinks; i++) {
        const pf_pair *p = &c->pair[d->links[i]];
        if ((p->d[0] == da && p->d[1] == db) || (p->d[0] == db && p->d[1] == da))
            return d->links[i];
    }
    return PF_NONE;
}

static int pf_pair_create(pf_clocks *c, uint32_t da, uint32_t db, uint64_t serial, uint32_t *out)
{
    if (c->npair >= PF_CLOCK_MAX_PAIRS) {
        uint32_t victim = PF_NONE;
        for (uint32_t i = 0; i < c->pair_top; i++) {
            const pf_pair *p = &c->pair[i];
            if (p->d[0] == PF_NONE || p->serial == serial)
                continue;
            if (victim == PF_NONE || p->serial < c->pair[victim].serial)
                victim = i;
        }
        if (victim == PF_NONE)
            return PF_CLOCK_NOMEM; /* excluded by the static asserts */
        pf_pair_remove(c, victim);
    }
    uint32_t idx;
    if (c->pair_free != PF_NONE) {
        idx = c->pair_free;
        c->pair_free = c->pair[idx].next_free;
    } else {
        if (c->pair_top == c->pair_cap) {
            uint32_t cap = c->pair_cap ? c->pair_cap * 2 : 16;
            if (cap > PF_CLOCK_MAX_PAIRS)
                cap = PF_CLOCK_MAX_PAIRS;
            pf_pair *p = tread_realloc(&c->a, c->pair, (size_t)cap * sizeof *p);
            if (!p)
                return PF_CLOCK_NOMEM;
            c->pair = p;
            c->pair_cap = cap;
        }
        idx = c->pair_top++;
    }
    pf_pair *p = &c->pair[idx];
    memset(p, 0, sizeof *p);
    p->d[0] = da;
    p->d[1] = db;
    p->serial = serial;
    c->npair++;
    if (pf_link_add(c, &c->dom[da], idx) != PF_CLOCK_OK) {
        p->d[1] = da; /* remove unlinks both ends; db has no link yet */
        pf_pair_remove(c, idx);
        return PF_CLOCK_NOMEM;
    }
    if (pf_link_add(c, &c->dom[db], idx) != PF_CLOCK_OK) {
        pf_pair_remove(c, idx);
        return PF_CLOCK_NOMEM;
    }
    *out = idx;
    return PF_CLOCK_OK;
}

static int pf_pair_append(pf_clocks *c, pf_pair *p, int64_t t0, int64_t t1)
{
    if (p->n == p->cap && p->cap < PF_CLOCK_MAX_SNAPSHOTS_PER_DOMAIN) {
        uint32_t cap = p->cap ? p->cap * 2 : PF_RING_MIN;
        pf_snap *r = tread_realloc(&c->a, p->ring, (size_t)cap * sizeof *r);
        if (!r)
            return PF_CLOCK_NOMEM;
        p->ring = r;
        p->cap = cap;
    }
    if (p->n) {
        const pf_snap *last = pf_ring_at(p, p->n - 1);
        if (t0 < last->t[0])
            p->nonmono[0] = 1;
        if (t1 < last->t[1])
            p->nonmono[1] = 1;
    }
    pf_snap *s;
    if (p->n == p->cap) { /* full at the cap: drop the oldest */
        s = &p->ring[p->head];
        p->head = (p->head + 1) & (p->cap - 1);
    } else {
        s = pf_ring_at(p, p->n);
        p->n++;
    }
    s->t[0] = t0;
    s->t[1] = t1;
    return PF_CLOCK_OK;
}

/* ------------------------------------------------------------------------ */
/* Create, free, counters                                                   */

pf_clocks *pf_clocks_create(const tread_alloc *a)
{
    pf_clocks *c = tread_malloc(a, sizeof *c);
    if (!c)
        return NULL;
    memset(c, 0, sizeof *c);
    c->a = *a;
    c->dom_free = PF_NONE;
    c->pair_free = PF_NONE;
    c->trace_clock = PF_CLOCK_BOOTTIME;
    c->head.gen = 1; /* zeroed cache entries (and memos) are stale */
    return c;
}

void pf_clocks_free(pf_clocks *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; i < c->dom_top; i++)
        tread_free(&c->a, c->dom[i].links);
    for (uint32_t i = 0; i < c->pair_top; i++)
        tread_free(&c->a, c->pair[i].ring);
    tread_free(&c->a, c->dom);
    tread_free(&c->a, c->pair);
    tread_free(&c->a, c->hash);
    tread_free(&c->a, c->bfs_stamp);
    tread_free(&c->a, c->bfs_prev);
    tread_free(&c->a, c->bfs_queue);
    tread_free(&c->a, c->bfs_depth);
    tread_alloc a = c->a;
    tread_free(&a, c);
}

uint32_t pf_clocks_trace_clock(const pf_clocks *c) { return c->trace_clock; }

int pf_clocks_fixed(const pf_clocks *c) { return c->converted; }

void pf_clocks_fix(pf_clocks *c) { c->converted = 1; }
uint64_t pf_clocks_snapshots(const pf_clocks *c) { return c->serial; }
uint64_t pf_clocks_bad_snapshots(const pf_clocks *c) { return c->bad; }
uint64_t pf_clocks_no_path(const pf_clocks *c) { return c->nopath; }
uint64_t pf_clocks_overflows(const pf_clocks *c) { return c->overflows; }

/* ------------------------------------------------------------------------ */
/* Snapshots                                                                */

typedef struct pf_snap_clock {
    uint32_t id;
    int64_t ts;   /* in units, as written (uint64 taken as int64) */
    int64_t unit;
    int incremental;
    uint64_t key;
} pf_snap_clock;

static int pf_parse_clock(const pf_field *f, pf_snap_clock *out)
{
    pf_reader r;
    pf_field g;
    int rc;
    uint64_t unit = 0;
    memset(out, 0, sizeof *out);
    pf_reader_init(&r, f->data, f->len);
    while ((rc = pf_next(&r, &g)) == PF_OK) {
        if (g.num < 1 || g.num > 4)
            continue;
        if (g.wire != PF_WIRE_VARINT)
            return PF_CLOCK_BAD;
        switch (g.num) {
        case 1:
            if (g.v > UINT32_MAX)
                return PF_CLOCK_BAD;
            out->id = (uint32_t)g.v;
            break;
        case 2:
            out->ts = (int64_t)g.v;
            break;
        case 3:
            out->incremental = g.v != 0;
            break;
        default:
            unit = g.v;
            break;
        }
    }
    if (rc != PF_END || unit > INT64_MAX)
        return PF_CLOCK_BAD;
    out->unit = unit ? (int64_t)unit : 1;
    return PF_CLOCK_OK;
}

int pf_clocks_add_snapshot(pf_clocks *c, uint32_t seq, const unsigned char *msg, size_t len)
{
    pf_snap_clock clk[PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT];
    int64_t ns[PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT];
    uint32_t di[PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT];
    size_t k = 0;
    uint64_t primary = 0;
    pf_reader r;
    pf_field f;
    int rc;

    pf_reader_init(&r, msg, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.num == 1) {
            if (f.wire != PF_WIRE_LEN || k == PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT ||
                pf_parse_clock(&f, &clk[k]) != PF_CLOCK_OK)
                goto bad;
            k++;
        } else if (f.num == 2) {
            if (f.wire != PF_WIRE_VARINT)
                goto bad;
            primary = f.v;
        }
    }
    if (rc != PF_END)
        goto bad;

    for (size_t i = 0; i < k; i++) {
        pf_snap_clock *s = &clk[i];
        int scoped = pf_seq_scoped(s->id);
        if ((scoped && seq == 0) || (s->incremental && !scoped))
            goto bad;
        if (__builtin_mul_overflow(s->ts, s->unit, &ns[i]))
            goto bad;
        s->key = pf_clock_key(seq, s->id);
        for (size_t j = 0; j < i; j++)
            if (clk[j].key == s->key)
                goto bad;
        uint32_t d = pf_dom_find(c, s->key);
        if (d != PF_NONE &&
            (c->dom[d].unit != s->unit || c->dom[d].incremental != (uint8_t)s->incremental))
            goto bad;
    }

    if (primary && primary <= UINT32_MAX && !pf_seq_scoped((uint32_t)primary) && !c->converted &&
        primary != c->trace_clock)
        c->trace_clock = (uint32_t)primary;

    uint64_t serial = ++c->serial;
    c->head.gen++; /* whatever happens below, cached paths (and memos) are stale */
    for (size_t i = 0; i < k; i++) {
        uint32_t d = pf_dom_find(c, clk[i].key);
        if (d == PF_NONE &&
            pf_dom_create(c, clk[i].key, clk[i].unit, clk[i].incremental, serial, &d) != PF_CLOCK_OK)
            return PF_CLOCK_NOMEM;
        c->dom[d].serial = serial;
        c->dom[d].running = clk[i].ts;
        di[i] = d;
    }
    for (size_t i = 0; i < k; i++)
        for (size_t j = i + 1; j < k; j++) {
            uint32_t p = pf_pair_find(c, di[i], di[j]);
            if (p == PF_NONE && pf_pair_create(c, di[i], di[j], serial, &p) != PF_CLOCK_OK)
                return PF_CLOCK_NOMEM;
            pf_pair *pp = &c->pair[p];
            pp->serial = serial;
            int sw = pp->d[0] != di[i];
            rc = pf_pair_append(c, pp, sw ? ns[j] : ns[i], sw ? ns[i] : ns[j]);
            if (rc != PF_CLOCK_OK) {
                if (!pp->n)
                    pf_pair_remove(c, p);
                return rc;
            }
        }
    return PF_CLOCK_OK;
bad:
    c->bad++;
    return PF_CLOCK_BAD;
}

/* ------------------------------------------------------------------------ */
/* Conversion                                                               */

/* The cache entry for key, (re)filled for the current generation. */
static pf_cache_entry *pf_cache_fill(pf_clocks *c, pf_cache_entry *e, uint64_t key)
{
    e->key = key;
    e->gen = c->head.gen;
    e->dom = pf_dom_find(c, key);
    e->incremental = e->dom != PF_NONE && c->dom[e->dom].incremental;
    e->unit = e->dom != PF_NONE ? c->dom[e->dom].unit : 1;
    e->path = 0;
    e->range_ok = 0;
    e->nhops = 0;
    return e;
}

/* The cache entry of key (a hit inlined: every timestamp comes here). */
static inline PF_ALWAYS_INLINE pf_cache_entry *pf_cache_get(pf_clocks *c, uint64_t key)
{
    pf_cache_entry *e = &c->cache[pf_key_hash(key) & (PF_CLOCK_CACHE_SIZE - 1)];
    if (PF_LIKELY(e->key == key && e->gen == c->head.gen))
        return e;
    return pf_cache_fill(c, e, key);
}

int pf_clocks_is_incremental(const pf_clocks *c, uint32_t seq, uint32_t clock_id)
{
    if (!pf_seq_scoped(clock_id))
        return 0;
    uint32_t d = pf_dom_find(c, pf_clock_key(seq, clock_id));
    return d != PF_NONE && c->dom[d].incremental;
}

int pf_clocks_absolute_checked(pf_clocks *c, uint32_t seq, uint32_t clock_id, int64_t value,
                               int64_t *out)
{
    *out = value;
    if (!pf_seq_scoped(clock_id)) /* only those may be incremental */
        return PF_CLOCK_OK;
    pf_cache_entry *e = pf_cache_get(c, pf_clock_key(seq, clock_id));
    if (!e->incremental)
        return PF_CLOCK_OK;
    pf_domain *d = &c->dom[e->dom];
    if (__builtin_add_overflow(d->running, value, out)) {
        *out = value > 0 ? INT64_MAX : INT64_MIN;
        return PF_CLOCK_OVERFLOW;
    }
    d->running = *out;
    return PF_CLOCK_OK;
}

int64_t pf_clocks_absolute(pf_clocks *c, uint32_t seq, uint32_t clock_id, int64_t value)
{
    int64_t v;
    if (pf_clocks_absolute_checked(c, seq, clock_id, value, &v) == PF_CLOCK_OVERFLOW) {
        pf_domain *d = &c->dom[pf_dom_find(c, pf_clock_key(seq, clock_id))];
        d->running = v; /* saturated */
    }
    return v;
}

/* Shortest chain of pairs from domain src to domain dst (breadth-first, at
 * most PF_CLOCK_MAX_HOPS), stored in e. Returns 1 if found. */
static int pf_find_path(pf_clocks *c, uint32_t src, uint32_t dst, pf_cache_entry *e)
{
    if (++c->stamp == 0) { /* wrapped: old marks could alias */
        memset(c->bfs_stamp, 0, (size_t)c->dom_cap * sizeof *c->bfs_stamp);
        c->stamp = 1;
    }
    uint32_t qh = 0, qt = 0;
    c->bfs_stamp[src] = c->stamp;
    c->bfs_depth[src] = 0;
    c->bfs_queue[qt++] = src;
    int found = src == dst;
    while (qh < qt && !found) {
        uint32_t u = c->bfs_queue[qh++];
        if (c->bfs_depth[u] >= PF_CLOCK_MAX_HOPS)
            continue;
        const pf_domain *du = &c->dom[u];
        for (uint32_t i = 0; i < du->nlinks; i++) {
            const pf_pair *p = &c->pair[du->links[i]];
            uint32_t v = p->d[0] == u ? p->d[1] : p->d[0];
            if (c->bfs_stamp[v] == c->stamp)
                continue;
            c->bfs_stamp[v] = c->stamp;
            c->bfs_depth[v] = (uint8_t)(c->bfs_depth[u] + 1);
            c->bfs_prev[v] = du->links[i];
            c->bfs_queue[qt++] = v;
            if (v == dst) {
                found = 1;
                break;
            }
        }
    }
    if (!found)
        return 0;
    uint32_t n = c->bfs_depth[dst];
    e->nhops = (uint8_t)n;
    for (uint32_t v = dst; n > 0; n--) {
        const pf_pair *p = &c->pair[c->bfs_prev[v]];
        uint32_t u = p->d[0] == v ? p->d[1] : p->d[0];
        e->hop_pair[n - 1] = c->bfs_prev[v];
        e->hop_col[n - 1] = (uint8_t)(p->d[0] == u ? 0 : 1);
        v = u;
    }
    return 1;
}

/* Converts ns (source ns) along e's path; fills e's range and offset. */
static int pf_walk(pf_clocks *c, pf_cache_entry *e, int64_t ns, int64_t *out)
{
    pf_i128 w = ns, cum = 0;
    pf_i128 lo = INT64_MIN, hi = INT64_MAX; /* source ns keeping every choice */
    for (uint32_t h = 0; h < e->nhops; h++) {
        const pf_pair *p = &c->pair[e->hop_pair[h]];
        int col = e->hop_col[h];
        uint32_t i;
        if (p->nonmono[col]) {
            i = p->n - 1; /* latest in file order, whatever w is */
        } else {
            /* the last snapshot at or before w, else the first */
            uint32_t a = 0, b = p->n; /* entries [0, a) are <= w */
            while (a < b) {
                uint32_t m = a + (b - a) / 2;
                if ((pf_i128)pf_ring_at(p, m)->t[col] <= w)
                    a = m + 1;
                else
                    b = m;
            }
            i = a ? a - 1 : 0;
            /* w_h = ns + cum picks i while it is in [t_i, t_{i+1} - 1] */
            if (i > 0 && (pf_i128)pf_ring_at(p, i)->t[col] - cum > lo)
                lo = (pf_i128)pf_ring_at(p, i)->t[col] - cum;
            if (i + 1 < p->n && (pf_i128)pf_ring_at(p, i + 1)->t[col] - 1 - cum < hi)
                hi = (pf_i128)pf_ring_at(p, i + 1)->t[col] - 1 - cum;
        }
        const pf_snap *s = pf_ring_at(p, i);
        pf_i128 d = (pf_i128)s->t[1 - col] - s->t[col];
        w += d;
        cum += d;
    }
    e->range_ok = 0;
    if (cum >= INT64_MIN && cum <= INT64_MAX && lo <= hi) {
        e->lo = (int64_t)lo;
        e->hi = (int64_t)hi;
        e->off = (int64_t)cum;
        e->range_ok = 1;
    }
    if (w < INT64_MIN || w > INT64_MAX) {
        c->overflows++;
        return PF_CLOCK_OVERFLOW;
    }
    *out = (int64_t)w;
    return PF_CLOCK_OK;
}

static int pf_to_trace_slow(pf_clocks *c, uint64_t key, int64_t value, int64_t *out)
{
    c->converted = 1;
    pf_cache_entry *e = pf_cache_get(c, key);
    if (e->dom == PF_NONE) {
        c->nopath++;
        return PF_CLOCK_NO_PATH;
    }
    if (e->path == 0) {
        uint32_t t = pf_dom_find(c, c->trace_clock);
        e->path = (int8_t)(t != PF_NONE && pf_find_path(c, e->dom, t, e) ? 1 : -1);
    }
    if (e->path < 0) {
        c->nopath++;
        return PF_CLOCK_NO_PATH;
    }
    int64_t ns;
    if (__builtin_mul_overflow(value, e->unit, &ns)) {
        c->overflows++;
        return PF_CLOCK_OVERFLOW;
    }
    return pf_walk(c, e, ns, out);
}

int pf_clocks_to_trace(pf_clocks *c, uint32_t seq, uint32_t clock_id, int64_t value,
                       int64_t *out)
{
    if (clock_id == c->trace_clock) {
        c->converted = 1;
        *out = value;
        return PF_CLOCK_OK;
    }
    uint64_t key = pf_clock_key(seq, clock_id);
    const pf_cache_entry *e = &c->cache[pf_key_hash(key) & (PF_CLOCK_CACHE_SIZE - 1)];
    if (e->key == key && e->gen == c->head.gen && e->range_ok) {
        int64_t ns = value;
        if ((e->unit == 1 || !__builtin_mul_overflow(value, e->unit, &ns)) && ns >= e->lo &&
            ns <= e->hi && !__builtin_add_overflow(ns, e->off, out))
            return PF_CLOCK_OK;
    }
    return pf_to_trace_slow(c, key, value, out);
}

int pf_clocks_convert(pf_clocks *c, uint32_t seq, uint32_t clock_id, int64_t value,
                      int64_t *abs, int64_t *out)
{
    if (!pf_seq_scoped(clock_id)) { /* never incremental */
        *abs = value;
        return pf_clocks_to_trace(c, seq, clock_id, value, out);
    }
    /* one cache lookup for both steps */
    uint64_t key = pf_clock_key(seq, clock_id);
    pf_cache_entry *e = pf_cache_get(c, key);
    int64_t v = value;
    if (e->incremental) {
        pf_domain *d = &c->dom[e->dom];
        if (__builtin_add_overflow(d->running, value, &v))
            v = value > 0 ? INT64_MAX : INT64_MIN; /* saturated */
        d->running = v;
    }
    *abs = v;
    if (clock_id == c->trace_clock) {
        c->converted = 1;
        *out = v;
        return PF_CLOCK_OK;
    }
    if (e->range_ok) {
        int64_t ns = v;
        if ((e->unit == 1 || !__builtin_mul_overflow(v, e->unit, &ns)) && ns >= e->lo &&
            ns <= e->hi && !__builtin_add_overflow(ns, e->off, out))
            return PF_CLOCK_OK;
    }
    return pf_to_trace_slow(c, key, v, out);
}

void pf_clocks_memo_fill(pf_clocks *c, uint32_t seq, uint32_t clock_id, pf_clock_memo *m)
{
    m->gen = 0;
    uint64_t key = pf_clock_key(seq, clock_id);
    const pf_cache_entry *e = &c->cache[pf_key_hash(key) & (PF_CLOCK_CACHE_SIZE - 1)];
    /* (pf_clocks_convert just filled the entry, unless the clock is not
     * sequence-scoped and is the trace clock, which needs none) */
    int valid = e->key == key && e->gen == c->head.gen;
    m->running = valid && e->incremental ? &c->dom[e->dom].running : NULL;
    if (!valid && pf_seq_scoped(clock_id))
        return;
    if (clock_id == c->trace_clock) {
        m->to_trace = 1;
    } else if (valid && e->range_ok) {
        m->to_trace = 0;
        m->unit = e->unit;
        m->lo = e->lo;
        m->hi = e->hi;
        m->off = e->off;
    } else {
        return;
    }
    m->clock_id = clock_id;
    m->gen = c->head.gen;
}
