/* Byte ranges (TREAD_OPT_RANGE_BEGIN, TREAD_OPT_RANGE_END) on Chrome JSON:
 * ranges that cover a trace end to end report between them exactly what
 * the whole trace reports (every event, raw record and warning, in order,
 * and the error of the first range that fails, which is the whole's),
 * cut at every byte and at every pair of bytes, fed whole, in chunks and
 * a byte at a time, on both forms (object and bare array), on traces
 * whose strings hold brackets, braces, quotes, escapes and \u escapes,
 * with comments, V8 profiles (state a later record needs), scalars and
 * empty records, and on damaged traces (cut, bad syntax, trailing
 * commas, data after the end). The structural scanner's two paths (SSE2
 * and byte at a time) agree with each other and with the decoder. */
#include <stdlib.h>
#include "compress.h"
#include "event_dump.h"
#include "testlib.h"
#include "json/json_scan.h"

/* Records whose strings hold everything the scanner must not take for
 * structure; a V8 profile whose chunks need the Profile before them. */
#define REC_A "{\"ph\":\"X\",\"name\":\"a[b]{c}\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1," \
              "\"args\":{\"q\":\"say \\\"hi\\\" \\\\\",\"u\":\"\\u00e9\\u005b\\\"\",\"n\":[1,[2,{\"x\":\"]\"}]]}}"
#define REC_B "{\"ph\":\"i\",\"name\":\"\\\\\\\\\",\"ts\":3,\"pid\":1,\"tid\":2,\"s\":\"t\"}"
#define REC_C "{\"ph\":\"C\",\"name\":\"ctr\",\"ts\":4,\"pid\":1,\"args\":{\"v\":5,\"w\":\"}}]]\"}}"
#define PROFILE                                                                                \
    "{\"ph\":\"P\",\"name\":\"Profile\",\"id\":\"0x1\",\"pid\":7,\"tid\":8,\"ts\":100,"        \
    "\"args\":{\"data\":{\"startTime\":1000}}}"
#define CHUNK(ts, d)                                                                           \
    "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"pid\":7,\"tid\":9,\"ts\":" ts "," \
    "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"id\":1,\"callFrame\":"                  \
    "{\"functionName\":\"(root)\"}}],\"samples\":[1,1]},\"timeDeltas\":[" d ",3]}}}"
#define CPUPROFILE "{\"ph\":\"I\",\"name\":\"CpuProfile\",\"pid\":3,\"tid\":3,\"ts\":9," \
                   "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"id\":1,\"callFrame\":" \
                   "{\"functionName\":\"r\"}}],\"samples\":[1],\"startTime\":5,\"timeDeltas\":[2]}}}}"

static const char *object_form =
    "{\"metadata\":{\"k\":\"[{\\\"\",\"l\":[1,2]},\"displayTimeUnit\":\"ns\",\n"
    "\"traceEvents\":[" REC_A ",\n " REC_B ", /* a \"comment\" ] */ " PROFILE ",\n" REC_C
    ",\n" CHUNK("101", "10") ", 17, \"str\\\"ing\", {}, [1,\"]\"],\n" REC_A "," CHUNK("102", "4")
    "," CPUPROFILE ",// line ]\n" REC_B "],\n"
    "\"stackFrames\":{\"1\":{\"name\":\"f{\",\"category\":\"c\"},\"2\":{\"name\":\"g\",\"parent\":\"1\"}},\n"
    "\"samples\":[{\"cpu\":0,\"tid\":1,\"ts\":5,\"name\":\"s\",\"sf\":\"2\",\"weight\":1}],\n"
    "\"systemTraceEvents\":\"# tracer: nop\\n  foo-12 [000] ..... 100.000002: tracing_mark_write: B|12|x\\n\",\n"
    "\"otherData\":{\"v\":\"a\\\\\"},\"last\":7}\n";

static const char *array_form =
    "[" REC_A "," REC_B ",\n" PROFILE ", " CHUNK("101", "10") ",\n 12.5e1, true, null, "
    "\"x\\u0022y\", " REC_C ", NaN, " CHUNK("102", "4") ", {},\n" REC_A "]";

/* The status line's "status= error= off= msg=" part. */
static size_t status_part(const char *s)
{
    const char *e = strstr(s, " events=");
    return e ? (size_t)(e - s) : strlen(s);
}

/* The n ranges [cut[k], cut[k+1]) (cut[n] == -1) put end to end up to
 * the first that fails: their bodies, that range's (or the last's)
 * status, and the events and warnings their stats count, added up. */
