/* split_perfetto on packet streams built here: interning across pieces,
 * clears mid-piece, clock snapshots (global and an incremental sequence
 * clock; the trace clock a primary_trace_clock sets or not), compressed packets, SEQ_NEEDS_INCREMENTAL_STATE after data loss,
 * track parents (also a track described before its parent), incremental
 * counters (main and extra values), legacy delta-encoded times,
 * trace-level packets, oversize packets,
 * and the same pieces whatever the chunking of the input. Each trace is
 * split at several sizes and checked by split_pf_verify (every packet in
 * one piece, in order, byte for byte; the same events, every field; added
 * packets only restate metadata; sizes); the properties particular to a
 * case are checked on the pieces' bytes. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pb_build.h"
#include "split_pf_check.h"
#include "testlib.h"

/* TracePacket fields */
enum {
    P_CLOCK = 6, P_TS = 8, P_SEQ = 10, P_TE = 11, P_INTERNED = 12, P_FLAGS = 13,
    P_TRACE_CONFIG = 33, P_LOSS = 42, P_COMPRESSED = 50, P_CLOCK_ID = 58, P_DEFAULTS = 59,
    P_TRACK = 60
};
#define CLEARED 1
#define NEEDS 2

static void packet_begin(pb *t, size_t *m, uint32_t seq, uint64_t ts, uint32_t flags)
{
    *m = pb_begin(t, 1);
    if (seq)
        pb_varint(t, P_SEQ, seq);
    if (ts)
        pb_varint(t, P_TS, ts);
    if (flags)
        pb_varint(t, P_FLAGS, flags);
}

/* InternedData entry {iid, name} in field ns. */
static void intern(pb *t, uint32_t ns, uint64_t iid, const char *name)
{
    size_t e = pb_begin(t, ns);
    pb_varint(t, 1, iid);
    pb_string(t, 2, name);
    pb_end(t, e);
}

/* A TrackEvent packet: type, name iid, category iid, track, a debug
 * annotation (name iid 1) when dbg. */
static void track_event(pb *t, uint32_t seq, uint64_t ts, int type, uint64_t name_iid,
                        uint64_t track, int dbg)
{
    size_t m, te;
    packet_begin(t, &m, seq, ts, NEEDS);
    te = pb_begin(t, P_TE);
    pb_varint(t, 9, (uint64_t)type);
    pb_varint(t, 10, name_iid);
    pb_varint(t, 3, 1);
    if (track)
        pb_varint(t, 11, track);
    if (dbg) {
        size_t d = pb_begin(t, 4);
        pb_varint(t, 1, 1);
        pb_varint(t, 4, (uint64_t)dbg);
        pb_end(t, d);
    }
    pb_end(t, te);
    pb_end(t, m);
}

static void thread_track(pb *t, uint32_t seq, uint64_t uuid, int pid, int tid, const char *name)
{
    size_t m, d, th;
    packet_begin(t, &m, seq, 0, 0);
    d = pb_begin(t, P_TRACK);
    pb_varint(t, 1, uuid);
    th = pb_begin(t, 4);
    pb_varint(t, 1, (uint64_t)pid);
    pb_varint(t, 2, (uint64_t)tid);
    pb_string(t, 5, name);
    pb_end(t, th);
    pb_end(t, d);
    pb_end(t, m);
}

static void process_track(pb *t, uint32_t seq, uint64_t uuid, int pid, const char *name)
{
    size_t m, d, pr;
    packet_begin(t, &m, seq, 0, 0);
    d = pb_begin(t, P_TRACK);
    pb_varint(t, 1, uuid);
    pr = pb_begin(t, 3);
    pb_varint(t, 1, (uint64_t)pid);
    pb_string(t, 6, name);
    pb_end(t, pr);
    pb_end(t, d);
    pb_end(t, m);
}

/* An async (or counter, when counter >= 0: is_incremental = counter)
 * track under parent. */
static void child_track(pb *t, uint32_t seq, uint64_t uuid, uint64_t parent, const char *name,
                        int counter)
{
    size_t m, d;
    packet_begin(t, &m, seq, 0, 0);
    d = pb_begin(t, P_TRACK);
    pb_varint(t, 1, uuid);
    pb_varint(t, 5, parent);
    pb_string(t, 2, name);
    if (counter >= 0) {
        size_t c = pb_begin(t, 8);
        if (counter)
            pb_varint(t, 5, 1);
        pb_end(t, c);
    }
    pb_end(t, d);
    pb_end(t, m);
}

/* A clear on seq with names 1..n ("<prefix>-<i>" padded to pad bytes),
 * category 1, debug annotation name 1, and defaults (clock, track). */
static void clear_seq(pb *t, uint32_t seq, uint64_t ts, const char *prefix, int n, int pad,
                      uint32_t clock, uint64_t track)
{
    size_t m, in, df;
    packet_begin(t, &m, seq, ts, CLEARED);
    if (clock || track) {
        df = pb_begin(t, P_DEFAULTS);
        if (clock)
            pb_varint(t, 58, clock);
        if (track) {
            size_t te = pb_begin(t, 11);
            pb_varint(t, 11, track);
            pb_end(t, te);
        }
        pb_end(t, df);
    }
    in = pb_begin(t, P_INTERNED);
    for (int i = 1; i <= n; i++) {
        char name[512];
        snprintf(name, sizeof name, "%s-%03d-%0*d", prefix, i, pad, 0);
        intern(t, 2, (uint64_t)i, name);
    }
    intern(t, 1, 1, "cat");
    intern(t, 3, 1, "arg");
    pb_end(t, in);
    pb_end(t, m);
}

static void trace_config(pb *t)
{
    size_t m, c;
    packet_begin(t, &m, 1, 0, 0);
    c = pb_begin(t, P_TRACE_CONFIG);
    pb_varint(t, 4, 123456); /* duration_ms */
    pb_string(t, 99, "a-trace-config-marker");
    pb_end(t, c);
    pb_end(t, m);
}

/* Splits t at each size, checks, and returns the pieces of the last. */
static void split_check(const char *what, const pb *t, const uint64_t *sizes, size_t n,
                        pieces_mem *last, split_perfetto_stats *st)
{
    split_perfetto_stats own;
    if (!st)
        st = &own;
    for (size_t i = 0; i < n; i++) {
        pieces_mem pm;
        char err[4096];
        int rc = split_pf_run(t->data, t->len, sizes[i], 0, &pm, st, err, sizeof err);
        CHECK(rc == 0);
        if (rc == 0 && split_pf_verify(t->data, t->len, &pm, sizes[i], st, err, sizeof err)) {
            fprintf(stderr, "%s at %llu: %s\n", what, (unsigned long long)sizes[i], err);
            CHECK(0);
        }
        /* the same pieces when the input comes a byte at a time */
        pieces_mem pc;
        CHECK(split_pf_run(t->data, t->len, sizes[i], 1, &pc, NULL, err, sizeof err) == 0);
        CHECK(pc.n == pm.n);
        for (size_t k = 0; k < pc.n && k < pm.n; k++)
            CHECK(pc.piece[k].len == pm.piece[k].len &&
                  memcmp(pc.piece[k].data, pm.piece[k].data, pm.piece[k].len) == 0);
        pieces_mem_free(&pc);
        if (i + 1 == n && last)
            *last = pm;
        else
            pieces_mem_free(&pm);
    }
}

