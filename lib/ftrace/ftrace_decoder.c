/*
 * The Linux ftrace text decoder (TREAD_FORMAT_FTRACE): a memchr-driven
 * line splitter over the fed bytes (zero copy; only a line split across
 * feeds is gathered, up to TREAD_OPT_MAX_LINE_BYTES), ftrace_line.c for the
 * columns, ftrace_map.c for what each event becomes. One line gives at most
 * one event, so a pause needs no state beyond the line it stopped after.
 */
#define _GNU_SOURCE 1 /* memmem */
#include <stdio.h>
#include <string.h>
#include "core/parser.h"
#include "core/args.h"
#include "ftrace/ftrace_args.h"
#include "ftrace/ftrace_kv.h"
#include "ftrace/ftrace_line.h"
#include "ftrace/ftrace_map.h"
#include "ftrace/ftrace_report.h"
#include <tread/ftrace.h>

#define FTRACE_LOST_CPUS 64

typedef struct ftrace_counts {
    uint64_t lines, header_lines, event_lines, function_lines, graph_lines,
        stack_lines, lines_not_understood, lines_too_long, lost_markers,
        lost_events, lost_events_other_cpus, atrace_malformed, marker_text,
        fields_missing, report_payloads, latency_lines, cpus, empty_cpus;
} ftrace_counts;

typedef struct ftrace_decoder {
    tread_parser *p;
    tread_buf line;        /* a line split across feeds */
    uint64_t line_off;     /* offset of the gathered line's first byte */
    int skipping;          /* inside a line longer than the limit */
    tread_buf cpus_args;   /* the num_cpus event's args: {number: N} */
    int finished;
    uint32_t text;         /* tread_ftrace_line.text */
    tread_str instance;    /* the line's instance buffer (trace-cmd report) */
    ftrace_counts c;
    uint64_t lost_by_cpu[FTRACE_LOST_CPUS];
    char lost_names[FTRACE_LOST_CPUS][28]; /* room for any int: gcc -O1 checks */
} ftrace_decoder;

static tread_str mkstr(const char *p, size_t n)
{
    tread_str s;
    s.ptr = p;
    s.len = n;
    return s;
}

#define NAME_IS(L, lit) ((L)->name.len == sizeof lit - 1 && memcmp((L)->name.ptr, lit, sizeof lit - 1) == 0)
#define KEY_IS(kv, lit) ((kv).key_len == sizeof lit - 1 && memcmp((kv).key, lit, sizeof lit - 1) == 0)

static int kv_int(const ftrace_kv *kv, int64_t *out)
{
    return ftrace_parse_int(kv->val, kv->val_len, out) == 0;
}

/* The integer field key (with its '=') of a payload, found with memmem at
 * a token start: the hot events (sched_switch, sched_wakeup/waking) need one
 * field, and a full field walk costs a third of the decoder's time. */
static int find_int(tread_str pl, const char *key, size_t kl, int64_t *out)
{
    const char *s = pl.ptr, *end = s + pl.len, *q;
    while (s < end && (q = memmem(s, (size_t)(end - s), key, kl)) != NULL) {
        if (q == pl.ptr || ftrace_kv_blank(q[-1])) {
            const char *v = q + kl, *e = v;
            while (e < end && !ftrace_kv_blank(*e))
                e++;
            return ftrace_parse_int(v, (size_t)(e - v), out) == 0;
        }
        s = q + 1;
    }
    return 0;
}

static int emit(ftrace_decoder *d, tread_event *ev)
{
    if (d->instance.len) { /* the instance buffer's name, as trace.dat gives it */
        ev->provider_name = d->instance;
        ev->provider_id = 0;
        ev->flags |= TREAD_HAS_PROVIDER;
    }
    return tread__emit_inline(d->p, ev);
}

static void missing(ftrace_decoder *d, const ftrace_line *L, uint64_t off)
{
    d->c.fields_missing++;
    tread__warn(d->p, TREAD_WARN_BAD_FIELD, off,
                "%.*s: a field the event needs is missing or not a number: "
                "delivered as a generic ftrace event",
                (int)(L->name.len > 64 ? 64 : L->name.len), L->name.ptr);
}

/* sched_switch, sched_wakeup*, cpu_frequency, cpu_idle, task_*: reads the
 * fields the mapping needs. Returns a TREAD_FTRACE_* result. */
