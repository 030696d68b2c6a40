/* The Perfetto decoder: framing, compressed packets, sequence state,
 * interning, defaults, tracks, counters, legacy events, flows, descriptors,
 * clocks, ChromeEventBundle, the raw packet hook, chunk/stop equivalence,
 * and compressed packets expanded on the decompression thread or inline. Traces are built with pb_build. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <tread.h>
#include <tread/perfetto.h>
#include "testlib.h"
#include "thread_alloc.h"
#include "event_dump.h"
#include "pb_build.h"
#include "perfetto/pf_args.h"

/* ---- collecting events ------------------------------------------------ */

#define MAXEV 256
typedef struct cev {
    tread_event ev;
    char name[64], cat[64], meta_str[64], id[32], bind[32];
    uint64_t flows[4], tflows[4];
    int debug_name_found;  /* the args ctx resolved debug annotation name 1 */
} cev;

typedef struct coll {
    cev e[MAXEV];
    int n;
    int warn[TREAD_WARN_KIND_COUNT_];
    int hooks;
    uint32_t hook_state[MAXEV];
    uint32_t hook_clock[MAXEV]; /* trace_clock_id */
    int hook_before_event; /* every event came after a hook */
    int events_since_hook;
} coll;

static void cpy(char *dst, size_t cap, tread_str s)
{
    size_t n = s.ptr ? (s.len < cap - 1 ? s.len : cap - 1) : 0;
    if (n)
        memcpy(dst, s.ptr, n);
    dst[n] = 0;
    if (s.ptr)
        CHECK(s.ptr[s.len] == 0); /* NUL-terminated, as tread.h promises */
}

static int on_event(void *user, const tread_event *ev)
{
    coll *c = user;
    if (c->n >= MAXEV)
        return 0;
    cev *x = &c->e[c->n++];
    x->ev = *ev;
    cpy(x->name, sizeof x->name, ev->name);
    cpy(x->cat, sizeof x->cat, ev->cat);
    cpy(x->meta_str, sizeof x->meta_str, ev->meta_str);
    cpy(x->id, sizeof x->id, ev->id);
    cpy(x->bind, sizeof x->bind, ev->bind_id);
    for (size_t i = 0; i < ev->flow_ids.n && i < 4; i++)
        x->flows[i] = ev->flow_ids.v[i];
    for (size_t i = 0; i < ev->terminating_flow_ids.n && i < 4; i++)
        x->tflows[i] = ev->terminating_flow_ids.v[i];
    if (ev->args.encoding == TREAD_ARGS_PERFETTO && ev->args.ctx) {
        const pf_args_ctx *ctx = ev->args.ctx;
        const unsigned char *m;
        size_t len;
        x->debug_name_found = ctx->lookup(ctx->seq, 3, 1, &m, &len);
    }
    if (!c->hooks)
        c->hook_before_event = -1;
    c->events_since_hook++;
    return 0;
}

static int on_warning(void *user, const tread_warning *w)
{
    coll *c = user;
    c->warn[w->kind]++;
    return 0;
}

static int on_packet(void *user, const tread_perfetto_packet *pkt)
{
    coll *c = user;
    if (c->hooks < MAXEV)
        c->hook_state[c->hooks] = pkt->state, c->hook_clock[c->hooks] = pkt->trace_clock_id;
    c->hooks++;
    c->events_since_hook = 0;
    CHECK(pkt->data != NULL || pkt->len == 0);
    return 0;
}

static tread_status parse(coll *c, const pb *t, const int64_t *opts, tread_parser **out)
{
    memset(c, 0, sizeof *c);
    tread_parser *p = tread_parser_create(NULL);
    tread_callbacks cb = {.event = on_event, .warning = on_warning, .perfetto_packet = on_packet};
    tread_set_callbacks(p, &cb, c);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_PERFETTO), 0);
    for (; opts && opts[0]; opts += 2)
        CHECK_EQ_INT(tread_config(p, (tread_option)opts[0], opts[1]), 0);
    tread_status st = tread_feed(p, t->data, t->len);
    if (st == TREAD_STATUS_OK)
        st = tread_finish(p);
    if (out)
        *out = p;
    else
        tread_parser_free(p);
    return st;
}

/* ---- building packets ------------------------------------------------- */

/* TracePacket fields */
enum {
    TS = 8, SEQ = 10, TE = 11, INTERNED = 12, FLAGS = 13, CLOCK = 6, CLEARED_LEGACY = 41,
    PPD = 42, PDESC = 43, THDESC = 44, COMP = 50, CLOCK_ID = 58, DEFAULTS = 59, TDESC = 60,
    FIRST = 87, ZCOMP = 133, CHROME = 5, PTREE = 2
};
#define CLEARED 1
#define NEEDS 2

static void packet(pb *t, const pb *pkt) { pb_msg(t, 1, pkt); }

/* A packet on seq with a TrackEvent (te) and optional timestamp. */
static void te_packet(pb *t, uint32_t seq, uint32_t flags, int64_t ts, const pb *te)
{
    pb k;
    pb_init(&k);
    if (ts >= 0)
        pb_varint(&k, TS, (uint64_t)ts);
    pb_varint(&k, SEQ, seq);
    if (flags)
        pb_varint(&k, FLAGS, flags);
    pb_msg(&k, TE, te);
    packet(t, &k);
    pb_free(&k);
}

/* InternedData entry: {iid=1, name=2} */
static void intern_str(pb *idata, uint32_t field, uint64_t iid, const char *s)
{
    size_t m = pb_begin(idata, field);
    pb_varint(idata, 1, iid);
    pb_string(idata, 2, s);
    pb_end(idata, m);
}

static void clear_packet(pb *t, uint32_t seq, const pb *idata, const pb *defaults)
{
    pb k;
    pb_init(&k);
    pb_varint(&k, SEQ, seq);
    pb_varint(&k, FLAGS, CLEARED);
    if (idata)
        pb_msg(&k, INTERNED, idata);
    if (defaults)
        pb_msg(&k, DEFAULTS, defaults);
    packet(t, &k);
    pb_free(&k);
}

static void track_desc(pb *t, uint64_t uuid, uint64_t parent, const char *name, int pid,
                       int tid, int counter, int64_t mult, int incr)
{
    pb k;
    pb_init(&k);
    pb_varint(&k, SEQ, 99);
    size_t m = pb_begin(&k, TDESC);
    pb_varint(&k, 1, uuid);
    if (name)
        pb_string(&k, 2, name);
    if (parent)
        pb_varint(&k, 5, parent);
    if (pid && !tid) {
        size_t pm = pb_begin(&k, 3);
        pb_varint(&k, 1, (uint64_t)pid);
        pb_end(&k, pm);
    }
    if (tid) {
        size_t tm = pb_begin(&k, 4);
        pb_varint(&k, 1, (uint64_t)pid);
        pb_varint(&k, 2, (uint64_t)tid);
        pb_string(&k, 5, "worker");
        pb_end(&k, tm);
    }
    if (counter) {
        size_t cm = pb_begin(&k, 8);
        if (mult != 1)
            pb_varint(&k, 4, (uint64_t)mult);
        if (incr)
            pb_varint(&k, 5, 1);
        pb_end(&k, cm);
    }
    pb_end(&k, m);
    packet(t, &k);
    pb_free(&k);
}

static void simple_te(pb *te, int type, const char *name, uint64_t track)
{
    pb_init(te);
    pb_varint(te, 9, (uint64_t)type);
    if (name)
        pb_string(te, 23, name);
    if (track)
        pb_varint(te, 11, track);
}

/* ---- framing ---------------------------------------------------------- */

