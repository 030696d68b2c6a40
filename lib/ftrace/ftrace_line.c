/* Line shapes of ftrace text (corpus/ftrace/GRAMMAR.md section 3, and the
 * function / function_graph tracers): see ftrace_line.h. */
#include <string.h>
#include "ftrace/ftrace_line.h"
#include "ftrace/ftrace_kv.h"
#include "core/timeconv.h"

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_blank(char c) { return c == ' ' || c == '\t'; }

static tread_str mkstr(const char *p, size_t n)
{
    tread_str s;
    s.ptr = p;
    s.len = n;
    return s;
}

static const char *skip_blanks(const char *s, const char *end)
{
    while (s < end && is_blank(*s))
        s++;
    return s;
}

static const char *trim_right(const char *b, const char *e)
{
    while (e > b && is_blank(e[-1]))
        e--;
    return e;
}

static int has_prefix(const char *s, const char *end, const char *lit)
{
    size_t k = strlen(lit);
    return (size_t)(end - s) >= k && memcmp(s, lit, k) == 0;
}

int ftrace_parse_seconds(const char *s, size_t n, int64_t *ns)
{
    size_t i = 0;
    uint64_t sec = 0, frac = 0;
    while (i < n && is_digit(s[i])) {
        if (sec > (uint64_t)INT64_MAX / 1000000000u / 10 + 1)
            return -2;
        sec = sec * 10 + (uint64_t)(s[i] - '0');
        i++;
    }
    if (i == 0 || i >= n || s[i] != '.')
        return -1;
    size_t f0 = ++i, fd = 0;
    while (i < n && is_digit(s[i])) {
        if (fd < 9) {
            frac = frac * 10 + (uint64_t)(s[i] - '0');
            fd++;
        }
        i++;
    }
    if (i == f0 || i != n)
        return -1;
    for (; fd < 9; fd++)
        frac *= 10;
    if (sec > ((uint64_t)INT64_MAX - frac) / 1000000000u)
        return -2;
    *ns = (int64_t)(sec * 1000000000u + frac);
    return 0;
}

/* The irq-info flags column: 1..6 characters of the sets GRAMMAR.md lists
 * (irqs-off, need-resched, hard/soft irq, preempt depth, migrate depth),
 * checked loosely: letters, digits and '.'. */
static int flags_ok(const char *s, size_t n)
{
    if (n == 0 || n > 6)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!(c == '.' || is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
            return 0;
    }
    return 1;
}

/* "task-pid [(tgid)] [cpu]": finds the cpu column; fills task, pid, tgid,
 * cpu; returns the position after ']' or NULL. */
static const char *parse_prefix(const char *b, const char *end, ftrace_line *o)
{
    const char *from = b;
    for (;;) {
        const char *k = memchr(from, '[', (size_t)(end - from));
        if (!k)
            return NULL;
        from = k + 1;
        const char *q = k + 1;
        int64_t cpu = 0;
        while (q < end && is_digit(*q) && q - k <= 6)
            cpu = cpu * 10 + (*q++ - '0');
        if (q == k + 1 || q >= end || *q != ']')
            continue;
        /* backwards: blanks, optional (tgid), blanks, digits, '-' */
        const char *j = k;
        while (j > b && is_blank(j[-1]))
            j--;
        int has_tgid = 0;
        int64_t tgid = 0;
        if (j > b && j[-1] == ')') {
            const char *c = j - 1, *open = c;
            while (open > b && (is_digit(open[-1]) || open[-1] == '-' || is_blank(open[-1])))
                open--;
            if (open == b || open[-1] != '(')
                continue;
            const char *t = skip_blanks(open, c), *te = trim_right(t, c);
            if (te > t && is_digit(*t)) {
                if (ftrace_parse_int(t, (size_t)(te - t), &tgid) != 0)
                    continue;
                has_tgid = 1;
            } else {
                for (const char *x = t; x < te; x++)
                    if (*x != '-')
                        goto next;
            }
            j = open - 1;
            while (j > b && is_blank(j[-1]))
                j--;
        }
        {
            const char *pe = j, *ps = j;
            while (ps > b && is_digit(ps[-1]))
                ps--;
            if (ps == pe || ps == b || ps[-1] != '-')
                goto next;
            if (ftrace_parse_int(ps, (size_t)(pe - ps), &o->pid) != 0)
                goto next;
            const char *tb = skip_blanks(b, ps - 1);
            o->task = mkstr(tb, (size_t)(trim_right(tb, ps - 1) - tb));
            o->has_pid = 1;
            o->tgid = tgid;
            o->has_tgid = (unsigned char)has_tgid;
            o->cpu = cpu;
            o->has_cpu = 1;
            return q + 1;
        }
    next:;
    }
}

