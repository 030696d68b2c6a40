/* The Perfetto lazy args codec (lib/perfetto/pf_args.c), through the public
 * iterator: TrackEvent bytes built with pb_build, a fake interning table
 * as the pf_args_ctx, and the args read back as a compact text dump:
 *
 *   key=value, space separated; { } dicts, [ ] arrays; values: null, true,
 *   false, i<int>, u<uint>, d<double %g>, "string", p<hex pointer>,
 *   b<len>:<hex bytes> (bytes), and " !FAIL" when the iteration failed.
 *
 * The expected dumps are written from pf_args.h (what the codec promises)
 * and the TrackEvent / DebugAnnotation messages of the Perfetto reference.
 * Every iteration runs on an exactly sized heap copy of the bytes, so ASan
 * catches a read past the end. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tread.h>

#include "perfetto/pf_args.h"
#include "pb_build.h"
#include "testlib.h"

/* ------------------------------------------------------------------------ */
/* The fake interning table                                                 */

#define MAX_INTERNED 32

typedef struct interned {
    uint32_t field;
    uint64_t iid;
    pb msg;
} interned;

static interned table[MAX_INTERNED];
static size_t n_table;

static int fake_lookup(const void *seq, uint32_t field, uint64_t iid, const unsigned char **msg,
                       size_t *len)
{
    CHECK(seq == (const void *)table);
    for (size_t i = 0; i < n_table; i++) {
        if (table[i].field == field && table[i].iid == iid) {
            *msg = table[i].msg.data;
            *len = table[i].msg.len;
            return 1;
        }
    }
    return 0;
}

static const pf_args_ctx fake_ctx = {fake_lookup, table};

/* An interned message {iid = 1, <num> = s}: the shape of DebugAnnotationName,
 * InternedString, LogMessageBody and DebugAnnotationValueTypeName. */
static void intern_str(uint32_t field, uint64_t iid, uint32_t num, const char *s)
{
    if (n_table == MAX_INTERNED)
        abort();
    interned *e = &table[n_table++];
    e->field = field;
    e->iid = iid;
    pb_init(&e->msg);
    pb_varint(&e->msg, 1, iid);
    pb_string(&e->msg, num, s);
}

static void intern_raw(uint32_t field, uint64_t iid, const pb *m)
{
    if (n_table == MAX_INTERNED)
        abort();
    interned *e = &table[n_table++];
    e->field = field;
    e->iid = iid;
    pb_init(&e->msg);
    pb_raw(&e->msg, m->data, m->len);
}

static void table_free(void)
{
    for (size_t i = 0; i < n_table; i++)
        pb_free(&table[i].msg);
    n_table = 0;
}

/* ------------------------------------------------------------------------ */
/* Dumping                                                                  */

typedef struct dump {
    char s[8192];
    size_t n;
} dump;