static void test_framing(void)
{
    pb t, te;
    pb_init(&t);
    pb_bytes(&t, 1, "", 0);           /* zero-length packet */
    pb_varint(&t, 5, 77);             /* skipped top-level fields of every wire type */
    pb_fixed64(&t, 6, 1);
    pb_fixed32(&t, 7, 1);
    pb_string(&t, 2, "not a packet");
    pb_tag(&t, 3, 3);                 /* a group, with a nested group and field 1 */
    pb_string(&t, 1, "inside a group: not a packet");
    pb_tag(&t, 4, 3);
    pb_varint(&t, 2, 1);
    pb_tag(&t, 4, 4);
    pb_tag(&t, 3, 4);
    simple_te(&te, 3, "inst", 0);
    te_packet(&t, 1, 0, 100, &te);
    coll c;
    tread_parser *p;
    CHECK_EQ_INT(parse(&c, &t, NULL, &p), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.n, 1);
    CHECK_EQ_INT(c.e[0].ev.kind, TREAD_EVENT_INSTANT);
    CHECK_EQ_STR(c.e[0].name, "inst");
    CHECK_EQ_INT(c.e[0].ev.ts, 100);
    CHECK_EQ_INT(c.e[0].ev.seq_id, 1);
    CHECK(c.e[0].ev.flags & TREAD_HAS_SEQ);
    CHECK_EQ_INT(test_format_counter(p, "zero_length_packets"), 1);
    CHECK_EQ_INT(test_format_counter(p, "skipped_top_level_fields"), 5);
    CHECK_EQ_INT(test_format_counter(p, "packets"), 1);
    tread_parser_free(p);

    /* concatenated traces are one trace */
    pb two;
    pb_init(&two);
    pb_raw(&two, t.data, t.len);
    pb_raw(&two, t.data, t.len);
    CHECK_EQ_INT(parse(&c, &two, NULL, NULL), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.n, 2);

    /* a packet whose field overruns it: warned, skipped, the next one read */
    pb bad;
    pb_init(&bad);
    pb_varint_raw(&bad, (1 << 3) | 2);
    pb_varint_raw(&bad, 3);
    pb_varint_raw(&bad, (11 << 3) | 2); /* track_event claiming 50 bytes */
    pb_varint_raw(&bad, 50);
    pb_raw(&bad, "x", 1);
    te_packet(&bad, 1, 0, 5, &te);
    CHECK_EQ_INT(parse(&c, &bad, NULL, &p), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.warn[TREAD_WARN_BAD_RECORD], 1);
    CHECK_EQ_INT(c.n, 1);
    CHECK_EQ_INT(test_format_counter(p, "bad_packets"), 1);
    tread_parser_free(p);

    /* a packet larger than max_event_bytes: an error at its offset */
    pb big;
    pb_init(&big);
    te_packet(&big, 1, 0, 5, &te);
    size_t first = big.len;
    char filler[300];
    memset(filler, 'a', sizeof filler);
    pb fat;
    pb_init(&fat);
    pb_bytes(&fat, 36, filler, sizeof filler);
    packet(&big, &fat);
    const int64_t small[] = {TREAD_OPT_MAX_EVENT_BYTES, 100, 0};
    CHECK_EQ_INT(parse(&c, &big, small, &p), TREAD_STATUS_ERROR);
    CHECK_EQ_INT(tread_get_error(p), TREAD_ERROR_LIMIT_EVENT);
    CHECK_EQ_INT(tread_get_error_offset(p), first);
    CHECK_EQ_INT(c.n, 1);
    tread_parser_free(p);

    /* a packet cut by the end of input */
    pb cut;
    pb_init(&cut);
    te_packet(&cut, 1, 0, 5, &te);
    cut.len -= 2;
    CHECK_EQ_INT(parse(&c, &cut, NULL, NULL), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.warn[TREAD_WARN_TRUNCATED_EVENT], 1);
    CHECK_EQ_INT(c.n, 0);

    /* not a protobuf stream: a clear error */
    pb junk;
    pb_init(&junk);
    pb_raw(&junk, "\x0f\x01", 2); /* wire type 7 */
    CHECK_EQ_INT(parse(&c, &junk, NULL, &p), TREAD_STATUS_ERROR);
    CHECK_EQ_INT(tread_get_error(p), TREAD_ERROR_SYNTAX);
    tread_parser_free(p);

    pb_free(&t), pb_free(&te), pb_free(&two), pb_free(&bad), pb_free(&big), pb_free(&fat);
    pb_free(&cut), pb_free(&junk);
}

/* ---- compressed packets ----------------------------------------------- */

static void inner_trace(pb *inner, int n)
{
    pb te;
    simple_te(&te, 3, "zipped", 0);
    for (int i = 0; i < n; i++)
        te_packet(inner, 1, 0, 10 + i, &te);
    pb_free(&te);
}

/* inner compressed both ways: zlib-wrapped deflate (compressed_packets)
 * at the level given, and zstd (zstd_compressed_packets); malloc'd. */
static void compress_both(const pb *inner, int level, unsigned char **z, uLongf *zl,
                          unsigned char **zs, size_t *zsl)
{
    *zl = compressBound(inner->len);
    *z = malloc(*zl);
    CHECK(compress2(*z, zl, inner->data, inner->len, level) == Z_OK);
    *zsl = ZSTD_compressBound(inner->len);
    *zs = malloc(*zsl);
    *zsl = ZSTD_compress(*zs, *zsl, inner->data, inner->len, 3);
    CHECK(!ZSTD_isError(*zsl));
}

static void test_compressed(void)
{
    pb inner, t, k;
    pb_init(&inner);
    inner_trace(&inner, 20);
    unsigned char *z, *zs;
    uLongf zl;
    size_t zsl;
    compress_both(&inner, 9, &z, &zl, &zs, &zsl);

    pb_init(&t);
    pb_init(&k);
    pb_bytes(&k, COMP, z, zl);
    packet(&t, &k);
    k.len = 0;
    pb_bytes(&k, ZCOMP, zs, zsl);
    packet(&t, &k);
    coll c;
    tread_parser *p;
    CHECK_EQ_INT(parse(&c, &t, NULL, &p), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.n, 40);
    CHECK_EQ_STR(c.e[39].name, "zipped");
    CHECK_EQ_INT(c.e[39].ev.ts, 29);
    CHECK_EQ_INT(c.hooks, 40);
    CHECK(c.hook_state[0] & TREAD_PF_STATE_COMPRESSED);
    CHECK_EQ_INT(test_format_counter(p, "compressed_packets_expanded"), 2);
    CHECK_EQ_INT(test_format_counter(p, "packets_in_compressed"), 40);
    tread_parser_free(p);

    /* every chunking and a stop after every event give the same */
    dump a, b, s;
    dump_init(&a), dump_init(&b), dump_init(&s);
    s.stop_every = 1;
    dump_parse(&a, t.data, t.len, 0, NULL);
    dump_parse(&b, t.data, t.len, 1, NULL);
    dump_parse(&s, t.data, t.len, 3, NULL);
    CHECK(a.text && b.text && strcmp(a.text, b.text) == 0);
    CHECK(a.text && s.text && strcmp(a.text, s.text) == 0);
    CHECK(s.stops >= 40);
    dump_free(&a), dump_free(&b), dump_free(&s);

    /* a decompression bomb: an error, not memory */
    pb bomb;
    pb_init(&bomb);
    for (int i = 0; i < 100000; i++)
        pb_raw(&bomb, "\x0a\x00", 2);
    uLongf bl = compressBound(bomb.len);
    unsigned char *bz = malloc(bl);
    CHECK(compress2(bz, &bl, bomb.data, bomb.len, 9) == Z_OK);
    t.len = 0;
    k.len = 0;
    pb_bytes(&k, COMP, bz, bl);
    packet(&t, &k);
    for (int thread = 0; thread < 2; thread++) { /* inline, and on the thread */
        const int64_t lim[] = {TREAD_OPT_MAX_DECOMPRESSED_BYTES, 100000,
                               TREAD_OPT_DECOMPRESS_THREAD, thread, 0};
        CHECK_EQ_INT(parse(&c, &t, lim, &p), TREAD_STATUS_ERROR);
        CHECK_EQ_INT(tread_get_error(p), TREAD_ERROR_LIMIT_MEMORY);
        tread_parser_free(p);
    }
    /* within the limit it is 100000 empty packets */
    CHECK_EQ_INT(parse(&c, &t, NULL, &p), TREAD_STATUS_OK);
    CHECK_EQ_INT(test_format_counter(p, "zero_length_packets"), 100000);
    tread_parser_free(p);

    /* a corrupt stream: warned, the trace goes on */
    t.len = 0;
    k.len = 0;
    pb_bytes(&k, COMP, "\x78\x9c\xff\xff\xff", 5);
    packet(&t, &k);
    pb te;
    simple_te(&te, 3, "after", 0);
    te_packet(&t, 1, 0, 1, &te);
    CHECK_EQ_INT(parse(&c, &t, NULL, NULL), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.warn[TREAD_WARN_BAD_RECORD], 1);
    CHECK_EQ_INT(c.n, 1);

    free(z), free(zs), free(bz);
    pb_free(&inner), pb_free(&t), pb_free(&k), pb_free(&bomb), pb_free(&te);
}

/* 1 when TREAD_OPT_INFLATE accepts engine (isa-l: when built with it). */
static int inflate_engine_built(int engine)
{
    tread_parser *p = tread_parser_create(NULL);
    int ok = tread_config(p, TREAD_OPT_INFLATE, engine) == 0;
    tread_parser_free(p);
    return ok;
}

/* The zlib wrapper of compressed_packets, each way it can be damaged:
 * what zlib's own inflate makes of it (the header checks, a preset
 * dictionary, the adler32 trailer, bytes after it), event counts and
 * warnings, with either inflate engine. */
