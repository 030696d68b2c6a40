/* PROCESS DUMP and CGROUP DUMP blocks: see sys_pdump.h. */
#include "systrace/sys_pdump.h"
#include "core/args.h"

#include <string.h>

enum { PD_NONE = 0, PD_LONG, PD_SHORT, PD_OTHER };

#define PD_MAX_TOKENS 10

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

static tread_str mkstr(const char *s, size_t n)
{
    tread_str t;
    t.ptr = s;
    t.len = n;
    return t;
}

static int tok_is(tread_str t, const char *lit)
{
    size_t k = strlen(lit);
    return t.len == k && memcmp(t.ptr, lit, k) == 0;
}

/* Up to max blank-separated tokens of s[0..n); *rest: from the start of
 * token max-1 to the end of the line (trimmed), for the last column that
 * may hold blanks. Returns how many tokens (at most max). */
static size_t split(const char *s, size_t n, tread_str *tok, size_t max, tread_str *rest)
{
    size_t k = 0, i = 0;
    while (n && is_blank(s[n - 1]))
        n--;
    rest->ptr = NULL;
    rest->len = 0;
    while (i < n && k < max) {
        while (i < n && is_blank(s[i]))
            i++;
        if (i == n)
            break;
        size_t b = i;
        while (i < n && !is_blank(s[i]))
            i++;
        if (k == max - 1)
            *rest = mkstr(s + b, n - b);
        tok[k++] = mkstr(s + b, i - b);
    }
    return k;
}

static int parse_u(tread_str t, int64_t *out)
{
    int64_t v = 0;
    if (t.len == 0 || t.len > 18)
        return -1;
    for (size_t i = 0; i < t.len; i++) {
        if (t.ptr[i] < '0' || t.ptr[i] > '9')
            return -1;
        v = v * 10 + (t.ptr[i] - '0');
    }
    *out = v;
    return 0;
}

/* The uid the USER column says: a number, "root", or Android's per-user
 * app and isolated names (u<user>_a<app> = user * 100000 + 10000 + app,
 * u<user>_i<n> = user * 100000 + 99000 + n). Other names (system, shell,
 * ...) are device tables: -1. */
static int64_t user_uid(tread_str u)
{
    int64_t v;
    if (parse_u(u, &v) == 0)
        return v;
    if (tok_is(u, "root"))
        return 0;
    if (u.len >= 4 && u.ptr[0] == 'u') {
        size_t i = 1;
        int64_t user = 0, app = 0;
        while (i < u.len && u.ptr[i] >= '0' && u.ptr[i] <= '9' && i < 8)
            user = user * 10 + (u.ptr[i++] - '0');
        if (i == 1 || i + 2 >= u.len || u.ptr[i] != '_' ||
            (u.ptr[i + 1] != 'a' && u.ptr[i + 1] != 'i'))
            return -1;
        char k = u.ptr[i + 1];
        if (parse_u(mkstr(u.ptr + i + 2, u.len - i - 2), &app) != 0 || app > 89999)
            return -1;
        return user * 100000 + (k == 'a' ? 10000 : 99000) + app;
    }
    return -1;
}

static int put_key(tread_buf *b, const char *k)
{
    return args_put_str(b, TOK_KEY, k, strlen(k));
}

static int put_int(tread_buf *b, const char *k, int64_t v)
{
    return put_key(b, k) || args_put_u64(b, TOK_INT, (uint64_t)v);
}

static int put_str(tread_buf *b, const char *k, tread_str s)
{
    return put_key(b, k) || args_put_str(b, TOK_STR, s.ptr, s.len);
}

static int put_user(tread_buf *b, tread_str user)
{
    int64_t uid = user_uid(user);
    return put_str(b, "user", user) || (uid >= 0 && put_int(b, "uid", uid));
}

static void skipped(sys_pdump *pd, uint64_t off, const char *why, const char *s, size_t n)
{
    pd->counts->lines_skipped++;
    if (pd->warned)
        return;
    pd->warned = 1;
    tread__warn(pd->p, TREAD_WARN_UNKNOWN_RECORD, off,
                "PROCESS DUMP: %s: \"%.*s\"; this and the block's other such lines are skipped "
                "(counted in process_dump_lines_skipped)",
                why, (int)(n > 48 ? 48 : n), s);
}

