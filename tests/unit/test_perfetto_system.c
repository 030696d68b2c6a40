/* Perfetto system data sources: ftrace bundles (full events, compact_sched,
 * atrace prints, cpu counters, thread names, generic events, ftrace
 * clocks, lost events), SysStats, ProcessStats, AndroidLogPacket,
 * BatteryCounters, PowerRails, malformed messages, and chunk/stop
 * equivalence. Traces are built with pb_build; field numbers are those of
 * ../shared/spec/perfetto_fields.tsv. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tread.h>
#include <tread/perfetto.h>
#include "testlib.h"
#include "event_dump.h"
#include "pb_build.h"

/* ---- collecting events ------------------------------------------------ */

#define MAXEV 128
typedef struct cev {
    tread_event ev;
    char name[64], cat[64], series[64], meta_str[64], id[32];
    /* args looked up while the event is valid */
    int64_t a_next_pid, a_irq;
    char a_next_comm[32], a_prio[32];
    int has_next_pid, has_next_comm, has_irq, has_prio;
} cev;

typedef struct coll {
    cev e[MAXEV];
    int n;
    int warn[TREAD_WARN_KIND_COUNT_];
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

static int on_event(void *user, const tread_event *ev)
{
    coll *c = user;
    if (c->n >= MAXEV)
        return 0;
    cev *x = &c->e[c->n++];
    memset(x, 0, sizeof *x);
    x->ev = *ev;
    cpy(x->name, sizeof x->name, ev->name);
    cpy(x->cat, sizeof x->cat, ev->cat);
    cpy(x->series, sizeof x->series, ev->series);
    cpy(x->meta_str, sizeof x->meta_str, ev->meta_str);
    cpy(x->id, sizeof x->id, ev->id);
    tread_arg a;
    if (tread_args_find(&ev->args, "next_pid", 8, &a) && a.type == TREAD_ARG_INT)
        x->has_next_pid = 1, x->a_next_pid = a.v.i;
    if (tread_args_find(&ev->args, "next_comm", 9, &a) && a.type == TREAD_ARG_STRING) {
        x->has_next_comm = 1;
        cpy(x->a_next_comm, sizeof x->a_next_comm, (tread_str){NULL, 0});
        size_t n = a.v.s.len < 31 ? a.v.s.len : 31;
        memcpy(x->a_next_comm, a.v.s.ptr, n);
        x->a_next_comm[n] = 0;
    }
    if (tread_args_find(&ev->args, "irq", 3, &a) && a.type == TREAD_ARG_INT)
        x->has_irq = 1, x->a_irq = a.v.i;
    if (tread_args_find(&ev->args, "prio", 4, &a) && a.type == TREAD_ARG_STRING) {
        x->has_prio = 1;
        size_t n = a.v.s.len < 31 ? a.v.s.len : 31;
        memcpy(x->a_prio, a.v.s.ptr, n);
        x->a_prio[n] = 0;
    }
    return 0;
}

static int on_warning(void *user, const tread_warning *w)
{
    coll *c = user;
    c->warn[w->kind]++;
    return 0;
}

static tread_status parse(coll *c, const pb *t, tread_parser **out)
{
    memset(c, 0, sizeof *c);
    tread_parser *p = tread_parser_create(NULL);
    tread_callbacks cb = {.event = on_event, .warning = on_warning};
    tread_set_callbacks(p, &cb, c);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_PERFETTO), 0);
    tread_status st = tread_feed(p, t->data, t->len);
    if (st == TREAD_STATUS_OK)
        st = tread_finish(p);
    if (out)
        *out = p;
    else
        tread_parser_free(p);
    return st;
}

/* The first event named name (and kind, unless -1), or NULL. */
static const cev *find(const coll *c, const char *name, int kind)
{
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->e[i].name, name) && (kind < 0 || (int)c->e[i].ev.kind == kind))
            return &c->e[i];
    return NULL;
}

static int count_kind(const coll *c, tread_event_kind k)
{
    int n = 0;
    for (int i = 0; i < c->n; i++)
        n += c->e[i].ev.kind == k;
    return n;
}

/* ---- building packets ------------------------------------------------- */

/* A packet on sequence 1: data field num = msg, timestamp ts (>= 0). */
static void packet(pb *t, int64_t ts, uint32_t num, const pb *msg)
{
    size_t m = pb_begin(t, 1);
    if (ts >= 0)
        pb_varint(t, 8, (uint64_t)ts);
    pb_varint(t, 10, 1);
    pb_msg(t, num, msg);
    pb_end(t, m);
}

