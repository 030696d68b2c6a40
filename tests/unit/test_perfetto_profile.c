/* Perfetto CPU samples (lib/perfetto/pf_profile.c): PerfSample and
 * StreamingProfilePacket into SAMPLE events, their interned callstacks
 * into STACK_FRAME definitions, and a TrackEvent's own callstack (inline
 * or interned) into its event's sf; ids shared by equal callsites, what is
 * not a sample, unresolved iids, the depth and node limits, redefinition,
 * and chunk/stop equivalence. Traces are built with pb_build; field
 * numbers are those of ../shared/spec/perfetto_fields.tsv. */
#include <stdlib.h>
#include <string.h>
#include <tread.h>
#include <tread/perfetto.h>
#include "testlib.h"
#include "event_dump.h"
#include "pb_build.h"

/* ---- collecting events ------------------------------------------------ */

#define MAXEV 2200
typedef struct cev {
    tread_event ev;
    char name[64], cat[64], id[32], parent[32], sf[32], build_id[64], src[64];
    int64_t rel_pc, line, weight;
    int has_rel_pc, has_src, has_line, has_weight;
    int has_iid_arg;           /* a "callstack_iid" arg */
    char cs1[32];              /* the "callstack.1.function_name" arg */
    /* a StackSample's resolved args ("" / -1: absent) */
    char prim[32], fol0[32], fol1[32];
    int64_t task_pid, exec_cpu, fiid0;
    int has_fol1;              /* a "follower_descriptors.1" arg */
} cev;

typedef struct coll {
    cev *e;
    int n;
    int warn[TREAD_WARN_KIND_COUNT_];
    long kinds[TREAD_EVENT_KIND_COUNT_]; /* every event, kept or not */
} coll;

static void cpy(char *dst, size_t cap, tread_str s)
{
    size_t n = s.ptr ? (s.len < cap - 1 ? s.len : cap - 1) : 0;
    if (n)
        memcpy(dst, s.ptr, n);
    dst[n] = 0;
    if (s.ptr)
        CHECK(s.ptr[s.len] == 0); /* NUL-terminated at delivery */
}

/* An arg's string (not NUL-terminated: it may be the packet's bytes). */
static void cpy_arg(char *dst, size_t cap, tread_str s)
{
    size_t n = s.len < cap - 1 ? s.len : cap - 1;
    if (n)
        memcpy(dst, s.ptr, n);
    dst[n] = 0;
}

static int on_event(void *user, const tread_event *ev)
{
    coll *c = user;
    c->kinds[ev->kind]++;
    if (c->n >= MAXEV)
        return 0;
    cev *x = &c->e[c->n++];
    memset(x, 0, sizeof *x);
    x->ev = *ev;
    cpy(x->name, sizeof x->name, ev->name);
    cpy(x->cat, sizeof x->cat, ev->cat);
    cpy(x->id, sizeof x->id, ev->id);
    cpy(x->parent, sizeof x->parent, ev->parent);
    cpy(x->sf, sizeof x->sf, ev->sf);
    /* (args are read here: they point into the parser's buffers) */
    tread_arg a;
    if (ev->kind == TREAD_EVENT_STACK_FRAME) {
        if (tread_args_find(&ev->args, "rel_pc", 6, &a) && a.type == TREAD_ARG_INT)
            x->has_rel_pc = 1, x->rel_pc = a.v.i;
        if (tread_args_find(&ev->args, "build_id", 8, &a) && a.type == TREAD_ARG_STRING)
            cpy(x->build_id, sizeof x->build_id, a.v.s);
        if (tread_args_find(&ev->args, "source_file", 11, &a) && a.type == TREAD_ARG_STRING)
            x->has_src = 1, cpy_arg(x->src, sizeof x->src, a.v.s);
        if (tread_args_find(&ev->args, "line_number", 11, &a) && a.type == TREAD_ARG_INT)
            x->has_line = 1, x->line = a.v.i;
    } else {
        x->has_iid_arg = tread_args_find(&ev->args, "callstack_iid", 13, &a);
        if (tread_args_find(&ev->args, "callstack.1.function_name", 25, &a) &&
            a.type == TREAD_ARG_STRING)
            cpy_arg(x->cs1, sizeof x->cs1, a.v.s);
        if (tread_args_find(&ev->args, "primary_weight", 14, &a) && a.type == TREAD_ARG_INT)
            x->has_weight = 1, x->weight = a.v.i;
        if (tread_args_find(&ev->args, "primary_descriptor.name", 23, &a) &&
            a.type == TREAD_ARG_STRING)
            cpy_arg(x->prim, sizeof x->prim, a.v.s);
        if (tread_args_find(&ev->args, "follower_descriptors.0.name", 27, &a) &&
            a.type == TREAD_ARG_STRING)
            cpy_arg(x->fol0, sizeof x->fol0, a.v.s);
        if (tread_args_find(&ev->args, "follower_descriptors.1.name", 27, &a) &&
            a.type == TREAD_ARG_STRING)
            cpy_arg(x->fol1, sizeof x->fol1, a.v.s);
        x->task_pid = x->exec_cpu = x->fiid0 = -1;
        x->has_fol1 = tread_args_find(&ev->args, "follower_descriptors.1", 22, &a);
        if (tread_args_find(&ev->args, "task_context.pid", 16, &a) && a.type == TREAD_ARG_INT)
            x->task_pid = a.v.i;
        if (tread_args_find(&ev->args, "execution_context.cpu", 21, &a) &&
            a.type == TREAD_ARG_INT)
            x->exec_cpu = a.v.i;
        if (tread_args_find(&ev->args, "follower_descriptor_iids.0", 26, &a) &&
            a.type == TREAD_ARG_INT)
            x->fiid0 = a.v.i;
    }
    return 0;
}

static int on_warning(void *user, const tread_warning *w)
{
    coll *c = user;
    c->warn[w->kind]++;
    return 0;
}

static tread_status parse_opt(coll *c, const pb *t, int opt, int64_t val)
{
    cev *keep = c->e ? c->e : malloc(MAXEV * sizeof *c->e);
    memset(c, 0, sizeof *c);
    c->e = keep;
    tread_parser *p = tread_parser_create(NULL);
    tread_callbacks cb = {.event = on_event, .warning = on_warning};
    tread_set_callbacks(p, &cb, c);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_PERFETTO), 0);
    if (opt >= 0)
        CHECK_EQ_INT(tread_config(p, (tread_option)opt, val), 0);
    tread_status st = tread_feed(p, t->data, t->len);
    if (st == TREAD_STATUS_OK)
        st = tread_finish(p);
    tread_parser_free(p);
    return st;
}

static tread_status parse(coll *c, const pb *t) { return parse_opt(c, t, -1, 0); }

static int count_kind(const coll *c, tread_event_kind k)
{
    int n = 0;
    for (int i = 0; i < c->n; i++)
        n += c->e[i].ev.kind == k;
    return n;
}

/* The i-th event of kind k, or NULL. */
static const cev *nth(const coll *c, tread_event_kind k, int i)
{
    for (int j = 0; j < c->n; j++)
        if (c->e[j].ev.kind == k && i-- == 0)
            return &c->e[j];
    return NULL;
}

