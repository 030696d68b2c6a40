/* Chrome JSON: every phase to its tread_event_kind, counters, metadata,
 * top-level keys, stackFrames, samples, systemTraceEvents, skipped values
 * and the json_raw hook. Every input also goes through the "all chunkings
 * agree" check (whole, 1-byte and 7-byte chunks, a stop after every event).
 *
 * Expected values come from include/tread.h and include/tread/json.h (the
 * kind comments name the phases of each kind). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tread.h>
#include <tread/json.h>

#include "json_collect.h"

/* ---- collecting what a parse delivers --------------------------------
 * Strings handed to callbacks live only until the callback returns, so the
 * collector copies everything it needs: strings with their explicit length
 * (NULs included) and argument streams byte for byte (a tread_args is a
 * self-contained token stream, so a copy iterates like the original). */


/* ------------------------------------------------------------------------ */

static const struct {
    char ph;
    tread_event_kind kind;
} phase_table[] = {
    {'B', TREAD_EVENT_SLICE_BEGIN},    {'E', TREAD_EVENT_SLICE_END},
    {'X', TREAD_EVENT_COMPLETE},       {'i', TREAD_EVENT_INSTANT},
    {'I', TREAD_EVENT_INSTANT},        {'C', TREAD_EVENT_COUNTER},
    {'b', TREAD_EVENT_ASYNC_BEGIN},    {'n', TREAD_EVENT_ASYNC_STEP},
    {'e', TREAD_EVENT_ASYNC_END},      {'S', TREAD_EVENT_ASYNC_BEGIN},
    {'T', TREAD_EVENT_ASYNC_STEP},     {'p', TREAD_EVENT_ASYNC_STEP},
    {'F', TREAD_EVENT_ASYNC_END},      {'s', TREAD_EVENT_FLOW_BEGIN},
    {'t', TREAD_EVENT_FLOW_STEP},      {'f', TREAD_EVENT_FLOW_END},
    {'P', TREAD_EVENT_SAMPLE},         {'N', TREAD_EVENT_OBJECT_NEW},
    {'O', TREAD_EVENT_OBJECT_SNAPSHOT},{'D', TREAD_EVENT_OBJECT_DELETE},
    {'M', TREAD_EVENT_METADATA},       {'V', TREAD_EVENT_MEMORY_DUMP},
    {'v', TREAD_EVENT_MEMORY_DUMP},    {'R', TREAD_EVENT_INSTANT},
    {'c', TREAD_EVENT_CLOCK_SYNC},     {'(', TREAD_EVENT_CONTEXT_ENTER},
    {')', TREAD_EVENT_CONTEXT_LEAVE},  {'=', TREAD_EVENT_ID_LINK},
};
#define N_PHASES (sizeof phase_table / sizeof phase_table[0])

/* One document per phase: exactly one event of the right kind. */
static void test_each_phase_alone(void)
{
    CHECK_EQ_INT(N_PHASES, 28);
    for (size_t i = 0; i < N_PHASES; i++) {
        char doc[256];
        /* args {"v":1} gives the counter its one series */
        snprintf(doc, sizeof doc,
                 "[{\"ph\":\"%c\",\"name\":\"ev\",\"ts\":2,\"pid\":3,\"tid\":4,\"args\":{\"v\":1}}]",
                 phase_table[i].ph);
        PARSE(doc);
        CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
        CHECK_EQ_INT(C.nwarn, 0);
        CHECK_EQ_INT(C.nev, 1);
        if (C.nev != 1) {
            fprintf(stderr, "  phase '%c'\n", phase_table[i].ph);
            continue;
        }
        const cevent *e = &C.ev[0];
        if (e->kind != phase_table[i].kind)
            fprintf(stderr, "  phase '%c' gave kind %s\n", phase_table[i].ph,
                    tread_event_kind_name(e->kind));
        CHECK_EQ_INT(e->kind, phase_table[i].kind);
        CHECK_EQ_INT(e->phase, phase_table[i].ph);
        CHECK_EQ_INT(e->format, TREAD_FORMAT_JSON);
        CHECK_STR(e->name, "ev");
        CHECK_EQ_INT(e->ts, 2000);
        CHECK_EQ_INT(e->pid, 3);
        CHECK_EQ_INT(e->tid, 4);
        uint32_t want = TREAD_HAS_TS | TREAD_HAS_PID | TREAD_HAS_TID;
        CHECK_EQ_INT(e->flags & want, want);
        CHECK_EQ_INT(e->offset, 1);
        if (phase_table[i].ph == 'M')
            CHECK_EQ_INT(e->meta, TREAD_META_OTHER);
        else
            CHECK_EQ_INT(e->meta, TREAD_META_NONE);
        CHECK_EQ_INT(C.stats.events_by_kind[phase_table[i].kind], 1);
    }
}

