/*
 * The reflective walk (tread_perfetto_walk) and TREAD_ARGS_PROTO: messages
 * built here byte by byte are walked against the schema; every field kind,
 * unknown fields, wire-type mismatches, packed runs, depth limits,
 * malformed bytes with their offsets, and the same packets delivered by
 * the parser fed one byte at a time.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tread.h>
#include <tread/perfetto.h>

#include "pb_build.h"
#include "testlib.h"

/* pb_begin reserves a 5-byte length: a nested message's fields start 6
 * bytes after its tag. */

/* ------------------------------------------------------------------------ */
/* A log of walk steps: "depth:KIND name#num=value;"                         */

typedef struct logbuf {
    char s[8192];
    size_t n;
    int stop_at;   /* step index that returns stop_rc (-1: none) */
    int stop_rc;
    int skip_name; /* return SKIP at the BEGIN of a field of this number */
    int steps;
} logbuf;

static void logf_(logbuf *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void logf_(logbuf *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(l->s + l->n, sizeof l->s - l->n, fmt, ap);
    va_end(ap);
    if (k > 0 && (size_t)k < sizeof l->s - l->n)
        l->n += (size_t)k;
}

static int on_step(void *user, const tread_perfetto_field *f)
{
    logbuf *l = user;
    const char *k = f->step == TREAD_PF_FIELD ? "F" : f->step == TREAD_PF_MESSAGE_BEGIN ? "B"
                  : f->step == TREAD_PF_MESSAGE_END ? "E" : "U";
    logf_(l, "%d:%s %s#%u", f->depth, k, f->name ? f->name : "?", (unsigned)f->number);
    if (f->step == TREAD_PF_FIELD) {
        logf_(l, "(%s%s)=", tread_perfetto_type_name(f->type), f->packed ? ",packed" : "");
        switch (f->type) {
        case TREAD_PF_TYPE_INT32: case TREAD_PF_TYPE_SINT32: case TREAD_PF_TYPE_SFIXED32:
        case TREAD_PF_TYPE_INT64: case TREAD_PF_TYPE_SINT64: case TREAD_PF_TYPE_SFIXED64:
            logf_(l, "%" PRId64, f->v.i);
            break;
        case TREAD_PF_TYPE_FLOAT: case TREAD_PF_TYPE_DOUBLE:
            logf_(l, "%g", f->v.d);
            break;
        case TREAD_PF_TYPE_BOOL:
            logf_(l, "%s", f->v.b ? "true" : "false");
            break;
        case TREAD_PF_TYPE_ENUM:
            logf_(l, "%s/%" PRId64, f->enum_name ? f->enum_name : "-", f->v.i);
            break;
        case TREAD_PF_TYPE_STRING: case TREAD_PF_TYPE_BYTES:
            logf_(l, "'%.*s'", (int)f->len, (const char *)f->data);
            break;
        default:
            logf_(l, "%" PRIu64, f->v.u);
        }
    } else if (f->step == TREAD_PF_UNKNOWN) {
        logf_(l, "(w%d)", f->wire_type);
        if (f->wire_type == 2)
            logf_(l, "=%zu bytes", f->len);
        else
            logf_(l, "=%" PRIu64, f->v.u);
    } else {
        logf_(l, "(%s)", tread_perfetto_msgtype_name(f->msgtype));
    }
    logf_(l, "@%" PRIu64 ";", f->offset);
    if (l->steps++ == l->stop_at)
        return l->stop_rc;
    if (f->step == TREAD_PF_MESSAGE_BEGIN && (int)f->number == l->skip_name)
        return TREAD_PF_WALK_SKIP;
    return 0;
}

static int walk_log(const char *type, const pb *b, logbuf *l, int max_depth,
                    tread_perfetto_walk_result *res)
{
    l->n = 0;
    l->s[0] = 0;
    l->steps = 0;
    return tread_perfetto_walk(tread_perfetto_msgtype_find(type), b->data, b->len, max_depth,
                               on_step, l, res);
}

static logbuf *new_log(void)
{
    logbuf *l = calloc(1, sizeof *l);
    l->stop_at = -1;
    l->skip_name = -1;
    return l;
}

/* ------------------------------------------------------------------------ */

static void test_lookup(void)
{
    const tread_perfetto_msgtype *t = tread_perfetto_msgtype_find("perfetto.protos.TracePacket");
    CHECK(t != NULL);
    CHECK_EQ_STR(tread_perfetto_msgtype_name(t), "perfetto.protos.TracePacket");
    CHECK(tread_perfetto_msgtype_find("perfetto.protos.Trace") != NULL);
    CHECK(tread_perfetto_msgtype_find("perfetto.protos.FtraceEvent") != NULL);
    CHECK(tread_perfetto_msgtype_find("perfetto.protos.ProcessTree.Process") != NULL);
    CHECK(tread_perfetto_msgtype_find("perfetto.protos.TracePacke") == NULL);
    CHECK(tread_perfetto_msgtype_find("TracePacket") == NULL);
    CHECK(tread_perfetto_msgtype_find("") == NULL);
    CHECK(tread_perfetto_msgtype_find(NULL) == NULL);
    CHECK(tread_perfetto_msgtype_name(NULL) == NULL);
    CHECK_EQ_STR(tread_perfetto_type_name(TREAD_PF_TYPE_SINT64), "sint64");
    CHECK_EQ_STR(tread_perfetto_type_name((tread_perfetto_type)99), "unknown");
}

/* A TracePacket: timestamp, sequence id, a TrackEvent (enum, string in a
 * oneof, packed fixed64 flow ids, unpacked int64 counter values, a debug
 * annotation dict), and unknown fields at both levels. */
static void build_packet(pb *p)
{
    pb_init(p);
    pb_varint(p, 8, 1234);                 /* timestamp */
    size_t te = pb_begin(p, 11);           /* track_event */
    pb_varint(p, 9, 1);                    /* type = TYPE_SLICE_BEGIN */
    pb_string(p, 23, "hello");             /* name */
    pb_tag(p, 47, 2);                      /* flow_ids, packed fixed64 x2 */
    pb_varint_raw(p, 16);
    uint64_t ids[2] = {7, 0xffffffffffffffffull};
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 8; k++) {
            unsigned char c = (unsigned char)(ids[i] >> (8 * k));
            pb_raw(p, &c, 1);
        }
    pb_varint(p, 12, (uint64_t)-5);        /* extra_counter_values: int64 */
    pb_varint(p, 12, 6);
    size_t da = pb_begin(p, 4);            /* debug_annotations */
    pb_string(p, 10, "k");                 /* name */
    pb_double(p, 5, 2.5);                  /* double_value */
    pb_end(p, da);
    pb_varint(p, 9999, 42);                /* unknown */
    pb_end(p, te);
    pb_varint(p, 10, 3);                   /* trusted_packet_sequence_id */
    pb_string(p, 3000, "zz");              /* unknown, length-delimited */
    pb_fixed32(p, 8, 5);                   /* timestamp with a wrong wire
                                              type: unknown */
}