static const cev *frame_by_id(const coll *c, const char *id)
{
    for (int j = 0; j < c->n; j++)
        if (c->e[j].ev.kind == TREAD_EVENT_STACK_FRAME && !strcmp(c->e[j].id, id))
            return &c->e[j];
    return NULL;
}

/* ---- building packets ------------------------------------------------- */

enum {
    TS = 8,
    TRACK_EVENT = 11,
    SEQ = 10,
    INTERNED = 12,
    FLAGS = 13,
    THDESC = 44,
    STREAMING = 54,
    PERF = 66,
    STACK_SAMPLE = 135
};

/* InternedData: a string entry (InternedString{iid, str}) of field. */
static void istr(pb *in, uint32_t field, uint64_t iid, const char *s)
{
    size_t m = pb_begin(in, field);
    pb_varint(in, 1, iid);
    pb_string(in, 2, s);
    pb_end(in, m);
}

/* Frame{iid, function_name_id, mapping_id, rel_pc} (0: field absent). */
static void iframe(pb *in, uint64_t iid, uint64_t fn, uint64_t map, uint64_t pc)
{
    size_t m = pb_begin(in, 6);
    pb_varint(in, 1, iid);
    if (fn)
        pb_varint(in, 2, fn);
    if (map)
        pb_varint(in, 3, map);
    if (pc)
        pb_varint(in, 4, pc);
    pb_end(in, m);
}

/* Callstack{iid, frame_ids packed}. */
static void icallstack(pb *in, uint64_t iid, const uint64_t *frames, size_t n)
{
    size_t m = pb_begin(in, 7);
    pb_varint(in, 1, iid);
    pb_packed(in, 2, frames, n);
    pb_end(in, m);
}

/* Mapping{iid, build_id, path_string_ids...}. */
static void imapping(pb *in, uint64_t iid, uint64_t build, const uint64_t *paths, size_t n)
{
    size_t m = pb_begin(in, 19);
    pb_varint(in, 1, iid);
    pb_varint(in, 2, build);
    for (size_t i = 0; i < n; i++)
        pb_varint(in, 7, paths[i]);
    pb_end(in, m);
}

/* The interned data of the tests: libc.so frames main > work > leaf and
 * main > work > other, callstacks 1 and 2, with iids shifted by k (so
 * that another sequence can name the same frames by other iids). */
static void profile_interned(pb *in, uint64_t k)
{
    istr(in, 5, 1 + k, "main");
    istr(in, 5, 2 + k, "work");
    istr(in, 5, 3 + k, "leaf");
    istr(in, 5, 4 + k, "other");
    istr(in, 17, 1 + k, "system");
    istr(in, 17, 2 + k, "lib64");
    istr(in, 17, 3 + k, "libc.so");
    istr(in, 16, 1 + k, "\x01\xab");
    const uint64_t paths[] = {1 + k, 2 + k, 3 + k};
    imapping(in, 1 + k, 1 + k, paths, 3);
    iframe(in, 1 + k, 1 + k, 1 + k, 0x100);
    iframe(in, 2 + k, 2 + k, 1 + k, 0x200);
    iframe(in, 3 + k, 3 + k, 1 + k, 0x300);
    iframe(in, 4 + k, 4 + k, 1 + k, 0x400);
    const uint64_t cs1[] = {1 + k, 2 + k, 3 + k}, cs2[] = {1 + k, 2 + k, 4 + k};
    icallstack(in, 1 + k, cs1, 3);
    icallstack(in, 2 + k, cs2, 3);
}

/* A packet on seq with flags, timestamp ts (>= 0), interned data (or
 * NULL) and data field num = msg (or none). */
static void packet(pb *t, uint32_t seq, uint32_t flags, int64_t ts, const pb *in, uint32_t num,
                   const pb *msg)
{
    size_t m = pb_begin(t, 1);
    if (ts >= 0)
        pb_varint(t, TS, (uint64_t)ts);
    pb_varint(t, SEQ, seq);
    if (flags)
        pb_varint(t, FLAGS, flags);
    if (in)
        pb_msg(t, INTERNED, in);
    if (msg)
        pb_msg(t, num, msg);
    pb_end(t, m);
}

/* PerfSample{cpu, pid, tid, callstack_iid (cs > 0), timebase_count}. */
static void perf(pb *t, uint32_t seq, int64_t ts, uint64_t cs, uint64_t count)
{
    pb s;
    pb_init(&s);
    pb_varint(&s, 1, 2);
    pb_varint(&s, 2, 100);
    pb_varint(&s, 3, 101);
    if (cs)
        pb_varint(&s, 4, cs);
    pb_varint(&s, 5, 2); /* MODE_USER */
    pb_varint(&s, 6, count);
    packet(t, seq, 2, ts, NULL, PERF, &s);
    pb_free(&s);
}

/* The first packet of seq: clears its state and interns the profile. */
static void seq_start(pb *t, uint32_t seq, uint64_t k)
{
    pb in;
    pb_init(&in);
    profile_interned(&in, k);
    packet(t, seq, 1, -1, &in, 0, NULL);
    pb_free(&in);
}

/* ---- PerfSample --------------------------------------------------------- */