static int64_t forced_format; /* TREAD_OPT_FORMAT for every run, when not 0 */
static int64_t inline_inflate; /* 1: TREAD_OPT_DECOMPRESS_THREAD 0 for every run */
static size_t stop_every;      /* >0: every run stops every that many events */

static char *ranges(const char *doc, size_t len, size_t chunk, const int64_t *cut, int n,
                    int lenient)
{
    dump all;
    dump_init(&all);
    dump_printf(&all, "%s", "");
    uint64_t events = 0, warnings = 0;
    for (int i = 0; i < n; i++) {
        const int64_t opts[] = {TREAD_OPT_RANGE_BEGIN, cut[i], TREAD_OPT_RANGE_END, cut[i + 1],
                                TREAD_OPT_LENIENT, lenient,
                                TREAD_OPT_DECOMPRESS_THREAD, !inline_inflate,
                                forced_format ? TREAD_OPT_FORMAT : 0, forced_format, 0};
        dump r;
        dump_init(&r);
        r.stop_every = stop_every;
        dump_parse(&r, doc, len, chunk, opts);
        size_t b = dump_body_len(r.text);
        const char *st = r.text + b;
        const char *e = strstr(st, " events=");
        events += e ? strtoull(e + 8, NULL, 10) : 0;
        const char *w = strstr(st, " warnings=");
        warnings += w ? strtoull(w + 10, NULL, 10) : 0;
        dump_printf(&all, "%.*s", (int)b, r.text);
        int failed = strncmp(st, "status=0 ", 9) != 0;
        if (failed || i == n - 1) {
            dump_printf(&all, "%.*s events=%llu warnings=%llu\n", (int)status_part(st), st,
                        (unsigned long long)events, (unsigned long long)warnings);
            dump_free(&r);
            break;
        }
        dump_free(&r);
    }
    return all.text;
}

static size_t mismatches;

static void compare(const char *want, const char *got, const char *what, long c1, long c2,
                    size_t chunk)
{
    if (strcmp(want, got) == 0)
        return;
    if (!mismatches++) {
        fprintf(stderr, "%s: cuts %ld %ld chunk %zu:\n", what, c1, c2, chunk);
        dump_show_difference(want, got);
    }
}

/* Every cut (and every pair of cuts when pairs), whole and in chunks. */
static void check_doc(const char *what, const char *doc, size_t len, int lenient, int pairs,
                      const char *must_see)
{
    const int64_t none[] = {0, -1};
    char *whole = ranges(doc, len, 0, none, 1, lenient);
    if (must_see && !strstr(whole, must_see))
        fprintf(stderr, "%s: no %s in\n%s", what, must_see, whole);
    CHECK(!must_see || strstr(whole, must_see) != NULL);
    size_t before = mismatches;
    for (size_t c = 0; c <= len + 2; c++) {
        const int64_t cut[] = {0, (int64_t)c, -1};
        for (size_t chunk = 0; chunk <= 7; chunk += 7) {
            if (chunk && c % 5)
                continue;
            char *t = ranges(doc, len, chunk, cut, 2, lenient);
            compare(whole, t, what, (long)c, -1, chunk);
            free(t);
        }
    }
    if (pairs)
        for (size_t c = 1; c < len; c += pairs)
            for (size_t c2 = c; c2 <= len; c2++) {
                const int64_t cut[] = {0, (int64_t)c, (int64_t)c2, -1};
                char *t = ranges(doc, len, (c + c2) % 3 == 0 ? 1 : 0, cut, 3, lenient);
                compare(whole, t, what, (long)c, (long)c2, 0);
                free(t);
            }
    if (mismatches != before)
        fprintf(stderr, "%s: %zu mismatches\n", what, mismatches - before);
    free(whole);
}

/* A word held to the end of input ("false" of the last member, the
 * document cut before its '}') ends a range that ends before that member:
 * the range finishes there, it does not pause with no callback asking
 * (fuzz/seeds/json/regress_range_end_in_final_word; the dump says
 * "PAUSED with no callback asking to stop"). With a stop at every event. */
