/* The typed-argument iterator (tread_args_*) on events parsed from JSON:
 * depth, keys, types, tread_args_skip, tread_args_find hits and misses,
 * tread_arg_type_name.
 *
 * Expected values come from include/tread.h: depth is 0 for top-level args
 * and +1 inside each dict/array; *_END markers carry no key and the depth
 * of their *_BEGIN; keys are NULL inside arrays. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tread.h>

#include "testlib.h"

/* The args of the first event of a parse, copied (the token stream is
 * self-contained, so the copy iterates like the original). */
static unsigned char args_copy[1 << 16];
static tread_args first_args;
static size_t n_events;

static int grab_args(void *user, const tread_event *ev)
{
    (void)user;
    if (n_events++ == 0) {
        first_args.data = NULL;
        first_args.len = 0;
        if (ev->args.data && ev->args.len <= sizeof args_copy) {
            memcpy(args_copy, ev->args.data, ev->args.len);
            first_args.data = args_copy;
            first_args.len = ev->args.len;
        }
    }
    return 0;
}

/* Parses a one-event document; returns its args. */
static tread_args args_from(const char *json)
{
    tread_parser *p = tread_parser_create(NULL);
    tread_callbacks cb = {.event = grab_args};
    n_events = 0;
    first_args.data = NULL;
    first_args.len = 0;
    tread_set_callbacks(p, &cb, NULL);
    tread_status st = tread_feed(p, json, strlen(json));
    if (st == TREAD_STATUS_OK)
        st = tread_finish(p);
    CHECK_EQ_INT(st, TREAD_STATUS_OK);
    CHECK_EQ_INT(n_events, 1);
    tread_parser_free(p);
    return first_args;
}

static int key_is(const tread_arg *v, const char *k)
{
    if (!k)
        return v->key.ptr == NULL;
    return v->key.ptr && v->key.len == strlen(k) && !memcmp(v->key.ptr, k, v->key.len) &&
           v->key.ptr[v->key.len] == 0;
}

typedef struct step {
    int depth;
    const char *key;
    tread_arg_type type;
} step;

/* Iterates, calling tread_args_skip right after the BEGIN markers whose
 * index is in skip_at (-1 ended), and compares with want. */
static void walk(const tread_args *a, const int *skip_at, const step *want, size_t nwant,
                 int line)
{
    tread_args_iter it;
    tread_arg v;
    size_t n = 0;
    tread_args_iter_init(&it, a);
    while (tread_args_next(&it, &v)) {
        if (n < nwant) {
            int ok = v.depth == want[n].depth && v.type == want[n].type && key_is(&v, want[n].key);
            CHECK(ok);
            if (!ok)
                fprintf(stderr, "  line %d, step %zu: depth %d key %.*s type %s; expected depth %d "
                                "key %s type %s\n",
                        line, n, v.depth, (int)v.key.len, v.key.ptr ? v.key.ptr : "-",
                        tread_arg_type_name(v.type), want[n].depth,
                        want[n].key ? want[n].key : "-", tread_arg_type_name(want[n].type));
        }
        for (const int *s = skip_at; s && *s >= 0; s++)
            if ((size_t)*s == n)
                tread_args_skip(&it);
        n++;
    }
    CHECK_EQ_INT(n, nwant);
    CHECK(!tread_args_next(&it, &v)); /* the end stays the end */
}

static const char *const DOC =
    "[{\"ph\":\"X\",\"name\":\"a\",\"args\":{\"a\":1,\"d\":{\"x\":{\"y\":[1,2]},\"z\":\"s\"},"
    "\"b\":[{\"k\":true},[]],\"c\":null}}]";

