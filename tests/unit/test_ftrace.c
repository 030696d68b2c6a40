/* ftrace text: every line shape of corpus/ftrace/GRAMMAR.md (built here),
 * the atrace payloads, the event mapping, the args codec, warnings with
 * offsets, the line limit, chunking and pause/resume. */
#include <stdlib.h>
#include <string.h>
#include <tread.h>
#include <tread/ftrace.h>
#include "testlib.h"
#include "ftrace/ftrace_line.h"
#include "ftrace/ftrace_map.h"
#include "ftrace/ftrace_report.h"

static int str_is(tread_str s, const char *lit)
{
    return s.len == strlen(lit) && (s.len == 0 || memcmp(s.ptr, lit, s.len) == 0);
}

#define CHECK_STR(s, lit)                                                      \
    do {                                                                       \
        test_checks++;                                                         \
        if (!str_is((s), (lit))) {                                             \
            test_failures++;                                                   \
            fprintf(stderr, "%s:%d: %s == \"%.*s\", expected \"%s\"\n",        \
                    __FILE__, __LINE__, #s, (int)(s).len,                      \
                    (s).ptr ? (s).ptr : "", (lit));                            \
        }                                                                      \
    } while (0)

static ftrace_line L;

static void parse(const char *s)
{
    ftrace_parse_line(s, strlen(s), &L);
}

static void test_line_shapes(void)
{
    /* TGID + 5-char flags (6.x kernel) */
    parse("           <...>-12005   (  12005) [001] d..2. 4304.415707: sched_switch: prev_comm=a prev_pid=1");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_EVENT);
    CHECK_STR(L.task, "<...>");
    CHECK_EQ_INT(L.pid, 12005);
    CHECK(L.has_tgid);
    CHECK_EQ_INT(L.tgid, 12005);
    CHECK_EQ_INT(L.cpu, 1);
    CHECK_STR(L.flags, "d..2.");
    CHECK_EQ_INT(L.ts, 4304415707000);
    CHECK_STR(L.name, "sched_switch");
    CHECK_STR(L.payload, "prev_comm=a prev_pid=1");
    /* TGID as dashes: unknown */
    parse("  kworker/0:1-9     (-------) [000] ...1. 12.000001: foo: x=1");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_EVENT);
    CHECK(!L.has_tgid);
    CHECK_STR(L.task, "kworker/0:1");
    CHECK_EQ_INT(L.ts, 12000001000);
    /* TGID without flags (record-tgid=1, irq-info=0) */
    parse("            bash-77    (   70) [003] 5.5: foo: bar");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_EVENT);
    CHECK_EQ_INT(L.tgid, 70);
    CHECK_EQ_INT(L.flags.len, 0);
    CHECK_EQ_INT(L.ts, 5500000000);
    /* 4-char flags, no TGID; unindented first line */
    parse("atrace-14446 [000] ...2 1.000002: tracing_mark_write: B|1|x");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_EVENT);
    CHECK_STR(L.task, "atrace");
    CHECK_STR(L.flags, "...2");
    /* legacy: no flags */
    parse("   ndroid.launcher-633   [001]  3.141592: 0: E");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_EVENT);
    CHECK_STR(L.task, "ndroid.launcher");
    CHECK_STR(L.name, "0");
    CHECK_STR(L.payload, "E");
    /* comms with spaces, dashes and digits, brackets */
    parse("       io worker-5 [000] .... 1.0: x: y=1");
    CHECK_STR(L.task, "io worker");
    CHECK_EQ_INT(L.pid, 5);
    parse("          kw-7-x-6 [000] .... 1.0: x: y=1");
    CHECK_STR(L.task, "kw-7-x");
    CHECK_EQ_INT(L.pid, 6);
    parse("         a(b)[c]-8 [001] .... 1.0: x: y=1");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_EVENT);
    CHECK_STR(L.task, "a(b)[c]");
    CHECK_EQ_INT(L.pid, 8);
    CHECK_EQ_INT(L.cpu, 1);
    parse("     <7952>-7952  ( 7952) [002] d..3 9.000001: x: y");
    CHECK_STR(L.task, "<7952>");
    /* trace-cmd report: padded event name; TAB indent */
    parse("\t  <idle>-0     [006]  7115.449607: sched_switch:          prev_comm=swapper/6");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_EVENT);
    CHECK_STR(L.task, "<idle>");
    CHECK_STR(L.payload, "prev_comm=swapper/6");
    /* CRLF, and the literal \n\ left by a JS string */
    parse("  a-1 [000] .... 1.5: print: hello\r");
    CHECK_STR(L.payload, "hello");
    parse("  a-1 [000] 1.5: sched_wakeup: comm=x pid=2\\n\\");
    CHECK_STR(L.payload, "comm=x pid=2");
    /* fraction digits past nanoseconds are dropped */
    parse("  a-1 [000] 1.1234567891: x: y");
    CHECK_EQ_INT(L.ts, 1123456789);
    /* function tracer */
    parse("            bash-1977  [000] .... 17284.993652: sys_close <-system_call_fastpath");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_FUNCTION);
    CHECK_STR(L.name, "sys_close");
    CHECK_STR(L.payload, "system_call_fastpath");
    /* headers */
    const char *headers[] = {"# tracer: nop", "#", "", "   ", "version = 6",
                             "TRACE:", "##### CPU 0 buffer started ####",
                             " ------------------------------------------"};
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
        parse(headers[i]);
        CHECK_EQ_INT(L.kind, FTRACE_LINE_HEADER);
    }
    /* trace-cmd report's cpu lines */
    parse("CPU 3 is empty");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_CPU_EMPTY);
    CHECK_EQ_INT(L.cpu, 3);
    parse("cpus=6");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_CPUS);
    CHECK_EQ_INT(L.cpu, 6);
    /* lost events */
    parse("CPU:1 [LOST 2811 EVENTS]");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_LOST);
    CHECK_EQ_INT(L.cpu, 1);
    CHECK_EQ_INT(L.lost, 2811);
    /* trace-cmd report's instance prefix */
    parse("inst1:           sleep-388   [001] 48861.473110: sched_wakeup: sh:387 [120] CPU:000");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_EVENT);
    CHECK_STR(L.instance, "inst1");
    CHECK_STR(L.task, "sleep");
    CHECK_EQ_INT(L.pid, 388);
    CHECK_STR(L.name, "sched_wakeup");
    parse("           sleep-388   [001] 48861.473110: sched_wakeup: sh:387 [120] CPU:000");
    CHECK_EQ_INT(L.instance.len, 0);
    parse("inst1: not an event");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_BAD);
    CHECK_EQ_INT(L.instance.len, 0);
    /* trace-cmd report's form of the same */
    parse("CPU:3 [1557 EVENTS DROPPED]");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_LOST);
    CHECK_EQ_INT(L.cpu, 3);
    CHECK_EQ_INT(L.lost, 1557);
    parse("  CPU:2 [EVENTS DROPPED]");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_LOST);
    CHECK_EQ_INT(L.cpu, 2);
    CHECK_EQ_INT(L.lost, -1);
    parse("CPU:3 [1557 EVENTS]");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_BAD);
    parse("CPU:3 [LOST 1557 EVENTS DROPPED]");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_BAD);
    /* stack trace frames */
    parse(" => __schedule");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_STACK);
    CHECK_STR(L.payload, "__schedule");
    /* function_graph */
    parse(" 1)               |  do_sys_open() {");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_GRAPH);
    CHECK_EQ_INT(L.graph, FTRACE_GRAPH_ENTER);
    CHECK_STR(L.name, "do_sys_open");
    CHECK_EQ_INT(L.cpu, 1);
    parse(" 1)   0.541 us    |    getname();");
    CHECK_EQ_INT(L.graph, FTRACE_GRAPH_LEAF);
    CHECK_STR(L.name, "getname");
    CHECK_EQ_INT(L.dur, 541);
    parse(" 1) + 18.735 us   |  }");
    CHECK_EQ_INT(L.graph, FTRACE_GRAPH_EXIT);
    CHECK_EQ_INT(L.dur, 18735);
    parse(" 0) ! 123.456 us  |  } /* do_sys_open */");
    CHECK_EQ_INT(L.graph, FTRACE_GRAPH_EXIT);
    CHECK_STR(L.name, "do_sys_open");
    parse("  652.290545 |   1)   bash-2794    |   0.100 us    |  kfree();");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_GRAPH);
    CHECK(L.has_ts);
    CHECK_EQ_INT(L.ts, 652290545000);
    CHECK_EQ_INT(L.pid, 2794);
    CHECK_STR(L.task, "bash");
    CHECK_EQ_INT(L.dur, 100);
    parse(" 0)               |  /* hello there */");
    CHECK_EQ_INT(L.graph, FTRACE_GRAPH_COMMENT);
    CHECK_STR(L.payload, "hello there");
    parse(" 0)    bash-2794    =>    <idle>-0   ");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_HEADER);
    /* not understood */
    parse("RenderTh-12338     1d..2. 19661us : sched_switch: prev_comm=x");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_BAD);
    parse("   <...>-3 [000] .... 11689906773220: tracing_mark_write: B|1|x");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_BAD);
    parse("just some text");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_BAD);
    parse("  a-1 [000] .... 1.5: ");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_BAD);
    parse("  a-1 [000] .... 99999999999.5: x: y");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_BAD);
}