/* A ClockSnapshot packet: BOOTTIME (6) at boot, clock other at other_ts. */
static void clock_snapshot(pb *t, int64_t boot, uint32_t other, int64_t other_ts)
{
    pb cs;
    pb_init(&cs);
    size_t c = pb_begin(&cs, 1);
    pb_varint(&cs, 1, 6);
    pb_varint(&cs, 2, (uint64_t)boot);
    pb_end(&cs, c);
    c = pb_begin(&cs, 1);
    pb_varint(&cs, 1, other);
    pb_varint(&cs, 2, (uint64_t)other_ts);
    pb_end(&cs, c);
    packet(t, -1, 6, &cs);
    pb_free(&cs);
}

/* FtraceEvent{timestamp, pid, <field num> = body}. */
static void fevent(pb *bundle, uint64_t ts, uint32_t pid, uint32_t num, const pb *body)
{
    size_t m = pb_begin(bundle, 2);
    pb_varint(bundle, 1, ts);
    pb_varint(bundle, 2, pid);
    pb_msg(bundle, num, body);
    pb_end(bundle, m);
}

static void sched_switch(pb *b, uint64_t ts, const char *prev, int prev_pid, const char *next,
                         int next_pid)
{
    pb sw;
    pb_init(&sw);
    pb_string(&sw, 1, prev);
    pb_varint(&sw, 2, (uint64_t)prev_pid);
    pb_varint(&sw, 3, 120);
    pb_varint(&sw, 4, 1);
    pb_string(&sw, 5, next);
    pb_varint(&sw, 6, (uint64_t)next_pid);
    pb_varint(&sw, 7, 100);
    fevent(b, ts, (uint32_t)prev_pid, 4, &sw);
    pb_free(&sw);
}

static void wakeup(pb *b, uint64_t ts, uint32_t num, const char *comm, int pid, int target)
{
    pb w;
    pb_init(&w);
    pb_string(&w, 1, comm);
    pb_varint(&w, 2, (uint64_t)pid);
    pb_varint(&w, 3, 120);
    pb_varint(&w, 5, (uint64_t)target);
    fevent(b, ts, 1, num, &w);
    pb_free(&w);
}

static void print(pb *b, uint64_t ts, uint32_t pid, const char *text)
{
    pb pr;
    pb_init(&pr);
    pb_varint(&pr, 1, 0xffff1234);
    pb_string(&pr, 2, text);
    fevent(b, ts, pid, 3, &pr);
    pb_free(&pr);
}

static void two_varints(pb *b, uint64_t ts, uint32_t pid, uint32_t num, uint64_t a, uint64_t c)
{
    pb m;
    pb_init(&m);
    pb_varint(&m, 1, a);
    pb_varint(&m, 2, c);
    fevent(b, ts, pid, num, &m);
    pb_free(&m);
}

/* ---- ftrace: full events ---------------------------------------------- */

