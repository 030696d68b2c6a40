/* The JSON fast path against yajl: for each document, everything tread
 * delivers (events, args, raw records, warnings, the error with its offset
 * and message) must be the same with TREAD_OPT_JSON_FAST_PATH 0 (yajl reads
 * everything) and 1, fed whole, one byte at a time, three bytes at a time,
 * and with a stop after every event. The documents put plain records next
 * to every reason the fast path hands a record back to yajl, and each case
 * says how many records the fast path must have read when fed whole, so a
 * fast path that silently never runs fails too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tread.h>
#include "event_dump.h"
#include "testlib.h"

typedef struct path_case {
    const char *name;
    const char *doc;
    long fast;           /* records the fast path reads, fed whole */
    int64_t opt, value;  /* an extra option, or 0 */
} path_case;

#define PLAIN "{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":2}"
#define PLAIN2 "{\"ph\":\"i\",\"name\":\"b\",\"ts\":3.5,\"pid\":\"p\",\"tid\":null,\"s\":\"g\"}"

static const path_case cases[] = {
    {"array form", "[" PLAIN "," PLAIN2 "]", 2, 0, 0},
    {"object form", "{\"traceEvents\":[" PLAIN ",\n " PLAIN2 "\n],\"displayTimeUnit\":\"ns\"}", 2, 0, 0},
    {"keys after traceEvents", "{\"traceEvents\":[" PLAIN "],\"otherData\":{\"v\":1}}", 1, 0, 0},
    {"empty array", "[]", 0, 0, 0},
    {"blank array", "[ \n\t ]", 0, 0, 0},
    {"missing ]", "[" PLAIN "," PLAIN2, 2, 0, 0},
    {"missing ] after comma", "[" PLAIN ",", 1, 0, 0},
    {"missing ]} ", "{\"traceEvents\":[" PLAIN "\n", 1, 0, 0},
    {"record cut at the end", "[" PLAIN "," "{\"ph\":\"X\",\"na", 1, 0, 0},
    {"all whitespace kinds", "[ \r\n\t{ \"ph\" :\t\"X\" ,\r\n\"name\" : \"a\" , \"ts\" : 1 } \n, \t" PLAIN " ]", 2, 0, 0},
    {"nested args, field order", "[{\"args\":{\"a\":[1,{\"b\":[]},{},[[true,false,null]]],\"name\":\"inner\"},"
     "\"name\":\"outer\",\"ph\":\"i\",\"ts\":5,\"pid\":1,\"tid\":1}]", 1, 0, 0},
    {"duplicate keys", "[{\"name\":\"a\",\"name\":\"b\",\"ph\":\"B\",\"ph\":\"E\",\"ts\":1,\"ts\":2}]", 1, 0, 0},
    {"number forms", "[{\"ph\":\"C\",\"name\":\"c\",\"ts\":0,\"args\":{\"a\":-0,\"b\":1.5e+10,\"c\":2E-3,"
     "\"d\":-12.25,\"e\":0.5,\"f\":18446744073709552000,\"g\":1e400}}]", 1, 0, 0},
    /* the fast path reads times and ids as numbers while it tokenizes
     * them, and notes where top-level containers end: every shape, and
     * duplicates whose later value is of another kind */
    {"times and ids of every shape", "[{\"ph\":\"X\",\"name\":\"n\",\"ts\":15731275751.123,\"dur\":0.5,"
     "\"tts\":-7,\"tdur\":1.2345,\"pid\":-3,\"tid\":1.5},"
     "{\"ph\":\"X\",\"ts\":123456789012345,\"dur\":1234567890123456,\"tts\":0,\"tdur\":-0,\"pid\":0,\"tid\":2.0},"
     "{\"ph\":\"X\",\"ts\":1e3,\"dur\":-0.001,\"tts\":0.000,\"pid\":12345678901234567890,\"tid\":2.50},"
     "{\"ph\":\"i\",\"ts\":0.0001,\"pid\":1,\"pid\":\"s\",\"tid\":2,\"tid\":null,\"s\":\"t\"},"
     "{\"ph\":\"X\",\"ts\":1,\"ts\":\"7\",\"dur\":2,\"dur\":[1],\"tts\":3,\"tts\":{},\"tdur\":4,\"tdur\":true},"
     "{\"ph\":\"X\",\"ts\":999999999999999,\"dur\":-99999999999999.9,\"pid\":-0.0,\"tid\":1E2}]", 6, 0, 0},
    {"containers and their duplicates", "[{\"ph\":\"C\",\"name\":\"c\",\"ts\":1,\"args\":{\"a\":1},\"args\":{\"b\":[2,{}]}},"
     "{\"ph\":\"i\",\"name\":\"i\",\"ts\":1,\"args\":{\"a\":{\"b\":1}},\"args\":\"x\"},"
     "{\"ph\":\"i\",\"name\":\"i\",\"ts\":1,\"args\":[],\"stack\":[1,2],\"stack\":null,\"estack\":[\"a\"]},"
     "{\"ph\":\"n\",\"name\":\"n\",\"ts\":1,\"id2\":{\"local\":\"0x2\"},\"id2\":{\"global\":\"0x3\"},\"args\":{}},"
     "{\"ph\":\"P\",\"ts\":2,\"stack\":[\"0x1\",\"0x2\"],\"args\":{\"x\":[[],[[]]]},\"estack\":[]}]", 5, 0, 0},
    {"utf-8 text", "[{\"ph\":\"i\",\"name\":\"\xc3\xa9t\xc3\xa9 \xe2\x9c\x93\",\"ts\":1,\"cat\":\"\xf0\x9f\x98\x80\"}]", 1, 0, 0},
    {"invalid utf-8 passes as bytes", "[{\"ph\":\"i\",\"name\":\"\xff\xfe\",\"ts\":1}]", 1, 0, 0},
    {"long strings", "[{\"ph\":\"i\",\"name\":\"0123456789abcdef0123456789abcdef0123456789abcdef\",\"ts\":1},"
     "{\"ph\":\"i\",\"name\":\"0123456\",\"ts\":1},{\"ph\":\"i\",\"name\":\"01234567\",\"ts\":1}]", 3, 0, 0},
    {"every phase", "[{\"ph\":\"B\",\"name\":\"b\",\"ts\":1},{\"ph\":\"E\",\"ts\":2},{\"ph\":\"b\",\"id\":\"0x1\",\"cat\":\"c\",\"name\":\"n\",\"ts\":1},"
     "{\"ph\":\"n\",\"id2\":{\"local\":\"0x2\"},\"name\":\"n\",\"ts\":1},{\"ph\":\"e\",\"id\":1,\"name\":\"n\",\"ts\":1},"
     "{\"ph\":\"s\",\"id\":7,\"name\":\"f\",\"ts\":1,\"bp\":\"e\"},{\"ph\":\"f\",\"id\":7,\"name\":\"f\",\"ts\":2},"
     "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"main\"}},"
     "{\"ph\":\"C\",\"name\":\"mem\",\"ts\":3,\"id\":\"5\",\"args\":{\"a\":1,\"b\":{\"c\":2}}},"
     "{\"ph\":\"N\",\"id\":\"0x9\",\"name\":\"o\",\"ts\":1},{\"ph\":\"O\",\"id\":\"0x9\",\"name\":\"o\",\"ts\":2,\"args\":{\"snapshot\":{}}},"
     "{\"ph\":\"P\",\"ts\":4,\"sf\":3},{\"ph\":\"(\",\"ts\":5,\"id\":1},{\"ph\":\"=\",\"id\":1,\"args\":{\"linked_id\":2}},"
     "{\"ph\":\"?\",\"name\":\"odd\",\"ts\":6}]", 15, 0, 0},
    {"samples and system events", "{\"traceEvents\":[" PLAIN "],\"samples\":[{\"cpu\":0,\"tid\":1,\"ts\":\"2\",\"name\":\"s\","
     "\"sf\":7,\"weight\":3},{\"ts\":3}],\"stackFrames\":{\"7\":{\"name\":\"f\",\"category\":\"c\"}},"
     "\"systemTraceEvents\":{\"type\":\"fuchsia\",\"events\":[{\"ph\":\"p\",\"pid\":1,\"name\":\"proc\"},"
     "{\"ph\":\"t\",\"pid\":1,\"tid\":2,\"name\":\"thr\"}]}}", 5, 0, 0},

    /* V8 profile records expand the same whichever reader read them */
    {"profile chunks", "[{\"ph\":\"P\",\"name\":\"Profile\",\"id\":\"0x1\",\"pid\":1,\"tid\":2,\"ts\":5,"
     "\"args\":{\"data\":{\"startTime\":5}}}," PLAIN ",{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\","
     "\"pid\":1,\"tid\":3,\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"id\":1,\"callFrame\":"
     "{\"functionName\":\"(root)\"}},{\"id\":2,\"parent\":1}],\"samples\":[1,2,2]},"
     "\"timeDeltas\":[1,2,3],\"lines\":[0,4,5]}}},{\"ph\":\"P\",\"name\":\"ProfileChunk\","
     "\"id\":\"0x1\",\"pid\":1,\"tid\":3,\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":"
     "[{\"id\":3,\"parent\":2,\"callFrame\":{\"functionName\":\"f\\u00e9\"}}],\"samples\":[3]},"
     "\"timeDeltas\":[4]}}}," PLAIN2 "]", 4, 0, 0},
    {"a .cpuprofile", "{\"nodes\":[{\"id\":1,\"children\":[2]},{\"id\":2,\"callFrame\":{\"url\":\"u\"}},"
     "{\"id\":3,\"callFrame\":{\"url\":\"\\/\"}},{\"id\":4}],\"startTime\":1,\"samples\":[2,4],"
     "\"timeDeltas\":[1,1]}", 3, 0, 0},

    /* what the fast path hands back to yajl, between plain records */
    {"escape in a value", "[" PLAIN ",{\"ph\":\"i\",\"name\":\"a\\\"b\\u00e9\\n\",\"ts\":1}," PLAIN2 "]", 2, 0, 0},
    {"escape in a key", "[" PLAIN ",{\"ph\":\"i\",\"na\\u006de\":\"k\",\"ts\":1}," PLAIN2 "]", 2, 0, 0},
    {"control byte in a string", "[" PLAIN ",{\"ph\":\"i\",\"name\":\"a\tb\",\"ts\":1}," PLAIN2 "]", 1, 0, 0},
    {"NaN and Infinity", "[" PLAIN ",{\"ph\":\"C\",\"name\":\"c\",\"ts\":1,\"args\":{\"v\":NaN,\"w\":-Infinity}}," PLAIN2 "]", 2, 0, 0},
    {"NaN in strict mode", "[" PLAIN ",{\"ph\":\"C\",\"name\":\"c\",\"ts\":1,\"args\":{\"v\":NaN}}," PLAIN2 "]", 1,
     TREAD_OPT_LENIENT, 0},
    {"trailing comma in a record", "[" PLAIN ",{\"ph\":\"i\",\"name\":\"t\",\"ts\":1,}," PLAIN2 "]", 2, 0, 0},
    {"trailing comma in args", "[" PLAIN ",{\"ph\":\"i\",\"name\":\"t\",\"ts\":1,\"args\":{\"a\":[1,2,],}}," PLAIN2 "]", 2, 0, 0},
    {"trailing comma before ]", "[" PLAIN "," PLAIN2 ",\n]", 2, 0, 0},
    {"trailing comma, strict", "[" PLAIN "," PLAIN2 ",]", 2, TREAD_OPT_LENIENT, 0},
    {"comments between records", "[" PLAIN ", // one\n" PLAIN2 " /* two */ ," PLAIN "]", 1, 0, 0},
    {"comment inside a record", "[" PLAIN ",{\"ph\":\"i\", /* c */ \"name\":\"x\",\"ts\":1}," PLAIN2 "]", 2, 0, 0},
    {"empty record", "[" PLAIN ",{}," PLAIN2 "]", 2, 0, 0},
    {"not an object", "[" PLAIN ",1,\"s\",[1,2],null," PLAIN2 "]", 2, 0, 0},
    {"leading zero", "[" PLAIN ",{\"ph\":\"i\",\"name\":\"z\",\"ts\":01}," PLAIN2 "]", 1, 0, 0},
    {"bad number", "[" PLAIN ",{\"ph\":\"i\",\"name\":\"z\",\"ts\":1.}]", 1, 0, 0},
    {"bad literal", "[" PLAIN ",{\"ph\":\"i\",\"name\":\"z\",\"ts\":1,\"args\":{\"a\":truex}}]", 1, 0, 0},
    {"missing colon", "[" PLAIN ",{\"ph\" \"i\"}]", 1, 0, 0},
    {"missing comma between records", "[" PLAIN PLAIN2 "]", 1, 0, 0},
    {"literal at the end", "[" PLAIN ",true", 1, 0, 0},
    {"number at the end", "[" PLAIN ",12", 1, 0, 0},
    {"garbage after a record", "[" PLAIN "x]", 1, 0, 0},
    {"form feed is not JSON whitespace for tread", "[" PLAIN ",\f" PLAIN2 "]", 1, 0, 0},
    {"deep args", "[" PLAIN ",{\"ph\":\"i\",\"name\":\"d\",\"ts\":1,\"args\":{\"a\":{\"b\":{\"c\":{\"d\":1}}}}}," PLAIN2 "]", 3, 0, 0},
    {"deeper than the limit", "[" PLAIN ",{\"ph\":\"i\",\"name\":\"d\",\"ts\":1,\"args\":{\"a\":{\"b\":{\"c\":{\"d\":1}}}}}," PLAIN2 "]", 1,
     TREAD_OPT_MAX_DEPTH, 5},
    {"at the depth limit", "[" PLAIN ",{\"ph\":\"i\",\"name\":\"d\",\"ts\":1,\"args\":{\"a\":{\"b\":1}}}," PLAIN2 "]", 3,
     TREAD_OPT_MAX_DEPTH, 4},
    {"string over the limit", "[" PLAIN ",{\"ph\":\"i\",\"name\":\"0123456789abcdefX\",\"ts\":1}," PLAIN2 "]", 1,
     TREAD_OPT_MAX_STRING_BYTES, 16},
    {"string at the limit", "[" PLAIN ",{\"ph\":\"i\",\"name\":\"0123456789abcdef\",\"ts\":1}," PLAIN2 "]", 3,
     TREAD_OPT_MAX_STRING_BYTES, 16},
    {"key over the limit", "[" PLAIN ",{\"ph\":\"i\",\"0123456789abcdefX\":1,\"ts\":1}," PLAIN2 "]", 1,
     TREAD_OPT_MAX_STRING_BYTES, 16},
    {"number over the limit", "[" PLAIN ",{\"ph\":\"i\",\"name\":\"n\",\"ts\":12345678901234567}," PLAIN2 "]", 1,
     TREAD_OPT_MAX_STRING_BYTES, 16},
    {"record over the limit", "[" PLAIN ",{\"ph\":\"i\",\"name\":\"n\",\"ts\":1,\"args\":{\"a\":\"0123456789012345678901234567890123456789\"}}," PLAIN2 "]", 1,
     TREAD_OPT_MAX_EVENT_BYTES, 100},
    {"yajl only", "[" PLAIN "," PLAIN2 "]", 0, TREAD_OPT_JSON_FAST_PATH, 0},
};