/* One line. Returns 1 when a callback asked to stop, else 0; -1 out of
 * memory. */
static int do_line(sys_pdump *pd, const char *s, size_t n, uint64_t off)
{
    tread_str t[PD_MAX_TOKENS], rest;
    size_t k = split(s, n, t, PD_MAX_TOKENS, &rest);
    if (pd->cgroup) {
        pd->counts->cgroup_lines += k != 0;
        return 0;
    }
    if (k == 0)
        return 0;
    if (k == 2 && tok_is(t[0], "PROCESS") && tok_is(t[1], "DUMP"))
        return 0; /* the block's title */
    if (k >= 4 && tok_is(t[0], "USER") && tok_is(t[1], "PID")) {
        if (k == 4 && tok_is(t[2], "TID") && tok_is(t[3], "CMD"))
            pd->listing = PD_SHORT;
        else if (k >= 10 && tok_is(t[2], "PPID") && tok_is(t[3], "VSZ"))
            pd->listing = PD_LONG;
        else
            pd->listing = PD_OTHER;
        return 0;
    }
    tread_event ev;
    int64_t pid, x;
    memset(&ev, 0, sizeof ev);
    pd->args.len = 0;
    if (pd->listing == PD_LONG) {
        /* USER PID PPID VSZ RSS WCHAN PC S NAME COMMAND... */
        int64_t ppid;
        if (k < 10 || parse_u(t[1], &pid) != 0 || parse_u(t[2], &ppid) != 0) {
            skipped(pd, off, "a process line without its ten columns", s, n);
            return 0;
        }
        if (put_int(&pd->args, "ppid", ppid) || put_user(&pd->args, t[0]) ||
            (parse_u(t[3], &x) == 0 && put_int(&pd->args, "vsz", x)) ||
            (parse_u(t[4], &x) == 0 && put_int(&pd->args, "rss", x)) ||
            put_str(&pd->args, "wchan", t[5]) || put_str(&pd->args, "state", t[7]) ||
            put_str(&pd->args, "comm", rest))
            return -1;
        ev.meta = TREAD_META_PROCESS_NAME;
        ev.name = mkstr("process_name", 12);
        ev.meta_str = t[8];
        ev.pid = ev.tid = pid;
        ev.flags = TREAD_HAS_PID;
        pd->counts->processes++;
    } else if (pd->listing == PD_SHORT) {
        /* USER PID TID CMD... */
        int64_t tid;
        if (k < 4 || parse_u(t[1], &pid) != 0 || parse_u(t[2], &tid) != 0) {
            skipped(pd, off, "a thread line without its four columns", s, n);
            return 0;
        }
        split(s, n, t, 4, &rest); /* the name: from the fourth column on */
        if (put_user(&pd->args, t[0]))
            return -1;
        ev.meta = TREAD_META_THREAD_NAME;
        ev.name = mkstr("thread_name", 11);
        ev.meta_str = rest;
        ev.pid = pid;
        ev.tid = tid;
        ev.flags = TREAD_HAS_PID | TREAD_HAS_TID;
        pd->counts->threads++;
    } else {
        skipped(pd, off, pd->listing == PD_OTHER ? "a ps listing whose header tread does not know"
                                                : "a line before any ps header",
                s, n);
        return 0;
    }
    ev.kind = TREAD_EVENT_METADATA;
    ev.format = TREAD_FORMAT_SYSTRACE;
    ev.cat = mkstr("process_dump", 12);
    ev.offset = off;
    ev.args.data = pd->args.data;
    ev.args.len = pd->args.len;
    ev.args.encoding = TREAD_ARGS_TOKENS;
    return tread__emit_inline(pd->p, &ev) ? 1 : 0;
}

static void too_long(sys_pdump *pd, uint64_t off)
{
    static const char msg[] = "a line longer than the max-line-bytes option";
    skipped(pd, off, msg, "", 0);
}

void sys_pdump_init(sys_pdump *pd, tread_parser *p, int cgroup, sys_pdump_counts *counts)
{
    memset(pd, 0, sizeof *pd);
    pd->p = p;
    pd->cgroup = cgroup;
    pd->counts = counts;
    tread_buf_init(&pd->line, &p->alloc, p->max_line_bytes);
    /* a line's args: its own bytes plus the keys and token headers */
    tread_buf_init(&pd->args, &p->alloc, 2 * p->max_line_bytes + 1024);
    if (cgroup)
        counts->cgroup_blocks++;
    else
        counts->blocks++;
}