static void test_ftrace_events(void)
{
    pb t, b, m;
    pb_init(&t);
    pb_init(&b);
    pb_varint(&b, 1, 2); /* cpu 2 */
    sched_switch(&b, 1000, "idle", 0, "app", 42);
    wakeup(&b, 1100, 20, "waker", 43, 3);     /* sched_waking */
    wakeup(&b, 1200, 17, "wokenup", 44, 1);   /* sched_wakeup */
    wakeup(&b, 1300, 114, "newborn", 45, 0);  /* sched_wakeup_new */
    two_varints(&b, 1400, 0, 11, 1800000, 2); /* cpu_frequency state, cpu_id */
    two_varints(&b, 1500, 0, 13, 4294967295u, 2); /* cpu_idle: leaving idle */
    pb_init(&m);
    pb_varint(&m, 1, 77);
    pb_string(&m, 2, "child");
    pb_varint(&m, 3, 0x11);
    fevent(&b, 1600, 42, 235, &m); /* task_newtask */
    pb_free(&m);
    pb_init(&m);
    pb_varint(&m, 1, 77);
    pb_string(&m, 2, "child");
    pb_string(&m, 3, "renamed");
    fevent(&b, 1700, 77, 236, &m); /* task_rename */
    pb_free(&m);
    pb_init(&m);
    pb_varint(&m, 1, 9);             /* IrqHandlerEntryFtraceEvent.irq */
    pb_string(&m, 2, "timer");
    fevent(&b, 1800, 0, 36, &m);     /* irq_handler_entry: generic */
    pb_free(&m);
    packet(&t, 900, 1, &b);
    pb_free(&b);

    coll c;
    tread_parser *p;
    CHECK_EQ_INT(parse(&c, &t, &p), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.n, 9);
    const cev *e = find(&c, "sched_switch", TREAD_EVENT_CONTEXT_SWITCH);
    CHECK(e != NULL);
    if (e) {
        CHECK(e->ev.flags & TREAD_HAS_TS);
        CHECK_EQ_INT(e->ev.ts, 1000);
        CHECK(e->ev.flags & TREAD_HAS_CPU);
        CHECK_EQ_INT(e->ev.cpu, 2);
        CHECK(e->ev.flags & TREAD_HAS_TID);
        CHECK_EQ_INT(e->ev.tid, 0); /* the thread switched out */
        CHECK(e->ev.flags & TREAD_HAS_SEQ);
        CHECK_EQ_STR(e->cat, "ftrace");
        CHECK_EQ_INT(e->ev.args.encoding, TREAD_ARGS_PROTO);
        CHECK(e->has_next_pid && e->a_next_pid == 42);
        CHECK(e->has_next_comm);
        CHECK_EQ_STR(e->a_next_comm, "app");
    }
    e = find(&c, "sched_waking", TREAD_EVENT_WAKEUP);
    CHECK(e && e->ev.tid == 43 && e->ev.ts == 1100 && e->ev.cpu == 2);
    e = find(&c, "sched_wakeup", TREAD_EVENT_WAKEUP);
    CHECK(e && e->ev.tid == 44);
    e = find(&c, "sched_wakeup_new", TREAD_EVENT_WAKEUP);
    CHECK(e && e->ev.tid == 45);
    e = find(&c, "cpufreq", TREAD_EVENT_COUNTER);
    CHECK(e != NULL);
    if (e) {
        CHECK_EQ_STR(e->series, "cpufreq");
        CHECK_EQ_INT(e->ev.cpu, 2);
        CHECK(e->ev.flags & TREAD_VALUE_IS_INT);
        CHECK_EQ_INT(e->ev.value_int, 1800000);
        CHECK(!(e->ev.flags & (TREAD_HAS_PID | TREAD_HAS_TID)));
    }
    e = find(&c, "cpuidle", TREAD_EVENT_COUNTER);
    CHECK(e && e->ev.value_int == 4294967295LL);
    int names = 0;
    for (int i = 0; i < c.n; i++) {
        const cev *x = &c.e[i];
        if (x->ev.kind != TREAD_EVENT_METADATA || x->ev.meta != TREAD_META_THREAD_NAME)
            continue;
        CHECK_EQ_INT(x->ev.tid, 77);
        CHECK_EQ_STR(x->meta_str, names ? "renamed" : "child");
        names++;
    }
    CHECK_EQ_INT(names, 2);
    e = find(&c, "irq_handler_entry", TREAD_EVENT_INSTANT);
    CHECK(e != NULL);
    if (e) {
        CHECK_EQ_STR(e->cat, "ftrace");
        CHECK_EQ_INT(e->ev.args.encoding, TREAD_ARGS_PROTO);
        CHECK(e->has_irq && e->a_irq == 9);
        CHECK_EQ_INT(e->ev.ts, 1800);
    }
    CHECK_EQ_INT(test_format_counter(p, "ftrace_bundles"), 1);
    CHECK_EQ_INT(test_format_counter(p, "ftrace_events"), 9);
    CHECK_EQ_INT(test_format_counter(p, "ftrace_generic_events"), 1);
    tread_parser_free(p);
    pb_free(&t);
}

/* ---- ftrace: generic event names (cached per field number) ----------- */

static void test_ftrace_generic_names(void)
{
    /* 36, 68, 100 and 60004 share a slot of the decoder's name cache:
     * every event must still get its own field's name, and its args */
    static const uint32_t nums[] = {36, 68, 36, 60004, 100, 60004, 36};
    static const char *const names[] = {"irq_handler_entry", "cgroup_mkdir",
                                        "irq_handler_entry", "ftrace_event_60004",
                                        "mm_compaction_defer_compaction",
                                        "ftrace_event_60004", "irq_handler_entry"};
    pb t, b, m;
    pb_init(&t);
    pb_init(&b);
    pb_varint(&b, 1, 0);
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        pb_init(&m);
        pb_varint(&m, 1, 9);
        fevent(&b, 100 + i, 5, nums[i], &m);
        pb_free(&m);
    }
    packet(&t, 90, 1, &b);
    pb_free(&b);
    coll c;
    tread_parser *p;
    CHECK_EQ_INT(parse(&c, &t, &p), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.n, 7);
    for (int i = 0; i < c.n && i < 7; i++) {
        CHECK_EQ_STR(c.e[i].name, names[i]);
        CHECK_EQ_INT(c.e[i].ev.kind, TREAD_EVENT_INSTANT);
        /* a schema type: args through it; an unknown field: none */
        CHECK_EQ_INT(c.e[i].ev.args.encoding,
                     nums[i] == 60004 ? TREAD_ARGS_TOKENS : TREAD_ARGS_PROTO);
    }
    CHECK_EQ_INT(test_format_counter(p, "ftrace_generic_events"), 7);
    tread_parser_free(p);
    pb_free(&t);
}

/* ---- ftrace: atrace prints ------------------------------------------- */

