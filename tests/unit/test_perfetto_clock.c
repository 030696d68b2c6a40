/* lib/perfetto/pf_clock.c, linked from its source: ClockSnapshot parsing and
 * conversion to the trace clock. Snapshots are built with pb_build; the
 * expected values are worked out by hand from the rules at the top of
 * pf_clock.c (latest snapshot at or before the value, the earliest when the
 * value precedes them all). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "perfetto/pf_clock.h"
#include "pb_build.h"
#include "testlib.h"

#define BOOT 6
#define REAL 1
#define MONO 3
#define TSC 9

/* A counting allocator: live bytes, to check that memory stays bounded. */
static size_t live_bytes;
static size_t peak_bytes;

static void *count_malloc(void *ctx, size_t n)
{
    (void)ctx;
    size_t *p = malloc(n + 16);
    if (!p)
        return NULL;
    *p = n;
    live_bytes += n;
    if (live_bytes > peak_bytes)
        peak_bytes = live_bytes;
    return (char *)p + 16;
}

static void count_free(void *ctx, void *q)
{
    (void)ctx;
    if (!q)
        return;
    size_t *p = (size_t *)((char *)q - 16);
    live_bytes -= *p;
    free(p);
}

static void *count_realloc(void *ctx, void *q, size_t n)
{
    if (!q)
        return count_malloc(ctx, n);
    size_t *p = (size_t *)((char *)q - 16);
    size_t old = *p;
    size_t *r = realloc(p, n + 16);
    if (!r)
        return NULL;
    *r = n;
    live_bytes = live_bytes - old + n;
    if (live_bytes > peak_bytes)
        peak_bytes = live_bytes;
    return (char *)r + 16;
}

static tread_alloc counting = {count_malloc, count_realloc, count_free, NULL};

static pf_clocks *new_clocks(void)
{
    pf_clocks *c = pf_clocks_create(&counting);
    if (!c) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return c;
}

typedef struct ck {
    uint32_t id;
    uint64_t ts;
    int incremental;
    uint64_t unit; /* 0: field absent */
} ck;

static void put_clock(pb *b, const ck *k)
{
    size_t m = pb_begin(b, 1);
    pb_varint(b, 1, k->id);
    pb_varint(b, 2, k->ts);
    if (k->incremental)
        pb_varint(b, 3, 1);
    if (k->unit)
        pb_varint(b, 4, k->unit);
    pb_end(b, m);
}

/* Adds a ClockSnapshot of n clocks (and primary_trace_clock if non-zero). */
static int snap(pf_clocks *c, uint32_t seq, uint32_t primary, size_t n, const ck *k)
{
    pb b;
    pb_init(&b);
    for (size_t i = 0; i < n; i++)
        put_clock(&b, &k[i]);
    if (primary)
        pb_varint(&b, 2, primary);
    int rc = pf_clocks_add_snapshot(c, seq, b.data, b.len);
    pb_free(&b);
    return rc;
}

static int snap2(pf_clocks *c, uint32_t seq, uint32_t a, uint64_t ta, uint32_t b, uint64_t tb)
{
    ck k[2] = {{a, ta, 0, 0}, {b, tb, 0, 0}};
    return snap(c, seq, 0, 2, k);
}

/* pf_clocks_to_trace, returning the value or a distinct marker on failure */
#define NO_PATH_V INT64_MIN
#define OVERFLOW_V (INT64_MIN + 1)
static int64_t conv(pf_clocks *c, uint32_t seq, uint32_t id, int64_t v)
{
    int64_t out = 0x5a5a;
    int rc = pf_clocks_to_trace(c, seq, id, v, &out);
    if (rc == PF_CLOCK_NO_PATH)
        return NO_PATH_V;
    if (rc == PF_CLOCK_OVERFLOW)
        return OVERFLOW_V;
    CHECK_EQ_INT(rc, PF_CLOCK_OK);
    return out;
}

static void test_direct(void)
{
    pf_clocks *c = new_clocks();
    CHECK_EQ_INT(pf_clocks_trace_clock(c), BOOT);
    CHECK_EQ_INT(conv(c, 1, MONO, 5), NO_PATH_V); /* no snapshot yet */
    CHECK_EQ_INT(conv(c, 1, BOOT, 42), 42);        /* the trace clock */
    CHECK_EQ_INT(snap2(c, 1, BOOT, 1000, MONO, 500), PF_CLOCK_OK);
    CHECK_EQ_INT(conv(c, 1, MONO, 600), 1100);
    CHECK_EQ_INT(conv(c, 1, MONO, 600), 1100); /* cached */
    CHECK_EQ_INT(conv(c, 7, MONO, 700), 1200); /* builtin clocks: any seq */
    CHECK_EQ_INT(conv(c, 1, BOOT, 42), 42);
    CHECK_EQ_INT(conv(c, 1, REAL, 42), NO_PATH_V);
    CHECK_EQ_INT(pf_clocks_snapshots(c), 1);
    CHECK_EQ_INT(pf_clocks_no_path(c), 2);
    pf_clocks_free(c);
}