static void test_perf_sample(void)
{
    pb t, s;
    pb_init(&t);
    seq_start(&t, 1, 0);
    perf(&t, 1, 1000, 1, 10);
    perf(&t, 1, 2000, 2, 20);
    perf(&t, 1, 3000, 1, 30);
    /* not samples: kernel records lost, a producer event */
    pb_init(&s);
    pb_varint(&s, 1, 3);
    pb_varint(&s, 17, 7);
    packet(&t, 1, 2, 3500, NULL, PERF, &s);
    pb_free(&s);
    pb_init(&s);
    pb_varint(&s, 1, 3);
    pb cs;
    pb_init(&cs);
    pb_varint(&cs, 1, 1);
    pb_msg(&s, 19, &cs);
    pb_free(&cs);
    packet(&t, 1, 2, 3600, NULL, PERF, &s);
    pb_free(&s);
    /* a sample the profiler skipped: a sample still, without a stack */
    pb_init(&s);
    pb_varint(&s, 2, 100);
    pb_varint(&s, 6, 40);
    pb_varint(&s, 18, 2);
    packet(&t, 1, 2, 4000, NULL, PERF, &s);
    pb_free(&s);

    coll c = {0};
    CHECK_EQ_INT(parse(&c, &t), TREAD_STATUS_OK);
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_SAMPLE), 4);
    /* main, work, leaf, and other under the same main > work */
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_STACK_FRAME), 4);
    CHECK_EQ_INT(c.warn[TREAD_WARN_DATA_LOSS], 1);
    CHECK_EQ_INT(c.warn[TREAD_WARN_UNRESOLVED_REF], 0);
    const cev *f0 = nth(&c, TREAD_EVENT_STACK_FRAME, 0);
    const cev *f1 = nth(&c, TREAD_EVENT_STACK_FRAME, 1);
    const cev *f2 = nth(&c, TREAD_EVENT_STACK_FRAME, 2);
    const cev *f3 = nth(&c, TREAD_EVENT_STACK_FRAME, 3);
    CHECK(f0 && f1 && f2 && f3);
    if (!f0 || !f1 || !f2 || !f3)
        goto out;
    CHECK_EQ_STR(f0->name, "main");
    CHECK_EQ_STR(f1->name, "work");
    CHECK_EQ_STR(f2->name, "leaf");
    CHECK_EQ_STR(f3->name, "other");
    CHECK_EQ_STR(f0->cat, "/system/lib64/libc.so");
    CHECK_EQ_STR(f0->build_id, "01ab");
    CHECK(f2->has_rel_pc && f2->rel_pc == 0x300);
    CHECK_EQ_STR(f0->parent, "");
    CHECK_EQ_STR(f1->parent, f0->id);
    CHECK_EQ_STR(f2->parent, f1->id);
    CHECK_EQ_STR(f3->parent, f1->id);
    CHECK(strncmp(f0->id, "pf:", 3) == 0 && strlen(f0->id) == 19);
    CHECK(!(f0->ev.flags & (TREAD_HAS_TS | TREAD_HAS_SEQ | TREAD_NAME_UNRESOLVED)));
    const cev *s0 = nth(&c, TREAD_EVENT_SAMPLE, 0), *s1 = nth(&c, TREAD_EVENT_SAMPLE, 1);
    const cev *s2 = nth(&c, TREAD_EVENT_SAMPLE, 2), *s3 = nth(&c, TREAD_EVENT_SAMPLE, 3);
    CHECK_EQ_STR(s0->sf, f2->id);
    CHECK_EQ_STR(s1->sf, f3->id);
    CHECK_EQ_STR(s2->sf, f2->id);
    CHECK_EQ_STR(s3->sf, "");
    CHECK(s0->ev.ts == 1000 && (s0->ev.flags & TREAD_HAS_TS));
    CHECK(s0->ev.pid == 100 && s0->ev.tid == 101 && (s0->ev.flags & TREAD_HAS_TID));
    CHECK(s0->ev.cpu == 2 && (s0->ev.flags & TREAD_HAS_CPU));
    CHECK(s0->ev.value_int == 10 && (s0->ev.flags & TREAD_VALUE_IS_INT));
    CHECK(s3->ev.value_int == 40 && s3->ev.pid == 100);
    /* the frames come right before the sample that first uses them */
    CHECK(c.e[3].ev.kind == TREAD_EVENT_SAMPLE && c.e[4].ev.kind == TREAD_EVENT_STACK_FRAME);
out:
    free(c.e);
    pb_free(&t);
}

/* The same frames by other iids on another sequence, and again after a
 * clear: the same ids, and no frame defined twice. */
static void test_ids_shared(void)
{
    pb t;
    pb_init(&t);
    seq_start(&t, 1, 0);
    perf(&t, 1, 1000, 1, 1);
    seq_start(&t, 2, 50);
    perf(&t, 2, 2000, 51, 2);
    perf(&t, 2, 2100, 52, 3);
    seq_start(&t, 1, 0); /* a clear: interned again */
    perf(&t, 1, 3000, 1, 4);
    coll c = {0};
    CHECK_EQ_INT(parse(&c, &t), TREAD_STATUS_OK);
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_SAMPLE), 4);
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_STACK_FRAME), 4);
    const cev *a = nth(&c, TREAD_EVENT_SAMPLE, 0), *b = nth(&c, TREAD_EVENT_SAMPLE, 1);
    const cev *d = nth(&c, TREAD_EVENT_SAMPLE, 3);
    CHECK(a && b && d && !strcmp(a->sf, b->sf) && !strcmp(a->sf, d->sf) && a->sf[0]);
    free(c.e);
    pb_free(&t);
}

/* A callstack iid given new frames (same generation): the new leaf. */
static void test_redefined(void)
{
    pb t, in;
    pb_init(&t);
    seq_start(&t, 1, 0);
    perf(&t, 1, 1000, 1, 1);
    pb_init(&in);
    const uint64_t cs[] = {1, 4};
    icallstack(&in, 1, cs, 2);
    packet(&t, 1, 0, -1, &in, 0, NULL);
    pb_free(&in);
    perf(&t, 1, 2000, 1, 2);
    coll c = {0};
    CHECK_EQ_INT(parse(&c, &t), TREAD_STATUS_OK);
    const cev *s1 = nth(&c, TREAD_EVENT_SAMPLE, 1);
    CHECK(s1 != NULL);
    if (s1) {
        const cev *leaf = frame_by_id(&c, s1->sf);
        CHECK(leaf && !strcmp(leaf->name, "other"));
        const cev *up = leaf ? frame_by_id(&c, leaf->parent) : NULL;
        CHECK(up && !strcmp(up->name, "main"));
    }
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_STACK_FRAME), 4); /* main>other is new */
    free(c.e);
    pb_free(&t);
}

/* ---- unresolved and limits ---------------------------------------------- */

static void test_unresolved(void)
{
    pb t, in;
    pb_init(&t);
    pb_init(&in);
    istr(&in, 5, 1, "known");
    iframe(&in, 1, 1, 0, 0x10);
    iframe(&in, 2, 9, 0, 0x20);   /* function name 9: never interned */
    iframe(&in, 3, 1, 7, 0x30);   /* mapping 7: never interned */
    const uint64_t cs[] = {1, 2, 3, 8}; /* frame 8: never interned */
    icallstack(&in, 1, cs, 4);
    packet(&t, 1, 1, -1, &in, 0, NULL);
    pb_free(&in);
    perf(&t, 1, 1000, 1, 1);
    perf(&t, 1, 1100, 5, 1); /* callstack 5: never interned */
    coll c = {0};
    CHECK_EQ_INT(parse(&c, &t), TREAD_STATUS_OK);
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_STACK_FRAME), 4);
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_SAMPLE), 2);
    CHECK_EQ_INT(c.warn[TREAD_WARN_UNRESOLVED_REF], 4);
    const cev *f0 = nth(&c, TREAD_EVENT_STACK_FRAME, 0);
    const cev *f1 = nth(&c, TREAD_EVENT_STACK_FRAME, 1);
    const cev *f3 = nth(&c, TREAD_EVENT_STACK_FRAME, 3);
    CHECK(f0 && !(f0->ev.flags & TREAD_NAME_UNRESOLVED) && !strcmp(f0->name, "known"));
    CHECK(f1 && (f1->ev.flags & TREAD_NAME_UNRESOLVED) && f1->name[0] == 0 && f1->has_rel_pc);
    CHECK(f3 && (f3->ev.flags & TREAD_NAME_UNRESOLVED) && !f3->has_rel_pc);
    const cev *s1 = nth(&c, TREAD_EVENT_SAMPLE, 1);
    CHECK(s1 && s1->sf[0] == 0);
    free(c.e);
    pb_free(&t);
}

/* A frame interned after a sample named it (not a redefinition): the next
 * sample resolves it. */