static void test_ftrace_atrace(void)
{
    pb t, b;
    pb_init(&t);
    pb_init(&b);
    pb_varint(&b, 1, 0);
    print(&b, 100, 50, "B|40|frame\n");
    print(&b, 200, 50, "E|40\n");
    print(&b, 300, 50, "C|40|queue|7\n");
    print(&b, 400, 50, "S|40|load|1234\n");
    print(&b, 500, 51, "F|40|load|1234\n");
    print(&b, 600, 50, "I|40|tick\n");
    print(&b, 700, 50, "just some text\n");
    print(&b, 800, 50, "C|40|broken\n"); /* atrace-shaped, unusable */
    /* a category of its own: copied at delivery, NUL-terminated (on_event
     * checks), unlike the static "atrace" */
    print(&b, 900, 50, "B|40|frame2|k=v|mycat\n");
    packet(&t, -1, 1, &b);
    pb_free(&b);

    coll c;
    CHECK_EQ_INT(parse(&c, &t, NULL), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.n, 9);
    const cev *e = find(&c, "frame", TREAD_EVENT_SLICE_BEGIN);
    CHECK(e && e->ev.pid == 40 && e->ev.tid == 50 && e->ev.ts == 100);
    CHECK(e && !strcmp(e->cat, "atrace"));
    e = find(&c, "frame2", TREAD_EVENT_SLICE_BEGIN);
    CHECK(e && !strcmp(e->cat, "mycat") && e->ev.ts == 900);
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_SLICE_END), 1);
    e = find(&c, "queue", TREAD_EVENT_COUNTER);
    CHECK(e && e->ev.value_int == 7 && e->ev.pid == 40);
    e = find(&c, "load", TREAD_EVENT_ASYNC_BEGIN);
    CHECK(e && e->ev.id_num == 1234);
    e = find(&c, "load", TREAD_EVENT_ASYNC_END);
    CHECK(e && e->ev.id_num == 1234 && e->ev.ts == 500);
    e = find(&c, "tick", TREAD_EVENT_INSTANT);
    CHECK(e != NULL);
    /* the plain text and the broken payload are generic "print" events */
    int prints = 0;
    for (int i = 0; i < c.n; i++)
        prints += !strcmp(c.e[i].name, "print") && c.e[i].ev.kind == TREAD_EVENT_INSTANT;
    CHECK_EQ_INT(prints, 2);
    CHECK_EQ_INT(c.warn[TREAD_WARN_BAD_FIELD], 1);
    pb_free(&t);
}

/* ---- ftrace: compact_sched -------------------------------------------- */

static void test_ftrace_compact(void)
{
    pb t, b, cs;
    pb_init(&t);
    /* bundle 1 on cpu 1: one full sched_switch (switches 10 in) */
    pb_init(&b);
    pb_varint(&b, 1, 1);
    sched_switch(&b, 1000, "idle", 0, "ten", 10);
    packet(&t, -1, 1, &b);
    pb_free(&b);
    /* bundle 2 on cpu 1: two compact switches, 10 -> 11 -> 12, and one
     * waking between them; bundle 3 on cpu 3: one switch, prev unknown */
    pb_init(&b);
    pb_varint(&b, 1, 1);
    pb_init(&cs);
    const uint64_t sw_ts[] = {2000, 100}; /* 2000, 2100 */
    const uint64_t sw_state[] = {1, 0};
    const uint64_t sw_pid[] = {11, 12};
    const uint64_t sw_prio[] = {120, 110};
    const uint64_t sw_comm[] = {0, 1};
    const uint64_t wk_ts[] = {2050};
    const uint64_t wk_pid[] = {13};
    const uint64_t wk_cpu[] = {2};
    const uint64_t wk_prio[] = {100};
    const uint64_t wk_comm[] = {2};
    const uint64_t wk_flags[] = {1};
    pb_packed(&cs, 1, sw_ts, 2);
    pb_packed(&cs, 2, sw_state, 2);
    pb_packed(&cs, 3, sw_pid, 2);
    pb_packed(&cs, 4, sw_prio, 2);
    pb_string(&cs, 5, "eleven");
    pb_string(&cs, 5, "twelve");
    pb_string(&cs, 5, "thirteen");
    pb_packed(&cs, 6, sw_comm, 2);
    pb_packed(&cs, 7, wk_ts, 1);
    pb_packed(&cs, 8, wk_pid, 1);
    pb_packed(&cs, 9, wk_cpu, 1);
    pb_packed(&cs, 10, wk_prio, 1);
    pb_packed(&cs, 11, wk_comm, 1);
    pb_packed(&cs, 12, wk_flags, 1);
    pb_msg(&b, 4, &cs);
    packet(&t, -1, 1, &b);
    pb_free(&b);
    pb_init(&b);
    pb_varint(&b, 1, 3);
    pb_msg(&b, 4, &cs); /* the same arrays on cpu 3 */
    packet(&t, -1, 1, &b);
    pb_free(&b);
    pb_free(&cs);

    coll c;
    tread_parser *p;
    CHECK_EQ_INT(parse(&c, &t, &p), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.n, 7);
    if (c.n == 7) {
        /* bundle 2, in time order: switch, waking, switch */
        const cev *s1 = &c.e[1], *w = &c.e[2], *s2 = &c.e[3];
        CHECK_EQ_INT(s1->ev.kind, TREAD_EVENT_CONTEXT_SWITCH);
        CHECK_EQ_INT(s1->ev.ts, 2000);
        CHECK_EQ_INT(s1->ev.tid, 10); /* from bundle 1's full event */
        CHECK(s1->has_next_pid && s1->a_next_pid == 11);
        CHECK_EQ_STR(s1->a_next_comm, "eleven");
        CHECK_EQ_INT(w->ev.kind, TREAD_EVENT_WAKEUP);
        CHECK_EQ_STR(w->name, "sched_waking");
        CHECK_EQ_INT(w->ev.ts, 2050);
        CHECK_EQ_INT(w->ev.tid, 13);
        CHECK_EQ_INT(s2->ev.ts, 2100);
        CHECK_EQ_INT(s2->ev.tid, 11);
        CHECK(s2->has_next_pid && s2->a_next_pid == 12);
        CHECK_EQ_STR(s2->a_next_comm, "twelve");
        /* bundle 3 (cpu 3): nothing ran there before: no thread */
        const cev *s3 = &c.e[4];
        CHECK_EQ_INT(s3->ev.kind, TREAD_EVENT_CONTEXT_SWITCH);
        CHECK_EQ_INT(s3->ev.cpu, 3);
        CHECK(!(s3->ev.flags & TREAD_HAS_TID));
        CHECK_EQ_INT(c.e[6].ev.tid, 11);
    }
    CHECK_EQ_INT(test_format_counter(p, "ftrace_compact_sched_switch"), 4);
    CHECK_EQ_INT(test_format_counter(p, "ftrace_compact_sched_waking"), 2);
    tread_parser_free(p);
    pb_free(&t);
}