static void test_hops(void)
{
    pf_clocks *c = new_clocks();
    CHECK_EQ_INT(snap2(c, 1, BOOT, 1000, MONO, 500), PF_CLOCK_OK);     /* MONO+500 */
    CHECK_EQ_INT(snap2(c, 1, MONO, 2000, REAL, 100000), PF_CLOCK_OK);  /* REAL-98000 */
    CHECK_EQ_INT(conv(c, 1, REAL, 100050), 2550);                      /* two hops */
    CHECK_EQ_INT(snap2(c, 2, REAL, 200000, TSC, 7), PF_CLOCK_OK);      /* TSC+199993 */
    CHECK_EQ_INT(conv(c, 1, TSC, 17), 200010 - 98000 + 500);           /* three hops */
    CHECK_EQ_INT(conv(c, 1, TSC, 18), 200011 - 98000 + 500);           /* cached */
    /* a chain of 4 hops converts, one of 5 does not (PF_CLOCK_MAX_HOPS) */
    CHECK_EQ_INT(snap2(c, 1, TSC, 0, 20, 0), PF_CLOCK_OK);
    CHECK_EQ_INT(conv(c, 1, 20, 17), 200010 - 98000 + 500);
    CHECK_EQ_INT(snap2(c, 1, 20, 0, 21, 1000), PF_CLOCK_OK);
    CHECK_EQ_INT(conv(c, 1, 21, 1017), NO_PATH_V);
    /* a shorter chain, once there is one, is taken */
    CHECK_EQ_INT(snap2(c, 1, 21, 0, BOOT, 5), PF_CLOCK_OK);
    CHECK_EQ_INT(conv(c, 1, 21, 10), 15);
    CHECK_EQ_INT(conv(c, 1, 20, 10), 1015); /* 20 -> 21 -> BOOT, not via TSC */
    pf_clocks_free(c);
}

static void test_latest_at_or_before(void)
{
    pf_clocks *c = new_clocks();
    CHECK_EQ_INT(snap2(c, 1, BOOT, 1000, MONO, 100), PF_CLOCK_OK); /* +900 */
    CHECK_EQ_INT(snap2(c, 1, BOOT, 5000, MONO, 200), PF_CLOCK_OK); /* +4800 */
    CHECK_EQ_INT(snap2(c, 1, BOOT, 9000, MONO, 300), PF_CLOCK_OK); /* +8700 */
    CHECK_EQ_INT(conv(c, 1, MONO, 150), 1050);
    CHECK_EQ_INT(conv(c, 1, MONO, 199), 1099); /* same snapshot, cached */
    CHECK_EQ_INT(conv(c, 1, MONO, 200), 5000); /* at the snapshot */
    CHECK_EQ_INT(conv(c, 1, MONO, 250), 5050);
    CHECK_EQ_INT(conv(c, 1, MONO, 100), 1000);
    CHECK_EQ_INT(conv(c, 1, MONO, 50), 950);   /* before all: the earliest */
    CHECK_EQ_INT(conv(c, 1, MONO, -50), 850);
    CHECK_EQ_INT(conv(c, 1, MONO, 300), 9000);
    CHECK_EQ_INT(conv(c, 1, MONO, 1000000), 1008700);
    CHECK_EQ_INT(conv(c, 1, MONO, 299), 5099);
    /* the other direction: BOOT as the source when MONO is the trace clock
     * cannot be asked here, but a 2-hop path through MONO picks by MONO's
     * value at the second hop */
    CHECK_EQ_INT(snap2(c, 1, MONO, 150, REAL, 10), PF_CLOCK_OK); /* REAL+140 */
    CHECK_EQ_INT(conv(c, 1, REAL, 20), 160 + 900);   /* MONO 160: first */
    CHECK_EQ_INT(conv(c, 1, REAL, 70), 210 + 4800);  /* MONO 210: second */
    CHECK_EQ_INT(conv(c, 1, REAL, 160), 300 + 8700); /* MONO 300: third */
    CHECK_EQ_INT(conv(c, 1, REAL, 59), 199 + 900);
    CHECK_EQ_INT(conv(c, 1, REAL, 60), 200 + 4800);
    pf_clocks_free(c);
}

/* A clock that goes backwards converts with the latest snapshot in file
 * order. */
static void test_non_monotonic(void)
{
    pf_clocks *c = new_clocks();
    CHECK_EQ_INT(snap2(c, 1, BOOT, 1000, 64, 500), PF_CLOCK_OK);
    CHECK_EQ_INT(conv(c, 1, 64, 600), 1100);
    CHECK_EQ_INT(snap2(c, 1, BOOT, 2000, 64, 100), PF_CLOCK_OK);
    CHECK_EQ_INT(conv(c, 1, 64, 600), 2500);
    CHECK_EQ_INT(conv(c, 1, 64, 50), 1950);
    pf_clocks_free(c);
}