static void put(dump *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(dump *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(d->s + d->n, sizeof d->s - d->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        d->n += (size_t)k < sizeof d->s - d->n ? (size_t)k : sizeof d->s - d->n - 1;
}

static void put_value(dump *d, const tread_arg *a)
{
    switch (a->type) {
    case TREAD_ARG_NULL: put(d, "null"); break;
    case TREAD_ARG_BOOL: put(d, a->v.b ? "true" : "false"); break;
    case TREAD_ARG_INT: put(d, "i%" PRId64, a->v.i); break;
    case TREAD_ARG_UINT: put(d, "u%" PRIu64, a->v.u); break;
    case TREAD_ARG_DOUBLE: put(d, "d%g", a->v.d); break;
    case TREAD_ARG_STRING: put(d, "\"%.*s\"", (int)a->v.s.len, a->v.s.ptr); break;
    case TREAD_ARG_POINTER: put(d, "p%" PRIx64, a->v.u); break;
    case TREAD_ARG_BYTES:
        put(d, "b%zu:", a->v.s.len);
        for (size_t i = 0; i < a->v.s.len && i < 16; i++)
            put(d, "%02x", (unsigned char)a->v.s.ptr[i]);
        break;
    case TREAD_ARG_DICT_BEGIN: put(d, "{"); break;
    case TREAD_ARG_DICT_END: put(d, "}"); break;
    case TREAD_ARG_ARRAY_BEGIN: put(d, "["); break;
    case TREAD_ARG_ARRAY_END: put(d, "]"); break;
    default: put(d, "?%d", (int)a->type); break;
    }
}

static tread_args args_of(const unsigned char *data, size_t len)
{
    tread_args a = {data, len, TREAD_ARGS_PERFETTO, &fake_ctx};
    return a;
}

/* An exactly sized heap copy (a read past the end is an ASan error). */
static unsigned char *copy_exact(const pb *b)
{
    unsigned char *c = malloc(b->len ? b->len : 1);
    if (!c)
        abort();
    if (b->len)
        memcpy(c, b->data, b->len);
    return c;
}

/* Iterates; skip_depth >= 0 skips every container opened at that depth.
 * Checks what every iteration must hold: depths, keys NULL in arrays and
 * on *_END, balanced containers. */
static void dump_args(const pb *ev, int skip_depth, dump *d)
{
    unsigned char *c = copy_exact(ev);
    tread_args a = args_of(c, ev->len);
    tread_args_iter it;
    tread_arg v;
    int open = 0;
    char kinds[64];
    d->n = 0;
    d->s[0] = 0;
    tread_args_iter_init(&it, &a);
    while (tread_args_next(&it, &v)) {
        int is_end = v.type == TREAD_ARG_DICT_END || v.type == TREAD_ARG_ARRAY_END;
        if (is_end) {
            CHECK(open > 0);
            if (open > 0) {
                open--;
                CHECK(kinds[open] == (v.type == TREAD_ARG_DICT_END ? 'd' : 'a'));
            }
        }
        CHECK_EQ_INT(v.depth, open);
        int in_array = open > 0 && kinds[open - 1] == 'a';
        if (is_end || in_array)
            CHECK(v.key.ptr == NULL);
        else
            CHECK(v.key.ptr != NULL);
        if (d->n)
            put(d, " ");
        if (v.key.ptr)
            put(d, "%.*s=", (int)v.key.len, v.key.ptr);
        put_value(d, &v);
        if (v.type == TREAD_ARG_DICT_BEGIN || v.type == TREAD_ARG_ARRAY_BEGIN) {
            if (v.depth == skip_depth) {
                tread_args_skip(&it);
                put(d, "..");
            } else if (open < 64) {
                kinds[open++] = v.type == TREAD_ARG_DICT_BEGIN ? 'd' : 'a';
            }
        }
    }
    CHECK_EQ_INT(open, 0);
    /* the end stays the end */
    CHECK(!tread_args_next(&it, &v));
    if (tread_args_iter_failed(&it))
        put(d, " !FAIL");
    free(c);
}

static void expect_skip(const pb *ev, int skip_depth, const char *want, int line)
{
    dump d;
    dump_args(ev, skip_depth, &d);
    test_checks++;
    if (strcmp(d.s, want) != 0) {
        test_failures++;
        fprintf(stderr, "line %d:\n  got  %s\n  want %s\n", line, d.s, want);
    }
}

#define EXPECT(ev, want) expect_skip(ev, -1, want, __LINE__)
#define EXPECT_SKIP(ev, depth, want) expect_skip(ev, depth, want, __LINE__)

/* ------------------------------------------------------------------------ */
/* Message builders                                                         */

/* TrackEvent, DebugAnnotation, NestedValue field numbers (perfetto_fields.tsv) */
enum {
    TE_DEBUG_ANNOTATIONS = 4, TE_TASK_EXECUTION = 5, TE_TYPE = 9, TE_LOG_MESSAGE = 21,
    TE_NAME = 23, TE_CHROME_USER_EVENT = 25, TE_SOURCE_LOCATION = 33,
    TE_SOURCE_LOCATION_IID = 34, TE_CORRELATION_ID = 52, TE_CALLSTACK = 55,
    TE_CALLSTACK_IID = 56, TE_CALLSTACK_WEIGHT = 57, TE_CHROME_APP_STATE = 1000,
    TE_BINDER_SERVICE_NAME = 2001,
    DA_NAME_IID = 1, DA_BOOL = 2, DA_UINT = 3, DA_INT = 4, DA_DOUBLE = 5, DA_STRING = 6,
    DA_POINTER = 7, DA_NESTED = 8, DA_LEGACY_JSON = 9, DA_NAME = 10, DA_DICT = 11,
    DA_ARRAY = 12, DA_PROTO_TYPE_NAME_IID = 13, DA_PROTO_VALUE = 14, DA_PROTO_TYPE_NAME = 16,
    DA_STRING_IID = 17,
    NV_TYPE = 1, NV_KEYS = 2, NV_VALUES = 3, NV_ARRAY = 4, NV_INT = 5, NV_DOUBLE = 6,
    NV_BOOL = 7, NV_STRING = 8,
    IN_NAMES = 3, IN_SOURCE_LOCATIONS = 4, IN_LOG_BODY = 20, IN_TYPE_NAMES = 27,
    IN_STRINGS = 29
};

/* One debug annotation {name: n, <field>: varint v} at the top. */
static void ann_varint(pb *ev, const char *n, uint32_t field, uint64_t v)
{
    size_t m = pb_begin(ev, TE_DEBUG_ANNOTATIONS);
    pb_string(ev, DA_NAME, n);
    pb_varint(ev, field, v);
    pb_end(ev, m);
}

static void ann_string(pb *ev, const char *n, uint32_t field, const char *s)
{
    size_t m = pb_begin(ev, TE_DEBUG_ANNOTATIONS);
    pb_string(ev, DA_NAME, n);
    pb_string(ev, field, s);
    pb_end(ev, m);
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                    */

static void test_scalars(void)
{
    pb ev;
    pb_init(&ev);
    pb_varint(&ev, TE_TYPE, 1); /* event fields are not args */
    pb_string(&ev, TE_NAME, "slice");
    ann_varint(&ev, "b", DA_BOOL, 1);
    ann_varint(&ev, "f", DA_BOOL, 0);
    ann_varint(&ev, "u", DA_UINT, 42);
    ann_varint(&ev, "big", DA_UINT, UINT64_MAX);
    ann_varint(&ev, "i", DA_INT, (uint64_t)(int64_t)-5);
    size_t m = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "d");
    pb_double(&ev, DA_DOUBLE, 2.5);
    pb_end(&ev, m);
    ann_string(&ev, "s", DA_STRING, "hello");
    ann_varint(&ev, "p", DA_POINTER, 0xdeadbeef);
    ann_string(&ev, "j", DA_LEGACY_JSON, "{\"a\":1}");
    ann_varint(&ev, "sv", DA_STRING_IID, 5);
    ann_varint(&ev, "sv_unknown", DA_STRING_IID, 6);
    /* no value at all */
    m = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "none");
    pb_end(&ev, m);
    /* the oneof: the last value on the wire wins */
    m = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "last");
    pb_varint(&ev, DA_INT, 1);
    pb_string(&ev, DA_STRING, "won");
    pb_end(&ev, m);
    intern_str(IN_STRINGS, 5, 2, "interned value");
    EXPECT(&ev, "b=true f=false u=i42 big=u18446744073709551615 i=i-5 d=d2.5 s=\"hello\" "
                "p=pdeadbeef j=\"{\"a\":1}\" sv=\"interned value\" sv_unknown=null none=null "
                "last=\"won\"");
    table_free();
    pb_free(&ev);
}