/* All phases in one document, with offsets. */
static void test_all_phases_in_one_document(void)
{
    char doc[8192];
    uint64_t offs[N_PHASES];
    size_t n = 0;
    n += (size_t)snprintf(doc + n, sizeof doc - n, "{\"traceEvents\": [\n");
    for (size_t i = 0; i < N_PHASES; i++) {
        if (i)
            n += (size_t)snprintf(doc + n, sizeof doc - n, ",\n  ");
        offs[i] = n;
        n += (size_t)snprintf(doc + n, sizeof doc - n,
                              "{\"name\":\"e%zu\",\"ph\":\"%c\",\"ts\":%zu,\"args\":{\"v\":%zu}}", i,
                              phase_table[i].ph, i, i);
    }
    snprintf(doc + n, sizeof doc - n, "\n]}\n");
    PARSE(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, N_PHASES);
    CHECK_EQ_INT(C.nraw, N_PHASES);
    CHECK_EQ_INT(C.stats.events, N_PHASES);
    CHECK_EQ_INT(C.stats.records, N_PHASES);
    for (size_t i = 0; i < N_PHASES && i < C.nev; i++) {
        const cevent *e = &C.ev[i];
        char name[16];
        snprintf(name, sizeof name, "e%zu", i);
        CHECK_EQ_INT(e->kind, phase_table[i].kind);
        CHECK_EQ_INT(e->phase, phase_table[i].ph);
        CHECK_STR(e->name, name);
        CHECK_EQ_INT(e->ts, (int64_t)i * 1000);
        CHECK_EQ_INT(e->offset, offs[i]);
        CHECK(e->has_raw);
        CHECK_EQ_INT(e->raw_section, TREAD_JSON_TRACE_EVENTS);
        CHECK_EQ_INT(e->raw_offset, offs[i]);
    }
}

static void test_unknown_phase(void)
{
    const char *doc = "[{\"ph\":\"Z\",\"name\":\"z\",\"ts\":1},\n"
                      " {\"name\":\"noph\",\"ts\":2},\n"
                      " {\"ph\":\"B\",\"name\":\"after\"}]";
    PARSE(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK); /* never an error */
    CHECK_EQ_INT(C.error, TREAD_ERROR_NONE);
    CHECK_EQ_INT(C.nev, 3);
    CHECK_EQ_INT(count_warnings(TREAD_WARN_UNKNOWN_PHASE), 2);
    CHECK_EQ_INT(C.nwarn, 2);
    const cwarn *w = find_warning(TREAD_WARN_UNKNOWN_PHASE);
    CHECK(w && w->msg[0] != 0); /* a message comes with it */
    CHECK(has_warning_at(TREAD_WARN_UNKNOWN_PHASE, offset_of(doc, "{\"ph\":\"Z\"", 0)));
    CHECK(has_warning_at(TREAD_WARN_UNKNOWN_PHASE, offset_of(doc, "{\"name\":\"noph\"", 0)));
    if (C.nev == 3) {
        CHECK_EQ_INT(C.ev[0].kind, TREAD_EVENT_UNKNOWN);
        CHECK_EQ_INT(C.ev[0].phase, 'Z');
        CHECK_EQ_INT(C.ev[0].offset, offset_of(doc, "{\"ph\":\"Z\"", 0));
        CHECK(C.ev[0].has_raw);
        CHECK_EQ_INT(C.ev[1].kind, TREAD_EVENT_UNKNOWN);
        CHECK_EQ_INT(C.ev[1].phase, 0); /* no "ph" */
        CHECK_EQ_INT(C.ev[1].offset, offset_of(doc, "{\"name\":\"noph\"", 0));
        CHECK(C.ev[1].has_raw);
        CHECK_EQ_INT(C.ev[2].kind, TREAD_EVENT_SLICE_BEGIN);
        CHECK_STR(C.ev[2].name, "after");
    }
    CHECK_EQ_INT(C.stats.events_by_kind[TREAD_EVENT_UNKNOWN], 2);
    CHECK_EQ_INT(C.stats.warnings_by_kind[TREAD_WARN_UNKNOWN_PHASE], 2);
}

/* ---- counters ----------------------------------------------------------- */

