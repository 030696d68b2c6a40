/*
 * The inflate engines (TREAD_OPT_INFLATE): isa-l, when tread was built
 * with it, against zlib, the oracle, on gzip input: members of every kind
 * (levels, stored blocks, empty, FEXTRA/FNAME/FCOMMENT/FHCRC headers),
 * garbage after the last one, checksums and lengths that do not match,
 * damaged headers, cuts at every byte and damaged deflate data, in chunks
 * down to one byte and on the decompression thread. Intact input gives
 * the same dump, every event field by field; damaged input the promises
 * of tread(3) (TREAD_OPT_INFLATE). Perfetto's compressed packets are
 * compared in test_perfetto.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <zlib.h>
#include "event_dump.h"
#include "testlib.h"

enum { FTEXT = 1, FHCRC = 2, FEXTRA = 4, FNAME = 8, FCOMMENT = 16 };

static int have_isal;

/* A JSON trace of n events with varied names: dynamic Huffman blocks. */
static char *make_trace(int n, size_t *len)
{
    size_t cap = (size_t)n * 160 + 64, k = 0;
    char *s = malloc(cap);
    uint64_t x = 0x9e3779b97f4a7c15u;
    k += (size_t)snprintf(s + k, cap - k, "{\"traceEvents\":[");
    for (int i = 0; i < n; i++) {
        uint64_t r = test_rand(&x);
        k += (size_t)snprintf(s + k, cap - k,
                              "%s{\"ph\":\"%c\",\"name\":\"slice_%" PRIu64 "\",\"cat\":\"c%u\","
                              "\"pid\":%u,\"tid\":%u,\"ts\":%d,\"dur\":%u}",
                              i ? "," : "", "XBEiC"[r % 5], r % 997, (unsigned)(r >> 20) % 7,
                              (unsigned)(r >> 30) % 3, (unsigned)(r >> 40) % 11, i * 3,
                              (unsigned)(r >> 50) % 100);
    }
    k += (size_t)snprintf(s + k, cap - k, "]}");
    *len = k;
    return s;
}

static void put32le(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* One gzip member of in[0, n) at out (room enough), with the header
 * fields of flags, deflated at level (0: stored blocks); its length. */
static size_t member(unsigned char *out, const void *in, size_t n, int flags, int level)
{
    size_t k = 0;
    const unsigned char head[10] = {0x1f, 0x8b, 8, (unsigned char)flags, 1, 2, 3, 4, 0, 3};
    memcpy(out, head, 10);
    k = 10;
    if (flags & FEXTRA) {
        out[k++] = 6, out[k++] = 0;
        memcpy(out + k, "AB\2\0xy", 6);
        k += 6;
    }
    if (flags & FNAME) {
        memcpy(out + k, "trace.json", 11);
        k += 11;
    }
    if (flags & FCOMMENT) {
        memcpy(out + k, "a comment", 10);
        k += 10;
    }
    if (flags & FHCRC) {
        uint32_t c = (uint32_t)crc32(0, out, (uInt)k);
        out[k++] = (unsigned char)c, out[k++] = (unsigned char)(c >> 8);
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        abort();
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    z.next_out = out + k;
    z.avail_out = (uInt)(deflateBound(&z, n));
    if (deflate(&z, Z_FINISH) != Z_STREAM_END)
        abort();
    k += z.total_out;
    deflateEnd(&z);
    put32le(out + k, (uint32_t)crc32(0, in, (uInt)n));
    put32le(out + k + 4, (uint32_t)n);
    return k + 8;
}

/* The dump of buf inflated by engine (0 zlib, 1 isa-l). */
static char *parse_with(const void *buf, size_t len, size_t chunk, int engine, int thread)
{
    const int64_t opts[] = {TREAD_OPT_INFLATE, engine, TREAD_OPT_DECOMPRESS_THREAD, thread, 0};
    dump d;
    dump_init(&d);
    dump_parse(&d, buf, len, chunk, opts);
    return d.text;
}

/* A field of the status line (the last line of a dump). */
static uint64_t status_num(const char *text, const char *field)
{
    const char *s = strstr(text + dump_body_len(text), field);
    return s ? strtoull(s + strlen(field), NULL, 10) : UINT64_MAX;
}

static int status_int(const char *text)
{
    return (int)strtol(text + dump_body_len(text) + strlen("status="), NULL, 10);
}

static const char *status_error(const char *text, char *buf, size_t cap)
{
    const char *s = strstr(text + dump_body_len(text), " error=");
    size_t n = strcspn(s + 7, " ");
    snprintf(buf, cap, "%.*s", (int)(n < cap ? n : cap - 1), s + 7);
    return buf;
}

/* Every chunking and the thread give engine's dump ref. */
static void engine_dumps(const char *what, const unsigned char *buf, size_t len, int engine,
                         const char *ref)
{
    static const size_t chunks[] = {0, 1, 7, 4096};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        for (int thread = 0; thread < 2; thread++) {
            if (thread && c != 0 && c != 3)
                continue;
            char *got = parse_with(buf, len, chunks[c], engine, thread);
            int same = strcmp(got, ref) == 0;
            CHECK(same);
            if (!same) {
                fprintf(stderr, "  %s: engine %d chunk %zu thread %d differs\n", what, engine,
                        chunks[c], thread);
                dump_show_difference(ref, got);
            }
            free(got);
        }
    }
}

/* The error of a status line: its kind, offset and message. */
static char *error_part(const char *text)
{
    const char *s = strstr(text + dump_body_len(text), " error=");
    const char *e = strstr(s, " events=");
    char *r = malloc((size_t)(e - s) + 1);
    memcpy(r, s, (size_t)(e - s));
    r[e - s] = 0;
    return r;
}

/* Where the engines must agree: isa-l's dump equals zlib's fed the same
 * way, whole, in chunks and on the thread; with errors_only, only the
 * error (isa-l's input is staged, so what came out before an error may
 * differ, as it may between chunkings). */
static void agree(const char *what, const unsigned char *buf, size_t len, int errors_only)
{
    static const size_t chunks[] = {0, 1, 7, 4096};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        for (int thread = 0; thread < 2; thread++) {
            if (thread && c != 0 && c != 3)
                continue;
            char *ref = parse_with(buf, len, chunks[c], 0, thread);
            if (have_isal) {
                char *got = parse_with(buf, len, chunks[c], 1, thread);
                int same = strcmp(got, ref) == 0;
                if (errors_only) {
                    char *e1 = error_part(ref), *e2 = error_part(got);
                    same = strcmp(e1, e2) == 0;
                    free(e1), free(e2);
                }
                CHECK(same);
                if (!same) {
                    fprintf(stderr, "  %s: chunk %zu thread %d differs\n", what, chunks[c], thread);
                    dump_show_difference(ref, got);
                }
                free(got);
            }
            free(ref);
        }
    }
}

