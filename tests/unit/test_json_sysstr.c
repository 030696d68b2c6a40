/* The systemTraceEvents string of a JSON trace, streamed into the ftrace
 * decoder as it arrives: escapes (\n, \", \uXXXX, surrogate pairs) cut by
 * any chunk boundary, no limit from TREAD_OPT_MAX_STRING_BYTES, a string
 * cut short, a bad escape, and the cases that are not streamed. Every
 * input also goes through the "all chunkings agree" check (whole, 1-byte
 * and 7-byte chunks, a stop after every event). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tread.h>

#include "json_collect.h"

/* ftrace text as a JSON string body: lines end with the escape \n */
#define L_HDR "# tracer: nop\\n#\\n"
#define L_SWITCH                                                                          \
    "          <idle>-0     [000] d..2.   100.000001: sched_switch: prev_comm=swapper/0 " \
    "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=foo next_pid=12 next_prio=120\\n"
#define L_B(name) "             foo-12    [000] .....   100.000002: tracing_mark_write: B|12|" name "\\n"
#define L_E "             foo-12    [000] .....   100.000003: tracing_mark_write: E|12\\n"

#define EV "{\"ph\":\"i\",\"name\":\"j\",\"ts\":5,\"pid\":1,\"tid\":2}"

static char buf[65536];

static void test_streamed(void)
{
    const char *doc = "{\"traceEvents\":[" EV "],\n \"systemTraceEvents\" : \"" L_HDR L_SWITCH
                      L_B("w\\\"q\\\\") L_E "\",\"metadata\":{\"a\":1}}";
    PARSE(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 5);
    if (C.nev != 5)
        return;
    CHECK_EQ_INT(C.ev[0].kind, TREAD_EVENT_INSTANT);
    CHECK_EQ_INT(C.ev[1].kind, TREAD_EVENT_CONTEXT_SWITCH);
    CHECK_EQ_INT(C.ev[2].kind, TREAD_EVENT_SLICE_BEGIN);
    CHECK(str_is(&C.ev[2].name, "w\"q\\"));
    CHECK_EQ_INT(C.ev[3].kind, TREAD_EVENT_SLICE_END);
    /* the string is not a TRACE metadata event any more; metadata is */
    CHECK_EQ_INT(C.ev[4].kind, TREAD_EVENT_METADATA);
    CHECK(str_is(&C.ev[4].name, "metadata"));
    /* the string's ftrace counters are the JSON parser's */
    CHECK_EQ_INT(counter_of("ftrace.lines"), 5);
    CHECK_EQ_INT(counter_of("ftrace.event_lines"), 3);
}

static void test_unicode(void)
{
    /* \u00e9 (2 bytes), \u20ac (3), a surrogate pair (4), a lone high
     * surrogate (U+FFFD), upper-case hex */
    PARSE("{\"systemTraceEvents\":\"" L_B("caf\\u00e9\\u20AC\\ud83d\\ude00\\ud800x") L_E "\"}");
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 2);
    if (C.nev == 2)
        CHECK(str_is(&C.ev[0].name, "caf\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbdx"));
}

static void test_longer_than_string_limit(void)
{
    /* 200 lines, far over a 256-byte string limit: streamed, not held */
    size_t o = (size_t)snprintf(buf, sizeof buf, "{\"systemTraceEvents\":\"" L_HDR);
    for (int i = 0; i < 20; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, L_B("s%d") L_E, i);
    snprintf(buf + o, sizeof buf - o, "\",\"traceEvents\":[" EV "]}");
    static const int64_t opts[] = {TREAD_OPT_MAX_STRING_BYTES, 256, 0};
    PARSE_OPTS(buf, opts);
    CHECK(strlen(buf) > 2000);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 41);
    CHECK_EQ_INT(C.stats.events_by_kind[TREAD_EVENT_SLICE_BEGIN], 20);
}

static void test_nested_json(void)
{
    /* the string is sniffed: a JSON trace in it is read as JSON */
    PARSE("{\"systemTraceEvents\":\"[{\\\"ph\\\":\\\"i\\\",\\\"name\\\":\\\"in\\\",\\\"ts\\\":1}]\","
          "\"traceEvents\":[" EV "]}");
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 2);
    if (C.nev == 2) {
        CHECK(str_is(&C.ev[0].name, "in"));
        CHECK(str_is(&C.ev[1].name, "j"));
    }
}

/* A JSON trace in the string, cut short and longer than the sniffer's
 * window (4096 bytes): the nested decoder's "missing ]" lies at the end of
 * the sub-trace, the string's offset plus its unescaped length (a
 * sub-trace's bytes after unescaping have no input offset of their own),
 * whatever the chunking. */
static void test_nested_json_cut(void)
{
    static char inner[8192], esc[16384];
    size_t o = (size_t)snprintf(inner, sizeof inner, "[{\"ph\":\"i\",\"name\":\"in\",\"ts\":1,"
                                                     "\"args\":{\"pad\":\"");
    while (o < 6000)
        inner[o++] = 'a';
    o += (size_t)snprintf(inner + o, sizeof inner - o, "\"}}");
    size_t e = 0;
    for (size_t i = 0; i < o; i++) {
        if (inner[i] == '"')
            esc[e++] = '\\';
        esc[e++] = inner[i];
    }
    esc[e] = 0;
    size_t n = (size_t)snprintf(buf, sizeof buf,
                                "{\"systemTraceEvents\":\"%s\",\"traceEvents\":[" EV "]}", esc);
    PARSE(buf);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 2);
    CHECK_EQ_INT(count_warnings(TREAD_WARN_MISSING_END), 1);
    CHECK(has_warning_at(TREAD_WARN_MISSING_END, offset_of(buf, "[{", 0) + o));
    every_chunk_size_agrees(buf, n, NULL, __LINE__);
}