static void test_counters(void)
{
    const char *doc =
        "[{\"ph\":\"C\",\"name\":\"ctr\",\"id\":\"7\",\"ts\":10,\"pid\":1,\"tid\":1,\"args\":"
        "{\"a\":1,\"b\":2.5,\"c\":\"x\",\"d\":\"3.25\",\"data\":{\"x\":4,\"y\":{\"z\":-5}},"
        "\"arr\":[1,2],\"n\":null,\"big\":18446744073709551615}}]";
    PARSE(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    static const struct {
        const char *series;
        double value;
        const char *text;
    } want[] = {
        {"a", 1, "1"},
        {"b", 2.5, "2.5"},
        {"d", 3.25, "3.25"},       /* a numeric string */
        {"data.x", 4, "4"},        /* nested dicts flattened */
        {"data.y.z", -5, "-5"},
        {"big", 18446744073709551615.0, "18446744073709551615"},
    };
    size_t nwant = sizeof want / sizeof want[0];
    CHECK_EQ_INT(C.nev, nwant);
    for (size_t i = 0; i < nwant && i < C.nev; i++) {
        const cevent *e = &C.ev[i];
        CHECK_EQ_INT(e->kind, TREAD_EVENT_COUNTER);
        CHECK_EQ_INT(e->phase, 'C');
        CHECK_STR(e->name, "ctr");
        CHECK_STR(e->series, want[i].series);
        CHECK(e->flags & TREAD_HAS_VALUE);
        CHECK(e->value == want[i].value);
        CHECK_STR(e->value_text, want[i].text);
        CHECK_STR(e->id, "7");
        CHECK(e->flags & TREAD_HAS_ID);
        CHECK(e->flags & TREAD_HAS_ID_NUM);
        CHECK_EQ_INT(e->id_num, 7);
        CHECK_EQ_INT(e->ts, 10000);
        CHECK_EQ_INT(e->pid, 1);
        CHECK_EQ_INT(e->offset, 1);
    }
    /* "c" (a word), "arr" (an array) and "n" (null) are not numbers */
    CHECK_EQ_INT(count_warnings(TREAD_WARN_BAD_COUNTER_VALUE), 3);
    CHECK_EQ_INT(C.nwarn, 3);
    for (size_t i = 0; i < C.nwarn; i++)
        CHECK_EQ_INT(C.warn[i].offset, 1);
    CHECK_EQ_INT(C.stats.events_by_kind[TREAD_EVENT_COUNTER], nwant);

    /* no numeric series at all: no event, a warning, no error */
    PARSE("[{\"ph\":\"C\",\"name\":\"empty\",\"args\":{\"s\":\"abc\"}},{\"ph\":\"C\",\"name\":\"none\"}]");
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 0);
    CHECK(count_warnings(TREAD_WARN_BAD_COUNTER_VALUE) >= 2);

    /* the same series in two counter events, values as integers and
     * exponents */
    PARSE("[{\"ph\":\"C\",\"name\":\"mem\",\"ts\":1,\"args\":{\"bytes\":1e3}},"
          "{\"ph\":\"C\",\"name\":\"mem\",\"ts\":2,\"args\":{\"bytes\":\"-7\"}}]");
    CHECK_EQ_INT(C.nev, 2);
    if (C.nev == 2) {
        CHECK_STR(C.ev[0].series, "bytes");
        CHECK(C.ev[0].value == 1000.0);
        CHECK_STR(C.ev[0].value_text, "1e3");
        CHECK_EQ_INT(C.ev[0].ts, 1000);
        CHECK(C.ev[1].value == -7.0);
        CHECK_STR(C.ev[1].value_text, "-7");
        CHECK_EQ_INT(C.ev[1].ts, 2000);
    }
    CHECK_EQ_INT(C.nwarn, 0);
}

/* A stop after each series of a counter: every series once, and the
 * record's own warnings once (not again at each resume). */
static size_t stop_series_n;
static char stop_series[8][16];
static size_t stop_warn_by_kind[TREAD_WARN_KIND_COUNT_];

static int stop_count_event(void *user, const tread_event *ev)
{
    (void)user;
    if (stop_series_n < 8)
        snprintf(stop_series[stop_series_n], sizeof stop_series[0], "%.*s", (int)ev->series.len,
                 ev->series.ptr ? ev->series.ptr : "");
    stop_series_n++;
    return 1; /* stop after every event */
}

static int stop_count_warning(void *user, const tread_warning *w)
{
    (void)user;
    if ((unsigned)w->kind < TREAD_WARN_KIND_COUNT_)
        stop_warn_by_kind[w->kind]++;
    return 0;
}

static void test_counter_stop_resume(void)
{
    const char *doc = "[{\"ph\":\"C\",\"name\":\"c\",\"ts\":\"soon\",\"args\":{\"a\":1,\"b\":2,\"c\":3}}]";
    PARSE(doc); /* the plain parse: 3 events, 1 warning */
    CHECK_EQ_INT(C.nev, 3);
    CHECK_EQ_INT(count_warnings(TREAD_WARN_BAD_FIELD), 1);

    tread_parser *p = tread_parser_create(NULL);
    tread_callbacks cb = {.event = stop_count_event, .warning = stop_count_warning};
    tread_set_callbacks(p, &cb, NULL);
    stop_series_n = 0;
    memset(stop_warn_by_kind, 0, sizeof stop_warn_by_kind);
    int resumes = 0;
    tread_status st = tread_feed(p, doc, strlen(doc));
    while (st == TREAD_STATUS_PAUSED && resumes++ < 20)
        st = tread_resume(p);
    if (st == TREAD_STATUS_OK) {
        st = tread_finish(p);
        while (st == TREAD_STATUS_PAUSED && resumes++ < 20)
            st = tread_resume(p);
    }
    CHECK_EQ_INT(st, TREAD_STATUS_OK);
    CHECK_EQ_INT(stop_series_n, 3);
    if (stop_series_n == 3) {
        CHECK_EQ_STR(stop_series[0], "a");
        CHECK_EQ_STR(stop_series[1], "b");
        CHECK_EQ_STR(stop_series[2], "c");
    }
    /* Regression (fixed): each resume inside the counter (json_emit_record with first > 0)
     * runs fill_common() again, which repeats the record's field warnings:
     * here 3 BAD_FIELD warnings for the one bad "ts". */
    CHECK_EQ_INT(stop_warn_by_kind[TREAD_WARN_BAD_FIELD], 1);
    tread_stats s;
    tread_get_stats(p, &s);
    CHECK_EQ_INT(s.events, 3);
    tread_parser_free(p);
}

/* ---- metadata ----------------------------------------------------------- */

#define META_EVENTS                                                                   \
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"Browser\"}},\n" \
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":7,\"args\":{\"name\":\"CrBrowserMain\"}},\n" \
    "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":1,\"args\":{\"sort_index\":-2}},\n" \
    "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":7,\"args\":{\"sort_index\":5}},\n" \
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":1,\"args\":{\"labels\":\"a,b\"}},\n" \
    "{\"ph\":\"M\",\"name\":\"process_uptime_seconds\",\"pid\":1,\"args\":{\"uptime\":42}},\n" \
    "{\"ph\":\"M\",\"name\":\"num_cpus\",\"args\":{\"number\":8}},\n" \
    "{\"ph\":\"M\",\"name\":\"trace_buffer_overflowed\",\"pid\":1,\"args\":{\"overflowed_at_ts\":3}}"