static void test_seq_scoped(void)
{
    pf_clocks *c = new_clocks();
    CHECK_EQ_INT(snap2(c, 1, 64, 1000, BOOT, 10000), PF_CLOCK_OK);
    CHECK_EQ_INT(snap2(c, 2, 64, 1000, BOOT, 20000), PF_CLOCK_OK);
    CHECK_EQ_INT(conv(c, 1, 64, 1500), 10500);
    CHECK_EQ_INT(conv(c, 2, 64, 1500), 20500);
    CHECK_EQ_INT(conv(c, 1, 64, 1600), 10600);
    CHECK_EQ_INT(conv(c, 3, 64, 1500), NO_PATH_V);
    CHECK_EQ_INT(conv(c, 1, 127, 1500), NO_PATH_V);
    /* a sequence-scoped clock on sequence 0 is malformed */
    CHECK_EQ_INT(snap2(c, 0, 64, 1, BOOT, 2), PF_CLOCK_BAD);
    CHECK_EQ_INT(conv(c, 0, 64, 1), NO_PATH_V);
    /* 128 and above are global */
    CHECK_EQ_INT(snap2(c, 1, 128, 0, BOOT, 7), PF_CLOCK_OK);
    CHECK_EQ_INT(conv(c, 9, 128, 3), 10);
    pf_clocks_free(c);
}

static void test_incremental(void)
{
    pf_clocks *c = new_clocks();
    ck k1[2] = {{64, 1000, 1, 0}, {BOOT, 5000, 0, 0}};
    CHECK_EQ_INT(snap(c, 1, 0, 2, k1), PF_CLOCK_OK);
    CHECK(pf_clocks_is_incremental(c, 1, 64));
    CHECK(!pf_clocks_is_incremental(c, 2, 64));
    CHECK(!pf_clocks_is_incremental(c, 1, BOOT));
    CHECK(!pf_clocks_is_incremental(c, 1, 65));
    CHECK_EQ_INT(pf_clocks_absolute(c, 1, 64, 10), 1010);
    CHECK_EQ_INT(pf_clocks_absolute(c, 1, 64, 5), 1015);
    CHECK_EQ_INT(conv(c, 1, 64, 1015), 5015);
    CHECK_EQ_INT(pf_clocks_absolute(c, 1, 64, 0), 1015);
    CHECK_EQ_INT(pf_clocks_absolute(c, 1, 64, -15), 1000); /* negative deltas */
    CHECK_EQ_INT(pf_clocks_absolute(c, 2, 64, 10), 10);    /* other sequence */
    CHECK_EQ_INT(pf_clocks_absolute(c, 1, BOOT, 10), 10);
    CHECK_EQ_INT(pf_clocks_absolute(c, 1, 65, 10), 10);
    /* a new snapshot resets the running value */
    ck k2[2] = {{64, 3000, 1, 0}, {BOOT, 9000, 0, 0}};
    CHECK_EQ_INT(snap(c, 1, 0, 2, k2), PF_CLOCK_OK);
    CHECK_EQ_INT(pf_clocks_absolute(c, 1, 64, 1), 3001);
    CHECK_EQ_INT(conv(c, 1, 64, 3001), 9001);
    CHECK_EQ_INT(pf_clocks_absolute(c, 1, 64, 1), 3002);
    /* sequence 2's own incremental clock 64 */
    ck k3[2] = {{64, 0, 1, 0}, {BOOT, 100, 0, 0}};
    CHECK_EQ_INT(snap(c, 2, 0, 2, k3), PF_CLOCK_OK);
    CHECK_EQ_INT(pf_clocks_absolute(c, 2, 64, 4), 4);
    CHECK_EQ_INT(pf_clocks_absolute(c, 1, 64, 4), 3006);
    CHECK_EQ_INT(conv(c, 2, 64, 4), 104);
    /* only sequence-scoped clocks may be incremental */
    ck bad[2] = {{MONO, 0, 1, 0}, {BOOT, 100, 0, 0}};
    CHECK_EQ_INT(snap(c, 1, 0, 2, bad), PF_CLOCK_BAD);
    /* a clock cannot turn incremental (or back) */
    ck flip[2] = {{64, 0, 0, 0}, {BOOT, 100, 0, 0}};
    CHECK_EQ_INT(snap(c, 1, 0, 2, flip), PF_CLOCK_BAD);
    CHECK(pf_clocks_is_incremental(c, 1, 64));
    /* the running value never wraps */
    ck k4[2] = {{65, (uint64_t)INT64_MAX - 5, 1, 0}, {BOOT, 0, 0, 0}};
    CHECK_EQ_INT(snap(c, 1, 0, 2, k4), PF_CLOCK_OK);
    int64_t v = 0;
    CHECK_EQ_INT(pf_clocks_absolute_checked(c, 1, 65, 5, &v), PF_CLOCK_OK);
    CHECK_EQ_INT(v, INT64_MAX);
    CHECK_EQ_INT(pf_clocks_absolute_checked(c, 1, 65, 1, &v), PF_CLOCK_OVERFLOW);
    CHECK_EQ_INT(pf_clocks_absolute_checked(c, 1, 65, -1, &v), PF_CLOCK_OK);
    CHECK_EQ_INT(v, INT64_MAX - 1);
    CHECK_EQ_INT(pf_clocks_absolute(c, 1, 65, 100), INT64_MAX); /* saturates */
    pf_clocks_free(c);
}