/* A timestamp token "S.F:" at s, in one pass: fills o->ts; returns the
 * position after ':' or NULL (*bad: -1 not that shape, -2 overflow, 0 not
 * digits at all). */
static const char *parse_ts(const char *s, const char *end, ftrace_line *o, int *bad)
{
    const char *q = s;
    uint64_t sec = 0, frac = 0;
    size_t fd = 0;
    while (q < end && is_digit(*q)) {
        if (sec > (uint64_t)INT64_MAX / 1000000000u) {
            *bad = -2;
            return NULL;
        }
        sec = sec * 10 + (uint64_t)(*q++ - '0');
    }
    if (q == s)
        return NULL;
    if (q >= end || *q != '.') {
        if (q < end && *q == ':')
            *bad = -1; /* digits and a colon: a clock without a fraction */
        return NULL;
    }
    const char *f0 = ++q;
    while (q < end && is_digit(*q)) {
        if (fd < 9) {
            frac = frac * 10 + (uint64_t)(*q - '0');
            fd++;
        }
        q++;
    }
    if (q == f0 || q >= end || *q != ':') {
        *bad = -1;
        return NULL;
    }
    for (; fd < 9; fd++)
        frac *= 10;
    if (sec > ((uint64_t)INT64_MAX - frac) / 1000000000u) {
        *bad = -2;
        return NULL;
    }
    o->ts = (int64_t)(sec * 1000000000u + frac);
    o->has_ts = 1;
    return q + 1;
}

static void bad(ftrace_line *o, const char *why)
{
    o->kind = FTRACE_LINE_BAD;
    o->why = why;
}

static int event_line(const char *b, const char *end, ftrace_line *o)
{
    const char *s = parse_prefix(b, end, o);
    if (!s)
        return 0;
    s = skip_blanks(s, end);
    int tsbad = 0;
    const char *after = parse_ts(s, end, o, &tsbad);
    if (!after && !tsbad) {
        const char *f = s;
        while (f < end && !is_blank(*f))
            f++;
        if (!flags_ok(s, (size_t)(f - s))) {
            bad(o, "no timestamp after the cpu column");
            return 1;
        }
        o->flags = mkstr(s, (size_t)(f - s));
        s = skip_blanks(f, end);
        after = parse_ts(s, end, o, &tsbad);
    }
    if (!after) {
        bad(o, tsbad == -2 ? "timestamp out of range"
                           : "timestamp is not seconds.fraction (a non-ns trace clock?)");
        return 1;
    }
    s = skip_blanks(after, end);
    const char *nm = s;
    while (s < end && *s != ':' && !is_blank(*s))
        s++;
    if (s > nm && s < end && *s == ':' && (s + 1 == end || is_blank(s[1]))) {
        o->kind = FTRACE_LINE_EVENT;
        o->name = mkstr(nm, (size_t)(s - nm));
        const char *pb = skip_blanks(s + 1, end);
        o->payload = mkstr(pb, (size_t)(trim_right(pb, end) - pb));
        return 1;
    }
    /* function tracer: "func <-parent" (or just "func") */
    if (s > nm) {
        const char *r = skip_blanks(s, end);
        if (r == end || has_prefix(r, end, "<-")) {
            o->kind = FTRACE_LINE_FUNCTION;
            o->name = mkstr(nm, (size_t)(s - nm));
            if (r < end) {
                const char *pb = skip_blanks(r + 2, end);
                o->payload = mkstr(pb, (size_t)(trim_right(pb, end) - pb));
            }
            return 1;
        }
    }
    bad(o, "no event name after the timestamp");
    return 1;
}