static void test_names(void)
{
    pb ev;
    pb_init(&ev);
    size_t m = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_varint(&ev, DA_NAME_IID, 1);
    pb_varint(&ev, DA_INT, 1);
    pb_end(&ev, m);
    m = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_varint(&ev, DA_NAME_IID, 7); /* unknown */
    pb_varint(&ev, DA_INT, 2);
    pb_end(&ev, m);
    m = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_varint(&ev, DA_NAME_IID, UINT64_MAX); /* unknown, the longest key */
    pb_varint(&ev, DA_INT, 3);
    pb_end(&ev, m);
    m = pb_begin(&ev, TE_DEBUG_ANNOTATIONS); /* no name */
    pb_varint(&ev, DA_INT, 4);
    pb_end(&ev, m);
    m = pb_begin(&ev, TE_DEBUG_ANNOTATIONS); /* name_iid whose message has no name */
    pb_varint(&ev, DA_NAME_IID, 2);
    pb_varint(&ev, DA_INT, 5);
    pb_end(&ev, m);
    intern_str(IN_NAMES, 1, 2, "interned_name");
    pb empty;
    pb_init(&empty);
    pb_varint(&empty, 1, 2);
    intern_raw(IN_NAMES, 2, &empty);
    pb_free(&empty);
    EXPECT(&ev, "interned_name=i1 <unknown iid>=i2 <unknown iid>=i3 =i4 =i5");

    /* the first of the unknown names wins; keys outlive the iterator */
    tread_args a = args_of(ev.data, ev.len);
    tread_arg v;
    CHECK(tread_args_find(&a, "<unknown iid>", 13, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_INT);
    CHECK_EQ_INT(v.v.i, 2);
    CHECK(v.key.len == 13 && memcmp(v.key.ptr, "<unknown iid>", 13) == 0);
    tread_args_iter it;
    tread_arg first;
    tread_args_iter_init(&it, &a);
    CHECK(tread_args_next(&it, &first));
    CHECK(tread_args_next(&it, &first));
    CHECK(tread_args_next(&it, &v));
    CHECK(first.key.len == 13 && memcmp(first.key.ptr, "<unknown iid>", 13) == 0);
    CHECK(tread_args_find(&a, "interned_name", 13, &v));
    CHECK_EQ_INT(v.v.i, 1);

    /* no ctx at all: every iid is unknown */
    a.ctx = NULL;
    tread_args_iter_init(&it, &a);
    CHECK(tread_args_next(&it, &v));
    CHECK(v.key.len == 13 && memcmp(v.key.ptr, "<unknown iid>", 13) == 0);
    table_free();
    pb_free(&ev);
}

/* A NestedValue scalar. */
static void nv_int(pb *b, uint32_t field, int64_t v)
{
    size_t m = pb_begin(b, field);
    pb_varint(b, NV_INT, (uint64_t)v);
    pb_end(b, m);
}

static void test_nested_value(void)
{
    pb ev;
    pb_init(&ev);
    size_t a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "nv");
    size_t n0 = pb_begin(&ev, DA_NESTED);
    pb_varint(&ev, NV_TYPE, 1); /* DICT, keys interleaved as Perfetto writes */
    pb_string(&ev, NV_KEYS, "i");
    nv_int(&ev, NV_VALUES, -3);
    pb_string(&ev, NV_KEYS, "d");
    size_t v = pb_begin(&ev, NV_VALUES);
    pb_double(&ev, NV_DOUBLE, 0.5);
    pb_end(&ev, v);
    pb_string(&ev, NV_KEYS, "b");
    v = pb_begin(&ev, NV_VALUES);
    pb_varint(&ev, NV_BOOL, 1);
    pb_varint(&ev, NV_INT, 9); /* bool is preferred */
    pb_end(&ev, v);
    pb_string(&ev, NV_KEYS, "s");
    v = pb_begin(&ev, NV_VALUES);
    pb_string(&ev, NV_STRING, "str");
    pb_end(&ev, v);
    pb_string(&ev, NV_KEYS, "n");
    v = pb_begin(&ev, NV_VALUES); /* nothing: null */
    pb_end(&ev, v);
    pb_string(&ev, NV_KEYS, "arr");
    size_t n1 = pb_begin(&ev, NV_VALUES);
    pb_varint(&ev, NV_TYPE, 2); /* ARRAY */
    nv_int(&ev, NV_ARRAY, 1);
    size_t n2 = pb_begin(&ev, NV_ARRAY);
    pb_varint(&ev, NV_TYPE, 1);
    pb_string(&ev, NV_KEYS, "deep");
    size_t n3 = pb_begin(&ev, NV_VALUES);
    pb_varint(&ev, NV_TYPE, 2);
    nv_int(&ev, NV_ARRAY, 7);
    nv_int(&ev, NV_ARRAY, 8);
    pb_end(&ev, n3);
    pb_end(&ev, n2);
    nv_int(&ev, NV_ARRAY, 3);
    pb_end(&ev, n1);
    pb_string(&ev, NV_KEYS, "extra key"); /* no value: dropped */
    pb_end(&ev, n0);
    pb_string(&ev, DA_NAME, "nv"); /* fields after the nested value */
    pb_end(&ev, a);
    ann_varint(&ev, "after", DA_INT, 1);
    /* a scalar NestedValue */
    a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "leaf");
    nv_int(&ev, DA_NESTED, 11);
    pb_end(&ev, a);
    const char *want = "nv={ i=i-3 d=d0.5 b=true s=\"str\" n=null arr=[ i1 { deep=[ i7 i8 ] } i3 ] } "
                       "after=i1 leaf=i11";
    EXPECT(&ev, want);
    EXPECT_SKIP(&ev, 0, "nv={.. after=i1 leaf=i11");
    EXPECT_SKIP(&ev, 1, "nv={ i=i-3 d=d0.5 b=true s=\"str\" n=null arr=[.. } after=i1 leaf=i11");
    EXPECT_SKIP(&ev, 2, "nv={ i=i-3 d=d0.5 b=true s=\"str\" n=null arr=[ i1 {.. i3 ] } after=i1 "
                        "leaf=i11");
    EXPECT_SKIP(&ev, 3, "nv={ i=i-3 d=d0.5 b=true s=\"str\" n=null arr=[ i1 { deep=[.. } i3 ] } "
                        "after=i1 leaf=i11");

    tread_args args = args_of(ev.data, ev.len);
    tread_arg out;
    CHECK(tread_args_find(&args, "nv.arr.1.deep.1", 15, &out));
    CHECK_EQ_INT(out.type, TREAD_ARG_INT);
    CHECK_EQ_INT(out.v.i, 8);
    CHECK(tread_args_find(&args, "nv.s", 4, &out));
    CHECK_EQ_INT(out.type, TREAD_ARG_STRING);
    CHECK(tread_args_find(&args, "nv.arr", 6, &out));
    CHECK_EQ_INT(out.type, TREAD_ARG_ARRAY_BEGIN);
    CHECK(tread_args_find(&args, "after", 5, &out));
    CHECK_EQ_INT(out.v.i, 1);
    CHECK(!tread_args_find(&args, "nv.arr.4", 8, &out));
    CHECK(!tread_args_find(&args, "nv.extra key", 12, &out));
    CHECK(!tread_args_find(&args, "nv.i.x", 6, &out));
    pb_free(&ev);
}

/* NestedValue dicts whose keys are not interleaved with the values. */
static void test_nested_split(void)
{
    pb ev;
    pb_init(&ev);
    size_t a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "split");
    size_t n0 = pb_begin(&ev, DA_NESTED);
    pb_string(&ev, NV_KEYS, "k1");
    pb_string(&ev, NV_KEYS, "k2");
    pb_string(&ev, NV_KEYS, "k3");
    pb_varint(&ev, NV_TYPE, 1);
    nv_int(&ev, NV_VALUES, 1);
    size_t n1 = pb_begin(&ev, NV_VALUES);
    pb_varint(&ev, NV_TYPE, 1);
    size_t v = pb_begin(&ev, NV_VALUES); /* value before its key */
    pb_varint(&ev, NV_TYPE, 2);
    nv_int(&ev, NV_ARRAY, 5);
    pb_end(&ev, v);
    pb_string(&ev, NV_KEYS, "inner");
    nv_int(&ev, NV_VALUES, 6); /* no key: dropped */
    pb_end(&ev, n1);
    nv_int(&ev, NV_VALUES, 3);
    nv_int(&ev, NV_VALUES, 4); /* no key: dropped */
    pb_end(&ev, n0);
    pb_end(&ev, a);
    ann_varint(&ev, "z", DA_INT, 0);
    EXPECT(&ev, "split={ k1=i1 k2={ inner=[ i5 ] } k3=i3 } z=i0");
    EXPECT_SKIP(&ev, 1, "split={ k1=i1 k2={.. k3=i3 } z=i0");
    EXPECT_SKIP(&ev, 2, "split={ k1=i1 k2={ inner=[.. } k3=i3 } z=i0");
    tread_args args = args_of(ev.data, ev.len);
    tread_arg out;
    CHECK(tread_args_find(&args, "split.k2.inner.0", 16, &out));
    CHECK_EQ_INT(out.v.i, 5);
    CHECK(tread_args_find(&args, "split.k3", 8, &out));
    CHECK_EQ_INT(out.v.i, 3);
    pb_free(&ev);
}