static void test_config(void)
{
    tread_parser *p = tread_parser_create(NULL);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_INFLATE, -1), 0);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_INFLATE, 0), 0);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_INFLATE, 2), -1);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_INFLATE, -2), -1);
    have_isal = tread_config(p, TREAD_OPT_INFLATE, 1) == 0;
    tread_parser_free(p);
    if (!have_isal)
        printf("isa-l not built in: zlib against itself only\n");
}

static void test_intact(void)
{
    size_t n;
    char *t = make_trace(3000, &n);
    size_t cap = 4 * n + 4096;
    unsigned char *g = malloc(cap);
    size_t k = member(g, t, n, 0, 6);
    agree("one member", g, k, 0);
    /* members: levels 1 and 9, stored blocks, empty, every header field */
    size_t third = n / 3;
    k = member(g, t, third, 0, 1);
    k += member(g + k, t + third, third, FNAME, 9);
    k += member(g + k, t, 0, 0, 6);
    k += member(g + k, t + 2 * third, 100, FEXTRA | FNAME | FCOMMENT | FHCRC | FTEXT, 0);
    k += member(g + k, t + 2 * third + 100, n - 2 * third - 100, FCOMMENT | FHCRC, 6);
    char *plain = parse_with(t, n, 0, 0, 0);
    char *ref = parse_with(g, k, 0, 0, 0);
    /* the same events as the plain trace */
    CHECK(strncmp(ref, plain, dump_body_len(plain)) == 0);
    agree("five members", g, k, 0);

    /* after the last member: garbage, zeros (tar's padding), a lone 0x1f,
     * the magic alone */
    static const struct {
        const char *bytes;
        size_t n;
    } tails[] = {{"JUNKJUNK", 8}, {"\0\0\0\0\0\0\0\0\0\0\0\0", 12}, {"\x1f", 1}, {"\x1f\x8b", 2},
                 {"\x1f\x8b\x08\x00", 4}};
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        memcpy(g + k, tails[i].bytes, tails[i].n);
        agree("trailing bytes", g, k + tails[i].n, 0);
    }
    free(plain), free(ref), free(g), free(t);
}

