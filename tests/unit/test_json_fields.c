/* Chrome JSON: every field of a trace event (names, times and their
 * number forms, pid/tid, ids, flow fields, stacks, args of every type) and
 * event offsets. Every input also goes through the "all chunkings agree"
 * check (whole, 1-byte and 7-byte chunks, a stop after every event).
 *
 * Expected values come from include/tread.h: times are exact conversions
 * of the number's text to ns, rounding half away from zero. */
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

/* The only event of a one-event parse (or an all-zero one, after a failed
 * check, so the caller's checks fail without crashing). */
static const cevent *only_event(int line)
{
    static cevent none;
    if (C.nev != 1) {
        fprintf(stderr, "  line %d: %zu events, expected 1\n", line, C.nev);
        test_failures++;
        return &none;
    }
    return &C.ev[0];
}
#define ONLY_EVENT() only_event(__LINE__)

static void test_basic_fields(void)
{
    const char *doc = "[{\"ph\":\"X\",\"name\":\"RunTask\",\"cat\":\"toplevel,ipc\",\"ts\":12,"
                      "\"tts\":3,\"dur\":4,\"tdur\":5,\"pid\":1,\"tid\":2}]";
    PARSE(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    const cevent *e = ONLY_EVENT();
    CHECK_STR(e->name, "RunTask");
    CHECK_STR(e->cat, "toplevel,ipc");
    uint32_t want = TREAD_HAS_TS | TREAD_HAS_TTS | TREAD_HAS_DUR | TREAD_HAS_TDUR |
                    TREAD_HAS_PID | TREAD_HAS_TID;
    CHECK_EQ_INT(e->flags & want, want);
    CHECK_EQ_INT(e->ts, 12000);
    CHECK_EQ_INT(e->tts, 3000);
    CHECK_EQ_INT(e->dur, 4000);
    CHECK_EQ_INT(e->tdur, 5000);
    CHECK_EQ_INT(e->offset, 1);
    CHECK_EQ_INT(e->format, TREAD_FORMAT_JSON);

    /* absent fields are absent */
    PARSE("[{\"ph\":\"B\"}]");
    e = ONLY_EVENT();
    CHECK_EQ_INT(e->flags, 0);
    CHECK_ABSENT(e->name);
    CHECK_ABSENT(e->cat);
    CHECK_ABSENT(e->id);
    CHECK_ABSENT(e->cname);
    CHECK_ABSENT(e->sf);
    CHECK_EQ_INT(e->scope, TREAD_SCOPE_NONE);
    CHECK(!e->stack.present);
    CHECK(!e->args.present || e->args.len == 0);
}

/* Times: microseconds in any JSON number form (or a numeric string) to
 * int64 ns, exactly, rounding half away from zero. */
static void test_times(void)
{
    static const struct {
        const char *text; /* as written after "ts": */
        int64_t ns;
    } ok[] = {
        {"0", 0},
        {"7", 7000},
        {"1.5", 1500},
        {"1e3", 1000000},
        {"1E3", 1000000},
        {"2e+2", 200000},
        {"1.5e-3", 2},              /* 1.5 ns: half away from zero */
        {"\"12.25\"", 12250},       /* a numeric string */
        {"\" 7 \"", 7000},          /* with blanks around it */
        {"1.0005", 1001},           /* 1000.5 ns (no detour through double,
                                       where 1.0005 is 1.000499999...) */
        {"1.0004999", 1000},
        {"0.0115", 12},             /* 11.5 ns; via double 11.4999... */
        {"0.0005", 1},
        {"0.0004", 0},
        {"-0.0005", -1},
        {"-1.0005", -1001},
        {"-3", -3000},
        {"-2.5e1", -25000},
        {"1e-30", 0},
        {"123456789.123456789", 123456789123},
        {"1234567890123.4565", 1234567890123457},
        {"9223372036854775.807", INT64_MAX},
        {"-9223372036854775.808", INT64_MIN},
        {"\"-9223372036854775.8075\"", INT64_MIN},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char doc[128];
        snprintf(doc, sizeof doc, "[{\"ph\":\"X\",\"ts\":%s}]", ok[i].text);
        PARSE(doc);
        const cevent *e = ONLY_EVENT();
        if (!(e->flags & TREAD_HAS_TS) || e->ts != ok[i].ns)
            fprintf(stderr, "  ts %s\n", ok[i].text);
        CHECK(e->flags & TREAD_HAS_TS);
        CHECK_EQ_INT(e->ts, ok[i].ns);
        CHECK_EQ_INT(C.nwarn, 0);
    }

    /* out of the int64 ns range: a warning, no ts, the parse goes on */
    static const char *const range[] = {
        "1e30", "9223372036854775.808", "-9223372036854775.809", "\"1e17\"",
        "18446744073709552000", /* DevTools' uint64 printed through a double */
    };
    for (size_t i = 0; i < sizeof range / sizeof range[0]; i++) {
        char doc[128];
        snprintf(doc, sizeof doc, "[{\"ph\":\"X\",\"ts\":%s},{\"ph\":\"E\",\"ts\":1}]", range[i]);
        PARSE(doc);
        CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
        CHECK_EQ_INT(C.nev, 2);
        if (C.nev == 2) {
            CHECK(!(C.ev[0].flags & TREAD_HAS_TS));
            CHECK_EQ_INT(C.ev[1].ts, 1000);
        }
        CHECK_EQ_INT(count_warnings(TREAD_WARN_NUMBER_RANGE), 1);
        CHECK(has_warning_at(TREAD_WARN_NUMBER_RANGE, 1));
        CHECK_EQ_INT(C.nwarn, 1);
        const cwarn *w = find_warning(TREAD_WARN_NUMBER_RANGE);
        CHECK(w && w->msg[0] != 0);
    }

    /* not a number: a bad field, no ts */
    static const char *const bad[] = {"\"abc\"", "\"1.2.3\"", "true", "[1]", "{\"a\":1}", "\"\""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char doc[128];
        snprintf(doc, sizeof doc, "[{\"ph\":\"X\",\"ts\":%s}]", bad[i]);
        PARSE(doc);
        CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
        const cevent *e = ONLY_EVENT();
        CHECK(!(e->flags & TREAD_HAS_TS));
        CHECK_EQ_INT(count_warnings(TREAD_WARN_BAD_FIELD), 1);
        CHECK(has_warning_at(TREAD_WARN_BAD_FIELD, 1));
    }
    PARSE("[{\"ph\":\"X\",\"ts\":null}]");
    CHECK(!(ONLY_EVENT()->flags & TREAD_HAS_TS));

    /* the same conversion for dur, tts and tdur */
    PARSE("[{\"ph\":\"X\",\"ts\":\"0.0005\",\"dur\":1.0005,\"tts\":\"12.25\",\"tdur\":-2.5e-3}]");
    const cevent *e = ONLY_EVENT();
    CHECK_EQ_INT(e->ts, 1);
    CHECK_EQ_INT(e->dur, 1001);
    CHECK_EQ_INT(e->tts, 12250);
    CHECK_EQ_INT(e->tdur, -3);
    PARSE("[{\"ph\":\"X\",\"dur\":1e30,\"tts\":1e30,\"tdur\":1e30}]");
    e = ONLY_EVENT();
    CHECK(!(e->flags & (TREAD_HAS_DUR | TREAD_HAS_TTS | TREAD_HAS_TDUR)));
    CHECK_EQ_INT(count_warnings(TREAD_WARN_NUMBER_RANGE), 3);
}

/* DevTools writes uint64 ids through a double: 18446744073709552000 does
 * not fit in 64 bits. It must never stop the parse. */
static void test_devtools_big_integer(void)
{
    const char *doc = "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":18446744073709552000,"
                      "\"args\":{\"id\":18446744073709552000,\"data\":{\"v\":[18446744073709552000]}}},"
                      "{\"ph\":\"X\",\"name\":\"b\",\"ts\":1}]";
    PARSE(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.error, TREAD_ERROR_NONE);
    CHECK_EQ_INT(C.nev, 2);
    if (C.nev != 2)
        return;
    CHECK(!(C.ev[0].flags & TREAD_HAS_TS));
    CHECK_EQ_INT(count_warnings(TREAD_WARN_NUMBER_RANGE), 1);
    tread_args a = args_of(&C.ev[0].args);
    tread_arg v;
    CHECK(tread_args_find(&a, "id", 2, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_DOUBLE);
    CHECK(v.v.d == 18446744073709551616.0); /* nearest double */
    CHECK(v.text.ptr && v.text.len == 20 && !memcmp(v.text.ptr, "18446744073709552000", 20));
    CHECK(tread_args_find(&a, "data.v.0", 8, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_DOUBLE);
    CHECK(v.text.ptr && v.text.len == 20 && !memcmp(v.text.ptr, "18446744073709552000", 20));
    CHECK_STR(C.ev[1].name, "b");
    CHECK_EQ_INT(C.ev[1].ts, 1000);
}

static int64_t first_pid_of(const char *doc)
{
    PARSE(doc);
    return C.nev ? C.ev[0].pid : -1;
}

static void test_pid_tid(void)
{
    PARSE("[{\"ph\":\"X\",\"pid\":12,\"tid\":34}]");
    const cevent *e = ONLY_EVENT();
    CHECK_EQ_INT(e->pid, 12);
    CHECK_EQ_INT(e->tid, 34);
    CHECK_EQ_INT(e->flags & (TREAD_HAS_PID | TREAD_HAS_TID), TREAD_HAS_PID | TREAD_HAS_TID);
    CHECK(!(e->flags & (TREAD_PID_IS_STRING | TREAD_TID_IS_STRING)));
    CHECK_ABSENT(e->pid_str);
    CHECK_ABSENT(e->tid_str);

    PARSE("[{\"ph\":\"X\",\"pid\":-1,\"tid\":0}]");
    e = ONLY_EVENT();
    CHECK_EQ_INT(e->pid, -1);
    CHECK_EQ_INT(e->tid, 0);
    CHECK(e->flags & TREAD_HAS_TID);

    const char *doc = "[{\"ph\":\"X\",\"pid\":\"Browser\",\"tid\":\"CrBrowserMain\"},\n"
                      " {\"ph\":\"X\",\"pid\":\"Browser\",\"tid\":1},\n"
                      " {\"ph\":\"X\",\"pid\":\"Renderer\"},\n"
                      " {\"ph\":\"X\",\"pid\":\"123\",\"tid\":\"-4\"},\n"
                      " {\"ph\":\"X\",\"pid\":null,\"tid\":5},\n"
                      " {\"ph\":\"X\"},\n"
                      " {\"ph\":\"X\",\"pid\":7}]";
    PARSE(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 7);
    if (C.nev != 7)
        return;
    const cevent *ev = C.ev;
    /* a string pid: its text, the flag, a synthetic non-negative id */
    CHECK(ev[0].flags & TREAD_HAS_PID);
    CHECK(ev[0].flags & TREAD_PID_IS_STRING);
    CHECK_STR(ev[0].pid_str, "Browser");
    CHECK(ev[0].pid >= 0);
    CHECK(ev[0].flags & TREAD_TID_IS_STRING);
    CHECK_STR(ev[0].tid_str, "CrBrowserMain");
    CHECK(ev[0].tid >= 0);
    CHECK(ev[0].tid != ev[0].pid);
    /* equal strings, equal ids; other strings, other ids */
    CHECK_EQ_INT(ev[1].pid, ev[0].pid);
    CHECK_STR(ev[1].pid_str, "Browser");
    CHECK_EQ_INT(ev[1].tid, 1);
    CHECK(!(ev[1].flags & TREAD_TID_IS_STRING));
    CHECK_ABSENT(ev[1].tid_str);
    CHECK(ev[2].pid != ev[0].pid);
    CHECK_STR(ev[2].pid_str, "Renderer");
    /* no tid: tid := pid */
    CHECK(!(ev[2].flags & TREAD_HAS_TID));
    CHECK_EQ_INT(ev[2].tid, ev[2].pid);
    /* a numeric string: the number, with its text kept */
    CHECK_EQ_INT(ev[3].pid, 123);
    CHECK_STR(ev[3].pid_str, "123");
    CHECK(ev[3].flags & TREAD_PID_IS_STRING);
    CHECK_EQ_INT(ev[3].tid, -4);
    CHECK_STR(ev[3].tid_str, "-4");
    /* null pid: absent */
    CHECK(!(ev[4].flags & TREAD_HAS_PID));
    CHECK_EQ_INT(ev[4].pid, 0);
    CHECK_EQ_INT(ev[4].tid, 5);
    CHECK_ABSENT(ev[4].pid_str);
    /* neither */
    CHECK(!(ev[5].flags & (TREAD_HAS_PID | TREAD_HAS_TID)));
    CHECK_EQ_INT(ev[5].pid, 0);
    CHECK_EQ_INT(ev[5].tid, 0);
    /* a pid alone */
    CHECK(ev[6].flags & TREAD_HAS_PID);
    CHECK(!(ev[6].flags & TREAD_HAS_TID));
    CHECK_EQ_INT(ev[6].tid, 7);

    /* the synthetic id is stable from one parse (and parser) to another */
    int64_t browser = ev[0].pid, renderer = ev[2].pid;
    CHECK_EQ_INT(first_pid_of("[{\"ph\":\"B\",\"pid\":\"Browser\"}]"), browser);
    CHECK_EQ_INT(first_pid_of("{\"traceEvents\":[{\"pid\":\"Renderer\",\"ph\":\"i\"}]}"), renderer);
}

static void test_ids(void)
{
    static const struct {
        const char *json;       /* the id members */
        const char *id;         /* expected text */
        uint32_t flags;         /* expected among HAS_ID, ID_LOCAL, ID_GLOBAL, HAS_ID_NUM */
        uint64_t num;
    } t[] = {
        {"\"id\":\"0x1f\"", "0x1f", TREAD_HAS_ID | TREAD_HAS_ID_NUM, 31},
        {"\"id\":\"0X1F\"", "0X1F", TREAD_HAS_ID | TREAD_HAS_ID_NUM, 31},
        {"\"id\":31", "31", TREAD_HAS_ID | TREAD_HAS_ID_NUM, 31},
        {"\"id\":\"31\"", "31", TREAD_HAS_ID | TREAD_HAS_ID_NUM, 31},
        {"\"id\":\"0xffffffffffffffff\"", "0xffffffffffffffff", TREAD_HAS_ID | TREAD_HAS_ID_NUM,
         UINT64_MAX},
        {"\"id\":18446744073709551615", "18446744073709551615", TREAD_HAS_ID | TREAD_HAS_ID_NUM,
         UINT64_MAX},
        {"\"id\":\"abc\"", "abc", TREAD_HAS_ID, 0},
        {"\"id\":\"0x\"", "0x", TREAD_HAS_ID, 0},
        {"\"id\":\"0x1ffffffffffffffff\"", "0x1ffffffffffffffff", TREAD_HAS_ID, 0}, /* 65 bits */
        {"\"id2\":{\"local\":\"0x2\"}", "0x2", TREAD_HAS_ID | TREAD_ID_LOCAL | TREAD_HAS_ID_NUM, 2},
        {"\"id2\":{\"global\":\"0xAB\"}", "0xAB", TREAD_HAS_ID | TREAD_ID_GLOBAL | TREAD_HAS_ID_NUM,
         171},
        {"\"id2\":{\"global\":12}", "12", TREAD_HAS_ID | TREAD_ID_GLOBAL | TREAD_HAS_ID_NUM, 12},
    };
    const uint32_t mask = TREAD_HAS_ID | TREAD_ID_LOCAL | TREAD_ID_GLOBAL | TREAD_HAS_ID_NUM;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char doc[160];
        snprintf(doc, sizeof doc, "[{\"ph\":\"b\",\"name\":\"a\",%s}]", t[i].json);
        PARSE(doc);
        const cevent *e = ONLY_EVENT();
        if ((e->flags & mask) != t[i].flags)
            fprintf(stderr, "  %s\n", t[i].json);
        CHECK_EQ_INT(e->flags & mask, t[i].flags);
        CHECK_STR(e->id, t[i].id);
        if (t[i].flags & TREAD_HAS_ID_NUM)
            CHECK(e->id_num == t[i].num);
    }

    PARSE("[{\"ph\":\"b\",\"name\":\"a\",\"id\":\"0x5\",\"scope\":\"blink.net\"}]");
    const cevent *e = ONLY_EVENT();
    CHECK_STR(e->id_scope, "blink.net");
    CHECK_EQ_INT(e->id_num, 5);
    PARSE("[{\"ph\":\"b\",\"name\":\"a\"}]");
    e = ONLY_EVENT();
    CHECK(!(e->flags & mask));
    CHECK_ABSENT(e->id);
    CHECK_ABSENT(e->id_scope);
}

static void test_flow_and_misc_fields(void)
{
    const char *doc =
        "[{\"ph\":\"X\",\"name\":\"a\",\"bp\":\"e\",\"bind_id\":\"0x10\",\"flow_in\":true,"
        "\"flow_out\":true,\"cname\":\"thread_state_running\",\"sf\":7,\"esf\":\"0x8\","
        "\"stack\":[\"0x1\",\"0x2\",3],\"estack\":[\"a\"],\"tidelta\":-3,\"ticount\":100,"
        "\"use_async_tts\":1},\n"
        " {\"ph\":\"i\",\"s\":\"g\",\"bp\":\"x\",\"flow_in\":false,\"use_async_tts\":true},\n"
        " {\"ph\":\"i\",\"s\":\"p\",\"use_async_tts\":0},\n"
        " {\"ph\":\"i\",\"s\":\"t\",\"sf\":\"12\"},\n"
        " {\"ph\":\"i\",\"stack\":[]}]";
    PARSE(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 5);
    if (C.nev != 5)
        return;
    const cevent *e = C.ev;
    CHECK(e[0].flags & TREAD_BIND_ENCLOSING);
    CHECK_STR(e[0].bind_id, "0x10");
    CHECK(e[0].flags & TREAD_FLOW_IN);
    CHECK(e[0].flags & TREAD_FLOW_OUT);
    CHECK_STR(e[0].cname, "thread_state_running");
    CHECK_STR(e[0].sf, "7");
    CHECK_STR(e[0].esf, "0x8");
    CHECK(e[0].flags & TREAD_HAS_TIDELTA);
    CHECK_EQ_INT(e[0].tidelta, -3);
    CHECK(e[0].flags & TREAD_HAS_TICOUNT);
    CHECK_EQ_INT(e[0].ticount, 100);
    CHECK(e[0].flags & TREAD_USE_ASYNC_TTS);
    CHECK_EQ_INT(e[0].scope, TREAD_SCOPE_NONE);
    /* stack: the array's elements, at depth 0 */
    CHECK(e[0].stack.present);
    tread_args st = args_of(&e[0].stack);
    tread_args_iter it;
    tread_arg v;
    tread_args_iter_init(&it, &st);
    CHECK(tread_args_next(&it, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_STRING);
    CHECK_EQ_INT(v.depth, 0);
    CHECK(v.key.ptr == NULL);
    CHECK(v.v.s.len == 3 && !memcmp(v.v.s.ptr, "0x1", 3));
    CHECK(tread_args_next(&it, &v));
    CHECK(v.v.s.len == 3 && !memcmp(v.v.s.ptr, "0x2", 3));
    CHECK(tread_args_next(&it, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_INT);
    CHECK_EQ_INT(v.v.i, 3);
    CHECK(!tread_args_next(&it, &v));
    tread_args es = args_of(&e[0].estack);
    tread_args_iter_init(&it, &es);
    CHECK(tread_args_next(&it, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_STRING);
    CHECK(v.v.s.len == 1 && v.v.s.ptr[0] == 'a');
    CHECK(!tread_args_next(&it, &v));

    CHECK_EQ_INT(e[1].scope, TREAD_SCOPE_GLOBAL);
    CHECK(!(e[1].flags & (TREAD_BIND_ENCLOSING | TREAD_FLOW_IN | TREAD_FLOW_OUT)));
    CHECK(e[1].flags & TREAD_USE_ASYNC_TTS);
    CHECK_EQ_INT(e[2].scope, TREAD_SCOPE_PROCESS);
    CHECK(!(e[2].flags & TREAD_USE_ASYNC_TTS));
    CHECK_EQ_INT(e[3].scope, TREAD_SCOPE_THREAD);
    CHECK_STR(e[3].sf, "12");
    CHECK(!(e[3].flags & (TREAD_HAS_TIDELTA | TREAD_HAS_TICOUNT)));
    CHECK(!e[3].stack.present);
    /* an empty stack is present and empty */
    CHECK(e[4].stack.present);
    CHECK_EQ_INT(e[4].stack.len, 0);
}

/* ---- args --------------------------------------------------------------- */

typedef struct want_arg {
    int depth;
    const char *key;        /* NULL: no key */
    tread_arg_type type;
    int64_t i;              /* INT, BOOL */
    double d;               /* DOUBLE */
    const char *s;          /* STRING (with slen), or a number's text */
    size_t slen;
} want_arg;

static void check_args_sequence(const tread_args *a, const want_arg *w, size_t nw, int line)
{
    tread_args_iter it;
    tread_arg v;
    size_t n = 0;
    tread_args_iter_init(&it, a);
    while (tread_args_next(&it, &v)) {
        if (n >= nw) {
            n++;
            continue;
        }
        const want_arg *x = &w[n];
        int ok = v.depth == x->depth && v.type == x->type;
        if (x->key)
            ok = ok && v.key.ptr && v.key.len == strlen(x->key) &&
                 !memcmp(v.key.ptr, x->key, v.key.len);
        else
            ok = ok && v.key.ptr == NULL;
        switch (x->type) {
        case TREAD_ARG_INT:
            ok = ok && v.v.i == x->i;
            break;
        case TREAD_ARG_BOOL:
            ok = ok && v.v.b == (int)x->i;
            break;
        case TREAD_ARG_UINT:
            ok = ok && v.v.u == (uint64_t)x->i;
            break;
        case TREAD_ARG_DOUBLE:
            ok = ok && v.v.d == x->d;
            break;
        case TREAD_ARG_STRING:
            ok = ok && v.v.s.ptr && v.v.s.len == x->slen && !memcmp(v.v.s.ptr, x->s, x->slen) &&
                 v.v.s.ptr[v.v.s.len] == 0;
            break;
        default:
            break;
        }
        /* numbers keep their literal text */
        if (x->s && (x->type == TREAD_ARG_INT || x->type == TREAD_ARG_UINT ||
                     x->type == TREAD_ARG_DOUBLE))
            ok = ok && v.text.ptr && v.text.len == strlen(x->s) &&
                 !memcmp(v.text.ptr, x->s, v.text.len);
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  line %d: arg %zu (key %s): got depth %d type %s\n", line, n,
                    x->key ? x->key : "-", v.depth, tread_arg_type_name(v.type));
        n++;
    }
    CHECK_EQ_INT(n, nw);
}

static void test_args(void)
{
    const char *doc =
        "[{\"ph\":\"X\",\"name\":\"a\",\"args\":{\"z\":1,\"a\":{\"b\":{\"c\":\"deep\"}},"
        "\"arr\":[10,\"x\",{\"k\":null},[true]],\"dup\":1,\"dup\":2,\"nul\":null,\"t\":true,"
        "\"f\":false,\"i\":-42,\"u\":18446744073709551615,\"max\":9223372036854775807,"
        "\"min\":-9223372036854775808,\"d\":-0.5,\"e\":1e-7,"
        "\"s\":\"a\\nb\\u00e9\\\"c\\u0000d\\/\",\"empty\":\"\",\"k\\u00e9\":1,\"ed\":{},\"ea\":[]}}]";
    PARSE(doc);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    const cevent *e = ONLY_EVENT();
    static const want_arg w[] = {
        {0, "z", TREAD_ARG_INT, 1, 0, "1", 0},
        {0, "a", TREAD_ARG_DICT_BEGIN, 0, 0, NULL, 0},
        {1, "b", TREAD_ARG_DICT_BEGIN, 0, 0, NULL, 0},
        {2, "c", TREAD_ARG_STRING, 0, 0, "deep", 4},
        {1, NULL, TREAD_ARG_DICT_END, 0, 0, NULL, 0},
        {0, NULL, TREAD_ARG_DICT_END, 0, 0, NULL, 0},
        {0, "arr", TREAD_ARG_ARRAY_BEGIN, 0, 0, NULL, 0},
        {1, NULL, TREAD_ARG_INT, 10, 0, "10", 0},
        {1, NULL, TREAD_ARG_STRING, 0, 0, "x", 1},
        {1, NULL, TREAD_ARG_DICT_BEGIN, 0, 0, NULL, 0},
        {2, "k", TREAD_ARG_NULL, 0, 0, NULL, 0},
        {1, NULL, TREAD_ARG_DICT_END, 0, 0, NULL, 0},
        {1, NULL, TREAD_ARG_ARRAY_BEGIN, 0, 0, NULL, 0},
        {2, NULL, TREAD_ARG_BOOL, 1, 0, NULL, 0},
        {1, NULL, TREAD_ARG_ARRAY_END, 0, 0, NULL, 0},
        {0, NULL, TREAD_ARG_ARRAY_END, 0, 0, NULL, 0},
        {0, "dup", TREAD_ARG_INT, 1, 0, "1", 0},
        {0, "dup", TREAD_ARG_INT, 2, 0, "2", 0},
        {0, "nul", TREAD_ARG_NULL, 0, 0, NULL, 0},
        {0, "t", TREAD_ARG_BOOL, 1, 0, NULL, 0},
        {0, "f", TREAD_ARG_BOOL, 0, 0, NULL, 0},
        {0, "i", TREAD_ARG_INT, -42, 0, "-42", 0},
        {0, "u", TREAD_ARG_UINT, (int64_t)UINT64_MAX, 0, "18446744073709551615", 0},
        {0, "max", TREAD_ARG_INT, INT64_MAX, 0, "9223372036854775807", 0},
        {0, "min", TREAD_ARG_INT, INT64_MIN, 0, "-9223372036854775808", 0},
        {0, "d", TREAD_ARG_DOUBLE, 0, -0.5, "-0.5", 0},
        {0, "e", TREAD_ARG_DOUBLE, 0, 1e-7, "1e-7", 0},
        /* \n, \u00e9 (UTF-8 c3 a9), \", \u0000 and \/ decoded: 10 bytes */
        {0, "s", TREAD_ARG_STRING, 0, 0, "a\nb\xc3\xa9\"c\0d/", 10},
        {0, "empty", TREAD_ARG_STRING, 0, 0, "", 0},
        {0, "k\xc3\xa9", TREAD_ARG_INT, 1, 0, "1", 0},
        {0, "ed", TREAD_ARG_DICT_BEGIN, 0, 0, NULL, 0},
        {0, NULL, TREAD_ARG_DICT_END, 0, 0, NULL, 0},
        {0, "ea", TREAD_ARG_ARRAY_BEGIN, 0, 0, NULL, 0},
        {0, NULL, TREAD_ARG_ARRAY_END, 0, 0, NULL, 0},
    };
    tread_args a = args_of(&e->args);
    check_args_sequence(&a, w, sizeof w / sizeof w[0], __LINE__);

    /* lookups by flattened key */
    tread_arg v;
    CHECK(tread_args_find(&a, "a.b.c", 5, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_STRING);
    CHECK(v.v.s.len == 4 && !memcmp(v.v.s.ptr, "deep", 4));
    CHECK_EQ_INT(v.depth, 2);
    CHECK(v.key.len == 1 && v.key.ptr[0] == 'c');
    CHECK(tread_args_find(&a, "arr.2", 5, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_DICT_BEGIN);
    CHECK(v.key.ptr == NULL);
    CHECK(tread_args_find(&a, "arr.2.k", 7, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_NULL);
    CHECK(tread_args_find(&a, "arr.3.0", 7, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_BOOL);
    CHECK_EQ_INT(v.v.b, 1);
    CHECK(tread_args_find(&a, "arr.0", 5, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_INT);
    CHECK_EQ_INT(v.v.i, 10);
    CHECK(tread_args_find(&a, "dup", 3, &v)); /* the first duplicate wins */
    CHECK_EQ_INT(v.v.i, 1);
    CHECK(tread_args_find(&a, "u", 1, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_UINT);
    CHECK(v.v.u == UINT64_MAX);
    CHECK(tread_args_find(&a, "s", 1, &v));
    CHECK_EQ_INT(v.v.s.len, 10);
    CHECK(!tread_args_find(&a, "arr.4", 5, &v));
    CHECK(!tread_args_find(&a, "nope", 4, &v));
    CHECK(!tread_args_find(&a, "z.x", 3, &v));
    CHECK(!tread_args_find(&a, "a.b.c.d", 7, &v));

    /* "__stripped__" (Chrome's argument filter): no args, no warning */
    PARSE("[{\"ph\":\"X\",\"name\":\"a\",\"args\":\"__stripped__\"}]");
    CHECK_EQ_INT(C.nwarn, 0);
    e = ONLY_EVENT();
    a = args_of(&e->args);
    tread_args_iter it;
    tread_args_iter_init(&it, &a);
    CHECK(!tread_args_next(&it, &v));

    /* args that are not an object: a bad field, the event stays */
    const char *bad = "[{\"ph\":\"B\",\"name\":\"ok\"},{\"ph\":\"X\",\"name\":\"a\",\"args\":5}]";
    PARSE(bad);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 2);
    CHECK_EQ_INT(count_warnings(TREAD_WARN_BAD_FIELD), 1);
    CHECK_EQ_INT(C.nwarn, 1);
    CHECK(has_warning_at(TREAD_WARN_BAD_FIELD, offset_of(bad, "{\"ph\":\"X\"", 0)));
    if (C.nev == 2) {
        CHECK_STR(C.ev[1].name, "a");
        a = args_of(&C.ev[1].args);
        tread_args_iter_init(&it, &a);
        CHECK(!tread_args_next(&it, &v));
    }
    PARSE("[{\"ph\":\"X\",\"args\":\"some text\"}]");
    CHECK_EQ_INT(count_warnings(TREAD_WARN_BAD_FIELD), 1);
    CHECK_EQ_INT(C.nev, 1);
}

/* An event's offset is that of its '{', whatever the blanks around it. */
static void test_offsets(void)
{
    const char *doc = "[\n  {\"ph\":\"B\",\"name\":\"a\"},\n\t{ \"ph\" : \"E\" , \"name\":\"a\"}  ,"
                      "{\"ph\":\"i\",\"args\":{\"x\":{\"y\":\"}\"}}}\r\n]\n";
    PARSE(doc);
    CHECK_EQ_INT(C.nev, 3);
    if (C.nev == 3) {
        CHECK_EQ_INT(C.ev[0].offset, offset_of(doc, "{\"ph\":\"B\"", 0));
        CHECK_EQ_INT(C.ev[1].offset, offset_of(doc, "{ \"ph\" : \"E\"", 0));
        CHECK_EQ_INT(C.ev[2].offset, offset_of(doc, "{\"ph\":\"i\"", 0));
        CHECK_EQ_INT(C.ev[0].offset, 4);
    }
    const char *obj = "{ \"traceEvents\" : [ {\"ph\":\"B\"} , {\"ph\":\"E\"} ] }";
    PARSE(obj);
    CHECK_EQ_INT(C.nev, 2);
    if (C.nev == 2) {
        CHECK_EQ_INT(C.ev[0].offset, 20);
        CHECK_EQ_INT(C.ev[1].offset, 33);
        CHECK_EQ_INT(C.ev[0].raw_length, 10);
    }
}

int main(void)
{
    test_basic_fields();
    test_times();
    test_devtools_big_integer();
    test_pid_tid();
    test_ids();
    test_flow_and_misc_fields();
    test_args();
    test_offsets();
    return TEST_EXIT();
}