static void test_dict_array_entries(void)
{
    pb ev;
    pb_init(&ev);
    size_t a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "a");
    size_t b = pb_begin(&ev, DA_DICT);
    pb_string(&ev, DA_NAME, "b");
    size_t c = pb_begin(&ev, DA_ARRAY);
    pb_string(&ev, DA_NAME, "ignored in arrays");
    pb_varint(&ev, DA_INT, 10);
    pb_end(&ev, c);
    c = pb_begin(&ev, DA_ARRAY);
    pb_string(&ev, DA_STRING, "x");
    pb_end(&ev, c);
    c = pb_begin(&ev, DA_ARRAY);
    size_t d = pb_begin(&ev, DA_DICT);
    pb_varint(&ev, DA_NAME_IID, 1);
    pb_varint(&ev, DA_BOOL, 1);
    pb_end(&ev, d);
    pb_end(&ev, c);
    pb_end(&ev, b);
    b = pb_begin(&ev, DA_DICT);
    pb_string(&ev, DA_NAME, "c");
    pb_varint(&ev, DA_UINT, 3);
    pb_end(&ev, b);
    pb_end(&ev, a);
    /* an empty array */
    a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "e");
    b = pb_begin(&ev, DA_ARRAY);
    pb_end(&ev, b);
    pb_end(&ev, a);
    intern_str(IN_NAMES, 1, 2, "named");
    EXPECT(&ev, "a={ b=[ i10 \"x\" { named=true } ] c=i3 } e=[ null ]");
    EXPECT_SKIP(&ev, 0, "a={.. e=[..");
    EXPECT_SKIP(&ev, 1, "a={ b=[.. c=i3 } e=[ null ]");
    EXPECT_SKIP(&ev, 2, "a={ b=[ i10 \"x\" {.. ] c=i3 } e=[ null ]");
    tread_args args = args_of(ev.data, ev.len);
    tread_arg out;
    CHECK(tread_args_find(&args, "a.b.2", 5, &out));
    CHECK_EQ_INT(out.type, TREAD_ARG_DICT_BEGIN);
    CHECK(out.key.ptr == NULL);
    CHECK(tread_args_find(&args, "a.b.2.named", 11, &out));
    CHECK_EQ_INT(out.type, TREAD_ARG_BOOL);
    CHECK(tread_args_find(&args, "a.b.1", 5, &out));
    CHECK_EQ_INT(out.type, TREAD_ARG_STRING);
    CHECK(tread_args_find(&args, "a.c", 3, &out));
    CHECK_EQ_INT(out.v.i, 3);
    CHECK(!tread_args_find(&args, "a.b.3", 5, &out));
    CHECK(!tread_args_find(&args, "a.x", 3, &out));
    table_free();
    pb_free(&ev);
}

static void test_proto_value(void)
{
    pb ev;
    pb_init(&ev);
    static const unsigned char msg[] = {0x08, 0x96, 0x01};
    size_t a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_bytes(&ev, DA_PROTO_VALUE, msg, sizeof msg);
    pb_string(&ev, DA_NAME, "pv");
    pb_string(&ev, DA_PROTO_TYPE_NAME, ".perfetto.protos.Foo");
    pb_end(&ev, a);
    a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "pi");
    pb_varint(&ev, DA_PROTO_TYPE_NAME_IID, 3);
    pb_bytes(&ev, DA_PROTO_VALUE, msg, 1);
    pb_end(&ev, a);
    a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "pu");
    pb_varint(&ev, DA_PROTO_TYPE_NAME_IID, 4); /* unknown */
    pb_bytes(&ev, DA_PROTO_VALUE, msg, 2);
    pb_end(&ev, a);
    a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "pn"); /* no type */
    pb_bytes(&ev, DA_PROTO_VALUE, msg, 0);
    pb_end(&ev, a);
    intern_str(IN_TYPE_NAMES, 3, 2, "Bar");
    EXPECT(&ev, "pv={ type=\".perfetto.protos.Foo\" value=b3:089601 } pi={ type=\"Bar\" "
                "value=b1:08 } pu={ type=null value=b2:0896 } pn={ value=b0: }");
    EXPECT_SKIP(&ev, 0, "pv={.. pi={.. pu={.. pn={..");
    tread_args args = args_of(ev.data, ev.len);
    tread_arg out;
    CHECK(tread_args_find(&args, "pi.type", 7, &out));
    CHECK(out.type == TREAD_ARG_STRING && out.v.s.len == 3 && memcmp(out.v.s.ptr, "Bar", 3) == 0);
    CHECK(tread_args_find(&args, "pv.value", 8, &out));
    CHECK_EQ_INT(out.type, TREAD_ARG_BYTES);
    CHECK_EQ_INT(out.v.s.len, 3);
    table_free();
    pb_free(&ev);

    /* a type the schema has: the value as a dict of its fields, whether
     * the type comes before or after it, by name or interned; a value
     * that does not decode fails, balanced */
    static const unsigned char ue[] = {0x0a, 0x01, 0x41, 0x10, 0x05}; /* action "A", hash 5 */
    pb_init(&ev);
    a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "k1");
    pb_bytes(&ev, DA_PROTO_VALUE, ue, sizeof ue);
    pb_string(&ev, DA_PROTO_TYPE_NAME, ".perfetto.protos.ChromeUserEvent");
    pb_end(&ev, a);
    a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "k2");
    pb_varint(&ev, DA_PROTO_TYPE_NAME_IID, 6);
    pb_bytes(&ev, DA_PROTO_VALUE, ue, 3);
    pb_end(&ev, a);
    a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "k3");

    pb_end(&ev, a);
    intern_str(IN_TYPE_NAMES, 6, 2, "perfetto.protos.ChromeUserEvent");
    EXPECT(&ev, "k1={ type=\".perfetto.protos.ChromeUserEvent\" value={ action=\"A\" "
                "action_hash=i5 } } k2={ type=\"perfetto.protos.ChromeUserEvent\" "
                "value={ action=\"A\" } } k3=null");
    EXPECT_SKIP(&ev, 1, "k1={ type=\".perfetto.protos.ChromeUserEvent\" value={.. } "
                        "k2={ type=\"perfetto.protos.ChromeUserEvent\" value={.. } k3=null");
    args = args_of(ev.data, ev.len);
    CHECK(tread_args_find(&args, "k1.value.action_hash", 20, &out) && out.v.i == 5);
    pb_free(&ev);
    pb_init(&ev);
    a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "bad");
    pb_string(&ev, DA_PROTO_TYPE_NAME, ".perfetto.protos.ChromeUserEvent");
    pb_bytes(&ev, DA_PROTO_VALUE, ue, 4); /* cut in hash's tag's value */
    pb_end(&ev, a);
    EXPECT(&ev, "bad={ type=\".perfetto.protos.ChromeUserEvent\" value={ action=\"A\" } } !FAIL");
    table_free();
    pb_free(&ev);
}

static void srcloc(pb *b, uint32_t field, const char *file, const char *fn, uint32_t line)
{
    size_t m = pb_begin(b, field);
    pb_string(b, 2, file);
    pb_string(b, 3, fn);
    pb_varint(b, 4, line);
    pb_end(b, m);
}

