/* Byte ranges (TREAD_OPT_RANGE_BEGIN, TREAD_OPT_RANGE_END) on FXT: ranges
 * that cover a trace end to end report between them exactly what the
 * whole trace reports, cut anywhere, fed whole or a byte at a time,
 * plain or gzip; state made before a range (strings, threads, providers,
 * tick rates) reaches it; nothing before it is reported or counted. */
#include <stdlib.h>
#include "compress.h"
#include "event_dump.h"
#include "fxt_build.h"
#include "testlib.h"

/* A trace whose state changes all along: strings and threads redefined,
 * a second provider with its own rate, a large blob, a warning (an
 * undefined string) and records read by the general reader. */
static void build(fxb *b)
{
    static unsigned char payload[5000];
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (unsigned char)(i * 13);
    fxb_init(b);
    fxb_preamble(b);
    for (int round = 0; round < 6; round++) {
        size_t s = fxb_event(b, 2, 1, 1, 1, 2, 1000 + (uint64_t)round); /* begin */
        fxb_arg(b, 1, "r", (uint64_t)round, NULL, 0);
        fxb_end(b, s);
        char name[16];
        snprintf(name, sizeof name, "name%d", round);
        fxb_string(b, 2, name); /* redefined: the events after it change */
        fxb_thread(b, 1, 100, 200 + (uint64_t)round);
        s = fxb_event(b, 3, 0, 1, 1, 2, 1100 + (uint64_t)round); /* end */
        fxb_end(b, s);
        s = fxb_event(b, 4, 0, 0, 1, FXB_INLINE(3), 1200); /* complete, inline */
        fxb_word(b, 300);
        fxb_word(b, 301);
        fxb_stream(b, "abc", 3);
        fxb_word(b, 1300);
        fxb_end(b, s);
        if (round == 2) {
            fxb_provider_info(b, 9, "other"); /* switches to provider 9 */
            fxb_init_record(b, 25000000);
            fxb_string(b, 1, "cat9");
            fxb_string(b, 2, "name9");
            fxb_thread(b, 1, 900, 901);
            s = fxb_event(b, 0, 0, 1, 1, 2, 77); /* 77 ticks of 40 ns */
            fxb_end(b, s);
            s = fxb_event(b, 0, 0, 1, 1, 5, 78); /* string 5: undefined */
            fxb_end(b, s);
            fxb_provider_section(b, 7);
        }
        if (round == 3) { /* a large blob, format 1 */
            s = fxb_begin(b, 15 | (UINT64_C(1) << 40));
            fxb_word(b, 1 | (2u << 16));
            fxb_word(b, sizeof payload);
            fxb_stream(b, payload, sizeof payload);
            fxb_end(b, s);
        }
        /* legacy context switch and a kernel object: the general reader */
        s = fxb_begin(b, 8 | (2u << 16) | (3u << 24) | (UINT64_C(1) << 28) | (UINT64_C(9) << 44));
        fxb_word(b, 1400);
        fxb_word(b, 300);
        fxb_word(b, 301);
        fxb_end(b, s);
        uint64_t v = 500;
        s = fxb_begin(b, 7 | (2u << 16) | ((uint64_t)FXB_INLINE(3) << 24) | (UINT64_C(1) << 40));
        fxb_word(b, 501);
        fxb_stream(b, "thr", 3);
        fxb_arg(b, 8, "process", 0, &v, 1);
        fxb_end(b, s);
    }
}

/* The ranges [0, c1), [c1, c2), [c2, end) (c2 0: two ranges) put end to
 * end, status lines dropped; the events their stats count in *events. */
static char *ranges(const unsigned char *d, size_t len, size_t chunk, int64_t c1, int64_t c2,
                    uint64_t *events)
{
    int64_t cut[4] = {0, c1, c2 ? c2 : -1, -1};
    int n = c2 ? 3 : 2;
    dump all;
    dump_init(&all);
    dump_printf(&all, "%s", "");
    *events = 0;
    for (int i = 0; i < n; i++) {
        const int64_t opts[] = {TREAD_OPT_RANGE_BEGIN, cut[i], TREAD_OPT_RANGE_END, cut[i + 1],
                                0};
        dump r;
        dump_init(&r);
        dump_parse(&r, d, len, chunk, opts);
        size_t b = dump_body_len(r.text);
        const char *e = strstr(r.text + b, " events=");
        *events += e ? strtoull(e + 8, NULL, 10) : 0;
        CHECK(strstr(r.text + b, "status=0 ") == r.text + b);
        dump_printf(&all, "%.*s", (int)b, r.text);
        dump_free(&r);
    }
    return all.text;
}