static void test_unit_multiplier(void)
{
    pf_clocks *c = new_clocks();
    ck k1[2] = {{64, 100, 0, 1000}, {BOOT, 1000000, 0, 0}}; /* 64 in us */
    CHECK_EQ_INT(snap(c, 1, 0, 2, k1), PF_CLOCK_OK);
    CHECK_EQ_INT(conv(c, 1, 64, 150), 1050000);
    CHECK_EQ_INT(conv(c, 1, 64, 151), 1051000);
    CHECK_EQ_INT(conv(c, 1, 64, 50), 950000);
    /* incremental in units */
    ck k2[2] = {{65, 10, 1, 1000}, {BOOT, 50000, 0, 0}};
    CHECK_EQ_INT(snap(c, 1, 0, 2, k2), PF_CLOCK_OK);
    CHECK_EQ_INT(pf_clocks_absolute(c, 1, 65, 5), 15);
    CHECK_EQ_INT(conv(c, 1, 65, 15), 55000);
    /* another unit for the same clock later is malformed */
    ck k3[2] = {{64, 100, 0, 10}, {BOOT, 1000000, 0, 0}};
    CHECK_EQ_INT(snap(c, 1, 0, 2, k3), PF_CLOCK_BAD);
    CHECK_EQ_INT(conv(c, 1, 64, 150), 1050000);
    /* unit 0 is 1 */
    ck k4[2] = {{66, 100, 0, 0}, {BOOT, 1000, 0, 0}};
    CHECK_EQ_INT(snap(c, 1, 0, 2, k4), PF_CLOCK_OK);
    pb b;
    pb_init(&b);
    size_t m = pb_begin(&b, 1);
    pb_varint(&b, 1, 66);
    pb_varint(&b, 2, 200);
    pb_varint(&b, 4, 0);
    pb_end(&b, m);
    m = pb_begin(&b, 1);
    pb_varint(&b, 1, BOOT);
    pb_varint(&b, 2, 1100);
    pb_end(&b, m);
    CHECK_EQ_INT(pf_clocks_add_snapshot(c, 1, b.data, b.len), PF_CLOCK_OK);
    pb_free(&b);
    CHECK_EQ_INT(conv(c, 1, 66, 250), 1150);
    pf_clocks_free(c);
}

static void test_primary_trace_clock(void)
{
    pf_clocks *c = new_clocks();
    ck k1[2] = {{BOOT, 1000, 0, 0}, {REAL, 50000, 0, 0}};
    CHECK_EQ_INT(snap(c, 1, REAL, 2, k1), PF_CLOCK_OK);
    CHECK_EQ_INT(pf_clocks_trace_clock(c), REAL);
    CHECK_EQ_INT(conv(c, 1, BOOT, 1100), 50100);
    CHECK_EQ_INT(conv(c, 1, REAL, 7), 7);
    /* after a conversion the trace clock stays */
    ck k2[2] = {{BOOT, 2000, 0, 0}, {MONO, 50, 0, 0}};
    CHECK_EQ_INT(snap(c, 1, MONO, 2, k2), PF_CLOCK_OK);
    CHECK_EQ_INT(pf_clocks_trace_clock(c), REAL);
    CHECK_EQ_INT(conv(c, 1, MONO, 60), 2010 - 1000 + 50000); /* two hops */
    pf_clocks_free(c);

    /* before any conversion a later snapshot may still change it */
    c = new_clocks();
    CHECK_EQ_INT(snap(c, 1, REAL, 2, k1), PF_CLOCK_OK);
    CHECK_EQ_INT(snap(c, 1, MONO, 2, k2), PF_CLOCK_OK);
    CHECK_EQ_INT(pf_clocks_trace_clock(c), MONO);
    CHECK_EQ_INT(conv(c, 1, BOOT, 2100), 150);
    CHECK_EQ_INT(conv(c, 1, REAL, 50000), -950); /* REAL -> BOOT -> MONO */
    pf_clocks_free(c);

    /* a sequence-scoped id cannot be the trace clock */
    c = new_clocks();
    ck k3[2] = {{64, 1, 0, 0}, {BOOT, 2, 0, 0}};
    CHECK_EQ_INT(snap(c, 1, 64, 2, k3), PF_CLOCK_OK);
    CHECK_EQ_INT(pf_clocks_trace_clock(c), BOOT);
    pf_clocks_free(c);
}

static void test_no_path(void)
{
    pf_clocks *c = new_clocks();
    CHECK_EQ_INT(snap2(c, 1, BOOT, 1000, MONO, 500), PF_CLOCK_OK);
    CHECK_EQ_INT(snap2(c, 1, 20, 0, 21, 10), PF_CLOCK_OK);
    CHECK_EQ_INT(conv(c, 1, 20, 5), NO_PATH_V);
    CHECK_EQ_INT(conv(c, 1, 20, 5), NO_PATH_V); /* cached as no path */
    CHECK_EQ_INT(conv(c, 1, 22, 5), NO_PATH_V);
    CHECK_EQ_INT(pf_clocks_no_path(c), 3);
    /* a snapshot that links them makes a path */
    CHECK_EQ_INT(snap2(c, 1, 21, 100, MONO, 1000), PF_CLOCK_OK);
    CHECK_EQ_INT(conv(c, 1, 20, 5), 5 + 10 - 100 + 1000 + 500);
    /* with only the trace clock unknown to the snapshots */
    pf_clocks *d = new_clocks();
    CHECK_EQ_INT(snap2(d, 1, MONO, 0, REAL, 0), PF_CLOCK_OK);
    CHECK_EQ_INT(conv(d, 1, MONO, 5), NO_PATH_V);
    pf_clocks_free(d);
    pf_clocks_free(c);
}