static void test_atrace(void)
{
    tread_atrace a;
#define AP(s) tread__atrace_parse(s, strlen(s), &a)
    CHECK_EQ_INT(AP("B|12|draw frame"), TREAD_FTRACE_MAPPED);
    CHECK_EQ_INT(a.phase, 'B');
    CHECK_EQ_INT(a.tgid, 12);
    CHECK_STR(a.name, "draw frame");
    CHECK_EQ_INT(AP("B|12|chrome slice|key=value;n=1|cat\n"), TREAD_FTRACE_MAPPED);
    CHECK_STR(a.name, "chrome slice");
    CHECK_STR(a.args, "key=value;n=1");
    CHECK_STR(a.category, "cat");
    CHECK_EQ_INT(AP("B|12|"), TREAD_FTRACE_MAPPED);
    CHECK_STR(a.name, "");
    CHECK_EQ_INT(AP("E"), TREAD_FTRACE_MAPPED);
    CHECK(!a.has_tgid);
    CHECK_EQ_INT(AP("E|12"), TREAD_FTRACE_MAPPED);
    CHECK_EQ_INT(a.tgid, 12);
    CHECK_EQ_INT(AP("C|5|queue depth|-3"), TREAD_FTRACE_MAPPED);
    CHECK(a.num_is_int);
    CHECK_EQ_INT(a.num, -3);
    CHECK_EQ_INT(AP("C|5|big|9007199254740993|cat"), TREAD_FTRACE_MAPPED);
    CHECK_EQ_INT(a.num, 9007199254740993LL);
    CHECK_EQ_INT(AP("C|5|half|1.5"), TREAD_FTRACE_MAPPED);
    CHECK(!a.num_is_int && a.dnum == 1.5);
    CHECK_EQ_INT(AP("C|5|bad|abc"), TREAD_FTRACE_MALFORMED);
    CHECK_EQ_INT(AP("C|5|nov"), TREAD_FTRACE_MALFORMED);
    CHECK_EQ_INT(AP("S|5|op|1099511627776"), TREAD_FTRACE_MAPPED);
    CHECK_EQ_INT(a.num, 1099511627776LL);
    CHECK_EQ_INT(AP("F|5|op|7"), TREAD_FTRACE_MAPPED);
    CHECK_EQ_INT(AP("S|5|op|x"), TREAD_FTRACE_MALFORMED);
    CHECK_EQ_INT(AP("I|5|tick"), TREAD_FTRACE_MAPPED);
    CHECK_EQ_INT(AP("N|5|track|mark"), TREAD_FTRACE_MAPPED);
    CHECK_STR(a.track, "track");
    CHECK_STR(a.name, "mark");
    CHECK_EQ_INT(AP("G|5|track|name|9"), TREAD_FTRACE_MAPPED);
    CHECK_EQ_INT(a.num, 9);
    CHECK_EQ_INT(AP("H|5|track|name|9"), TREAD_FTRACE_MAPPED);
    CHECK_STR(a.name, "name");
    CHECK_EQ_INT(AP("H|5|track|9"), TREAD_FTRACE_MAPPED);
    CHECK_EQ_INT(a.name.len, 0);
    CHECK_EQ_INT(a.num, 9);
    CHECK_EQ_INT(AP("B|x|name"), TREAD_FTRACE_MALFORMED);
    CHECK_EQ_INT(AP("X|1|y"), TREAD_FTRACE_NOT_ATRACE);
    CHECK_EQ_INT(AP("hello world"), TREAD_FTRACE_NOT_ATRACE);
    CHECK_EQ_INT(AP(""), TREAD_FTRACE_NOT_ATRACE);
    CHECK_EQ_INT(AP("trace_event_clock_sync: parent_ts=4304.5"), TREAD_FTRACE_MAPPED);
    CHECK_EQ_INT(a.phase, 0);
    CHECK_STR(a.key, "parent_ts");
    CHECK(a.dnum == 4304.5);
    CHECK_EQ_INT(AP("trace_event_clock_sync: name=abc"), TREAD_FTRACE_MAPPED);
    CHECK_STR(a.value, "abc");
#undef AP
}

/* ---- through the public API ------------------------------------------ */