static void test_cut_anywhere(void)
{
    fxb b;
    build(&b);
    dump whole;
    dump_init(&whole);
    dump_parse(&whole, b.d, b.len, 0, NULL);
    size_t wb = dump_body_len(whole.text);
    CHECK(strstr(whole.text + wb, "status=0 ") != NULL);
    /* what the trace makes, so that the comparisons are of something */
    CHECK(strstr(whole.text, "\"name5\"") != NULL);
    CHECK(strstr(whole.text, "\"cat9\"") != NULL);
    CHECK(strstr(whole.text, "ts=3080 ") != NULL); /* 77 ticks of 40 ns */
    CHECK(strstr(whole.text, "warning") != NULL);
    CHECK(strstr(whole.text, "blob") != NULL);
    int mismatches = 0;
    for (size_t c = 0; c <= b.len + 8; c += 3) {
        uint64_t events;
        char *t = ranges(b.d, b.len, 0, (int64_t)c, 0, &events);
        if (strlen(t) != wb || memcmp(t, whole.text, wb) != 0 || events != whole.events) {
            if (!mismatches++) {
                fprintf(stderr, "cut at %zu:\n", c);
                dump_show_difference(whole.text, t);
            }
        }
        free(t);
    }
    CHECK_EQ_INT(mismatches, 0);
    /* three ranges, fed a byte at a time and in chunks of 7 */
    for (size_t chunk = 1; chunk <= 7; chunk += 6)
        for (size_t c = 8; c < b.len; c += 41) {
            uint64_t events;
            size_t c2 = c + b.len / 3;
            char *t = ranges(b.d, b.len, chunk, (int64_t)c, (int64_t)c2, &events);
            if (strlen(t) != wb || memcmp(t, whole.text, wb) != 0 || events != whole.events) {
                if (!mismatches++) {
                    fprintf(stderr, "cuts at %zu, %zu, chunk %zu:\n", c, c2, chunk);
                    dump_show_difference(whole.text, t);
                }
            }
            free(t);
        }
    CHECK_EQ_INT(mismatches, 0);
    /* gzip: the range is of the decompressed bytes */
    size_t cap = b.len + 1024;
    unsigned char *gz = malloc(cap);
    size_t gn = test_gzip(b.d, b.len, gz, cap);
    for (size_t chunk = 0; chunk <= 1; chunk++) {
        uint64_t events;
        char *t = ranges(gz, gn, chunk, (int64_t)b.len / 3, (int64_t)b.len * 2 / 3, &events);
        CHECK(strlen(t) == wb && memcmp(t, whole.text, wb) == 0);
        CHECK_EQ_INT(events, whole.events);
        free(t);
    }
    free(gz);
    dump_free(&whole);
    fxb_free(&b);
}

static int count_event(void *user, const tread_event *ev)
{
    (void)ev;
    ++*(int *)user;
    return 0;
}

/* Stats and format counters count from the range's start; reading stops
 * at its end. */