/* Where the engines differ by design, and where they must not. */
static void test_damaged(void)
{
    size_t n;
    char *t = make_trace(3000, &n);
    size_t cap = 4 * n + 4096;
    unsigned char *g = malloc(cap), *m = malloc(cap);
    size_t k1 = member(g, t, n / 2, FHCRC | FNAME, 6);
    size_t k = k1 + member(g + k1, t + n / 2, n - n / 2, 0, 6);

    /* checksums and headers: zlib's error, message and offset (the header
     * is read as zlib reads it; a wrong CRC-32 is found at the length
     * after it, a wrong length at the end) */
    static const struct {
        const char *what, *msg;
        long at;   /* the byte changed: from the start, or (< 0) the end */
        int value; /* its new value, or (< 0) the bits flipped */
        long off;  /* the error's offset (< 0: from the end) */
    } cases[] = {
        {"crc32", "incorrect data check", -5, -1, -4},
        {"length", "incorrect length check", -1, -1, 0},
        {"first crc32", "incorrect data check", -1, -1, 0},
        {"method", "unknown compression method", 2, 9, 4},
        {"reserved flag 0x20", "unknown header flags set", 3, 0x20 | FHCRC | FNAME, 4},
        {"reserved flag 0x80", "unknown header flags set", 3, 0x80 | FHCRC | FNAME, 4},
        {"header crc", "header crc mismatch", 10 + 11, -1, 23},
        {"second magic", "incorrect header check", -2, 0x8c, -3},
        {"second method", "unknown compression method", -3, 7, -5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(m, g, k);
        size_t at = cases[i].at >= 0 ? (size_t)cases[i].at : k + (size_t)cases[i].at;
        long off = cases[i].off;
        if (i == 2) /* the first member's CRC-32 */
            at = k1 - 5, off = (long)k1 - 4 - (long)k;
        if (i >= 7) /* in the second member's header */
            at = k1 + (size_t)(-cases[i].at) - 1, off = (long)k1 + (-off) - 1 - (long)k;
        m[at] = cases[i].value >= 0 ? (unsigned char)cases[i].value : m[at] ^ 1;
        char *z = parse_with(m, k, 0, 0, 0);
        char want[160];
        snprintf(want, sizeof want, " error=decompress off=%ld msg=corrupt gzip data at compressed byte %ld: %s ",
                 (long)(off > 0 ? off : (long)k + off), (long)(off > 0 ? off : (long)k + off),
                 cases[i].msg);
        CHECK(strstr(z + dump_body_len(z), want) != NULL);
        if (!strstr(z + dump_body_len(z), want))
            fprintf(stderr, "  %s: %s  want%s\n", cases[i].what, z + dump_body_len(z), want);
        free(z);
        agree(cases[i].what, m, k, 1);
    }

    /* the trailer cut: once the CRC-32 is in, zlib checks it, so a wrong
     * one is an error at the length after it however little of the length
     * came (isa-l waits for all 8 bytes: fuzz_pipeline); a right one, or
     * less than all of it, is a cut stream */
    for (int wrong = 0; wrong < 2; wrong++) {
        for (size_t cut = k - 5; cut < k; cut++) {
            memcpy(m, g, k);
            if (wrong)
                m[k - 8] ^= 1;
            char *z = parse_with(m, cut, 0, 0, 0);
            char want[160];
            snprintf(want, sizeof want,
                     " error=decompress off=%zu msg=corrupt gzip data at compressed byte %zu: "
                     "incorrect data check ",
                     k - 4, k - 4);
            int err = strstr(z + dump_body_len(z), want) != NULL;
            CHECK_EQ_INT(err, wrong && cut >= k - 4);
            if (!err)
                CHECK(strstr(z, "warning compressed_truncated") != NULL);
            if (err != (wrong && cut >= k - 4))
                fprintf(stderr, "  trailer cut at %zu, crc %s: %s\n", k - cut,
                        wrong ? "wrong" : "right", z + dump_body_len(z));
            free(z);
            agree("trailer cut", m, cut, err);
        }
    }

    /* cut around the members' boundary (the first trailer, the second
     * header), with the first CRC-32 right and wrong: the engines agree */
    for (int wrong = 0; wrong < 2; wrong++) {
        memcpy(m, g, k);
        if (wrong)
            m[k1 - 8] ^= 1;
        for (size_t cut = k1 - 9; cut <= k1 + 34; cut++) {
            char *z = parse_with(m, cut, 0, 0, 0);
            agree("boundary cut", m, cut, status_int(z) != 0);
            free(z);
        }
    }

    /* cut anywhere: each engine's dump is the same however the input is
     * chunked; isa-l's is zlib's, except that it may leave the last
     * symbol before the cut undecoded (a few bytes, up to a match of 258) */
    int short_cuts = 0;
    for (size_t cut = 1; cut < k; cut += cut < 24 ? 1 : 997) {
        char *z = parse_with(g, cut, 0, 0, 0);
        engine_dumps("cut", g, cut, 0, z);
        if (have_isal) {
            char *is = parse_with(g, cut, 0, 1, 0);
            engine_dumps("cut", g, cut, 1, is);
            if (strcmp(z, is) != 0) {
                short_cuts++;
                CHECK(strstr(z, "warning compressed_truncated") != NULL);
                CHECK(strstr(is, "warning compressed_truncated") != NULL);
                uint64_t dz = status_num(z, " decoded="), di = status_num(is, " decoded=");
                CHECK(dz > di && dz - di <= 258);
                uint64_t ez = status_num(z, " events="), ei = status_num(is, " events=");
                CHECK(ez >= ei && ez - ei <= 1);
            }
            free(is);
        }
        free(z);
    }
    printf("cut gzip: isa-l decoded less than zlib at %d of %zu cuts\n", short_cuts,
           23 + (k - 24 + 996) / 997);

    /* damaged deflate data: both engines find damage (or neither does,
     * with the same events); isa-l decodes symbols in runs, so it may find
     * it a few bytes later, with a message of its own */
    uint64_t x = 12345;
    int errors = 0;
    char e1[64], e2[64];
    for (int trial = 0; trial < 150; trial++) {
        memcpy(m, g, k);
        size_t at = 40 + test_rand(&x) % (k - 80);
        for (int j = 0; j < 4; j++)
            m[at + j] = (unsigned char)test_rand(&x);
        for (int engine = have_isal; engine >= 1; engine--) {
            char *a = parse_with(m, k, 0, 0, 0), *b = parse_with(m, k, 0, engine, 0);
            if (strcmp(a, b) != 0) {
                /* both fail; where isa-l's later find lets garbage reach
                 * the JSON decoder, its error may come first */
                CHECK_EQ_INT(status_int(a), -1);
                CHECK_EQ_INT(status_int(b), -1);
                if (!strcmp(status_error(a, e1, sizeof e1), "decompress") &&
                    !strcmp(status_error(b, e2, sizeof e2), "decompress")) {
                    long d = (long)status_num(b, " off=") - (long)status_num(a, " off=");
                    CHECK(d >= -32 && d <= 32);
                }
                errors++;
            }
            free(a), free(b);
        }
    }
    printf("damaged deflate data: %d of 150 found elsewhere by isa-l\n", errors);
    free(g), free(m), free(t);
}

/* A cut stream that expands well: where it ends must not depend on the
 * buffer the inflated bytes go to. A step that fills the buffer may leave
 * output in isa-l with its input used up; the last of it was lost when
 * that happened at the end of input, at some cuts and not others, and on
 * the decompression thread (64 KiB pieces) at others than inline (128
 * KiB): fuzz_pipeline found 196,608 bytes against 196,617
 * (fuzz/seeds/pipeline/regress_gzip_cut_flush). */
static void test_cut_flush(void)
{
    size_t cap = 320 << 10, n = 0;
    char *t = malloc(cap);
    uint64_t x = 99;
    for (unsigned i = 0; n < cap - 200; i++)
        n += (size_t)snprintf(t + n, cap - n,
                              "          <idle>-0       [%03u] d..2. %6u.%06u: sched_switch: "
                              "prev_comm=swapper/%u prev_pid=0 prev_prio=120 prev_state=R ==> "
                              "next_comm=kworker next_pid=%u next_prio=120\n",
                              i % 4, 1000 + i / 1000, (unsigned)(test_rand(&x) % 1000000), i % 4,
                              (unsigned)(test_rand(&x) % 3000));
    unsigned char *g = malloc(n + 4096);
    size_t k = member(g, t, n, 0, 6);
    CHECK(k > 16384 && n / k > 4); /* the last stage expands past a 64 KiB piece */
    int differ = 0;
    for (size_t cut = k - 16384; cut < k - 8; cut += 61) {
        for (int engine = 0; engine <= have_isal; engine++) {
            char *a = parse_with(g, cut, 0, engine, 0), *b = parse_with(g, cut, 0, engine, 1);
            if (strcmp(a, b) != 0) {
                if (!differ++) {
                    fprintf(stderr, "  cut at %zu of %zu, engine %d: inline and thread differ\n",
                            cut, k, engine);
                    dump_show_difference(a, b);
                }
            }
            free(a), free(b);
        }
    }
    CHECK_EQ_INT(differ, 0);
    free(g), free(t);
}

int main(void)
{
    test_config();
    test_intact();
    test_damaged();
    test_cut_flush();
    return TEST_EXIT();
}