static int piece_has(const mem_piece *p, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= p->len; i++)
        if (memcmp(p->data + i, s, n) == 0)
            return 1;
    return 0;
}

static const uint64_t sizes[] = {400, 900, 2500, 1u << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])
static const uint64_t down[] = {1u << 20, 2500, 900, 400}; /* the last is kept */

/* Interning: a piece repeats only the entries its packets refer to, so
 * what it adds does not grow with what was interned before. */
static void test_interning(void)
{
    pb t;
    pb_init(&t);
    trace_config(&t);
    thread_track(&t, 1, 10, 5, 6, "main");
    clear_seq(&t, 1, 1000, "name", 60, 100, 0, 10); /* 60 names of ~110 bytes */
    for (int i = 0; i < 60; i++) /* every name used once */
        track_event(&t, 1, 2000 + (uint64_t)i, 3, (uint64_t)i + 1, 0, i + 1);
    for (int i = 0; i < 300; i++) /* then only name 7 */
        track_event(&t, 1, 5000 + (uint64_t)i, 3, 7, 0, i);
    pieces_mem pm;
    split_perfetto_stats st;
    split_check("interning", &t, sizes, NSIZES - 1, &pm, &st);
    CHECK(pm.n > 10);
    /* the pieces after the last that uses name 60 hold name 7 and no
     * other name */
    size_t late = 0;
    for (size_t k = pm.n; k-- > 0 && !piece_has(&pm.piece[k], "name-060-");) {
        late++;
        CHECK(piece_has(&pm.piece[k], "name-007-"));
        CHECK(!piece_has(&pm.piece[k], "name-008-"));
        CHECK(!piece_has(&pm.piece[k], "name-060-"));
        CHECK(pm.piece[k].len <= 2500);
    }
    CHECK(late > 3);
    /* every piece has the trace config */
    for (size_t k = 0; k < pm.n; k++)
        CHECK(piece_has(&pm.piece[k], "a-trace-config-marker"));
    pieces_mem_free(&pm);
    pb_free(&t);
}

/* Clears mid-piece, re-interning other names under the same iids. */
static void test_clears(void)
{
    pb t;
    pb_init(&t);
    thread_track(&t, 2, 20, 5, 7, "worker");
    for (int round = 0; round < 12; round++) {
        char prefix[16];
        snprintf(prefix, sizeof prefix, "r%d", round);
        clear_seq(&t, 2, 1000 + (uint64_t)round * 100, prefix, 3, 8, 0, 20);
        for (int i = 0; i < 7; i++)
            track_event(&t, 2, 1001 + (uint64_t)round * 100 + (uint64_t)i, i % 2 ? 2 : 1,
                        (uint64_t)(i % 3) + 1, 0, 0);
    }
    split_check("clears", &t, sizes, NSIZES, NULL, NULL);
    pb_free(&t);
}

/* Clocks: a global snapshot moving MONOTONIC (3) against BOOTTIME (6),
 * changed mid-trace; a sequence's incremental clock 64 whose packets are
 * deltas; packets on clock 3. */
static void snapshot(pb *t, uint32_t seq, int n, const uint32_t *ids, const uint64_t *ts,
                     const int *incr)
{
    size_t m, cs;
    packet_begin(t, &m, seq, 0, 0);
    cs = pb_begin(t, P_CLOCK);
    for (int i = 0; i < n; i++) {
        size_t c = pb_begin(t, 1);
        pb_varint(t, 1, ids[i]);
        pb_varint(t, 2, ts[i]);
        if (incr && incr[i])
            pb_varint(t, 3, 1);
        pb_end(t, c);
    }
    pb_end(t, cs);
    pb_end(t, m);
}

/* An instant TrackEvent on sequence 3 timed on clock 3 (MONOTONIC). */
static void clock3_instant(pb *t, uint64_t ts)
{
    size_t m, te;
    packet_begin(t, &m, 3, ts, NEEDS);
    pb_varint(t, P_CLOCK_ID, 3);
    te = pb_begin(t, P_TE);
    pb_varint(t, 9, 3);
    pb_varint(t, 10, 1);
    pb_end(t, te);
    pb_end(t, m);
}

static void test_clocks(void)
{
    pb t;
    pb_init(&t);
    uint32_t g[2] = {6, 3};
    uint64_t gt[2] = {1000000, 400000};
    snapshot(&t, 1, 2, g, gt, NULL);
    thread_track(&t, 3, 30, 5, 8, "clocked");
    /* sequence 3: clock 64 incremental, from monotonic 500000 */
    uint32_t s64[2] = {64, 3};
    uint64_t s64t[2] = {500000, 500000};
    int inc[2] = {1, 0};
    snapshot(&t, 3, 2, s64, s64t, inc);
    clear_seq(&t, 3, 0, "c", 4, 4, 64, 30);
    for (int i = 0; i < 40; i++) {
        if (i == 20) { /* the offset changes */
            uint64_t gt2[2] = {2000000, 1300000};
            snapshot(&t, 1, 2, g, gt2, NULL);
        }
        track_event(&t, 3, 10 + (uint64_t)i, 3, (uint64_t)(i % 4) + 1, 0, 0); /* deltas */
        clock3_instant(&t, 900000 + (uint64_t)i * 1000);
    }
    pieces_mem pm;
    split_check("clocks", &t, down, 4, &pm, NULL);
    CHECK(pm.n > 3);
    pieces_mem_free(&pm);
    pb_free(&t);
}

/* The decoder keeps a series per pair of clocks: a snapshot stays in force
 * until one names all its clocks, however many snapshots of other clocks
 * come between (fuzz_split_perfetto: four pushed the one linking clock 3
 * out of a ring of the latest four). Past SPLIT_PF_CLOCK_SNAPSHOTS sets
 * in force the oldest goes, counted. */
static void snapshot_sets_trace(pb *t, int others)
{
    uint32_t g[2] = {6, 3};
    uint64_t gt[2] = {1000000, 400000};
    snapshot(t, 1, 2, g, gt, NULL);
    for (int i = 0; i < others; i++) {
        uint32_t o[2] = {6, 7 + (uint32_t)i};
        uint64_t ot[2] = {2000000 + (uint64_t)i, 9000 + (uint64_t)i};
        snapshot(t, 1, 2, o, ot, NULL);
    }
    uint32_t sup[3] = {1, 6, 7}; /* supersedes {6, 7}: not counted */
    uint64_t supt[3] = {5, 3000000, 9100};
    snapshot(t, 1, 3, sup, supt, NULL);
    thread_track(t, 3, 30, 5, 8, "clocked");
    clear_seq(t, 3, 0, "c", 4, 4, 6, 30);
    for (int i = 0; i < 40; i++) {
        clock3_instant(t, 900000 + (uint64_t)i * 1000);
    }
}