static void test_overflow(void)
{
    pf_clocks *c = new_clocks();
    CHECK_EQ_INT(snap2(c, 1, BOOT, (uint64_t)INT64_MAX - 10, MONO, 0), PF_CLOCK_OK);
    CHECK_EQ_INT(conv(c, 1, MONO, 5), INT64_MAX - 5);
    CHECK_EQ_INT(conv(c, 1, MONO, 10), INT64_MAX);
    CHECK_EQ_INT(conv(c, 1, MONO, 11), OVERFLOW_V); /* cached path, too far */
    CHECK_EQ_INT(conv(c, 1, MONO, INT64_MAX), OVERFLOW_V);
    CHECK_EQ_INT(conv(c, 1, MONO, -5), INT64_MAX - 15);
    CHECK_EQ_INT(snap2(c, 1, BOOT, 0, REAL, (uint64_t)INT64_MAX), PF_CLOCK_OK);
    CHECK_EQ_INT(conv(c, 1, REAL, -100), OVERFLOW_V);
    CHECK_EQ_INT(conv(c, 1, REAL, -100), OVERFLOW_V);
    CHECK_EQ_INT(conv(c, 1, REAL, INT64_MAX), 0);
    CHECK_EQ_INT(conv(c, 1, REAL, 1), INT64_MIN + 2);
    CHECK_EQ_INT(conv(c, 1, REAL, 0), OVERFLOW_V);
    /* value * unit out of int64 */
    ck k[2] = {{64, 1, 0, 1000000000}, {BOOT, 0, 0, 0}};
    CHECK_EQ_INT(snap(c, 1, 0, 2, k), PF_CLOCK_OK);
    CHECK_EQ_INT(conv(c, 1, 64, 2), 1000000000);
    CHECK_EQ_INT(conv(c, 1, 64, INT64_MAX / 1000000000 + 1), OVERFLOW_V);
    CHECK_EQ_INT(conv(c, 1, 64, INT64_MIN / 1000000000 - 1), OVERFLOW_V);
    /* a snapshot whose timestamp * unit is out of int64 is malformed */
    ck big[2] = {{65, (uint64_t)INT64_MAX / 1000 + 1, 0, 1000}, {BOOT, 0, 0, 0}};
    CHECK_EQ_INT(snap(c, 1, 0, 2, big), PF_CLOCK_BAD);
    CHECK(pf_clocks_overflows(c) >= 6);
    /* a 2-hop path where the middle value leaves int64 but the result
     * does not is exact */
    pf_clocks *d = new_clocks();
    CHECK_EQ_INT(snap2(d, 1, 20, 0, 21, (uint64_t)INT64_MAX), PF_CLOCK_OK);
    CHECK_EQ_INT(snap2(d, 1, 21, (uint64_t)INT64_MAX, BOOT, 0), PF_CLOCK_OK);
    CHECK_EQ_INT(conv(d, 1, 20, 100), 100);
    CHECK_EQ_INT(conv(d, 1, 20, 101), 101);
    pf_clocks_free(d);
    pf_clocks_free(c);
}

