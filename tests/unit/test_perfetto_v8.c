/* V8 CPU profiles in Perfetto legacy TrackEvents (lib/perfetto/pf_v8.c).
 * The oracle is the JSON decoder: the same profile written as a JSON trace
 * and as Perfetto packets gives the same STACK_FRAME, SAMPLE and Profile
 * events, every field, once the Perfetto times are moved back by the clock
 * snapshot's MONOTONIC -> BOOTTIME offset and what only a format has (its
 * name, the sequence, offsets) is set aside. Also: the chunk event itself
 * is not delivered, data that is not JSON leaves it as it was, a chunk
 * before its Profile has samples without times (as in JSON), interned
 * annotation names, and chunk/stop equivalence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tread.h>
#include "testlib.h"
#include "event_dump.h"
#include "pb_build.h"

#define OFFSET_NS 600000000LL /* BOOTTIME - MONOTONIC in the snapshot */

/* The profile, as the JSON "data" of each record. */
static const char *const profile_data =
    "{\"startTime\":5000,\"source\":\"Internal\"}";
static const char *const chunk1_data =
    "{\"cpuProfile\":{\"nodes\":["
    "{\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":0,\"codeType\":\"other\"},"
    "\"id\":1,\"children\":[2,3]},"
    "{\"callFrame\":{\"functionName\":\"(program)\",\"scriptId\":0},\"id\":2},"
    "{\"callFrame\":{\"functionName\":\"fib \\\"q\\\" \\u00e9\",\"url\":\"file:///a.js\","
    "\"scriptId\":3,\"lineNumber\":1,\"columnNumber\":12,\"codeType\":\"JS\"},\"id\":3},"
    "{\"callFrame\":{\"functionName\":\"leaf\",\"url\":\"file:///a.js\",\"scriptId\":3},"
    "\"id\":4,\"parent\":3}],"
    "\"samples\":[2,3,4,4,3]},"
    "\"timeDeltas\":[10,250,125,125,1000],\"lines\":[0,2,7,7,2],\"columns\":[0,5,9,9,5]}";
static const char *const chunk2_data =
    "{\"cpuProfile\":{\"nodes\":[{\"callFrame\":{\"functionName\":\"late\",\"url\":\"\"},"
    "\"id\":5,\"parent\":4}],\"samples\":[5,4,2]},\"timeDeltas\":[3,4,5.5]}";

/* ---- the JSON trace --------------------------------------------------- */

static char *json_trace(void)
{
    size_t cap = 8192;
    char *s = malloc(cap);
    snprintf(s, cap,
             "[{\"ph\":\"P\",\"name\":\"Profile\",\"cat\":\"v8\",\"pid\":7,\"tid\":8,"
             "\"id\":\"0x1\",\"ts\":5000,\"args\":{\"data\":%s}},\n"
             "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"cat\":\"v8\",\"pid\":7,\"tid\":9,"
             "\"id\":\"0x1\",\"ts\":6000,\"args\":{\"data\":%s}},\n"
             "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"cat\":\"v8\",\"pid\":7,\"tid\":9,"
             "\"id\":\"0x1\",\"ts\":7000,\"args\":{\"data\":%s}}]\n",
             profile_data, chunk1_data, chunk2_data);
    return s;
}

/* ---- the Perfetto trace ----------------------------------------------- */

enum { P_CLOCK = 6, P_TS = 8, P_SEQ = 10, P_TE = 11, P_INTERNED = 12, P_FLAGS = 13,
       P_TRACK = 60 };

static void snapshot(pb *t)
{
    size_t m = pb_begin(t, 1), cs = pb_begin(t, P_CLOCK), c;
    c = pb_begin(t, 1);
    pb_varint(t, 1, 6);
    pb_varint(t, 2, 1000000000);
    pb_end(t, c);
    c = pb_begin(t, 1);
    pb_varint(t, 1, 3);
    pb_varint(t, 2, 400000000);
    pb_end(t, c);
    pb_end(t, cs);
    pb_end(t, m);
}

/* Sequence seq bound to thread (7, tid) by a TrackDescriptor, its state
 * cleared, debug annotation name 1 = "data" interned. */
static void thread_seq(pb *t, uint32_t seq, int tid)
{
    size_t m = pb_begin(t, 1);
    pb_varint(t, P_SEQ, seq);
    pb_varint(t, P_FLAGS, 1);
    size_t d = pb_begin(t, P_TRACK);
    pb_varint(t, 1, 100 + (uint64_t)tid);
    size_t th = pb_begin(t, 4);
    pb_varint(t, 1, 7);
    pb_varint(t, 2, (uint64_t)tid);
    pb_end(t, th);
    pb_end(t, d);
    size_t in = pb_begin(t, P_INTERNED);
    size_t e = pb_begin(t, 3);
    pb_varint(t, 1, 1);
    pb_string(t, 2, "data");
    pb_end(t, e);
    pb_end(t, in);
    pb_end(t, m);
}