static void test_snapshot_sets(void)
{
    pb t;
    pb_init(&t);
    snapshot_sets_trace(&t, SPLIT_PF_CLOCK_SNAPSHOTS - 1);
    split_perfetto_stats st;
    pieces_mem pm;
    split_check("snapshot sets", &t, down, 4, &pm, &st);
    CHECK(pm.n > 3);
    CHECK_EQ_INT((int)st.snapshots_not_kept, 0);
    pieces_mem_free(&pm);
    pb_free(&t);

    /* one set more than are kept: the first snapshot goes, counted, and
     * the pieces keep clock 3's times raw (the checker must see it) */
    pb_init(&t);
    snapshot_sets_trace(&t, SPLIT_PF_CLOCK_SNAPSHOTS);
    char err[4096];
    CHECK(split_pf_run(t.data, t.len, 900, 0, &pm, &st, err, sizeof err) == 0);
    CHECK_EQ_INT((int)st.snapshots_not_kept, 1);
    CHECK(split_pf_verify(t.data, t.len, &pm, 900, &st, err, sizeof err) != 0);
    pieces_mem_free(&pm);
    pb_free(&t);
}

/* An entry a packet interns itself may refer to one an earlier packet
 * interned: Chrome interns each mojo method's UnsymbolizedSourceLocation
 * with the event that first names it, and the mapping (with its build id)
 * once. A piece restates what the packet's own entries refer to, or the
 * event's args lose the build id (tread cat showed it; split_contract). */
static void test_own_entry_refs(void)
{
    pb t;
    pb_init(&t);
    thread_track(&t, 1, 10, 5, 6, "main");
    clear_seq(&t, 1, 1000, "n", 3, 4, 0, 10);
    size_t m, in, e;
    packet_begin(&t, &m, 1, 0, NEEDS); /* the mapping and its build id */
    in = pb_begin(&t, P_INTERNED);
    intern(&t, 16, 1, "BUILD-ID-0123456789");
    e = pb_begin(&t, 19);
    pb_varint(&t, 1, 1);
    pb_varint(&t, 2, 1);
    pb_end(&t, e);
    pb_end(&t, in);
    pb_end(&t, m);
    for (int i = 1; i <= 30; i++) {
        size_t te, mojo;
        packet_begin(&t, &m, 1, 2000 + (uint64_t)i, NEEDS);
        in = pb_begin(&t, P_INTERNED); /* its own method's location */
        e = pb_begin(&t, 28);
        pb_varint(&t, 1, (uint64_t)i);
        pb_varint(&t, 2, 1);
        pb_varint(&t, 3, 0x1000 + (uint64_t)i);
        pb_end(&t, e);
        pb_end(&t, in);
        te = pb_begin(&t, P_TE);
        pb_varint(&t, 9, 3);
        pb_varint(&t, 10, 1);
        pb_varint(&t, 11, 10);
        mojo = pb_begin(&t, 38); /* chrome_mojo_event_info */
        pb_varint(&t, 4, (uint64_t)i);
        pb_end(&t, mojo);
        pb_end(&t, te);
        pb_end(&t, m);
    }
    pieces_mem pm;
    split_check("own entry refs", &t, down, 4, &pm, NULL);
    CHECK(pm.n > 3);
    for (size_t k = 1; k < pm.n; k++)
        CHECK(piece_has(&pm.piece[k], "BUILD-ID-0123456789"));
    pieces_mem_free(&pm);
    pb_free(&t);
}

/* Snapshots the decoder ignores (TREAD_PF_STATE_CLOCK_BAD) are not kept
 * as the global ones in force: more of them than the ring holds would
 * push out the snapshot the whole converts with, and later pieces would
 * keep clock 3's times raw (fuzz_split_perfetto). */
static void test_bad_snapshots(void)
{
    pb t;
    pb_init(&t);
    uint32_t g[2] = {6, 3}, twice[2] = {6, 6};
    uint64_t gt[2] = {1000000, 400000};
    int incr[2] = {0, 1};
    snapshot(&t, 1, 2, g, gt, NULL);
    for (int i = 0; i < SPLIT_PF_CLOCK_SNAPSHOTS + 2; i++) {
        uint64_t bt[2] = {2000000 + (uint64_t)i, 7000000 + (uint64_t)i};
        if (i % 2)
            snapshot(&t, 1, 2, twice, bt, NULL); /* BOOTTIME twice */
        else
            snapshot(&t, 1, 2, g, bt, incr); /* a global clock incremental */
    }
    thread_track(&t, 3, 30, 5, 8, "clocked");
    clear_seq(&t, 3, 0, "c", 4, 4, 6, 30);
    for (int i = 0; i < 40; i++) {
        clock3_instant(&t, 900000 + (uint64_t)i * 1000);
    }
    pieces_mem pm;
    split_check("bad snapshots", &t, down, 4, &pm, NULL);
    CHECK(pm.n > 3);
    pieces_mem_free(&pm);
    pb_free(&t);
}

/* The trace clock: the whole file's decoder takes primary_trace_clock
 * only until a timestamp is converted, so a snapshot's primary ignored in
 * the whole must not be taken in a piece (a restated snapshot, or one
 * copied first in a piece: fuzz_split_perfetto), and one taken in the
 * whole must be in force in a piece whose header no longer restates that
 * snapshot (the ring keeps the latest SPLIT_PF_CLOCK_SNAPSHOTS). */
static void primary_snapshot(pb *t, uint32_t seq, uint32_t primary, uint64_t boot,
                             uint64_t mono)
{
    size_t m, cs, c;
    packet_begin(t, &m, seq, 0, 0);
    cs = pb_begin(t, P_CLOCK);
    c = pb_begin(t, 1);
    pb_varint(t, 1, 6);
    pb_varint(t, 2, boot);
    pb_end(t, c);
    c = pb_begin(t, 1);
    pb_varint(t, 1, 3);
    pb_varint(t, 2, mono);
    pb_end(t, c);
    if (primary)
        pb_varint(t, 2, primary);
    pb_end(t, cs);
    pb_end(t, m);
}