/* trace-cmd report -l: "%8.8s-%-5d %3d" then the latency flags glued to
 * the cpu ("bash-18157   1dN.5. 22678.918991: name: ..."). The first flag
 * (irqs-off: d D X .) is never a digit, so the cpu is the digits before it.
 * The comm is cut to 8 characters and may hold '-' and blanks: every '-'
 * is tried. The kernel's own latency-format ("19661us :") does not match. */
static int latency_line(const char *b, const char *end, ftrace_line *o)
{
    for (const char *dash = b; (dash = memchr(dash, '-', (size_t)(end - dash))) != NULL; dash++) {
        const char *q = dash + 1, *ps = q;
        while (q < end && is_digit(*q))
            q++;
        if (q == ps || q >= end || !is_blank(*q))
            continue;
        int64_t pid;
        if (ftrace_parse_int(ps, (size_t)(q - ps), &pid) != 0)
            continue;
        const char *c = skip_blanks(q, end), *cs = c;
        int64_t cpu = 0;
        while (c < end && is_digit(*c) && c - cs < 6)
            cpu = cpu * 10 + (*c++ - '0');
        if (c == cs)
            continue;
        const char *f = c;
        while (f < end && !is_blank(*f))
            f++;
        if (f == c || is_digit(*c) || !flags_ok(c, (size_t)(f - c)))
            continue;
        int tsbad = 0;
        const char *after = parse_ts(skip_blanks(f, end), end, o, &tsbad);
        if (!after)
            continue;
        const char *s = skip_blanks(after, end), *nm = s;
        while (s < end && *s != ':' && !is_blank(*s))
            s++;
        if (!(s > nm && s < end && *s == ':' && (s + 1 == end || is_blank(s[1]))))
            continue;
        const char *tb = skip_blanks(b, dash);
        o->task = mkstr(tb, (size_t)(trim_right(tb, dash) - tb));
        o->pid = pid;
        o->has_pid = 1;
        o->cpu = cpu;
        o->has_cpu = 1;
        o->flags = mkstr(c, (size_t)(f - c));
        o->kind = FTRACE_LINE_EVENT;
        o->latency = 1;
        o->name = mkstr(nm, (size_t)(s - nm));
        const char *pb = skip_blanks(s + 1, end);
        o->payload = mkstr(pb, (size_t)(trim_right(pb, end) - pb));
        return 1;
    }
    return 0;
}

/* A function_graph duration column: blanks, an optional delay mark
 * (+ ! # * @ $), a number and "us"; or only blanks. */
static int graph_duration(const char *s, const char *e, ftrace_line *o)
{
    s = skip_blanks(s, e);
    e = trim_right(s, e);
    if (s == e)
        return 1;
    if (*s == '+' || *s == '!' || *s == '#' || *s == '*' || *s == '@' || *s == '$')
        s = skip_blanks(s + 1, e);
    if (e - s < 3 || e[-2] != 'u' || e[-1] != 's')
        return 0;
    const char *ne = trim_right(s, e - 2);
    int64_t ns;
    if (ne == s || timeconv_decimal_scaled(s, (size_t)(ne - s), 3, &ns) != 0 || ns < 0)
        return 0;
    o->dur = ns;
    o->has_dur = 1;
    return 1;
}

/* "comm-pid" in a function_graph proc column. */
static int graph_proc(const char *s, const char *e, ftrace_line *o)
{
    s = skip_blanks(s, e);
    e = trim_right(s, e);
    const char *ps = e;
    while (ps > s && is_digit(ps[-1]))
        ps--;
    if (ps == e || ps == s || ps[-1] != '-' || ftrace_parse_int(ps, (size_t)(e - ps), &o->pid))
        return 0;
    o->task = mkstr(s, (size_t)(ps - 1 - s));
    o->has_pid = 1;
    return 1;
}