/* A legacy P event: name, id 1, the data annotation (named inline or by
 * iid 1), at ts_us on MONOTONIC (packet time on BOOTTIME). */
static void record(pb *t, uint32_t seq, const char *name, int64_t ts_us, const char *data,
                   int by_iid)
{
    size_t m = pb_begin(t, 1);
    pb_varint(t, P_SEQ, seq);
    pb_varint(t, P_TS, (uint64_t)(ts_us * 1000 + OFFSET_NS));
    pb_varint(t, P_FLAGS, 2);
    size_t te = pb_begin(t, P_TE);
    pb_string(t, 22, "v8");
    pb_string(t, 23, name);
    size_t lg = pb_begin(t, 6);
    pb_varint(t, 2, 'P');
    pb_varint(t, 6, 1);
    pb_end(t, lg);
    size_t da = pb_begin(t, 4);
    if (by_iid)
        pb_varint(t, 1, 1);
    else
        pb_string(t, 10, "data");
    pb_string(t, 9, data);
    pb_end(t, da);
    pb_end(t, te);
    pb_end(t, m);
}

static void perfetto_trace(pb *t, const char *chunk1)
{
    pb_init(t);
    snapshot(t);
    thread_seq(t, 1, 8);
    thread_seq(t, 2, 9);
    record(t, 1, "Profile", 5000, profile_data, 0);
    record(t, 2, "ProfileChunk", 6000, chunk1, 1);
    record(t, 2, "ProfileChunk", 7000, chunk2_data, 0);
}

/* ---- the profile's events, as comparable text ------------------------- */

typedef struct prof_dump {
    dump d;
    int perfetto;
    int chunk_events;  /* SAMPLE events named ProfileChunk (not expanded) */
    int warn[TREAD_WARN_KIND_COUNT_];
} prof_dump;

static int pd_event(void *user, const tread_event *ev)
{
    prof_dump *x = user;
    if (ev->kind == TREAD_EVENT_SAMPLE && ev->name.len == 12 &&
        memcmp(ev->name.ptr, "ProfileChunk", 12) == 0)
        x->chunk_events++;
    int profile = ev->kind == TREAD_EVENT_METADATA && ev->name.len == 7 &&
                  memcmp(ev->name.ptr, "Profile", 7) == 0;
    if (ev->kind != TREAD_EVENT_STACK_FRAME && ev->kind != TREAD_EVENT_SAMPLE && !profile)
        return 0;
    tread_event e = *ev;
    /* what only one format has: its name, the sequence, offsets */
    e.format = TREAD_FORMAT_JSON;
    e.flags &= ~(uint32_t)TREAD_HAS_SEQ;
    e.seq_id = 0;
    e.offset = 0;
    e.raw = NULL;
    if (x->perfetto && (e.flags & TREAD_HAS_TS))
        e.ts -= OFFSET_NS;
    dump_event(&x->d, &e);
    return 0;
}

static int pd_warning(void *user, const tread_warning *w)
{
    prof_dump *x = user;
    x->warn[w->kind]++;
    return 0;
}

/* Parses buf into x; returns the parser (its counters) for the caller to
 * free. */
static tread_parser *parse(prof_dump *x, const void *buf, size_t len, int perfetto)
{
    memset(x, 0, sizeof *x);
    dump_init(&x->d);
    x->perfetto = perfetto;
    tread_parser *p = tread_parser_create(NULL);
    tread_callbacks cb = {.event = pd_event, .warning = pd_warning};
    tread_set_callbacks(p, &cb, x);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_FORMAT,
                              perfetto ? TREAD_FORMAT_PERFETTO : TREAD_FORMAT_JSON), 0);
    CHECK_EQ_INT(tread_feed(p, buf, len), TREAD_STATUS_OK);
    CHECK_EQ_INT(tread_finish(p), TREAD_STATUS_OK);
    return p;
}

/* The same, for a Perfetto trace whose records all are JSON. */
static void parse_pf(prof_dump *x, const pb *t, int records)
{
    tread_parser *p = parse(x, t->data, t->len, 1);
    CHECK_EQ_INT(test_format_counter(p, "v8_profile_records"), records);
    CHECK_EQ_INT(test_format_counter(p, "v8_profile_data_not_json"), 0);
    tread_parser_free(p);
}