static void test_interned_later(void)
{
    pb t, in;
    pb_init(&t);
    pb_init(&in);
    istr(&in, 5, 1, "root");
    iframe(&in, 1, 1, 0, 0x10);
    const uint64_t cs[] = {1, 2};
    icallstack(&in, 1, cs, 2);
    packet(&t, 1, 1, -1, &in, 0, NULL);
    pb_free(&in);
    perf(&t, 1, 1000, 1, 1); /* frame 2 unknown yet */
    pb_init(&in);
    istr(&in, 5, 2, "late");
    iframe(&in, 2, 2, 0, 0x20);
    packet(&t, 1, 0, -1, &in, 0, NULL);
    pb_free(&in);
    perf(&t, 1, 2000, 1, 2);
    coll c = {0};
    CHECK_EQ_INT(parse(&c, &t), TREAD_STATUS_OK);
    const cev *s1 = nth(&c, TREAD_EVENT_SAMPLE, 1);
    const cev *leaf = s1 ? frame_by_id(&c, s1->sf) : NULL;
    CHECK(leaf && !strcmp(leaf->name, "late") && !(leaf->ev.flags & TREAD_NAME_UNRESOLVED));
    CHECK_EQ_INT(c.warn[TREAD_WARN_UNRESOLVED_REF], 1);
    free(c.e);
    pb_free(&t);
}

static void test_depth_limit(void)
{
    pb t, in;
    pb_init(&t);
    pb_init(&in);
    istr(&in, 5, 1, "f");
    for (uint64_t i = 1; i <= 1500; i++)
        iframe(&in, i, 1, 0, i);
    uint64_t *ids = malloc(1500 * sizeof *ids);
    for (size_t i = 0; i < 1500; i++)
        ids[i] = i + 1;
    icallstack(&in, 1, ids, 1500);
    free(ids);
    packet(&t, 1, 1, -1, &in, 0, NULL);
    pb_free(&in);
    perf(&t, 1, 1000, 1, 1);
    coll c = {0};
    CHECK_EQ_INT(parse(&c, &t), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.warn[TREAD_WARN_LIMIT], 1);
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_STACK_FRAME), 1024);
    /* the leaf-most are kept: the root read is frame 477 */
    const cev *f0 = nth(&c, TREAD_EVENT_STACK_FRAME, 0);
    CHECK(f0 && f0->rel_pc == 477 && f0->parent[0] == 0);
    free(c.e);
    pb_free(&t);
}

static void test_node_limit(void)
{
    pb t, in;
    pb_init(&t);
    pb_init(&in);
    istr(&in, 5, 1, "f");
    uint64_t ids[18];
    for (uint64_t i = 1; i <= 18; i++) {
        iframe(&in, i, 1, 0, i);
        ids[i - 1] = i;
    }
    icallstack(&in, 1, ids, 18);
    packet(&t, 1, 1, -1, &in, 0, NULL);
    pb_free(&in);
    perf(&t, 1, 1000, 1, 1);
    perf(&t, 1, 2000, 1, 2);
    coll c = {0};
    CHECK_EQ_INT(parse_opt(&c, &t, TREAD_OPT_MAX_PROFILE_NODES, 16), TREAD_STATUS_OK);
    /* 16 kept and defined; the two leaf-most are neither (bounded: one
     * sample cannot queue a callstack's frames again and again) */
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_STACK_FRAME), 16);
    CHECK_EQ_INT(c.warn[TREAD_WARN_LIMIT], 2);
    const cev *a = nth(&c, TREAD_EVENT_SAMPLE, 0), *b = nth(&c, TREAD_EVENT_SAMPLE, 1);
    CHECK(a && b && !strcmp(a->sf, b->sf) && a->sf[0] && !frame_by_id(&c, a->sf));
    const cev *last = nth(&c, TREAD_EVENT_STACK_FRAME, 15);
    CHECK(last && last->rel_pc == 16);
    free(c.e);
    pb_free(&t);
}

/* One packet that would define more than PF_PROF_MAX_PACKET_FRAMES
 * callsites (each a queued event) defines that many; the next packet the
 * rest. */
static void test_packet_frames_limit(void)
{
    enum { DEPTH = 1024, STACKS = 70 };
    pb t, in, sp;
    pb_init(&t);
    pb_init(&in);
    istr(&in, 5, 1, "f");
    for (uint64_t i = 1; i <= DEPTH; i++)
        iframe(&in, i, 1, 0, i);
    uint64_t *ids = malloc(DEPTH * sizeof *ids), cs[STACKS], dt[STACKS];
    for (uint64_t k = 0; k < STACKS; k++) {
        for (size_t i = 0; i < DEPTH; i++)
            ids[i] = 1 + (i + k) % DEPTH; /* a root of its own: no callsite shared */
        icallstack(&in, k + 1, ids, DEPTH);
        cs[k] = k + 1;
        dt[k] = 1;
    }
    free(ids);
    packet(&t, 1, 1, -1, &in, 0, NULL);
    pb_free(&in);
    for (int round = 0; round < 2; round++) {
        pb_init(&sp);
        pb_packed(&sp, 1, cs, STACKS);
        pb_packed(&sp, 2, dt, STACKS);
        packet(&t, 1, 2, -1, NULL, STREAMING, &sp);
        pb_free(&sp);
    }
    coll c = {0};
    CHECK_EQ_INT(parse(&c, &t), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.kinds[TREAD_EVENT_STACK_FRAME], STACKS * DEPTH);
    CHECK_EQ_INT(c.kinds[TREAD_EVENT_SAMPLE], 2 * STACKS);
    CHECK_EQ_INT(c.warn[TREAD_WARN_LIMIT], 1);
    free(c.e);
    pb_free(&t);
}

/* ---- StreamingProfilePacket --------------------------------------------- */

static void streaming(pb *t, uint32_t seq, const uint64_t *cs, size_t ncs, const uint64_t *dt,
                      size_t ndt)
{
    pb s;
    pb_init(&s);
    pb_packed(&s, 1, cs, ncs);
    for (size_t i = 0; i < ndt; i++)
        pb_varint(&s, 2, dt[i]); /* unpacked: both forms are read */
    pb_varint(&s, 3, 5);
    packet(t, seq, 2, -1, NULL, STREAMING, &s);
    pb_free(&s);
}

