/* V8 CPU profiles: Profile / ProfileChunk (ph P) and CpuProfile events of
 * a Chrome trace, and standalone .cpuprofile files, expanded into one
 * STACK_FRAME event per node (the first time it is seen) and one SAMPLE
 * event per sample (doc/formats/json.md section 8, doc/formats/cpuprofile.md).
 *
 * Each expectation is worked out by hand from the input: a sample's time
 * is the profile's startTime plus every delta so far (per profile, across
 * chunks), its stack frame is "<pid>:<id>:<node>" (a .cpuprofile's: the
 * node id). Every input also goes through every chunk size, a stop after
 * every event, and the fast path against yajl alone. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tread.h>
#include <tread/json.h>

#include "json_collect.h"
#include "core/parser.h"
#include "json/json_decoder.h"

/* The fast path and yajl alone give the same dump, whole, in every chunk
 * size and with a stop after every event. */
static void paths_agree(const char *doc, int line)
{
    static const int64_t slow[] = {TREAD_OPT_JSON_FAST_PATH, 0, 0};
    size_t len = strlen(doc);
    dump ref, fast;
    dump_init(&ref);
    dump_parse(&ref, doc, len, 0, slow);
    for (int stop = 0; stop < 2; stop++) {
        dump_init(&fast);
        fast.stop_every = stop;
        fast.max_stops = 100000;
        dump_parse(&fast, doc, len, 0, NULL);
        int same = ref.text && fast.text && strcmp(ref.text, fast.text) == 0;
        CHECK(same);
        if (!same) {
            fprintf(stderr, "  input of line %d: the fast path differs from yajl\n", line);
            if (ref.text && fast.text)
                dump_show_difference(ref.text, fast.text);
        }
        dump_free(&fast);
    }
    dump_free(&ref);
    every_chunk_size_agrees(doc, len, NULL, line);
    every_chunk_size_agrees(doc, len, slow, line);
}

#define PARSE_ALL(s) (PARSE(s), paths_agree((s), __LINE__))

static int64_t arg_int(const cevent *e, const char *key)
{
    tread_args a = args_of(&e->args);
    tread_arg v;
    if (!tread_args_find(&a, key, strlen(key), &v))
        return INT64_MIN;
    return v.type == TREAD_ARG_INT ? v.v.i : INT64_MIN + 1;
}

static void check_frame(int line, const cevent *e, const char *id, const char *parent,
                        const char *name)
{
    int ok = e->kind == TREAD_EVENT_STACK_FRAME && str_is(&e->id, id) &&
             (parent ? str_is(&e->parent, parent) : !e->parent.present) &&
             (name ? str_is(&e->name, name) : 1) && (e->flags & TREAD_HAS_ID) &&
             !(e->flags & TREAD_HAS_TS);
    test_checks++;
    if (!ok) {
        test_failures++;
        fprintf(stderr, "line %d: frame %s (parent %s): got kind %d id \"%.*s\" parent \"%.*s\"\n",
                line, id, parent ? parent : "none", (int)e->kind, (int)e->id.len, e->id.s,
                (int)e->parent.len, e->parent.s);
    }
}

static void check_sample(int line, const cevent *e, int64_t ts, const char *sf, int64_t pid,
                         int64_t tid)
{
    int ok = e->kind == TREAD_EVENT_SAMPLE &&
             (ts == INT64_MIN ? !(e->flags & TREAD_HAS_TS)
                              : (e->flags & TREAD_HAS_TS) && e->ts == ts) &&
             (sf ? str_is(&e->sf, sf) : !e->sf.present) && e->pid == pid && e->tid == tid;
    test_checks++;
    if (!ok) {
        test_failures++;
        fprintf(stderr, "line %d: sample %s at %" PRId64 ": got kind %d ts %" PRId64
                        " (flags %x) sf \"%.*s\" pid %" PRId64 " tid %" PRId64 "\n",
                line, sf ? sf : "none", ts, (int)e->kind, e->ts, e->flags, (int)e->sf.len,
                e->sf.s, e->pid, e->tid);
    }
}