static void run_case(const path_case *c)
{
    int64_t opts[5] = {0, 0, 0, 0, 0}, slow[5] = {TREAD_OPT_JSON_FAST_PATH, 0, 0, 0, 0};
    if (c->opt) {
        opts[0] = c->opt;
        opts[1] = c->value;
        if (c->opt != TREAD_OPT_JSON_FAST_PATH) {
            slow[2] = c->opt;
            slow[3] = c->value;
        }
    }
    size_t len = strlen(c->doc);
    dump ref;
    dump_init(&ref);
    dump_parse(&ref, c->doc, len, 0, slow);
    dump runs[5];
    const char *how[5] = {"whole", "1-byte chunks", "3-byte chunks", "stop every event",
                          "stops in 1-byte chunks"};
    const size_t chunk[5] = {0, 1, 3, 0, 1};
    for (int i = 0; i < 5; i++) {
        dump_init(&runs[i]);
        runs[i].stop_every = i >= 3 ? 1 : 0;
        runs[i].max_stops = 100000;
        dump_parse(&runs[i], c->doc, len, chunk[i], opts);
        test_checks++;
        if (!ref.text || !runs[i].text || strcmp(ref.text, runs[i].text) != 0) {
            test_failures++;
            fprintf(stderr, "%s: the fast path (%s) differs from yajl\n", c->name, how[i]);
            if (ref.text && runs[i].text)
                dump_show_difference(ref.text, runs[i].text);
        }
    }
    CHECK(ref.fast_records == 0);
    test_checks++;
    if ((long)runs[0].fast_records != c->fast) {
        test_failures++;
        fprintf(stderr, "%s: the fast path read %llu records, expected %ld\n", c->name,
                (unsigned long long)runs[0].fast_records, c->fast);
    }
    dump_free(&ref);
    for (int i = 0; i < 5; i++)
        dump_free(&runs[i]);
}