static int map_known(ftrace_decoder *d, tread_event *ev, const tread_ftrace_common *c,
                     const ftrace_line *L, uint64_t off)
{
    const char *pos = L->payload.ptr, *end = pos + L->payload.len;
    ftrace_kv kv;
    (void)off;
    switch (L->name.len) {
    case 12:
        if (NAME_IS(L, "sched_switch")) {
            /* the mapping reads prev_pid; the rest is in the args */
            tread_ftrace_sched_switch s;
            memset(&s, 0, sizeof s);
            if (!find_int(L->payload, "prev_pid=", 9, &s.prev_pid)) {
                ftrace_report_switch r;
                if (ftrace_report_parse_switch(L->payload.ptr, L->payload.len, &r) != 0)
                    return TREAD_FTRACE_MALFORMED;
                s.prev_pid = r.prev_pid.v;
                d->c.report_payloads++;
                ev->args.ctx = &tread__ftrace_ctx_report_switch;
            }
            return tread__ftrace_map_sched_switch(ev, c, &s);
        }
        if (NAME_IS(L, "sched_wakeup") || NAME_IS(L, "sched_waking"))
            goto wakeup;
        if (NAME_IS(L, "task_newtask")) {
            tread_ftrace_task_newtask t;
            int have = 0;
            memset(&t, 0, sizeof t);
            while (ftrace_kv_next(&pos, end, &kv)) {
                if (KEY_IS(kv, "pid"))
                    have |= kv_int(&kv, &t.pid);
                else if (KEY_IS(kv, "comm"))
                    t.comm = mkstr(kv.val, kv.val_len);
            }
            if (!have)
                return TREAD_FTRACE_MALFORMED;
            return tread__ftrace_map_task_newtask(ev, c, &t);
        }
        return TREAD_FTRACE_NONE;
    case 16:
        if (NAME_IS(L, "sched_wakeup_new"))
            goto wakeup;
        return TREAD_FTRACE_NONE;
    case 13:
        if (NAME_IS(L, "cpu_frequency"))
            goto cpu_state;
        return TREAD_FTRACE_NONE;
    case 8:
        if (NAME_IS(L, "cpu_idle"))
            goto cpu_state;
        return TREAD_FTRACE_NONE;
    case 11:
        if (NAME_IS(L, "task_rename")) {
            tread_ftrace_task_rename t;
            int have = 0, named = 0;
            memset(&t, 0, sizeof t);
            while (ftrace_kv_next(&pos, end, &kv)) {
                if (KEY_IS(kv, "pid"))
                    have |= kv_int(&kv, &t.pid);
                else if (KEY_IS(kv, "oldcomm"))
                    t.oldcomm = mkstr(kv.val, kv.val_len);
                else if (KEY_IS(kv, "newcomm")) {
                    t.newcomm = mkstr(kv.val, kv.val_len);
                    named = 1;
                }
            }
            if (!have || !named)
                return TREAD_FTRACE_MALFORMED;
            return tread__ftrace_map_task_rename(ev, c, &t);
        }
        return TREAD_FTRACE_NONE;
    default:
        return TREAD_FTRACE_NONE;
    }
wakeup: {
        /* the mapping reads pid; the rest is in the args */
        tread_ftrace_sched_wakeup w;
        memset(&w, 0, sizeof w);
        w.target_cpu = -1;
        if (!find_int(L->payload, "pid=", 4, &w.pid)) {
            ftrace_report_wakeup r;
            if (ftrace_report_parse_wakeup(L->payload.ptr, L->payload.len, &r) != 0)
                return TREAD_FTRACE_MALFORMED;
            w.pid = r.pid.v;
            d->c.report_payloads++;
            ev->args.ctx = &tread__ftrace_ctx_report_wakeup;
        }
        return tread__ftrace_map_sched_wakeup(ev, c, &w);
    }
cpu_state: {
        tread_ftrace_cpu_state f;
        int have = 0;
        memset(&f, 0, sizeof f);
        while (ftrace_kv_next(&pos, end, &kv)) {
            if (KEY_IS(kv, "state"))
                have |= ftrace_parse_uint(kv.val, kv.val_len, &f.state) == 0 ? 1 : 0;
            else if (KEY_IS(kv, "cpu_id"))
                have |= kv_int(&kv, &f.cpu_id) ? 2 : 0;
        }
        if (have != 3)
            return TREAD_FTRACE_MALFORMED;
        return L->name.len == 8 ? tread__ftrace_map_cpu_idle(ev, c, &f)
                                : tread__ftrace_map_cpu_frequency(ev, c, &f);
    }
}