static void test_typed_fields(void)
{
    pb ev, loc;
    pb_init(&ev);
    pb_init(&loc);
    srcloc(&ev, TE_SOURCE_LOCATION, "a.cc", "f", 12);
    pb_varint(&ev, TE_SOURCE_LOCATION_IID, 1);
    pb_varint(&ev, TE_SOURCE_LOCATION_IID, 99); /* unknown */
    size_t m = pb_begin(&ev, TE_LOG_MESSAGE);
    pb_varint(&ev, 1, 1);
    pb_varint(&ev, 2, 8);
    pb_varint(&ev, 3, 4);
    pb_end(&ev, m);
    m = pb_begin(&ev, TE_LOG_MESSAGE);
    pb_varint(&ev, 2, 9); /* unknown body */
    pb_end(&ev, m);
    m = pb_begin(&ev, TE_TASK_EXECUTION);
    pb_varint(&ev, 1, 1);
    pb_end(&ev, m);
    m = pb_begin(&ev, TE_CALLSTACK);
    size_t f = pb_begin(&ev, 1);
    pb_string(&ev, 1, "main");
    pb_string(&ev, 2, "main.c");
    pb_varint(&ev, 3, 3);
    pb_end(&ev, f);
    f = pb_begin(&ev, 1);
    pb_string(&ev, 1, "start");
    pb_end(&ev, f);
    pb_end(&ev, m);
    pb_varint(&ev, TE_CALLSTACK_IID, 5);
    pb_double(&ev, TE_CALLSTACK_WEIGHT, 1.5);
    pb_varint(&ev, TE_CORRELATION_ID, 77); /* an event field: not an arg */
    static const unsigned char ue[] = {0x0a, 0x01, 0x41};
    pb_bytes(&ev, TE_CHROME_USER_EVENT, ue, sizeof ue);
    pb_varint(&ev, TE_CHROME_APP_STATE, 2);
    pb_string(&ev, TE_BINDER_SERVICE_NAME, "svc");
    pb_varint(&ev, 8888, 1); /* a field Perfetto does not define */

    pb_varint(&loc, 1, 1);
    pb_string(&loc, 2, "b.cc");
    pb_string(&loc, 3, "g");
    pb_varint(&loc, 4, 7);
    intern_raw(IN_SOURCE_LOCATIONS, 1, &loc);
    intern_str(IN_LOG_BODY, 8, 2, "log line");
    const char *want =
        "source_location={ file_name=\"a.cc\" function_name=\"f\" line_number=i12 } "
        "source_location={ file_name=\"b.cc\" function_name=\"g\" line_number=i7 } "
        "source_location=null "
        "log_message={ source_location={ file_name=\"b.cc\" function_name=\"g\" line_number=i7 } "
        "body=\"log line\" prio=i4 } log_message={ body=null } "
        "task_execution={ posted_from={ file_name=\"b.cc\" function_name=\"g\" line_number=i7 } } "
        "callstack=[ { function_name=\"main\" source_file=\"main.c\" line_number=i3 } "
        "{ function_name=\"start\" } ] callstack_weight=d1.5 "
        "chrome_user_event={ action=\"A\" } chrome_app_state=\"APP_STATE_BACKGROUND\" "
        "binder_service_name=\"svc\"";
    EXPECT(&ev, want);
    EXPECT_SKIP(&ev, 0, "source_location={.. source_location={.. source_location=null "
                        "log_message={.. log_message={.. task_execution={.. callstack=[.. "
                        "callstack_weight=d1.5 chrome_user_event={.. "
                        "chrome_app_state=\"APP_STATE_BACKGROUND\" binder_service_name=\"svc\"");
    EXPECT_SKIP(&ev, 1, "source_location={ file_name=\"a.cc\" function_name=\"f\" line_number=i12 } "
                        "source_location={ file_name=\"b.cc\" function_name=\"g\" line_number=i7 } "
                        "source_location=null log_message={ source_location={.. body=\"log line\" "
                        "prio=i4 } log_message={ body=null } task_execution={ posted_from={.. } "
                        "callstack=[ {.. {.. ] callstack_weight=d1.5 "
                        "chrome_user_event={ action=\"A\" } "
                        "chrome_app_state=\"APP_STATE_BACKGROUND\" binder_service_name=\"svc\"");
    tread_args args = args_of(ev.data, ev.len);
    tread_arg out;
    CHECK(tread_args_find(&args, "log_message.source_location.line_number", 39, &out));
    CHECK_EQ_INT(out.v.i, 7);
    CHECK(tread_args_find(&args, "callstack.1.function_name", 25, &out));
    CHECK(out.type == TREAD_ARG_STRING && out.v.s.len == 5);
    CHECK(tread_args_find(&args, "task_execution.posted_from.file_name", 36, &out));
    CHECK(!tread_args_find(&args, "correlation_id", 14, &out));
    table_free();
    pb_free(&loc);
    pb_free(&ev);
}

/* Typed payloads (Chrome's, the test extensions) read through the schema:
 * messages as dicts of their fields by name, enums by name, repeated
 * fields as one array per run (packed too), fields the schema does not
 * know left out; skipping; damage and depth inside a payload. */
static void test_typed_schema(void)
{
    pb ev;
    pb_init(&ev);
    size_t m = pb_begin(&ev, TE_CHROME_USER_EVENT);
    pb_string(&ev, 1, "A");
    pb_varint(&ev, 2, 5);
    pb_varint(&ev, 7, 9); /* not in the schema: left out */
    pb_end(&ev, m);
    pb_varint(&ev, 9901, 1); /* int_extension_for_testing, repeated int32 */
    pb_varint(&ev, 9901, 2);
    pb_string(&ev, TE_NAME, "x"); /* an event field: not an arg */
    pb_tag(&ev, 9901, 2);         /* the same, packed */
    pb_varint_raw(&ev, 2);
    pb_raw(&ev, "\x03\x04", 2);
    m = pb_begin(&ev, 9903);      /* TestExtensionChild */
    pb_string(&ev, 1, "c");
    size_t a = pb_begin(&ev, 99); /* debug_annotations, read as messages */
    pb_string(&ev, DA_NAME, "k");
    pb_string(&ev, DA_STRING, "v");
    pb_end(&ev, a);
    a = pb_begin(&ev, 99);
    pb_string(&ev, DA_NAME, "k2");
    pb_varint(&ev, DA_INT, (uint64_t)-1);
    pb_end(&ev, a);
    pb_end(&ev, m);
    pb_varint(&ev, TE_CHROME_APP_STATE, 2);
    EXPECT(&ev, "chrome_user_event={ action=\"A\" action_hash=i5 } "
                "int_extension_for_testing=[ i1 i2 ] int_extension_for_testing=[ i3 i4 ] "
                "nested_message_extension_for_testing={ child_field_for_testing=\"c\" "
                "debug_annotations=[ { name=\"k\" string_value=\"v\" } "
                "{ name=\"k2\" int_value=i-1 } ] } "
                "chrome_app_state=\"APP_STATE_BACKGROUND\"");
    EXPECT_SKIP(&ev, 0, "chrome_user_event={.. int_extension_for_testing=[.. "
                        "int_extension_for_testing=[.. nested_message_extension_for_testing={.. "
                        "chrome_app_state=\"APP_STATE_BACKGROUND\"");
    EXPECT_SKIP(&ev, 1, "chrome_user_event={ action=\"A\" action_hash=i5 } "
                        "int_extension_for_testing=[ i1 i2 ] int_extension_for_testing=[ i3 i4 ] "
                        "nested_message_extension_for_testing={ child_field_for_testing=\"c\" "
                        "debug_annotations=[.. } chrome_app_state=\"APP_STATE_BACKGROUND\"");
    EXPECT_SKIP(&ev, 2, "chrome_user_event={ action=\"A\" action_hash=i5 } "
                        "int_extension_for_testing=[ i1 i2 ] int_extension_for_testing=[ i3 i4 ] "
                        "nested_message_extension_for_testing={ child_field_for_testing=\"c\" "
                        "debug_annotations=[ {.. {.. ] } "
                        "chrome_app_state=\"APP_STATE_BACKGROUND\"");
    tread_args args = args_of(ev.data, ev.len);
    tread_arg out;
    CHECK(tread_args_find(&args, "nested_message_extension_for_testing.debug_annotations.1.name",
                          61, &out));
    CHECK(out.type == TREAD_ARG_STRING && out.v.s.len == 2);
    CHECK(tread_args_find(&args, "int_extension_for_testing.1", 27, &out) && out.v.i == 2);
    pb_free(&ev);

    /* bytes that do not decode inside a payload's nested message: what
     * came before, every container closed, failed */
    pb_init(&ev);
    m = pb_begin(&ev, 9903);
    pb_string(&ev, 1, "c");
    a = pb_begin(&ev, 99);
    pb_string(&ev, DA_NAME, "k");
    pb_tag(&ev, DA_STRING, 2);
    pb_varint_raw(&ev, 9);
    pb_end(&ev, a);
    pb_end(&ev, m);
    EXPECT(&ev, "nested_message_extension_for_testing={ child_field_for_testing=\"c\" "
                "debug_annotations=[ { name=\"k\" } ] } !FAIL");
    pb_free(&ev);

    /* nested past the iterator's levels: the rest as bytes, balanced */
    pb_init(&ev);
    size_t marks[40];
    marks[0] = pb_begin(&ev, 9903);
    for (int i = 1; i < 40; i++)
        marks[i] = pb_begin(&ev, i == 1 ? 99 : DA_DICT);
    pb_string(&ev, DA_NAME, "deep");
    for (int i = 39; i >= 0; i--)
        pb_end(&ev, marks[i]);
    dump d;
    dump_args(&ev, -1, &d);
    CHECK(strstr(d.s, "!FAIL") == NULL);
    CHECK(strstr(d.s, "=b") != NULL || strstr(d.s, " b") != NULL);
    pb_free(&ev);
}