#define MAXEV 64
typedef struct got {
    int n, nw;
    tread_event ev[MAXEV];
    char names[MAXEV][64], series[MAXEV][64], meta[MAXEV][64], args[MAXEV][160];
    tread_warning_kind wk[MAXEV];
    uint64_t woff[MAXEV];
    int stop_each;
} got;

static void copy_str(char *dst, tread_str s)
{
    size_t n = s.len < 63 ? s.len : 63;
    if (n)
        memcpy(dst, s.ptr, n);
    dst[n] = 0;
}

static int on_event(void *u, const tread_event *ev)
{
    got *g = u;
    if (g->n < MAXEV) {
        g->ev[g->n] = *ev;
        copy_str(g->names[g->n], ev->name);
        copy_str(g->series[g->n], ev->series);
        copy_str(g->meta[g->n], ev->meta_str);
        /* args as k=v; pairs, ints marked with # */
        char *o = g->args[g->n];
        size_t used = 0;
        tread_args_iter it;
        tread_arg a;
        o[0] = 0;
        tread_args_iter_init(&it, &ev->args);
        while (tread_args_next(&it, &a) && used < 120) {
            int w;
            if (a.type == TREAD_ARG_INT)
                w = snprintf(o + used, 160 - used, "%.*s=#%lld;", (int)a.key.len, a.key.ptr,
                             (long long)a.v.i);
            else
                w = snprintf(o + used, 160 - used, "%.*s=%.*s;", (int)a.key.len, a.key.ptr,
                             (int)a.v.s.len, a.v.s.ptr);
            used += (size_t)w;
        }
        for (int i = 0; i < g->n + 1 && i < MAXEV; i++) {
            g->ev[i].name.ptr = NULL; /* pointers die with the callback */
            g->ev[i].args.data = NULL;
        }
    }
    g->n++;
    return g->stop_each;
}

static int on_warning(void *u, const tread_warning *w)
{
    got *g = u;
    if (g->nw < MAXEV) {
        g->wk[g->nw] = w->kind;
        g->woff[g->nw] = w->offset;
    }
    g->nw++;
    return 0;
}

static tread_parser *mk(got *g)
{
    memset(g, 0, sizeof *g);
    tread_parser *p = tread_parser_create(NULL);
    tread_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.event = on_event;
    cb.warning = on_warning;
    tread_set_callbacks(p, &cb, g);
    tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_FTRACE);
    return p;
}

static void run(got *g, const char *text, size_t chunk)
{
    tread_parser *p = mk(g);
    size_t n = strlen(text);
    if (!chunk)
        chunk = n ? n : 1;
    for (size_t i = 0; i < n; i += chunk)
        CHECK_EQ_INT(tread_feed(p, text + i, i + chunk > n ? n - i : chunk), TREAD_STATUS_OK);
    CHECK_EQ_INT(tread_finish(p), TREAD_STATUS_OK);
    tread_parser_free(p);
}

static const char sample[] =
    "# tracer: nop\n"
    "#\n"
    "#           TASK-PID     TGID   CPU#  |||||  TIMESTAMP  FUNCTION\n"
    "          <idle>-0       (-------) [001] d..2. 10.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=io worker next_pid=42 next_prio=120\n"
    "       io worker-42      (     40) [001] d..2. 10.000002: sched_waking: comm=kw-7-x pid=43 prio=120 target_cpu=000\n"
    "       io worker-42      (     40) [001] ..... 10.000003: tracing_mark_write: B|40|draw\n"
    "       io worker-42      (     40) [001] ..... 10.000004: tracing_mark_write: C|40|depth|7\n"
    "       io worker-42      (     40) [001] ..... 10.000005: tracing_mark_write: E|40\n"
    "       io worker-42      (     40) [001] ..... 10.000006: tracing_mark_write: S|40|op|1099511627776\n"
    "       io worker-42      (     40) [001] ..... 10.000007: tracing_mark_write: F|40|op|1099511627776\n"
    "          <idle>-0       (-------) [000] d..2. 10.000008: cpu_idle: state=4294967295 cpu_id=0\n"
    "          <idle>-0       (-------) [000] d..2. 10.000009: cpu_frequency: state=1800000 cpu_id=3\n"
    "            bash-50      (     50) [000] ..... 10.000010: task_newtask: pid=51 comm=bash clone_flags=3d0f00 oom_score_adj=0\n"
    "            bash-51      (     50) [000] ..... 10.000011: task_rename: pid=51 oldcomm=bash newcomm=ls oom_score_adj=0\n"
    "            bash-51      (     50) [000] ..... 10.000012: tracing_mark_write: hello world\n"
    "            bash-51      (     50) [000] ..... 10.000013: tracing_mark_write: C|50|bad|xyz\n"
    "CPU:0 [LOST 17 EVENTS]\n"
    "this line is not ftrace\n"
    "            bash-51      (     50) [000] ..... 10.000014: ext4_da_write_begin: dev 8,13 ino 5 pos 0\n"
    "            bash-51      (     50) [000] ..... 10.000015: sched_wakeup_new: comm=x pid=52 prio=120 target_cpu=001\n"
    "            bash-51      (     50) [000] ..... 10.000016: tracing_mark_write: trace_event_clock_sync: parent_ts=10.5\n"
    "            bash-51      (     50) [000] ..... 10.000017: tracing_mark_write: I|50|tick\n"
    "            bash-51      (     50) [000] ..... 10.000018: tracing_mark_write: N|50|trk|mark\n"
    "            bash-51      (     50) [000] ..... 10.000019: tracing_mark_write: G|50|trk|job|5\n"
    "            bash-51      (     50) [000] ..... 10.000020: tracing_mark_write: H|50|trk|5\n"
    "            bash-51      (     50) [000] ..... 10.000021: sched_stat_runtime: comm=x pid=51 runtime=77 [ns]";