static void check_metadata_events(const char *doc)
{
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 8);
    if (C.nev != 8)
        return;
    for (size_t i = 0; i < 8; i++) {
        CHECK_EQ_INT(C.ev[i].kind, TREAD_EVENT_METADATA);
        CHECK_EQ_INT(C.ev[i].phase, 'M');
    }
    const cevent *e = C.ev;
    CHECK_EQ_INT(e[0].meta, TREAD_META_PROCESS_NAME);
    CHECK_STR(e[0].meta_str, "Browser");
    CHECK_STR(e[0].name, "process_name");
    CHECK(!(e[0].flags & TREAD_HAS_META_NUM));
    CHECK_EQ_INT(e[0].pid, 1);
    CHECK_EQ_INT(e[0].offset, offset_of(doc, "{\"ph\":\"M\",\"name\":\"process_name\"", 0));

    CHECK_EQ_INT(e[1].meta, TREAD_META_THREAD_NAME);
    CHECK_STR(e[1].meta_str, "CrBrowserMain");
    CHECK_EQ_INT(e[1].tid, 7);
    CHECK(!(e[1].flags & TREAD_HAS_META_NUM));

    CHECK_EQ_INT(e[2].meta, TREAD_META_PROCESS_SORT_INDEX);
    CHECK(e[2].flags & TREAD_HAS_META_NUM);
    CHECK_EQ_INT(e[2].meta_num, -2);
    CHECK_ABSENT(e[2].meta_str);

    CHECK_EQ_INT(e[3].meta, TREAD_META_THREAD_SORT_INDEX);
    CHECK(e[3].flags & TREAD_HAS_META_NUM);
    CHECK_EQ_INT(e[3].meta_num, 5);
    CHECK_EQ_INT(e[3].tid, 7);

    CHECK_EQ_INT(e[4].meta, TREAD_META_PROCESS_LABELS);
    CHECK_STR(e[4].meta_str, "a,b");
    CHECK(!(e[4].flags & TREAD_HAS_META_NUM));

    CHECK_EQ_INT(e[5].meta, TREAD_META_PROCESS_UPTIME_SECONDS);
    CHECK(e[5].flags & TREAD_HAS_META_NUM);
    CHECK_EQ_INT(e[5].meta_num, 42);

    CHECK_EQ_INT(e[6].meta, TREAD_META_NUM_CPUS);
    CHECK(e[6].flags & TREAD_HAS_META_NUM);
    CHECK_EQ_INT(e[6].meta_num, 8);

    CHECK_EQ_INT(e[7].meta, TREAD_META_OTHER);
    CHECK_STR(e[7].name, "trace_buffer_overflowed");
    CHECK(!(e[7].flags & TREAD_HAS_META_NUM));
    tread_args a = args_of(&e[7].args);
    tread_arg v;
    CHECK(tread_args_find(&a, "overflowed_at_ts", 16, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_INT);
    CHECK_EQ_INT(v.v.i, 3);
    CHECK_EQ_INT(C.stats.events_by_kind[TREAD_EVENT_METADATA], 8);
}

static void test_metadata(void)
{
    const char *array_form = "[\n" META_EVENTS "\n]\n";
    PARSE(array_form);
    check_metadata_events(array_form);

    const char *object_form = "{\"traceEvents\":[\n" META_EVENTS "\n]}\n";
    PARSE(object_form);
    check_metadata_events(object_form);

    /* uptime as a fraction and sort_index as a numeric string still give
     * meta_num; a name that is not a string gives no meta_str */
    PARSE("[{\"ph\":\"M\",\"name\":\"process_uptime_seconds\",\"args\":{\"uptime\":\"12\"}},"
          "{\"ph\":\"M\",\"name\":\"thread_name\",\"args\":{\"name\":5}}]");
    CHECK_EQ_INT(C.nev, 2);
    if (C.nev == 2) {
        CHECK_EQ_INT(C.ev[0].meta, TREAD_META_PROCESS_UPTIME_SECONDS);
        CHECK(C.ev[0].flags & TREAD_HAS_META_NUM);
        CHECK_EQ_INT(C.ev[0].meta_num, 12);
        CHECK_EQ_INT(C.ev[1].meta, TREAD_META_THREAD_NAME);
        CHECK_ABSENT(C.ev[1].meta_str);
    }
}

/* ---- top-level keys ----------------------------------------------------- */

/* A TRACE metadata event for key, whose args hold {key: value}. */
static const cevent *trace_meta(const char *key)
{
    for (size_t i = 0; i < C.nev; i++)
        if (C.ev[i].kind == TREAD_EVENT_METADATA && C.ev[i].meta == TREAD_META_TRACE &&
            str_is(&C.ev[i].name, key))
            return &C.ev[i];
    return NULL;
}

static const craw *raw_with_key(tread_json_section sect, const char *key)
{
    for (size_t i = 0; i < C.nraw; i++)
        if (C.raw[i].section == sect && str_is(&C.raw[i].key, key))
            return &C.raw[i];
    return NULL;
}