static void test_counts_and_stop(void)
{
    fxb b;
    build(&b);
    tread_parser *whole = tread_parser_create(NULL);
    int n_whole = 0;
    tread_callbacks cb = {.event = count_event};
    tread_set_callbacks(whole, &cb, &n_whole);
    CHECK_EQ_INT(tread_feed(whole, b.d, b.len), TREAD_STATUS_OK);
    CHECK_EQ_INT(tread_finish(whole), TREAD_STATUS_OK);
    uint64_t records = test_format_counter(whole, "records");
    uint64_t sum = 0;
    int n_sum = 0;
    int64_t mid = (int64_t)b.len / 2;
    for (int i = 0; i < 2; i++) {
        tread_parser *p = tread_parser_create(NULL);
        int n = 0;
        tread_set_callbacks(p, &cb, &n);
        CHECK_EQ_INT(tread_config(p, i ? TREAD_OPT_RANGE_BEGIN : TREAD_OPT_RANGE_END, mid), 0);
        /* fed in two halves: the first range takes and ignores the second */
        CHECK_EQ_INT(tread_feed(p, b.d, (size_t)mid + 64), TREAD_STATUS_OK);
        tread_stats s;
        tread_get_stats(p, &s);
        CHECK_EQ_INT(s.events, n); /* none from before the range */
        CHECK_EQ_INT(tread_feed(p, b.d + mid + 64, b.len - (size_t)mid - 64), TREAD_STATUS_OK);
        CHECK_EQ_INT(tread_finish(p), TREAD_STATUS_OK);
        tread_get_stats(p, &s);
        CHECK_EQ_INT(s.events, n);
        CHECK_EQ_INT(s.bytes_in, b.len);
        CHECK(s.records > 0);
        sum += test_format_counter(p, "records");
        n_sum += n;
        tread_parser_free(p);
    }
    CHECK_EQ_INT(sum, records);
    CHECK_EQ_INT(n_sum, n_whole);
    CHECK(n_whole > 40);
    tread_parser_free(whole);

    /* a range that begins past the end: nothing, and nothing counted */
    tread_parser *p = tread_parser_create(NULL);
    int n = 0;
    tread_set_callbacks(p, &cb, &n);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_RANGE_BEGIN, (int64_t)b.len + 100), 0);
    CHECK_EQ_INT(tread_feed(p, b.d, b.len - 3), TREAD_STATUS_OK); /* cut: no warning */
    CHECK_EQ_INT(tread_finish(p), TREAD_STATUS_OK);
    tread_stats s;
    tread_get_stats(p, &s);
    CHECK_EQ_INT(n, 0);
    CHECK_EQ_INT(s.events, 0);
    CHECK_EQ_INT(s.warnings, 0);
    CHECK_EQ_INT(s.records, 0);
    CHECK_EQ_INT(test_format_counter(p, "records"), 0);
    CHECK_EQ_INT(test_format_counter(p, "providers"), 2); /* state is kept */
    tread_parser_free(p);
    fxb_free(&b);
}

/* An error before the range is still an error; nothing is counted. */
static void test_error_before(void)
{
    fxb b;
    build(&b);
    size_t bad = b.len;
    fxb_word(&b, 4); /* an event record of size 0 */
    size_t s = fxb_event(&b, 0, 0, 1, 1, 2, 5);
    fxb_end(&b, s);
    tread_parser *p = tread_parser_create(NULL);
    int n = 0;
    tread_callbacks cb = {.event = count_event};
    tread_set_callbacks(p, &cb, &n);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_RANGE_BEGIN, (int64_t)bad + 8), 0);
    CHECK_EQ_INT(tread_feed(p, b.d, b.len), TREAD_STATUS_ERROR);
    CHECK_EQ_INT(tread_get_error(p), TREAD_ERROR_SYNTAX);
    CHECK_EQ_INT(tread_get_error_offset(p), bad);
    tread_stats st;
    tread_get_stats(p, &st);
    CHECK_EQ_INT(n, 0);
    CHECK_EQ_INT(st.events, 0);
    tread_parser_free(p);
    fxb_free(&b);
}

/* Options: checked values; formats without ranges refuse one, not the default. */
static void test_options(void)
{
    tread_parser *p = tread_parser_create(NULL);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_RANGE_BEGIN, -1), -1);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_RANGE_END, -2), -1);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_RANGE_END, -1), 0);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_RANGE_BEGIN, 0), 0);
    static const char json[] = "[{\"ph\":\"i\",\"name\":\"a\",\"ts\":1,\"pid\":1,\"tid\":1}]";
    CHECK_EQ_INT(tread_feed(p, json, sizeof json - 1), TREAD_STATUS_OK);
    CHECK_EQ_INT(tread_finish(p), TREAD_STATUS_OK);
    tread_parser_free(p);
    /* JSON has ranges too (test_json_range); ftrace text has none */
    static const char ftrace[] = "# tracer: nop\n#\n"
                                 "  foo-12 [000] ..... 100.000002: tracing_mark_write: B|12|x\n";
    for (int i = 0; i < 2; i++) {
        p = tread_parser_create(NULL);
        CHECK_EQ_INT(tread_config(p, i ? TREAD_OPT_RANGE_END : TREAD_OPT_RANGE_BEGIN, 10), 0);
        tread_status st = tread_feed(p, ftrace, sizeof ftrace - 1);
        if (st == TREAD_STATUS_OK)
            st = tread_finish(p);
        CHECK_EQ_INT(st, TREAD_STATUS_ERROR);
        CHECK_EQ_INT(tread_get_error(p), TREAD_ERROR_UNSUPPORTED);
        CHECK(strstr(tread_get_error_message(p), "TREAD_OPT_RANGE_BEGIN") != NULL);
        tread_parser_free(p);
    }
}

int main(void)
{
    test_cut_anywhere();
    test_counts_and_stop();
    test_error_before();
    test_options();
    return TEST_EXIT();
}