static void test_packet(void)
{
    pb p;
    logbuf *l = new_log();
    tread_perfetto_walk_result res;
    build_packet(&p);
    int rc = walk_log("perfetto.protos.TracePacket", &p, l, 0, &res);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(res.error, TREAD_PF_WALK_OK);
    const char *want =
        "0:F timestamp#8(uint64)=1234@0;"
        "0:B track_event#11(perfetto.protos.TrackEvent)@3;"
        "1:F type#9(enum)=TYPE_SLICE_BEGIN/1@9;"
        "1:F name#23(string)='hello'@11;"
        "1:F flow_ids#47(fixed64,packed)=7@22;"
        "1:F flow_ids#47(fixed64,packed)=18446744073709551615@30;"
        "1:F extra_counter_values#12(int64)=-5@38;"
        "1:F extra_counter_values#12(int64)=6@49;"
        "1:B debug_annotations#4(perfetto.protos.DebugAnnotation)@51;"
        "2:F name#10(string)='k'@57;"
        "2:F double_value#5(double)=2.5@60;"
        "1:E debug_annotations#4(perfetto.protos.DebugAnnotation)@51;"
        "1:U ?#9999(w0)=42@69;"
        "0:E track_event#11(perfetto.protos.TrackEvent)@3;"
        "0:F trusted_packet_sequence_id#10(uint32)=3@73;"
        "0:U ?#3000(w2)=2 bytes@75;"
        "0:U ?#8(w5)=5@81;";
    CHECK_EQ_STR(l->s, want);

    /* the same through the packet hook's structure */
    tread_perfetto_packet pk;
    memset(&pk, 0, sizeof pk);
    pk.data = p.data;
    pk.len = p.len;
    size_t n0 = l->n;
    l->n = 0;
    l->steps = 0;
    CHECK_EQ_INT(tread_perfetto_walk_packet(&pk, 0, on_step, l, NULL), 0);
    CHECK_EQ_INT(l->n, n0);
    CHECK_EQ_STR(l->s, want);

    /* SKIP at a BEGIN: nothing inside, no END */
    l->skip_name = 11;
    walk_log("perfetto.protos.TracePacket", &p, l, 0, NULL);
    CHECK(strstr(l->s, "track_event") != NULL && strstr(l->s, "hello") == NULL);
    CHECK(strstr(l->s, "0:E") == NULL);
    CHECK(strstr(l->s, "trusted_packet_sequence_id") != NULL);
    l->skip_name = -1;

    /* any other value stops the walk and is returned */
    l->stop_at = 2;
    l->stop_rc = 7;
    CHECK_EQ_INT(walk_log("perfetto.protos.TracePacket", &p, l, 0, NULL), 7);
    CHECK_EQ_INT(l->steps, 3);
    l->stop_at = -1;

    /* max_depth 1: track_event entered, the annotation inside is too deep */
    rc = walk_log("perfetto.protos.TracePacket", &p, l, 1, &res);
    CHECK_EQ_INT(rc, -TREAD_PF_WALK_TOO_DEEP);
    CHECK_EQ_INT(res.error, TREAD_PF_WALK_TOO_DEEP);
    CHECK_EQ_INT(res.offset, 51); /* the annotation's tag */
    CHECK(res.message != NULL);
    pb_free(&p);
    free(l);
}

