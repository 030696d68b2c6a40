/* The ftrace event mapping shared by the text and Perfetto decoders; see
 * ftrace_map.h for what maps to what. No state, no allocation. */
#include <string.h>
#include "ftrace/ftrace_map.h"
#include "core/timeconv.h"

static tread_str mkstr(const char *p, size_t n)
{
    tread_str s;
    s.ptr = p;
    s.len = n;
    return s;
}

#define LIT(s) mkstr(s, sizeof s - 1)

void tread__ftrace_event_init(tread_event *ev, const tread_ftrace_common *c,
                              tread_str name)
{
    memset(ev, 0, sizeof *ev);
    ev->kind = TREAD_EVENT_INSTANT;
    ev->flags = TREAD_HAS_TS | TREAD_HAS_TID;
    ev->ts = c->ts;
    ev->tid = c->tid;
    ev->pid = c->tid;
    if (c->flags & TREAD_FTRACE_HAS_TGID) {
        ev->pid = c->tgid;
        ev->flags |= TREAD_HAS_PID;
    }
    if (c->flags & TREAD_FTRACE_HAS_CPU) {
        ev->cpu = c->cpu;
        ev->flags |= TREAD_HAS_CPU;
    }
    ev->name = name;
    ev->cat = LIT("ftrace");
    ev->args = c->args;
    ev->offset = c->offset;
}

static void set_thread(tread_event *ev, int64_t tid)
{
    /* A thread other than the running task: its process is unknown. */
    if (tid != ev->tid || !(ev->flags & TREAD_HAS_PID)) {
        ev->flags &= ~(uint32_t)TREAD_HAS_PID;
        ev->pid = tid;
    }
    ev->tid = tid;
    ev->flags |= TREAD_HAS_TID;
}

int tread__ftrace_map_sched_switch(tread_event *ev, const tread_ftrace_common *c,
                                   const tread_ftrace_sched_switch *s)
{
    (void)c;
    ev->kind = TREAD_EVENT_CONTEXT_SWITCH;
    set_thread(ev, s->prev_pid);
    return TREAD_FTRACE_MAPPED;
}

int tread__ftrace_map_sched_wakeup(tread_event *ev, const tread_ftrace_common *c,
                                   const tread_ftrace_sched_wakeup *w)
{
    (void)c;
    ev->kind = TREAD_EVENT_WAKEUP;
    set_thread(ev, w->pid);
    return TREAD_FTRACE_MAPPED;
}

static int cpu_counter(tread_event *ev, const tread_ftrace_cpu_state *f,
                       tread_str name)
{
    ev->kind = TREAD_EVENT_COUNTER;
    ev->flags &= ~(uint32_t)(TREAD_HAS_PID | TREAD_HAS_TID);
    ev->pid = ev->tid = 0;
    ev->name = name;
    ev->series = name;
    ev->cpu = f->cpu_id;
    ev->flags |= TREAD_HAS_CPU | TREAD_HAS_VALUE;
    ev->value = (double)f->state;
    if (f->state <= (uint64_t)INT64_MAX) {
        ev->value_int = (int64_t)f->state;
        ev->flags |= TREAD_VALUE_IS_INT;
    }
    return TREAD_FTRACE_MAPPED;
}

int tread__ftrace_map_cpu_frequency(tread_event *ev, const tread_ftrace_common *c,
                                    const tread_ftrace_cpu_state *f)
{
    (void)c;
    return cpu_counter(ev, f, LIT("cpufreq"));
}

int tread__ftrace_map_cpu_idle(tread_event *ev, const tread_ftrace_common *c,
                               const tread_ftrace_cpu_state *f)
{
    (void)c;
    return cpu_counter(ev, f, LIT("cpuidle"));
}

static int thread_name(tread_event *ev, int64_t tid, tread_str name)
{
    ev->kind = TREAD_EVENT_METADATA;
    ev->meta = TREAD_META_THREAD_NAME;
    set_thread(ev, tid);
    ev->meta_str = name;
    return TREAD_FTRACE_MAPPED;
}