#define FRAME(i, id, parent, name) check_frame(__LINE__, &C.ev[i], id, parent, name)
#define SAMPLE(i, ts, sf, pid, tid) check_sample(__LINE__, &C.ev[i], ts, sf, pid, tid)

/* Profile then chunks: times accumulate across chunks per (pid, id), a
 * node sent again is not a second frame, the same id in another pid is
 * another profile, lines come with their samples. */
static void test_profile_and_chunks(void)
{
    static const char doc[] =
        "{\"traceEvents\":["
        "{\"ph\":\"P\",\"name\":\"Profile\",\"id\":\"0x1\",\"pid\":7,\"tid\":8,\"ts\":100,"
        "\"cat\":\"v8\",\"args\":{\"data\":{\"startTime\":1000}}},\n"
        "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"pid\":7,\"tid\":9,\"ts\":101,"
        "\"cat\":\"v8\",\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":["
        "{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":0}},"
        "{\"id\":2,\"parent\":1,\"callFrame\":{\"functionName\":\"f\",\"url\":\"a.js\","
        "\"scriptId\":3,\"lineNumber\":4,\"columnNumber\":5}}],"
        "\"samples\":[2,1,2]},\"timeDeltas\":[10,-3,5],\"lines\":[4,0,6]}}},\n"
        "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"pid\":7,\"tid\":9,\"ts\":102,"
        "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":["
        "{\"id\":2,\"parent\":1,\"callFrame\":{\"functionName\":\"f\"}},"
        "{\"id\":3,\"parent\":2,\"callFrame\":{\"functionName\":\"g\"}}],"
        "\"samples\":[3]},\"timeDeltas\":[7]}}},\n"
        "{\"ph\":\"P\",\"name\":\"Profile\",\"id\":1,\"pid\":8,\"tid\":8,\"ts\":103,"
        "\"args\":{\"data\":{\"startTime\":5000}}},\n"
        "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"pid\":8,\"tid\":8,\"ts\":104,"
        "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"id\":1,\"callFrame\":"
        "{\"functionName\":\"(root)\"}}],\"samples\":[1]},\"timeDeltas\":[1]}}},\n"
        "{\"ph\":\"P\",\"name\":\"other\",\"ts\":5,\"sf\":9}"
        "]}";
    PARSE_ALL(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 12);
    CHECK_EQ_INT(C.stats.records, 6);
    CHECK_EQ_INT(C.ev[0].kind, TREAD_EVENT_METADATA);
    CHECK_EQ_INT(C.ev[0].meta, TREAD_META_OTHER);
    CHECK_STR(C.ev[0].name, "Profile");
    CHECK_EQ_INT(C.ev[0].ts, 100000);
    FRAME(1, "7:0x1:1", NULL, "(root)");
    FRAME(2, "7:0x1:2", "7:0x1:1", "f");
    CHECK_STR(C.ev[2].cat, "a.js");                  /* the url */
    CHECK_EQ_INT(arg_int(&C.ev[2], "lineNumber"), 4); /* the callFrame */
    CHECK_EQ_INT(arg_int(&C.ev[2], "columnNumber"), 5);
    CHECK_EQ_INT(arg_int(&C.ev[2], "scriptId"), 3);
    CHECK_EQ_INT(C.ev[2].pid, 7);
    SAMPLE(3, 1010000, "7:0x1:2", 7, 9);
    SAMPLE(4, 1007000, "7:0x1:1", 7, 9);
    SAMPLE(5, 1012000, "7:0x1:2", 7, 9);
    CHECK_EQ_INT(arg_int(&C.ev[3], "line"), 4);
    CHECK_EQ_INT(arg_int(&C.ev[5], "line"), 6);
    CHECK_STR(C.ev[3].cat, "v8");
    CHECK_EQ_INT(C.ev[3].phase, 'P');
    CHECK_EQ_INT(C.ev[3].offset, offset_of(doc, "{\"ph\":\"P\",\"name\":\"ProfileChunk\"", 0));
    CHECK(C.ev[3].has_raw && C.ev[3].raw_section == TREAD_JSON_TRACE_EVENTS);
    FRAME(6, "7:0x1:3", "7:0x1:2", "g"); /* node 2 came again: no frame */
    SAMPLE(7, 1019000, "7:0x1:3", 7, 9);
    CHECK_EQ_INT(C.ev[8].kind, TREAD_EVENT_METADATA);
    FRAME(9, "8:0x1:1", NULL, "(root)"); /* id 1 and "0x1" are one id */
    SAMPLE(10, 5001000, "8:0x1:1", 8, 8);
    CHECK_EQ_INT(C.ev[11].kind, TREAD_EVENT_SAMPLE); /* another P: as before */
    CHECK_STR(C.ev[11].sf, "9");
    CHECK_EQ_INT(C.stats.events_by_kind[TREAD_EVENT_SAMPLE], 6);
    CHECK_EQ_INT(C.stats.events_by_kind[TREAD_EVENT_STACK_FRAME], 4);
}