/* The iids inside typed payloads that name interned data come out as what
 * they name (pf_args.c pf_refs); an unknown iid stays the field it is. */
static void test_typed_refs(void)
{
    pb m, ev;
    pb_init(&m);
    pb_varint(&m, 1, 3); /* SourceLocation 3 */
    pb_string(&m, 2, "a.cc");
    pb_string(&m, 3, "F");
    pb_varint(&m, 4, 7);
    intern_raw(4, 3, &m);
    pb_free(&m);
    intern_str(25, 2, 2, "Histo");  /* HistogramName 2 */
    intern_str(16, 7, 2, "BID01");  /* a build id, printable */
    intern_str(16, 8, 2, "\x01\x02"); /* and one that is not */
    pb_init(&m);                    /* Mapping 5 -> build id 7 */
    pb_varint(&m, 1, 5);
    pb_varint(&m, 2, 7);
    pb_varint(&m, 7, 1);
    intern_raw(19, 5, &m);
    pb_free(&m);
    pb_init(&m);                    /* Mapping 6 -> build id 8 */
    pb_varint(&m, 1, 6);
    pb_varint(&m, 2, 8);
    intern_raw(19, 6, &m);
    pb_free(&m);
    for (uint64_t i = 1; i <= 3; i++) { /* UnsymbolizedSourceLocations */
        pb_init(&m);
        pb_varint(&m, 1, i);
        pb_varint(&m, 2, i == 1 ? 5 : i == 2 ? 6 : 99); /* 99: no such mapping */
        pb_varint(&m, 3, 0x100 * i);
        intern_raw(28, i, &m);
        pb_free(&m);
    }

    pb_init(&ev);
    size_t p = pb_begin(&ev, 38); /* chrome_mojo_event_info */
    pb_string(&ev, 3, "tag");
    pb_varint(&ev, 4, 1);
    pb_end(&ev, p);
    p = pb_begin(&ev, 38);
    pb_varint(&ev, 4, 2);
    pb_end(&ev, p);
    p = pb_begin(&ev, 38);
    pb_varint(&ev, 4, 3);
    pb_end(&ev, p);
    p = pb_begin(&ev, 38);
    pb_varint(&ev, 4, 4); /* unknown */
    pb_end(&ev, p);
    p = pb_begin(&ev, 1001); /* chrome_memory_pressure_notification */
    pb_varint(&ev, 1, 1);
    pb_varint(&ev, 2, 3);
    pb_end(&ev, p);
    p = pb_begin(&ev, 1001);
    pb_varint(&ev, 2, 4); /* unknown */
    pb_end(&ev, p);
    p = pb_begin(&ev, 28); /* chrome_histogram_sample */
    pb_varint(&ev, 3, 12);
    pb_varint(&ev, 4, 2);
    pb_end(&ev, p);
    p = pb_begin(&ev, 35); /* chrome_message_pump */
    pb_varint(&ev, 2, 3);
    pb_end(&ev, p);
    p = pb_begin(&ev, 1005); /* chrome_task_posted_to_disabled_queue */
    pb_varint(&ev, 4, 3);
    pb_end(&ev, p);
    p = pb_begin(&ev, 24);          /* cc_scheduler_state */
    size_t q = pb_begin(&ev, 14);   /* begin_impl_frame_args */
    size_t r = pb_begin(&ev, 4);    /* current_args: BeginFrameArgs */
    pb_varint(&ev, 9, 3);
    pb_end(&ev, r);
    pb_end(&ev, q);
    pb_end(&ev, p);
    EXPECT(&ev, "chrome_mojo_event_info={ mojo_interface_tag=\"tag\" "
                "mojo_interface_method={ build_id=\"BID01\" rel_pc=i256 } } "
                "chrome_mojo_event_info={ mojo_interface_method={ build_id=b2:0102 rel_pc=i512 } } "
                "chrome_mojo_event_info={ mojo_interface_method={ rel_pc=i768 } } "
                "chrome_mojo_event_info={ mojo_interface_method_iid=i4 } "
                "chrome_memory_pressure_notification={ level=\"MEMORY_PRESSURE_LEVEL_MODERATE\" "
                "creation_location={ file_name=\"a.cc\" function_name=\"F\" line_number=i7 } } "
                "chrome_memory_pressure_notification={ creation_location_iid=i4 } "
                "chrome_histogram_sample={ sample=i12 name=\"Histo\" } "
                "chrome_message_pump={ io_handler_location={ file_name=\"a.cc\" "
                "function_name=\"F\" line_number=i7 } } "
                "chrome_task_posted_to_disabled_queue={ source_location={ file_name=\"a.cc\" "
                "function_name=\"F\" line_number=i7 } } "
                "cc_scheduler_state={ begin_impl_frame_args={ current_args={ source_location={ "
                "file_name=\"a.cc\" function_name=\"F\" line_number=i7 } } } }");
    /* skipped whole, the walk resumes after the interned message */
    EXPECT_SKIP(&ev, 1, "chrome_mojo_event_info={ mojo_interface_tag=\"tag\" "
                        "mojo_interface_method={.. } "
                        "chrome_mojo_event_info={ mojo_interface_method={.. } "
                        "chrome_mojo_event_info={ mojo_interface_method={.. } "
                        "chrome_mojo_event_info={ mojo_interface_method_iid=i4 } "
                        "chrome_memory_pressure_notification={ "
                        "level=\"MEMORY_PRESSURE_LEVEL_MODERATE\" creation_location={.. } "
                        "chrome_memory_pressure_notification={ creation_location_iid=i4 } "
                        "chrome_histogram_sample={ sample=i12 name=\"Histo\" } "
                        "chrome_message_pump={ io_handler_location={.. } "
                        "chrome_task_posted_to_disabled_queue={ source_location={.. } "
                        "cc_scheduler_state={ begin_impl_frame_args={.. }");
    pb_free(&ev);

    /* a histogram sample with a name of its own keeps its name_iid (as
     * trace_processor: no second "name"), wherever the name is; inside a
     * proto_value (whose level returns to the event's bytes) a location
     * stays an iid, a histogram name is resolved */
    pb_init(&ev);
    p = pb_begin(&ev, 28);
    pb_varint(&ev, 4, 2);
    pb_string(&ev, 2, "own");
    pb_end(&ev, p);
    p = pb_begin(&ev, 28);
    pb_string(&ev, 2, "own");
    pb_varint(&ev, 4, 2);
    pb_end(&ev, p);
    size_t a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "pv");
    pb_string(&ev, DA_PROTO_TYPE_NAME, ".perfetto.protos.ChromeMojoEventInfo");
    q = pb_begin(&ev, DA_PROTO_VALUE);
    pb_varint(&ev, 4, 1);
    pb_end(&ev, q);
    pb_end(&ev, a);
    a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "ph");
    pb_string(&ev, DA_PROTO_TYPE_NAME, ".perfetto.protos.ChromeHistogramSample");
    q = pb_begin(&ev, DA_PROTO_VALUE);
    pb_varint(&ev, 4, 2);
    pb_end(&ev, q);
    pb_end(&ev, a);
    EXPECT(&ev, "chrome_histogram_sample={ name_iid=i2 name=\"own\" } "
                "chrome_histogram_sample={ name=\"own\" name_iid=i2 } "
                "pv={ type=\".perfetto.protos.ChromeMojoEventInfo\" "
                "value={ mojo_interface_method_iid=i1 } } "
                "ph={ type=\".perfetto.protos.ChromeHistogramSample\" value={ name=\"Histo\" } }");
    pb_free(&ev);

    /* a mapping that does not decode ends the iteration */
    pb_init(&m);
    pb_varint(&m, 1, 9);
    pb_string(&m, 2, "x"); /* build_id as a string: the wrong wire type */
    intern_raw(19, 9, &m);
    pb_free(&m);
    pb_init(&m);
    pb_varint(&m, 1, 9);
    pb_varint(&m, 2, 9);
    intern_raw(28, 9, &m);
    pb_free(&m);
    pb_init(&ev);
    p = pb_begin(&ev, 38);
    pb_varint(&ev, 4, 9);
    pb_end(&ev, p);
    EXPECT(&ev, "chrome_mojo_event_info={ mojo_interface_method={ } } !FAIL");
    pb_free(&ev);
    table_free();
}