static void test_trace_clock(void)
{
    static const uint64_t small[] = {1200, 600, 300}; /* the last is kept */
    pb t;
    /* fixed on BOOTTIME by the first event; then primary 3, ignored */
    pb_init(&t);
    thread_track(&t, 1, 10, 5, 6, "main");
    clear_seq(&t, 1, 1000, "n", 3, 4, 6, 10); /* (BOOTTIME by default) */
    for (int round = 0; round < 6; round++) {
        primary_snapshot(&t, 2, 3, 5000000 + (uint64_t)round, 1000 + (uint64_t)round);
        for (int i = 0; i < 12; i++)
            track_event(&t, 1, 2000 + (uint64_t)(round * 100 + i), 3, 1, 0, 0);
    }
    split_check("ignored primary", &t, small, 3, NULL, NULL);
    pb_free(&t);

    /* primary 3 taken before any timestamp, then more snapshots than the
     * ring keeps, none naming a primary */
    pb_init(&t);
    primary_snapshot(&t, 2, 3, 5000000, 1000);
    for (int i = 0; i < 6; i++)
        primary_snapshot(&t, 2, 0, 5000000 + (uint64_t)i * 10, 1000 + (uint64_t)i * 10);
    thread_track(&t, 1, 10, 5, 6, "main");
    clear_seq(&t, 1, 4000000, "n", 3, 4, 6, 10);
    for (int i = 0; i < 80; i++)
        track_event(&t, 1, 4000100 + (uint64_t)i, 3, 1, 0, 0);
    pieces_mem pm;
    split_check("taken primary", &t, small, 3, &pm, NULL);
    CHECK(pm.n > 3);
    pieces_mem_free(&pm);
    pb_free(&t);

    /* no timestamp yet when pieces begin: a sequence's snapshot naming
     * primary 3, then a global one naming 6, restated in later pieces */
    pb_init(&t);
    {
        uint32_t s64[2] = {64, 3};
        uint64_t s64t[2] = {500000, 500000};
        int inc[2] = {1, 0};
        size_t m, cs;
        packet_begin(&t, &m, 3, 0, 0);
        cs = pb_begin(&t, P_CLOCK);
        for (int i = 0; i < 2; i++) {
            size_t c = pb_begin(&t, 1);
            pb_varint(&t, 1, s64[i]);
            pb_varint(&t, 2, s64t[i]);
            if (inc[i])
                pb_varint(&t, 3, 1);
            pb_end(&t, c);
        }
        pb_varint(&t, 2, 3);
        pb_end(&t, cs);
        pb_end(&t, m);
    }
    primary_snapshot(&t, 2, 6, 9000000, 1000);
    for (int i = 0; i < 12; i++) { /* pieces of descriptors, no timestamp */
        char name[32];
        snprintf(name, sizeof name, "thread-%02d-padding-padding", i);
        thread_track(&t, 4, 100 + (uint64_t)i, 5, 100 + i, name);
    }
    thread_track(&t, 3, 30, 5, 8, "clocked");
    clear_seq(&t, 3, 0, "c", 4, 4, 64, 30);
    for (int i = 0; i < 40; i++)
        track_event(&t, 3, 10 + (uint64_t)i, 3, (uint64_t)(i % 4) + 1, 0, 0);
    split_check("restated primary", &t, small, 3, NULL, NULL);
    pb_free(&t);
}

/* Compressed packets: their packets are copied as top-level packets. */
static void test_compressed(void)
{
    pb inner, t;
    pb_init(&inner);
    pb_init(&t);
    thread_track(&inner, 4, 40, 5, 9, "zipped");
    clear_seq(&inner, 4, 100, "z", 5, 30, 0, 40);
    for (int i = 0; i < 60; i++)
        track_event(&inner, 4, 200 + (uint64_t)i, 3, (uint64_t)(i % 5) + 1, 0, i);
    uLongf zl = compressBound(inner.len);
    unsigned char *z = malloc(zl);
    CHECK(z && compress2(z, &zl, inner.data, inner.len, 6) == Z_OK);
    size_t m;
    packet_begin(&t, &m, 1, 0, 0);
    pb_bytes(&t, P_COMPRESSED, z, zl);
    pb_end(&t, m);
    track_event(&t, 4, 999, 3, 2, 0, 0); /* after it, on the same sequence */
    pieces_mem pm;
    split_perfetto_stats st;
    split_check("compressed", &t, sizes, NSIZES, &pm, &st);
    CHECK_EQ_INT(st.packets, 63); /* the container is not a packet of its own */
    CHECK_EQ_INT(st.seq_added, 0); /* inner packets carry their sequence */
    /* the one piece is the expanded packets: no compressed field left */
    CHECK_EQ_INT(pm.n, 1);
    CHECK(pm.n && !piece_has(&pm.piece[0], "\x92\x03")); /* tag of field 50, wire 2 */
    CHECK(pm.n && piece_has(&pm.piece[0], "zipped"));
    pieces_mem_free(&pm);
    free(z);
    pb_free(&inner);
    pb_free(&t);
}

/* Data loss: after it the packets that need the incremental state are
 * dropped until the next clear, in the pieces too (a piece must not give
 * them back the state they lacked); the packets that do not need it still
 * use the sequence's defaults (here its clock), which data loss keeps. */
static void test_data_loss(void)
{
    pb t;
    pb_init(&t);
    uint32_t g[2] = {6, 3};
    uint64_t gt[2] = {1000000, 400000};
    snapshot(&t, 1, 2, g, gt, NULL);
    thread_track(&t, 5, 50, 5, 10, "lossy");
    clear_seq(&t, 5, 500000, "l", 3, 10, 3, 50);
    for (int i = 0; i < 90; i++) {
        if (i == 30) { /* loss: 30 packets dropped, then a clear */
            size_t m;
            packet_begin(&t, &m, 5, 500150, 0);
            pb_varint(&t, P_LOSS, 1);
            pb_end(&t, m);
        }
        if (i == 60)
            clear_seq(&t, 5, 500400, "l2", 3, 10, 3, 50);
        track_event(&t, 5, 500200 + (uint64_t)i, 3, (uint64_t)(i % 3) + 1, 0, 0);
        /* one that needs no state: a literal name, on the default clock */
        size_t m, te;
        packet_begin(&t, &m, 5, 500300 + (uint64_t)i, 0);
        te = pb_begin(&t, P_TE);
        pb_varint(&t, 9, 3);
        pb_string(&t, 23, "literal");
        pb_end(&t, te);
        pb_end(&t, m);
    }
    split_check("data loss", &t, sizes, NSIZES, NULL, NULL);
    pb_free(&t);
}

/* Track parents: a process, an async track under it, one under that;
 * events only on the deepest. */
static void test_parents(void)
{
    pb t;
    pb_init(&t);
    process_track(&t, 6, 61, 42, "proc");
    child_track(&t, 6, 62, 61, "async", -1);
    child_track(&t, 6, 64, 62, "nested", -1);
    clear_seq(&t, 6, 10, "p", 2, 10, 0, 0);
    for (int i = 0; i < 50; i++) {
        track_event(&t, 6, 100 + (uint64_t)i, 1, 1, 64, 0);
        track_event(&t, 6, 150 + (uint64_t)i, 2, 2, 64, 0);
    }
    pieces_mem pm;
    split_check("parents", &t, down, 4, &pm, NULL);
    CHECK(pm.n > 3);
    /* every piece has the nested track's ancestry */
    for (size_t k = 0; k < pm.n; k++)
        CHECK(piece_has(&pm.piece[k], "nested") && piece_has(&pm.piece[k], "async") &&
              piece_has(&pm.piece[k], "proc"));
    pieces_mem_free(&pm);
    pb_free(&t);
}

/* A counter track described before its parent process: the whole file's
 * decoder gives its events no pid, and so must every piece (the track is
 * described before its parent there too). */