/* Two profiles whose frame-id prefixes have the same length ("7:0x1:",
 * "8:0x1:") take turns with the same node: each sample's frame id is its
 * own profile's, and a node defined only in the other profile is still
 * said to be unknown (the frame id and the node found last are reused
 * only within a profile). */
static void test_profiles_take_turns(void)
{
#define CHUNK(pid, nodes, samples)                                                             \
    "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"pid\":" #pid ",\"tid\":1,\"ts\":1,"      \
    "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[" nodes "],\"samples\":[" samples "]},"           \
    "\"timeDeltas\":[1,1]}}}"
#define NODE(id) "{\"id\":" #id ",\"callFrame\":{\"functionName\":\"f\"}}"
    static const char doc[] = "[" CHUNK(7, NODE(1) "," NODE(2), "1,2") "," CHUNK(8, NODE(1), "1,1") ","
                              CHUNK(7, "", "1,2") "," CHUNK(8, "", "2,1") "]";
#undef CHUNK
#undef NODE
    PARSE_ALL(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.stats.events_by_kind[TREAD_EVENT_SAMPLE], 8);
    const char *want[8] = {"7:0x1:1", "7:0x1:2", "8:0x1:1", "8:0x1:1",
                           "7:0x1:1", "7:0x1:2", "8:0x1:2", "8:0x1:1"};
    size_t k = 0;
    for (size_t i = 0; i < C.nev && k < 8; i++) {
        if (C.ev[i].kind != TREAD_EVENT_SAMPLE)
            continue;
        CHECK_STR(C.ev[i].sf, want[k]);
        k++;
    }
    CHECK_EQ_INT(k, 8);
    /* node 2 of pid 8 was never defined there (pid 7's node 2 was the
     * last one found); the other four: no Profile event gave a startTime */
    CHECK_EQ_INT(count_warnings(TREAD_WARN_UNRESOLVED_REF), 5);
}

/* The older CpuProfile event: a whole profile, nodes given with children
 * (DevTools' form), startTime inside cpuProfile; each event is its own
 * profile. */
static void test_cpu_profile_event(void)
{
    static const char doc[] =
        "[{\"ph\":\"I\",\"name\":\"CpuProfile\",\"pid\":3,\"tid\":4,\"ts\":1,\"args\":{\"data\":"
        "{\"cpuProfile\":{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},"
        "\"children\":[2]},{\"id\":2,\"callFrame\":{\"functionName\":\"main\"},\"children\":[3]},"
        "{\"id\":3,\"callFrame\":{\"functionName\":\"leaf\"}}],"
        "\"startTime\":50,\"endTime\":60,\"samples\":[2,3],\"timeDeltas\":[1,2]}}}},"
        "{\"ph\":\"I\",\"name\":\"CpuProfile\",\"pid\":3,\"tid\":4,\"ts\":2,\"args\":{\"data\":"
        "{\"cpuProfile\":{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"}}],"
        "\"startTime\":70,\"samples\":[1],\"timeDeltas\":[0.5]}}}},"
        "{\"ph\":\"I\",\"name\":\"CpuProfile\",\"ts\":3,\"args\":{\"data\":{\"cpuProfile\":5}}}]";
    PARSE_ALL(doc);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 8);
    FRAME(0, "3:cpu1:1", NULL, "(root)");
    FRAME(1, "3:cpu1:2", "3:cpu1:1", "main");
    FRAME(2, "3:cpu1:3", "3:cpu1:2", "leaf");
    SAMPLE(3, 51000, "3:cpu1:2", 3, 4);
    SAMPLE(4, 53000, "3:cpu1:3", 3, 4);
    FRAME(5, "3:cpu2:1", NULL, "(root)");
    SAMPLE(6, 70500, "3:cpu2:1", 3, 4);
    /* no cpuProfile object: an instant as ever */
    CHECK_EQ_INT(C.ev[7].kind, TREAD_EVENT_INSTANT);
}

