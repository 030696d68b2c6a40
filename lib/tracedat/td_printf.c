/* trace_printk's binary arguments (the bprint event's buf) formatted with
 * their format string (the printk section), the way the kernel's
 * bstr_printf reads what its vbin_printf wrote: each argument aligned to
 * its size within the buffer (8-byte ones to 4), char and short in 1 and
 * 2 bytes, strings inline and NUL-terminated, '*' widths as ints, %p
 * with S, s, x, K or e (or nothing) a pointer, %p with another letter a
 * string the kernel formatted already. %pS prints sym+0xoff and %ps sym,
 * as trace-cmd report does (an address kallsyms does not hold: 0x%llx).
 * Numbers and strings go through the C library's snprintf with the
 * format's flags, width and precision. */
#include <stdio.h>
#include "tracedat/td_internal.h"

/* The specs given to snprintf are built from the format's own flags,
 * width and precision (digits only) and a conversion chosen here. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

#define MAX_WIDTH 4096         /* a width or precision past it: refused */
#define MAX_OUT (64u * 1024u)  /* the text's bound */

typedef struct rd {
    const unsigned char *b;
    size_t n, pos;
    int be;
} rd;

static int take(rd *r, size_t size, uint64_t *v)
{
    size_t al = size >= 4 ? 4 : size;
    size_t p = (r->pos + al - 1) & ~(al - 1);
    if (p > r->n || size > r->n - p)
        return -1;
    *v = td_uint(r->be, r->b + p, (unsigned)size);
    r->pos = p + size;
    return 0;
}

static int put(tread_buf *o, const char *s, size_t n)
{
    if (o->len + n > MAX_OUT)
        return -1;
    return tread_buf_append(o, s, n) == 0 ? 0 : -1;
}