/* ---- ftrace: clocks and lost events ----------------------------------- */

static void test_ftrace_clocks(void)
{
    pb t, b;
    pb_init(&t);
    clock_snapshot(&t, 1000000, 5, 400000); /* MONO_RAW = BOOTTIME - 600000 */
    /* mono_raw */
    pb_init(&b);
    pb_varint(&b, 1, 0);
    pb_varint(&b, 5, 4);
    two_varints(&b, 500000, 0, 11, 1, 0);
    packet(&t, -1, 1, &b);
    pb_free(&b);
    /* global with a pair: boot = ftrace + 5000 */
    pb_init(&b);
    pb_varint(&b, 1, 0);
    pb_varint(&b, 5, 2);
    pb_varint(&b, 6, 10000);
    pb_varint(&b, 7, 15000);
    two_varints(&b, 20000, 0, 11, 2, 0);
    packet(&t, -1, 1, &b);
    pb_free(&b);
    /* local without a pair: raw; and lost events */
    pb_init(&b);
    pb_varint(&b, 1, 0);
    pb_varint(&b, 3, 1);
    pb_varint(&b, 5, 3);
    two_varints(&b, 777, 0, 11, 3, 0);
    packet(&t, -1, 1, &b);
    pb_free(&b);

    coll c;
    tread_parser *p;
    CHECK_EQ_INT(parse(&c, &t, &p), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.n, 4); /* clock sync + 3 counters */
    if (c.n == 4) {
        CHECK(c.e[1].ev.flags & TREAD_HAS_TS);
        CHECK_EQ_INT(c.e[1].ev.ts, 1100000);
        CHECK_EQ_INT(c.e[2].ev.ts, 25000);
        CHECK(!(c.e[3].ev.flags & TREAD_HAS_TS));
        CHECK(c.e[3].ev.flags & TREAD_HAS_RAW_TS);
        CHECK_EQ_INT(c.e[3].ev.raw_ts, 777);
        CHECK_EQ_INT(c.e[3].ev.clock_id, 0);
    }
    CHECK_EQ_INT(c.warn[TREAD_WARN_DATA_LOSS], 1);
    CHECK_EQ_INT(c.warn[TREAD_WARN_CLOCK], 1);
    CHECK_EQ_INT(test_format_counter(p, "ftrace_bundles_lost_events"), 1);
    CHECK_EQ_INT(test_format_counter(p, "ftrace_timestamps_raw_clock"), 1);
    tread_parser_free(p);
    pb_free(&t);
}

/* ---- SysStats, ProcessStats ------------------------------------------- */