/* What does not fit is said, and the rest delivered. */
static void test_profile_warnings(void)
{
    /* a chunk before its Profile: samples without times */
    PARSE_ALL("[{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x2\",\"pid\":1,\"tid\":1,"
              "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"id\":1}],\"samples\":[1,1]},"
              "\"timeDeltas\":[5,5]}}}]");
    CHECK_EQ_INT(C.nev, 3);
    FRAME(0, "1:0x2:1", NULL, NULL);
    CHECK_ABSENT(C.ev[0].name);
    SAMPLE(1, INT64_MIN, "1:0x2:1", 1, 1);
    SAMPLE(2, INT64_MIN, "1:0x2:1", 1, 1);
    CHECK_EQ_INT(count_warnings(TREAD_WARN_UNRESOLVED_REF), 1);
    CHECK_EQ_INT(C.nwarn, 1);

    /* samples and deltas of different lengths: the pairs are kept */
    static const char mism[] =
        "[{\"ph\":\"P\",\"name\":\"Profile\",\"id\":\"0x2\",\"pid\":1,\"args\":{\"data\":{\"startTime\":0}}},"
        "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x2\",\"pid\":1,"
        "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"id\":1}],\"samples\":[1,1,1]},"
        "\"timeDeltas\":[5,\"x\"]}}}]";
    PARSE_ALL(mism);
    CHECK_EQ_INT(C.nev, 4);
    SAMPLE(2, 5000, "1:0x2:1", 1, 1);
    SAMPLE(3, 5000, "1:0x2:1", 1, 1); /* "x" counts as 0 */
    CHECK_EQ_INT(count_warnings(TREAD_WARN_BAD_FIELD), 2);
    CHECK(has_warning_at(TREAD_WARN_BAD_FIELD, offset_of(mism, "{\"ph\":\"P\",\"name\":\"ProfileChunk\"", 0)));

    /* a sample of a node never defined, a node without an id */
    PARSE_ALL("[{\"ph\":\"P\",\"name\":\"Profile\",\"id\":3,\"pid\":1,\"args\":{\"data\":{\"startTime\":0}}},"
              "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":3,\"pid\":1,"
              "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"callFrame\":{}},7],\"samples\":[4,4]},"
              "\"timeDeltas\":[1,1]}}}]");
    CHECK_EQ_INT(C.nev, 3);
    SAMPLE(1, 1000, "1:0x3:4", 1, 1);
    CHECK_EQ_INT(count_warnings(TREAD_WARN_UNRESOLVED_REF), 1); /* once a record */
    CHECK_EQ_INT(count_warnings(TREAD_WARN_BAD_FIELD), 2);

    /* a child given before the node that names it its parent */
    PARSE_ALL("[{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":3,\"pid\":1,"
              "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"id\":2},{\"id\":1,\"children\":[2]}]}}}}]");
    CHECK_EQ_INT(C.nev, 2);
    FRAME(0, "1:0x3:2", NULL, NULL);
    FRAME(1, "1:0x3:1", NULL, NULL);
    CHECK_EQ_INT(count_warnings(TREAD_WARN_UNRESOLVED_REF), 1);
}

/* TREAD_OPT_MAX_PROFILE_NODES: past it a counted TREAD_WARN_LIMIT, frames
 * not deduplicated, a new profile delivered unexpanded. */