static void test_compressed_zlib_wrapper(void)
{
    pb inner;
    pb_init(&inner);
    inner_trace(&inner, 20);
    uLongf zl = compressBound(inner.len);
    unsigned char *z = malloc(zl + 16);
    CHECK(compress2(z, &zl, inner.data, inner.len, 9) == Z_OK);
    unsigned char *m = malloc(zl + 16);
    enum { OK_, BAD, TRUNC, TRAIL };
    /* mutation, events expected, the one warning expected */
    static const struct {
        const char *what;
        int events, warn;
    } cases[] = {
        {"intact", 20, OK_},
        {"adler32 wrong", 20, BAD},
        {"adler32 cut to 2 bytes", 20, TRUNC},
        {"no adler32", 20, TRUNC},
        {"3 bytes after the stream", 20, TRAIL},
        {"header check wrong", 0, BAD},
        {"method 9", 0, BAD},
        {"window 2^16", 0, BAD},
        {"window 2^9 (not enforced)", 20, OK_},
        {"preset dictionary", 0, BAD},
        {"preset dictionary cut", 0, TRUNC},
        {"one byte", 0, TRUNC},
        {"empty", 0, TRUNC},
        {"deflate data cut", -1, TRUNC},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = zl;
        memcpy(m, z, zl);
        switch (i) {
        case 1: m[n - 1] ^= 1; break;
        case 2: n -= 2; break;
        case 3: n -= 4; break;
        case 4: memcpy(m + n, "abc", 3), n += 3; break;
        case 5: m[1] ^= 1; break;
        case 6: m[0] = 0x79, m[1] = 0; m[1] = (unsigned char)(31 - (0x79 * 256) % 31); break;
        case 7: m[0] = 0x88, m[1] = (unsigned char)(31 - (0x88 * 256) % 31); break;
        case 8: m[0] = 0x18, m[1] = (unsigned char)(31 - (0x18 * 256) % 31); break;
        case 9: /* FDICT, then a dictionary id */
            m[0] = 0x78, m[1] = 0x20;
            m[1] = (unsigned char)(m[1] + (31 - (0x78 * 256 + m[1]) % 31) % 31);
            memmove(m + 6, m + 2, n - 2), memcpy(m + 2, "\1\2\3\4", 4), n += 4;
            break;
        case 10:
            m[0] = 0x78, m[1] = 0x20;
            m[1] = (unsigned char)(m[1] + (31 - (0x78 * 256 + m[1]) % 31) % 31);
            n = 4;
            break;
        case 11: n = 1; break;
        case 12: n = 0; break;
        case 13: n = zl / 2; break;
        }
        pb t, k;
        pb_init(&t);
        pb_init(&k);
        pb_bytes(&k, COMP, m, n);
        packet(&t, &k);
        /* inflated by zlib, the oracle, and by isa-l when built with it:
         * the same verdicts, and the same dump */
        char *oracle = NULL;
        for (int engine = 0; engine <= 1; engine++) {
            const int64_t eo[] = {TREAD_OPT_INFLATE, engine, 0};
            if (engine && !inflate_engine_built(engine))
                break;
            coll c;
            CHECK_EQ_INT(parse(&c, &t, eo, NULL), TREAD_STATUS_OK);
            if (cases[i].events >= 0)
                CHECK_EQ_INT(c.n, cases[i].events);
            CHECK_EQ_INT(c.warn[TREAD_WARN_BAD_RECORD], cases[i].warn == BAD);
            CHECK_EQ_INT(c.warn[TREAD_WARN_COMPRESSED_TRUNCATED], cases[i].warn == TRUNC);
            CHECK_EQ_INT(c.warn[TREAD_WARN_TRAILING_DATA], cases[i].warn == TRAIL);
            if (c.n != cases[i].events && cases[i].events >= 0)
                fprintf(stderr, "  (case: %s, engine %d)\n", cases[i].what, engine);
            /* the same in 1-byte chunks with a stop after every event */
            dump a, b;
            dump_init(&a), dump_init(&b);
            b.stop_every = 1;
            dump_parse(&a, t.data, t.len, 0, eo);
            dump_parse(&b, t.data, t.len, 1, eo);
            CHECK(a.text && b.text && strcmp(a.text, b.text) == 0);
            if (!engine)
                oracle = a.text, a.text = NULL;
            else
                CHECK_EQ_STR(a.text, oracle);
            dump_free(&a), dump_free(&b);
        }
        free(oracle);
        pb_free(&t), pb_free(&k);
    }
    free(z), free(m);
    pb_free(&inner);
}

/* The dump of t with allocator hooks (NULL: the default) and
 * TREAD_OPT_DECOMPRESS_THREAD, in chunks, stopping every stop events. */
static char *dump_with(const pb *t, const tread_allocator *hooks, int64_t thread, size_t chunk,
                       size_t stop)
{
    dump d;
    dump_init(&d);
    d.stop_every = stop;
    const int64_t opts[] = {TREAD_OPT_FORMAT, TREAD_FORMAT_PERFETTO,
                            TREAD_OPT_DECOMPRESS_THREAD, thread, 0};
    dump_parse_alloc(&d, t->data, t->len, chunk, opts, hooks);
    return d.text;
}

/* Compressed packets expanded on the decompression thread give what the
 * decoder expanding them itself gives (TREAD_OPT_DECOMPRESS_THREAD 0, the
 * reference): many pieces per packet, damaged and bomb packets among
 * them, whole, in chunks, with stops; the option's default follows the
 * allocator, and an allocator given with 1 is called from the thread. */
static void test_compressed_threads(void)
{
    pb inner, t, k;
    pb_init(&inner);
    inner_trace(&inner, 30000); /* ~0.8 MB: a dozen pieces of 64 KiB */
    unsigned char *z, *zs;
    uLongf zl;
    size_t zsl;
    compress_both(&inner, 6, &z, &zl, &zs, &zsl);
    pb_init(&t);
    pb_init(&k);
    for (size_t i = 0; i < 4; i++) {
        /* whole twice, then cut to 2/3 and 1/3: what came out is read */
        size_t keep = i < 2 ? 3 : 4 - i;
        k.len = 0;
        pb_bytes(&k, COMP, z, zl * keep / 3);
        packet(&t, &k);
        k.len = 0;
        pb_bytes(&k, ZCOMP, zs, zsl * keep / 3);
        packet(&t, &k);
        pb te;
        simple_te(&te, 3, "between", 0);
        te_packet(&t, 1, 0, 5, &te);
        pb_free(&te);
    }
    k.len = 0;
    pb_bytes(&k, COMP, "\x78\x9c\xff\xff\xff", 5); /* does not decompress */
    packet(&t, &k);

    char *ref = dump_with(&t, NULL, 0, 0, 0);
    CHECK(ref && strstr(ref, "status=0 ") != NULL);
    static const struct {
        size_t chunk, stop;
    } runs[] = {{0, 0}, {4096, 0}, {1, 0}, {0, 1}, {333, 7}, {65536, 5000}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char *got = dump_with(&t, NULL, 1, runs[i].chunk, runs[i].stop);
        CHECK(ref && got && strcmp(ref, got) == 0);
        if (ref && got && strcmp(ref, got) != 0) {
            fprintf(stderr, "  (chunk %zu, stop every %zu)\n", runs[i].chunk, runs[i].stop);
            dump_show_difference(ref, got);
        }
        free(got);
    }

    /* allocator hooks: the default (-1) keeps every call on the caller's
     * thread; 1 lets the thread allocate (zstd's window) */
    test_thread_alloc_reset();
    char *got = dump_with(&t, &test_thread_alloc, -1, 0, 0);
    CHECK(ref && got && strcmp(ref, got) == 0);
    CHECK_EQ_INT(test_thread_alloc_elsewhere(), 0);
    free(got);
    got = dump_with(&t, &test_thread_alloc, 1, 4096, 3);
    CHECK(ref && got && strcmp(ref, got) == 0);
    CHECK(test_thread_alloc_elsewhere() > 0);
    CHECK_EQ_INT(test_thread_alloc_live(), 0);
    free(got);

    /* a parser freed in the middle of an expansion (paused) */
    t.len = 0;
    k.len = 0;
    pb_bytes(&k, COMP, z, zl);
    packet(&t, &k);
    dump d;
    dump_init(&d);
    d.stop_every = 100;
    tread_parser *p = tread_parser_create(NULL);
    tread_set_callbacks(p, &dump_callbacks, &d);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_PERFETTO), 0);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_DECOMPRESS_THREAD, 1), 0);
    CHECK_EQ_INT(tread_feed(p, t.data, t.len), TREAD_STATUS_PAUSED);
    tread_parser_free(p);
    dump_free(&d);

    CHECK_EQ_INT(tread_config(NULL, TREAD_OPT_DECOMPRESS_THREAD, 0), -1);
    p = tread_parser_create(NULL);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_DECOMPRESS_THREAD, 2), -1);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_DECOMPRESS_THREAD, -2), -1);
    tread_parser_free(p);

    free(ref), free(z), free(zs);
    pb_free(&inner), pb_free(&t), pb_free(&k);
}

/* ---- sequence state and interning ------------------------------------- */