static void test_parent_later(void)
{
    pb t;
    pb_init(&t);
    child_track(&t, 6, 63, 61, "early-counter", 0);
    process_track(&t, 6, 61, 42, "proc");
    clear_seq(&t, 6, 10, "p", 2, 10, 0, 0);
    for (int i = 0; i < 60; i++) {
        size_t m, te;
        packet_begin(&t, &m, 6, 300 + (uint64_t)i, NEEDS);
        te = pb_begin(&t, P_TE);
        pb_varint(&t, 9, 4);
        pb_varint(&t, 11, 63);
        pb_varint(&t, 30, 5 + (uint64_t)i);
        pb_end(&t, te);
        pb_end(&t, m);
    }
    pieces_mem pm;
    split_check("parent described later", &t, down, 4, &pm, NULL);
    CHECK(pm.n > 3);
    pieces_mem_free(&pm);
    pb_free(&t);
}

/* Incremental counters: the main value and extra values on incremental
 * tracks are deltas; a piece's first value on such a track carries the
 * running value. */
static void test_counters(void)
{
    pb t;
    pb_init(&t);
    process_track(&t, 7, 71, 43, "counting");
    child_track(&t, 7, 72, 71, "bytes", 1);
    child_track(&t, 7, 73, 71, "extra", 1);
    child_track(&t, 7, 74, 71, "absolute", 0);
    clear_seq(&t, 7, 10, "k", 1, 1, 0, 0);
    for (int i = 0; i < 80; i++) {
        size_t m, te;
        packet_begin(&t, &m, 7, 100 + (uint64_t)i, NEEDS);
        te = pb_begin(&t, P_TE);
        pb_varint(&t, 9, 4);
        pb_varint(&t, 11, 72);
        pb_varint(&t, 30, (uint64_t)(100 + i));
        pb_varint(&t, 31, 73);
        pb_varint(&t, 31, 74);
        pb_varint(&t, 12, (uint64_t)(7 + i));
        pb_varint(&t, 12, (uint64_t)(1000 + i));
        pb_end(&t, te);
        pb_end(&t, m);
        if (i == 40)
            clear_seq(&t, 7, 150, "k", 1, 1, 0, 0); /* values restart in both */
    }
    split_perfetto_stats st;
    split_check("counters", &t, sizes, NSIZES - 1, NULL, &st);
    CHECK(st.counters_rewritten > 0);
    pb_free(&t);
}

/* A legacy ThreadDescriptor on seq with delta-encoding references. */
static void thread_descriptor(pb *t, uint32_t seq, int pid, int tid, uint64_t ref_ts,
                              uint64_t ref_tt, uint64_t ref_ti)
{
    size_t m, d;
    packet_begin(t, &m, seq, 0, 0);
    d = pb_begin(t, 44);
    pb_varint(t, 1, (uint64_t)pid);
    pb_varint(t, 2, (uint64_t)tid);
    pb_varint(t, 6, ref_ts);
    pb_varint(t, 7, ref_tt);
    pb_varint(t, 8, ref_ti);
    pb_end(t, d);
    pb_end(t, m);
}

/* An empty ThreadDescriptor binds its sequence to thread 0 of process 0
 * (every field absent): each piece restates it (fuzz_split_perfetto,
 * fuzz/seeds/split_perfetto/regress_empty_thread_descriptor:
 * an empty one was kept as no thread). */
static void test_empty_thread(void)
{
    pb t;
    pb_init(&t);
    size_t m;
    packet_begin(&t, &m, 11, 0, 0);
    pb_bytes(&t, 44, "", 0);
    pb_end(&t, m);
    for (int i = 0; i < 60; i++) {
        size_t te;
        packet_begin(&t, &m, 11, 0, 0);
        te = pb_begin(&t, P_TE);
        pb_varint(&t, 9, 3);
        pb_string(&t, 23, "on-thread-zero");
        pb_varint(&t, 1, 10);
        pb_end(&t, te);
        pb_end(&t, m);
    }
    pieces_mem pm;
    split_check("empty thread", &t, sizes, 2, &pm, NULL);
    CHECK(pm.n > 2);
    pieces_mem_free(&pm);
    pb_free(&t);
}

/* V8 profile records (Chrome's legacy Profile / ProfileChunk TrackEvents,
 * lib/perfetto/pf_v8.c) in a piece after the one holding their profile's
 * first record: on a MONOTONIC trace clock (Chrome's) the split restates
 * the running time and every event is the whole's; on BOOTTIME it cannot,
 * and counts them (v8_records_split), their samples without the whole's
 * times; the checker takes those differences and no more than the split
 * counts (an undercount fails it). The sequence's thread (a
 * TrackDescriptor's) is restated in every piece. */
static void v8_record(pb *t, uint32_t seq, uint64_t ts, const char *name, const char *data)
{
    size_t m, te, lg, da;
    packet_begin(t, &m, seq, ts, NEEDS);
    te = pb_begin(t, P_TE);
    pb_string(t, 23, name);
    lg = pb_begin(t, 6);
    pb_varint(t, 2, 'P');
    pb_varint(t, 6, 1);
    pb_end(t, lg);
    da = pb_begin(t, 4);
    pb_string(t, 10, "data");
    pb_string(t, 9, data);
    pb_end(t, da);
    pb_end(t, te);
    pb_end(t, m);
}

static void v8_trace(pb *t, int monotonic)
{
    pb_init(t);
    uint32_t g[2] = {6, 3}; /* MONOTONIC 400000 == BOOTTIME 1000000 */
    uint64_t gt[2] = {1000000, 400000};
    if (monotonic) { /* the snapshot, with primary_trace_clock MONOTONIC */
        size_t m, cs;
        packet_begin(t, &m, 1, 0, 0);
        cs = pb_begin(t, P_CLOCK);
        for (int i = 0; i < 2; i++) {
            size_t c = pb_begin(t, 1);
            pb_varint(t, 1, g[i]);
            pb_varint(t, 2, gt[i]);
            pb_end(t, c);
        }
        pb_varint(t, 2, 3);
        pb_end(t, cs);
        pb_end(t, m);
    } else {
        snapshot(t, 1, 2, g, gt, NULL);
    }
    thread_track(t, 5, 50, 7, 9, "profiler");
    clear_seq(t, 5, 0, "v", 1, 1, 0, 0);
    v8_record(t, 5, 1000, "Profile", "{\"startTime\":500}");
    for (int i = 0; i < 30; i++) {
        char data[256];
        snprintf(data, sizeof data,
                 "{\"cpuProfile\":{\"nodes\":[{\"callFrame\":{\"functionName\":\"f%d\"},"
                 "\"id\":%d%s}],\"samples\":[%d,%d]},\"timeDeltas\":[7,11.5]}",
                 i, i + 1, i ? ",\"parent\":1" : "", i + 1, i + 1);
        v8_record(t, 5, 2000 + (uint64_t)i, "ProfileChunk", data);
    }
}