static void test_profile_limit(void)
{
    char doc[4096];
    size_t n = 0;
    n += (size_t)snprintf(doc + n, sizeof doc - n,
                          "[{\"ph\":\"P\",\"name\":\"Profile\",\"id\":1,\"pid\":1,"
                          "\"args\":{\"data\":{\"startTime\":0}}},"
                          "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":1,\"pid\":1,"
                          "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[");
    for (int i = 1; i <= 20; i++)
        n += (size_t)snprintf(doc + n, sizeof doc - n, "%s{\"id\":%d}", i > 1 ? "," : "", i);
    n += (size_t)snprintf(doc + n, sizeof doc - n,
                          "]}}}},"
                          "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":1,\"pid\":1,"
                          "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"id\":20},{\"id\":2}]}}}},"
                          "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":2,\"pid\":1,"
                          "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"id\":1}]}}}}]");
    static const int64_t opts[] = {TREAD_OPT_MAX_PROFILE_NODES, 16, 0};
    PARSE_OPTS(doc, opts);
    every_chunk_size_agrees(doc, n, opts, __LINE__);
    /* 1 profile + 15 nodes fit: nodes 16..20 are not remembered */
    CHECK_EQ_INT(C.stats.events_by_kind[TREAD_EVENT_STACK_FRAME], 20 + 1);
    FRAME(21, "1:0x1:20", NULL, NULL); /* again: it was not remembered */
    CHECK_EQ_INT(C.ev[22].kind, TREAD_EVENT_SAMPLE); /* profile 2: unexpanded */
    CHECK_EQ_INT(C.nev, 23);
    CHECK_EQ_INT(count_warnings(TREAD_WARN_LIMIT), 3); /* one per record */
    CHECK_EQ_INT(C.stats.warnings_by_kind[TREAD_WARN_LIMIT], 3);
    tread_parser *p = tread_parser_create(NULL);
    CHECK(tread_config(p, TREAD_OPT_MAX_PROFILE_NODES, 15) == -1);
    CHECK(tread_config(p, TREAD_OPT_MAX_PROFILE_NODES, 16) == 0);
    tread_parser_free(p);
}

#define NODES \
    "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\"," \
    "\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":0,\"children\":[2,3]}," \
    "{\"id\":2,\"callFrame\":{\"functionName\":\"(program)\",\"scriptId\":\"0\",\"url\":\"\"}," \
    "\"hitCount\":1},{\"id\":3,\"callFrame\":{\"functionName\":\"work\",\"scriptId\":\"7\"," \
    "\"url\":\"file:///w.js\",\"lineNumber\":1,\"columnNumber\":2},\"children\":[4]}," \
    "{\"id\":4,\"callFrame\":{\"functionName\":\"inner\"},\"positionTicks\":[{\"line\":3,\"ticks\":2}]}]"

static void check_file_events(int with_start)
{
    CHECK_EQ_INT(C.stats.format, TREAD_FORMAT_CPUPROFILE);
    FRAME(0, "1", NULL, "(root)");
    FRAME(1, "2", "1", "(program)");
    FRAME(2, "3", "1", "work");
    FRAME(3, "4", "3", "inner");
    CHECK_STR(C.ev[2].cat, "file:///w.js");
    CHECK_ABSENT(C.ev[0].cat);
    CHECK(C.ev[0].has_raw && C.ev[0].raw_section == TREAD_JSON_PROFILE_NODES);
    CHECK_EQ_INT(C.ev[0].format, TREAD_FORMAT_CPUPROFILE);
    size_t s = 0;
    int64_t want[4] = {105000, 111000, 118000, 126000};
    const char *sf[4] = {"2", "3", "4", "4"};
    for (size_t i = 0; i < C.nev; i++) {
        if (C.ev[i].kind != TREAD_EVENT_SAMPLE)
            continue;
        if (s < 4)
            check_sample(__LINE__, &C.ev[i], with_start ? want[s] : INT64_MIN, sf[s], 0, 0);
        CHECK(!C.ev[i].has_raw);
        s++;
    }
    CHECK_EQ_INT(s, 4);
}

/* A .cpuprofile: sniffed by its first key, nodes streamed as records,
 * samples and timeDeltas paired whichever comes first. */