static void test_streaming(void)
{
    pb t, td, te;
    pb_init(&t);
    seq_start(&t, 1, 0);
    pb_init(&td);
    pb_varint(&td, 1, 7);
    pb_varint(&td, 2, 8);
    pb_varint(&td, 6, 1000); /* reference_timestamp_us */
    packet(&t, 1, 0, -1, NULL, THDESC, &td);
    pb_free(&td);
    const uint64_t cs[] = {1, 1, 2}, dt[] = {10, 5, 5, 100};
    streaming(&t, 1, cs, 3, dt, 4); /* one more delta: it moves the time */
    /* a legacy TrackEvent: its delta goes on from the samples' */
    pb_init(&te);
    pb_varint(&te, 1, 1);    /* timestamp_delta_us */
    pb_varint(&te, 9, 3);    /* TYPE_INSTANT */
    pb_string(&te, 23, "after");
    packet(&t, 1, 2, -1, NULL, 11, &te);
    pb_free(&te);
    streaming(&t, 1, cs, 2, dt, 1); /* a callstack without its delta */
    coll c = {0};
    CHECK_EQ_INT(parse(&c, &t), TREAD_STATUS_OK);
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_SAMPLE), 4);
    CHECK_EQ_INT(c.warn[TREAD_WARN_BAD_FIELD], 1);
    const int64_t want[] = {1010000, 1015000, 1020000, 1131000};
    for (int i = 0; i < 4; i++) {
        const cev *x = nth(&c, TREAD_EVENT_SAMPLE, i);
        CHECK(x && x->ev.ts == want[i] && x->ev.pid == 7 && x->ev.tid == 8 && x->sf[0]);
    }
    for (int i = 0; i < c.n; i++)
        if (!strcmp(c.e[i].name, "after"))
            CHECK(c.e[i].ev.ts == 1121000);
    /* no thread descriptor: samples without a thread, said once */
    pb_free(&t);
    pb_init(&t);
    seq_start(&t, 3, 0);
    streaming(&t, 3, cs, 3, dt, 3);
    CHECK_EQ_INT(parse(&c, &t), TREAD_STATUS_OK);
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_SAMPLE), 3);
    CHECK_EQ_INT(c.warn[TREAD_WARN_UNRESOLVED_REF], 1);
    const cev *x = nth(&c, TREAD_EVENT_SAMPLE, 0);
    CHECK(x && (x->ev.flags & TREAD_THREAD_UNRESOLVED) && !(x->ev.flags & TREAD_HAS_PID));
    free(c.e);
    pb_free(&t);
}

/* ---- TrackEvent callstacks ------------------------------------------------ */

/* InlineCallstack.Frame{function_name, source_file (or NULL), line (> 0)}
 * into cs (field 1). */
static void inline_frame(pb *cs, const char *fn, const char *src, uint64_t line)
{
    size_t m = pb_begin(cs, 1);
    if (fn)
        pb_string(cs, 1, fn);
    if (src)
        pb_string(cs, 2, src);
    if (line)
        pb_varint(cs, 3, line);
    pb_end(cs, m);
}

/* A TrackEvent of type (1 begin, 3 instant) named name, with callstack_iid
 * cs (> 0) or the inline callstack inl (or neither), and maybe a second
 * data field num = extra in the same packet. */
static void te_packet(pb *t, uint32_t seq, int64_t ts, int type, const char *name, uint64_t cs,
                      const pb *inl, uint32_t num, const pb *extra)
{
    pb te;
    pb_init(&te);
    pb_varint(&te, 9, (uint64_t)type);
    pb_string(&te, 23, name);
    if (cs)
        pb_varint(&te, 56, cs);
    if (inl)
        pb_msg(&te, 55, inl);
    size_t m = pb_begin(t, 1);
    pb_varint(t, TS, (uint64_t)ts);
    pb_varint(t, SEQ, seq);
    pb_varint(t, FLAGS, 2);
    pb_msg(t, TRACK_EVENT, &te);
    if (extra)
        pb_msg(t, num, extra);
    pb_end(t, m);
    pb_free(&te);
}

/* The frames a TrackEvent's callstack names are defined right before it
 * (once), its sf is the leaf; an interned callstack names the same
 * callsites as a sample of it, an inline one its own (no mapping). */
static void test_track_event_callstack(void)
{
    pb t, inl;
    pb_init(&t);
    seq_start(&t, 1, 0);
    te_packet(&t, 1, 1000, 1, "alloc", 1, NULL, 0, NULL);
    perf(&t, 1, 1100, 1, 5);
    te_packet(&t, 1, 1200, 3, "again", 2, NULL, 0, NULL);
    pb_init(&inl);
    inline_frame(&inl, "main", "/src/main.cc", 10);
    inline_frame(&inl, "parse", "/src/parse.cc", 42);
    inline_frame(&inl, "token", NULL, 0);
    te_packet(&t, 1, 1300, 3, "inline", 0, &inl, 0, NULL);
    te_packet(&t, 1, 1400, 3, "inline twice", 0, &inl, 0, NULL);
    pb_free(&inl);
    te_packet(&t, 1, 1500, 3, "plain", 0, NULL, 0, NULL);

    coll c = {0};
    CHECK_EQ_INT(parse(&c, &t), TREAD_STATUS_OK);
    /* main, work, leaf; other; main, parse, token */
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_STACK_FRAME), 7);
    CHECK_EQ_INT(c.warn[TREAD_WARN_UNRESOLVED_REF], 0);
    CHECK_EQ_INT(c.warn[TREAD_WARN_BAD_RECORD], 0);
    /* 3 frames, then the slice */
    CHECK(c.n > 3 && c.e[3].ev.kind == TREAD_EVENT_SLICE_BEGIN);
    if (c.n <= 12)
        goto out;
    const cev *leaf = &c.e[2], *slice = &c.e[3], *sample = &c.e[4];
    CHECK_EQ_STR(leaf->name, "leaf");
    CHECK_EQ_STR(slice->name, "alloc");
    CHECK_EQ_STR(slice->sf, leaf->id);
    CHECK(sample->ev.kind == TREAD_EVENT_SAMPLE);
    CHECK_EQ_STR(sample->sf, leaf->id);
    /* "other" under main > work, then the instant */
    CHECK(c.e[5].ev.kind == TREAD_EVENT_STACK_FRAME && c.e[6].ev.kind == TREAD_EVENT_INSTANT);
    CHECK_EQ_STR(c.e[5].name, "other");
    CHECK_EQ_STR(c.e[5].parent, c.e[1].id);
    CHECK_EQ_STR(c.e[6].sf, c.e[5].id);
    /* the inline callstack: root first, no mapping, its source files */
    const cev *m = &c.e[7], *pa = &c.e[8], *tok = &c.e[9], *in1 = &c.e[10], *in2 = &c.e[11];
    CHECK_EQ_STR(m->name, "main");
    CHECK_EQ_STR(m->cat, "");
    CHECK_EQ_STR(m->parent, "");
    CHECK(strcmp(m->id, c.e[0].id) != 0); /* not libc.so's main */
    CHECK_EQ_STR(pa->name, "parse");
    CHECK_EQ_STR(pa->parent, m->id);
    CHECK_EQ_STR(tok->name, "token");
    CHECK_EQ_STR(tok->parent, pa->id);
    CHECK(pa->has_src);
    CHECK_EQ_STR(pa->src, "/src/parse.cc");
    CHECK(pa->has_line && pa->line == 42);
    CHECK(!tok->has_src);
    CHECK_EQ_STR(in1->name, "inline");
    CHECK_EQ_STR(in1->sf, tok->id);
    CHECK_EQ_STR(in2->name, "inline twice");
    CHECK_EQ_STR(in2->sf, tok->id);
    CHECK_EQ_STR(c.e[12].name, "plain");
    CHECK_EQ_STR(c.e[12].sf, "");
    /* an iid is no arg (it is the sf); an inline callstack stays one */
    CHECK(!slice->has_iid_arg);
    CHECK_EQ_STR(in1->cs1, "parse");