static void test_sequence_state(void)
{
    pb t, te, idata, k;
    pb_init(&t);
    pb_init(&idata);
    intern_str(&idata, 2, 1, "named");        /* event_names */
    intern_str(&idata, 1, 1, "cat_a");        /* event_categories */
    intern_str(&idata, 1, 2, "cat_b");
    intern_str(&idata, 3, 1, "debug_arg");    /* debug_annotation_names */
    intern_str(&idata, 43, 7, "corr");        /* correlation_id_str */

    /* before any clear: needs-incremental packets are dropped */
    pb_init(&te);
    pb_varint(&te, 9, 3);
    pb_varint(&te, 10, 1);
    te_packet(&t, 2, NEEDS, 1, &te);
    /* the clear, with interned data; then the name resolves */
    clear_packet(&t, 2, &idata, NULL);
    pb_varint(&te, 3, 1); /* category_iids 1 and 2 (unpacked) */
    pb_varint(&te, 3, 2);
    pb_varint(&te, 54, 7); /* correlation_id_str_iid */
    te_packet(&t, 2, NEEDS, 2, &te);
    /* a missing iid: warned, kept, marked */
    pb te2;
    pb_init(&te2);
    pb_varint(&te2, 9, 3);
    pb_varint(&te2, 10, 42);
    te_packet(&t, 2, NEEDS, 3, &te2);
    /* data loss (DATA_LOSS_PRESENT | SMB_FULL) invalidates the state */
    pb_init(&k);
    pb_varint(&k, SEQ, 2);
    pb_varint(&k, PPD, 257);
    packet(&t, &k);
    te_packet(&t, 2, NEEDS, 4, &te);
    /* a sequence's first packet with previous_packet_dropped: not a loss */
    k.len = 0;
    pb_varint(&k, SEQ, 3);
    pb_varint(&k, PPD, 1);
    packet(&t, &k);
    /* first_packet_on_sequence says the same on a later packet */
    k.len = 0;
    pb_varint(&k, SEQ, 3);
    pb_varint(&k, PPD, 1);
    pb_varint(&k, FIRST, 1);
    packet(&t, &k);
    /* the legacy clear flag also validates */
    k.len = 0;
    pb_varint(&k, SEQ, 4);
    pb_varint(&k, CLEARED_LEGACY, 1);
    pb_msg(&k, INTERNED, &idata);
    packet(&t, &k);
    pb te3;
    pb_init(&te3);
    pb_varint(&te3, 9, 3);
    pb_varint(&te3, 10, 1);
    te_packet(&t, 4, NEEDS, 5, &te3);

    coll c;
    tread_parser *p;
    CHECK_EQ_INT(parse(&c, &t, NULL, &p), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.warn[TREAD_WARN_DROPPED_PACKET], 2);
    CHECK_EQ_INT(c.warn[TREAD_WARN_DATA_LOSS], 2);
    CHECK_EQ_INT(c.warn[TREAD_WARN_UNRESOLVED_REF], 1);
    CHECK_EQ_INT(c.n, 3);
    CHECK_EQ_STR(c.e[0].name, "named");
    CHECK_EQ_STR(c.e[0].cat, "cat_a,cat_b");
    CHECK_EQ_STR(c.e[0].id, "corr");
    CHECK_EQ_INT(c.e[0].debug_name_found, 1);
    CHECK(!(c.e[0].ev.flags & TREAD_NAME_UNRESOLVED));
    CHECK(c.e[1].ev.flags & TREAD_NAME_UNRESOLVED);
    CHECK_EQ_INT(c.e[1].ev.ts, 3);
    CHECK_EQ_STR(c.e[2].name, "named");
    CHECK_EQ_INT(c.e[2].ev.seq_id, 4);
    CHECK_EQ_INT(test_format_counter(p, "packets_dropped_invalid_state"), 2);
    CHECK_EQ_INT(test_format_counter(p, "previous_packet_dropped_by_cause.present"), 1);
    CHECK_EQ_INT(test_format_counter(p, "previous_packet_dropped_by_cause.smb_full"), 1);
    CHECK_EQ_INT(test_format_counter(p, "interning_misses"), 1);
    CHECK_EQ_INT(test_format_counter(p, "sequences"), 3);
    /* the hook saw every packet, with its state */
    CHECK_EQ_INT(c.hooks, 10);
    CHECK(c.hook_state[0] & TREAD_PF_STATE_DROPPED);
    CHECK(c.hook_state[0] & TREAD_PF_STATE_FIRST);
    CHECK(c.hook_state[1] & TREAD_PF_STATE_CLEARED);
    CHECK(c.hook_state[1] & TREAD_PF_STATE_VALID);
    CHECK(c.hook_state[4] & TREAD_PF_STATE_DATA_LOSS);
    CHECK(!(c.hook_state[4] & TREAD_PF_STATE_VALID));
    CHECK(c.hook_state[5] & TREAD_PF_STATE_DROPPED);
    CHECK(!(c.hook_state[6] & TREAD_PF_STATE_DATA_LOSS));
    CHECK(!(c.hook_state[7] & TREAD_PF_STATE_DATA_LOSS));
    tread_parser_free(p);

    /* the interned bytes are bounded */
    pb many;
    pb_init(&many);
    k.len = 0;
    char name[40];
    for (int i = 0; i < 400; i++) {
        snprintf(name, sizeof name, "a fairly long interned name %d", i);
        intern_str(&many, 2, (uint64_t)i + 1, name);
    }
    t.len = 0;
    clear_packet(&t, 1, &many, NULL);
    const int64_t lim[] = {TREAD_OPT_MAX_INTERNED_BYTES, 4096, 0};
    CHECK_EQ_INT(parse(&c, &t, lim, &p), TREAD_STATUS_ERROR);
    CHECK_EQ_INT(tread_get_error(p), TREAD_ERROR_LIMIT_MEMORY);
    tread_parser_free(p);
    /* track names count too, and their limit names the packet that
     * passed it, not byte 0 (found by a session 19 range test) */
    t.len = 0;
    char big[6000];
    memset(big, 'n', sizeof big - 1);
    big[sizeof big - 1] = 0;
    track_desc(&t, 1, 0, "small", 0, 0, 0, 1, 0);
    track_desc(&t, 2, 0, big, 0, 0, 0, 1, 0);
    CHECK_EQ_INT(parse(&c, &t, lim, &p), TREAD_STATUS_ERROR);
    CHECK_EQ_INT(tread_get_error(p), TREAD_ERROR_LIMIT_MEMORY);
    CHECK(tread_get_error_offset(p) > 0);
    CHECK(tread_get_error_offset(p) < t.len);
    CHECK_EQ_INT(t.data[tread_get_error_offset(p)], 0x0a); /* a packet's tag */
    tread_parser_free(p);
    /* a clear frees them: many clears stay within the bound */
    t.len = 0;
    pb small;
    pb_init(&small);
    intern_str(&small, 2, 1, "x");
    for (int i = 0; i < 1000; i++)
        clear_packet(&t, 1, &small, NULL);
    CHECK_EQ_INT(parse(&c, &t, lim, NULL), TREAD_STATUS_OK);

    pb_free(&t), pb_free(&te), pb_free(&te2), pb_free(&te3), pb_free(&idata), pb_free(&k);
    pb_free(&many), pb_free(&small);
}

/* ---- clocks, defaults, tracks, counters ------------------------------- */

static void clock_snapshot(pb *t, uint32_t seq, int64_t boot, uint32_t other, int64_t other_ts,
                           int incremental)
{
    pb k;
    pb_init(&k);
    pb_varint(&k, SEQ, seq);
    size_t m = pb_begin(&k, CLOCK);
    size_t c1 = pb_begin(&k, 1);
    pb_varint(&k, 1, 6);
    pb_varint(&k, 2, (uint64_t)boot);
    pb_end(&k, c1);
    size_t c2 = pb_begin(&k, 1);
    pb_varint(&k, 1, other);
    pb_varint(&k, 2, (uint64_t)other_ts);
    if (incremental)
        pb_varint(&k, 3, 1);
    pb_end(&k, c2);
    pb_end(&k, m);
    packet(t, &k);
    pb_free(&k);
}

/* The raw hook's trace clock: primary_trace_clock moves it until a
 * timestamp is converted (TREAD_PF_STATE_CLOCK_FIXED), and no more. */
static void primary_packet(pb *t, uint32_t primary, int64_t ts)
{
    pb k;
    pb_init(&k);
    pb_varint(&k, SEQ, 1);
    if (ts >= 0)
        pb_varint(&k, TS, (uint64_t)ts);
    if (primary) {
        size_t m = pb_begin(&k, CLOCK);
        size_t c1 = pb_begin(&k, 1);
        pb_varint(&k, 1, 6);
        pb_varint(&k, 2, 1000);
        pb_end(&k, c1);
        c1 = pb_begin(&k, 1);
        pb_varint(&k, 1, 3);
        pb_varint(&k, 2, 500);
        pb_end(&k, c1);
        pb_varint(&k, 2, primary);
        pb_end(&k, m);
    }
    packet(t, &k);
    pb_free(&k);
}