static void test_final_word(void)
{
    static const char doc[] = "{\"a\":1,\n\"sclipped\":false";
    size_t len = sizeof doc - 1;
    for (size_t c = 0; c <= len; c++) {
        const int64_t opts[] = {TREAD_OPT_RANGE_END, (int64_t)c, 0};
        for (size_t chunk = 0; chunk <= 12; chunk += 12) {
            dump r;
            dump_init(&r);
            r.stop_every = 1;
            dump_parse(&r, doc, len, chunk, opts);
            if (strstr(r.text, "PAUSED with no"))
                fprintf(stderr, "final word, cut %zu chunk %zu:\n%s", c, chunk, r.text);
            CHECK(strstr(r.text, "PAUSED with no") == NULL);
            dump_free(&r);
        }
    }
    check_doc("final word", doc, len, 1, 1, "missing");
}

static void test_forms(void)
{
    check_doc("object", object_form, strlen(object_form), 1, 0, "ProfileChunk");
    check_doc("array", array_form, strlen(array_form), 1, 0, "warning");
    /* the profile's samples have their times only after the Profile */
    const char *d = object_form;
    char *whole;
    const int64_t none[] = {0, -1};
    whole = ranges(d, strlen(d), 0, none, 1, 1);
    CHECK(strstr(whole, "ts=1010000 ") || strstr(whole, "1010000"));
    free(whole);
    CHECK_EQ_INT(mismatches, 0);
}

/* gzip input: the offsets are of the decompressed bytes (each range
 * inflates everything before it: no gain, but the same result); the
 * range may end in the bytes held while the format is sniffed. */
static void test_gzip_input(void)
{
    size_t n = strlen(object_form), cap = n + 1024;
    unsigned char *gz = malloc(cap);
    size_t gn = test_gzip(object_form, n, gz, cap);
    const int64_t none[] = {0, -1};
    char *whole = ranges(object_form, n, 0, none, 1, 1);
    size_t wb = dump_body_len(whole);
    for (size_t c = 0; c <= n; c += 37) {
        const int64_t cut[] = {0, (int64_t)c, -1};
        char *t = ranges((const char *)gz, gn, c % 2 ? 0 : 64, cut, 2, 1);
        /* the same but for compression=gzip in the status */
        CHECK(strncmp(t, whole, wb) == 0);
        free(t);
    }
    free(whole);
    free(gz);
}

/* A larger gzip trace, fed whole: a range may end only when tread_finish
 * inflates what isa-l held back, and must then not say that the stream
 * was cut (it stopped inflating there; the rest is the next range's). */
static void test_gzip_held_back(void)
{
    const char *rec = REC_A "," REC_B "," REC_C ",";
    size_t rn = strlen(rec), reps = 4000, n = 0;
    char *doc = malloc(rn * reps + 256);
    n += (size_t)sprintf(doc, "{\"traceEvents\":[");
    for (size_t i = 0; i < reps; i++, n += rn)
        memcpy(doc + n, rec, rn);
    n += (size_t)sprintf(doc + n, "%s", REC_B "]}");
    size_t cap = n + 1024;
    unsigned char *gz = malloc(cap);
    size_t gn = test_gzip(doc, n, gz, cap);
    const int64_t none[] = {0, -1};
    char *whole = ranges(doc, n, 0, none, 1, 1);
    size_t wb = dump_body_len(whole);
    const char *ws = whole + wb;
    /* cuts in the first 4 KiB (the bytes held to sniff the format) and
     * all along */
    for (size_t k = 0, c = 0; c <= n; k++, c = k < 12 ? k * 347 : (k - 11) * (n / 23)) {
        const int64_t cut[] = {0, (int64_t)c, -1};
        inline_inflate = k % 2; /* what isa-l holds back differs */
        /* and stopped at every event, the format forced or sniffed: the
         * range may end while the parser resumes (fuzz_json found the
         * rest of a piece decoded past the end, which this trace does not
         * reproduce: fuzz/seeds/json/regress_range_gz_pause does) */
        stop_every = k % 4 >= 2;
        forced_format = k % 8 >= 4 ? TREAD_FORMAT_JSON : 0;
        char *t = ranges((const char *)gz, gn, 0, cut, 2, 1);
        forced_format = 0;
        inline_inflate = 0;
        stop_every = 0;
        CHECK(strncmp(t, whole, wb) == 0);
        /* and the same warnings: none */
        const char *w1 = strstr(ws, " warnings="), *w2 = strstr(t + wb, " warnings=");
        CHECK(w1 && w2 && strtoull(w1 + 10, NULL, 10) == strtoull(w2 + 10, NULL, 10));
        free(t);
    }
    free(whole);
    free(gz);
    free(doc);
}