static void test_damaged(void)
{
    /* cut inside the string: its events are kept, the cut said */
    const char *doc = "{\"traceEvents\":[" EV "],\"systemTraceEvents\":\"" L_HDR L_B("x") L_E "  ";
    PARSE(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 3);
    CHECK_EQ_INT(count_warnings(TREAD_WARN_TRUNCATED_EVENT), 1);
    CHECK_EQ_INT(count_warnings(TREAD_WARN_MISSING_END), 1);

    /* a bad escape is a syntax error at the backslash */
    doc = "{\"systemTraceEvents\":\"" L_HDR "ab\\qc\"}";
    PARSE(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_ERROR);
    CHECK_EQ_INT(C.error, TREAD_ERROR_SYNTAX);
    CHECK_EQ_INT(C.error_offset, offset_of(doc, "\\q", 0));
    doc = "{\"systemTraceEvents\":\"\\u12G4\"}";
    PARSE(doc);
    CHECK_EQ_INT(C.error, TREAD_ERROR_SYNTAX);
    CHECK_EQ_INT(C.error_offset, offset_of(doc, "G", 0));
}

static void test_not_streamed(void)
{
    /* empty: nothing, nothing said */
    PARSE("{\"traceEvents\":[" EV "],\"systemTraceEvents\":\"\"}");
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 1);
    /* not a trace: one warning, the rest of the JSON goes on */
    PARSE("{\"systemTraceEvents\":\"SystemTraceData\",\"traceEvents\":[" EV "]}");
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 1);
    /* the key inside an event's args is an ordinary argument */
    PARSE("[{\"ph\":\"i\",\"name\":\"a\",\"ts\":1,\"args\":{\"systemTraceEvents\":\"" L_B("x") "\"}}]");
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 1);
    if (C.nev == 1) {
        tread_args a = args_of(&C.ev[0].args);
        tread_arg v;
        CHECK(tread_args_find(&a, "systemTraceEvents", 17, &v));
        CHECK_EQ_INT(v.type, TREAD_ARG_STRING);
    }
    /* as a value, or a key with an escape in it: not the key */
    PARSE("{\"name\":\"systemTraceEvents\",\"traceEvents\":[" EV "]}");
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 2);
    /* a comment between the key and the string */
    PARSE("{\"systemTraceEvents\" /* c */ : // d\n \"" L_B("x") L_E "\"}");
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 2);
}

/* Parses doc in chunks of chunk bytes (0: whole), every warning asking
 * to stop (then tread_resume): the error's offset. */
static int stop_on_warning(void *user, const tread_warning *w)
{
    (void)user, (void)w;
    return 1;
}

static uint64_t error_offset(const char *doc, size_t len, size_t chunk, int stop)
{
    tread_parser *p = tread_parser_create(NULL);
    const tread_callbacks cb = {.warning = stop ? stop_on_warning : NULL};
    tread_set_callbacks(p, &cb, NULL);
    tread_status st = TREAD_STATUS_OK;
    for (size_t at = 0; at < len && st != TREAD_STATUS_ERROR;) {
        size_t n = chunk && chunk < len - at ? chunk : len - at;
        st = tread_feed(p, doc + at, n);
        for (int k = 0; st == TREAD_STATUS_PAUSED && k < 100; k++)
            st = tread_resume(p);
        at += n;
    }
    if (st != TREAD_STATUS_ERROR) {
        st = tread_finish(p);
        for (int k = 0; st == TREAD_STATUS_PAUSED && k < 100; k++)
            st = tread_resume(p);
    }
    uint64_t off = st == TREAD_STATUS_ERROR ? tread_get_error_offset(p) : UINT64_MAX;
    tread_parser_free(p);
    return off;
}

/* A token after the string is where the error is, however the input is
 * cut and wherever the sub-trace's warnings stop the parse: the null
 * standing for the string ended 4 bytes after its quote, past a string of
 * 1 or 2 bytes, and a stop while finishing the sub-trace left its last
 * byte out of what the error is looked for in (fuzz_json). */
static void test_token_after_string(void)
{
    static const struct {
        const char *doc;
        size_t len, at; /* at: the offending token */
    } t[] = {
        {"{\"systemTraceEvents\": \"s\"7,::", 29, 25},
        {"{\"systemTraceEvents\":\"\x01\x00\x00\x00\x05\x00\"\"\"\"", 32, 29},
        {"{\"systemTraceEvents\": \"e\xff\xff\"4\x01\x01\x01", 31, 27},
        {"{\"systemTraceEvents\": \"\", 7}", 28, 26},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        size_t at = t[i].at;
        static const size_t chunks[] = {0, 1, 2, 3};
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
            for (int stop = 0; stop < 2; stop++) {
                uint64_t off = error_offset(t[i].doc, t[i].len, chunks[c], stop);
                if (off != at)
                    fprintf(stderr, "  doc %zu, chunk %zu, stop %d: error at %llu, not %zu\n", i,
                            chunks[c], stop, (unsigned long long)off, at);
                CHECK_EQ_INT(off, at);
            }
    }
}

int main(void)
{
    test_token_after_string();
    test_streamed();
    test_unicode();
    test_longer_than_string_limit();
    test_nested_json();
    test_nested_json_cut();
    test_damaged();
    test_not_streamed();
    return TEST_EXIT();
}