static void test_hook_trace_clock(void)
{
    pb t;
    pb_init(&t);
    primary_packet(&t, 0, -1);  /* 6, not fixed */
    primary_packet(&t, 3, -1);  /* 3 */
    primary_packet(&t, 6, -1);  /* 6 again */
    primary_packet(&t, 3, 700); /* 3, then fixed by its own timestamp */
    primary_packet(&t, 6, -1);  /* ignored */
    primary_packet(&t, 0, 800); /* on 3: 800 */
    coll c;
    CHECK_EQ_INT(parse(&c, &t, NULL, NULL), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.hooks, 6);
    static const uint32_t want[6] = {6, 3, 6, 3, 3, 3};
    for (int i = 0; i < 6; i++) {
        CHECK_EQ_INT(c.hook_clock[i], want[i]);
        CHECK_EQ_INT((c.hook_state[i] & TREAD_PF_STATE_CLOCK_FIXED) != 0, i >= 3);
    }
    CHECK_EQ_INT(c.n, 4); /* the snapshots' clock_sync events: a bare timestamp makes none */
    pb_free(&t);
}

/* TREAD_PF_STATE_CLOCK_BAD marks exactly the snapshots the clock module
 * ignored, which the split must not restate (fuzz_split_perfetto). */
static void test_hook_clock_bad(void)
{
    pb t;
    pb_init(&t);
    clock_snapshot(&t, 1, 1000, 3, 500, 0);  /* good */
    clock_snapshot(&t, 1, 2000, 3, 900, 1);  /* a global clock incremental */
    clock_snapshot(&t, 1, 2000, 6, 2100, 0); /* BOOTTIME twice */
    clock_snapshot(&t, 1, 3000, 4, 100, 0);  /* good */
    primary_packet(&t, 0, 600);              /* on 6 */
    coll c;
    CHECK_EQ_INT(parse(&c, &t, NULL, NULL), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.hooks, 5);
    for (int i = 0; i < 5; i++)
        CHECK_EQ_INT((c.hook_state[i] & TREAD_PF_STATE_CLOCK_BAD) != 0, i == 1 || i == 2);
    CHECK_EQ_INT(c.warn[TREAD_WARN_BAD_RECORD], 2);
    CHECK_EQ_INT(c.n, 4); /* every snapshot's clock_sync event still */
    pb_free(&t);
}

static void test_clocks_defaults_tracks(void)
{
    pb t, te, defaults;
    pb_init(&t);
    /* MONOTONIC (3) 500 == BOOTTIME 1000 */
    clock_snapshot(&t, 1, 1000, 3, 500, 0);
    /* defaults: clock 3, track 10, extra counter tracks 30 and 31 */
    pb_init(&defaults);
    pb_varint(&defaults, CLOCK_ID, 3);
    size_t m = pb_begin(&defaults, 11);
    pb_varint(&defaults, 11, 10);
    pb_varint(&defaults, 31, 30);
    pb_varint(&defaults, 45, 31);
    pb_end(&defaults, m);
    clear_packet(&t, 2, NULL, &defaults);
    track_desc(&t, 1, 0, "proc", 7, 0, 0, 1, 0);
    track_desc(&t, 10, 1, "thread", 7, 8, 0, 1, 0);
    track_desc(&t, 20, 1, "async", 0, 0, 0, 1, 0);
    track_desc(&t, 30, 1, "bytes", 0, 0, 1, 1000, 1);
    track_desc(&t, 31, 1, "ratio", 0, 0, 1, 2, 0);
    /* on the default track, default clock: 600 -> 1100 */
    simple_te(&te, 1, "b", 0);
    pb_varint(&te, 12, 5);                 /* extra_counter_values -> track 30 */
    pb_double(&te, 46, 0.25);              /* extra_double_counter_values -> 31 */
    te_packet(&t, 2, NEEDS, 600, &te);
    pb_free(&te);
    /* an async track */
    simple_te(&te, 2, NULL, 20);
    te_packet(&t, 2, NEEDS, 700, &te);
    pb_free(&te);
    /* incremental integer counter with a multiplier: 3, 3+4 */
    simple_te(&te, 4, NULL, 30);
    pb_varint(&te, 30, 3);
    te_packet(&t, 2, NEEDS, 800, &te);
    te.len = 0;
    pb_varint(&te, 9, 4);
    pb_varint(&te, 11, 30);
    pb_varint(&te, 30, 4);
    te_packet(&t, 2, NEEDS, 900, &te);
    pb_free(&te);
    /* a double counter */
    simple_te(&te, 4, NULL, 31);
    pb_double(&te, 44, 1.5);
    te_packet(&t, 2, NEEDS, 900, &te);
    pb_free(&te);
    /* a clock nothing links: raw value kept */
    pb k;
    pb_init(&k);
    pb_varint(&k, TS, 12345);
    pb_varint(&k, CLOCK_ID, 2);
    pb_varint(&k, SEQ, 2);
    simple_te(&te, 3, "raw", 0);
    pb_msg(&k, TE, &te);
    packet(&t, &k);
    /* an unknown track uuid */
    pb_free(&te);
    simple_te(&te, 3, "lost", 555);
    te_packet(&t, 2, NEEDS, 600, &te);

    coll c;
    tread_parser *p;
    CHECK_EQ_INT(parse(&c, &t, NULL, &p), TREAD_STATUS_OK);
    int i = 0;
    CHECK_EQ_INT(c.e[i].ev.kind, TREAD_EVENT_CLOCK_SYNC);
    while (i < c.n && c.e[i].ev.kind != TREAD_EVENT_SLICE_BEGIN) {
        if (c.e[i].ev.meta == TREAD_META_TRACK_DESCRIPTOR && c.e[i].ev.track_uuid == 10) {
            CHECK_EQ_INT(c.e[i].ev.track_kind, TREAD_TRACK_THREAD);
            CHECK_EQ_INT(c.e[i].ev.id_num, 1);
            CHECK_EQ_STR(c.e[i].name, "thread");
        }
        i++;
    }
    /* a thread name from the thread descriptor inside the track descriptor */
    int thread_names = 0;
    for (int j = 0; j < i; j++)
        if (c.e[j].ev.meta == TREAD_META_THREAD_NAME && c.e[j].ev.tid == 8)
            thread_names++;
    CHECK_EQ_INT(thread_names, 1);
    CHECK(i + 8 <= c.n);
    if (i + 8 > c.n)
        goto out;
    cev *e = &c.e[i];
    CHECK_EQ_INT(e->ev.ts, 1100);
    CHECK(e->ev.flags & TREAD_HAS_TRACK);
    CHECK_EQ_INT(e->ev.track_uuid, 10);
    CHECK_EQ_INT(e->ev.track_kind, TREAD_TRACK_THREAD);
    CHECK_EQ_INT(e->ev.pid, 7);
    CHECK_EQ_INT(e->ev.tid, 8);
    /* extra counters, one event each, after the main event */
    e = &c.e[i + 1];
    CHECK_EQ_INT(e->ev.kind, TREAD_EVENT_COUNTER);
    CHECK_EQ_INT(e->ev.track_uuid, 30);
    CHECK_EQ_INT(e->ev.track_kind, TREAD_TRACK_COUNTER);
    CHECK(e->ev.flags & TREAD_VALUE_IS_INT);
    CHECK_EQ_INT(e->ev.value_int, 5000);
    CHECK_EQ_STR(e->name, "bytes");
    CHECK_EQ_INT(e->ev.ts, 1100);
    e = &c.e[i + 2];
    CHECK_EQ_INT(e->ev.track_uuid, 31);
    CHECK(!(e->ev.flags & TREAD_VALUE_IS_INT));
    CHECK(e->ev.value == 0.5);
    e = &c.e[i + 3];
    CHECK_EQ_INT(e->ev.kind, TREAD_EVENT_SLICE_END);
    CHECK_EQ_INT(e->ev.track_kind, TREAD_TRACK_ASYNC);
    CHECK_EQ_INT(e->ev.pid, 7);
    CHECK(!(e->ev.flags & TREAD_HAS_TID));
    /* incremental: 5 (extra) + 3, then + 4, times 1000 */
    CHECK_EQ_INT(c.e[i + 4].ev.value_int, 8000);
    CHECK_EQ_INT(c.e[i + 5].ev.value_int, 12000);
    CHECK(c.e[i + 6].ev.value == 3.0);
    e = &c.e[i + 7];
    CHECK(e->ev.flags & TREAD_HAS_RAW_TS);
    CHECK(!(e->ev.flags & TREAD_HAS_TS));
    CHECK_EQ_INT(e->ev.raw_ts, 12345);
    CHECK_EQ_INT(e->ev.clock_id, 2);
    CHECK_EQ_INT(c.warn[TREAD_WARN_CLOCK], 1);
    CHECK_EQ_INT(test_format_counter(p, "clock_conversion_failures"), 1);
    if (i + 8 < c.n) {
        CHECK_EQ_INT(c.e[i + 8].ev.track_uuid, 555);
        CHECK_EQ_INT(c.e[i + 8].ev.track_kind, TREAD_TRACK_NONE);
    }
    CHECK_EQ_INT(test_format_counter(p, "unknown_track_refs"), 1);
out:
    tread_parser_free(p);
    pb_free(&t), pb_free(&te), pb_free(&defaults), pb_free(&k);
}