static void kv(pb *m, uint32_t field, uint64_t key, uint64_t value)
{
    size_t k = pb_begin(m, field);
    pb_varint(m, 1, key);
    pb_varint(m, 2, value);
    pb_end(m, k);
}

static void test_sys_stats(void)
{
    pb t, m;
    pb_init(&t);
    pb_init(&m);
    kv(&m, 1, 1, 2000);  /* MEMINFO_MEM_TOTAL, kB */
    kv(&m, 2, 1, 33);    /* VMSTAT_NR_FREE_PAGES */
    size_t k = pb_begin(&m, 3);
    pb_varint(&m, 1, 1); /* cpu 1 */
    pb_varint(&m, 2, 500); /* user_ns */
    pb_varint(&m, 5, 700); /* idle_ns */
    pb_end(&m, k);
    pb_varint(&m, 4, 99); /* num_forks */
    const uint64_t freqs[] = {300000, 600000};
    pb_packed(&m, 11, freqs, 2);
    k = pb_begin(&m, 14); /* psi */
    pb_varint(&m, 1, 1);  /* PSI_RESOURCE_CPU_SOME */
    pb_varint(&m, 2, 12345);
    pb_end(&m, k);
    packet(&t, 5000, 7, &m);
    pb_free(&m);
    /* ProcessStats: pid 42 rss 100 kB, oom_score_adj */
    pb_init(&m);
    k = pb_begin(&m, 1);
    pb_varint(&m, 1, 42);
    pb_varint(&m, 3, 100);
    pb_varint(&m, 10, 900);
    pb_end(&m, k);
    k = pb_begin(&m, 1); /* no pid: skipped with a warning */
    pb_varint(&m, 3, 1);
    pb_end(&m, k);
    packet(&t, 6000, 9, &m);
    pb_free(&m);

    coll c;
    tread_parser *p;
    CHECK_EQ_INT(parse(&c, &t, &p), TREAD_STATUS_OK);
    const cev *e = find(&c, "meminfo.mem_total", TREAD_EVENT_COUNTER);
    CHECK(e && e->ev.value_int == 2000 * 1024 && e->ev.ts == 5000);
    CHECK(e && !strcmp(e->series, "meminfo.mem_total"));
    e = find(&c, "vmstat.nr_free_pages", TREAD_EVENT_COUNTER);
    CHECK(e && e->ev.value_int == 33);
    e = find(&c, "cpu.times.user_ns", TREAD_EVENT_COUNTER);
    CHECK(e && e->ev.cpu == 1 && e->ev.value_int == 500);
    e = find(&c, "cpu.times.idle_ns", TREAD_EVENT_COUNTER);
    CHECK(e && e->ev.value_int == 700);
    e = find(&c, "num_forks", TREAD_EVENT_COUNTER);
    CHECK(e && e->ev.value_int == 99);
    int freq = 0;
    for (int i = 0; i < c.n; i++)
        if (!strcmp(c.e[i].name, "cpufreq")) {
            CHECK_EQ_INT(c.e[i].ev.cpu, freq);
            CHECK_EQ_INT(c.e[i].ev.value_int, (int64_t)freqs[freq]);
            freq++;
        }
    CHECK_EQ_INT(freq, 2);
    e = find(&c, "psi.cpu_some", TREAD_EVENT_COUNTER);
    CHECK(e && e->ev.value_int == 12345);
    e = find(&c, "mem.rss", TREAD_EVENT_COUNTER);
    CHECK(e && e->ev.pid == 42 && (e->ev.flags & TREAD_HAS_PID) && e->ev.value_int == 102400);
    CHECK(e && e->ev.ts == 6000 && e->ev.track_kind == TREAD_TRACK_PROCESS);
    e = find(&c, "oom_score_adj", TREAD_EVENT_COUNTER);
    CHECK(e && e->ev.value_int == 900);
    CHECK_EQ_INT(c.warn[TREAD_WARN_BAD_RECORD], 1);
    CHECK_EQ_INT(test_format_counter(p, "sys_stats_packets"), 1);
    CHECK_EQ_INT(test_format_counter(p, "process_stats_packets"), 1);
    tread_parser_free(p);
    pb_free(&t);
}

/* ---- AndroidLogPacket, BatteryCounters, PowerRails -------------------- */