static int event_line(ftrace_decoder *d, const ftrace_line *L, uint64_t off)
{
    tread_ftrace_common c;
    tread_event ev;
    c.ts = L->ts;
    c.cpu = L->cpu;
    c.tid = L->pid;
    c.tgid = L->tgid;
    c.flags = TREAD_FTRACE_HAS_CPU | (L->has_tgid ? TREAD_FTRACE_HAS_TGID : 0);
    c.comm = L->task;
    c.args.data = (const unsigned char *)L->payload.ptr;
    c.args.len = L->payload.len;
    c.args.encoding = TREAD_ARGS_FTRACE;
    c.args.ctx = NULL;
    c.offset = off;
    tread__ftrace_event_init(&ev, &c, L->name);
    int r;
    if (tread__ftrace_is_marker_event(L->name.ptr, L->name.len)) {
        r = tread__ftrace_map_print(&ev, &c, L->payload.ptr, L->payload.len);
        if (r == TREAD_FTRACE_NOT_ATRACE) {
            d->c.marker_text++;
        } else if (r == TREAD_FTRACE_MALFORMED) {
            d->c.atrace_malformed++;
            tread__warn(d->p, TREAD_WARN_BAD_FIELD, off,
                        "malformed atrace payload \"%.*s\": delivered as a generic ftrace event",
                        (int)(L->payload.len > 64 ? 64 : L->payload.len), L->payload.ptr);
        }
    } else {
        r = map_known(d, &ev, &c, L, off);
        if (r == TREAD_FTRACE_MALFORMED)
            missing(d, L, off);
    }
    if (r != TREAD_FTRACE_MAPPED) {
        tread__ftrace_event_init(&ev, &c, L->name);
        tread__ftrace_map_generic(&ev, &c);
    }
    return emit(d, &ev);
}

static int function_line(ftrace_decoder *d, const ftrace_line *L, uint64_t off)
{
    tread_ftrace_common c;
    tread_event ev;
    memset(&c, 0, sizeof c);
    c.ts = L->ts;
    c.cpu = L->cpu;
    c.tid = L->pid;
    c.tgid = L->tgid;
    c.flags = TREAD_FTRACE_HAS_CPU | (L->has_tgid ? TREAD_FTRACE_HAS_TGID : 0);
    c.args.data = (const unsigned char *)L->payload.ptr;
    c.args.len = L->payload.len;
    c.args.encoding = TREAD_ARGS_FTRACE;
    c.args.ctx = &tread__ftrace_ctx_function;
    c.offset = off;
    tread__ftrace_event_init(&ev, &c, L->name);
    tread__ftrace_map_generic(&ev, &c);
    ev.cat = mkstr("function", 8);
    return emit(d, &ev);
}

/* trace-cmd report prints a function tracer event as "function: func"
 * or, with its parent option, "function: func <-- parent": made the
 * function line the kernel's text has ("func <-parent"), as the trace.dat
 * decoder gives the same record. 1 when it is that shape. */
static int report_function(ftrace_line *L)
{
    const char *s = L->payload.ptr, *end = s + L->payload.len, *q = s;
    while (q < end && *q != ' ' && *q != '\t')
        q++;
    if (q == s)
        return 0;
    const char *r = q;
    while (r < end && (*r == ' ' || *r == '\t'))
        r++;
    tread_str parent = mkstr(end, 0);
    if (r < end) {
        if (end - r < 3 || memcmp(r, "<--", 3) != 0)
            return 0;
        r += 3;
        while (r < end && (*r == ' ' || *r == '\t'))
            r++;
        parent = mkstr(r, (size_t)(end - r));
    }
    L->kind = FTRACE_LINE_FUNCTION;
    L->name = mkstr(s, (size_t)(q - s));
    L->payload = parent;
    return 1;
}