/* Every scalar type's decoding, on a message picked by name. */
static void test_scalars(void)
{
    pb b;
    logbuf *l = new_log();
    pb_init(&b);
    pb_fixed32(&b, 1, 0xfffffffeu);         /* event_id fixed32 */
    pb_varint(&b, 2, (uint64_t)-9);         /* event_time_nanos int64 */
    pb_varint(&b, 5, (uint64_t)-3);         /* action int32 (10-byte varint) */
    pb_sint(&b, 7, -4);                     /* display_id sint32 */
    pb_varint(&b, 9, 0x1ffffffffull);       /* scan_code uint32: truncated */
    CHECK_EQ_INT(walk_log("perfetto.protos.AndroidKeyEvent", &b, l, 0, NULL), 0);
    CHECK_EQ_STR(l->s, "0:F event_id#1(fixed32)=4294967294@0;"
                       "0:F event_time_nanos#2(int64)=-9@5;"
                       "0:F action#5(int32)=-3@16;"
                       "0:F display_id#7(sint32)=-4@27;"
                       "0:F scan_code#9(uint32)=4294967295@29;");
    pb_free(&b);

    /* packed sint64 and double, unpacked bool-ish int32, float */
    pb_init(&b);
    pb_tag(&b, 3, 2);
    pb_varint_raw(&b, 3);
    pb_varint_raw(&b, 3);   /* zigzag -2 */
    pb_varint_raw(&b, 4);   /* 2 */
    pb_varint_raw(&b, 1);   /* -1 */
    pb_double(&b, 4, -0.5); /* double_params, unpacked */
    pb_varint(&b, 1, 5);    /* message_id is fixed64: wrong wire, unknown */
    CHECK_EQ_INT(walk_log("perfetto.protos.ProtoLogMessage", &b, l, 0, NULL), 0);
    CHECK_EQ_STR(l->s, "0:F sint64_params#3(sint64,packed)=-2@2;"
                       "0:F sint64_params#3(sint64,packed)=2@3;"
                       "0:F sint64_params#3(sint64,packed)=-1@4;"
                       "0:F double_params#4(double)=-0.5@5;"
                       "0:U ?#1(w0)=5@14;");
    pb_free(&b);

    pb_init(&b);
    pb_fixed32(&b, 1, 0x3fc00000u);         /* x = 1.5f */
    CHECK_EQ_INT(walk_log("perfetto.protos.PositionProto", &b, l, 0, NULL), 0);
    CHECK_EQ_STR(l->s, "0:F x#1(float)=1.5@0;");
    pb_free(&b);

    /* an enum number the enum lacks: enum_name NULL, the number kept */
    pb_init(&b);
    size_t te = pb_begin(&b, 11);
    pb_varint(&b, 9, 77);
    pb_end(&b, te);
    CHECK_EQ_INT(walk_log("perfetto.protos.TracePacket", &b, l, 0, NULL), 0);
    CHECK(strstr(l->s, "type#9(enum)=-/77") != NULL);
    pb_free(&b);

    /* empty message: nothing, success */
    pb_init(&b);
    CHECK_EQ_INT(walk_log("perfetto.protos.TracePacket", &b, l, 0, NULL), 0);
    CHECK_EQ_INT(l->n, 0);
    pb_free(&b);
    free(l);
}

