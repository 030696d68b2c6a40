/* The JSON loose ends (issue 9): a pid/tid written 1.0 or 1e3 is a number;
 * a string-valued sample weight is converted when numeric, else a counted
 * warning; a top-level string with escapes reports the offset of its
 * opening quote. Each through the fast path and through yajl alone
 * (TREAD_OPT_JSON_FAST_PATH 0), and the "all chunkings agree" check.
 * (Comments in strict and lenient mode: test_json_lenient.c.) */
#include <stdio.h>
#include <string.h>

#include <tread.h>

#include "json_collect.h"

static const int64_t SLOW[] = {TREAD_OPT_JSON_FAST_PATH, 0, 0};
static const int64_t *const PATHS[2] = {NULL, SLOW};

#define PLAIN "{\"ph\":\"i\",\"name\":\"p\",\"ts\":1,\"pid\":1,\"tid\":1}"

static void test_pid_forms(void)
{
    /* enough plain records around for the fast path to take the rest */
    const char *doc = "[" PLAIN "," PLAIN "," PLAIN ","
                      "{\"ph\":\"i\",\"name\":\"a\",\"ts\":1,\"pid\":1.0,\"tid\":1e3},"
                      "{\"ph\":\"i\",\"name\":\"b\",\"ts\":1,\"pid\":2.50e1,\"tid\":-7.0E0},"
                      "{\"ph\":\"i\",\"name\":\"c\",\"ts\":1,\"pid\":\"1.0\",\"tid\":\"x\"}]";
    for (int k = 0; k < 2; k++) {
        PARSE_OPTS(doc, PATHS[k]);
        CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
        CHECK_EQ_INT(C.nwarn, 0);
        CHECK_EQ_INT(C.nev, 6);
        if (C.nev != 6)
            continue;
        const cevent *a = &C.ev[3], *b = &C.ev[4], *c = &C.ev[5];
        CHECK_EQ_INT(a->pid, 1);
        CHECK_EQ_INT(a->tid, 1000);
        CHECK(!(a->flags & (TREAD_PID_IS_STRING | TREAD_TID_IS_STRING)));
        CHECK(!a->pid_str.present && !a->tid_str.present);
        CHECK_EQ_INT(b->pid, 25);
        CHECK_EQ_INT(b->tid, -7);
        CHECK(!(b->flags & (TREAD_PID_IS_STRING | TREAD_TID_IS_STRING)));
        /* a string stays a string (its text kept) */
        CHECK(c->flags & TREAD_PID_IS_STRING);
        CHECK(str_is(&c->pid_str, "1.0"));
        CHECK(c->flags & TREAD_TID_IS_STRING);
    }
}

static void test_sample_weight(void)
{
    const char *doc =
        "{\"samples\":[{\"ts\":1,\"tid\":1,\"weight\":3},{\"ts\":2,\"tid\":1,\"weight\":\"4\"},"
        "{\"ts\":3,\"tid\":1,\"weight\":\" 2.5 \"},{\"ts\":4,\"tid\":1,\"weight\":\"heavy\"},"
        "{\"ts\":5,\"tid\":1,\"weight\":true},{\"ts\":6,\"tid\":1,\"weight\":null},"
        "{\"ts\":7,\"tid\":1,\"weight\":\"1e2\"}]}";
    for (int k = 0; k < 2; k++) {
        PARSE_OPTS(doc, PATHS[k]);
        CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
        CHECK_EQ_INT(C.nev, 7);
        if (C.nev != 7)
            continue;
        CHECK(C.ev[0].flags & TREAD_HAS_VALUE);
        CHECK(C.ev[0].value == 3.0);
        CHECK(C.ev[1].flags & TREAD_HAS_VALUE);
        CHECK(C.ev[1].value == 4.0);
        CHECK(str_is(&C.ev[1].value_text, "4"));
        CHECK(C.ev[2].flags & TREAD_HAS_VALUE);
        CHECK(C.ev[2].value == 2.5);
        CHECK(!(C.ev[3].flags & TREAD_HAS_VALUE));
        CHECK(!(C.ev[4].flags & TREAD_HAS_VALUE));
        CHECK(!(C.ev[5].flags & TREAD_HAS_VALUE)); /* null: no weight, nothing said */
        CHECK(C.ev[6].flags & TREAD_HAS_VALUE);
        CHECK(C.ev[6].value == 100.0);
        /* "heavy" and true are said, each at its sample */
        CHECK_EQ_INT(count_warnings(TREAD_WARN_BAD_FIELD), 2);
        CHECK_EQ_INT(C.nwarn, 2);
        CHECK(has_warning_at(TREAD_WARN_BAD_FIELD, offset_of(doc, "{\"ts\":4", 0)));
        CHECK(has_warning_at(TREAD_WARN_BAD_FIELD, offset_of(doc, "{\"ts\":5", 0)));
    }
}

static void test_top_level_string_offset(void)
{
    const char *doc = "{\"traceEvents\":[],\"a\":\"x\\\"y\\u00e9\\n\\\\\",\"b\":\"plain\","
                      "\"c\":\"\\\\\",\"d\" : \"q\\\"\"}";
    for (int k = 0; k < 2; k++) {
        PARSE_OPTS(doc, PATHS[k]);
        CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
        CHECK_EQ_INT(C.nev, 4);
        if (C.nev != 4)
            continue;
        CHECK_EQ_INT(C.ev[0].offset, offset_of(doc, "\"x\\\"", 0));
        CHECK_EQ_INT(C.ev[1].offset, offset_of(doc, "\"plain", 0));
        CHECK_EQ_INT(C.ev[2].offset, offset_of(doc, "\"\\\\\"", 0));
        CHECK_EQ_INT(C.ev[3].offset, offset_of(doc, "\"q\\", 0));
        CHECK_EQ_INT(C.nraw, 4);
        if (C.nraw == 4)
            CHECK_EQ_INT(C.raw[0].offset, offset_of(doc, "\"x\\\"", 0));
        every_chunk_size_agrees(doc, strlen(doc), PATHS[k], __LINE__);
    }
    /* Regression (fixed, found by fuzz_pipeline): a cut after the first
     * backslash of \\\" left a slice starting \\" whose quote, escaped by
     * the held backslash, was taken for the string's opening quote. */
    const char *cut = "{\"traceEvents\":[],\"s\":\"a\\\\\\\"ph\",\"t\":\"\\\\\\\\\\\"q\"}";
    for (int k = 0; k < 2; k++) {
        PARSE_OPTS(cut, PATHS[k]);
        CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
        CHECK_EQ_INT(C.nev, 2);
        if (C.nev == 2) {
            CHECK_EQ_INT(C.ev[0].offset, offset_of(cut, "\"a\\", 0));
            CHECK_EQ_INT(C.ev[1].offset, offset_of(cut, "\"\\\\", 0));
        }
        every_chunk_size_agrees(cut, strlen(cut), PATHS[k], __LINE__);
    }
}

int main(void)
{
    test_pid_forms();
    test_sample_weight();
    test_top_level_string_offset();
    return TEST_EXIT();
}