void sys_pdump_free(sys_pdump *pd)
{
    tread_buf_free(&pd->line);
    tread_buf_free(&pd->args);
}

void sys_pdump_hold(sys_pdump *pd, const unsigned char *d, size_t n, uint64_t off)
{
    if (n > sizeof pd->held)
        n = sizeof pd->held;
    memcpy(pd->held, d, n);
    pd->held_len = n;
    pd->held_pos = 0;
    pd->held_off = off;
}

static tread_status feed_lines(sys_pdump *pd, const unsigned char *d, size_t n, uint64_t off,
                               size_t *consumed);

/* The held bytes first: 1 when they paused. */
static int feed_held(sys_pdump *pd, tread_status *st)
{
    *st = TREAD_STATUS_OK;
    if (pd->held_pos >= pd->held_len)
        return 0;
    size_t c = 0;
    *st = feed_lines(pd, pd->held + pd->held_pos, pd->held_len - pd->held_pos,
                     pd->held_off + pd->held_pos, &c);
    pd->held_pos += c;
    return *st != TREAD_STATUS_OK;
}

tread_status sys_pdump_feed(sys_pdump *pd, const unsigned char *d, size_t n, uint64_t off,
                            size_t *consumed)
{
    tread_status st;
    *consumed = 0;
    if (feed_held(pd, &st))
        return st;
    return feed_lines(pd, d, n, off, consumed);
}

static tread_status feed_lines(sys_pdump *pd, const unsigned char *d, size_t n, uint64_t off,
                               size_t *consumed)
{
    size_t pos = 0, max = pd->p->max_line_bytes;
    *consumed = 0;
    while (pos < n) {
        const unsigned char *nl = memchr(d + pos, '\n', n - pos);
        if (pd->skipping) {
            if (!nl)
                break;
            pd->skipping = 0;
            pos = (size_t)(nl - d) + 1;
            continue;
        }
        if (!nl) {
            if (pd->line.len == 0)
                pd->line_off = off + pos;
            if (pd->line.len + (n - pos) > max) {
                too_long(pd, pd->line_off);
                pd->line.len = 0;
                pd->skipping = 1;
            } else if (tread_buf_append(&pd->line, d + pos, n - pos) != 0) {
                return tread__fail(pd->p, TREAD_ERROR_NOMEM, pd->line_off, "out of memory");
            }
            break;
        }
        size_t len = (size_t)(nl - d) - pos;
        int r;
        if (pd->line.len) {
            uint64_t lo = pd->line_off;
            if (pd->line.len + len > max) {
                too_long(pd, lo);
                r = 0;
            } else if (tread_buf_append(&pd->line, d + pos, len) != 0) {
                return tread__fail(pd->p, TREAD_ERROR_NOMEM, lo, "out of memory");
            } else {
                r = do_line(pd, (const char *)pd->line.data, pd->line.len, lo);
            }
            pd->line.len = 0;
        } else if (len > max) {
            too_long(pd, off + pos);
            r = 0;
        } else {
            r = do_line(pd, (const char *)d + pos, len, off + pos);
        }
        pos += len + 1;
        if (r < 0)
            return tread__fail(pd->p, TREAD_ERROR_NOMEM, off + pos, "out of memory");
        if (r > 0) {
            *consumed = pos;
            return TREAD_STATUS_PAUSED;
        }
    }
    *consumed = n;
    return TREAD_STATUS_OK;
}

tread_status sys_pdump_finish(sys_pdump *pd)
{
    tread_status st;
    if (feed_held(pd, &st))
        return st;
    if (pd->line.len && !pd->skipping) {
        size_t n = pd->line.len;
        pd->line.len = 0;
        /* a stop asked for here comes after the block: nothing is left */
        if (do_line(pd, (const char *)pd->line.data, n, pd->line_off) < 0)
            return tread__fail(pd->p, TREAD_ERROR_NOMEM, pd->line_off, "out of memory");
    }
    return TREAD_STATUS_OK;
}