static void test_top_level_keys(void)
{
    const char *doc =
        "{\"displayTimeUnit\":\"ns\",\n"
        " \"metadata\": {\"clock-domain\":\"LINUX_CLOCK_MONOTONIC\"},\n"
        " \"traceEvents\":[{\"ph\":\"B\",\"name\":\"b\",\"ts\":1,\"pid\":1,\"tid\":1}],\n"
        " \"otherData\": {\"version\":\"1.0\",\"n\":3},\n"
        " \"someUnknownKey\":[1,2,3],\n"
        " \"flag\":true}\n";
    PARSE(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 6);
    static const char *const order[] = {"displayTimeUnit", "metadata", NULL, "otherData",
                                        "someUnknownKey", "flag"};
    for (size_t i = 0; i < 6 && i < C.nev; i++) {
        if (!order[i]) {
            CHECK_EQ_INT(C.ev[i].kind, TREAD_EVENT_SLICE_BEGIN);
            continue;
        }
        CHECK_EQ_INT(C.ev[i].kind, TREAD_EVENT_METADATA);
        CHECK_EQ_INT(C.ev[i].meta, TREAD_META_TRACE);
        CHECK_STR(C.ev[i].name, order[i]);
        CHECK_EQ_INT(C.ev[i].phase, 0);
        /* the args are one member, key: value */
        tread_args a = args_of(&C.ev[i].args);
        tread_args_iter it;
        tread_arg v;
        tread_args_iter_init(&it, &a);
        CHECK(tread_args_next(&it, &v));
        CHECK_EQ_INT(v.depth, 0);
        CHECK(v.key.ptr && v.key.len == strlen(order[i]) && !memcmp(v.key.ptr, order[i], v.key.len));
        /* the event comes from its raw record */
        CHECK(C.ev[i].has_raw);
        CHECK_EQ_INT(C.ev[i].raw_section, TREAD_JSON_TOP_LEVEL);
        CHECK_EQ_INT(C.ev[i].offset, C.ev[i].raw_offset);
    }
    tread_arg v;
    const cevent *e;
    if ((e = trace_meta("displayTimeUnit")) != NULL) {
        tread_args a = args_of(&e->args);
        CHECK(tread_args_find(&a, "displayTimeUnit", 15, &v));
        CHECK_EQ_INT(v.type, TREAD_ARG_STRING);
        CHECK(v.v.s.len == 2 && !memcmp(v.v.s.ptr, "ns", 2));
    } else {
        CHECK(!"no displayTimeUnit event");
    }
    if ((e = trace_meta("metadata")) != NULL) {
        tread_args a = args_of(&e->args);
        CHECK(tread_args_find(&a, "metadata.clock-domain", 21, &v));
        CHECK_EQ_INT(v.type, TREAD_ARG_STRING);
        CHECK(v.v.s.len == 21 && !memcmp(v.v.s.ptr, "LINUX_CLOCK_MONOTONIC", 21));
    } else {
        CHECK(!"no metadata event");
    }
    if ((e = trace_meta("otherData")) != NULL) {
        tread_args a = args_of(&e->args);
        CHECK(tread_args_find(&a, "otherData.version", 17, &v));
        CHECK_EQ_INT(v.type, TREAD_ARG_STRING);
        CHECK(v.v.s.len == 3 && !memcmp(v.v.s.ptr, "1.0", 3));
        CHECK(tread_args_find(&a, "otherData.n", 11, &v));
        CHECK_EQ_INT(v.type, TREAD_ARG_INT);
        CHECK_EQ_INT(v.v.i, 3);
        CHECK(tread_args_find(&a, "otherData", 9, &v));
        CHECK_EQ_INT(v.type, TREAD_ARG_DICT_BEGIN);
    } else {
        CHECK(!"no otherData event");
    }
    if ((e = trace_meta("someUnknownKey")) != NULL) {
        tread_args a = args_of(&e->args);
        CHECK(tread_args_find(&a, "someUnknownKey.2", 16, &v));
        CHECK_EQ_INT(v.type, TREAD_ARG_INT);
        CHECK_EQ_INT(v.v.i, 3);
    } else {
        CHECK(!"no someUnknownKey event");
    }
    if ((e = trace_meta("flag")) != NULL) {
        tread_args a = args_of(&e->args);
        CHECK(tread_args_find(&a, "flag", 4, &v));
        CHECK_EQ_INT(v.type, TREAD_ARG_BOOL);
        CHECK_EQ_INT(v.v.b, 1);
    } else {
        CHECK(!"no flag event");
    }

    /* the raw records of top-level values: section, key, one member */
    CHECK_EQ_INT(C.nraw, 6);
    const craw *r = raw_with_key(TREAD_JSON_TOP_LEVEL, "otherData");
    CHECK(r != NULL);
    if (r) {
        tread_args f = args_of(&r->fields);
        CHECK(tread_args_find(&f, "otherData.version", 17, &v));
        /* Regression (fixed): the record of a top-level value starts at the byte after
         * the key's closing quote (the ':' or the blank before it), not
         * at the value: here 'offset' is that of ": {" and 'length' counts
         * the ": " too. A record's offset is that of its '{' and its length
         * runs through the closing '}' (tread/json.h). */
        const char *val = "{\"version\":\"1.0\",\"n\":3}";
        CHECK_EQ_INT(r->offset, offset_of(doc, val, 0));
        CHECK_EQ_INT(r->length, strlen(val));
    }
    r = raw_with_key(TREAD_JSON_TOP_LEVEL, "someUnknownKey");
    CHECK(r != NULL);
    if (r) {
        /* Regression (fixed): as above, for an array value ("[1,2,3]") */
        CHECK_EQ_INT(r->offset, offset_of(doc, "[1,2,3]", 0));
        CHECK_EQ_INT(r->length, 7);
    }
    r = raw_with_key(TREAD_JSON_TOP_LEVEL, "displayTimeUnit");
    CHECK(r != NULL);
    if (r) {
        /* Regression (fixed): as above, for a string value ("\"ns\"") */
        CHECK_EQ_INT(r->offset, offset_of(doc, "\"ns\"", 0));
        CHECK_EQ_INT(r->length, 4);
    }
}