static void test_iterate(void)
{
    tread_args a = args_from(DOC);
    static const step want[] = {
        {0, "a", TREAD_ARG_INT},
        {0, "d", TREAD_ARG_DICT_BEGIN},
        {1, "x", TREAD_ARG_DICT_BEGIN},
        {2, "y", TREAD_ARG_ARRAY_BEGIN},
        {3, NULL, TREAD_ARG_INT},
        {3, NULL, TREAD_ARG_INT},
        {2, NULL, TREAD_ARG_ARRAY_END},
        {1, NULL, TREAD_ARG_DICT_END},
        {1, "z", TREAD_ARG_STRING},
        {0, NULL, TREAD_ARG_DICT_END},
        {0, "b", TREAD_ARG_ARRAY_BEGIN},
        {1, NULL, TREAD_ARG_DICT_BEGIN},
        {2, "k", TREAD_ARG_BOOL},
        {1, NULL, TREAD_ARG_DICT_END},
        {1, NULL, TREAD_ARG_ARRAY_BEGIN},
        {1, NULL, TREAD_ARG_ARRAY_END},
        {0, NULL, TREAD_ARG_ARRAY_END},
        {0, "c", TREAD_ARG_NULL},
    };
    walk(&a, NULL, want, sizeof want / sizeof want[0], __LINE__);

    /* values along the way */
    tread_args_iter it;
    tread_arg v;
    tread_args_iter_init(&it, &a);
    CHECK(tread_args_next(&it, &v));
    CHECK_EQ_INT(v.v.i, 1);
    CHECK(v.text.ptr && v.text.len == 1 && v.text.ptr[0] == '1');
    for (int i = 0; i < 8; i++)
        CHECK(tread_args_next(&it, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_STRING);
    CHECK(v.v.s.len == 1 && v.v.s.ptr[0] == 's' && v.v.s.ptr[1] == 0);
    CHECK(v.text.ptr == NULL); /* only numbers have a literal text */
}

static void test_skip(void)
{
    tread_args a = args_from(DOC);
    /* skip "d" (step 1) whole: next comes "b" at depth 0 */
    static const int skip_d[] = {1, -1};
    static const step want_d[] = {
        {0, "a", TREAD_ARG_INT},
        {0, "d", TREAD_ARG_DICT_BEGIN},
        {0, "b", TREAD_ARG_ARRAY_BEGIN},
        {1, NULL, TREAD_ARG_DICT_BEGIN},
        {2, "k", TREAD_ARG_BOOL},
        {1, NULL, TREAD_ARG_DICT_END},
        {1, NULL, TREAD_ARG_ARRAY_BEGIN},
        {1, NULL, TREAD_ARG_ARRAY_END},
        {0, NULL, TREAD_ARG_ARRAY_END},
        {0, "c", TREAD_ARG_NULL},
    };
    walk(&a, skip_d, want_d, sizeof want_d / sizeof want_d[0], __LINE__);

    /* skip the nested dict "x" (step 2) inside "d", then the dict and the
     * empty array inside "b" (steps 6 and 7 of this walk) */
    static const step want_x[] = {
        {0, "a", TREAD_ARG_INT},
        {0, "d", TREAD_ARG_DICT_BEGIN},
        {1, "x", TREAD_ARG_DICT_BEGIN},
        {1, "z", TREAD_ARG_STRING},
        {0, NULL, TREAD_ARG_DICT_END},
        {0, "b", TREAD_ARG_ARRAY_BEGIN},
        {1, NULL, TREAD_ARG_DICT_BEGIN},
        {1, NULL, TREAD_ARG_ARRAY_BEGIN},
        {0, NULL, TREAD_ARG_ARRAY_END},
        {0, "c", TREAD_ARG_NULL},
    };
    static const int skip_x[] = {2, 6, 7, -1};
    walk(&a, skip_x, want_x, sizeof want_x / sizeof want_x[0], __LINE__);

    /* skipping the last container leaves nothing */
    tread_args b = args_from("[{\"ph\":\"X\",\"args\":{\"only\":{\"a\":{\"b\":[1,2,3]}}}}]");
    tread_args_iter it;
    tread_arg v;
    tread_args_iter_init(&it, &b);
    CHECK(tread_args_next(&it, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_DICT_BEGIN);
    tread_args_skip(&it);
    CHECK(!tread_args_next(&it, &v));
}

static void test_find(void)
{
    tread_args a = args_from(DOC);
    tread_arg v;
    /* hits */
    CHECK(tread_args_find(&a, "a", 1, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_INT);
    CHECK_EQ_INT(v.depth, 0);
    CHECK(v.key.ptr && v.key.len == 1 && v.key.ptr[0] == 'a');
    CHECK(tread_args_find(&a, "d", 1, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_DICT_BEGIN);
    CHECK(tread_args_find(&a, "d.x.y.1", 7, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_INT);
    CHECK_EQ_INT(v.v.i, 2);
    CHECK_EQ_INT(v.depth, 3);
    CHECK(v.key.ptr == NULL); /* an array element */
    CHECK(tread_args_find(&a, "d.z", 3, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_STRING);
    CHECK_EQ_INT(v.depth, 1);
    CHECK(tread_args_find(&a, "b.0.k", 5, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_BOOL);
    CHECK_EQ_INT(v.v.b, 1);
    CHECK(tread_args_find(&a, "b.1", 3, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_ARRAY_BEGIN);
    CHECK(tread_args_find(&a, "c", 1, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_NULL);
    /* the key length is explicit: "ab" with length 1 is "a" */
    CHECK(tread_args_find(&a, "ab", 1, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_INT);

    /* misses */
    static const char *const miss[] = {
        "nope",      /* absent key */
        "d.nope",
        "A",         /* keys are case-sensitive */
        "b.2",       /* index out of range */
        "d.x.y.2",
        "b.1.0",     /* in an empty array */
        "a.x",       /* path through a scalar */
        "d.z.0",
        "c.0",
        "b.x",       /* not an index */
        "b.-1",
        "d.x.y.1x",
        "d.",        /* empty segment */
        "",
        ".a",
    };
    for (size_t i = 0; i < sizeof miss / sizeof miss[0]; i++) {
        int found = tread_args_find(&a, miss[i], strlen(miss[i]), &v);
        CHECK(!found);
        if (found)
            fprintf(stderr, "  tread_args_find(\"%s\") found a %s\n", miss[i],
                    tread_arg_type_name(v.type));
    }
    /* no args at all */
    tread_args none = {.data = NULL};
    CHECK(!tread_args_find(&none, "a", 1, &v));
    CHECK(!tread_args_find(NULL, "a", 1, &v));
    tread_args e = args_from("[{\"ph\":\"X\",\"args\":{}}]");
    CHECK(!tread_args_find(&e, "a", 1, &v));

    /* duplicates: the first wins */
    tread_args d = args_from("[{\"ph\":\"X\",\"args\":{\"k\":1,\"k\":{\"j\":2},\"k\":3}}]");
    CHECK(tread_args_find(&d, "k", 1, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_INT);
    CHECK_EQ_INT(v.v.i, 1);
    CHECK(!tread_args_find(&d, "k.j", 3, &v)); /* the first "k" is a scalar */
}

static void test_types(void)
{
    tread_args a = args_from(
        "[{\"ph\":\"X\",\"args\":{\"i\":-7,\"zero\":-0,\"u\":9223372036854775808,\"umax\":18446744073709551615,"
        "\"big\":18446744073709551616,\"neg\":-9223372036854775809,\"d\":0.0,\"e\":1E2,"
        "\"huge\":1e400,\"s\":\"x\\ty\",\"t\":true,\"f\":false,\"n\":null}}]");
    tread_arg v;
    CHECK(tread_args_find(&a, "i", 1, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_INT);
    CHECK_EQ_INT(v.v.i, -7);
    CHECK(tread_args_find(&a, "zero", 4, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_INT);
    CHECK_EQ_INT(v.v.i, 0);
    CHECK(v.text.len == 2 && !memcmp(v.text.ptr, "-0", 2));
    CHECK(tread_args_find(&a, "u", 1, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_UINT);
    CHECK(v.v.u == UINT64_C(9223372036854775808));
    CHECK(tread_args_find(&a, "umax", 4, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_UINT);
    CHECK(v.v.u == UINT64_MAX);
    /* beyond 64 bits: a double, the text kept */
    CHECK(tread_args_find(&a, "big", 3, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_DOUBLE);
    CHECK(v.v.d == 18446744073709551616.0);
    CHECK(v.text.len == 20 && !memcmp(v.text.ptr, "18446744073709551616", 20));
    CHECK(tread_args_find(&a, "neg", 3, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_DOUBLE);
    CHECK(v.v.d == -9223372036854775809.0);
    CHECK(tread_args_find(&a, "d", 1, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_DOUBLE);
    CHECK(v.v.d == 0.0);
    CHECK(tread_args_find(&a, "e", 1, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_DOUBLE);
    CHECK(v.v.d == 100.0);
    CHECK(v.text.len == 3 && !memcmp(v.text.ptr, "1E2", 3));
    CHECK(tread_args_find(&a, "huge", 4, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_DOUBLE);
    CHECK(isinf(v.v.d) && v.v.d > 0);
    CHECK(tread_args_find(&a, "s", 1, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_STRING);
    CHECK(v.v.s.len == 3 && !memcmp(v.v.s.ptr, "x\ty", 3));
    CHECK(tread_args_find(&a, "t", 1, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_BOOL);
    CHECK_EQ_INT(v.v.b, 1);
    CHECK(tread_args_find(&a, "f", 1, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_BOOL);
    CHECK_EQ_INT(v.v.b, 0);
    CHECK(tread_args_find(&a, "n", 1, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_NULL);
}

/* Depth keeps counting past 64 levels (array_bits tracks 64). */
static void test_deep_nesting(void)
{
    enum { LEVELS = 70 };
    static char doc[512];
    size_t n = (size_t)snprintf(doc, sizeof doc, "[{\"ph\":\"X\",\"args\":{\"a\":");
    for (int i = 0; i < LEVELS; i++)
        doc[n++] = '[';
    doc[n++] = '1';
    for (int i = 0; i < LEVELS; i++)
        doc[n++] = ']';
    snprintf(doc + n, sizeof doc - n, ",\"after\":{\"k\":2}}}]");
    tread_args a = args_from(doc);
    tread_args_iter it;
    tread_arg v;
    tread_args_iter_init(&it, &a);
    int ok = 1;
    for (int i = 0; i < LEVELS; i++) {
        ok &= tread_args_next(&it, &v) && v.type == TREAD_ARG_ARRAY_BEGIN && v.depth == i &&
              key_is(&v, i == 0 ? "a" : NULL);
    }
    ok &= tread_args_next(&it, &v) && v.type == TREAD_ARG_INT && v.depth == LEVELS && v.v.i == 1;
    for (int i = LEVELS - 1; i >= 0; i--)
        ok &= tread_args_next(&it, &v) && v.type == TREAD_ARG_ARRAY_END && v.depth == i &&
              v.key.ptr == NULL;
    CHECK(ok);
    CHECK(tread_args_next(&it, &v));
    CHECK_EQ_INT(v.depth, 0);
    CHECK(key_is(&v, "after"));
    CHECK(tread_args_next(&it, &v));
    CHECK_EQ_INT(v.depth, 1);
    CHECK(key_is(&v, "k"));
    char path[256];
    size_t k = (size_t)snprintf(path, sizeof path, "a");
    for (int i = 0; i < LEVELS - 1; i++)
        k += (size_t)snprintf(path + k, sizeof path - k, ".0");
    k += (size_t)snprintf(path + k, sizeof path - k, ".0");
    CHECK(tread_args_find(&a, path, k, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_INT);
    CHECK_EQ_INT(v.depth, LEVELS);
}

static void test_empty(void)
{
    tread_args_iter it;
    tread_arg v;
    tread_args none = {.data = NULL};
    tread_args_iter_init(&it, &none);
    CHECK(!tread_args_next(&it, &v));
    tread_args_iter_init(&it, NULL);
    CHECK(!tread_args_next(&it, &v));
    tread_args a = args_from("[{\"ph\":\"X\",\"args\":{}}]");
    tread_args_iter_init(&it, &a);
    CHECK(!tread_args_next(&it, &v));
    a = args_from("[{\"ph\":\"X\"}]");
    tread_args_iter_init(&it, &a);
    CHECK(!tread_args_next(&it, &v));
}

static void test_type_names(void)
{
    static const struct {
        tread_arg_type t;
        const char *name;
    } names[] = {
        {TREAD_ARG_NULL, "null"},           {TREAD_ARG_BOOL, "bool"},
        {TREAD_ARG_INT, "int"},             {TREAD_ARG_UINT, "uint"},
        {TREAD_ARG_DOUBLE, "double"},       {TREAD_ARG_STRING, "string"},
        {TREAD_ARG_POINTER, "pointer"},     {TREAD_ARG_KOID, "koid"},
        {TREAD_ARG_BYTES, "bytes"},         {TREAD_ARG_DICT_BEGIN, "dict_begin"},
        {TREAD_ARG_DICT_END, "dict_end"},   {TREAD_ARG_ARRAY_BEGIN, "array_begin"},
        {TREAD_ARG_ARRAY_END, "array_end"},
    };
    CHECK_EQ_INT(sizeof names / sizeof names[0], TREAD_ARG_ARRAY_END + 1);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        CHECK_EQ_STR(tread_arg_type_name(names[i].t), names[i].name);
    /* every name is distinct */
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        for (size_t j = i + 1; j < sizeof names / sizeof names[0]; j++)
            CHECK(strcmp(tread_arg_type_name(names[i].t), tread_arg_type_name(names[j].t)) != 0);
    /* out of range: a string, never NULL */
    const char *s = tread_arg_type_name((tread_arg_type)(TREAD_ARG_ARRAY_END + 1));
    CHECK(s != NULL && s[0] != 0);
    s = tread_arg_type_name((tread_arg_type)1000);
    CHECK(s != NULL && s[0] != 0);
    s = tread_arg_type_name((tread_arg_type)-1);
    CHECK(s != NULL && s[0] != 0);
}

int main(void)
{
    test_iterate();
    test_skip();
    test_find();
    test_types();
    test_deep_nesting();
    test_empty();
    test_type_names();
    return TEST_EXIT();
}