static void test_decoder(void)
{
    got g;
    run(&g, sample, 0);
    CHECK_EQ_INT(g.n, 21);
    tread_event *e = g.ev;
    int i = 0;
    /* sched_switch: outgoing thread, cpu, args with the kernel's keys */
    CHECK_EQ_INT(e[i].kind, TREAD_EVENT_CONTEXT_SWITCH);
    CHECK_EQ_INT(e[i].tid, 0);
    CHECK_EQ_INT(e[i].cpu, 1);
    CHECK(e[i].flags & TREAD_HAS_CPU);
    CHECK_EQ_INT(e[i].ts, 10000001000);
    CHECK_EQ_STR(g.names[i], "sched_switch");
    CHECK_EQ_STR(g.args[i], "prev_comm=swapper/1;prev_pid=#0;prev_prio=#120;prev_state=R;"
                            "next_comm=io worker;next_pid=#42;next_prio=#120;");
    i++;
    CHECK_EQ_INT(e[i].kind, TREAD_EVENT_WAKEUP);
    CHECK_EQ_INT(e[i].tid, 43);
    CHECK(!(e[i].flags & TREAD_HAS_PID));
    i++;
    CHECK_EQ_INT(e[i].kind, TREAD_EVENT_SLICE_BEGIN);
    CHECK_EQ_INT(e[i].pid, 40);
    CHECK_EQ_INT(e[i].tid, 42);
    CHECK_EQ_INT(e[i].phase, 'B');
    CHECK_EQ_STR(g.names[i], "draw");
    i++;
    CHECK_EQ_INT(e[i].kind, TREAD_EVENT_COUNTER);
    CHECK_EQ_STR(g.names[i], "depth");
    CHECK_EQ_STR(g.series[i], "depth");
    CHECK(e[i].flags & TREAD_VALUE_IS_INT);
    CHECK_EQ_INT(e[i].value_int, 7);
    CHECK(!(e[i].flags & TREAD_HAS_TID));
    i++;
    CHECK_EQ_INT(e[i].kind, TREAD_EVENT_SLICE_END);
    i++;
    CHECK_EQ_INT(e[i].kind, TREAD_EVENT_ASYNC_BEGIN);
    CHECK_EQ_INT(e[i].id_num, 1099511627776ULL);
    CHECK(e[i].flags & TREAD_ID_LOCAL);
    i++;
    CHECK_EQ_INT(e[i].kind, TREAD_EVENT_ASYNC_END);
    i++;
    CHECK_EQ_INT(e[i].kind, TREAD_EVENT_COUNTER);
    CHECK_EQ_STR(g.names[i], "cpuidle");
    CHECK_EQ_INT(e[i].cpu, 0);
    CHECK_EQ_INT(e[i].value_int, 4294967295LL);
    i++;
    CHECK_EQ_STR(g.names[i], "cpufreq");
    CHECK_EQ_INT(e[i].cpu, 3);
    CHECK(e[i].value == 1800000.0);
    i++;
    CHECK_EQ_INT(e[i].kind, TREAD_EVENT_METADATA);
    CHECK_EQ_INT(e[i].meta, TREAD_META_THREAD_NAME);
    CHECK_EQ_INT(e[i].tid, 51);
    CHECK_EQ_STR(g.meta[i], "bash");
    i++;
    CHECK_EQ_INT(e[i].meta, TREAD_META_THREAD_NAME);
    CHECK_EQ_STR(g.meta[i], "ls");
    CHECK_EQ_INT(e[i].pid, 50);
    i++;
    /* free text: a generic event with the raw text */
    CHECK_EQ_INT(e[i].kind, TREAD_EVENT_INSTANT);
    CHECK_EQ_STR(g.names[i], "tracing_mark_write");
    CHECK_EQ_STR(g.args[i], "text=hello world;");
    i++;
    /* malformed atrace: generic, and a warning */
    CHECK_EQ_INT(e[i].kind, TREAD_EVENT_INSTANT);
    i++;
    CHECK_EQ_STR(g.names[i], "ext4_da_write_begin");
    CHECK_EQ_STR(g.args[i], "text=dev 8,13 ino 5 pos 0;");
    i++;
    CHECK_EQ_INT(e[i].kind, TREAD_EVENT_WAKEUP);
    CHECK_EQ_INT(e[i].tid, 52);
    i++;
    CHECK_EQ_INT(e[i].kind, TREAD_EVENT_CLOCK_SYNC);
    CHECK_EQ_STR(g.series[i], "parent_ts");
    CHECK(e[i].value == 10.5);
    i++;
    CHECK_EQ_INT(e[i].kind, TREAD_EVENT_INSTANT);
    CHECK_EQ_INT(e[i].scope, TREAD_SCOPE_PROCESS);
    i++;
    CHECK_EQ_INT(e[i].kind, TREAD_EVENT_INSTANT);
    CHECK_EQ_STR(g.names[i], "mark");
    i++;
    CHECK_EQ_INT(e[i].kind, TREAD_EVENT_ASYNC_BEGIN);
    CHECK_EQ_INT(e[i].id_num, 5);
    i++;
    CHECK_EQ_INT(e[i].kind, TREAD_EVENT_ASYNC_END);
    i++;
    /* the last line, without its newline; units stay in the value */
    CHECK_EQ_STR(g.names[i], "sched_stat_runtime");
    CHECK_EQ_STR(g.args[i], "comm=x;pid=#51;runtime=77 [ns];");
    CHECK_EQ_INT(e[i].ts, 10000021000);

    /* warnings: malformed atrace, LOST, a line not understood, at their
     * byte offsets */
    CHECK_EQ_INT(g.nw, 3);
    CHECK_EQ_INT(g.wk[0], TREAD_WARN_BAD_FIELD);
    CHECK_EQ_INT(g.wk[1], TREAD_WARN_DATA_LOSS);
    const char *lost = strstr(sample, "CPU:0 [LOST");
    CHECK_EQ_INT(g.woff[1], lost - sample);
    CHECK_EQ_INT(g.wk[2], TREAD_WARN_BAD_RECORD);
    CHECK_EQ_INT(g.woff[2], strstr(sample, "this line") - sample);
    CHECK_EQ_INT(g.ev[0].offset, strstr(sample, "          <idle>-0") - sample);

    /* the same fed in every chunk size down to one byte */
    for (size_t chunk = 1; chunk < 9; chunk++) {
        got h;
        run(&h, sample, chunk);
        CHECK_EQ_INT(h.n, g.n);
        CHECK_EQ_INT(h.nw, g.nw);
        for (int k = 0; k < g.n && k < MAXEV && k < h.n; k++) {
            CHECK_EQ_INT(h.ev[k].kind, g.ev[k].kind);
            CHECK_EQ_INT(h.ev[k].ts, g.ev[k].ts);
            CHECK_EQ_INT(h.ev[k].offset, g.ev[k].offset);
            CHECK_EQ_STR(h.names[k], g.names[k]);
            CHECK_EQ_STR(h.args[k], g.args[k]);
        }
        for (int k = 0; k < g.nw && k < h.nw; k++)
            CHECK_EQ_INT(h.woff[k], g.woff[k]);
    }
}


/* trace-cmd report's function tracer lines ("function: func", with its
 * parent option "function: func <-- parent") are function events, as the
 * trace.dat decoder gives the same records; report -R's raw fields stay
 * an event named function. */