/* stackFrames and samples after traceEvents. */
static void test_stack_frames_and_samples(void)
{
    const char *doc =
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"x\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1,\"sf\":\"2\"}],\n"
        "\"stackFrames\":{\"1\":{\"name\":\"main\",\"category\":\"libc\"},\n"
        "                \"0x2\":{\"name\":\"work\",\"category\":\"app\",\"parent\":\"1\"}},\n"
        "\"samples\":[{\"cpu\":3,\"tid\":9,\"ts\":5.5,\"name\":\"cycles\",\"sf\":\"0x2\",\"weight\":10},\n"
        "            {\"tid\":9,\"ts\":6,\"name\":\"cycles\",\"sf\":\"1\",\"weight\":2.5}]}";
    PARSE(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 5);
    CHECK_EQ_INT(C.nraw, 5);
    if (C.nev != 5 || C.nraw != 5)
        return;
    const cevent *e = C.ev;
    CHECK_EQ_INT(e[0].kind, TREAD_EVENT_COMPLETE);
    CHECK_STR(e[0].sf, "2");

    uint64_t f1 = offset_of(doc, "{\"name\":\"main\"", 0);
    uint64_t f2 = offset_of(doc, "{\"name\":\"work\"", 0);
    CHECK_EQ_INT(e[1].kind, TREAD_EVENT_STACK_FRAME);
    CHECK_STR(e[1].id, "1");
    CHECK(e[1].flags & TREAD_HAS_ID);
    CHECK_STR(e[1].name, "main");
    CHECK_STR(e[1].cat, "libc");
    CHECK_ABSENT(e[1].parent);
    CHECK_EQ_INT(e[1].offset, f1);
    CHECK_EQ_INT(e[2].kind, TREAD_EVENT_STACK_FRAME);
    CHECK_STR(e[2].id, "0x2");
    CHECK_STR(e[2].name, "work");
    CHECK_STR(e[2].cat, "app");
    CHECK_STR(e[2].parent, "1");
    CHECK_EQ_INT(e[2].offset, f2);

    uint64_t s1 = offset_of(doc, "{\"cpu\":3", 0);
    uint64_t s2 = offset_of(doc, "{\"tid\":9,\"ts\":6", 0);
    CHECK_EQ_INT(e[3].kind, TREAD_EVENT_SAMPLE);
    CHECK(e[3].flags & TREAD_HAS_CPU);
    CHECK_EQ_INT(e[3].cpu, 3);
    CHECK(e[3].flags & TREAD_HAS_TID);
    CHECK_EQ_INT(e[3].tid, 9);
    CHECK(e[3].flags & TREAD_HAS_TS);
    CHECK_EQ_INT(e[3].ts, 5500);
    CHECK_STR(e[3].name, "cycles");
    CHECK_STR(e[3].sf, "0x2");
    CHECK(e[3].flags & TREAD_HAS_VALUE);
    CHECK(e[3].value == 10.0);
    CHECK_STR(e[3].value_text, "10");
    CHECK_EQ_INT(e[3].offset, s1);
    CHECK_EQ_INT(e[4].kind, TREAD_EVENT_SAMPLE);
    CHECK(!(e[4].flags & TREAD_HAS_CPU));
    CHECK_EQ_INT(e[4].ts, 6000);
    CHECK_STR(e[4].sf, "1");
    CHECK(e[4].value == 2.5);
    CHECK_STR(e[4].value_text, "2.5");
    CHECK_EQ_INT(e[4].offset, s2);

    /* the raw records: sections, keys (frame ids), offsets, lengths */
    const craw *r = C.raw;
    CHECK_EQ_INT(r[0].section, TREAD_JSON_TRACE_EVENTS);
    CHECK_ABSENT(r[0].key);
    CHECK_EQ_INT(r[0].offset, offset_of(doc, "{\"ph\":\"X\"", 0));
    CHECK_EQ_INT(r[0].length, strlen("{\"ph\":\"X\",\"name\":\"x\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1,\"sf\":\"2\"}"));
    CHECK_EQ_INT(r[1].section, TREAD_JSON_STACK_FRAMES);
    CHECK_STR(r[1].key, "1");
    CHECK_EQ_INT(r[1].offset, f1);
    CHECK_EQ_INT(r[1].length, strlen("{\"name\":\"main\",\"category\":\"libc\"}"));
    CHECK_EQ_INT(r[2].section, TREAD_JSON_STACK_FRAMES);
    CHECK_STR(r[2].key, "0x2");
    CHECK_EQ_INT(r[2].offset, f2);
    CHECK_EQ_INT(r[2].length, strlen("{\"name\":\"work\",\"category\":\"app\",\"parent\":\"1\"}"));
    CHECK_EQ_INT(r[3].section, TREAD_JSON_SAMPLES);
    CHECK_EQ_INT(r[3].offset, s1);
    CHECK_EQ_INT(r[3].length,
                 strlen("{\"cpu\":3,\"tid\":9,\"ts\":5.5,\"name\":\"cycles\",\"sf\":\"0x2\",\"weight\":10}"));
    CHECK_EQ_INT(r[4].section, TREAD_JSON_SAMPLES);
    CHECK_EQ_INT(r[4].offset, s2);
    /* each raw record arrives before the event made from it */
    for (size_t i = 0; i < 5; i++) {
        CHECK(r[i].seq < e[i].seq);
        CHECK_EQ_INT(e[i].raw_offset, r[i].offset);
        CHECK_EQ_INT(e[i].raw_length, r[i].length);
        CHECK_EQ_INT(e[i].raw_section, r[i].section);
    }
}