/* ---- legacy events, flows, descriptors -------------------------------- */

static void test_legacy_flows_descriptors(void)
{
    pb t, te, k;
    pb_init(&t);
    pb_init(&k);
    /* a legacy thread-bound sequence: ThreadDescriptor with references */
    pb_varint(&k, SEQ, 5);
    pb_varint(&k, CLEARED_LEGACY, 1);
    size_t m = pb_begin(&k, THDESC);
    pb_varint(&k, 1, 11);
    pb_varint(&k, 2, 12);
    pb_string(&k, 5, "legacy thread");
    pb_varint(&k, 6, 1000); /* reference_timestamp_us */
    pb_end(&k, m);
    packet(&t, &k);
    /* legacy_event: 'X' with a duration, an id, flow out, global scope */
    pb_init(&te);
    pb_varint(&te, 1, 5); /* timestamp_delta_us */
    pb_string(&te, 23, "legacy");
    m = pb_begin(&te, 6);
    pb_varint(&te, 2, 'X');
    pb_varint(&te, 3, 7);      /* duration_us */
    pb_varint(&te, 11, 0x1f);  /* global_id */
    pb_varint(&te, 8, 0x20);   /* bind_id */
    pb_varint(&te, 13, 2);     /* FLOW_OUT */
    pb_varint(&te, 14, 1);     /* SCOPE_GLOBAL */
    pb_end(&te, m);
    /* flows: fixed64 packed, fixed64 unpacked, old varint, terminating */
    uint64_t f2[2] = {101, 102};
    unsigned char raw[16];
    for (int i = 0; i < 2; i++)
        for (int b = 0; b < 8; b++)
            raw[i * 8 + b] = (unsigned char)(f2[i] >> (8 * b));
    pb_bytes(&te, 47, raw, 16);
    pb_fixed64(&te, 47, 103);
    pb_varint(&te, 36, 104);
    pb_fixed64(&te, 48, 201);
    te_packet(&t, 5, 0, -1, &te);
    pb_free(&te);
    /* process descriptor and process tree */
    k.len = 0;
    pb_varint(&k, SEQ, 5);
    m = pb_begin(&k, PDESC);
    pb_varint(&k, 1, 11);
    pb_string(&k, 6, "legacy process");
    pb_end(&k, m);
    packet(&t, &k);
    k.len = 0;
    m = pb_begin(&k, PTREE);
    size_t pm = pb_begin(&k, 1);
    pb_varint(&k, 1, 40);
    pb_string(&k, 3, "/bin/tree");
    pb_end(&k, pm);
    size_t tm = pb_begin(&k, 2);
    pb_varint(&k, 1, 41);
    pb_varint(&k, 3, 40);
    pb_string(&k, 2, "tree thread");
    pb_end(&k, tm);
    pb_end(&k, m);
    packet(&t, &k);
    /* an event with neither type nor legacy phase */
    pb_init(&te);
    pb_string(&te, 23, "typeless");
    te_packet(&t, 5, 0, -1, &te);
    /* legacy phases M and V map as in JSON; a METADATA event says what it
     * sets (OTHER) */
    te.len = 0;
    pb_string(&te, 23, "meta");
    m = pb_begin(&te, 6);
    pb_varint(&te, 2, 'M');
    pb_end(&te, m);
    te_packet(&t, 5, 0, -1, &te);
    te.len = 0;
    pb_string(&te, 23, "dump");
    m = pb_begin(&te, 6);
    pb_varint(&te, 2, 'V');
    pb_end(&te, m);
    te_packet(&t, 5, 0, -1, &te);

    coll c;
    CHECK_EQ_INT(parse(&c, &t, NULL, NULL), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.n, 8);
    CHECK_EQ_INT(c.e[6].ev.kind, TREAD_EVENT_METADATA);
    CHECK_EQ_INT(c.e[6].ev.meta, TREAD_META_OTHER);
    CHECK_EQ_INT(c.e[6].ev.phase, 'M');
    CHECK_EQ_INT(c.e[7].ev.kind, TREAD_EVENT_MEMORY_DUMP);
    CHECK_EQ_INT(c.e[7].ev.meta, TREAD_META_NONE);
    CHECK_EQ_INT(c.e[0].ev.meta, TREAD_META_THREAD_NAME);
    CHECK_EQ_STR(c.e[0].meta_str, "legacy thread");
    CHECK_EQ_INT(c.e[0].ev.pid, 11);
    CHECK_EQ_INT(c.e[0].ev.tid, 12);
    cev *e = &c.e[1];
    CHECK_EQ_INT(e->ev.kind, TREAD_EVENT_COMPLETE);
    CHECK_EQ_INT(e->ev.phase, 'X');
    CHECK_EQ_INT(e->ev.ts, 1005000);
    CHECK_EQ_INT(e->ev.dur, 7000);
    CHECK_EQ_INT(e->ev.pid, 11);
    CHECK_EQ_INT(e->ev.tid, 12);
    CHECK_EQ_INT(e->ev.track_kind, TREAD_TRACK_THREAD);
    CHECK_EQ_STR(e->id, "0x1f");
    CHECK(e->ev.flags & TREAD_ID_GLOBAL);
    CHECK_EQ_STR(e->bind, "0x20");
    CHECK(e->ev.flags & TREAD_FLOW_OUT);
    CHECK_EQ_INT(e->ev.scope, TREAD_SCOPE_GLOBAL);
    CHECK_EQ_INT(e->ev.flow_ids.n, 4);
    CHECK_EQ_INT(e->flows[0], 101);
    CHECK_EQ_INT(e->flows[1], 102);
    CHECK_EQ_INT(e->flows[2], 103);
    CHECK_EQ_INT(e->flows[3], 104);
    CHECK_EQ_INT(e->ev.terminating_flow_ids.n, 1);
    CHECK_EQ_INT(e->tflows[0], 201);
    CHECK_EQ_INT(c.e[2].ev.meta, TREAD_META_PROCESS_NAME);
    CHECK_EQ_STR(c.e[2].meta_str, "legacy process");
    CHECK_EQ_INT(c.e[3].ev.meta, TREAD_META_PROCESS_NAME);
    CHECK_EQ_INT(c.e[3].ev.pid, 40);
    CHECK_EQ_STR(c.e[3].meta_str, "/bin/tree");
    CHECK_EQ_INT(c.e[4].ev.meta, TREAD_META_THREAD_NAME);
    CHECK_EQ_INT(c.e[4].ev.tid, 41);
    CHECK_EQ_INT(c.e[4].ev.pid, 40);
    CHECK_EQ_INT(c.e[5].ev.kind, TREAD_EVENT_UNKNOWN);
    CHECK_EQ_INT(c.warn[TREAD_WARN_UNKNOWN_PHASE], 1);
    pb_free(&t), pb_free(&te), pb_free(&k);
}

/* ---- ChromeEventBundle ------------------------------------------------ */