out:
    free(c.e);
    pb_free(&t);
}

/* What a TrackEvent's callstack cannot name: an iid never interned, a
 * frame that does not decode, a field of the wrong type; a packet that
 * also holds a sample (their strings share one buffer). */
static void test_track_event_callstack_bad(void)
{
    pb t, inl, s;
    pb_init(&t);
    seq_start(&t, 1, 0);
    te_packet(&t, 1, 1000, 3, "unknown iid", 9, NULL, 0, NULL);
    pb_init(&inl);
    inline_frame(&inl, "ok", NULL, 0);
    pb_tag(&inl, 1, 2);
    pb_varint_raw(&inl, 3);
    pb_raw(&inl, "\x0a\x09x", 3); /* a frame whose name overruns it */
    te_packet(&t, 1, 1100, 3, "bad frame", 0, &inl, 0, NULL);
    pb_free(&inl);
    pb_init(&s); /* a PerfSample in the same packet as a TrackEvent */
    pb_varint(&s, 2, 100);
    pb_varint(&s, 4, 2);
    pb_init(&inl);
    inline_frame(&inl, "first", NULL, 0);
    inline_frame(&inl, "second", NULL, 0);
    te_packet(&t, 1, 1200, 3, "shared", 0, &inl, PERF, &s);
    pb_free(&inl);
    pb_free(&s);
    pb te;
    pb_init(&te);
    pb_varint(&te, 9, 3);
    pb_string(&te, 23, "wrong type");
    pb_varint(&te, 55, 1);
    packet(&t, 1, 2, 1300, NULL, TRACK_EVENT, &te);
    pb_free(&te);

    coll c = {0};
    CHECK_EQ_INT(parse(&c, &t), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.warn[TREAD_WARN_UNRESOLVED_REF], 1);
    CHECK_EQ_INT(c.warn[TREAD_WARN_BAD_RECORD], 1);
    CHECK_EQ_INT(c.warn[TREAD_WARN_BAD_FIELD], 1);
    const cev *u = nth(&c, TREAD_EVENT_INSTANT, 0), *b = nth(&c, TREAD_EVENT_INSTANT, 1);
    const cev *sh = nth(&c, TREAD_EVENT_INSTANT, 2), *w = nth(&c, TREAD_EVENT_INSTANT, 3);
    CHECK(u && b && sh && w);
    if (!u || !b || !sh || !w)
        goto out;
    CHECK_EQ_STR(u->sf, "");
    /* the bad frame keeps what decoded before its error, as an interned
     * one does: a frame without a name under "ok" */
    const cev *ok = nth(&c, TREAD_EVENT_STACK_FRAME, 0), *nameless = nth(&c, TREAD_EVENT_STACK_FRAME, 1);
    CHECK(ok && nameless);
    if (ok && nameless) {
        CHECK_EQ_STR(ok->name, "ok");
        CHECK_EQ_STR(nameless->name, "");
        CHECK_EQ_STR(nameless->parent, ok->id);
        CHECK_EQ_STR(b->sf, nameless->id);
    }
    const cev *first = nth(&c, TREAD_EVENT_STACK_FRAME, 2), *second = nth(&c, TREAD_EVENT_STACK_FRAME, 3);
    const cev *smp = nth(&c, TREAD_EVENT_SAMPLE, 0);
    CHECK(first && second && smp);
    if (first && second && smp) {
        CHECK_EQ_STR(first->name, "first");
        CHECK_EQ_STR(second->name, "second");
        CHECK_EQ_STR(sh->sf, second->id);
        CHECK_EQ_STR(smp->sf, nth(&c, TREAD_EVENT_STACK_FRAME, 6)->id); /* "other" */
        CHECK_EQ_STR(nth(&c, TREAD_EVENT_STACK_FRAME, 4)->name, "main");
        CHECK_EQ_STR(nth(&c, TREAD_EVENT_STACK_FRAME, 4)->cat, "/system/lib64/libc.so");
    }
    CHECK_EQ_STR(w->sf, "");
out:
    free(c.e);
    pb_free(&t);
}

/* ---- StackSample ------------------------------------------------------------ */

/* StackSample's contexts, inline and interned (InternedData 48, 49), its
 * callstack interned or inline, its primary weight. */
static void test_stack_sample(void)
{
    pb t, in, x, ctx, inl;
    pb_init(&t);
    seq_start(&t, 1, 0);
    pb_init(&in); /* task context 5: pid 200, tid 201; execution context 6: cpu 4 */
    size_t m = pb_begin(&in, 48);
    pb_varint(&in, 1, 5);
    pb_varint(&in, 2, 200);
    pb_varint(&in, 3, 201);
    pb_end(&in, m);
    m = pb_begin(&in, 49);
    pb_varint(&in, 1, 6);
    pb_varint(&in, 2, 4);
    pb_varint(&in, 3, 2);
    pb_end(&in, m);
    packet(&t, 1, 2, -1, &in, 0, NULL);
    pb_free(&in);
    /* inline contexts, interned callstack, a weight */
    pb_init(&x);
    pb_init(&ctx);
    pb_varint(&ctx, 2, 100);
    pb_varint(&ctx, 3, 101);
    pb_msg(&x, 1, &ctx);
    pb_free(&ctx);
    pb_init(&ctx);
    pb_varint(&ctx, 2, 3);
    pb_msg(&x, 3, &ctx);
    pb_free(&ctx);
    pb_varint(&x, 6, 1);
    pb_varint(&x, 11, 7);
    packet(&t, 1, 2, 1000, NULL, STACK_SAMPLE, &x);
    pb_free(&x);
    /* interned contexts, an inline callstack */
    pb_init(&x);
    pb_varint(&x, 2, 5);
    pb_varint(&x, 4, 6);
    pb_init(&inl);
    inline_frame(&inl, "root", NULL, 0);
    inline_frame(&inl, "leafy", "/x.c", 3);
    pb_msg(&x, 5, &inl);
    pb_free(&inl);
    packet(&t, 1, 2, 2000, NULL, STACK_SAMPLE, &x);
    pb_free(&x);
    /* a task context never interned, no callstack, no weight */
    pb_init(&x);
    pb_varint(&x, 2, 99);
    packet(&t, 1, 2, 3000, NULL, STACK_SAMPLE, &x);
    pb_free(&x);
    /* a tid without a pid; a message that does not decode */
    pb_init(&x);
    pb_init(&ctx);
    pb_varint(&ctx, 3, 55);
    pb_msg(&x, 1, &ctx);
    pb_free(&ctx);
    packet(&t, 1, 2, 4000, NULL, STACK_SAMPLE, &x);
    pb_free(&x);
    pb_init(&x);
    pb_raw(&x, "\xff\xff\xff", 3);
    packet(&t, 1, 2, 5000, NULL, STACK_SAMPLE, &x);
    pb_free(&x);

    coll c = {0};
    CHECK_EQ_INT(parse(&c, &t), TREAD_STATUS_OK);
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_SAMPLE), 4);
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_STACK_FRAME), 5);
    CHECK_EQ_INT(c.warn[TREAD_WARN_UNRESOLVED_REF], 1);
    CHECK_EQ_INT(c.warn[TREAD_WARN_BAD_RECORD], 1);
    const cev *a = nth(&c, TREAD_EVENT_SAMPLE, 0), *b = nth(&c, TREAD_EVENT_SAMPLE, 1);
    const cev *u = nth(&c, TREAD_EVENT_SAMPLE, 2), *v = nth(&c, TREAD_EVENT_SAMPLE, 3);
    CHECK(a && b && u && v);
    if (!a || !b || !u || !v)
        goto out;
    CHECK_EQ_STR(a->sf, nth(&c, TREAD_EVENT_STACK_FRAME, 2)->id);
    CHECK_EQ_STR(nth(&c, TREAD_EVENT_STACK_FRAME, 2)->name, "leaf");
    CHECK(a->ev.ts == 1000 && (a->ev.flags & TREAD_HAS_TS));
    CHECK(a->ev.pid == 100 && a->ev.tid == 101 && (a->ev.flags & TREAD_HAS_PID) &&
          (a->ev.flags & TREAD_HAS_TID));
    CHECK(a->ev.cpu == 3 && (a->ev.flags & TREAD_HAS_CPU));
    CHECK(a->ev.value_int == 7 && (a->ev.flags & TREAD_VALUE_IS_INT));
    CHECK(a->has_weight && a->weight == 7);
    const cev *leafy = nth(&c, TREAD_EVENT_STACK_FRAME, 4);
    CHECK_EQ_STR(leafy->name, "leafy");
    CHECK_EQ_STR(leafy->parent, nth(&c, TREAD_EVENT_STACK_FRAME, 3)->id);
    CHECK_EQ_STR(b->sf, leafy->id);
    CHECK(b->ev.pid == 200 && b->ev.tid == 201 && b->ev.cpu == 4 && (b->ev.flags & TREAD_HAS_CPU));
    CHECK(!(b->ev.flags & TREAD_HAS_VALUE));
    CHECK(u->ev.ts == 3000 && (u->ev.flags & TREAD_THREAD_UNRESOLVED) &&
          !(u->ev.flags & TREAD_HAS_PID));
    CHECK_EQ_STR(u->sf, "");
    CHECK(v->ev.tid == 55 && (v->ev.flags & TREAD_HAS_TID) && !(v->ev.flags & TREAD_HAS_PID));