int tread__ftrace_map_task_newtask(tread_event *ev, const tread_ftrace_common *c,
                                   const tread_ftrace_task_newtask *t)
{
    (void)c;
    return thread_name(ev, t->pid, t->comm);
}

int tread__ftrace_map_task_rename(tread_event *ev, const tread_ftrace_common *c,
                                  const tread_ftrace_task_rename *t)
{
    (void)c;
    return thread_name(ev, t->pid, t->newcomm);
}

int tread__ftrace_map_generic(tread_event *ev, const tread_ftrace_common *c)
{
    (void)c;
    ev->kind = TREAD_EVENT_INSTANT;
    ev->scope = TREAD_SCOPE_THREAD;
    return TREAD_FTRACE_MAPPED;
}

int tread__ftrace_is_marker_event(const char *name, size_t len)
{
    return (len == 1 && name[0] == '0') ||
           (len == 5 && memcmp(name, "print", 5) == 0) ||
           (len == 18 && memcmp(name, "tracing_mark_write", 18) == 0);
}

/* ---- atrace payloads ---------------------------------------------------- */

/* Splits text at '|': up to max fields; returns how many. The last field
 * runs to the end of the text. */
static size_t split_bar(const char *s, size_t n, tread_str *f, size_t max)
{
    size_t k = 0;
    while (k + 1 < max) {
        const char *bar = memchr(s, '|', n);
        if (!bar)
            break;
        f[k++] = mkstr(s, (size_t)(bar - s));
        n -= (size_t)(bar - s) + 1;
        s = bar + 1;
    }
    f[k++] = mkstr(s, n);
    return k;
}

static int parse_i64(tread_str s, int64_t *out)
{
    uint64_t u;
    if (s.len == 0 || s.len > 24)
        return -1;
    return timeconv_parse_integer(s.ptr, s.len, out, &u) == TIMECONV_INT ? 0 : -1;
}

/* A decimal number (integer, fraction, exponent) without blanks. */
static int is_decimal(tread_str s)
{
    size_t i = 0, digits = 0;
    if (i < s.len && (s.ptr[i] == '-' || s.ptr[i] == '+'))
        i++;
    for (; i < s.len && s.ptr[i] >= '0' && s.ptr[i] <= '9'; i++)
        digits++;
    if (i < s.len && s.ptr[i] == '.')
        for (i++; i < s.len && s.ptr[i] >= '0' && s.ptr[i] <= '9'; i++)
            digits++;
    if (digits && i < s.len && (s.ptr[i] == 'e' || s.ptr[i] == 'E')) {
        size_t e = 0;
        i++;
        if (i < s.len && (s.ptr[i] == '-' || s.ptr[i] == '+'))
            i++;
        for (; i < s.len && s.ptr[i] >= '0' && s.ptr[i] <= '9'; i++)
            e++;
        if (!e)
            return 0;
    }
    return digits && i == s.len;
}

/* The number in s: int64 first, else a decimal. -1 when neither. */
static int parse_value(tread_str s, tread_atrace *a)
{
    a->value = s;
    if (parse_i64(s, &a->num) == 0) {
        a->num_is_int = 1;
        a->dnum = (double)a->num;
        return 0;
    }
    if (!is_decimal(s))
        return -1;
    a->dnum = timeconv_parse_double(s.ptr, s.len);
    return 0;
}

static int parse_tgid(tread_str s, tread_atrace *a)
{
    if (parse_i64(s, &a->tgid) != 0)
        return -1;
    a->has_tgid = 1;
    return 0;
}