static void test_system_trace_events(void)
{
    /* as a string (systrace text): read by the ftrace decoder as it
     * streams (tests/unit/test_json_sysstr.c); a header alone gives no
     * event, and no TRACE metadata event stands for the string */
    const char *doc1 = "{\"traceEvents\":[],\"systemTraceEvents\":\"# tracer: nop\\n\"}";
    PARSE(doc1);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 0);

    /* as a dict (Fuchsia's JSON export) */
    const char *doc2 =
        "{\"systemTraceEvents\":{\"type\":\"fuchsia\",\"events\":[\n"
        " {\"ph\":\"p\",\"pid\":10,\"name\":\"proc\"},\n"
        " {\"ph\":\"t\",\"pid\":10,\"tid\":11,\"name\":\"thr\"},\n"
        " {\"ph\":\"k\",\"cpu\":1,\"ts\":5,\"pid\":10,\"tid\":11,"
        "\"out\":{\"pid\":10,\"tid\":11,\"state\":3},\"in\":{\"pid\":10,\"tid\":12}}]}}";
    PARSE(doc2);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    /* what "type" gives is not specified: look at the other events only */
    const cevent *sys[8];
    size_t n = 0;
    for (size_t i = 0; i < C.nev; i++)
        if (C.ev[i].meta != TREAD_META_TRACE && n < 8)
            sys[n++] = &C.ev[i];
    CHECK_EQ_INT(n, 3);
    if (n == 3) {
        CHECK_EQ_INT(sys[0]->kind, TREAD_EVENT_METADATA);
        CHECK_EQ_INT(sys[0]->meta, TREAD_META_PROCESS_NAME);
        CHECK_STR(sys[0]->meta_str, "proc");
        CHECK_EQ_INT(sys[0]->pid, 10);
        CHECK_EQ_INT(sys[0]->offset, offset_of(doc2, "{\"ph\":\"p\"", 0));
        CHECK_EQ_INT(sys[0]->raw_section, TREAD_JSON_SYSTEM_EVENTS);
        CHECK_EQ_INT(sys[1]->kind, TREAD_EVENT_METADATA);
        CHECK_EQ_INT(sys[1]->meta, TREAD_META_THREAD_NAME);
        CHECK_STR(sys[1]->meta_str, "thr");
        CHECK_EQ_INT(sys[1]->pid, 10);
        CHECK_EQ_INT(sys[1]->tid, 11);
        CHECK_EQ_INT(sys[2]->kind, TREAD_EVENT_CONTEXT_SWITCH);
        CHECK(sys[2]->flags & TREAD_HAS_CPU);
        CHECK_EQ_INT(sys[2]->cpu, 1);
        CHECK_EQ_INT(sys[2]->ts, 5000);
        CHECK_EQ_INT(sys[2]->tid, 11);
        CHECK_EQ_INT(sys[2]->offset, offset_of(doc2, "{\"ph\":\"k\"", 0));
    }
    size_t nsys = 0;
    for (size_t i = 0; i < C.nraw; i++)
        if (C.raw[i].section == TREAD_JSON_SYSTEM_EVENTS)
            nsys++;
    CHECK_EQ_INT(nsys, 3);
}

/* A stackFrames entry {} still defines its key (a frame with no name,
 * which tread convert writes for a Perfetto frame that names nothing):
 * not an empty event (fuzz_convert: the JSON output read back warned). */
static void test_empty_stack_frame(void)
{
    const char *doc = "{\"stackFrames\":{\"1\":{},\"2\":{\"name\":\"b\",\"parent\":\"1\"}},"
                      "\"traceEvents\":[{\"ph\":\"i\",\"name\":\"x\",\"ts\":1,\"sf\":\"2\"},{}]}";
    PARSE(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 3);
    if (C.nev != 3)
        return;
    CHECK_EQ_INT(C.ev[0].kind, TREAD_EVENT_STACK_FRAME);
    CHECK_STR(C.ev[0].id, "1");
    CHECK_ABSENT(C.ev[0].name);
    CHECK_ABSENT(C.ev[0].parent);
    CHECK_EQ_INT(C.ev[0].offset, offset_of(doc, "{}", 0));
    CHECK_EQ_INT(C.ev[1].kind, TREAD_EVENT_STACK_FRAME);
    CHECK_STR(C.ev[1].parent, "1");
    CHECK_EQ_INT(C.ev[2].kind, TREAD_EVENT_INSTANT);
    /* in traceEvents, {} is still an empty event */
    CHECK_EQ_INT(count_warnings(TREAD_WARN_EMPTY_EVENT), 1);
    CHECK(has_warning_at(TREAD_WARN_EMPTY_EVENT, offset_of(doc, "{}", 1)));
}