/* n levels of dict_entries: {"l": {"l": ... {"l": 1}}} */
static void nest_dicts(pb *b, uint32_t field, int n)
{
    size_t m = pb_begin(b, field);
    pb_string(b, DA_NAME, "l");
    if (n > 1)
        nest_dicts(b, DA_DICT, n - 1);
    else
        pb_varint(b, DA_INT, 1);
    pb_end(b, m);
}

/* n levels of split NestedValue dicts: {"k": {"k": ... 1}} */
static void nest_split(pb *b, uint32_t field, int n)
{
    size_t m = pb_begin(b, field);
    if (n > 0) {
        pb_varint(b, NV_TYPE, 1);
        /* the value first: not interleaved */
        nest_split(b, NV_VALUES, n - 1);
        pb_string(b, NV_KEYS, "k");
    } else {
        pb_varint(b, NV_INT, 1);
    }
    pb_end(b, m);
}

static void test_depth_limit(void)
{
    pb ev;
    dump d;
    pb_init(&ev);
    /* 40 levels: 32 open as dicts, the 33rd comes as its bytes */
    nest_dicts(&ev, TE_DEBUG_ANNOTATIONS, 40);
    dump_args(&ev, -1, &d);
    int opens = 0, closes = 0;
    for (size_t i = 0; i < d.n; i++) {
        opens += d.s[i] == '{';
        closes += d.s[i] == '}';
    }
    CHECK_EQ_INT(opens, TREAD_ARGS_ITER_MAX_NEST);
    CHECK_EQ_INT(closes, TREAD_ARGS_ITER_MAX_NEST);
    CHECK(strstr(d.s, "l=b") != NULL);
    CHECK(strstr(d.s, "!FAIL") == NULL);

    /* the deepest BEGIN is at depth 31, the bytes at depth 32 */
    tread_args a = args_of(ev.data, ev.len);
    tread_args_iter it;
    tread_arg v;
    int maxd = -1;
    tread_args_iter_init(&it, &a);
    while (tread_args_next(&it, &v)) {
        if (v.depth > maxd)
            maxd = v.depth;
        if (v.type == TREAD_ARG_BYTES)
            CHECK_EQ_INT(v.depth, TREAD_ARGS_ITER_MAX_NEST);
    }
    CHECK_EQ_INT(maxd, TREAD_ARGS_ITER_MAX_NEST);
    /* find reaches down to the limit */
    char key[2 * 40 + 1];
    size_t k = 0;
    for (int i = 0; i < 33; i++) {
        key[k++] = 'l';
        key[k++] = '.';
    }
    CHECK(tread_args_find(&a, key, k - 1, &v));
    CHECK_EQ_INT(v.type, TREAD_ARG_BYTES);

    /* split dicts take two slots each: 16 of them open, the 17th is bytes */
    pb_free(&ev);
    pb_init(&ev);
    size_t m = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "s");
    nest_split(&ev, DA_NESTED, 20);
    pb_end(&ev, m);
    dump_args(&ev, -1, &d);
    opens = 0;
    for (size_t i = 0; i < d.n; i++)
        opens += d.s[i] == '{';
    CHECK_EQ_INT(opens, TREAD_ARGS_ITER_MAX_NEST / 2);
    CHECK(strstr(d.s, "k=b") != NULL);
    pb_free(&ev);
}