static void test_malformed(void)
{
    pf_clocks *c = new_clocks();
    CHECK_EQ_INT(snap2(c, 1, BOOT, 1000, MONO, 500), PF_CLOCK_OK);
    pb b;
    pb_init(&b);
    ck k[2] = {{BOOT, 9000, 0, 0}, {MONO, 600, 0, 0}};
    put_clock(&b, &k[0]);
    put_clock(&b, &k[1]);
    /* cut short anywhere: malformed, nothing changes */
    for (size_t cut = 1; cut < b.len; cut++) {
        int rc = pf_clocks_add_snapshot(c, 1, b.data, cut);
        /* a cut exactly between the two clocks is a valid snapshot of one
         * clock (no pair), which changes nothing either */
        CHECK(rc == PF_CLOCK_BAD || (rc == PF_CLOCK_OK && cut == b.len / 2));
    }
    CHECK_EQ_INT(conv(c, 1, MONO, 700), 1200);
    pb_free(&b);

    /* clocks as a varint */
    pb_init(&b);
    pb_varint(&b, 1, 5);
    CHECK_EQ_INT(pf_clocks_add_snapshot(c, 1, b.data, b.len), PF_CLOCK_BAD);
    pb_free(&b);
    /* primary_trace_clock as a string */
    pb_init(&b);
    put_clock(&b, &k[0]);
    pb_string(&b, 2, "x");
    CHECK_EQ_INT(pf_clocks_add_snapshot(c, 1, b.data, b.len), PF_CLOCK_BAD);
    pb_free(&b);
    /* a clock's timestamp as fixed64 */
    pb_init(&b);
    size_t m = pb_begin(&b, 1);
    pb_varint(&b, 1, MONO);
    pb_fixed64(&b, 2, 5);
    pb_end(&b, m);
    CHECK_EQ_INT(pf_clocks_add_snapshot(c, 1, b.data, b.len), PF_CLOCK_BAD);
    pb_free(&b);
    /* clock_id above uint32 */
    pb_init(&b);
    m = pb_begin(&b, 1);
    pb_varint(&b, 1, (uint64_t)UINT32_MAX + 1);
    pb_end(&b, m);
    CHECK_EQ_INT(pf_clocks_add_snapshot(c, 1, b.data, b.len), PF_CLOCK_BAD);
    pb_free(&b);
    /* unit above int64 */
    ck hu[1] = {{MONO, 1, 0, (uint64_t)INT64_MAX + 1}};
    CHECK_EQ_INT(snap(c, 1, 0, 1, hu), PF_CLOCK_BAD);
    /* the same clock twice */
    ck dup[3] = {{BOOT, 9000, 0, 0}, {MONO, 600, 0, 0}, {BOOT, 9000, 0, 0}};
    CHECK_EQ_INT(snap(c, 1, 0, 3, dup), PF_CLOCK_BAD);
    /* more clocks than PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT */
    ck many[PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT + 1];
    for (uint32_t i = 0; i <= PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT; i++)
        many[i] = (ck){200 + i, 1, 0, 0};
    CHECK_EQ_INT(snap(c, 1, 0, PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT + 1, many), PF_CLOCK_BAD);
    CHECK_EQ_INT(snap(c, 1, 0, PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT, many), PF_CLOCK_OK);
    /* garbage */
    static const unsigned char junk[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                         0xff, 0xff};
    CHECK_EQ_INT(pf_clocks_add_snapshot(c, 1, junk, sizeof junk), PF_CLOCK_BAD);
    static const unsigned char group_end[] = {0x0c};
    CHECK_EQ_INT(pf_clocks_add_snapshot(c, 1, group_end, 1), PF_CLOCK_BAD);
    /* an empty snapshot and unknown fields are fine */
    CHECK_EQ_INT(pf_clocks_add_snapshot(c, 1, junk, 0), PF_CLOCK_OK);
    pb_init(&b);
    pb_string(&b, 9, "future");
    put_clock(&b, &k[0]);
    put_clock(&b, &k[1]);
    CHECK_EQ_INT(pf_clocks_add_snapshot(c, 1, b.data, b.len), PF_CLOCK_OK);
    pb_free(&b);
    CHECK_EQ_INT(conv(c, 1, MONO, 700), 9100);
    CHECK(pf_clocks_bad_snapshots(c) >= 9);
    pf_clocks_free(c);
}

static void test_eviction(void)
{
    pf_clocks *c = new_clocks();
    /* snapshot i (1..N): MONO = 1000 i, BOOT = 1000 i + 7 i */
    const int64_t N = 1000;
    for (int64_t i = 1; i <= N; i++)
        CHECK_EQ_INT(snap2(c, 1, MONO, (uint64_t)(1000 * i), BOOT, (uint64_t)(1007 * i)),
                     PF_CLOCK_OK);
    int64_t first = N - PF_CLOCK_MAX_SNAPSHOTS_PER_DOMAIN + 1; /* earliest kept */
    CHECK_EQ_INT(conv(c, 1, MONO, 5000), 5000 + 7 * first);
    CHECK_EQ_INT(conv(c, 1, MONO, 1000 * first + 1), 1000 * first + 1 + 7 * first);
    CHECK_EQ_INT(conv(c, 1, MONO, 1000 * N + 1), 1000 * N + 1 + 7 * N);
    CHECK_EQ_INT(conv(c, 1, MONO, 1000 * (N - 1) + 999), 1000 * (N - 1) + 999 + 7 * (N - 1));
    size_t after_first = live_bytes;
    for (int64_t i = N + 1; i <= 3 * N; i++)
        snap2(c, 1, MONO, (uint64_t)(1000 * i), BOOT, (uint64_t)(1007 * i));
    CHECK_EQ_INT(live_bytes, after_first); /* the ring does not grow */

    /* more sequences than PF_CLOCK_MAX_DOMAINS: the least recently
     * snapshotted domains go */
    const uint32_t S = PF_CLOCK_MAX_DOMAINS + 500;
    for (uint32_t s = 1; s <= S; s++)
        CHECK_EQ_INT(snap2(c, s, 64, 0, BOOT, s), PF_CLOCK_OK);
    CHECK_EQ_INT(conv(c, S, 64, 10), 10 + S);
    CHECK_EQ_INT(conv(c, 600, 64, 10), 610);
    CHECK_EQ_INT(conv(c, 2, 64, 10), NO_PATH_V);           /* evicted */
    /* MONO was snapshotted least recently: it went first (BOOT, the trace
     * clock, stays) */
    CHECK_EQ_INT(conv(c, 1, MONO, 1000 * 3 * N), NO_PATH_V);
    size_t dom_bytes = live_bytes;
    for (uint32_t s = S + 1; s <= 2 * S; s++)
        snap2(c, s, 64, 0, BOOT, s);
    CHECK(live_bytes <= dom_bytes + dom_bytes / 8);
    /* pairs: snapshots of 64 clocks make 2016 pairs each */
    ck all[PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT];
    for (uint32_t s = 1; s <= 8; s++) {
        for (uint32_t i = 0; i < PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT - 1; i++)
            all[i] = (ck){64 + i, s * 100 + i, 0, 0};
        all[PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT - 1] = (ck){BOOT, s * 1000, 0, 0};
        CHECK_EQ_INT(snap(c, 100000 + s, 0, PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT, all), PF_CLOCK_OK);
    }
    CHECK_EQ_INT(conv(c, 100008, 70, 806), 8000);
    CHECK_EQ_INT(conv(c, 100008, 64, 800), 8000);
    CHECK(peak_bytes < (size_t)64 << 20);
    pf_clocks_free(c);
    CHECK_EQ_INT(live_bytes, 0);
}

