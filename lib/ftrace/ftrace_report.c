/* trace-cmd report's own sched payloads: see ftrace_report.h. */
#include <string.h>
#include "ftrace/ftrace_report.h"
#include "ftrace/ftrace_kv.h"

static tread_str mkstr(const char *p, size_t n)
{
    tread_str s;
    s.ptr = p;
    s.len = n;
    return s;
}

static const char *trim_left(const char *b, const char *e)
{
    while (b < e && ftrace_kv_blank(*b))
        b++;
    return b;
}

static const char *trim_right(const char *b, const char *e)
{
    while (e > b && ftrace_kv_blank(e[-1]))
        e--;
    return e;
}

/* The start of the last blank-separated token of [b, e) (e trimmed). */
static const char *last_token(const char *b, const char *e)
{
    const char *t = e;
    while (t > b && !ftrace_kv_blank(t[-1]))
        t--;
    return t;
}

static int num(const char *b, const char *e, ftrace_report_num *o)
{
    if (ftrace_parse_int(b, (size_t)(e - b), &o->v) != 0)
        return -1;
    o->text = mkstr(b, (size_t)(e - b));
    o->has = 1;
    return 0;
}

/* "[N]" at [b, e). */
static int bracket(const char *b, const char *e, ftrace_report_num *o)
{
    if (e - b < 3 || b[0] != '[' || e[-1] != ']')
        return -1;
    return num(b + 1, e - 1, o);
}

/* "COMM:PID" (the pid is after the last colon; the comm may be empty). */
static int comm_pid(const char *b, const char *e, tread_str *comm, ftrace_report_num *pid)
{
    b = trim_left(b, e);
    e = trim_right(b, e);
    const char *c = e;
    while (c > b && c[-1] != ':')
        c--;
    if (c == b || num(c, e, pid) != 0)
        return -1;
    *comm = mkstr(b, (size_t)(c - 1 - b));
    return 0;
}

/* The plugin's state letters ("S", "D|W", "R"; '+' kept for kernels'
 * own "R+"). */
static int state_ok(const char *b, const char *e)
{
    if (b == e)
        return 0;
    for (; b < e; b++)
        if (!((*b >= 'A' && *b <= 'Z') || (*b >= 'a' && *b <= 'z') || *b == '|' || *b == '+'))
            return 0;
    return 1;
}

static int switch_left(const char *b, const char *e, ftrace_report_switch *o)
{
    e = trim_right(b, e);
    const char *t = last_token(b, e);
    if (t > b && state_ok(t, e)) {
        o->prev_state = mkstr(t, (size_t)(e - t));
        o->has_prev_state = 1;
        e = trim_right(b, t);
        t = last_token(b, e);
    }
    if (t > b && bracket(t, e, &o->prev_prio) == 0)
        e = t;
    return comm_pid(b, e, &o->prev_comm, &o->prev_pid);
}

static int switch_right(const char *b, const char *e, ftrace_report_switch *o)
{
    e = trim_right(b, e);
    const char *t = last_token(b, e);
    if (t > b && bracket(t, e, &o->next_prio) == 0)
        e = t;
    return comm_pid(b, e, &o->next_comm, &o->next_pid);
}

int ftrace_report_parse_switch(const char *s, size_t n, ftrace_report_switch *o)
{
    const char *end = s + n, *from = s;
    /* A comm could hold " ==> ": take the first split both sides accept. */
    for (;;) {
        const char *a = NULL;
        for (const char *q = from; q + 5 <= end; q++)
            if (q[0] == ' ' && q[1] == '=' && q[2] == '=' && q[3] == '>' && q[4] == ' ') {
                a = q;
                break;
            }
        if (!a)
            return -1;
        memset(o, 0, sizeof *o);
        if (switch_left(s, a, o) == 0 && switch_right(a + 5, end, o) == 0)
            return 0;
        from = a + 1;
    }
}

static int prefixed(const char *t, const char *e, const char *lit, ftrace_report_num *o)
{
    size_t k = strlen(lit);
    if ((size_t)(e - t) <= k || memcmp(t, lit, k) != 0)
        return -1;
    return num(t + k, e, o);
}

int ftrace_report_parse_wakeup(const char *s, size_t n, ftrace_report_wakeup *o)
{
    const char *b = s, *e = trim_right(s, s + n), *t;
    memset(o, 0, sizeof *o);
    t = last_token(b, e);
    if (t > b && prefixed(t, e, "CPU:", &o->target_cpu) == 0)
        e = trim_right(b, t);
    t = last_token(b, e);
    if (t > b && prefixed(t, e, "success=", &o->success) == 0)
        e = trim_right(b, t);
    t = last_token(b, e);
    if (t > b && bracket(t, e, &o->prio) == 0)
        e = t;
    return comm_pid(b, e, &o->comm, &o->pid);
}