static void test_cpuprofile_file(void)
{
    static const char doc[] = NODES ",\"startTime\":100,\"endTime\":200,"
                              "\"samples\":[2,3,4,4],\"timeDeltas\":[5,6,7,8]}";
    PARSE_ALL(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 4 + 2 + 4);
    check_file_events(1);
    CHECK_EQ_INT(C.ev[4].kind, TREAD_EVENT_METADATA); /* startTime, endTime */
    CHECK_EQ_INT(C.ev[4].meta, TREAD_META_TRACE);
    CHECK_STR(C.ev[4].name, "startTime");
    CHECK_EQ_INT(C.stats.records, 4 + 2);
    SAMPLE(6, 105000, "2", 0, 0);
    CHECK_EQ_INT(C.ev[6].offset, offset_of(doc, "5,6", 0)); /* the value that paired */

    /* timeDeltas first */
    PARSE_ALL(NODES ",\"startTime\":100,\"timeDeltas\":[5,6,7,8],\"samples\":[2,3,4,4]}");
    CHECK_EQ_INT(C.nwarn, 0);
    check_file_events(1);

    /* startTime last: samples without times, said once */
    PARSE_ALL(NODES ",\"samples\":[2,3,4,4],\"timeDeltas\":[5,6,7,8],\"startTime\":100}");
    check_file_events(0);
    CHECK_EQ_INT(count_warnings(TREAD_WARN_UNRESOLVED_REF), 1);

    /* unpaired samples, a bad value, a container where a number goes */
    PARSE_ALL(NODES ",\"startTime\":0,\"samples\":[2,\"x\",4,4,[1]],\"timeDeltas\":[1,1,null]}");
    CHECK_EQ_INT(C.stats.events_by_kind[TREAD_EVENT_SAMPLE], 3);
    SAMPLE(6, 2000, NULL, 0, 0); /* "x": no stack frame */
    SAMPLE(7, 2000, "4", 0, 0);  /* null: the delta counts as 0 */
    CHECK_EQ_INT(count_warnings(TREAD_WARN_BAD_FIELD), 3); /* x, null, 1 unpaired */
    CHECK_EQ_INT(count_warnings(TREAD_WARN_NOT_AN_EVENT), 1);

    /* the first key decides; samples first is a Chrome trace */
    PARSE("{\"samples\":[{\"ts\":1}],\"nodes\":[]}");
    CHECK_EQ_INT(C.stats.format, TREAD_FORMAT_JSON);
    PARSE(" \n{ \"startTime\" : 5 }");
    CHECK_EQ_INT(C.stats.format, TREAD_FORMAT_CPUPROFILE);
    CHECK_EQ_INT(C.nev, 1);
    PARSE("{\"nodesX\":1}");
    CHECK_EQ_INT(C.stats.format, TREAD_FORMAT_JSON);

    /* forced, an array is no profile */
    static const int64_t force[] = {TREAD_OPT_FORMAT, TREAD_FORMAT_CPUPROFILE, 0};
    PARSE_OPTS("[1]", force);
    CHECK_EQ_INT(C.status, TREAD_STATUS_ERROR);
    CHECK_EQ_INT(C.error, TREAD_ERROR_SYNTAX);
    CHECK_EQ_INT(C.error_offset, 0);

    /* cut in the middle: what came is delivered */
    PARSE_ALL(NODES ",\"startTime\":100,\"samples\":[2,3,4,4],\"timeDeltas\":[5,6,");
    CHECK_EQ_INT(C.stats.events_by_kind[TREAD_EVENT_SAMPLE], 2);
    CHECK_EQ_INT(count_warnings(TREAD_WARN_MISSING_END), 1);
}

/* The samples waiting for their deltas are bounded by
 * TREAD_OPT_MAX_EVENT_BYTES: 4 bytes each while every waiting value fits
 * in 32 bits, 8 once one does not (they all widen then). */