/* {} and non-objects in traceEvents are skipped with warnings. */
static void test_skipped_values(void)
{
    const char *doc = "[{\"ph\":\"B\",\"name\":\"a\"}, {} ,5,\"str\",[1,{\"ph\":\"X\"}],null,true,"
                      "{\"ph\":\"E\",\"name\":\"a\"}]";
    PARSE(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 2);
    if (C.nev == 2) {
        CHECK_EQ_INT(C.ev[0].kind, TREAD_EVENT_SLICE_BEGIN);
        CHECK_EQ_INT(C.ev[1].kind, TREAD_EVENT_SLICE_END);
        CHECK_EQ_INT(C.ev[1].offset, offset_of(doc, "{\"ph\":\"E\"", 0));
    }
    CHECK_EQ_INT(count_warnings(TREAD_WARN_EMPTY_EVENT), 1);
    CHECK(has_warning_at(TREAD_WARN_EMPTY_EVENT, offset_of(doc, "{}", 0)));
    CHECK_EQ_INT(count_warnings(TREAD_WARN_NOT_AN_EVENT), 5);
    CHECK_EQ_INT(C.nwarn, 6);
    /* each NOT_AN_EVENT points into (or just past) its value */
    static const char *const vals[] = {"5", "\"str\"", "[1,{\"ph\":\"X\"}]", "null", "true"};
    size_t k = 0;
    for (size_t i = 0; i < C.nwarn && k < 5; i++) {
        if (C.warn[i].kind != TREAD_WARN_NOT_AN_EVENT)
            continue;
        uint64_t start = offset_of(doc, k == 0 ? ",5," : vals[k], 0) + (k == 0);
        uint64_t end = start + strlen(vals[k]);
        CHECK(C.warn[i].offset >= start && C.warn[i].offset <= end);
        k++;
    }
    /* the {"ph":"X"} inside the skipped array is not an event */
    CHECK_EQ_INT(C.stats.events_by_kind[TREAD_EVENT_COMPLETE], 0);
    for (size_t i = 0; i < C.nraw; i++)
        CHECK(C.raw[i].offset != offset_of(doc, "{\"ph\":\"X\"}", 0));
}

/* The raw hook: every member, in input order, duplicates included. */
static void test_raw_hook(void)
{
    const char *doc = "[ {\"ph\":\"i\",\"zz\":1,\"zz\":\"two\",\"name\":\"n\",\"x\":{\"y\":[true]}} ,\n"
                      "  {\"ph\":\"E\"}\n]";
    PARSE(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nraw, 2);
    CHECK_EQ_INT(C.nev, 2);
    CHECK_EQ_INT(C.stats.records, 2);
    if (C.nraw != 2 || C.nev != 2)
        return;
    CHECK_EQ_INT(C.raw[0].section, TREAD_JSON_TRACE_EVENTS);
    CHECK_EQ_INT(C.raw[0].offset, 2);
    CHECK_EQ_INT(C.raw[0].length,
                 strlen("{\"ph\":\"i\",\"zz\":1,\"zz\":\"two\",\"name\":\"n\",\"x\":{\"y\":[true]}}"));
    CHECK_ABSENT(C.raw[0].key);
    CHECK_EQ_INT(C.raw[1].offset, offset_of(doc, "{\"ph\":\"E\"}", 0));
    CHECK_EQ_INT(C.raw[1].length, 10);
    CHECK(C.raw[0].seq < C.ev[0].seq);
    CHECK(C.ev[0].seq < C.raw[1].seq);
    CHECK(C.raw[1].seq < C.ev[1].seq);

    static const struct {
        int depth;
        const char *key;
        tread_arg_type type;
    } want[] = {
        {0, "ph", TREAD_ARG_STRING}, {0, "zz", TREAD_ARG_INT},       {0, "zz", TREAD_ARG_STRING},
        {0, "name", TREAD_ARG_STRING}, {0, "x", TREAD_ARG_DICT_BEGIN}, {1, "y", TREAD_ARG_ARRAY_BEGIN},
        {2, NULL, TREAD_ARG_BOOL},   {1, NULL, TREAD_ARG_ARRAY_END}, {0, NULL, TREAD_ARG_DICT_END},
    };
    tread_args f = args_of(&C.raw[0].fields);
    tread_args_iter it;
    tread_arg v;
    tread_args_iter_init(&it, &f);
    size_t n = 0;
    while (tread_args_next(&it, &v)) {
        if (n < sizeof want / sizeof want[0]) {
            CHECK_EQ_INT(v.depth, want[n].depth);
            CHECK_EQ_INT(v.type, want[n].type);
            if (want[n].key)
                CHECK(v.key.ptr && v.key.len == strlen(want[n].key) &&
                      !memcmp(v.key.ptr, want[n].key, v.key.len));
            else
                CHECK(v.key.ptr == NULL);
        }
        n++;
    }
    CHECK_EQ_INT(n, sizeof want / sizeof want[0]);
}

int main(void)
{
    test_each_phase_alone();
    test_all_phases_in_one_document();
    test_unknown_phase();
    test_counters();
    test_counter_stop_resume();
    test_metadata();
    test_top_level_keys();
    test_stack_frames_and_samples();
    test_system_trace_events();
    test_empty_stack_frame();
    test_skipped_values();
    test_raw_hook();
    return TEST_EXIT();
}