out:
    free(c.e);
    pb_free(&t);
}

/* A CounterDescriptor{iid, name, unit} (iid 0: none) into field num of m. */
static void counter_desc(pb *m, uint32_t num, uint64_t iid, const char *name, uint64_t unit)
{
    size_t k = pb_begin(m, num);
    if (iid)
        pb_varint(m, 1, iid);
    pb_string(m, 2, name);
    if (unit)
        pb_varint(m, 3, unit);
    pb_end(m, k);
}

/* A packet on seq with InternedData in (may be NULL) and, when src,
 * TracePacketDefaults{stack_sample_defaults{source, primary, followers}}. */
static void ss_defaults_packet(pb *t, uint32_t seq, uint32_t flags, const pb *in, const char *src,
                               const char *primary, const char *follower)
{
    size_t m = pb_begin(t, 1);
    pb_varint(t, SEQ, seq);
    if (flags)
        pb_varint(t, FLAGS, flags);
    if (in)
        pb_msg(t, INTERNED, in);
    if (src) {
        size_t d = pb_begin(t, 59);
        size_t s = pb_begin(t, 100);
        pb_string(t, 1, src);
        if (primary)
            counter_desc(t, 2, 0, primary, 1);
        if (follower)
            counter_desc(t, 3, 0, follower, 5);
        pb_end(t, s);
        pb_end(t, d);
    }
    pb_end(t, m);
}

/* StackSample's references in its args: interned contexts and counter
 * descriptors as the messages they name, the sequence's defaults where
 * the sample has no descriptor of its own, their source as the category;
 * a clear forgets the defaults; the limit on what resolving may add. */
static void test_stack_sample_resolved(void)
{
    pb t, in, x;
    pb_init(&t);
    seq_start(&t, 1, 0);
    pb_init(&in);
    size_t m = pb_begin(&in, 48); /* task context 5: pid 200, tid 201 */
    pb_varint(&in, 1, 5);
    pb_varint(&in, 2, 200);
    pb_varint(&in, 3, 201);
    pb_end(&in, m);
    m = pb_begin(&in, 49); /* execution context 6: cpu 4 */
    pb_varint(&in, 1, 6);
    pb_varint(&in, 2, 4);
    pb_end(&in, m);
    counter_desc(&in, 50, 1, "cycles", 2);
    counter_desc(&in, 50, 2, "instructions", 3);
    ss_defaults_packet(&t, 1, 2, &in, "python.wall", "wall-time", "faults");
    pb_free(&in);
    /* A: everything by iid, a follower iid never interned */
    pb_init(&x);
    pb_varint(&x, 2, 5);
    pb_varint(&x, 4, 6);
    pb_varint(&x, 10, 1);
    pb_tag(&x, 13, 2);
    pb_varint_raw(&x, 2);
    pb_raw(&x, "\x02\x09", 2);
    pb_varint(&x, 11, 10);
    packet(&t, 1, 2, 1000, NULL, STACK_SAMPLE, &x);
    pb_free(&x);
    /* B: a weight alone: the defaults' descriptors */
    pb_init(&x);
    pb_varint(&x, 11, 20);
    packet(&t, 1, 2, 2000, NULL, STACK_SAMPLE, &x);
    pb_free(&x);
    /* C: its own primary, inline; the defaults' follower */
    pb_init(&x);
    counter_desc(&x, 9, 0, "own", 0);
    pb_varint(&x, 11, 30);
    packet(&t, 1, 2, 3000, NULL, STACK_SAMPLE, &x);
    pb_free(&x);
    /* D: after a clear the defaults are gone */
    ss_defaults_packet(&t, 1, 1, NULL, NULL, NULL, NULL);
    pb_init(&x);
    pb_varint(&x, 11, 40);
    packet(&t, 1, 2, 4000, NULL, STACK_SAMPLE, &x);
    pb_free(&x);

    coll c = {0};
    CHECK_EQ_INT(parse(&c, &t), TREAD_STATUS_OK);
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_SAMPLE), 4);
    const cev *a = nth(&c, TREAD_EVENT_SAMPLE, 0), *b = nth(&c, TREAD_EVENT_SAMPLE, 1);
    const cev *cc = nth(&c, TREAD_EVENT_SAMPLE, 2), *dd = nth(&c, TREAD_EVENT_SAMPLE, 3);
    CHECK(a && b && cc && dd);
    if (a && b && cc && dd) {
        CHECK(a->task_pid == 200 && a->exec_cpu == 4);
        CHECK(a->ev.pid == 200 && a->ev.tid == 201 && a->ev.cpu == 4);
        CHECK_EQ_STR(a->prim, "cycles");
        CHECK_EQ_STR(a->fol0, "instructions");
        CHECK_EQ_STR(a->fol1, "");
        CHECK(a->has_fol1); /* iid 9, never interned: an empty descriptor in its place */
        CHECK_EQ_INT(a->fiid0, 2); /* the iids stay, their descriptors after them */
        CHECK(a->has_weight && a->weight == 10);
        CHECK_EQ_STR(a->cat, "python.wall");
        CHECK_EQ_STR(b->prim, "wall-time");
        CHECK_EQ_STR(b->fol0, "faults");
        CHECK_EQ_STR(b->cat, "python.wall");
        CHECK(b->task_pid == -1 && b->fiid0 == -1);
        CHECK_EQ_STR(cc->prim, "own");
        CHECK_EQ_STR(cc->fol0, "faults");
        CHECK_EQ_STR(dd->prim, "");
        CHECK_EQ_STR(dd->fol0, "");
        CHECK_EQ_STR(dd->cat, "");
        CHECK(!(dd->ev.cat.ptr && dd->ev.cat.len));
    }
    free(c.e);

    /* what resolving adds is bounded by max_event_bytes: a sample naming
     * one long descriptor 40 times keeps its own bytes, warned */
    pb_free(&t);
    pb_init(&t);
    seq_start(&t, 1, 0);
    pb_init(&in);
    char longname[200];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    counter_desc(&in, 50, 3, longname, 0);
    packet(&t, 1, 2, -1, &in, 0, NULL);
    pb_free(&in);
    pb_init(&x);
    pb_tag(&x, 13, 2);
    pb_varint_raw(&x, 40);
    for (int i = 0; i < 40; i++)
        pb_raw(&x, "\x03", 1);
    packet(&t, 1, 2, 1000, NULL, STACK_SAMPLE, &x);
    pb_free(&x);
    memset(&c, 0, sizeof c);
    CHECK_EQ_INT(parse_opt(&c, &t, TREAD_OPT_MAX_EVENT_BYTES, 4096), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.warn[TREAD_WARN_LIMIT], 1);
    a = nth(&c, TREAD_EVENT_SAMPLE, 0);
    CHECK(a && a->fol0[0] == 0 && a->fiid0 == 3); /* its own packed iids */
    free(c.e);
    memset(&c, 0, sizeof c);
    CHECK_EQ_INT(parse(&c, &t), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.warn[TREAD_WARN_LIMIT], 0);
    a = nth(&c, TREAD_EVENT_SAMPLE, 0);
    CHECK(a && a->fol0[0] == 'n');
    free(c.e);
    pb_free(&t);
}