static int graph_line(ftrace_decoder *d, const ftrace_line *L, uint64_t off)
{
    tread_event ev;
    memset(&ev, 0, sizeof ev);
    ev.cat = mkstr("function_graph", 14);
    ev.offset = off;
    ev.cpu = L->cpu;
    ev.flags = TREAD_HAS_CPU;
    if (L->has_ts) {
        ev.ts = L->ts;
        ev.flags |= TREAD_HAS_TS;
    }
    if (L->has_pid) {
        ev.pid = ev.tid = L->pid;
        ev.flags |= TREAD_HAS_TID;
    }
    if (L->has_dur) {
        ev.dur = L->dur;
        ev.flags |= TREAD_HAS_DUR;
    }
    ev.name = L->name;
    switch (L->graph) {
    case FTRACE_GRAPH_ENTER:
        ev.kind = TREAD_EVENT_SLICE_BEGIN;
        break;
    case FTRACE_GRAPH_EXIT:
        ev.kind = TREAD_EVENT_SLICE_END;
        break;
    case FTRACE_GRAPH_LEAF:
        ev.kind = TREAD_EVENT_COMPLETE;
        break;
    default:
        ev.kind = TREAD_EVENT_INSTANT;
        ev.scope = TREAD_SCOPE_THREAD;
        ev.name = L->payload;
        break;
    }
    return emit(d, &ev);
}

/* trace-cmd report's "cpus=N": the trace's cpu count, as JSON's num_cpus
 * metadata. */
static int cpus_line(ftrace_decoder *d, const ftrace_line *L, uint64_t off)
{
    tread_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TREAD_EVENT_METADATA;
    ev.meta = TREAD_META_NUM_CPUS;
    ev.name = mkstr("num_cpus", 8);
    ev.cat = mkstr("ftrace", 6);
    ev.meta_num = L->cpu;
    ev.flags = TREAD_HAS_META_NUM;
    ev.offset = off;
    /* the args JSON's num_cpus event has, so that the two read alike */
    d->cpus_args.len = 0;
    if (args_put_str(&d->cpus_args, TOK_KEY, "number", 6) == 0 &&
        args_put_u64(&d->cpus_args, TOK_INT, (uint64_t)L->cpu) == 0) {
        ev.args.data = d->cpus_args.data;
        ev.args.len = d->cpus_args.len;
        ev.args.encoding = TREAD_ARGS_TOKENS;
    }
    return emit(d, &ev);
}

/* The hooks' kinds are the line kinds, in the same order. */
_Static_assert(TREAD_FTRACE_LINE_OTHER == (int)FTRACE_LINE_BAD &&
               TREAD_FTRACE_LINE_HEADER == (int)FTRACE_LINE_HEADER &&
               TREAD_FTRACE_LINE_CPUS == (int)FTRACE_LINE_CPUS &&
               TREAD_FTRACE_LINE_CPU_EMPTY == (int)FTRACE_LINE_CPU_EMPTY &&
               TREAD_FTRACE_LINE_EVENT == (int)FTRACE_LINE_EVENT &&
               TREAD_FTRACE_LINE_FUNCTION == (int)FTRACE_LINE_FUNCTION &&
               TREAD_FTRACE_LINE_GRAPH == (int)FTRACE_LINE_GRAPH &&
               TREAD_FTRACE_LINE_STACK == (int)FTRACE_LINE_STACK &&
               TREAD_FTRACE_LINE_LOST == (int)FTRACE_LINE_LOST,
               "tread_ftrace_line kinds follow ftrace_line_kind");

/* The raw line hook (tread/ftrace.h), before the line's event. */
static void line_hook(ftrace_decoder *d, const char *s, size_t n, uint64_t off,
                      unsigned kind, int newline)
{
    if (!d->p->cb.ftrace_line)
        return;
    tread_ftrace_line l;
    l.data = s;
    l.len = n;
    l.newline = newline;
    l.kind = kind;
    l.offset = off;
    l.text = d->text;
    if (d->p->cb.ftrace_line(d->p->user, &l))
        d->p->stop_requested = 1;
}

/* One complete line (without its '\n'). Returns -1 when it gave no event,
 * else 1 when a callback asked to stop, 0 when not. */