static void test_v8_profile(void)
{
    pb t;
    v8_trace(&t, 0);
    split_perfetto_stats st;
    split_check("v8 whole", &t, (const uint64_t[]){1u << 20}, 1, NULL, &st);
    CHECK_EQ_INT(st.v8_records_split, 0);
    pieces_mem pm;
    split_check("v8", &t, (const uint64_t[]){600}, 1, &pm, &st);
    CHECK(pm.n > 3);
    CHECK(st.v8_records_split > 10 && st.v8_records_split <= 30);
    /* every piece states the sequence's thread (its samples have pid 7) */
    for (size_t k = 0; k < pm.n; k++)
        CHECK(piece_has(&pm.piece[k], "profiler"));
    /* an undercount fails the checker */
    char err[4096];
    split_perfetto_stats under = st;
    under.v8_records_split = 1;
    CHECK(split_pf_verify(t.data, t.len, &pm, 600, &under, err, sizeof err) != 0);
    pieces_mem_free(&pm);
    pb_free(&t);

    /* the trace clock MONOTONIC: the running time restated, nothing lost
     * (the checker requires every event of the whole) */
    v8_trace(&t, 1);
    split_check("v8 monotonic", &t, (const uint64_t[]){600, 900}, 2, &pm, &st);
    CHECK(pm.n > 3);
    CHECK_EQ_INT(st.v8_records_split, 0);
    CHECK(st.v8_starts_restated >= pm.n - 1);
    pieces_mem_free(&pm);
    pb_free(&t);
}

/* Legacy TrackEvents whose timestamps, thread times and instruction counts
 * are deltas on the sequence's references (which no clear resets), on a
 * sequence with a ThreadDescriptor (restated with its first references,
 * not the running ones) and one without (the references start at 0), some
 * with an incremental counter value too, one with a group field, and
 * absolutes between: each piece's events have the whole's times (before
 * the fix a piece's first delta ran from the restated base: fuzz_split_perfetto,
 * fuzz/seeds/split_perfetto/regress_legacy_ts_delta). */
static void test_legacy_deltas(void)
{
    pb t;
    pb_init(&t);
    process_track(&t, 9, 91, 3, "legacy");
    child_track(&t, 9, 92, 91, "ctr", 1);
    clear_seq(&t, 9, 5, "l", 1, 1, 0, 0);
    thread_descriptor(&t, 9, 3, 4, 1000, 50, 7);
    for (int i = 0; i < 90; i++) {
        uint32_t seq = i % 3 == 2 ? 10 : 9;
        size_t m, te;
        packet_begin(&t, &m, seq, 0, i % 5 == 1 && seq == 9 ? NEEDS : 0);
        te = pb_begin(&t, P_TE);
        pb_varint(&t, 9, i % 5 == 1 && seq == 9 ? 4 : 3);
        pb_string(&t, 23, "legacy-event");
        if (i % 5 == 1 && seq == 9) {
            pb_varint(&t, 11, 92);
            pb_varint(&t, 30, (uint64_t)(3 + i));
        }
        if (i % 17 == 16) {
            pb_varint(&t, 16, 500000 + (uint64_t)i); /* absolutes */
            pb_varint(&t, 17, 9000 + (uint64_t)i);
            pb_varint(&t, 20, 77777);
        } else {
            pb_varint(&t, 1, 10 + (uint64_t)(i % 4));
            if (seq == 9) {
                pb_varint(&t, 2, 3);
                pb_varint(&t, 8, 100);
            }
        }
        if (i == 44) {
            pb_tag(&t, 99, 3); /* a group the decoder skips */
            pb_varint(&t, 1, 5);
            pb_tag(&t, 99, 4);
        }
        pb_end(&t, te);
        pb_end(&t, m);
        if (i == 50)
            thread_descriptor(&t, 9, 3, 4, 2000, 60, 70); /* new references */
        if (i == 60)
            clear_seq(&t, 9, 5, "l", 1, 1, 0, 0); /* references stay */
    }
    split_perfetto_stats st;
    split_check("legacy deltas", &t, sizes, NSIZES - 1, NULL, &st);
    CHECK(st.deltas_rewritten > 0);
    pb_free(&t);
}

/* StreamingProfilePacket deltas move the legacy timestamp too: a piece
 * whose decoder lacks the whole file's running value gets the first delta
 * of its first streaming packet moved (split_pf_legacy.c), and its CPU
 * samples, their frames and the TrackEvents after them read as in the
 * whole. */
static void test_streaming_profile(void)
{
    pb t;
    pb_init(&t);
    size_t m, in, e;
    packet_begin(&t, &m, 9, 0, CLEARED);
    in = pb_begin(&t, P_INTERNED);
    const char *fn[] = {"main", "work", "leaf"};
    for (int i = 0; i < 3; i++) {
        e = pb_begin(&t, 5); /* function_names */
        pb_varint(&t, 1, (uint64_t)i + 1);
        pb_string(&t, 2, fn[i]);
        pb_end(&t, e);
        e = pb_begin(&t, 6); /* frames */
        pb_varint(&t, 1, (uint64_t)i + 1);
        pb_varint(&t, 2, (uint64_t)i + 1);
        pb_varint(&t, 4, 0x10 * ((uint64_t)i + 1));
        pb_end(&t, e);
    }
    const uint64_t cs1[] = {1, 2, 3}, cs2[] = {1, 2};
    e = pb_begin(&t, 7);
    pb_varint(&t, 1, 1);
    pb_packed(&t, 2, cs1, 3);
    pb_end(&t, e);
    e = pb_begin(&t, 7);
    pb_varint(&t, 1, 2);
    pb_packed(&t, 2, cs2, 2);
    pb_end(&t, e);
    pb_end(&t, in);
    pb_end(&t, m);
    thread_descriptor(&t, 9, 3, 4, 1000, 50, 7);
    for (int i = 0; i < 60; i++) {
        packet_begin(&t, &m, 9, 0, NEEDS);
        if (i % 3 == 0 || i % 5 == 4 || i >= 45) {
            /* a legacy TrackEvent; with the streaming deltas after it in
             * the same packet when i % 5 == 4 or i >= 45 (the decoder applies the
             * TrackEvent's first: fuzz_split_perfetto,
             * regress_stream_after_track_event) */
            e = pb_begin(&t, 11);
            pb_varint(&t, 1, 7);
            pb_varint(&t, 9, 3);
            pb_string(&t, 23, "between-samples");
            pb_end(&t, e);
        }
        if (i % 3 != 0) {
            e = pb_begin(&t, 54); /* streaming_profile_packet */
            const uint64_t cs[] = {1, 2, 1}, dt[] = {10, (uint64_t)i, 3, 4};
            pb_packed(&t, 1, cs, 3);
            if (i % 2)
                pb_packed(&t, 2, dt, 4); /* one delta past the callstacks */
            else
                for (int k = 0; k < 3; k++)
                    pb_varint(&t, 2, dt[k]);
            if (i % 7 == 3)
                pb_raw(&t, "\x01\x0a", 2); /* a tail that does not decode (field 0),
                                             kept as it is (fuzz_split_perfetto) */
            pb_end(&t, e);
        }
        pb_end(&t, m);
        if (i == 40) {
            /* a ThreadDescriptor that does not decode: the decoder keeps
             * the thread before it, and so must the pieces
             * (fuzz_split_perfetto) */
            packet_begin(&t, &m, 9, 0, 0);
            e = pb_begin(&t, 44);
            pb_raw(&t, "\x08\x09\xe8\x07", 4);
            pb_end(&t, e);
            pb_end(&t, m);
        }
    }
    split_perfetto_stats st;
    split_check("streaming profile", &t, sizes, NSIZES - 1, NULL, &st);
    split_check("streaming profile", &t, sizes, 1, NULL, &st); /* the smallest's */
    CHECK(st.deltas_rewritten > 0);
    pb_free(&t);
}