/* ---- malformed, chunks and stops ---------------------------------------- */

static void test_malformed(void)
{
    pb t, in, s;
    pb_init(&t);
    pb_init(&in);
    size_t m = pb_begin(&in, 7); /* a callstack whose packed ids overrun */
    pb_varint(&in, 1, 1);
    pb_tag(&in, 2, 2);
    pb_varint_raw(&in, 2);
    pb_raw(&in, "\x80\x80", 2);
    pb_end(&in, m);
    packet(&t, 1, 1, -1, &in, 0, NULL);
    pb_free(&in);
    perf(&t, 1, 1000, 1, 1);
    pb_init(&s);
    pb_raw(&s, "\xff\xff\xff", 3); /* a PerfSample that does not decode */
    packet(&t, 1, 2, 1100, NULL, PERF, &s);
    pb_free(&s);
    coll c = {0};
    CHECK_EQ_INT(parse(&c, &t), TREAD_STATUS_OK);
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_SAMPLE), 1);
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_STACK_FRAME), 0);
    CHECK(c.warn[TREAD_WARN_BAD_RECORD] >= 2);
    free(c.e);
    pb_free(&t);
}

static void test_equivalence(void)
{
    pb t, td;
    pb_init(&t);
    seq_start(&t, 1, 0);
    pb_init(&td);
    pb_varint(&td, 1, 7);
    pb_varint(&td, 2, 8);
    pb_varint(&td, 6, 1000);
    packet(&t, 1, 0, -1, NULL, THDESC, &td);
    pb_free(&td);
    const uint64_t cs[] = {1, 2, 1}, dt[] = {10, 5, 5};
    for (int i = 0; i < 4; i++) {
        perf(&t, 1, 1000 + i, (uint64_t)(1 + i % 2), (uint64_t)i);
        streaming(&t, 1, cs, 3, dt, 3);
    }
    seq_start(&t, 2, 30);
    perf(&t, 2, 9000, 32, 9);
    pb inl;
    pb_init(&inl);
    inline_frame(&inl, "main", "/src/main.cc", 10);
    inline_frame(&inl, "run", NULL, 0);
    for (int i = 0; i < 3; i++) {
        te_packet(&t, 2, 9100 + i, 3, "te", (uint64_t)(31 + i % 2), NULL, PERF, NULL);
        te_packet(&t, 2, 9200 + i, 1, "te inline", 0, &inl, 0, NULL);
        pb ss;
        pb_init(&ss);
        pb_varint(&ss, 6, (uint64_t)(31 + i % 2));
        pb_msg(&ss, 5, &inl); /* (the inline one wins) */
        pb_varint(&ss, 11, (uint64_t)i);
        packet(&t, 2, 2, 9300 + i, NULL, STACK_SAMPLE, &ss);
        pb_free(&ss);
    }
    /* a sample whose args are resolved (pf_profile.c resolve_sample) */
    pb din;
    pb_init(&din);
    counter_desc(&din, 50, 4, "cycles", 2);
    ss_defaults_packet(&t, 2, 2, &din, "src", "wall", "faults");
    pb_free(&din);
    for (int i = 0; i < 2; i++) {
        pb ss;
        pb_init(&ss);
        if (i)
            pb_varint(&ss, 10, 4);
        pb_varint(&ss, 11, (uint64_t)i);
        packet(&t, 2, 2, 9400 + i, NULL, STACK_SAMPLE, &ss);
        pb_free(&ss);
    }
    pb_free(&inl);
    dump ref;
    dump_init(&ref);
    dump_parse(&ref, t.data, t.len, 0, NULL);
    CHECK(ref.events >= 21);
    const size_t chunks[] = {1, 3, 64};
    for (size_t i = 0; i < 3; i++) {
        for (int stop = 0; stop < 2; stop++) {
            dump d;
            dump_init(&d);
            d.stop_every = (size_t)stop;
            dump_parse(&d, t.data, t.len, chunks[i], NULL);
            CHECK(ref.text && d.text && strcmp(ref.text, d.text) == 0);
            if (ref.text && d.text && strcmp(ref.text, d.text) != 0)
                dump_show_difference(ref.text, d.text);
            dump_free(&d);
        }
    }
    dump_free(&ref);
    pb_free(&t);
}

int main(void)
{
    test_perf_sample();
    test_ids_shared();
    test_redefined();
    test_unresolved();
    test_interned_later();
    test_depth_limit();
    test_node_limit();
    test_packet_frames_limit();
    test_streaming();
    test_track_event_callstack();
    test_track_event_callstack_bad();
    test_stack_sample();
    test_stack_sample_resolved();
    test_malformed();
    test_equivalence();
    return TEST_EXIT();
}