/* Every pair of cuts on a small trace of each form. */
static void test_pairs(void)
{
    static const char small_obj[] =
        "{\"a\":\"]\",\"traceEvents\":[" REC_B ",\"\\\"\"," PROFILE "," CHUNK("1", "2")
        "],\"z\":[{}]}";
    static const char small_arr[] = "[" REC_B ", 5, " REC_C "]";
    check_doc("pairs object", small_obj, sizeof small_obj - 1, 1, 1, NULL);
    check_doc("pairs array", small_arr, sizeof small_arr - 1, 1, 1, NULL);
    CHECK_EQ_INT(mismatches, 0);
}

/* Damaged traces: the union still gives the whole's warnings and error. */
static void test_damaged(void)
{
    size_t n = strlen(object_form);
    char *cut = malloc(n + 64);
    /* cut at a few places: a truncated record, a missing end */
    for (size_t at = n / 7; at < n; at += n / 7 + 3) {
        memcpy(cut, object_form, at);
        check_doc("truncated", cut, at, 1, 0, "status=0");
    }
    n = strlen(array_form);
    memcpy(cut, array_form, n - 1); /* no closing ] */
    check_doc("unclosed", cut, n - 1, 1, 0, "warning");
    memcpy(cut, array_form, n - 9);
    check_doc("cut in a record", cut, n - 9, 1, 0, "warning");
    /* trailing commas: a warning when lenient, an error when strict */
    static const char commas[] = "[" REC_B ",\n" REC_C ",]";
    check_doc("trailing comma", commas, sizeof commas - 1, 1, 0, "warning");
    check_doc("trailing comma strict", commas, sizeof commas - 1, 0, 0, "error=syntax");
    /* bad syntax in the middle, and past it records the whole never
     * reports (ranges after the error are not reported) */
    static const char bad[] = "{\"traceEvents\":[" REC_A "," REC_B ", {\"ph\" \"i\"}, " REC_C
                              "," REC_A "]}";
    check_doc("syntax error", bad, sizeof bad - 1, 1, 0, "error=syntax");
    static const char bad2[] = "[" REC_A "," REC_B " " REC_C "," REC_A "]";
    check_doc("missing comma", bad2, sizeof bad2 - 1, 1, 0, "error=syntax");
    static const char junk[] = "[" REC_B "," REC_C "] x [";
    check_doc("data after the end", junk, sizeof junk - 1, 1, 0, "warning");
    check_doc("data after the end strict", junk, sizeof junk - 1, 0, 0, "error=syntax");
    /* warnings before the document (a BOM, comments): the range [0, 0)
     * is empty, the one from 0 reports them (found by fuzz_json) */
    static const char leading[] = "\xef\xbb\xbf/* a */ [ // b\n" REC_B ", /* c */" REC_C "]";
    check_doc("leading comments", leading, sizeof leading - 1, 1, 1, "warning");
    static const char unbalanced[] = "[" REC_B ",{\"a\":[1}," REC_C "," REC_B "]";
    check_doc("unbalanced", unbalanced, sizeof unbalanced - 1, 1, 0, "error=syntax");
    free(cut);
    CHECK_EQ_INT(mismatches, 0);
}

/* A token in the wrong place right after a good one, where yajl wants a
 * separator (a colon for a comma or a closing bracket, a second colon, a
 * comma for a value): the error names that token's first byte whatever
 * the chunking (chunks of 0 to 9 bytes, with and without a pause at every
 * event), so the ranges' error is the whole's at every cut. The
 * first is the shape of fuzz_json's finding (a string value followed by
 * `s":{`, reported at its colon or one byte on depending on where the
 * chunks were cut: fuzz/seeds/json/regress_range_error_offset). */