static int graph_line(const char *b, const char *end, ftrace_line *o)
{
    const char *s = b;
    /* optional absolute time column "S.F |" */
    if (is_digit(*s)) {
        const char *q = s;
        while (q < end && (is_digit(*q) || *q == '.'))
            q++;
        const char *bar = skip_blanks(q, end);
        if (q < end && bar < end && *bar == '|' && memchr(s, '.', (size_t)(q - s))) {
            if (ftrace_parse_seconds(s, (size_t)(q - s), &o->ts) != 0)
                return 0;
            o->has_ts = 1;
            s = skip_blanks(bar + 1, end);
        }
    }
    const char *c = s;
    int64_t cpu = 0;
    while (c < end && is_digit(*c) && c - s < 6)
        cpu = cpu * 10 + (*c++ - '0');
    if (c == s || c >= end || *c != ')')
        return 0;
    o->cpu = cpu;
    o->has_cpu = 1;
    s = c + 1;
    const char *bar = memchr(s, '|', (size_t)(end - s));
    if (!bar) {
        /* " 0)  bash-2794  =>  <idle>-0 ": a task switch marker */
        o->kind = FTRACE_LINE_HEADER;
        return 1;
    }
    if (!graph_duration(s, bar, o)) {
        if (!graph_proc(s, bar, o))
            return 0;
        s = bar + 1;
        bar = memchr(s, '|', (size_t)(end - s));
        if (!bar || !graph_duration(s, bar, o))
            return 0;
    }
    const char *body = skip_blanks(bar + 1, end), *be = trim_right(body, end);
    o->kind = FTRACE_LINE_GRAPH;
    if (be - body >= 4 && body[0] == '/' && body[1] == '*' && be[-2] == '*' && be[-1] == '/') {
        const char *t = skip_blanks(body + 2, be - 2);
        o->graph = FTRACE_GRAPH_COMMENT;
        o->payload = mkstr(t, (size_t)(trim_right(t, be - 2) - t));
        return 1;
    }
    if (body < be && *body == '}') {
        o->graph = FTRACE_GRAPH_EXIT;
        const char *t = skip_blanks(body + 1, be);
        if (be - t >= 4 && t[0] == '/' && t[1] == '*' && be[-2] == '*' && be[-1] == '/') {
            const char *n0 = skip_blanks(t + 2, be - 2);
            o->name = mkstr(n0, (size_t)(trim_right(n0, be - 2) - n0));
        }
        return 1;
    }
    if (be - body > 3 && be[-1] == '{') {
        const char *ne = trim_right(body, be - 1);
        if (ne - body > 2 && ne[-1] == ')' && ne[-2] == '(') {
            o->graph = FTRACE_GRAPH_ENTER;
            o->name = mkstr(body, (size_t)(ne - 2 - body));
            return 1;
        }
    }
    if (be - body > 3 && be[-1] == ';' && be[-2] == ')' && be[-3] == '(') {
        o->graph = FTRACE_GRAPH_LEAF;
        o->name = mkstr(body, (size_t)(be - 3 - body));
        return 1;
    }
    bad(o, "function_graph line with a body that is not func() {, func();, } or a comment");
    return 1;
}

static int lost_line(const char *b, const char *end, ftrace_line *o)
{
    /* the kernel's "CPU:N [LOST M EVENTS]", trace-cmd report's
     * "CPU:N [M EVENTS DROPPED]" and, when the count was not stored,
     * "CPU:N [EVENTS DROPPED]" (lost = -1) */
    if (!has_prefix(b, end, "CPU:"))
        return 0;
    const char *s = b + 4, *q = s;
    while (q < end && is_digit(*q))
        q++;
    if (q == s || ftrace_parse_int(s, (size_t)(q - s), &o->cpu))
        return 0;
    s = skip_blanks(q, end);
    int report = !has_prefix(s, end, "[LOST ");
    if (report && !has_prefix(s, end, "["))
        return 0;
    s += report ? 1 : 6;
    if (report && end - s == 15 && memcmp(s, "EVENTS DROPPED]", 15) == 0) {
        o->lost = -1;
        o->has_cpu = 1;
        o->kind = FTRACE_LINE_LOST;
        return 1;
    }
    q = s;
    while (q < end && is_digit(*q))
        q++;
    if (q == s || ftrace_parse_int(s, (size_t)(q - s), &o->lost) ||
        !has_prefix(q, end, report ? " EVENTS DROPPED]" : " EVENTS]"))
        return 0;
    o->has_cpu = 1;
    o->kind = FTRACE_LINE_LOST;
    return 1;
}