/* A big plain trace fed in uneven chunks: most records take the fast path,
 * the ones cut by a chunk go to yajl, and the dumps agree. */
static void check_chunked_trace(void)
{
    size_t cap = 1 << 20, len = 0;
    char *doc = malloc(cap);
    if (!doc)
        abort();
    len += (size_t)snprintf(doc + len, cap - len, "{\"traceEvents\":[\n");
    for (int i = 0; i < 2000; i++)
        len += (size_t)snprintf(doc + len, cap - len,
                                "%s{\"pid\":%d,\"tid\":%d,\"ts\":%d.%03d,\"ph\":\"X\",\"dur\":%d,"
                                "\"name\":\"task%d\",\"args\":{\"n\":%d,\"s\":\"%s\"}}\n",
                                i ? "," : "", i % 3, i % 7, i, i % 1000, i % 50, i % 13, i,
                                i % 100 == 0 ? "esc\\\"aped" : "plain");
    len += (size_t)snprintf(doc + len, cap - len, "]}\n");
    static const int64_t slow[] = {TREAD_OPT_JSON_FAST_PATH, 0, 0};
    dump ref, fast;
    dump_init(&ref);
    dump_parse(&ref, doc, len, 0, slow);
    const size_t chunks[] = {0, 4093, 777, 64};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        dump_init(&fast);
        fast.stop_every = i == 2 ? 13 : 0;
        dump_parse(&fast, doc, len, chunks[i], NULL);
        CHECK(ref.text && fast.text && strcmp(ref.text, fast.text) == 0);
        if (ref.text && fast.text && strcmp(ref.text, fast.text) != 0)
            dump_show_difference(ref.text, fast.text);
        /* 20 records have an escape; a chunk boundary costs at most one
         * record, and so does the end of the bytes held while sniffing */
        CHECK(fast.fast_records <= 1980);
        CHECK(fast.fast_records + 21 + (chunks[i] ? len / chunks[i] + 1 : 0) >= 2000);
        if (chunks[i] == 0)
            CHECK(fast.fast_records >= 1979);
        dump_free(&fast);
    }
    CHECK_EQ_INT(ref.events, 2000);
    dump_free(&ref);
    free(doc);
}