static void test_separator_errors(void)
{
    static const struct {
        const char *doc, *bad; /* bad: the offending bytes, first in doc */
    } cases[] = {
        {"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[" REC_B "," REC_C "],\n"
         "\"other\":\"# tracer: nop\\n<idlrgs\":{\"a\":[1,2.5e3,true],\"b\":{}}},\n" REC_B "]}",
         ":{\"a\":[1,2.5"},
        {"{\"traceEvents\":[" REC_B "],\"k\":\"v\" : {\"c\":1}}", ": {\"c"},
        {"[" REC_B ", 17: " REC_C "]", ": {"},
        {"[" REC_B ",{\"ph\":\"i\",\"ts\":1 :2}," REC_C "]", ":2}"},
        {"{\"traceEvents\":[" REC_B "],\"k\"::1}", ":1}"},
        {"{\"traceEvents\":[" REC_B "],\"k\": ,\"j\":1}", ",\"j"},
        {"[" REC_B ",, " REC_C "]", ", {"},
        {"{\"traceEvents\":[" REC_B "] \"k\":1}", "\"k\":1}"},
        /* a lenient NaN/Infinity run into a number: yajl read its "0" as
         * more digits (fuzz/seeds/json/regress_special_glued_to_number) */
        {"{\"displayTimeUnit\":\"ns\",\"dur\":2.47-Infinity2,\"traceEvents\":[" REC_B "]}",
         "-Infinity2"},
        {"[" REC_B ", NaN.5, " REC_C "]", "NaN.5"},
        {"[" REC_B ", 7Infinity, " REC_C "]", "Infinity, "},
        /* a "0" the word ran into, which yajl ends at the first byte of
         * the word's own "0" (fuzz/seeds/json/regress_zero_runs_into_nan) */
        {"[" REC_B ",{\"ph\":\"C\",\"name\":\"c\",\"ts\":1,\"args\":{\"n\":0NaN,\"m\":1}}," REC_C "]",
         "NaN,\"m"},
        {"[" REC_B ", 0-Infinity, " REC_C "]", "-Infinity, "},
        /* a word yajl reads partly ("null" of "nullnan") before a pause:
         * the rest is at the word's offset plus what was read
         * (fuzz/seeds/json/regress_word_rest_after_pause) */
        {"{\"x\":Infinity,\"y\":nullnan,\"traceEvents\":[" REC_B "]}", "an,\"trace"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *doc = cases[i].doc;
        size_t len = strlen(doc);
        char want[32];
        snprintf(want, sizeof want, "error=syntax off=%zu ", (size_t)(strstr(doc, cases[i].bad) - doc));
        for (size_t chunk = 0; chunk <= 19; chunk++) {
            const int64_t opts[] = {0};
            dump r;
            dump_init(&r);
            r.stop_every = chunk >= 10; /* a pause at every event */
            dump_parse(&r, doc, len, chunk % 10, opts);
            if (!strstr(r.text, want))
                fprintf(stderr, "separator case %zu, chunk %zu: want %s in\n%s", i, chunk, want,
                        r.text + dump_body_len(r.text));
            CHECK(strstr(r.text, want) != NULL);
            dump_free(&r);
        }
        check_doc("separator error", doc, len, 1, i == 0 ? 0 : 3, want);
    }
    CHECK_EQ_INT(mismatches, 0);
}

/* A forced format the input does not look like is a warning at the end
 * of input, after the decoder's last ones: said by the range that holds
 * the end, once (fuzz_json found the first of two ranges saying it, before
 * the second's "missing }]}": fuzz/seeds/json/regress_range_forced_warning_order). */
static void test_forced_format(void)
{
    static const char profile[] =
        "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"url\":\"\"},"
        "\"children\":[2]},{\"id\":2,\"callFrame\":{\"functionName\":\"w\"}}],"
        "\"startTime\":1,\"endTime\":200,\"samples\":[2,1],\"timeDeltas\":[5,6]}";
    forced_format = TREAD_FORMAT_JSON;
    check_doc("forced format", profile, sizeof profile - 1, 1, 2, "format_mismatch");
    check_doc("forced format, cut", profile, sizeof profile - 30, 1, 2, "missing_end");
    check_doc("forced format, cut in a node", profile, 60, 1, 1, "truncated_event");
    forced_format = 0;
    CHECK_EQ_INT(mismatches, 0);
}

/* The scanner's two paths agree: every footing and marked element of a
 * long array found the same by SSE2 blocks and byte by byte. */
static void test_scanner_paths(void)
{
    size_t cap = 1 << 16, len = 0;
    char *doc = malloc(cap);
    static const char *recs[] = {REC_A, REC_B, REC_C, PROFILE, CHUNK("1", "2"), CPUPROFILE,
                                 "\"\\\\\\\"\"", "1e5", "{\"a\":\"\\\\\\\\\\\\\\\"]\"}",
                                 "/* ] */ {\"b\":[[[[]]]]}"};
    unsigned seed = 7;
    while (len < cap - 512) {
        seed = seed * 1103515245u + 12345u;
        const char *r = recs[(seed >> 16) % (sizeof recs / sizeof *recs)];
        size_t rl = strlen(r);
        memcpy(doc + len, r, rl);
        len += rl;
        doc[len++] = ',';
        for (unsigned k = (seed >> 8) % 3; k; k--)
            doc[len++] = ' ';
    }
    doc[len - 1] = ']';
    /* 0: byte at a time; 1: SSE2 blocks; 2: AVX2 blocks where the CPU has them */
    unsigned char stack[3][64];
    size_t found[3] = {0, 0, 0}, starts[3] = {0, 0, 0};
    uint64_t digest[3] = {0, 0, 0};
    for (int path = 0; path < 3; path++) {
        json_scan s;
        s.portable = path == 0;
        json_scan_start(&s, stack[path], 64, 0);
        if (path == 1)
            s.avx2 = 0;
        if (path == 2 && !s.avx2)
            fprintf(stderr, "no AVX2 here: its path is SSE2's\n");
        size_t i = 0;
        for (;;) {
            int ev = json_scan_run(&s, (const unsigned char *)doc, len, &i, 0, UINT64_MAX);
            digest[path] = digest[path] * 31 + i;
            if (ev == JS_MORE || ev == JS_CLOSE)
                break;
            found[path]++;
        }
        /* every element start found as the footing */
        int avx2 = s.avx2;
        json_scan_start(&s, stack[path], 64, 0);
        s.avx2 = avx2;
        i = 0;
        uint64_t begin = 0;
        for (;;) {
            int ev = json_scan_run(&s, (const unsigned char *)doc, len, &i, 0, begin);
            if (ev == JS_START) {
                starts[path]++;
                digest[path] = digest[path] * 31 + i;
                begin = i + 1;
                continue;
            }
            if (ev != JS_MARKED)
                break;
        }
    }
    CHECK(found[0] > 50);
    CHECK(starts[0] > found[0]);
    for (int path = 1; path < 3; path++) {
        CHECK_EQ_INT(found[path], found[0]);
        CHECK_EQ_INT(starts[path], starts[0]);
        CHECK(digest[path] == digest[0]);
    }
    free(doc);
}

/* The scanner's state where a call returns (a chunk's end, a footing, the
 * array's end), folded into a digest: what the byte loop knows at every
 * chunk end the block paths must know too, including the containers open
 * (the skim keeps no stack of its own and must put it back). Not whether
 * the element is marked: the blocks assume a marker where a candidate
 * string runs past the bytes at hand, the byte loop waits for its end. */
static uint64_t scan_state(const json_scan *s, int ev, size_t i, uint64_t off)
{
    uint64_t h = (uint64_t)ev * 1000003u + off + i;
    h = h * 31 + (uint64_t)s->elem;
    h = h * 31 + (uint64_t)s->in_str * 2 + (uint64_t)s->esc;
    h = h * 31 + (uint64_t)s->comment;
    h = h * 31 + (uint64_t)s->had_value;
    if (s->elem != JS_GAP) {
        h = h * 31 + s->elem_start;
        h = h * 31 + (uint64_t)s->had_before;
    }
    if (s->in_str)
        h = h * 31 + s->str_start;
    if (s->elem == JS_CONTAINER) {
        h = h * 31 + s->nest;
        for (uint64_t k = 0; k < s->nest && k < s->stack_max; k++)
            h = h * 31 + s->stack[k];
    }
    return h;
}

/* The skim (blocks read for their depth alone, json_scan_blocks.h) and
 * the exact blocks against the byte loop, fed in chunks of every size
 * from 1 byte to 5000: records without markers (where the skim runs),
 * elements longer than the skim's span, deep nesting, scalars and
 * strings between the records, comments, escapes and markers now and
 * then; each with the footing at the end of input, in the middle, and
 * near the start. */
static void test_scanner_chunks(void)
{
    size_t cap = 1 << 17, len = 0;
    char *doc = malloc(cap);
    char big[6000];
    size_t bl = 0;
    bl += (size_t)sprintf(big + bl, "{\"ph\":\"X\",\"args\":{\"deep\":");
    for (int k = 0; k < 40; k++)
        big[bl++] = k % 3 ? '[' : '{', bl += k % 3 ? 0 : (size_t)sprintf(big + bl, "\"k\":");
    while (bl < 5000)
        bl += (size_t)sprintf(big + bl, "\"pad\\\"}]\",");
    bl += (size_t)sprintf(big + bl, "0");
    for (int k = 39; k >= 0; k--)
        big[bl++] = k % 3 ? ']' : '}';
    bl += (size_t)sprintf(big + bl, "}}");
    big[bl] = 0;
    static const char *plain[] = {
        "{\"ph\":\"X\",\"name\":\"draw\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1,\"args\":{\"a\":[1,{\"b\":2}]}}",
        "{\"ph\":\"B\",\"name\":\"a]b}c\",\"ts\":3,\"pid\":1,\"tid\":2}",
        "[1,[2,[3]],{\"x\":{}}]",
        REC_B,
        REC_C,
        "{\"e\":\"\\\\\\\"{\"}",
    };
    static const char *rare[] = {REC_A, PROFILE, CPUPROFILE, "/* ] */ {\"b\":[[[[]]]]}", "17",
                                 "\"str]\"", "true", NULL};
    unsigned seed = 11;
    doc[len++] = '[';
    while (len < cap - 7000) {
        seed = seed * 1103515245u + 12345u;
        const char *r = plain[(seed >> 16) % (sizeof plain / sizeof *plain)];
        if ((seed >> 8) % 61 == 0)
            r = rare[(seed >> 20) % 7];
        if ((seed >> 8) % 97 == 1)
            r = big;
        size_t rl = strlen(r);
        memcpy(doc + len, r, rl);
        len += rl;
        doc[len++] = ',';
        for (unsigned k = (seed >> 4) % 3; k; k--)
            doc[len++] = (seed >> 2) & 1 ? '\n' : ' ';
    }
    doc[len - 1] = ']';
    const uint64_t begins[] = {UINT64_MAX, len / 2, 300};
    for (size_t bi = 0; bi < sizeof begins / sizeof *begins; bi++) {
        for (unsigned chunk_seed = 1; chunk_seed <= 6; chunk_seed++) {
            uint64_t digest[3] = {0, 0, 0};
            unsigned char stack[3][64];
            /* where marked elements end: the byte loop's must be among
             * the blocks' (which may mark more, never fewer) */
            static uint64_t marks[3][4096];
            size_t nmarks[3] = {0, 0, 0};
            for (int path = 0; path < 3; path++) {
                json_scan s;
                s.portable = path == 0;
                json_scan_start(&s, stack[path], 64, 0);
                if (path == 1)
                    s.avx2 = 0;
                unsigned cs = chunk_seed;
                size_t at = 1; /* after the '[' */
                while (at < len) {
                    cs = cs * 1103515245u + 12345u;
                    size_t max = chunk_seed <= 2 ? 5000 : chunk_seed <= 4 ? 300 : 70;
                    size_t n = 1 + (cs >> 8) % max;
                    if (n > len - at)
                        n = len - at;
                    size_t i = 0;
                    for (;;) {
                        int ev = json_scan_run(&s, (const unsigned char *)doc + at, n, &i, at,
                                               begins[bi]);
                        if (ev == JS_MARKED) {
                            if (nmarks[path] < 4096)
                                marks[path][nmarks[path]++] = at + i;
                            continue;
                        }
                        digest[path] = digest[path] * 1000033u + scan_state(&s, ev, i, at);
                        if (ev == JS_MORE)
                            break;
                        if (ev == JS_CLOSE)
                            goto done;
                        if (ev == JS_START)
                            goto done; /* the footing: the scan's work ends */
                    }
                    at += n;
                }
            done:;
            }
            CHECK(nmarks[0] < 4096 && (begins[bi] < 1000 || nmarks[0] > 3));
            for (int path = 1; path < 3; path++) {
                size_t k = 0;
                for (size_t m = 0; m < nmarks[0]; m++) {
                    while (k < nmarks[path] && marks[path][k] < marks[0][m])
                        k++;
                    CHECK(k < nmarks[path] && marks[path][k] == marks[0][m]);
                }
            }
            for (int path = 1; path < 3; path++)
                if (digest[path] != digest[0]) {
                    fprintf(stderr, "scanner chunks: begin %llu, chunks %u: path %d differs\n",
                            (unsigned long long)begins[bi], chunk_seed, path);
                    CHECK(0);
                }
        }
    }
    free(doc);
}

/* A systemTraceEvents string holding a JSON trace: its decoder is one
 * record of the container, reported whole by the range of its opening
 * quote; its own elements and end of input are no boundaries (fuzz_json
 * found the nested decoder entering the range at its end of input, and
 * the truncation said twice and the missing '}' by neither range:
 * fuzz/seeds/json/regress_range_nested_json). Whole, cut inside the
 * string, and cut inside the JSON it holds. */
static void test_nested_json(void)
{
    static const char doc[] =
        "{\"traceEvents\":[" REC_B "],\"systemTraceEvents\":"
        "\"[{\\\"ph\\\":\\\"i\\\",\\\"name\\\":\\\"a\\\",\\\"pid\\\":1,\\\"ts\\\":5},"
        " {\\\"ph\\\":\\\"i\\\",\\\"name\\\":\\\"b\\\",\\\"pid\\\":1,\\\"ts\\\":6}]\","
        "\"z\":[" REC_C "]}";
    size_t n = sizeof doc - 1;
    check_doc("nested json", doc, n, 1, 3, "name=\"b\"");
    for (size_t at = n - 40; at < n; at += 9)
        check_doc("nested json cut", doc, at, 1, 0, "missing");
    /* the fuzz finding's shape: the nested JSON fails, the string runs to
     * the end of input */
    static const char bad[] = "{\"systemTraceEvents\": \" [000] 1 ]x. [001] more text";
    check_doc("nested json bad", bad, sizeof bad - 1, 1, 1, "missing");
    CHECK_EQ_INT(mismatches, 0);
}

/* An FXT sub-trace (its magic record, then a record cut short) in
 * systemTraceEvents: a nested decoder must not begin or end the JSON
 * trace's range. Before the fix, a range beginning after it ended at its
 * end, and the records and the syntax error after it were no range's
 * (fuzz_json; fuzz/seeds/json/regress_range_nested_fxt). */
static void test_nested_fxt(void)
{
    static const char doc[] =
        "{\"traceEvents\":[" REC_B "],\"systemTraceEvents\":"
        "\"\\u0010\\u0000\\u0004FxT\\u0016\\u0000\\u0010\",\"z\":[" REC_C "," REC_B "]}";
    check_doc("nested fxt", doc, sizeof doc - 1, 1, 3, "truncated_event off=8");
    /* the finding's own bytes: raw control bytes in the string, then bad
     * syntax (the whole fails at the "[," near the end) */
    static const char raw[] =
        "{\"\":\"\",\"\":{\"\":\"\",\"\":[1,{\"\":null}]},\"\":{\"\":{\"\":\"\"}},\"\":[{\"\":\"\",\"\":2}],"
        "\"\":\"\",\"\":[{\"\":\"\",\"\":2}],\"systemTraceEvents\":\"\x10\x00\x04" "FxT\x16\x00\",\"\":[,t";
    check_doc("nested fxt raw", raw, sizeof raw - 1, 1, 0, "status=");
    CHECK_EQ_INT(mismatches, 0);
}

/* A range past the end of input never begins: no events, no stats and no
 * format counters, not those of the prefix it read (the sub-trace's
 * ftrace counters here; found in session 19). */
static void test_range_past_end(void)
{
    const char *doc = object_form;
    size_t n = strlen(doc);
    for (int64_t extra = 0; extra <= 9; extra += 9) {
        tread_parser *p = tread_parser_create(NULL);
        CHECK_EQ_INT(tread_config(p, TREAD_OPT_RANGE_BEGIN, (int64_t)n + 1 + extra), 0);
        CHECK_EQ_INT(tread_feed(p, doc, n), TREAD_STATUS_OK);
        CHECK_EQ_INT(tread_finish(p), TREAD_STATUS_OK);
        tread_counter c[64];
        CHECK_EQ_INT(tread_get_format_counters(p, c, 64), 0);
        tread_stats st;
        tread_get_stats(p, &st);
        CHECK_EQ_INT(st.events, 0);
        tread_parser_free(p);
    }
    /* the whole reads its counters, so the test can fail */
    tread_parser *p = tread_parser_create(NULL);
    CHECK_EQ_INT(tread_feed(p, doc, n), TREAD_STATUS_OK);
    CHECK_EQ_INT(tread_finish(p), TREAD_STATUS_OK);
    CHECK(test_format_counter(p, "ftrace.lines") > 0);
    tread_parser_free(p);
}

int main(void)
{
    test_range_past_end();
    test_nested_json();
    test_nested_fxt();
    test_scanner_paths();
    test_scanner_chunks();
    test_forms();
    test_final_word();
    test_gzip_input();
    test_gzip_held_back();
    test_pairs();
    test_damaged();
    test_separator_errors();
    test_forced_format();
    return TEST_EXIT();
}