/* trace-cmd report's "cpus=N" and "CPU N is empty". */
static int report_cpu_line(const char *b, const char *end, ftrace_line *o)
{
    const char *d = NULL, *de = NULL;
    if (has_prefix(b, end, "cpus=")) {
        d = b + 5;
        de = end;
        o->kind = FTRACE_LINE_CPUS;
    } else if (has_prefix(b, end, "CPU ") && end - b > 13 && memcmp(end - 9, " is empty", 9) == 0) {
        d = b + 4;
        de = end - 9;
        o->kind = FTRACE_LINE_CPU_EMPTY;
    } else {
        return 0;
    }
    if (ftrace_parse_int(d, (size_t)(de - d), &o->cpu) != 0 || o->cpu < 0) {
        bad(o, o->kind == FTRACE_LINE_CPUS ? "cpus= without a number"
                                           : "CPU N is empty without a cpu number");
        return 1;
    }
    o->has_cpu = 1;
    return 1;
}

static int header_line(const char *b, const char *end)
{
    if (b == end || *b == '#')
        return 1;
    if (has_prefix(b, end, "version = ") || has_prefix(b, end, "TRACE:"))
        return 1;
    /* function_graph's "------" separators around a task switch */
    if (*b == '-') {
        while (b < end && *b == '-')
            b++;
        return b == end;
    }
    return 0;
}

void ftrace_parse_line(const char *s, size_t n, ftrace_line *o)
{
    memset(o, 0, sizeof *o);
    const char *end = s + n;
    if (end > s && end[-1] == '\r')
        end--;
    if (end - s >= 3 && end[-3] == '\\' && end[-2] == 'n' && end[-1] == '\\')
        end -= 3;
    const char *b = skip_blanks(s, end);
    end = trim_right(b, end);
    if (header_line(b, end)) {
        o->kind = FTRACE_LINE_HEADER;
        return;
    }
    if (report_cpu_line(b, end, o))
        return;
    /* trace-cmd report puts an instance's name and a colon before its
     * events, at the line's start (where an event line has the blanks of
     * its 16-wide comm column) */
    if (b == s && b < end) {
        const char *c = b;
        while (c < end && *c != ':' && !is_blank(*c))
            c++;
        if (c > b && c + 1 < end && *c == ':' && is_blank(c[1])) {
            ftrace_line t;
            memset(&t, 0, sizeof t);
            if (event_line(c + 1, end, &t) &&
                (t.kind == FTRACE_LINE_EVENT || t.kind == FTRACE_LINE_FUNCTION)) {
                *o = t;
                o->instance = mkstr(b, (size_t)(c - b));
                return;
            }
            memset(o, 0, sizeof *o);
        }
    }
    if (event_line(b, end, o))
        return;
    memset(o, 0, sizeof *o);
    if (has_prefix(b, end, "=> ") || has_prefix(b, end, "=>\t")) {
        o->kind = FTRACE_LINE_STACK;
        o->payload = mkstr(b + 3, (size_t)(end - b - 3));
        return;
    }
    if (lost_line(b, end, o))
        return;
    memset(o, 0, sizeof *o);
    if (latency_line(b, end, o))
        return;
    memset(o, 0, sizeof *o);
    if (b < end && is_digit(*b) && graph_line(b, end, o))
        return;
    memset(o, 0, sizeof *o);
    bad(o, "not an ftrace line (no task-pid [cpu] columns)");
}