/* The cached fast path against a plain search, on random values. */
static void test_cache_vs_search(void)
{
    pf_clocks *c = new_clocks();
    enum { NS = 40 };
    int64_t m[NS], b[NS], r[NS], m2[NS];
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < NS; i++) {
        m[i] = 1000 * (i + 1);
        b[i] = m[i] * 3 + i * 11;
        CHECK_EQ_INT(snap2(c, 1, MONO, (uint64_t)m[i], BOOT, (uint64_t)b[i]), PF_CLOCK_OK);
    }
    for (int i = 0; i < NS; i++) {
        r[i] = 500 * (i + 1) + 77;
        m2[i] = 2000 + 1000 * i;
        CHECK_EQ_INT(snap2(c, 1, REAL, (uint64_t)r[i], MONO, (uint64_t)m2[i]), PF_CLOCK_OK);
    }
    int bad = 0;
    for (int n = 0; n < 20000; n++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t v = (int64_t)(x % 60000) - 5000;
        /* MONO -> BOOT */
        int i = 0;
        for (int j = 0; j < NS; j++)
            if (m[j] <= v)
                i = j;
        int64_t want = v - m[i] + b[i];
        if (conv(c, 1, MONO, v) != want)
            bad++;
        /* REAL -> MONO -> BOOT */
        i = 0;
        for (int j = 0; j < NS; j++)
            if (r[j] <= v)
                i = j;
        int64_t w = v - r[i] + m2[i];
        int k = 0;
        for (int j = 0; j < NS; j++)
            if (m[j] <= w)
                k = j;
        want = w - m[k] + b[k];
        if (conv(c, 1, REAL, v) != want)
            bad++;
    }
    CHECK_EQ_INT(bad, 0);
    pf_clocks_free(c);
}

/* Damaged and random snapshots mixed with conversions: never a crash (the
 * sanitizer build checks reads), a conversion repeated right away (now from
 * the cache) gives the same answer, and memory stays bounded. */
static void test_random_snapshots(void)
{
    pf_clocks *c = new_clocks();
    uint64_t x = 0x2545F4914F6CDD1Dull;
    int differ = 0, kinds_ok = 1;
    for (int n = 0; n < 20000; n++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        pb b;
        pb_init(&b);
        uint32_t nclk = 1 + (uint32_t)(x % 4);
        for (uint32_t i = 0; i < nclk; i++) {
            static const uint32_t ids[] = {BOOT, MONO, REAL, TSC, 64, 65, 100, 200};
            ck k = {ids[(x >> (8 + 3 * i)) % 8], (x >> 20) % 100000 + 1000 * (uint64_t)n,
                    (int)((x >> (30 + i)) & 1), (x >> 40) % 3 == 0 ? 1000 : 0};
            put_clock(&b, &k);
        }
        if (b.len && (x >> 50) % 4 == 0) /* damage a byte */
            b.data[(x >> 52) % b.len] ^= (unsigned char)(x >> 56);
        size_t len = (x >> 45) % 8 == 0 && b.len ? (x >> 47) % b.len : b.len;
        pf_clocks_add_snapshot(c, 1 + (uint32_t)((x >> 60) % 3), b.data, len);
        pb_free(&b);
        for (int q = 0; q < 4; q++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            static const uint32_t qids[] = {BOOT, MONO, REAL, TSC, 64, 65, 100, 7};
            uint32_t seq = 1 + (uint32_t)(x % 3), id = qids[(x >> 8) % 8];
            int64_t v = (int64_t)((x >> 16) % 200000) + 1000 * (int64_t)n - 50000;
            int64_t a = pf_clocks_absolute(c, seq, id, v % 100);
            int64_t o1 = 0, o2 = 0;
            int r1 = pf_clocks_to_trace(c, seq, id, a, &o1);
            int r2 = pf_clocks_to_trace(c, seq, id, a, &o2);
            if (r1 != r2 || (r1 == PF_CLOCK_OK && o1 != o2))
                differ++;
            if (r1 != PF_CLOCK_OK && r1 != PF_CLOCK_NO_PATH && r1 != PF_CLOCK_OVERFLOW)
                kinds_ok = 0;
        }
    }
    CHECK_EQ_INT(differ, 0);
    CHECK(kinds_ok);
    CHECK(pf_clocks_snapshots(c) > 1000);
    CHECK(pf_clocks_bad_snapshots(c) > 100);
    CHECK(live_bytes < (size_t)1 << 20);
    pf_clocks_free(c);
    CHECK_EQ_INT(live_bytes, 0);
}