static void test_malformed(void)
{
    logbuf *l = new_log();
    tread_perfetto_walk_result res;
    pb b;

    /* a varint cut short at the end */
    pb_init(&b);
    pb_varint(&b, 8, 1);
    pb_tag(&b, 10, 0);
    pb_raw(&b, "\x80", 1);
    CHECK_EQ_INT(walk_log("perfetto.protos.TracePacket", &b, l, 0, &res), -TREAD_PF_WALK_MALFORMED);
    CHECK_EQ_INT(res.error, TREAD_PF_WALK_MALFORMED);
    CHECK_EQ_INT(res.offset, 2);
    CHECK(strstr(l->s, "timestamp#8") != NULL); /* what came before was delivered */
    pb_free(&b);

    /* a nested message whose length overruns: the offset is inside it */
    pb_init(&b);
    size_t te = pb_begin(&b, 11);
    pb_varint(&b, 9, 1);
    pb_tag(&b, 23, 2);
    pb_varint_raw(&b, 50);  /* a 50-byte string in a 5-byte message */
    pb_raw(&b, "ab", 2);
    pb_end(&b, te);
    CHECK_EQ_INT(walk_log("perfetto.protos.TracePacket", &b, l, 0, &res), -TREAD_PF_WALK_MALFORMED);
    CHECK_EQ_INT(res.offset, 8); /* the string's tag */
    pb_free(&b);

    /* a packed run cut inside an element */
    pb_init(&b);
    size_t te2 = pb_begin(&b, 11);
    pb_tag(&b, 47, 2);
    pb_varint_raw(&b, 12);  /* one fixed64 and 4 bytes */
    for (int i = 0; i < 12; i++)
        pb_raw(&b, "\x01", 1);
    pb_end(&b, te2);
    CHECK_EQ_INT(walk_log("perfetto.protos.TracePacket", &b, l, 0, &res), -TREAD_PF_WALK_MALFORMED);
    CHECK_EQ_INT(res.offset, 17); /* the second element */
    pb_free(&b);

    /* a lone group end, wire types 6/7, field number 0 */
    static const unsigned char bad[][2] = {{0x0c, 0}, {0x0e, 0}, {0x07, 0}, {0x00, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pb_init(&b);
        pb_raw(&b, bad[i], 2);
        CHECK_EQ_INT(walk_log("perfetto.protos.TracePacket", &b, l, 0, &res), -TREAD_PF_WALK_MALFORMED);
        CHECK_EQ_INT(res.offset, 0);
        pb_free(&b);
    }

    /* misuse */
    CHECK_EQ_INT(tread_perfetto_walk(NULL, "", 0, 0, on_step, l, &res), -TREAD_PF_WALK_MISUSE);
    const tread_perfetto_msgtype *t = tread_perfetto_msgtype_find("perfetto.protos.TracePacket");
    CHECK_EQ_INT(tread_perfetto_walk(t, "", 0, 0, NULL, l, &res), -TREAD_PF_WALK_MISUSE);
    CHECK_EQ_INT(tread_perfetto_walk(t, "", 0, TREAD_PF_WALK_MAX_DEPTH_LIMIT + 1, on_step, l, &res),
                 -TREAD_PF_WALK_MISUSE);
    CHECK_EQ_INT(tread_perfetto_walk(t, "", 0, -1, on_step, l, &res), -TREAD_PF_WALK_MISUSE);
    CHECK_EQ_INT(tread_perfetto_walk(t, NULL, 0, 0, on_step, l, &res), 0);
    free(l);
}

/* DebugAnnotation.dict_entries nested n deep (recursion in the schema). */
static void build_nested(pb *b, int n)
{
    pb_init(b);
    size_t marks[300];
    for (int i = 0; i < n; i++)
        marks[i] = pb_begin(b, 11);
    pb_varint(b, 4, 1);
    for (int i = n - 1; i >= 0; i--)
        pb_end(b, marks[i]);
}

static void test_depth(void)
{
    logbuf *l = new_log();
    tread_perfetto_walk_result res;
    pb b;
    build_nested(&b, TREAD_PF_WALK_DEFAULT_MAX_DEPTH);
    CHECK_EQ_INT(walk_log("perfetto.protos.DebugAnnotation", &b, l, 0, &res), 0);
    pb_free(&b);
    build_nested(&b, TREAD_PF_WALK_DEFAULT_MAX_DEPTH + 1);
    CHECK_EQ_INT(walk_log("perfetto.protos.DebugAnnotation", &b, l, 0, &res), -TREAD_PF_WALK_TOO_DEEP);
    CHECK(res.offset > 0 && res.offset < b.len);
    /* a larger named limit allows it */
    CHECK_EQ_INT(walk_log("perfetto.protos.DebugAnnotation", &b, l, TREAD_PF_WALK_DEFAULT_MAX_DEPTH + 1, &res), 0);
    pb_free(&b);
    build_nested(&b, 290);
    CHECK_EQ_INT(walk_log("perfetto.protos.DebugAnnotation", &b, l, TREAD_PF_WALK_MAX_DEPTH_LIMIT, &res),
                 -TREAD_PF_WALK_TOO_DEEP);
    pb_free(&b);
    free(l);
}

/* ------------------------------------------------------------------------ */
/* TREAD_ARGS_PROTO                                                          */

static void args_log(const tread_args *a, char *s, size_t cap)
{
    tread_args_iter it;
    tread_arg v;
    size_t n = 0;
    s[0] = 0;
    tread_args_iter_init(&it, a);
    while (tread_args_next(&it, &v) && n < cap - 64) {
        int k = snprintf(s + n, cap - n, "%d:%s %.*s", v.depth, tread_arg_type_name(v.type),
                         (int)v.key.len, v.key.ptr ? v.key.ptr : "");
        n += (size_t)k;
        switch (v.type) {
        case TREAD_ARG_INT: k = snprintf(s + n, cap - n, "=%" PRId64, v.v.i); break;
        case TREAD_ARG_UINT: k = snprintf(s + n, cap - n, "=%" PRIu64, v.v.u); break;
        case TREAD_ARG_DOUBLE: k = snprintf(s + n, cap - n, "=%g", v.v.d); break;
        case TREAD_ARG_BOOL: k = snprintf(s + n, cap - n, "=%d", v.v.b); break;
        case TREAD_ARG_STRING: case TREAD_ARG_BYTES:
            k = snprintf(s + n, cap - n, "='%.*s'", (int)v.v.s.len, v.v.s.ptr);
            break;
        default: k = 0;
        }
        n += (size_t)k;
        k = snprintf(s + n, cap - n, ";");
        n += (size_t)k;
    }
    if (tread_args_iter_failed(&it))
        snprintf(s + n, cap - n, "FAILED");
}

static void test_args(void)
{
    pb p;
    char s[4096];
    build_packet(&p);
    const tread_perfetto_msgtype *t = tread_perfetto_msgtype_find("perfetto.protos.TracePacket");
    tread_args a = tread_perfetto_args(t, p.data, p.len);
    CHECK_EQ_INT(a.encoding, TREAD_ARGS_PROTO);
    args_log(&a, s, sizeof s);
    CHECK_EQ_STR(s, "0:int timestamp=1234;"
                    "0:dict_begin track_event;"
                    "1:string type='TYPE_SLICE_BEGIN';"
                    "1:string name='hello';"
                    "1:array_begin flow_ids;"
                    "2:int =7;"
                    "2:uint =18446744073709551615;"
                    "1:array_end ;"
                    "1:array_begin extra_counter_values;"
                    "2:int =-5;"
                    "2:int =6;"
                    "1:array_end ;"
                    "1:array_begin debug_annotations;"
                    "2:dict_begin ;"
                    "3:string name='k';"
                    "3:double double_value=2.5;"
                    "2:dict_end ;"
                    "1:array_end ;"
                    "1:int 9999=42;"
                    "0:dict_end ;"
                    "0:int trusted_packet_sequence_id=3;"
                    "0:bytes 3000='zz';"
                    "0:int 8=5;");

    tread_arg v;
    CHECK(tread_args_find(&a, "track_event.name", 16, &v));
    CHECK(v.type == TREAD_ARG_STRING && v.v.s.len == 5 && memcmp(v.v.s.ptr, "hello", 5) == 0);
    CHECK(tread_args_find(&a, "track_event.debug_annotations.0.double_value", 44, &v));
    CHECK(v.type == TREAD_ARG_DOUBLE && v.v.d == 2.5);
    CHECK(tread_args_find(&a, "track_event.flow_ids.1", 22, &v));
    CHECK(v.type == TREAD_ARG_UINT);
    CHECK(tread_args_find(&a, "track_event.9999", 16, &v));
    CHECK(v.type == TREAD_ARG_INT && v.v.i == 42);
    CHECK(tread_args_find(&a, "trusted_packet_sequence_id", 26, &v) && v.v.i == 3);
    CHECK(!tread_args_find(&a, "track_event.nope", 16, &v));

    /* skip: the dict's rest, then its sibling */
    tread_args_iter it;
    tread_args_iter_init(&it, &a);
    CHECK(tread_args_next(&it, &v) && v.type == TREAD_ARG_INT);
    CHECK(tread_args_next(&it, &v) && v.type == TREAD_ARG_DICT_BEGIN);
    CHECK(tread_args_next(&it, &v) && v.type == TREAD_ARG_STRING);
    tread_args_skip(&it);
    CHECK(tread_args_next(&it, &v) && v.type == TREAD_ARG_INT && v.depth == 0 &&
          v.key.len == 26);
    pb_free(&p);

    /* malformed: what came before, the open containers closed (BEGIN/END
     * stay balanced, as with the other lazy codecs), then failed */
    pb_init(&p);
    pb_varint(&p, 8, 1);
    size_t te = pb_begin(&p, 11);
    pb_tag(&p, 23, 2);
    pb_varint_raw(&p, 9);
    pb_end(&p, te);
    a = tread_perfetto_args(t, p.data, p.len);
    args_log(&a, s, sizeof s);
    CHECK_EQ_STR(s, "0:int timestamp=1;0:dict_begin track_event;0:dict_end ;FAILED");
    pb_free(&p);
    /* two levels open: both closed (fuzz_perfetto found the outer one
     * left open: the iterator ended once the data was gone) */
    pb_init(&p);
    te = pb_begin(&p, 11);
    size_t da = pb_begin(&p, 4);
    pb_tag(&p, 10, 2);
    pb_varint_raw(&p, 9);
    pb_end(&p, da);
    pb_end(&p, te);
    a = tread_perfetto_args(t, p.data, p.len);
    args_log(&a, s, sizeof s);
    CHECK_EQ_STR(s, "0:dict_begin track_event;1:array_begin debug_annotations;2:dict_begin ;"
                    "2:dict_end ;1:array_end ;0:dict_end ;FAILED");
    pb_free(&p);

    /* no type: fails at once */
    a = tread_perfetto_args(NULL, "x", 1);
    args_log(&a, s, sizeof s);
    CHECK_EQ_STR(s, "FAILED");

    /* nesting beyond the iterator's levels comes out as bytes (a level of
     * dict_entries, a repeated message, takes two: its array and its dict) */
    build_nested(&p, 40);
    a = tread_perfetto_args(tread_perfetto_msgtype_find("perfetto.protos.DebugAnnotation"),
                            p.data, p.len);
    tread_args_iter_init(&it, &a);
    int begins = 0, bytes = 0, ends = 0, maxd = 0, arrays = 0;
    while (tread_args_next(&it, &v)) {
        begins += v.type == TREAD_ARG_DICT_BEGIN;
        ends += v.type == TREAD_ARG_DICT_END;
        arrays += v.type == TREAD_ARG_ARRAY_BEGIN;
        arrays -= v.type == TREAD_ARG_ARRAY_END;
        bytes += v.type == TREAD_ARG_BYTES;
        if (v.depth > maxd)
            maxd = v.depth;
    }
    CHECK(!tread_args_iter_failed(&it));
    CHECK_EQ_INT(begins, TREAD_ARGS_ITER_MAX_NEST / 4);
    CHECK_EQ_INT(ends, begins);
    CHECK_EQ_INT(arrays, 0);
    CHECK_EQ_INT(bytes, 1);
    CHECK_EQ_INT(maxd, TREAD_ARGS_ITER_MAX_NEST / 2);
    pb_free(&p);
}

/* Unpacked repeated fields: each run of consecutive elements is one ARRAY,
 * so no key repeats; what ends a run; skipping in and after one. */
static void test_args_runs(void)
{
    pb p;
    char s[4096];
    const tread_perfetto_msgtype *te = tread_perfetto_msgtype_find("perfetto.protos.TrackEvent");

    /* separated by another field: two arrays under the same key */
    pb_init(&p);
    pb_varint(&p, 12, 1);  /* extra_counter_values */
    pb_string(&p, 23, "n");
    pb_varint(&p, 12, 2);
    tread_args a = tread_perfetto_args(te, p.data, p.len);
    args_log(&a, s, sizeof s);
    CHECK_EQ_STR(s, "0:array_begin extra_counter_values;1:int =1;0:array_end ;"
                    "0:string name='n';"
                    "0:array_begin extra_counter_values;1:int =2;0:array_end ;");
    pb_free(&p);

    /* a wrong wire type ends the run (an unknown field), a packed chunk is
     * an array of its own, and so is the unpacked element after it */
    pb_init(&p);
    pb_varint(&p, 12, 1);
    pb_varint(&p, 12, 2);
    pb_fixed32(&p, 12, 7);
    pb_tag(&p, 12, 2);     /* packed: 3, 4 */
    pb_varint_raw(&p, 2);
    unsigned char two[2] = {3, 4};
    pb_raw(&p, two, 2);
    pb_varint(&p, 12, 5);
    a = tread_perfetto_args(te, p.data, p.len);
    args_log(&a, s, sizeof s);
    CHECK_EQ_STR(s, "0:array_begin extra_counter_values;1:int =1;1:int =2;0:array_end ;"
                    "0:int 12=7;"
                    "0:array_begin extra_counter_values;1:int =3;1:int =4;0:array_end ;"
                    "0:array_begin extra_counter_values;1:int =5;0:array_end ;");
    pb_free(&p);

    /* strings and messages; an element that does not decode inside the
     * run's second message: everything open closed, then failed */
    pb_init(&p);
    pb_string(&p, 22, "a"); /* categories */
    pb_string(&p, 22, "b");
    size_t da = pb_begin(&p, 4);
    pb_string(&p, 10, "x");
    pb_end(&p, da);
    da = pb_begin(&p, 4);
    pb_tag(&p, 10, 2);
    pb_varint_raw(&p, 9);
    pb_end(&p, da);
    a = tread_perfetto_args(te, p.data, p.len);
    args_log(&a, s, sizeof s);
    CHECK_EQ_STR(s, "0:array_begin categories;1:string ='a';1:string ='b';0:array_end ;"
                    "0:array_begin debug_annotations;1:dict_begin ;2:string name='x';1:dict_end ;"
                    "1:dict_begin ;1:dict_end ;0:array_end ;FAILED");
    tread_arg v;
    CHECK(tread_args_find(&a, "categories.1", 12, &v));
    CHECK(v.type == TREAD_ARG_STRING && v.v.s.len == 1 && v.v.s.ptr[0] == 'b');
    CHECK(tread_args_find(&a, "debug_annotations.0.name", 24, &v));
    CHECK(v.type == TREAD_ARG_STRING && v.v.s.len == 1 && v.v.s.ptr[0] == 'x');
    pb_free(&p);

    /* skipping inside a run goes on after the run; skipping a dict of the
     * run goes on with the run's next element */
    pb_init(&p);
    pb_varint(&p, 12, 1);
    pb_varint(&p, 12, 2);
    da = pb_begin(&p, 4);
    pb_string(&p, 10, "x");
    pb_end(&p, da);
    da = pb_begin(&p, 4);
    pb_string(&p, 10, "y");
    pb_end(&p, da);
    pb_varint(&p, 9, 1);
    a = tread_perfetto_args(te, p.data, p.len);
    tread_args_iter it;
    tread_args_iter_init(&it, &a);
    CHECK(tread_args_next(&it, &v) && v.type == TREAD_ARG_ARRAY_BEGIN && v.depth == 0);
    CHECK(tread_args_next(&it, &v) && v.type == TREAD_ARG_INT && v.v.i == 1 && v.depth == 1);
    tread_args_skip(&it);
    CHECK(tread_args_next(&it, &v) && v.type == TREAD_ARG_ARRAY_BEGIN && v.depth == 0 &&
          v.key.len == 17);
    CHECK(tread_args_next(&it, &v) && v.type == TREAD_ARG_DICT_BEGIN && v.depth == 1);
    tread_args_skip(&it);
    CHECK(tread_args_next(&it, &v) && v.type == TREAD_ARG_DICT_BEGIN && v.depth == 1);
    CHECK(tread_args_next(&it, &v) && v.type == TREAD_ARG_STRING && v.v.s.ptr[0] == 'y');
    CHECK(tread_args_next(&it, &v) && v.type == TREAD_ARG_DICT_END && v.depth == 1);
    CHECK(tread_args_next(&it, &v) && v.type == TREAD_ARG_ARRAY_END && v.depth == 0);
    CHECK(tread_args_next(&it, &v) && v.type == TREAD_ARG_STRING && v.depth == 0 &&
          v.key.len == 4);
    CHECK(!tread_args_next(&it, &v));
    CHECK(!tread_args_iter_failed(&it));
    pb_free(&p);
}

/* ------------------------------------------------------------------------ */
/* Packets from the parser, fed whole and one byte at a time: the same walk */

typedef struct collect {
    char *s;
    size_t n, cap;
    logbuf *l;
} collect;

static int on_packet(void *user, const tread_perfetto_packet *pk)
{
    collect *c = user;
    c->l->n = 0;
    c->l->steps = 0;
    c->l->s[0] = 0;
    int rc = tread_perfetto_walk_packet(pk, 0, on_step, c->l, NULL);
    if (c->n + c->l->n + 16 > c->cap) {
        c->cap = (c->n + c->l->n + 16) * 2;
        c->s = realloc(c->s, c->cap);
    }
    c->n += (size_t)sprintf(c->s + c->n, "%d|%s\n", rc, c->l->s);
    return 0;
}

static char *walk_trace(const pb *trace, size_t piece)
{
    collect c = {NULL, 0, 0, new_log()};
    tread_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.perfetto_packet = on_packet;
    tread_parser *p = tread_parser_create(NULL);
    tread_set_callbacks(p, &cb, &c);
    for (size_t off = 0; off < trace->len; off += piece) {
        size_t n = trace->len - off < piece ? trace->len - off : piece;
        CHECK(tread_feed(p, trace->data + off, n) == TREAD_STATUS_OK);
    }
    CHECK(tread_finish(p) == TREAD_STATUS_OK);
    tread_parser_free(p);
    free(c.l);
    if (!c.s)
        c.s = calloc(1, 1);
    return c.s;
}

static void test_chunks(void)
{
    pb trace, pk;
    pb_init(&trace);
    for (int i = 0; i < 5; i++) {
        build_packet(&pk);
        pb_msg(&trace, 1, &pk);
        pb_free(&pk);
    }
    char *whole = walk_trace(&trace, trace.len);
    char *bytewise = walk_trace(&trace, 1);
    CHECK(strlen(whole) > 500);
    CHECK_EQ_STR(bytewise, whole);
    free(whole);
    free(bytewise);
    pb_free(&trace);
}

int main(void)
{
    test_lookup();
    test_packet();
    test_scalars();
    test_malformed();
    test_depth();
    test_args();
    test_args_runs();
    test_chunks();
    return TEST_EXIT();
}
