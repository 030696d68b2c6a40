/* Counts what trace_processor counts in a Perfetto trace, through tread's
 * public API only, for tests/corpus/perfetto_oracle.sh to compare with
 * ../shared/corpus/perfetto/oracle/<trace>.oracle.txt (trace_processor
 * v58.2). doc/formats/perfetto-oracle.md explains each rule.
 *
 *  slices     rows of trace_processor's slice table: every slice begin
 *             (TrackEvent TYPE_SLICE_BEGIN, legacy 'B'), complete ('X'),
 *             instant (TYPE_INSTANT, legacy 'i'/'I'), legacy nestable async
 *             begin 'b' and async instant 'n', atrace async begins
 *             (S|pid|name|cookie in ftrace print events). An end never
 *             makes a row.
 *             The other legacy phases ('S', 'T', 'p', 'F', 'R', ...) go to
 *             trace_processor's raw table, not to slices.
 *  counters   rows of the counter table: one per COUNTER event.
 *  threads    the thread table: row 0 (the placeholder trace_processor
 *             always has), one row per distinct (pid, tid), plus the main
 *             thread (pid, pid) of every process, which trace_processor
 *             creates with the process.
 *  processes  the process table: row 0, plus one row per distinct pid.
 *  trace_start_ts, trace_end_ts
 *             trace_processor's trace bounds: the first and last trace-clock
 *             time of any event (a complete event ends at ts + dur). This
 *             checks the clock conversion end to end.
 *
 * Output: one "name value" line per count; lines starting with '#' are
 * details. With --names, also "#name n cat name" per slice name and
 * category, to set against the oracle's "## names" section. Exit 0, 1 when
 * the trace did not parse, 77 when tread has no Perfetto decoder. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tread.h>

/* A set of 64-bit keys (open addressing; key 0 is stored apart). */
typedef struct keyset {
    uint64_t *k;
    size_t cap, n;
    int has_zero;
} keyset;