static int stop_on_warning(void *user, const tread_warning *w)
{
    (void)w;
    ++*(int *)user;
    return 1;
}

/* A stop asked for by a warning before traceEvents opens is still owed
 * when the fast path takes over at '[' (found by fuzz_json). */
static void check_stop_before_fast_entry(void)
{
    static const char doc[] = "\xef\xbb\xbf[ " PLAIN "]";
    for (int fast = 0; fast < 2; fast++) {
        int warnings = 0;
        tread_parser *p = tread_parser_create(NULL);
        tread_callbacks cb = {.warning = stop_on_warning};
        tread_config(p, TREAD_OPT_JSON_FAST_PATH, fast);
        tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_JSON); /* no sniffing delay */
        tread_set_callbacks(p, &cb, &warnings);
        CHECK_EQ_INT(tread_feed(p, doc, 5), TREAD_STATUS_PAUSED); /* BOM, '[', ' ' */
        CHECK_EQ_INT(warnings, 1);
        CHECK_EQ_INT(tread_resume(p), TREAD_STATUS_OK);
        CHECK_EQ_INT(tread_feed(p, doc + 5, sizeof doc - 1 - 5), TREAD_STATUS_OK);
        CHECK_EQ_INT(tread_finish(p), TREAD_STATUS_OK);
        tread_stats st;
        tread_get_stats(p, &st);
        CHECK_EQ_INT(st.events, 1);
        CHECK_EQ_INT(st.fast_records, fast);
        tread_parser_free(p);
    }
}

int main(void)
{
    check_stop_before_fast_entry();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    check_chunked_trace();
    return TEST_EXIT();
}