static int is_alnum(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

int td_sym_text(const td_syms *ks, uint64_t addr, int with_off, char *out, size_t cap)
{
    uint64_t base = 0;
    const char *nm = ks ? td_syms_find(ks, addr, &base) : NULL;
    if (!nm)
        return snprintf(out, cap, "0x%llx", (unsigned long long)addr);
    if (with_off)
        return snprintf(out, cap, "%s+0x%llx", nm, (unsigned long long)(addr - base));
    return snprintf(out, cap, "%s", nm);
}

int td_bprint_format(const char *fmt, size_t flen, const unsigned char *buf, size_t n, int be,
                     unsigned long_size, const td_syms *ks, tread_buf *out, const char **why)
{
    rd r = {buf, n, 0, be};
    const char *f = fmt, *end = fmt + flen;
    char spec[40], tmp[2 * MAX_WIDTH + 512];
    while (f < end) {
        const char *pct = memchr(f, '%', (size_t)(end - f));
        if (!pct)
            pct = end;
        if (put(out, f, (size_t)(pct - f)) != 0)
            goto big;
        if (pct == end)
            break;
        f = pct + 1;
        if (f < end && *f == '%') {
            if (put(out, "%", 1) != 0)
                goto big;
            f++;
            continue;
        }
        /* %[flags][width][.prec][length]conv */
        size_t sl = 0;
        spec[sl++] = '%';
        while (f < end && memchr("-+ #0", *f, 5) && sl < 8)
            spec[sl++] = *f++;
        long width = -1, prec = -1;
        uint64_t v;
        for (int part = 0; part < 2; part++) {
            long *w = part ? &prec : &width;
            if (part) {
                if (f >= end || *f != '.')
                    break;
                f++;
                *w = 0;
            }
            if (f < end && *f == '*') {
                if (take(&r, 4, &v) != 0)
                    goto short_;
                int32_t x = (int32_t)(uint32_t)v;
                if (x < 0 && !part) { /* a negative width: left-justified */
                    spec[sl++] = '-';
                    x = -x;
                }
                *w = x < 0 ? -1 : x;
                f++;
            } else {
                while (f < end && *f >= '0' && *f <= '9') {
                    *w = (*w < 0 ? 0 : *w) * 10 + (*f++ - '0');
                    if (*w > MAX_WIDTH)
                        break;
                }
            }
            if (*w > MAX_WIDTH) {
                *why = "a width or precision past 4096";
                return -1;
            }
        }
        if (width >= 0)
            sl += (size_t)snprintf(spec + sl, sizeof spec - sl, "%ld", width);
        if (prec >= 0)
            sl += (size_t)snprintf(spec + sl, sizeof spec - sl, ".%ld", prec);
        unsigned size = 4;
        if (f < end && *f == 'h') {
            size = 2;
            if (++f < end && *f == 'h') {
                size = 1;
                f++;
            }
        } else if (f < end && *f == 'l') {
            size = long_size;
            if (++f < end && *f == 'l') {
                size = 8;
                f++;
            }
        } else if (f < end && (*f == 'z' || *f == 't')) {
            size = long_size;
            f++;
        } else if (f < end && (*f == 'j' || *f == 'L' || *f == 'q')) {
            size = 8;
            f++;
        }
        if (f >= end) {
            *why = "a conversion cut by the format's end";
            return -1;
        }
        char conv = *f++;
        int len;
        switch (conv) {
        case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': {
            if (take(&r, size, &v) != 0)
                goto short_;
            memcpy(spec + sl, "ll", 2);
            spec[sl + 2] = conv;
            spec[sl + 3] = 0;
            if (conv == 'd' || conv == 'i') {
                if (size < 8 && (v >> (size * 8 - 1)) & 1)
                    v |= ~(uint64_t)0 << (size * 8);
                len = snprintf(tmp, sizeof tmp, spec, (long long)v);
            } else {
                len = snprintf(tmp, sizeof tmp, spec, (unsigned long long)v);
            }
            break;
        }
        case 'c':
            if (take(&r, 1, &v) != 0)
                goto short_;
            spec[sl] = 'c';
            spec[sl + 1] = 0;
            len = snprintf(tmp, sizeof tmp, spec, (int)(unsigned char)v);
            break;
        case 's': {
            const unsigned char *s = r.b + r.pos;
            const unsigned char *z = r.pos < r.n ? memchr(s, 0, r.n - r.pos) : NULL;
            if (!z)
                goto short_;
            r.pos += (size_t)(z - s) + 1;
            size_t sn = (size_t)(z - s);
            if (prec >= 0 && (size_t)prec < sn)
                sn = (size_t)prec;
            size_t padn = width > 0 && (size_t)width > sn ? (size_t)width - sn : 0;
            int left = memchr(spec, '-', sl) != NULL;
            for (size_t k = 0; !left && k < padn; k++)
                if (put(out, " ", 1) != 0)
                    goto big;
            if (put(out, (const char *)s, sn) != 0)
                goto big;
            for (size_t k = 0; left && k < padn; k++)
                if (put(out, " ", 1) != 0)
                    goto big;
            continue;
        }
        case 'p': {
            char ext = f < end && is_alnum((unsigned char)*f) ? *f : 0;
            if (ext && ext != 'S' && ext != 's' && ext != 'x' && ext != 'K' && ext != 'e') {
                /* formatted by the kernel: a string */
                while (f < end && is_alnum((unsigned char)*f))
                    f++;
                const unsigned char *s = r.b + r.pos;
                const unsigned char *z = r.pos < r.n ? memchr(s, 0, r.n - r.pos) : NULL;
                if (!z)
                    goto short_;
                r.pos += (size_t)(z - s) + 1;
                if (put(out, (const char *)s, (size_t)(z - s)) != 0)
                    goto big;
                continue;
            }
            while (f < end && is_alnum((unsigned char)*f))
                f++;
            if (take(&r, long_size, &v) != 0)
                goto short_;
            char sym[400];
            if (ext == 'S' || ext == 's')
                td_sym_text(ks, v, ext == 'S', sym, sizeof sym);
            else
                snprintf(sym, sizeof sym, "0x%llx", (unsigned long long)v);
            spec[sl] = 's';
            spec[sl + 1] = 0;
            len = snprintf(tmp, sizeof tmp, spec, sym);
            break;
        }
        default:
            *why = "a conversion trace_printk does not have";
            return -1;
        }
        if (len < 0)
            len = 0;
        if ((size_t)len >= sizeof tmp)
            goto big; /* (a width and a precision of 4096 fit) */
        if (put(out, tmp, (size_t)len) != 0)
            goto big;
    }
    return 0;
short_:
    *why = "the arguments run past the event's buffer";
    return -1;
big:
    *why = "the text is past 64 KiB";
    return -1;
}