static void test_report_function(void)
{
    got g;
    tread_parser *p = mk(&g);
    const char *t = "           <...>-42    [000]     0.001000: function:             do_idle\n"
                    "           <...>-42    [000]     0.001010: function:             do_idle <-- "
                    "cpu_startup_entry\n"
                    "inst:           <...>-42    [001]     0.001020: function:   x <-- y\n"
                    "           <...>-42    [000]     0.001030: function:              ip=do_idle "
                    "parent_ip=cpu_startup_entry\n"
                    "           <...>-42    [000]     0.001040: function:             a b\n";
    CHECK_EQ_INT(tread_feed(p, t, strlen(t)), TREAD_STATUS_OK);
    CHECK_EQ_INT(tread_finish(p), TREAD_STATUS_OK);
    CHECK_EQ_INT(g.n, 5);
    CHECK_EQ_STR(g.names[0], "do_idle");
    CHECK_EQ_STR(g.args[0], "");
    CHECK_EQ_INT(g.ev[0].kind, TREAD_EVENT_INSTANT);
    CHECK(g.ev[0].cat.len == 8 && memcmp(g.ev[0].cat.ptr, "function", 8) == 0);
    CHECK_EQ_STR(g.names[1], "do_idle");
    CHECK_EQ_STR(g.args[1], "parent=cpu_startup_entry;");
    CHECK_EQ_STR(g.names[2], "x");
    CHECK_EQ_STR(g.args[2], "parent=y;");
    CHECK(g.ev[2].flags & TREAD_HAS_PROVIDER);
    CHECK_EQ_INT(g.ev[2].cpu, 1);
    CHECK_EQ_STR(g.names[3], "function");
    CHECK_EQ_STR(g.names[4], "function");
    CHECK_EQ_INT(test_format_counter(p, "function_lines"), 3);
    tread_parser_free(p);
}

static void test_counters_and_crlf(void)
{
    got g;
    tread_parser *p = mk(&g);
    const char *t = "  a-1 [000] .... 1.0: x: k=1\r\nCPU:2 [LOST 5 EVENTS]\r\nCPU:2 [6 EVENTS DROPPED]\r\n"
                    " CPU:2 [EVENTS DROPPED]\r\njunk\r\n# c\r\n  a-1 [000] .... 2.0: x: k=2\r\n";
    CHECK_EQ_INT(tread_feed(p, t, strlen(t)), TREAD_STATUS_OK);
    CHECK_EQ_INT(tread_finish(p), TREAD_STATUS_OK);
    CHECK_EQ_INT(g.n, 2);
    CHECK_EQ_STR(g.args[0], "k=#1;");
    CHECK_EQ_INT(test_format_counter(p, "lines"), 7);
    CHECK_EQ_INT(test_format_counter(p, "lost_events"), 11);
    CHECK_EQ_INT(test_format_counter(p, "lost_events.cpu2"), 11);
    CHECK_EQ_INT(test_format_counter(p, "lost_markers"), 3);
    CHECK_EQ_INT(test_format_counter(p, "lines_not_understood"), 1);
    CHECK_EQ_INT(test_format_counter(p, "header_lines"), 1);
    tread_stats s;
    tread_get_stats(p, &s);
    CHECK_EQ_INT(s.warnings_by_kind[TREAD_WARN_DATA_LOSS], 3);
    tread_parser_free(p);
}

static void test_line_limit(void)
{
    got g;
    tread_parser *p = mk(&g);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_MAX_LINE_BYTES, 100), -1);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_MAX_LINE_BYTES, 256), 0);
    char big[1200];
    memset(big, 'x', sizeof big);
    const char *a = "  a-1 [000] .... 1.0: first: k=1\n  a-1 [000] .... 1.0: long: t=";
    const char *b = "\n  a-1 [000] .... 3.0: last: k=3\n";
    /* the long line arrives in pieces */
    CHECK_EQ_INT(tread_feed(p, a, strlen(a)), TREAD_STATUS_OK);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(tread_feed(p, big, 300), TREAD_STATUS_OK);
    CHECK_EQ_INT(tread_feed(p, b, strlen(b)), TREAD_STATUS_OK);
    /* and whole in one feed */
    CHECK_EQ_INT(tread_feed(p, big, sizeof big), TREAD_STATUS_OK);
    CHECK_EQ_INT(tread_feed(p, b, strlen(b)), TREAD_STATUS_OK);
    CHECK_EQ_INT(tread_finish(p), TREAD_STATUS_OK);
    CHECK_EQ_INT(g.n, 3);
    CHECK_EQ_STR(g.names[0], "first");
    CHECK_EQ_STR(g.names[1], "last");
    CHECK_EQ_INT(test_format_counter(p, "lines_too_long"), 2);
    CHECK_EQ_INT(g.nw, 2);
    CHECK_EQ_INT(g.woff[0], strstr(a, "  a-1 [000] .... 1.0: long") - a);
    tread_parser_free(p);
}

static void test_pause_resume(void)
{
    got g, ref;
    run(&ref, sample, 0);
    tread_parser *p = mk(&g);
    g.stop_each = 1;
    tread_status st = tread_feed(p, sample, strlen(sample));
    int pauses = 0;
    while (st == TREAD_STATUS_PAUSED && pauses < 100) {
        pauses++;
        st = tread_resume(p);
    }
    CHECK_EQ_INT(st, TREAD_STATUS_OK);
    st = tread_finish(p);
    while (st == TREAD_STATUS_PAUSED && pauses < 200) {
        pauses++;
        st = tread_resume(p);
    }
    CHECK_EQ_INT(st, TREAD_STATUS_OK);
    CHECK_EQ_INT(g.n, ref.n);
    CHECK(pauses >= ref.n - 1);
    for (int k = 0; k < ref.n && k < MAXEV; k++)
        CHECK_EQ_STR(g.names[k], ref.names[k]);
    tread_parser_free(p);
}

static void test_function_tracers(void)
{
    got g;
    run(&g,
        "# tracer: function\n"
        "            bash-1977  [000] .... 17284.993652: sys_close <-system_call_fastpath\n"
        "# tracer: function_graph\n"
        " 1)               |  do_sys_open() {\n"
        " 1)   0.541 us    |    getname();\n"
        " 1) + 18.735 us   |  }\n"
        " 1)               |  /* note */\n",
        0);
    CHECK_EQ_INT(g.n, 5);
    CHECK_EQ_INT(g.ev[0].kind, TREAD_EVENT_INSTANT);
    CHECK_EQ_STR(g.names[0], "sys_close");
    CHECK_EQ_STR(g.args[0], "parent=system_call_fastpath;");
    CHECK_EQ_INT(g.ev[0].tid, 1977);
    CHECK_EQ_INT(g.ev[1].kind, TREAD_EVENT_SLICE_BEGIN);
    CHECK_EQ_STR(g.names[1], "do_sys_open");
    CHECK_EQ_INT(g.ev[1].cpu, 1);
    CHECK_EQ_INT(g.ev[2].kind, TREAD_EVENT_COMPLETE);
    CHECK_EQ_INT(g.ev[2].dur, 541);
    CHECK_EQ_INT(g.ev[3].kind, TREAD_EVENT_SLICE_END);
    CHECK_EQ_INT(g.ev[3].dur, 18735);
    CHECK_EQ_INT(g.ev[4].kind, TREAD_EVENT_INSTANT);
    CHECK_EQ_STR(g.names[4], "note");
}