static void test_same_as_json(void)
{
    char *js = json_trace();
    pb t;
    perfetto_trace(&t, chunk1_data);
    prof_dump j, f;
    tread_parser_free(parse(&j, js, strlen(js), 0));
    parse_pf(&f, &t, 3);
    CHECK(j.d.len > 0 && j.d.text && strstr(j.d.text, "fib \\x22q\\x22 \\xc3\\xa9"));
    if (j.d.len != f.d.len || memcmp(j.d.text, f.d.text, j.d.len) != 0) {
        fprintf(stderr, "json:\n%s\nperfetto:\n%s\n", j.d.text, f.d.text);
        CHECK(0);
    }
    /* 5 frames, 8 samples, the Profile */
    size_t lines = 0;
    for (size_t i = 0; i < f.d.len; i++)
        lines += f.d.text[i] == '\n';
    CHECK_EQ_INT((long)lines, 14);
    CHECK_EQ_INT(f.chunk_events, 0);
    CHECK_EQ_INT(f.warn[TREAD_WARN_BAD_FIELD] + f.warn[TREAD_WARN_UNRESOLVED_REF], 0);
    dump_free(&j.d);
    dump_free(&f.d);
    pb_free(&t);
    free(js);
}

/* Every event and warning, whole and in chunks with a stop after every
 * event: the expansion resumes where it stopped. */
static void test_chunks_and_stops(void)
{
    pb t;
    perfetto_trace(&t, chunk1_data);
    dump whole, part;
    dump_init(&whole);
    CHECK_EQ_INT(dump_parse(&whole, t.data, t.len, 0, NULL), TREAD_STATUS_OK);
    CHECK(strstr(whole.text, "stack_frame") != NULL);
    size_t chunks[] = {1, 7, 64};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        dump_init(&part);
        part.stop_every = 1;
        CHECK_EQ_INT(dump_parse(&part, t.data, t.len, chunks[i], NULL), TREAD_STATUS_OK);
        CHECK(part.stops > 10);
        if (strcmp(whole.text, part.text) != 0) {
            fprintf(stderr, "chunk %zu:\n%s\nwhole:\n%s\n", chunks[i], part.text, whole.text);
            CHECK(0);
        }
        dump_free(&part);
    }
    dump_free(&whole);
    pb_free(&t);
}

/* A chunk whose data is not JSON stays the event it was, warned; the next
 * chunk still expands. */
static void test_not_json(void)
{
    pb t;
    perfetto_trace(&t, "{\"cpuProfile\":{\"nodes\":[}");
    prof_dump f;
    tread_parser *p = parse(&f, t.data, t.len, 1);
    CHECK_EQ_INT(f.chunk_events, 1);
    CHECK_EQ_INT(f.warn[TREAD_WARN_BAD_FIELD], 1);
    CHECK_EQ_INT(test_format_counter(p, "v8_profile_records"), 2);
    CHECK_EQ_INT(test_format_counter(p, "v8_profile_data_not_json"), 1);
    /* the second chunk's node 5 names parent 4, never defined: its frame
     * is still given, and its samples */
    CHECK(strstr(f.d.text, "name=\"late\"") != NULL);
    tread_parser_free(p);
    dump_free(&f.d);
    pb_free(&t);
}

/* A chunk before its Profile (file order, as Chrome's sequences may be
 * written): samples without times and a warning, as a JSON trace gives. */
static void test_chunk_first(void)
{
    pb t;
    pb_init(&t);
    snapshot(&t);
    thread_seq(&t, 1, 8);
    thread_seq(&t, 2, 9);
    record(&t, 2, "ProfileChunk", 6000, chunk1_data, 1);
    record(&t, 1, "Profile", 5000, profile_data, 0);
    prof_dump f;
    parse_pf(&f, &t, 2);
    CHECK_EQ_INT(f.warn[TREAD_WARN_UNRESOLVED_REF], 1);
    CHECK(strstr(f.d.text, "sample") != NULL);
    CHECK(strstr(f.d.text, "sample fmt=json ph=80 fl=") != NULL);
    dump_free(&f.d);
    pb_free(&t);
}

/* No snapshot relates MONOTONIC to the trace clock: the start is warned
 * (TREAD_WARN_CLOCK) and the samples have no times. */
static void test_no_clock_path(void)
{
    pb t;
    pb_init(&t);
    thread_seq(&t, 1, 8);
    thread_seq(&t, 2, 9);
    record(&t, 1, "Profile", 5000, profile_data, 0);
    record(&t, 2, "ProfileChunk", 6000, chunk1_data, 1);
    prof_dump f;
    tread_parser *p = parse(&f, t.data, t.len, 1);
    CHECK_EQ_INT(f.warn[TREAD_WARN_CLOCK], 1);
    CHECK_EQ_INT(f.warn[TREAD_WARN_UNRESOLVED_REF], 1); /* samples before a start */
    tread_parser_free(p);
    dump_free(&f.d);
    pb_free(&t);
}

int main(void)
{
    test_same_as_json();
    test_chunks_and_stops();
    test_not_json();
    test_chunk_first();
    test_no_clock_path();
    return TEST_EXIT();
}