static void keyset_add(keyset *s, uint64_t key)
{
    if (key == 0) {
        if (!s->has_zero)
            s->n++;
        s->has_zero = 1;
        return;
    }
    if ((s->n + 1) * 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        uint64_t *k = calloc(cap, sizeof *k);
        if (!k) {
            fprintf(stderr, "perfetto_oracle: out of memory\n");
            exit(1);
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->k[i]) {
                size_t h = (size_t)((s->k[i] * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
                while (k[h])
                    h = (h + 1) & (cap - 1);
                k[h] = s->k[i];
            }
        free(s->k);
        s->k = k;
        s->cap = cap;
    }
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (s->cap - 1);
    while (s->k[h]) {
        if (s->k[h] == key)
            return;
        h = (h + 1) & (s->cap - 1);
    }
    s->k[h] = key;
    s->n++;
}

/* Slices by (category, name), for --names. */
typedef struct name_count {
    char *key; /* cat '\t' name */
    uint64_t n;
} name_count;

typedef struct name_map {
    name_count *v;
    size_t cap, n;
} name_map;

static uint64_t fnv(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static void oom(void)
{
    fprintf(stderr, "perfetto_oracle: out of memory\n");
    exit(1);
}

static void name_map_add(name_map *m, const tread_str *cat, const tread_str *name)
{
    size_t cl = cat->ptr ? cat->len : 0, nl = name->ptr ? name->len : 0;
    char *key = malloc(cl + nl + 2);
    if (!key)
        oom();
    if (cl)
        memcpy(key, cat->ptr, cl);
    key[cl] = '\t';
    if (nl)
        memcpy(key + cl + 1, name->ptr, nl);
    key[cl + 1 + nl] = 0;
    size_t len = cl + 1 + nl;
    if ((m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 1024;
        name_count *v = calloc(cap, sizeof *v);
        if (!v)
            oom();
        for (size_t i = 0; i < m->cap; i++)
            if (m->v[i].key) {
                size_t h = (size_t)fnv(m->v[i].key, strlen(m->v[i].key)) & (cap - 1);
                while (v[h].key)
                    h = (h + 1) & (cap - 1);
                v[h] = m->v[i];
            }
        free(m->v);
        m->v = v;
        m->cap = cap;
    }
    size_t h = (size_t)fnv(key, len) & (m->cap - 1);
    while (m->v[h].key && strcmp(m->v[h].key, key) != 0)
        h = (h + 1) & (m->cap - 1);
    if (m->v[h].key) {
        free(key);
    } else {
        m->v[h].key = key;
        m->n++;
    }
    m->v[h].n++;
}

typedef struct counts {
    uint64_t begins, completes, instants, async_begins, async_instants;
    uint64_t counters, ends, raw_ts, perfetto_events, sched, wakeups, logs;
    int has_bounds;
    int64_t start_ts, end_ts;
    keyset threads;   /* (uint32 pid << 32 | uint32 tid) */
    keyset processes; /* uint32 pid */
    int want_names;
    name_map names;
} counts;

/* trace_processor keeps pids and tids as 32-bit values. */
static void add_process(counts *c, int64_t pid)
{
    uint32_t p = (uint32_t)pid;
    keyset_add(&c->processes, p);
    keyset_add(&c->threads, (uint64_t)p << 32 | p); /* its main thread */
}

static void add_thread(counts *c, int64_t pid, int64_t tid)
{
    add_process(c, pid);
    keyset_add(&c->threads, (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid);
}

static int on_event(void *user, const tread_event *ev)
{
    counts *c = user;
    if (ev->format != TREAD_FORMAT_PERFETTO)
        return 0;
    c->perfetto_events++;
    if (ev->flags & TREAD_HAS_RAW_TS)
        c->raw_ts++;
    if (ev->flags & TREAD_HAS_TS) {
        int64_t end = ev->ts;
        if ((ev->flags & TREAD_HAS_DUR) && ev->dur > 0 && ev->ts <= INT64_MAX - ev->dur)
            end = ev->ts + ev->dur;
        if (!c->has_bounds || ev->ts < c->start_ts)
            c->start_ts = ev->ts;
        if (!c->has_bounds || end > c->end_ts)
            c->end_ts = end;
        c->has_bounds = 1;
    }
    uint64_t slices_before = c->begins + c->completes + c->instants + c->async_begins +
                             c->async_instants;
    switch (ev->kind) {
    case TREAD_EVENT_SLICE_BEGIN:
        c->begins++;
        break;
    case TREAD_EVENT_SLICE_END:
        c->ends++;
        break;
    case TREAD_EVENT_COMPLETE:
        c->completes++;
        break;
    case TREAD_EVENT_INSTANT:
        if (ev->phase != 'R') /* a legacy mark: raw table */
            c->instants++;
        break;
    case TREAD_EVENT_ASYNC_BEGIN:
        /* legacy 'b'; and atrace S|pid|name|cookie from ftrace print
         * events, which trace_processor makes an async slice of */
        if (ev->phase == 'b' || (ev->phase == 'S' && ev->cat.len == 6 &&
                                 memcmp(ev->cat.ptr, "atrace", 6) == 0))
            c->async_begins++;
        break;
    case TREAD_EVENT_CONTEXT_SWITCH:
        c->sched++;
        break;
    case TREAD_EVENT_WAKEUP:
        c->wakeups++;
        break;
    case TREAD_EVENT_LOG:
        c->logs++;
        break;
    case TREAD_EVENT_ASYNC_STEP:
        if (ev->phase == 'n')
            c->async_instants++;
        break;
    case TREAD_EVENT_COUNTER:
        c->counters++;
        break;
    default:
        break;
    }
    if (c->want_names &&
        c->begins + c->completes + c->instants + c->async_begins + c->async_instants !=
            slices_before)
        name_map_add(&c->names, &ev->cat, &ev->name);
    /* who the event names: a thread (pid and tid known) or a process */
    int has_pid = (ev->flags & TREAD_HAS_PID) != 0;
    int has_tid = (ev->flags & TREAD_HAS_TID) != 0;
    if (ev->flags & TREAD_THREAD_UNRESOLVED)
        has_pid = has_tid = 0;
    if (has_pid && has_tid)
        add_thread(c, ev->pid, ev->tid);
    else if (has_pid)
        add_process(c, ev->pid);
    return 0;
}

int main(int argc, char **argv)
{
    counts c;
    memset(&c, 0, sizeof c);
    if (argc == 3 && strcmp(argv[1], "--names") == 0) {
        c.want_names = 1;
        argv++;
        argc--;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: perfetto_oracle [--names] TRACE\n");
        return 2;
    }
    tread_parser *p = tread_parser_create(NULL);
    if (!p) {
        fprintf(stderr, "perfetto_oracle: out of memory\n");
        return 1;
    }
    tread_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.event = on_event;
    tread_set_callbacks(p, &cb, &c);
    tread_status st = tread_parse_path(p, argv[1]);
    int rc = 0;
    if (st == TREAD_STATUS_ERROR) {
        tread_error e = tread_get_error(p);
        fprintf(stderr, "perfetto_oracle: %s: %s at %llu: %s\n", argv[1], tread_error_name(e),
                (unsigned long long)tread_get_error_offset(p), tread_get_error_message(p));
        rc = e == TREAD_ERROR_UNSUPPORTED ? 77 : 1;
    } else {
        printf("slices %llu\n", (unsigned long long)(c.begins + c.completes + c.instants +
                                                     c.async_begins + c.async_instants));
        printf("counters %llu\n", (unsigned long long)c.counters);
        /* + 1: trace_processor's placeholder row 0 of each table */
        printf("threads %llu\n", (unsigned long long)(c.threads.n + 1));
        printf("processes %llu\n", (unsigned long long)(c.processes.n + 1));
        if (c.has_bounds)
            printf("trace_start_ts %lld\ntrace_end_ts %lld\n", (long long)c.start_ts,
                   (long long)c.end_ts);
        printf("# begins %llu completes %llu instants %llu async_b %llu async_n %llu ends %llu\n",
               (unsigned long long)c.begins, (unsigned long long)c.completes,
               (unsigned long long)c.instants, (unsigned long long)c.async_begins,
               (unsigned long long)c.async_instants, (unsigned long long)c.ends);
        printf("# events %llu raw_ts %llu\n", (unsigned long long)c.perfetto_events,
               (unsigned long long)c.raw_ts);
        printf("# sched %llu wakeups %llu logs %llu\n", (unsigned long long)c.sched,
               (unsigned long long)c.wakeups, (unsigned long long)c.logs);
        tread_stats s;
        tread_get_stats(p, &s);
        for (int k = 0; k < TREAD_WARN_KIND_COUNT_; k++)
            if (s.warnings_by_kind[k])
                printf("# warning %s %llu\n", tread_warning_name((tread_warning_kind)k),
                       (unsigned long long)s.warnings_by_kind[k]);
        for (size_t i = 0; i < c.names.cap; i++)
            if (c.names.v[i].key)
                printf("#name %llu %s\n", (unsigned long long)c.names.v[i].n, c.names.v[i].key);
    }
    for (size_t i = 0; i < c.names.cap; i++)
        free(c.names.v[i].key);
    free(c.names.v);
    free(c.threads.k);
    free(c.processes.k);
    tread_parser_free(p);
    return rc;
}