static void test_chrome(void)
{
    pb t, k;
    pb_init(&t);
    pb_init(&k);
    size_t m = pb_begin(&k, CHROME);
    size_t md = pb_begin(&k, 2); /* metadata */
    pb_string(&k, 1, "product-version");
    pb_string(&k, 2, "Chrome/1");
    pb_end(&k, md);
    size_t st = pb_begin(&k, 3); /* string table */
    pb_string(&k, 1, "from_table");
    pb_varint(&k, 2, 1);
    pb_end(&k, st);
    size_t ev = pb_begin(&k, 1); /* ChromeTraceEvent */
    pb_varint(&k, 15, 1);
    pb_varint(&k, 2, 3);
    pb_varint(&k, 3, 'I');
    pb_varint(&k, 11, 9);
    pb_end(&k, ev);
    size_t lj = pb_begin(&k, 5); /* legacy JSON */
    pb_string(&k, 2, "{\"ph\":\"B\",\"name\":\"j1\",\"ts\":1,\"pid\":1,\"tid\":2},"
                     "{\"ph\":\"E\",\"ts\":2,\"pid\":1,\"tid\":2}");
    pb_end(&k, lj);
    lj = pb_begin(&k, 5); /* a damaged one: warned, the trace goes on */
    pb_string(&k, 2, "{\"ph\":");
    pb_end(&k, lj);
    pb_end(&k, m);
    packet(&t, &k);
    pb te;
    simple_te(&te, 3, "after", 0);
    te_packet(&t, 1, 0, 5, &te);
    coll c;
    CHECK_EQ_INT(parse(&c, &t, NULL, NULL), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.n, 5);
    CHECK_EQ_INT(c.e[0].ev.meta, TREAD_META_TRACE);
    CHECK_EQ_STR(c.e[0].name, "product-version");
    CHECK_EQ_STR(c.e[0].meta_str, "Chrome/1");
    CHECK_EQ_INT(c.e[1].ev.kind, TREAD_EVENT_INSTANT);
    CHECK_EQ_STR(c.e[1].name, "from_table");
    CHECK_EQ_INT(c.e[1].ev.ts, 3000);
    CHECK_EQ_INT(c.e[2].ev.kind, TREAD_EVENT_SLICE_BEGIN);
    CHECK_EQ_STR(c.e[2].name, "j1");
    CHECK_EQ_INT(c.e[2].ev.ts, 1000);
    CHECK_EQ_INT(c.e[3].ev.kind, TREAD_EVENT_SLICE_END);
    CHECK_EQ_STR(c.e[4].name, "after");
    CHECK(c.warn[TREAD_WARN_BAD_RECORD] + c.warn[TREAD_WARN_TRUNCATED_EVENT] +
              c.warn[TREAD_WARN_MISSING_END] >= 1);

    /* a packet time on a clock with no path to the trace clock (raw) and
     * the event's own time: the event has a trace-clock time only (found
     * by fuzz_perfetto: both flags were set) */
    {
        pb t2, k2;
        pb_init(&t2);
        pb_init(&k2);
        pb_varint(&k2, SEQ, 1);
        pb_varint(&k2, TS, 5100);
        pb_varint(&k2, CLOCK_ID, 3);
        size_t cm = pb_begin(&k2, CHROME);
        size_t em = pb_begin(&k2, 1);
        pb_varint(&k2, 2, 7);
        pb_varint(&k2, 3, 'I');
        pb_end(&k2, em);
        pb_end(&k2, cm);
        pb_varint(&k2, TS, 5100);
        packet(&t2, &k2);
        coll c2;
        CHECK_EQ_INT(parse(&c2, &t2, NULL, NULL), TREAD_STATUS_OK);
        CHECK_EQ_INT(c2.n, 1);
        CHECK(c2.e[0].ev.flags & TREAD_HAS_TS);
        CHECK(!(c2.e[0].ev.flags & TREAD_HAS_RAW_TS));
        CHECK_EQ_INT(c2.e[0].ev.ts, 7000);
        pb_free(&t2), pb_free(&k2);
    }

    dump a, b, s;
    dump_init(&a), dump_init(&b), dump_init(&s);
    s.stop_every = 1;
    dump_parse(&a, t.data, t.len, 0, NULL);
    dump_parse(&b, t.data, t.len, 1, NULL);
    dump_parse(&s, t.data, t.len, 0, NULL);
    CHECK(a.text && b.text && strcmp(a.text, b.text) == 0);
    if (a.text && b.text && strcmp(a.text, b.text) != 0)
        dump_show_difference(a.text, b.text);
    CHECK(a.text && s.text && strcmp(a.text, s.text) == 0);
    if (a.text && s.text && strcmp(a.text, s.text) != 0)
        dump_show_difference(a.text, s.text);
    CHECK_EQ_INT(s.stops, 5);
    dump_free(&a), dump_free(&b), dump_free(&s);
    pb_free(&t), pb_free(&k), pb_free(&te);
}

/* A ChromeTraceEvent's name and category indices come from the input:
 * one past the string table, or so large that times the entry's size it
 * wrapped (2^60 - 1 and up), leaves the name unset; before the fix the
 * bounds check wrapped too and the name was read from before the table or
 * from another entry (fuzz_split_perfetto, a UBSan report on
 * pf_chrome.c's table_get). */
static void test_chrome_string_index(void)
{
    /* (2^60 + 1: wrapped, it named entry 1, the table's string) */
    static const uint64_t bad[] = {2, 3, 1000000, (1ull << 60) - 1, 1ull << 60,
                                   (1ull << 60) + 1, UINT64_MAX / 16, UINT64_MAX};
    const size_t nbad = sizeof bad / sizeof bad[0];
    pb t, k;
    pb_init(&t);
    pb_init(&k);
    size_t m = pb_begin(&k, CHROME);
    size_t st = pb_begin(&k, 3); /* string table: index 1 */
    pb_string(&k, 1, "from_table");
    pb_varint(&k, 2, 1);
    pb_end(&k, st);
    for (size_t i = 0; i <= nbad; i++) {
        size_t ev = pb_begin(&k, 1);
        pb_varint(&k, 15, i < nbad ? bad[i] : 1); /* name_index */
        pb_varint(&k, 16, i < nbad ? bad[nbad - 1 - i] : 1); /* category index */
        pb_varint(&k, 2, 3 + i);
        pb_varint(&k, 3, 'I');
        pb_end(&k, ev);
    }
    pb_end(&k, m);
    packet(&t, &k);
    coll c;
    CHECK_EQ_INT(parse(&c, &t, NULL, NULL), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.n, (int)nbad + 1);
    for (size_t i = 0; i < nbad && (int)i < c.n; i++) {
        CHECK(c.e[i].ev.name.ptr == NULL);
        CHECK(c.e[i].ev.cat.ptr == NULL);
        CHECK_EQ_STR(c.e[i].name, "");
    }
    if (c.n == (int)nbad + 1) {
        CHECK_EQ_STR(c.e[nbad].name, "from_table");
        CHECK_EQ_STR(c.e[nbad].cat, "from_table");
    }
    pb_free(&t), pb_free(&k);
}

/* ---- chunk and stop equivalence over a mixed trace -------------------- */

static void test_equivalence(void)
{
    pb t, te, idata;
    pb_init(&t);
    pb_init(&idata);
    intern_str(&idata, 2, 1, "interned name");
    clock_snapshot(&t, 1, 1000, 3, 500, 0);
    clear_packet(&t, 2, &idata, NULL);
    track_desc(&t, 10, 0, "t", 3, 4, 0, 1, 0);
    for (int i = 0; i < 30; i++) {
        pb_init(&te);
        pb_varint(&te, 9, (uint64_t)(i % 3 + 1));
        pb_varint(&te, 10, 1);
        pb_varint(&te, 11, 10);
        pb_fixed64(&te, 47, (uint64_t)i);
        pb_varint(&te, 12, (uint64_t)i);
        pb_varint(&te, 31, 10);
        te_packet(&t, 2, NEEDS, 100 + i, &te);
        pb_free(&te);
    }
    dump ref;
    dump_init(&ref);
    dump_parse(&ref, t.data, t.len, 0, NULL);
    CHECK(ref.events >= 60);
    const size_t chunks[] = {1, 2, 7, 64};
    for (size_t i = 0; i < 4; i++) {
        for (int stop = 0; stop < 2; stop++) {
            dump d;
            dump_init(&d);
            d.stop_every = (size_t)stop;
            dump_parse(&d, t.data, t.len, chunks[i], NULL);
            CHECK(ref.text && d.text && strcmp(ref.text, d.text) == 0);
            if (ref.text && d.text && strcmp(ref.text, d.text) != 0)
                dump_show_difference(ref.text, d.text);
            dump_free(&d);
        }
    }
    dump_free(&ref);
    pb_free(&t), pb_free(&idata);
}

/* TrackEvent TYPE_STATE (5) on a state track: a named state is a slice
 * begun there and ended by the next state event on the track (an unnamed
 * one only ends it); and tracks whose parent chain names a uuid no
 * descriptor defines: kept, flagged TREAD_TRACK_UNRESOLVED, counted, until
 * the descriptor comes. Every chunk size gives the same events. */