static void test_log_battery_power(void)
{
    pb t, m;
    pb_init(&t);
    clock_snapshot(&t, 1000, 1, 1700000000000LL); /* REALTIME */
    pb_init(&m);
    size_t k = pb_begin(&m, 1);
    pb_varint(&m, 1, 0);   /* LID_DEFAULT */
    pb_varint(&m, 2, 300); /* pid */
    pb_varint(&m, 3, 301); /* tid */
    pb_varint(&m, 5, 1700000000500LL);
    pb_string(&m, 6, "ActivityManager");
    pb_varint(&m, 7, 4); /* PRIO_INFO */
    pb_string(&m, 8, "Start proc");
    pb_end(&m, k);
    packet(&t, -1, 39, &m);
    pb_free(&m);

    pb_init(&m);
    pb_varint(&m, 1, 3000000);           /* charge_counter_uah */
    pb_fixed32(&m, 2, 0x42c80000u);      /* capacity_percent = 100.0f */
    pb_varint(&m, 3, (uint64_t)-250000); /* current_ua */
    packet(&t, 2000, 38, &m);
    pb_free(&m);

    pb_init(&m);
    k = pb_begin(&m, 1);
    pb_varint(&m, 1, 0);
    pb_string(&m, 2, "S4M_VDD_CPUCL0");
    pb_end(&m, k);
    k = pb_begin(&m, 2);
    pb_varint(&m, 1, 0);
    pb_varint(&m, 2, 3);      /* 3 ms */
    pb_varint(&m, 3, 123456); /* uWs */
    pb_end(&m, k);
    k = pb_begin(&m, 2);
    pb_varint(&m, 1, 5); /* no such rail */
    pb_varint(&m, 3, 1);
    pb_end(&m, k);
    packet(&t, 2500, 40, &m);
    pb_free(&m);

    coll c;
    tread_parser *p;
    CHECK_EQ_INT(parse(&c, &t, &p), TREAD_STATUS_OK);
    CHECK_EQ_INT(count_kind(&c, TREAD_EVENT_LOG), 1);
    const cev *e = find(&c, "Start proc", TREAD_EVENT_LOG);
    CHECK(e != NULL);
    if (e) {
        CHECK_EQ_STR(e->cat, "ActivityManager");
        CHECK_EQ_INT(e->ev.pid, 300);
        CHECK_EQ_INT(e->ev.tid, 301);
        CHECK(e->ev.flags & TREAD_HAS_TS);
        CHECK_EQ_INT(e->ev.ts, 1500); /* realtime moved onto boottime */
        CHECK_EQ_INT(e->ev.value_int, 4);
        CHECK_EQ_INT(e->ev.args.encoding, TREAD_ARGS_PROTO);
        CHECK(e->has_prio);
        CHECK_EQ_STR(e->a_prio, "PRIO_INFO");
    }
    e = find(&c, "batt.charge_uah", TREAD_EVENT_COUNTER);
    CHECK(e && e->ev.value_int == 3000000 && e->ev.ts == 2000);
    e = find(&c, "batt.capacity_pct", TREAD_EVENT_COUNTER);
    CHECK(e && !(e->ev.flags & TREAD_VALUE_IS_INT) && fabs(e->ev.value - 100.0) < 1e-9);
    e = find(&c, "batt.current_ua", TREAD_EVENT_COUNTER);
    CHECK(e && e->ev.value_int == -250000);
    e = find(&c, "power.S4M_VDD_CPUCL0_uws", TREAD_EVENT_COUNTER);
    CHECK(e && e->ev.value_int == 123456 && e->ev.ts == 3000000);
    CHECK_EQ_INT(c.warn[TREAD_WARN_UNRESOLVED_REF], 1);
    CHECK_EQ_INT(test_format_counter(p, "android_log_events"), 1);
    CHECK_EQ_INT(test_format_counter(p, "power_rail_unknown_index"), 1);
    tread_parser_free(p);
    pb_free(&t);
}

/* ---- TrackEvent log_message ------------------------------------------- */