static void test_map_direct(void)
{
    /* the mapping as the Perfetto decoder calls it: typed inputs */
    tread_ftrace_common c;
    tread_event ev;
    memset(&c, 0, sizeof c);
    c.ts = 5;
    c.cpu = 2;
    c.tid = 9;
    c.tgid = 8;
    c.flags = TREAD_FTRACE_HAS_CPU | TREAD_FTRACE_HAS_TGID;
    tread_str nm = {"sched_switch", 12};
    tread_ftrace_sched_switch s;
    memset(&s, 0, sizeof s);
    s.prev_pid = 9;
    s.next_pid = 10;
    tread__ftrace_event_init(&ev, &c, nm);
    CHECK_EQ_INT(tread__ftrace_map_sched_switch(&ev, &c, &s), TREAD_FTRACE_MAPPED);
    CHECK_EQ_INT(ev.kind, TREAD_EVENT_CONTEXT_SWITCH);
    CHECK_EQ_INT(ev.tid, 9);
    CHECK_EQ_INT(ev.pid, 8);
    CHECK(ev.flags & TREAD_HAS_PID);
    CHECK_EQ_INT(ev.cpu, 2);
    tread__ftrace_event_init(&ev, &c, nm);
    CHECK_EQ_INT(tread__ftrace_map_print(&ev, &c, "B|8|x\n", 6), TREAD_FTRACE_MAPPED);
    CHECK_EQ_INT(ev.kind, TREAD_EVENT_SLICE_BEGIN);
    CHECK_STR(ev.name, "x");
    CHECK_STR(ev.cat, "atrace");
    CHECK(tread__ftrace_is_marker_event("print", 5));
    CHECK(tread__ftrace_is_marker_event("0", 1));
    CHECK(!tread__ftrace_is_marker_event("printk", 6));
}

/* Empty args, with no data at all: nothing, and no arithmetic on a null
 * pointer (UBSan, found by fuzz_pipeline). */
static void test_empty_args(void)
{
    tread_args a = {NULL, 0, TREAD_ARGS_FTRACE, NULL};
    tread_args_iter it;
    tread_arg out;
    tread_args_iter_init(&it, &a);
    CHECK_EQ_INT(tread_args_next(&it, &out), 0);
    static const unsigned char none[1] = {0};
    tread_args b = {none, 0, TREAD_ARGS_FTRACE, NULL};
    tread_args_iter_init(&it, &b);
    CHECK_EQ_INT(tread_args_next(&it, &out), 0);
}

/* trace-cmd report's own sched payloads (libtraceevent's plugin), parsed
 * alone: comms with blanks, colons, brackets and " ==> "; optional prio,
 * state, success and CPU columns; a negative (deadline) prio. */
static void test_report_payloads(void)
{
    ftrace_report_switch sw;
    ftrace_report_wakeup wk;
    const char *t = "rs:main Q:Reg:238 [120] S ==> kworker/2:1:2923 [100]";
    CHECK_EQ_INT(ftrace_report_parse_switch(t, strlen(t), &sw), 0);
    CHECK_STR(sw.prev_comm, "rs:main Q:Reg");
    CHECK_EQ_INT(sw.prev_pid.v, 238);
    CHECK_STR(sw.prev_pid.text, "238");
    CHECK_EQ_INT(sw.prev_prio.v, 120);
    CHECK_STR(sw.prev_state, "S");
    CHECK_STR(sw.next_comm, "kworker/2:1");
    CHECK_EQ_INT(sw.next_pid.v, 2923);
    CHECK_EQ_INT(sw.next_prio.v, 100);
    t = "a ==> b:7 [-1] D|W ==> swapper/0:0 [120]";
    CHECK_EQ_INT(ftrace_report_parse_switch(t, strlen(t), &sw), 0);
    CHECK_STR(sw.prev_comm, "a ==> b");
    CHECK_EQ_INT(sw.prev_pid.v, 7);
    CHECK_EQ_INT(sw.prev_prio.v, -1);
    CHECK_STR(sw.prev_state, "D|W");
    CHECK_STR(sw.next_comm, "swapper/0");
    CHECK_EQ_INT(sw.next_pid.v, 0);
    t = "x:1 [2] S:9 [120] R ==> :3"; /* a comm that looks like columns; an empty comm */
    CHECK_EQ_INT(ftrace_report_parse_switch(t, strlen(t), &sw), 0);
    CHECK_STR(sw.prev_comm, "x:1 [2] S");
    CHECK_EQ_INT(sw.prev_pid.v, 9);
    CHECK_STR(sw.next_comm, "");
    CHECK_EQ_INT(sw.next_pid.v, 3);
    CHECK(!sw.next_prio.has);
    t = "sh:5 ==> e:6"; /* no prio, no state fields in the format */
    CHECK_EQ_INT(ftrace_report_parse_switch(t, strlen(t), &sw), 0);
    CHECK(!sw.has_prev_state);
    CHECK(!sw.prev_prio.has);
    CHECK_EQ_INT(sw.next_pid.v, 6);
    const char *bad_sw[] = {"!", "sh:5 [120] S", "sh [120] S ==> e:6", "sh:x [1] S ==> e:6",
                            "sh:5 [1] S ==> e", "", "prev_comm=a prev_pid=1"};
    for (size_t i = 0; i < sizeof bad_sw / sizeof bad_sw[0]; i++)
        CHECK_EQ_INT(ftrace_report_parse_switch(bad_sw[i], strlen(bad_sw[i]), &sw), -1);

    t = "rs:main Q:Reg:238 [120] CPU:003";
    CHECK_EQ_INT(ftrace_report_parse_wakeup(t, strlen(t), &wk), 0);
    CHECK_STR(wk.comm, "rs:main Q:Reg");
    CHECK_EQ_INT(wk.pid.v, 238);
    CHECK_EQ_INT(wk.prio.v, 120);
    CHECK(!wk.success.has);
    CHECK_EQ_INT(wk.target_cpu.v, 3);
    CHECK_STR(wk.target_cpu.text, "003");
    t = "kworker/2:1:2923 [120] success=1 CPU:002";
    CHECK_EQ_INT(ftrace_report_parse_wakeup(t, strlen(t), &wk), 0);
    CHECK_STR(wk.comm, "kworker/2:1");
    CHECK_EQ_INT(wk.success.v, 1);
    CHECK_EQ_INT(wk.target_cpu.v, 2);
    t = "bash:5";
    CHECK_EQ_INT(ftrace_report_parse_wakeup(t, strlen(t), &wk), 0);
    CHECK(!wk.prio.has && !wk.target_cpu.has);
    const char *bad_wk[] = {"!", "bash [120] CPU:001", "comm=bash pid=5 prio=120 target_cpu=000", ""};
    for (size_t i = 0; i < sizeof bad_wk / sizeof bad_wk[0]; i++)
        CHECK_EQ_INT(ftrace_report_parse_wakeup(bad_wk[i], strlen(bad_wk[i]), &wk), -1);
}