/* Malformed data: the iteration ends, failed, containers closed. */
static void test_malformed(void)
{
    pb ev;
    pb_init(&ev);

    /* a truncated varint at the top, after one good arg */
    ann_varint(&ev, "ok", DA_INT, 1);
    pb_raw(&ev, "\x20\xff", 2);
    EXPECT(&ev, "ok=i1 !FAIL");

    /* a length past the end */
    ev.len = 0;
    pb_raw(&ev, "\x22\x10\x50\x01", 4);
    EXPECT(&ev, " !FAIL");

    /* wrong wire types: debug_annotations as a varint, an int as bytes, a
     * NestedValue type as bytes, a source_location_iid as bytes */
    ev.len = 0;
    pb_varint(&ev, TE_DEBUG_ANNOTATIONS, 1);
    EXPECT(&ev, " !FAIL");
    ev.len = 0;
    ann_string(&ev, "x", DA_INT, "not an int");
    EXPECT(&ev, " !FAIL");
    ev.len = 0;
    size_t a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "n");
    size_t n = pb_begin(&ev, DA_NESTED);
    pb_string(&ev, NV_TYPE, "dict");
    pb_end(&ev, n);
    pb_end(&ev, a);
    EXPECT(&ev, " !FAIL");
    ev.len = 0;
    pb_string(&ev, TE_SOURCE_LOCATION_IID, "1");
    EXPECT(&ev, " !FAIL");
    ev.len = 0;
    pb_varint(&ev, TE_CHROME_USER_EVENT, 1);
    EXPECT(&ev, " !FAIL");

    /* a bad entry deep inside: what came before, then the closing ENDs */
    ev.len = 0;
    a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_string(&ev, DA_NAME, "a");
    size_t b = pb_begin(&ev, DA_DICT);
    pb_string(&ev, DA_NAME, "b");
    size_t c = pb_begin(&ev, DA_ARRAY);
    pb_varint(&ev, DA_INT, 1);
    pb_end(&ev, c);
    c = pb_begin(&ev, DA_ARRAY);
    pb_raw(&ev, "\x10", 1); /* bool without its varint */
    pb_end(&ev, c);
    pb_end(&ev, b);
    pb_end(&ev, a);
    ann_varint(&ev, "never", DA_INT, 2);
    EXPECT(&ev, "a={ b=[ i1 ] } !FAIL");

    /* a malformed interned name */
    ev.len = 0;
    a = pb_begin(&ev, TE_DEBUG_ANNOTATIONS);
    pb_varint(&ev, DA_NAME_IID, 1);
    pb_varint(&ev, DA_INT, 1);
    pb_end(&ev, a);
    pb bad;
    pb_init(&bad);
    pb_raw(&bad, "\x08\x01\x12\x05" "ab", 5);
    intern_raw(IN_NAMES, 1, &bad);
    EXPECT(&ev, " !FAIL");
    table_free();
    pb_free(&bad);

    /* a group field (skipped whole) and a lone group end (malformed) */
    ev.len = 0;
    pb_raw(&ev, "\x0b\x08\x01\x0c", 4); /* group 1 { 1: 1 } */
    ann_varint(&ev, "g", DA_INT, 3);
    EXPECT(&ev, "g=i3");
    pb_raw(&ev, "\x0c", 1);
    EXPECT(&ev, "g=i3 !FAIL");
    pb_free(&ev);
}

/* A rich event cut at every length and with every byte flipped: no crash,
 * no read outside the copy (ASan), containers always balanced. */
static void build_rich(pb *ev)
{
    ann_varint(ev, "i", DA_INT, 5);
    size_t a = pb_begin(ev, TE_DEBUG_ANNOTATIONS);
    pb_varint(ev, DA_NAME_IID, 1);
    size_t b = pb_begin(ev, DA_DICT);
    pb_string(ev, DA_NAME, "x");
    pb_varint(ev, DA_STRING_IID, 5);
    pb_end(ev, b);
    b = pb_begin(ev, DA_DICT);
    pb_string(ev, DA_NAME, "y");
    size_t c = pb_begin(ev, DA_ARRAY);
    pb_double(ev, DA_DOUBLE, 1.0);
    pb_end(ev, c);
    pb_end(ev, b);
    pb_end(ev, a);
    a = pb_begin(ev, TE_DEBUG_ANNOTATIONS);
    pb_string(ev, DA_NAME, "nv");
    nest_split(ev, DA_NESTED, 3);
    pb_end(ev, a);
    a = pb_begin(ev, TE_DEBUG_ANNOTATIONS);
    pb_string(ev, DA_NAME, "pv");
    pb_varint(ev, DA_PROTO_TYPE_NAME_IID, 3);
    pb_bytes(ev, DA_PROTO_VALUE, "\x08\x01", 2);
    pb_end(ev, a);
    srcloc(ev, TE_SOURCE_LOCATION, "f.c", "fn", 1);
    pb_varint(ev, TE_SOURCE_LOCATION_IID, 1);
    size_t m = pb_begin(ev, TE_LOG_MESSAGE);
    pb_varint(ev, 1, 1);
    pb_varint(ev, 2, 8);
    pb_end(ev, m);
}

static void test_damage(void)
{
    pb ev, cut;
    dump d;
    pb_init(&ev);
    pb_init(&cut);
    build_rich(&ev);
    intern_str(IN_NAMES, 1, 2, "named");
    intern_str(IN_STRINGS, 5, 2, "v");
    intern_str(IN_TYPE_NAMES, 3, 2, "T");
    intern_str(IN_LOG_BODY, 8, 2, "body");
    pb inner;
    pb_init(&inner);
    pb_string(&inner, 2, "g.c");
    pb_varint(&inner, 4, 2);
    intern_raw(IN_SOURCE_LOCATIONS, 1, &inner);
    pb_free(&inner);

    dump_args(&ev, -1, &d);
    CHECK(strstr(d.s, "!FAIL") == NULL);
    CHECK(strstr(d.s, "named={ x=\"v\" y=[ d1 ] }") != NULL);
    for (size_t len = 0; len < ev.len; len++) {
        cut.len = 0;
        pb_raw(&cut, ev.data, len);
        dump_args(&cut, -1, &d);
        dump_args(&cut, 1, &d);
    }
    for (size_t i = 0; i < ev.len; i++) {
        for (int bit = 0; bit < 8; bit++) {
            cut.len = 0;
            pb_raw(&cut, ev.data, ev.len);
            cut.data[i] ^= (unsigned char)(1u << bit);
            dump_args(&cut, -1, &d);
            dump_args(&cut, 0, &d);
        }
    }
    table_free();
    pb_free(&cut);
    pb_free(&ev);
}

static void test_empty(void)
{
    pb ev;
    pb_init(&ev);
    EXPECT(&ev, "");
    tread_args a = {NULL, 0, TREAD_ARGS_PERFETTO, &fake_ctx};
    tread_args_iter it;
    tread_arg v;
    tread_args_iter_init(&it, &a);
    CHECK(!tread_args_next(&it, &v));
    CHECK(!tread_args_iter_failed(&it));
    tread_args_skip(&it); /* nothing open: harmless */
    CHECK(!tread_args_find(&a, "x", 1, &v));
    pb_free(&ev);
}

int main(void)
{
    test_empty();
    test_scalars();
    test_names();
    test_nested_value();
    test_nested_split();
    test_dict_array_entries();
    test_proto_value();
    test_typed_fields();
    test_typed_schema();
    test_typed_refs();
    test_depth_limit();
    test_malformed();
    test_damage();
    return TEST_EXIT();
}