static int parse_clock_sync(const char *s, size_t n, tread_atrace *a)
{
    static const char pfx[] = "trace_event_clock_sync: ";
    size_t pl = sizeof pfx - 1;
    if (n < pl || memcmp(s, pfx, pl) != 0)
        return TREAD_FTRACE_NOT_ATRACE;
    s += pl;
    n -= pl;
    const char *eq = memchr(s, '=', n);
    if (!eq)
        return TREAD_FTRACE_MALFORMED;
    a->phase = 0;
    a->key = mkstr(s, (size_t)(eq - s));
    a->value = mkstr(eq + 1, n - (size_t)(eq - s) - 1);
    if (parse_value(a->value, a) != 0)
        a->dnum = 0; /* name=ID: not a number, kept as text */
    return TREAD_FTRACE_MAPPED;
}

int tread__atrace_parse(const char *s, size_t n, tread_atrace *a)
{
    tread_str f[6];
    size_t k;
    memset(a, 0, sizeof *a);
    /* What trace_marker writers append: a newline, NULs; text cut out of a
     * JS string keeps a literal backslash-n. */
    for (;;) {
        if (n && (s[n - 1] == '\n' || s[n - 1] == '\0' || s[n - 1] == '\r'))
            n--;
        else if (n >= 2 && s[n - 2] == '\\' && s[n - 1] == 'n')
            n -= 2;
        else
            break;
    }
    if (n == 0)
        return TREAD_FTRACE_NOT_ATRACE;
    if (n >= 2 && s[1] != '|')
        return parse_clock_sync(s, n, a);
    switch (s[0]) {
    case 'B': case 'E': case 'C': case 'S': case 'F':
    case 'I': case 'N': case 'G': case 'H':
        break;
    default:
        return TREAD_FTRACE_NOT_ATRACE;
    }
    a->phase = s[0];
    if (n == 1) { /* a bare letter: only E means something */
        return a->phase == 'E' ? TREAD_FTRACE_MAPPED : TREAD_FTRACE_MALFORMED;
    }
    s += 2;
    n -= 2;
    switch (a->phase) {
    case 'B':
        k = split_bar(s, n, f, 4);
        if (k < 2 || parse_tgid(f[0], a) != 0)
            return TREAD_FTRACE_MALFORMED;
        a->name = f[1];
        if (k > 2)
            a->args = f[2];
        if (k > 3)
            a->category = f[3];
        return TREAD_FTRACE_MAPPED;
    case 'E':
        k = split_bar(s, n, f, 2);
        if (f[0].len && parse_tgid(f[0], a) != 0)
            return TREAD_FTRACE_MALFORMED;
        if (k > 1)
            a->args = f[1];
        return TREAD_FTRACE_MAPPED;
    case 'C':
        k = split_bar(s, n, f, 4);
        if (k < 3 || parse_tgid(f[0], a) != 0 || parse_value(f[2], a) != 0)
            return TREAD_FTRACE_MALFORMED;
        a->name = f[1];
        if (k > 3)
            a->category = f[3];
        return TREAD_FTRACE_MAPPED;
    case 'S':
    case 'F':
        k = split_bar(s, n, f, 4);
        if (k < 3 || parse_tgid(f[0], a) != 0 || parse_i64(f[2], &a->num) != 0)
            return TREAD_FTRACE_MALFORMED;
        a->name = f[1];
        a->value = f[2];
        a->num_is_int = 1;
        if (k > 3)
            a->category = f[3];
        return TREAD_FTRACE_MAPPED;
    case 'I':
        k = split_bar(s, n, f, 2);
        if (k < 2 || parse_tgid(f[0], a) != 0)
            return TREAD_FTRACE_MALFORMED;
        a->name = f[1];
        return TREAD_FTRACE_MAPPED;
    case 'N':
        k = split_bar(s, n, f, 3);
        if (k < 3 || parse_tgid(f[0], a) != 0)
            return TREAD_FTRACE_MALFORMED;
        a->track = f[1];
        a->name = f[2];
        return TREAD_FTRACE_MAPPED;
    case 'G':
        k = split_bar(s, n, f, 4);
        if (k < 4 || parse_tgid(f[0], a) != 0 || parse_i64(f[3], &a->num) != 0)
            return TREAD_FTRACE_MALFORMED;
        a->track = f[1];
        a->name = f[2];
        a->value = f[3];
        a->num_is_int = 1;
        return TREAD_FTRACE_MAPPED;
    default: /* 'H': H|tgid|track|cookie or H|tgid|track|name|cookie */
        k = split_bar(s, n, f, 4);
        if (k < 3 || parse_tgid(f[0], a) != 0)
            return TREAD_FTRACE_MALFORMED;
        a->track = f[1];
        if (k == 4)
            a->name = f[2];
        a->value = f[k - 1];
        if (parse_i64(a->value, &a->num) != 0)
            return TREAD_FTRACE_MALFORMED;
        a->num_is_int = 1;
        return TREAD_FTRACE_MAPPED;
    }
}