static void test_cpuprofile_pending_limit(void)
{
    char doc[8192];
    size_t n = (size_t)snprintf(doc, sizeof doc, "{\"nodes\":[],\"samples\":[");
    for (int i = 0; i < 300; i++)
        n += (size_t)snprintf(doc + n, sizeof doc - n, "%s1", i ? "," : "");
    n += (size_t)snprintf(doc + n, sizeof doc - n, "],\"timeDeltas\":[1]}");
    static const int64_t small[] = {TREAD_OPT_MAX_EVENT_BYTES, 1024, 0};
    PARSE_OPTS(doc, small);
    CHECK_EQ_INT(C.status, TREAD_STATUS_ERROR);
    CHECK_EQ_INT(C.error, TREAD_ERROR_LIMIT_EVENT);
    CHECK_EQ_INT(C.error_offset, offset_of(doc, "1", 256)); /* the 257th sample */
    static const int64_t big[] = {TREAD_OPT_MAX_EVENT_BYTES, 2048, 0};
    PARSE_OPTS(doc, big);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 1);

    /* 150 small samples fit in 1024 bytes; a node id past 32 bits makes
     * them 151 of 8 bytes, which do not */
    n = (size_t)snprintf(doc, sizeof doc, "{\"nodes\":[],\"samples\":[");
    for (int i = 0; i < 150; i++)
        n += (size_t)snprintf(doc + n, sizeof doc - n, "%s1", i ? "," : "");
    n += (size_t)snprintf(doc + n, sizeof doc - n, ",3000000000],\"timeDeltas\":[1]}");
    PARSE_OPTS(doc, small);
    CHECK_EQ_INT(C.status, TREAD_STATUS_ERROR);
    CHECK_EQ_INT(C.error, TREAD_ERROR_LIMIT_EVENT);
    CHECK_EQ_INT(C.error_offset, offset_of(doc, "3000000000", 0));
    PARSE_OPTS(doc, big);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
}

/* Waiting values of every width come out as they went in: node ids and
 * deltas past 32 bits, INT32_MIN itself (which stands for "no node" in
 * the 4-byte form), a sample without a node, negative values; samples
 * first and deltas first, and a widening after some were taken. */
static void test_cpuprofile_pending_widths(void)
{
    PARSE_ALL(NODES ",\"startTime\":100,\"samples\":[2,3000000000,-2147483648,\"x\",4,-5],"
              "\"timeDeltas\":[1,1,1,1,1,1]}");
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    static const char *const sf[6] = {"2", "3000000000", "-2147483648", NULL, "4", "-5"};
    size_t k = 0;
    for (size_t i = 0; i < C.nev; i++)
        if (C.ev[i].kind == TREAD_EVENT_SAMPLE && k < 6) {
            SAMPLE(i, 100000 + 1000 * (int64_t)(k + 1), sf[k], 0, 0);
            k++;
        }
    CHECK_EQ_INT(k, 6);

    /* deltas first, in ns: 2.2 s is past 32 bits */
    PARSE_ALL(NODES ",\"startTime\":100,\"timeDeltas\":[5,2200000,-7],\"samples\":[2,3,4]}");
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    static const int64_t ts[3] = {105000, 2200105000, 2200098000};
    k = 0;
    for (size_t i = 0; i < C.nev; i++)
        if (C.ev[i].kind == TREAD_EVENT_SAMPLE && k < 3) {
            SAMPLE(i, ts[k], k == 0 ? "2" : k == 1 ? "3" : "4", 0, 0);
            k++;
        }
    CHECK_EQ_INT(k, 3);

    /* samples ahead by two, taken in turn, then one past 32 bits */
    PARSE_ALL("{\"nodes\":[],\"startTime\":0,\"samples\":[1,2,3,4,5,6],"
              "\"timeDeltas\":[1,1,1,5000000,1,1]}");
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.stats.events_by_kind[TREAD_EVENT_SAMPLE], 6);
}

/* The numbers of samples[] and timeDeltas[] the fast path read
 * (json_fast.c fast_numbers), fed whole: an internal counter, so that a
 * fast path that never runs fails here while paths_agree still passes. */
static uint64_t fast_values_whole(const char *doc)
{
    tread_parser *p = tread_parser_create(NULL);
    if (!p)
        return UINT64_MAX;
    (void)tread_feed(p, doc, strlen(doc));
    (void)tread_finish(p);
    tread_stats st;
    tread_get_stats(p, &st);
    uint64_t n = st.format == TREAD_FORMAT_CPUPROFILE && p->dec
                     ? ((const json_decoder *)p->dec)->fast_values : UINT64_MAX;
    tread_parser_free(p);
    return n;
}