/* An ftrace bundle on cpu: three compact_sched switches (tids base+1..3)
 * from ts, or (full) the same as full sched_switch events naming their
 * previous thread. */
static void sched_bundle(pb *t, uint64_t cpu, uint64_t ts, int base, int full)
{
    size_t m, b;
    packet_begin(t, &m, 4, 0, 0);
    b = pb_begin(t, 1); /* ftrace_events */
    pb_varint(t, 1, cpu);
    if (full) {
        for (int i = 1; i <= 3; i++) {
            size_t e = pb_begin(t, 2), w;
            pb_varint(t, 1, ts + 10 * (uint64_t)i);
            pb_varint(t, 2, (uint64_t)(base + i - 1));
            w = pb_begin(t, 4); /* sched_switch */
            pb_string(t, 1, "prev");
            pb_varint(t, 2, (uint64_t)(base + i - 1));
            pb_varint(t, 4, 1);
            pb_string(t, 5, "next");
            pb_varint(t, 6, (uint64_t)(base + i));
            pb_varint(t, 7, 120);
            pb_end(t, w);
            pb_end(t, e);
        }
    } else {
        size_t c = pb_begin(t, 4); /* compact_sched */
        uint64_t tsd[3] = {ts + 10, 10, 10}, state[3] = {1, 0, 1};
        uint64_t pid[3] = {(uint64_t)base + 1, (uint64_t)base + 2, (uint64_t)base + 3};
        uint64_t prio[3] = {120, 110, 100}, comm[3] = {0, 1, 0};
        pb_packed(t, 1, tsd, 3);
        pb_packed(t, 2, state, 3);
        pb_packed(t, 3, pid, 3);
        pb_packed(t, 4, prio, 3);
        pb_string(t, 5, "worker");
        pb_string(t, 5, "render");
        pb_packed(t, 6, comm, 3);
        pb_end(t, c);
    }
    pb_end(t, b);
    pb_end(t, m);
}

/* compact_sched switches take their previous thread from the cpu's last
 * switch: the first compact switch on a cpu in a piece lacks it there, a
 * loss the split counts exactly (split_pf_verify); one after a full
 * sched_switch in the piece does not (fuzz_split_perfetto,
 * fuzz/seeds/split_perfetto/regress_compact_sched_prev). */
static void test_compact_sched(void)
{
    pb t;
    pb_init(&t);
    for (int i = 0; i < 60; i++)
        sched_bundle(&t, (uint64_t)(i % 3), 1000 + 100 * (uint64_t)i, 10 * i, i % 7 == 3);
    split_perfetto_stats st;
    split_check("compact sched", &t, sizes, NSIZES, NULL, &st);
    CHECK(st.sched_prevs_lost == 0); /* one piece: none */
    static const uint64_t small[] = {400};
    split_check("compact sched", &t, small, 1, NULL, &st);
    CHECK(st.sched_prevs_lost > 0);
    pb_free(&t);
}

/* Global clock snapshots repeated with the same bytes: each piece's header
 * restates them, packets the checker must not take for the input's (it
 * did, and found pieces over the limit with two input packets, or none:
 * fuzz/seeds/split_perfetto/regress_header_snapshot_twin). */
static void test_snapshot_twins(void)
{
    pb t;
    pb_init(&t);
    uint32_t g[2] = {6, 3};
    uint64_t v[3][2] = {{1000000, 400000}, {2000000, 1400000}, {3000000, 2400000}};
    for (int i = 0; i < 24; i++) { /* a a b a a b ..., then a b c a b c ... */
        /* with short lengths (pb_begin pads them), so that two snapshots
         * and one more fit in a small piece */
        pb cs, pk;
        pb_init(&cs);
        pb_init(&pk);
        for (int k = 0; k < 2; k++) {
            pb c;
            pb_init(&c);
            pb_varint(&c, 1, g[k]);
            pb_varint(&c, 2, v[i < 12 ? i % 3 == 2 : i % 3][k]);
            pb_msg(&cs, 1, &c);
            pb_free(&c);
        }
        pb_varint(&pk, P_SEQ, 1);
        pb_msg(&pk, P_CLOCK, &cs);
        pb_msg(&t, 1, &pk);
        pb_free(&cs);
        pb_free(&pk);
    }
    static const uint64_t tiny[] = {64, 100, 200};
    split_check("snapshot twins", &t, tiny, 3, NULL, NULL);
    pb_free(&t);
}

/* An interned entry that does not decode (or has no iid) is one the
 * decoder skips: the entry of that iid before it stands, and is the one a
 * later piece gets (the split stored the broken one over it:
 * fuzz/seeds/split_perfetto/regress_broken_entry_same_iid). */
static void test_broken_entry(void)
{
    pb t;
    pb_init(&t);
    thread_track(&t, 6, 60, 5, 9, "broken");
    clear_seq(&t, 6, 10, "b", 2, 1, 0, 60);
    size_t m, in;
    packet_begin(&t, &m, 6, 20, NEEDS);
    in = pb_begin(&t, P_INTERNED);
    pb_bytes(&t, 3, "\x08\x01\x00", 3);           /* iid 1, then a field 0 */
    pb_bytes(&t, 2, "\x12\x03" "abc", 5);         /* no iid */
    pb_bytes(&t, 2, "\x08\x02\x12\x03" "xyz\x1a", 8); /* iid 2, cut short */
    pb_end(&t, in);
    pb_end(&t, m);
    for (int i = 0; i < 40; i++)
        track_event(&t, 6, 100 + (uint64_t)i, 3, 1 + (uint64_t)(i % 2), 0, 1);
    split_check("broken entries", &t, sizes, NSIZES - 1, NULL, NULL);
    pb_free(&t);
}

/* A packet larger than the pieces: a piece of its own, declared oversize. */
static void test_oversize(void)
{
    pb t;
    pb_init(&t);
    thread_track(&t, 8, 80, 5, 11, "big");
    clear_seq(&t, 8, 10, "big", 1, 500, 0, 80);
    for (int i = 0; i < 5; i++)
        track_event(&t, 8, 100 + (uint64_t)i, 3, 1, 0, 0);
    static const uint64_t tiny[] = {64, 200};
    pieces_mem pm;
    split_check("oversize", &t, tiny, 2, &pm, NULL);
    size_t over = 0;
    for (size_t k = 0; k < pm.n; k++)
        over += pm.piece[k].oversize != 0;
    CHECK(over == pm.n - 1); /* all but the first: one packet with its state */
    CHECK_EQ_INT(pm.n, 7);
    pieces_mem_free(&pm);
    pb_free(&t);
}