static int do_line(ftrace_decoder *d, const char *s, size_t n, uint64_t off, int newline)
{
    ftrace_line L;
    ftrace_parse_line(s, n, &L);
    d->instance = L.instance;
    d->c.lines++;
    line_hook(d, s, n, off, (unsigned)L.kind, newline);
    switch (L.kind) {
    case FTRACE_LINE_HEADER:
        d->c.header_lines++;
        return -1;
    case FTRACE_LINE_CPUS:
        d->c.header_lines++;
        d->c.cpus = (uint64_t)L.cpu;
        return cpus_line(d, &L, off);
    case FTRACE_LINE_CPU_EMPTY:
        d->c.header_lines++;
        d->c.empty_cpus++;
        return -1;
    case FTRACE_LINE_EVENT:
        if (NAME_IS(&L, "function") && report_function(&L)) {
            d->c.function_lines++;
            return function_line(d, &L, off);
        }
        d->c.event_lines++;
        d->c.latency_lines += L.latency;
        return event_line(d, &L, off);
    case FTRACE_LINE_FUNCTION:
        d->c.function_lines++;
        return function_line(d, &L, off);
    case FTRACE_LINE_GRAPH:
        d->c.graph_lines++;
        return graph_line(d, &L, off);
    case FTRACE_LINE_STACK:
        d->c.stack_lines++;
        return -1;
    case FTRACE_LINE_LOST:
        d->c.lost_markers++;
        if (L.lost < 0) {
            tread__warn(d->p, TREAD_WARN_DATA_LOSS, off,
                        "cpu %lld lost events (how many was not stored)", (long long)L.cpu);
            return -1;
        }
        d->c.lost_events += (uint64_t)L.lost;
        if (L.cpu >= 0 && L.cpu < FTRACE_LOST_CPUS)
            d->lost_by_cpu[L.cpu] += (uint64_t)L.lost;
        else
            d->c.lost_events_other_cpus += (uint64_t)L.lost;
        tread__warn(d->p, TREAD_WARN_DATA_LOSS, off, "cpu %lld lost %lld events",
                    (long long)L.cpu, (long long)L.lost);
        return -1;
    default:
        d->c.lines_not_understood++;
        tread__warn(d->p, TREAD_WARN_BAD_RECORD, off, "line not understood: %s: \"%.*s\"",
                    L.why, (int)(n > 48 ? 48 : n), s);
        return -1;
    }
}

static void too_long(ftrace_decoder *d, uint64_t off)
{
    d->c.lines++;
    line_hook(d, NULL, 0, off, TREAD_FTRACE_LINE_TOO_LONG, 1);
    d->c.lines_too_long++;
    tread__warn(d->p, TREAD_WARN_BAD_RECORD, off,
                "line longer than the max-line-bytes option (%zu): skipped",
                d->p->max_line_bytes);
}

static tread_status fd_feed(void *dec, const unsigned char *data, size_t len,
                            size_t *consumed)
{
    ftrace_decoder *d = dec;
    size_t pos = 0, max = d->p->max_line_bytes;
    *consumed = 0;
    if (!data)
        return TREAD_STATUS_OK; /* nothing is left inside a line */
    /* the offset of data[0]: the parser's, or inside a container the
     * container's (sys_sub moves it to where the piece lies) */
    const uint64_t base = d->p->dec_offset;
    while (pos < len) {
        const unsigned char *nl = memchr(data + pos, '\n', len - pos);
        if (d->skipping) {
            if (!nl)
                break;
            d->skipping = 0;
            pos = (size_t)(nl - data) + 1;
            continue;
        }
        if (!nl) {
            if (d->line.len == 0)
                d->line_off = base + pos;
            if (d->line.len + (len - pos) > max) {
                too_long(d, d->line_off);
                d->line.len = 0;
                d->skipping = 1;
            } else if (tread_buf_append(&d->line, data + pos, len - pos) != 0) {
                return tread__fail(d->p, TREAD_ERROR_NOMEM, d->line_off, "out of memory");
            }
            break;
        }
        size_t n = (size_t)(nl - data) - pos;
        int stop;
        if (d->line.len) {
            uint64_t off = d->line_off;
            if (d->line.len + n > max) {
                too_long(d, off);
                stop = -1;
            } else if (tread_buf_append(&d->line, data + pos, n) != 0) {
                return tread__fail(d->p, TREAD_ERROR_NOMEM, off, "out of memory");
            } else {
                stop = do_line(d, (const char *)d->line.data, d->line.len, off, 1);
            }
            d->line.len = 0;
        } else if (n > max) {
            too_long(d, base + pos);
            stop = -1;
        } else {
            stop = do_line(d, (const char *)data + pos, n, base + pos, 1);
        }
        pos += n + 1;
        /* a stop asked for by a warning waits for the next event */
        if (stop >= 0 && d->p->stop_requested) {
            *consumed = pos;
            return TREAD_STATUS_PAUSED;
        }
    }
    *consumed = len;
    return TREAD_STATUS_OK;
}