/* trace-cmd report as it prints (3.1.6): the cpus= header, an empty cpu,
 * its sched shapes, the -l latency columns; the same events and args as
 * the kernel's key=value text of the same lines; every chunk size. */
static const char report_text[] =
    "cpus=4\n"
    "CPU 3 is empty\n"
    "   rs:main Q:Reg-238   [001] 100.000001: sched_switch:         rs:main Q:Reg:238 [120] S ==> kworker/2:1:2923 [120]\n"
    "     kworker/2:1-2923  [001] 100.000002: sched_wakeup:         rs:main Q:Reg:238 [120] CPU:000\n"
    "     kworker/2:1-2923  [001] 100.000003: sched_waking:         comm=x y pid=9 prio=120 target_cpu=002\n"
    "     kworker/2:1-2923  [001] 100.000004: sched_wakeup_new:     x y:9 [120] success=1 CPU:002\n"
    "rs:main -238     1d..2. 100.000005: sched_switch:         rs:main Q:Reg:238 [120] R ==> swapper/1:0 [120]\n"
    "kworker/-2923    0dN.3. 100.000006: sched_wakeup:         a:7 [99] CPU:001\n"
    "CPU 2 is empty\n";
static const char kernel_text[] =
    "   rs:main Q:Reg-238   [001] d..2. 100.000001: sched_switch: prev_comm=rs:main Q:Reg prev_pid=238 prev_prio=120 prev_state=S ==> next_comm=kworker/2:1 next_pid=2923 next_prio=120\n"
    "     kworker/2:1-2923  [001] d..2. 100.000002: sched_wakeup: comm=rs:main Q:Reg pid=238 prio=120 target_cpu=000\n"
    "     kworker/2:1-2923  [001] d..2. 100.000003: sched_waking: comm=x y pid=9 prio=120 target_cpu=002\n"
    "     kworker/2:1-2923  [001] d..2. 100.000004: sched_wakeup_new: comm=x y pid=9 prio=120 success=1 target_cpu=002\n"
    "   rs:main Q:Reg-238   [001] d..2. 100.000005: sched_switch: prev_comm=rs:main Q:Reg prev_pid=238 prev_prio=120 prev_state=R ==> next_comm=swapper/1 next_pid=0 next_prio=120\n"
    "     kworker/2:1-2923  [000] dN.3. 100.000006: sched_wakeup: comm=a pid=7 prio=99 target_cpu=001\n";

static void test_report(void)
{
    got r, k;
    run(&r, report_text, 0);
    run(&k, kernel_text, 0);
    CHECK_EQ_INT(r.nw, 0);
    CHECK_EQ_INT(r.n, 7);
    CHECK_EQ_INT(k.n, 6);
    /* cpus=4: the trace's cpu count, as JSON's num_cpus metadata */
    CHECK_EQ_INT(r.ev[0].kind, TREAD_EVENT_METADATA);
    CHECK_EQ_INT(r.ev[0].meta, TREAD_META_NUM_CPUS);
    CHECK_EQ_INT(r.ev[0].meta_num, 4);
    CHECK(r.ev[0].flags & TREAD_HAS_META_NUM);
    CHECK_EQ_INT(r.ev[0].offset, 0);
    CHECK_EQ_STR(r.args[0], "number=#4;"); /* as JSON's num_cpus event */
    for (int i = 0; i < k.n && i + 1 < r.n; i++) {
        const tread_event *a = &r.ev[i + 1], *b = &k.ev[i];
        CHECK_EQ_INT(a->kind, b->kind);
        CHECK_EQ_INT(a->ts, b->ts);
        CHECK_EQ_INT(a->cpu, b->cpu);
        CHECK_EQ_INT(a->tid, b->tid);
        CHECK_EQ_INT(a->pid, b->pid);
        CHECK_EQ_INT(a->flags, b->flags);
        CHECK_EQ_STR(r.names[i + 1], k.names[i]);
        CHECK_EQ_STR(r.args[i + 1], k.args[i]);
    }
    CHECK_EQ_INT(r.ev[1].kind, TREAD_EVENT_CONTEXT_SWITCH);
    CHECK_EQ_INT(r.ev[1].tid, 238);
    CHECK_EQ_STR(r.args[1], "prev_comm=rs:main Q:Reg;prev_pid=#238;prev_prio=#120;prev_state=S;"
                            "next_comm=kworker/2:1;next_pid=#2923;next_prio=#120;");
    CHECK_EQ_INT(r.ev[2].kind, TREAD_EVENT_WAKEUP);
    CHECK_EQ_INT(r.ev[2].tid, 238);
    CHECK_EQ_STR(r.args[4], "comm=x y;pid=#9;prio=#120;success=#1;target_cpu=#2;");
    /* -l: the cpu glued to the flags; the comm cut to 8 characters */
    CHECK_EQ_INT(r.ev[5].cpu, 1);
    CHECK_EQ_INT(r.ev[6].cpu, 0);
    CHECK_EQ_INT(r.ev[6].tid, 7);
    CHECK_EQ_INT(r.ev[6].offset, strstr(report_text, "kworker/-2923") - report_text);

    tread_parser *p = mk(&r);
    CHECK_EQ_INT(tread_feed(p, report_text, strlen(report_text)), TREAD_STATUS_OK);
    CHECK_EQ_INT(tread_finish(p), TREAD_STATUS_OK);
    CHECK_EQ_INT(test_format_counter(p, "cpus"), 4);
    CHECK_EQ_INT(test_format_counter(p, "empty_cpus"), 2);
    CHECK_EQ_INT(test_format_counter(p, "report_payloads"), 5);
    CHECK_EQ_INT(test_format_counter(p, "latency_lines"), 2);
    CHECK_EQ_INT(test_format_counter(p, "header_lines"), 3);
    CHECK_EQ_INT(test_format_counter(p, "lines_not_understood"), 0);
    tread_parser_free(p);

    got whole;
    run(&whole, report_text, 0);
    for (size_t chunk = 1; chunk <= sizeof report_text; chunk++) {
        got h;
        run(&h, report_text, chunk);
        CHECK_EQ_INT(h.n, whole.n);
        CHECK_EQ_INT(h.nw, 0);
        for (int i = 0; i < whole.n && i < h.n; i++) {
            CHECK_EQ_INT(h.ev[i].kind, whole.ev[i].kind);
            CHECK_EQ_INT(h.ev[i].offset, whole.ev[i].offset);
            CHECK_EQ_INT(h.ev[i].tid, whole.ev[i].tid);
            CHECK_EQ_STR(h.args[i], whole.args[i]);
        }
    }

    /* a sched payload in neither shape: the generic event and a warning */
    run(&r, "  a-1 [000] 1.0: sched_switch: a:1 [120] S\n", 0);
    CHECK_EQ_INT(r.n, 1);
    CHECK_EQ_INT(r.ev[0].kind, TREAD_EVENT_INSTANT);
    CHECK_EQ_INT(r.nw, 1);
    CHECK_EQ_INT(r.wk[0], TREAD_WARN_BAD_FIELD);
    /* header lines without numbers; the kernel's latency-format stays
     * not understood */
    parse("cpus=x");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_BAD);
    parse("CPU x is empty");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_BAD);
    parse("  CPU 12 is empty");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_CPU_EMPTY);
    CHECK_EQ_INT(L.cpu, 12);
    parse("RenderTh-12338  1d..2. 19661us : sched_switch: prev_comm=a");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_BAD);
    parse("a-b c-12  10d..2. 5.25: x: y");
    CHECK_EQ_INT(L.kind, FTRACE_LINE_EVENT);
    CHECK(L.latency);
    CHECK_STR(L.task, "a-b c");
    CHECK_EQ_INT(L.cpu, 10);
    CHECK_STR(L.flags, "d..2.");
    CHECK_EQ_INT(L.ts, 5250000000);
}