/* pf_clocks_convert_memo against pf_clocks_convert: two sets of clocks fed
 * the same random snapshots (incremental clocks, units, a primary trace
 * clock, damaged ones) and the same conversions, one through a memo per
 * sequence: the same result, absolute value and output every time, with
 * values that sometimes saturate or overflow and that wander out of the
 * memo's range. */
static void test_memo_vs_convert(void)
{
    pf_clocks *a = new_clocks(), *b = new_clocks();
    pf_clock_memo memo[4];
    memset(memo, 0, sizeof memo);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    int differ = 0, from_memo = 0;
    int64_t recent[8] = {0}; /* snapshot values: the edges of memo ranges */
    unsigned nrecent = 0;
    for (int n = 0; n < 5000; n++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (n % 7 == 0 || n < 20) {
            pb s;
            pb_init(&s);
            uint32_t nclk = 1 + (uint32_t)(x % 3);
            for (uint32_t i = 0; i < nclk; i++) {
                static const uint32_t ids[] = {BOOT, MONO, REAL, 64, 65};
                uint32_t id = ids[(x >> (8 + 3 * i)) % 5];
                /* rising, each clock at its own offset; REAL in us */
                uint64_t ts = (x >> (20 + 5 * i)) % 1000 + 1000 * (uint64_t)n;
                ck k = {id, ts + 1000000 * (uint64_t)id, id >= 64 && ((x >> (30 + i)) & 1),
                        id == REAL ? 1000 : 0};
                put_clock(&s, &k);
                recent[nrecent++ % 8] = (int64_t)k.ts;
            }
            if ((x >> 42) % 16 == 0)
                pb_varint(&s, 2, (x >> 44) % 2 ? MONO : REAL); /* primary_trace_clock */
            if (s.len && (x >> 50) % 16 == 0) /* damage a byte */
                s.data[(x >> 52) % s.len] ^= (unsigned char)(x >> 56);
            uint32_t seq = 1 + (uint32_t)((x >> 60) % 3);
            int ra = pf_clocks_add_snapshot(a, seq, s.data, s.len);
            int rb = pf_clocks_add_snapshot(b, seq, s.data, s.len);
            differ += ra != rb;
            pb_free(&s);
        }
        /* a few conversions on one clock of one sequence, as packets do */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        static const uint32_t qids[] = {BOOT, MONO, REAL, 64, 65, 7};
        uint32_t seq = 1 + (uint32_t)(x % 3), id = qids[(x >> 8) % 6];
        /* half the time, a sweep up or down across a snapshot's value */
        int sweep = (x >> 30) % 2 ? ((x >> 31) % 2 ? 1 : -1) : 0;
        int64_t edge = recent[(x >> 32) % 8];
        for (int q = 0; q < 6; q++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int64_t v = (int64_t)((x >> 16) % 3000) - 500 + (q ? 0 : 1000 * (int64_t)n);
            if ((x >> 56) % 64 == 0)
                v = (x >> 62) ? INT64_MAX - 5 : INT64_MIN + 5; /* saturates, overflows */
            else if (sweep)
                v = edge + sweep * (q - 3);
            int64_t abs1 = 1, out1 = 1, abs2 = 2, out2 = 2;
            pf_clock_memo *m = &memo[seq];
            from_memo += m->gen == pf_clocks_generation(b) && m->clock_id == id;
            int r1 = pf_clocks_convert(a, seq, id, v, &abs1, &out1);
            int r2 = pf_clocks_convert_memo(b, m, seq, id, v, &abs2, &out2);
            if (r1 != r2 || abs1 != abs2 || (r1 == PF_CLOCK_OK && out1 != out2))
                differ++;
        }
    }
    CHECK_EQ_INT(differ, 0);
    CHECK(from_memo > 10000);
    CHECK_EQ_INT(pf_clocks_no_path(a), pf_clocks_no_path(b));
    CHECK_EQ_INT(pf_clocks_overflows(a), pf_clocks_overflows(b));
    pf_clocks_free(a);
    pf_clocks_free(b);
}

int main(void)
{
    test_direct();
    test_hops();
    test_latest_at_or_before();
    test_non_monotonic();
    test_seq_scoped();
    test_incremental();
    test_unit_multiplier();
    test_primary_trace_clock();
    test_no_path();
    test_overflow();
    test_malformed();
    test_eviction();
    test_cache_vs_search();
    test_random_snapshots();
    test_memo_vs_convert();
    return TEST_EXIT();
}