static void set_process(tread_event *ev, const tread_atrace *a)
{
    if (a->has_tgid) {
        ev->pid = a->tgid;
        ev->flags |= TREAD_HAS_PID;
    }
}

static void set_cookie(tread_event *ev, const tread_atrace *a)
{
    ev->id = a->value;
    ev->id_num = (uint64_t)a->num;
    ev->flags |= TREAD_HAS_ID | TREAD_HAS_ID_NUM | TREAD_ID_LOCAL;
}

/* A process-scoped event: no thread. */
static void process_only(tread_event *ev)
{
    ev->flags &= ~(uint32_t)TREAD_HAS_TID;
    ev->tid = ev->pid;
}

int tread__ftrace_map_atrace(tread_event *ev, const tread_ftrace_common *c,
                             const tread_atrace *a)
{
    (void)c;
    ev->phase = a->phase;
    ev->cat = a->category.len ? a->category : LIT("atrace");
    ev->name = a->name;
    set_process(ev, a);
    switch (a->phase) {
    case 'B':
        ev->kind = TREAD_EVENT_SLICE_BEGIN;
        break;
    case 'E':
        ev->kind = TREAD_EVENT_SLICE_END;
        break;
    case 'C':
        ev->kind = TREAD_EVENT_COUNTER;
        ev->series = a->name;
        ev->value = a->dnum;
        ev->value_text = a->value;
        ev->flags |= TREAD_HAS_VALUE;
        if (a->num_is_int) {
            ev->value_int = a->num;
            ev->flags |= TREAD_VALUE_IS_INT;
        }
        process_only(ev);
        break;
    case 'S':
    case 'G':
        ev->kind = TREAD_EVENT_ASYNC_BEGIN;
        ev->id_scope = a->track;
        set_cookie(ev, a);
        break;
    case 'F':
    case 'H':
        ev->kind = TREAD_EVENT_ASYNC_END;
        ev->id_scope = a->track;
        set_cookie(ev, a);
        break;
    case 'I':
    case 'N':
        ev->kind = TREAD_EVENT_INSTANT;
        ev->scope = TREAD_SCOPE_PROCESS;
        ev->id_scope = a->track;
        break;
    default: /* clock sync */
        ev->kind = TREAD_EVENT_CLOCK_SYNC;
        ev->name = LIT("trace_event_clock_sync");
        ev->series = a->key;
        ev->value_text = a->value;
        if (a->num_is_int || a->dnum != 0 || is_decimal(a->value)) {
            ev->value = a->dnum;
            ev->flags |= TREAD_HAS_VALUE;
            if (a->num_is_int) {
                ev->value_int = a->num;
                ev->flags |= TREAD_VALUE_IS_INT;
            }
        }
        break;
    }
    return TREAD_FTRACE_MAPPED;
}

int tread__ftrace_map_print(tread_event *ev, const tread_ftrace_common *c,
                            const char *buf, size_t len)
{
    tread_atrace a;
    int r = tread__atrace_parse(buf, len, &a);
    if (r != TREAD_FTRACE_MAPPED)
        return r;
    return tread__ftrace_map_atrace(ev, c, &a);
}