/* The raw line hook (include/tread/ftrace.h): every line, before its
 * event, with its bytes as they are (CR kept), whether a newline ended
 * it, what the decoder makes of it, its offset; a line over the limit
 * without its bytes; the same whatever the chunking and with a stop
 * asked on every line. */
typedef struct hooked {
    char log[8192];    /* "L kind nl off |bytes|" and "E name" records */
    size_t len;
    char copy[8192];   /* the lines' bytes, newlines put back */
    size_t clen;
    int stop;
} hooked;

static void hput(hooked *h, const char *s, size_t n)
{
    if (h->len + n < sizeof h->log) {
        memcpy(h->log + h->len, s, n);
        h->len += n;
    }
}

static int hook_line(void *u, const tread_ftrace_line *l)
{
    hooked *h = u;
    char head[96];
    int k = snprintf(head, sizeof head, "L %u %d %llu %u |", l->kind, l->newline,
                     (unsigned long long)l->offset, l->text);
    hput(h, head, (size_t)k);
    if (l->data) {
        hput(h, l->data, l->len);
        if (h->clen + l->len + 1 < sizeof h->copy) {
            memcpy(h->copy + h->clen, l->data, l->len);
            h->clen += l->len;
            if (l->newline)
                h->copy[h->clen++] = '\n';
        }
    }
    hput(h, "|\n", 2);
    return h->stop;
}

static int hook_event(void *u, const tread_event *ev)
{
    hooked *h = u;
    char rec[128];
    int k = snprintf(rec, sizeof rec, "E %.*s %llu\n", (int)ev->name.len,
                     ev->name.ptr ? ev->name.ptr : "", (unsigned long long)ev->offset);
    hput(h, rec, (size_t)k);
    return h->stop;
}

static void hook_run(hooked *h, const char *text, size_t n, size_t chunk, int stop)
{
    memset(h, 0, sizeof *h);
    h->stop = stop;
    tread_parser *p = tread_parser_create(NULL);
    CHECK(p != NULL);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_MAX_LINE_BYTES, 256), 0);
    const tread_callbacks cb = {.event = hook_event, .ftrace_line = hook_line};
    tread_set_callbacks(p, &cb, h);
    int guard = 0;
    for (size_t i = 0; i < n; i += chunk) {
        tread_status st = tread_feed(p, text + i, i + chunk > n ? n - i : chunk);
        while (st == TREAD_STATUS_PAUSED && guard++ < 10000)
            st = tread_resume(p);
        CHECK_EQ_INT(st, TREAD_STATUS_OK);
    }
    tread_status st = tread_finish(p);
    while (st == TREAD_STATUS_PAUSED && guard++ < 10000)
        st = tread_resume(p);
    CHECK_EQ_INT(st, TREAD_STATUS_OK);
    tread_parser_free(p);
}

static void test_line_hook(void)
{
    char longl[400];
    memset(longl, 'z', sizeof longl - 2);
    longl[sizeof longl - 2] = '\n';
    longl[sizeof longl - 1] = 0;
    char text[2048];
    snprintf(text, sizeof text,
             "# tracer: nop\n"
             "#\n"
             "          bash-1   [000] ....  1.000001: sched_wakeup: comm=a pid=2 prio=1 target_cpu=000\r\n"
             "not a line tread knows\n"
             "%s"
             "\n"
             "cpus=4\n"
             "          bash-1   [000] ....  1.000002: print: last, no newline",
             longl);
    size_t n = strlen(text);
    hooked ref, h;
    hook_run(&ref, text, n, n, 0);
    /* every line, kinds in order, before its event */
    const char *want_kinds[] = {"L 1 1 0 1 |# tracer: nop|", "L 1 1 14 1 |#|",
                                "L 4 1 16 1 |", "E sched_wakeup 16", "L 0 1 ",
                                "L 9 1 ", "L 1 1 ", "L 2 1 ", "E num_cpus", "L 4 0 ",
                                "E print"};
    const char *at = ref.log;
    for (size_t i = 0; i < sizeof want_kinds / sizeof *want_kinds; i++) {
        const char *f = strstr(at, want_kinds[i]);
        CHECK(f != NULL);
        if (!f) {
            fprintf(stderr, "missing after %zu: %s\n%.*s\n", i, want_kinds[i],
                    (int)ref.len, ref.log);
            break;
        }
        at = f + 1;
    }
    /* the lines' bytes, newlines put back, are the input but the long line */
    char *ll = strstr(text, longl);
    CHECK(ll != NULL);
    size_t before = (size_t)(ll - text), ln = strlen(longl);
    CHECK_EQ_INT(ref.clen, n - ln);
    CHECK(memcmp(ref.copy, text, before) == 0);
    CHECK(memcmp(ref.copy + before, text + before + ln, n - before - ln) == 0);
    /* the same in every chunk size, and stopping after every line */
    for (size_t chunk = 1; chunk <= 64; chunk++) {
        hook_run(&h, text, n, chunk, (int)(chunk & 1));
        CHECK_EQ_INT(h.len, ref.len);
        CHECK(h.len == ref.len && memcmp(h.log, ref.log, ref.len) == 0);
    }
}

int main(void)
{
    test_empty_args();
    test_line_shapes();
    test_atrace();
    test_decoder();
    test_counters_and_crlf();
    test_report_function();
    test_line_limit();
    test_pause_resume();
    test_function_tracers();
    test_map_direct();
    test_report_payloads();
    test_report();
    test_line_hook();
    return TEST_EXIT();
}