/* The number arrays of a .cpuprofile read without yajl: every shape of
 * number, blank and separator, and every value it hands back to yajl
 * (from before its comma), give what yajl alone gives, in every chunking
 * and with a stop after every event (paths_agree); each case says how
 * many values the fast path reads, fed whole. */
static void test_cpuprofile_fast_numbers(void)
{
    static const struct {
        const char *samples, *deltas;
        uint64_t fast;
    } cases[] = {
        {"2,3,4,4", "5,6,7,8", 8},
        {" 2 ,\n3\t, 4 ,\r\n4 ", "\n5 , 6,7,8\n", 8},
        {"-1,0,-0,2", "0,-5,7,-0", 8},
        /* 15 digits as a number; 16 and more, fractions, exponents as text */
        {"2,123456789012345,1234567890123456,3", "5,99999999999999999999,1,999999999999999", 8},
        {"2,2.0,3e0,4", "5.5,1e3,1E-3,0.001", 8},
        /* handed back to yajl at the number before the odd value (the
         * filter speaks first there), taken again after it unless two
         * takeovers in a row read little (the back-off of json_decoder.h)
         * or the filter has already read past the next array */
        {"2,\"3\",4,4", "5,6,7,8", 4},
        {"2,null,[1],4", "5,6,7", 3},
        {"2,3,4", "5,/* c */6,7", 4},
        {"2,3,4", "5,6,NaN,7", 4},
        /* errors and damage: yajl says what and where; a number before a
         * trailing comma is yajl's too */
        {"2,01,3", "5,6,7", 1},
        {"2,1x,3", "5,6,7", 1},
        {"2,-,3", "5,6,7", 1},
        {"2,1.,3", "5,6,7", 1},
        {"2,3,]", "5,6", 1},
        {"2,3", "5,6,", 3},
        {"", "", 0},
        {"7", "", 1},
    };
    char doc[1024];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(doc, sizeof doc, NODES ",\"startTime\":100,\"samples\":[%s],\"timeDeltas\":[%s]}",
                 cases[i].samples, cases[i].deltas);
        uint64_t got = fast_values_whole(doc);
        CHECK_EQ_INT(got, cases[i].fast);
        if (got != cases[i].fast)
            fprintf(stderr, "  case %zu: the fast path read %" PRIu64 " values\n", i, got);
        paths_agree(doc, __LINE__);
    }
    /* a document cut inside a number and after a comma */
    snprintf(doc, sizeof doc, NODES ",\"startTime\":100,\"samples\":[2,3,4],\"timeDeltas\":[5,6");
    CHECK_EQ_INT(fast_values_whole(doc), 4); /* 6 may go on: yajl reads it */
    paths_agree(doc, __LINE__);
    snprintf(doc, sizeof doc, NODES ",\"startTime\":100,\"samples\":[2,3,4],\"timeDeltas\":[5,");
    CHECK_EQ_INT(fast_values_whole(doc), 3); /* 5, then the end: yajl reads it */
    paths_agree(doc, __LINE__);
}

/* The real profile bundled in tests/data: recorded with node --cpu-prof
 * (tests/data/README). Every sample's time is startTime plus the deltas
 * so far, its frame one the file defined; every node is one frame. */
static void test_recorded_profile(void)
{
    const char *dir = getenv("srcdir");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/node_fib.cpuprofile", dir ? dir : ".");
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    static char buf[1 << 20];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    CHECK(len > 0 && len < sizeof buf);
    dump d;
    dump_init(&d);
    dump_parse(&d, buf, len, 0, NULL);
    CHECK(d.events > 100);
    dump_free(&d);
    every_chunk_size_agrees(buf, len > 4000 ? 4000 : len, NULL, __LINE__);
    all_chunkings_agree(buf, len, NULL, __LINE__);
}

int main(void)
{
    test_profile_and_chunks();
    test_profiles_take_turns();
    test_cpu_profile_event();
    test_profile_warnings();
    test_profile_limit();
    test_cpuprofile_file();
    test_cpuprofile_pending_limit();
    test_cpuprofile_pending_widths();
    test_cpuprofile_fast_numbers();
    test_recorded_profile();
    return TEST_EXIT();
}