static void test_state_and_missing_parents(void)
{
    pb t, te;
    pb_init(&t);
    track_desc(&t, 10, 0, "proc", 3, 0, 0, 1, 0);
    track_desc(&t, 20, 10, "state track", 0, 0, 0, 1, 0);
    track_desc(&t, 30, 999, "orphan", 0, 0, 0, 1, 0);
    track_desc(&t, 40, 30, "orphan's child", 0, 0, 0, 1, 0);
    track_desc(&t, 50, 777, "parent never defined", 0, 0, 0, 1, 0);
    const char *states[] = {"A", "B", NULL, NULL, "C"};
    for (int i = 0; i < 5; i++) {
        simple_te(&te, 5, states[i], 20);
        te_packet(&t, 7, 0, 100 + i, &te);
        pb_free(&te);
    }
    simple_te(&te, 3, "on orphan", 30);
    te_packet(&t, 7, 0, 200, &te);
    pb_free(&te);
    simple_te(&te, 3, "on its child", 40);
    te_packet(&t, 7, 0, 201, &te);
    pb_free(&te);
    track_desc(&t, 999, 0, "late parent", 0, 0, 0, 1, 0);
    simple_te(&te, 3, "after", 30);
    te_packet(&t, 7, 0, 202, &te);
    pb_free(&te);
    simple_te(&te, 3, "after", 40);
    te_packet(&t, 7, 0, 203, &te);
    pb_free(&te);

    coll c;
    tread_parser *p;
    CHECK_EQ_INT(parse(&c, &t, NULL, &p), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.warn[TREAD_WARN_UNKNOWN_PHASE], 0);
    CHECK_EQ_INT(test_format_counter(p, "track_parent_missing"), 2);
    /* what is still missing once the whole trace is read */
    CHECK_EQ_INT(test_format_counter(p, "tracks_parent_missing_at_end"), 1);
    tread_parser_free(p);
    /* 5 descriptors (+ the late one) as metadata, then the events */
    int k = 0;
    while (k < c.n && c.e[k].ev.kind == TREAD_EVENT_METADATA)
        k++;
    CHECK_EQ_INT(k, 5);
    static const struct { tread_event_kind kind; const char *name; int64_t ts; } want[] = {
        {TREAD_EVENT_SLICE_BEGIN, "A", 100},
        {TREAD_EVENT_SLICE_END, "", 101}, {TREAD_EVENT_SLICE_BEGIN, "B", 101},
        {TREAD_EVENT_SLICE_END, "", 102},
        {TREAD_EVENT_SLICE_END, "", 103},
        {TREAD_EVENT_SLICE_BEGIN, "C", 104},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++, k++) {
        if (k >= c.n)
            break;
        CHECK_EQ_INT(c.e[k].ev.kind, want[i].kind);
        CHECK_EQ_STR(c.e[k].name, want[i].name);
        CHECK_EQ_INT(c.e[k].ev.ts, want[i].ts);
        CHECK_EQ_INT(c.e[k].ev.track_uuid, 20);
        CHECK_EQ_INT(c.e[k].ev.phase, want[i].kind == TREAD_EVENT_SLICE_BEGIN ? 'B' : 'E');
        CHECK(!(c.e[k].ev.flags & TREAD_TRACK_UNRESOLVED));
        CHECK_EQ_INT(c.e[k].ev.pid, 3); /* the state track's parent's process */
    }
    CHECK_EQ_INT(k, 5 + 6);
    if (k + 5 != c.n)
        CHECK_EQ_INT(c.n, k + 5);
    else {
        CHECK_EQ_STR(c.e[k].name, "on orphan");
        CHECK(c.e[k].ev.flags & TREAD_TRACK_UNRESOLVED);
        CHECK_EQ_STR(c.e[k + 1].name, "on its child");
        CHECK(c.e[k + 1].ev.flags & TREAD_TRACK_UNRESOLVED);
        CHECK_EQ_INT(c.e[k + 2].ev.kind, TREAD_EVENT_METADATA);
        CHECK(!(c.e[k + 3].ev.flags & TREAD_TRACK_UNRESOLVED));
        CHECK(!(c.e[k + 4].ev.flags & TREAD_TRACK_UNRESOLVED));
    }

    dump ref;
    dump_init(&ref);
    dump_parse(&ref, t.data, t.len, 0, NULL);
    for (size_t chunk = 1; chunk <= t.len; chunk++) {
        for (int stop = 0; stop < 2; stop++) {
            dump d;
            dump_init(&d);
            d.stop_every = (size_t)stop;
            dump_parse(&d, t.data, t.len, chunk, NULL);
            CHECK(ref.text && d.text && strcmp(ref.text, d.text) == 0);
            if (ref.text && d.text && strcmp(ref.text, d.text) != 0) {
                dump_show_difference(ref.text, d.text);
                chunk = t.len;
            }
            dump_free(&d);
        }
    }
    dump_free(&ref);
    pb_free(&t);
}

/* A track without its own thread or process descriptor takes its pid (and
 * a counter track, through counter parents, its tid) from its parent
 * chain when it is used, not when it is described: descriptors in any
 * order give the same events. Tracks: 200 thread (pid 5, tid 6); 300
 * async under 200; 310 counter under 200; 320 counter under 310; 330
 * async under 300; 340 counter under 300 (no tid: an async track between);
 * 500 and 501 each other's parent (a cycle: no pid). */
static const struct {
    uint64_t uuid, parent;
    int counter;
    int has_pid, has_tid;
} chain_tracks[] = {
    {340, 300, 1, 1, 0}, {330, 300, 0, 1, 0}, {320, 310, 1, 1, 1},
    {310, 200, 1, 1, 1}, {300, 200, 0, 1, 0}, {500, 501, 0, 0, 0}, {501, 500, 0, 0, 0},
};
#define N_CHAIN (sizeof chain_tracks / sizeof chain_tracks[0])

static void chain_trace(pb *t, int parent_first)
{
    pb te;
    pb_init(t);
    if (parent_first)
        track_desc(t, 200, 0, "thread", 5, 6, 0, 1, 0);
    for (size_t i = 0; i < N_CHAIN; i++) {
        /* (the table is child first; the cycle, last, in one order) */
        size_t j = parent_first && i < N_CHAIN - 2 ? N_CHAIN - 3 - i : i;
        track_desc(t, chain_tracks[j].uuid, chain_tracks[j].parent, "track", 0, 0,
                   chain_tracks[j].counter, 1, 0);
    }
    /* an event on 330 while (child first) 200 is not described yet:
     * unresolved, no pid; once it is, resolved */
    simple_te(&te, 3, "early", 330);
    te_packet(t, 7, 0, 50, &te);
    pb_free(&te);
    if (!parent_first)
        track_desc(t, 200, 0, "thread", 5, 6, 0, 1, 0);
    for (size_t i = 0; i < N_CHAIN; i++) {
        simple_te(&te, chain_tracks[i].counter ? 4 : 3, "on track", chain_tracks[i].uuid);
        if (chain_tracks[i].counter)
            pb_varint(&te, 30, 7);
        te_packet(t, 7, 0, 100 + (int64_t)i, &te);
        pb_free(&te);
    }
}

static void test_child_before_parent(void)
{
    static const int64_t fast_off[] = {TREAD_OPT_PERFETTO_FAST_PATH, 0, 0};
    char *texts[2] = {NULL, NULL};
    for (int order = 0; order < 2; order++) {
        for (int general = 0; general < 2; general++) {
            pb t;
            chain_trace(&t, order);
            coll c;
            CHECK_EQ_INT(parse(&c, &t, general ? fast_off : NULL, NULL), TREAD_STATUS_OK);
            int seen = 0, early = 0;
            for (int k = 0; k < c.n; k++) {
                const tread_event *ev = &c.e[k].ev;
                if (ev->kind == TREAD_EVENT_METADATA)
                    continue;
                if (ev->ts == 50) {
                    early++;
                    CHECK_EQ_INT(!!(ev->flags & TREAD_TRACK_UNRESOLVED), !order);
                    CHECK_EQ_INT(!!(ev->flags & TREAD_HAS_PID), order);
                    CHECK(!(ev->flags & TREAD_HAS_TID));
                    continue;
                }
                size_t i = (size_t)(ev->ts - 100);
                if (i >= N_CHAIN || ev->track_uuid != chain_tracks[i].uuid) {
                    CHECK(0);
                    continue;
                }
                seen++;
                CHECK(!(ev->flags & TREAD_TRACK_UNRESOLVED) || chain_tracks[i].uuid >= 500);
                CHECK_EQ_INT(!!(ev->flags & TREAD_HAS_PID), chain_tracks[i].has_pid);
                CHECK_EQ_INT(!!(ev->flags & TREAD_HAS_TID), chain_tracks[i].has_tid);
                if (chain_tracks[i].has_pid)
                    CHECK_EQ_INT(ev->pid, 5);
                CHECK_EQ_INT(ev->tid, chain_tracks[i].has_tid ? 6 : chain_tracks[i].has_pid ? 5 : 0);
            }
            CHECK_EQ_INT(seen, (int)N_CHAIN);
            CHECK_EQ_INT(early, 1);
            /* every chunk size, with and without stops, gives the same */
            if (!general) {
                dump ref;
                dump_init(&ref);
                dump_parse(&ref, t.data, t.len, 0, NULL);
                for (size_t chunk = 1; chunk <= t.len; chunk += 7) {
                    dump d;
                    dump_init(&d);
                    d.stop_every = chunk % 2;
                    dump_parse(&d, t.data, t.len, chunk, NULL);
                    CHECK(ref.text && d.text && strcmp(ref.text, d.text) == 0);
                    dump_free(&d);
                }
                /* the events on the tracks, metadata aside, are the same in
                 * both orders */
                if (ref.text) {
                    const char *at = strstr(ref.text, "ts=100");
                    const char *ls = at;
                    while (ls && ls > ref.text && ls[-1] != '\n')
                        ls--;
                    texts[order] = strdup(ls ? ls : "");
                }
                dump_free(&ref);
            }
            pb_free(&t);
        }
    }
    CHECK(texts[0] && texts[1] && strcmp(texts[0], texts[1]) == 0);
    if (texts[0] && texts[1] && strcmp(texts[0], texts[1]) != 0)
        dump_show_difference(texts[0], texts[1]);
    free(texts[0]);
    free(texts[1]);
}

int main(void)
{
    test_framing();
    test_compressed();
    test_compressed_zlib_wrapper();
    test_compressed_threads();
    test_sequence_state();
    test_clocks_defaults_tracks();
    test_hook_trace_clock();
    test_hook_clock_bad();
    test_legacy_flows_descriptors();
    test_chrome();
    test_chrome_string_index();
    test_equivalence();
    test_state_and_missing_parents();
    test_child_before_parent();
    return TEST_EXIT();
}
