/* FXT arguments through the public iterator (TREAD_ARGS_FXT): every
 * argument type, indexed and inline names and values, termination of
 * strings that fill their words, unknown types skipped, lookups. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tread.h>

#include "fxt_build.h"
#include "testlib.h"

static int checked;

static void check_args(const tread_args *a)
{
    tread_args_iter it;
    tread_arg v;
    tread_args_iter_init(&it, a);
    struct {
        const char *key;
        tread_arg_type type;
    } want[] = {
        {"null", TREAD_ARG_NULL},      {"i32", TREAD_ARG_INT},     {"u32", TREAD_ARG_INT},
        {"i64", TREAD_ARG_INT},        {"u64", TREAD_ARG_UINT},    {"dbl", TREAD_ARG_DOUBLE},
        {"12345678", TREAD_ARG_STRING}, {"indexed", TREAD_ARG_STRING}, {"ptr", TREAD_ARG_POINTER},
        {"koid", TREAD_ARG_KOID},      {"yes", TREAD_ARG_BOOL},    {"blob", TREAD_ARG_BYTES},
        {"small", TREAD_ARG_INT},
    };
    size_t i = 0;
    while (tread_args_next(&it, &v)) {
        CHECK(i < sizeof want / sizeof want[0]);
        if (i >= sizeof want / sizeof want[0])
            break;
        CHECK_EQ_STR(v.key.ptr, want[i].key);
        CHECK(v.key.ptr[v.key.len] == 0);
        CHECK_EQ_INT(v.type, want[i].type);
        CHECK_EQ_INT(v.depth, 0);
        switch (i) {
        case 1: CHECK_EQ_INT(v.v.i, -5); break;
        case 2: CHECK_EQ_INT(v.v.i, 4000000000); break;
        case 3: CHECK_EQ_INT(v.v.i, -1000000000000); break;
        case 4: CHECK(v.v.u == UINT64_C(0x8000000000000001)); break;
        case 5: CHECK(v.v.d == 2.5); break;
        case 6:
            CHECK_EQ_INT(v.v.s.len, 16);
            CHECK_EQ_STR(v.v.s.ptr, "sixteen bytes!!!");
            break;
        case 7: CHECK_EQ_STR(v.v.s.ptr, "from the table"); break;
        case 8: CHECK(v.v.u == 0x1000); break;
        case 9: CHECK(v.v.u == 42); break;
        case 10: CHECK_EQ_INT(v.v.b, 1); break;
        case 11:
            CHECK_EQ_INT(v.v.s.len, 3);
            CHECK(memcmp(v.v.s.ptr, "a\0c", 4) == 0);
            break;
        case 12: CHECK_EQ_INT(v.v.i, 9); break;
        }
        i++;
    }
    CHECK_EQ_INT(i, sizeof want / sizeof want[0]);
    CHECK(!tread_args_iter_failed(&it));
    CHECK(tread_args_find(a, "koid", 4, &v) && v.type == TREAD_ARG_KOID && v.v.u == 42);
    CHECK(tread_args_find(a, "indexed", 7, &v) && strcmp(v.v.s.ptr, "from the table") == 0);
    CHECK(!tread_args_find(a, "skipped", 7, &v));
    checked++;
}

static int on_event(void *user, const tread_event *ev)
{
    (void)user;
    if (ev->kind == TREAD_EVENT_INSTANT) {
        CHECK_EQ_INT(ev->args.encoding, TREAD_ARGS_FXT);
        check_args(&ev->args);
        check_args(&ev->args); /* twice: strings copied for NULs stay put */
    }
    return 0;
}

int main(void)
{
    fxb b;
    fxb_init(&b);
    fxb_magic(&b);
    fxb_provider_info(&b, 1, "p");
    fxb_string(&b, 3, "from the table");
    uint64_t w[3];
    double d = 2.5;
    size_t s = fxb_event(&b, 0, 15, 0, 0, 0, 1);
    fxb_word(&b, 1);
    fxb_word(&b, 2);
    fxb_arg(&b, 0, "null", 0, NULL, 0);
    fxb_arg(&b, 1, "i32", (uint32_t)-5, NULL, 0);
    fxb_arg(&b, 2, "u32", 4000000000u, NULL, 0);
    w[0] = (uint64_t)-1000000000000;
    fxb_arg(&b, 3, "i64", 0, w, 1);
    w[0] = UINT64_C(0x8000000000000001);
    fxb_arg(&b, 4, "u64", 0, w, 1);
    memcpy(&w[0], &d, 8);
    fxb_arg(&b, 5, "dbl", 0, w, 1);
    /* a 16-byte inline value, no padding after it */
    memcpy(w, "sixteen bytes!!!", 16);
    fxb_arg(&b, 6, "12345678", FXB_INLINE(16), w, 2);
    fxb_arg(&b, 6, "indexed", 3, NULL, 0);
    w[0] = 0x1000;
    fxb_arg(&b, 7, "ptr", 0, w, 1);
    w[0] = 42;
    fxb_arg(&b, 8, "koid", 0, w, 1);
    fxb_arg(&b, 9, "yes", 1, NULL, 0);
    memcpy(w, "a\0c\0\0\0\0\0", 8);
    fxb_arg(&b, 10, "blob", 3, w, 1);
    fxb_arg(&b, 15, "skipped", 0, w, 1);       /* unknown type */
    fxb_arg(&b, 10, "skipped", 1000, w, 1);    /* type 10, not a blob that fits */
    fxb_arg(&b, 1, "small", 9, NULL, 0);
    fxb_end(&b, s);
    tread_parser *p = tread_parser_create(NULL);
    tread_callbacks cb = {.event = on_event};
    tread_set_callbacks(p, &cb, NULL);
    CHECK_EQ_INT(tread_feed(p, b.d, b.len), TREAD_STATUS_OK);
    CHECK_EQ_INT(tread_finish(p), TREAD_STATUS_OK);
    CHECK_EQ_INT(checked, 2);
    tread_stats st;
    tread_get_stats(p, &st);
    CHECK_EQ_INT(st.warnings, 0);
    tread_parser_free(p);
    fxb_free(&b);
    return TEST_EXIT();
}