static void test_log_message(void)
{
    pb t, m;
    pb_init(&t);
    pb_init(&m);
    size_t pk = pb_begin(&t, 1);
    pb_varint(&t, 8, 7000);
    pb_varint(&t, 10, 1);
    pb_varint(&t, 13, 1); /* SEQ_INCREMENTAL_STATE_CLEARED */
    size_t id = pb_begin(&t, 12);
    size_t e = pb_begin(&t, 20); /* log_message_body */
    pb_varint(&t, 1, 5);
    pb_string(&t, 2, "hello log");
    pb_end(&t, e);
    e = pb_begin(&t, 4); /* source_locations */
    pb_varint(&t, 1, 6);
    pb_string(&t, 2, "src/main.cc");
    pb_end(&t, e);
    pb_end(&t, id);
    size_t te = pb_begin(&t, 11);
    pb_varint(&t, 9, 3); /* TYPE_INSTANT */
    pb_string(&t, 23, "logged");
    e = pb_begin(&t, 21);
    pb_varint(&t, 1, 6);
    pb_varint(&t, 2, 5);
    pb_varint(&t, 3, 5); /* PRIO_WARN */
    pb_end(&t, e);
    pb_end(&t, te);
    pb_end(&t, pk);
    /* a body that was never interned */
    pk = pb_begin(&t, 1);
    pb_varint(&t, 8, 7100);
    pb_varint(&t, 10, 1);
    te = pb_begin(&t, 11);
    pb_varint(&t, 9, 3);
    e = pb_begin(&t, 21);
    pb_varint(&t, 2, 99);
    pb_end(&t, e);
    pb_end(&t, te);
    pb_end(&t, pk);
    pb_free(&m);
    coll c;
    CHECK_EQ_INT(parse(&c, &t, NULL), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.n, 4);
    if (c.n == 4) {
        CHECK_EQ_INT(c.e[0].ev.kind, TREAD_EVENT_INSTANT);
        const cev *l = &c.e[1];
        CHECK_EQ_INT(l->ev.kind, TREAD_EVENT_LOG);
        CHECK_EQ_STR(l->name, "hello log");
        CHECK_EQ_STR(l->cat, "src/main.cc");
        CHECK_EQ_INT(l->ev.ts, 7000);
        CHECK_EQ_INT(l->ev.value_int, 5);
        CHECK_EQ_INT(c.e[3].ev.kind, TREAD_EVENT_LOG);
        CHECK(c.e[3].ev.flags & TREAD_NAME_UNRESOLVED);
    }
    CHECK_EQ_INT(c.warn[TREAD_WARN_UNRESOLVED_REF], 1);
    pb_free(&t);
}

/* ---- malformed -------------------------------------------------------- */

static void test_malformed(void)
{
    pb t, b;
    pb_init(&t);
    /* an FtraceEvent whose length runs past the bundle */
    pb_init(&b);
    pb_varint(&b, 1, 0);
    pb_tag(&b, 2, 2);
    pb_varint_raw(&b, 50);
    pb_varint_raw(&b, 8);
    packet(&t, -1, 1, &b);
    pb_free(&b);
    /* compact_sched with an array given unpacked */
    pb_init(&b);
    pb cs;
    pb_init(&cs);
    pb_varint(&cs, 1, 5);
    pb_msg(&b, 4, &cs);
    pb_free(&cs);
    packet(&t, -1, 1, &b);
    pb_free(&b);
    /* sys_stats that is not a message */
    pb_init(&b);
    pb_raw(&b, "\xff\xff\xff", 3);
    packet(&t, 10, 7, &b);
    pb_free(&b);
    coll c;
    CHECK_EQ_INT(parse(&c, &t, NULL), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.n, 0);
    CHECK_EQ_INT(c.warn[TREAD_WARN_BAD_RECORD], 3);
    pb_free(&t);
}

/* ---- chunk and stop equivalence --------------------------------------- */

static void test_equivalence(void)
{
    pb t, b, m;
    pb_init(&t);
    clock_snapshot(&t, 1000, 1, 5000);
    for (int i = 0; i < 6; i++) {
        pb_init(&b);
        pb_varint(&b, 1, (uint64_t)(i % 2));
        sched_switch(&b, 100 + (uint64_t)i, "a", i, "b", i + 1);
        print(&b, 150 + (uint64_t)i, 7, i % 2 ? "B|1|x" : "E|1");
        two_varints(&b, 160, 0, 11, 1000, (uint64_t)i);
        pb_init(&m);
        pb_varint(&m, 1, 3);
        fevent(&b, 170, 0, 36, &m);
        pb_free(&m);
        pb cs;
        pb_init(&cs);
        const uint64_t ts[] = {200, 5}, pid[] = {9, 10}, comm[] = {0, 0};
        pb_packed(&cs, 1, ts, 2);
        pb_packed(&cs, 3, pid, 2);
        pb_string(&cs, 5, "nine");
        pb_packed(&cs, 6, comm, 2);
        pb_msg(&b, 4, &cs);
        pb_free(&cs);
        packet(&t, -1, 1, &b);
        pb_free(&b);
        pb_init(&m);
        kv(&m, 1, 2, (uint64_t)i);
        packet(&t, 300 + i, 7, &m);
        pb_free(&m);
        pb_init(&m);
        size_t k = pb_begin(&m, 1);
        pb_varint(&m, 5, 5100 + (uint64_t)i);
        pb_string(&m, 6, "tag");
        pb_string(&m, 8, "message");
        pb_end(&m, k);
        packet(&t, -1, 39, &m);
        pb_free(&m);
    }
    dump ref;
    dump_init(&ref);
    dump_parse(&ref, t.data, t.len, 0, NULL);
    CHECK(ref.events >= 49); /* 8 per round and the clock snapshot */
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
    test_ftrace_events();
    test_ftrace_generic_names();
    test_ftrace_atrace();
    test_ftrace_compact();
    test_ftrace_clocks();
    test_sys_stats();
    test_log_battery_power();
    test_log_message();
    test_malformed();
    test_equivalence();
    return TEST_EXIT();
}