/* TYPE_STATE: a named state ends the state open on its track (an unnamed
 * slice_end first). A piece's decoder has none open at its start, so the
 * first state event of a track in a piece loses that end when the state
 * began in an earlier piece: a loss the split reports, exactly as many as
 * the pieces lack (split_pf_verify compares them), none in one piece. */
static void test_state_ends(void)
{
    pb t;
    pb_init(&t);
    process_track(&t, 7, 71, 7, "proc");
    child_track(&t, 7, 72, 71, "states", -1);
    child_track(&t, 7, 73, 71, "other", -1);
    clear_seq(&t, 7, 10, "st", 3, 4, 0, 0);
    for (int i = 0; i < 60; i++)
        track_event(&t, 7, 100 + (uint64_t)i, 5, 1 + (uint64_t)(i % 3), i % 4 ? 72 : 73, 0);
    pieces_mem pm;
    split_perfetto_stats st;
    static const uint64_t one[] = {1u << 20};
    split_check("state ends", &t, one, 1, &pm, &st);
    CHECK(pm.n == 1 && st.state_ends_lost == 0);
    pieces_mem_free(&pm);
    size_t before = split_pf_state_ends;
    split_check("state ends", &t, down, 4, &pm, &st);
    CHECK(pm.n > 3);
    /* both tracks lose their first end in every piece but the first */
    CHECK(st.state_ends_lost >= pm.n - 1 && st.state_ends_lost <= 2 * (pm.n - 1));
    CHECK(split_pf_state_ends > before);
    pieces_mem_free(&pm);
    pb_free(&t);
}

/* PowerRails: the decoder keeps each rail's name for the whole parse and
 * energy data names only the index, so a piece with energy data of a rail
 * described in an earlier piece gets that rail's last descriptor first
 * (renamed once here), and nothing else: a rail the piece does not use is
 * not repeated. A second descriptor in a group-bearing message, and energy
 * data in a packet whose power_rails does not decode (not read). */
static void rails_packet(pb *t, uint64_t ts, int described, const int *idx, int n,
                         const char *rename)
{
    size_t m, r, e;
    packet_begin(t, &m, 0, ts, 0);
    r = pb_begin(t, 40);
    for (int i = 0; described && i < 3; i++) {
        e = pb_begin(t, 1);
        pb_varint(t, 1, (uint64_t)i);
        pb_string(t, 2, i == 1 && rename ? rename : i == 0 ? "rail_zero" : i == 1 ? "rail_one"
                                                                        : "rail_two");
        pb_end(t, e);
    }
    for (int i = 0; i < n; i++) {
        e = pb_begin(t, 2);
        pb_varint(t, 1, (uint64_t)idx[i]);
        pb_varint(t, 2, 7 + (uint64_t)i);
        pb_varint(t, 3, 1000 + ts);
        pb_end(t, e);
    }
    pb_end(t, r);
    pb_end(t, m);
}

static void test_rails(void)
{
    pb t;
    pb_init(&t);
    trace_config(&t);
    rails_packet(&t, 100, 1, NULL, 0, NULL);
    static const int one[] = {1}, zero_one[] = {0, 1};
    for (int i = 0; i < 30; i++)
        rails_packet(&t, 200 + (uint64_t)i, 0, i % 3 ? one : zero_one, i % 3 ? 1 : 2, NULL);
    rails_packet(&t, 300, 1, NULL, 0, "rail_one_renamed");
    for (int i = 0; i < 30; i++)
        rails_packet(&t, 400 + (uint64_t)i, 0, one, 1, NULL);
    static const uint64_t small[] = {150, 400, 900, 1u << 20, 200};
    pieces_mem pm;
    split_perfetto_stats st;
    split_check("rails", &t, small, 5, &pm, &st);
    CHECK(pm.n > 10);
    size_t two = 0, renamed = 0, old = 0;
    for (size_t k = 1; k < pm.n; k++) {
        two += piece_has(&pm.piece[k], "rail_two");
        renamed += piece_has(&pm.piece[k], "rail_one_renamed");
        old += piece_has(&pm.piece[k], "rail_one") && !piece_has(&pm.piece[k], "rail_one_renamed");
    }
    CHECK(two <= 2); /* no energy data names it: only in the input's two packets */
    CHECK(renamed > 3 && old > 3); /* each piece the name in force */
    pieces_mem_free(&pm);
    pb_free(&t);
}

/* The checker fails where it must: a piece that lost a packet, and pieces
 * whose interned name was changed (mutations of correct pieces). */
static void test_checker(void)
{
    pb t;
    pb_init(&t);
    thread_track(&t, 9, 90, 5, 12, "checked");
    clear_seq(&t, 9, 10, "chk", 2, 4, 0, 90);
    for (int i = 0; i < 40; i++)
        track_event(&t, 9, 100 + (uint64_t)i, 3, (uint64_t)(i % 2) + 1, 0, 0);
    pieces_mem pm;
    char err[4096];
    CHECK(split_pf_run(t.data, t.len, 400, 0, &pm, NULL, err, sizeof err) == 0);
    CHECK(split_pf_verify(t.data, t.len, &pm, 400, NULL, err, sizeof err) == 0);
    CHECK(pm.n > 2);
    /* a piece whose interned name says otherwise */
    for (size_t k = 1; k < pm.n; k++)
        for (size_t i = 0; i + 4 <= pm.piece[k].len; i++)
            if (memcmp(pm.piece[k].data + i, "chk-", 4) == 0)
                pm.piece[k].data[i] = 'X';
    CHECK(split_pf_verify(t.data, t.len, &pm, 400, NULL, err, sizeof err) != 0);
    /* a piece left out */
    free(pm.piece[1].data);
    memmove(&pm.piece[1], &pm.piece[2], (pm.n - 2) * sizeof pm.piece[0]);
    pm.n--;
    CHECK(split_pf_verify(t.data, t.len, &pm, 400, NULL, err, sizeof err) != 0);
    /* a smaller limit than the pieces have */
    pieces_mem_free(&pm);
    CHECK(split_pf_run(t.data, t.len, 400, 0, &pm, NULL, err, sizeof err) == 0);
    CHECK(split_pf_verify(t.data, t.len, &pm, 100, NULL, err, sizeof err) != 0);
    pieces_mem_free(&pm);
    pb_free(&t);
}

int main(void)
{
    test_interning();
    test_clears();
    test_clocks();
    test_bad_snapshots();
    test_snapshot_sets();
    test_own_entry_refs();
    test_trace_clock();
    test_compressed();
    test_data_loss();
    test_parents();
    test_parent_later();
    test_counters();
    test_legacy_deltas();
    test_empty_thread();
    test_v8_profile();
    test_streaming_profile();
    test_compact_sched();
    test_snapshot_twins();
    test_broken_entry();
    test_oversize();
    test_rails();
    test_state_ends();
    test_checker();
    return TEST_EXIT();
}
