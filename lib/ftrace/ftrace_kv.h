/*
 * key=value fields of an ftrace event payload, as the kernel prints them
 * ("prev_comm=io worker prev_pid=12 ... ==> next_comm=..."). Shared by the
 * lazy args codec (TREAD_ARGS_FTRACE) and the decoder, which reads the few
 * fields the event mapping needs.
 *
 * A field starts at a blank-separated token made of [A-Za-z0-9_.] and then
 * '='; its value runs to the blank before the next such token (so a comm
 * with a space, "load={24 19}" or "runtime=7 [ns]" stay whole, and
 * "a=b=c" is key a, value "b=c"). A lone "==>" token is skipped.
 */
#ifndef TREAD_FTRACE_KV_H
#define TREAD_FTRACE_KV_H

#include <stddef.h>
#include <stdint.h>

static inline int ftrace_kv_blank(char c) { return c == ' ' || c == '\t'; }

static inline int ftrace_kv_keych(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '.';
}

/* Length of the key at s (the '=' is at s[len]), or 0 when the token at s
 * does not start a field. */
static inline size_t ftrace_kv_key_at(const char *s, const char *end)
{
    const char *q = s;
    while (q < end && ftrace_kv_keych((unsigned char)*q))
        q++;
    return (q > s && q < end && *q == '=') ? (size_t)(q - s) : 0;
}

static inline int ftrace_kv_arrow_at(const char *s, const char *end)
{
    return end - s >= 3 && s[0] == '=' && s[1] == '=' && s[2] == '>' &&
           (end - s == 3 || ftrace_kv_blank(s[3]));
}

typedef struct ftrace_kv {
    const char *key, *val;
    size_t key_len, val_len;
} ftrace_kv;

/* The next field at or after *pos; advances *pos. Returns 1, or 0 at the
 * end (or at a token that does not start a field: the payload is then not
 * all key=value). */
static inline int ftrace_kv_next(const char **pos, const char *end, ftrace_kv *kv)
{
    const char *s = *pos;
    for (;;) {
        while (s < end && ftrace_kv_blank(*s))
            s++;
        if (s < end && ftrace_kv_arrow_at(s, end)) {
            s += 3;
            continue;
        }
        break;
    }
    size_t kl = s < end ? ftrace_kv_key_at(s, end) : 0;
    if (!kl) {
        *pos = s;
        return 0;
    }
    kv->key = s;
    kv->key_len = kl;
    const char *v = s + kl + 1, *q = v, *vend = v;
    /* The value ends at the last non-blank before the next field token. */
    for (;;) {
        while (q < end && !ftrace_kv_blank(*q))
            q++;
        if (q > vend)
            vend = q;
        while (q < end && ftrace_kv_blank(*q))
            q++;
        if (q >= end || ftrace_kv_key_at(q, end) || ftrace_kv_arrow_at(q, end))
            break;
    }
    kv->val = v;
    kv->val_len = (size_t)(vend - v);
    *pos = q;
    return 1;
}

/* 1 when the payload starts with a field (then it is read as fields). */
static inline int ftrace_kv_shape(const char *s, const char *end)
{
    while (s < end && ftrace_kv_blank(*s))
        s++;
    return s < end && ftrace_kv_key_at(s, end) != 0;
}

/* Decimal integer (optional '-'), at most 19 digits. Returns 0 with *out. */
static inline int ftrace_parse_int(const char *s, size_t n, int64_t *out)
{
    int neg = 0;
    uint64_t v = 0;
    if (n && *s == '-') {
        neg = 1;
        s++;
        n--;
    }
    if (n == 0 || n > 19)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d > 9)
            return -1;
        v = v * 10 + d;
    }
    if (v > (uint64_t)INT64_MAX)
        return -1;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

/* Unsigned decimal up to UINT64_MAX. */
static inline int ftrace_parse_uint(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    if (n == 0 || n > 20)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d > 9 || v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

#endif