static tread_status fd_finish(void *dec)
{
    ftrace_decoder *d = dec;
    if (d->finished)
        return TREAD_STATUS_OK;
    d->finished = 1;
    if (d->line.len) { /* the last line has no newline */
        size_t n = d->line.len;
        d->line.len = 0; /* the buffer's bytes stay valid until the next feed */
        do_line(d, (const char *)d->line.data, n, d->line_off, 0);
    }
    return TREAD_STATUS_OK;
}

static void *fd_create(tread_parser *p)
{
    ftrace_decoder *d = tread_malloc(&p->alloc, sizeof *d);
    if (!d)
        return NULL;
    memset(d, 0, sizeof *d);
    d->p = p;
    d->text = ++p->ftrace_texts;
    tread_buf_init(&d->line, &p->alloc, p->max_line_bytes);
    tread_buf_init(&d->cpus_args, &p->alloc, 64);
    for (int i = 0; i < FTRACE_LOST_CPUS; i++)
        snprintf(d->lost_names[i], sizeof d->lost_names[i], "lost_events.cpu%d", i);
    return d;
}

static void fd_destroy(void *dec)
{
    ftrace_decoder *d = dec;
    if (!d)
        return;
    tread_buf_free(&d->line);
    tread_buf_free(&d->cpus_args);
    tread_free(&d->p->alloc, d);
}

static size_t fd_counters(const void *dec, tread_counter *out, size_t max)
{
    const ftrace_decoder *d = dec;
    size_t n = 0;
    n = tread__counter_put(out, max, n, "lines", d->c.lines);
    n = tread__counter_put(out, max, n, "header_lines", d->c.header_lines);
    n = tread__counter_put(out, max, n, "event_lines", d->c.event_lines);
    n = tread__counter_put(out, max, n, "function_lines", d->c.function_lines);
    n = tread__counter_put(out, max, n, "function_graph_lines", d->c.graph_lines);
    n = tread__counter_put(out, max, n, "stack_lines", d->c.stack_lines);
    n = tread__counter_put(out, max, n, "lines_not_understood", d->c.lines_not_understood);
    n = tread__counter_put(out, max, n, "lines_too_long", d->c.lines_too_long);
    n = tread__counter_put(out, max, n, "atrace_malformed", d->c.atrace_malformed);
    n = tread__counter_put(out, max, n, "marker_text", d->c.marker_text);
    n = tread__counter_put(out, max, n, "fields_missing", d->c.fields_missing);
    n = tread__counter_put(out, max, n, "report_payloads", d->c.report_payloads);
    n = tread__counter_put(out, max, n, "latency_lines", d->c.latency_lines);
    n = tread__counter_put(out, max, n, "cpus", d->c.cpus);
    n = tread__counter_put(out, max, n, "empty_cpus", d->c.empty_cpus);
    n = tread__counter_put(out, max, n, "lost_markers", d->c.lost_markers);
    n = tread__counter_put(out, max, n, "lost_events", d->c.lost_events);
    for (int i = 0; i < FTRACE_LOST_CPUS; i++)
        if (d->lost_by_cpu[i])
            n = tread__counter_put(out, max, n, d->lost_names[i], d->lost_by_cpu[i]);
    if (d->c.lost_events_other_cpus)
        n = tread__counter_put(out, max, n, "lost_events.cpu_other",
                               d->c.lost_events_other_cpus);
    return n;
}

const tread_decoder_ops tread__ftrace_decoder = {
    .format = TREAD_FORMAT_FTRACE,
    .create = fd_create,
    .feed = fd_feed,
    .finish = fd_finish,
    .destroy = fd_destroy,
    .counters = fd_counters,
};
