/* json_write: see json_write.h. */
#include "json_write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Bytes that can be copied as they are: printable ASCII but " and \. */
static const unsigned char plain_ascii[256] = {
#define R16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
    R16(0), R16(0),                         /* 0x00-0x1f: control */
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x22 " */
    R16(1), R16(1),
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* 0x5c \ */
    R16(1), R16(1),                         /* 0x60-0x7f */
    R16(0), R16(0), R16(0), R16(0),         /* 0x80-0xff: UTF-8 */
    R16(0), R16(0), R16(0), R16(0)
#undef R16
};

/* Length of the well-formed UTF-8 sequence at s (RFC 3629 table 3-7),
 * or 0 if the byte at s does not start one. */
static size_t utf8_sequence_length(const unsigned char *s, size_t avail)
{
    unsigned char c = s[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf; /* range of the second byte */
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0;               /* no overlongs */
        else if (c == 0xed)
            hi = 0x9f;               /* no surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;               /* nothing above U+10FFFF */
    } else
        return 0;
    if (avail < n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

void json_write_string(out_buf *o, const char *str, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    const unsigned char *end = s + len;
    out_buf_putc(o, '"');
    while (s < end) {
        const unsigned char *run = s;
        while (s < end && plain_ascii[*s])
            s++;
        if (s > run)
            out_buf_write(o, run, (size_t)(s - run));
        if (s == end)
            break;
        unsigned char c = *s;
        if (c >= 0x80) {
            size_t n = utf8_sequence_length(s, (size_t)(end - s));
            if (n) {
                out_buf_write(o, s, n);
                s += n;
            } else {
                out_buf_write(o, "\xef\xbf\xbd", 3); /* U+FFFD */
                s++;
            }
            continue;
        }
        s++;
        switch (c) {
        case '"':  out_buf_write(o, "\\\"", 2); break;
        case '\\': out_buf_write(o, "\\\\", 2); break;
        case '\n': out_buf_write(o, "\\n", 2); break;
        case '\r': out_buf_write(o, "\\r", 2); break;
        case '\t': out_buf_write(o, "\\t", 2); break;
        case '\b': out_buf_write(o, "\\b", 2); break;
        case '\f': out_buf_write(o, "\\f", 2); break;
        default: {
            char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            out_buf_write(o, u, sizeof u);
        }
        }
    }
    out_buf_putc(o, '"');
}

void json_write_cstring(out_buf *o, const char *s)
{
    json_write_string(o, s, strlen(s));
}

void json_write_u64(out_buf *o, uint64_t v)
{
    /* Two digits per division: times and ids are most of cat's output. */
    static const char pairs[201] =
        "00010203040506070809101112131415161718192021222324252627282930313233"
        "34353637383940414243444546474849505152535455565758596061626364656667"
        "6869707172737475767778798081828384858687888990919293949596979899";
    char tmp[20];
    size_t i = sizeof tmp;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        tmp[--i] = pairs[d + 1];
        tmp[--i] = pairs[d];
    }
    if (v >= 10) {
        unsigned d = (unsigned)v * 2;
        tmp[--i] = pairs[d + 1];
        tmp[--i] = pairs[d];
    } else {
        tmp[--i] = (char)('0' + v);
    }
    out_buf_write(o, tmp + i, sizeof tmp - i);
}

void json_write_i64(out_buf *o, int64_t v)
{
    if (v < 0) {
        out_buf_putc(o, '-');
        /* Negate in unsigned arithmetic: INT64_MIN has no positive twin. */
        json_write_u64(o, 0 - (uint64_t)v);
    } else {
        json_write_u64(o, (uint64_t)v);
    }
}

int json_is_number_text(const char *s, size_t len)
{
    size_t i = 0;
    if (i < len && s[i] == '-')
        i++;
    if (i >= len)
        return 0;
    if (s[i] == '0') {
        i++;
    } else if (s[i] >= '1' && s[i] <= '9') {
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++;
    } else {
        return 0;
    }
    if (i < len && s[i] == '.') {
        size_t start = ++i;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == start)
            return 0;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t start = i;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == start)
            return 0;
    }
    return i == len;
}

void json_write_double(out_buf *o, double d, const char *text,
                       size_t text_len)
{
    if (isnan(d)) {
        out_buf_write(o, "\"NaN\"", 5);
        return;
    }
    if (isinf(d)) {
        if (d > 0)
            out_buf_write(o, "\"Infinity\"", 10);
        else
            out_buf_write(o, "\"-Infinity\"", 11);
        return;
    }
    /* The literal keeps digits a double would lose (e.g. big integers). */
    if (text && json_is_number_text(text, text_len)) {
        out_buf_write(o, text, text_len);
        return;
    }
    char tmp[40];
    int n = snprintf(tmp, sizeof tmp, "%.15g", d);
    if (strtod(tmp, NULL) != d)
        n = snprintf(tmp, sizeof tmp, "%.17g", d);
    out_buf_write(o, tmp, (size_t)n);
}

void json_write_hex_string(out_buf *o, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[16];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = hex[v & 15];
        v >>= 4;
    } while (v);
    out_buf_write(o, "\"0x", 3);
    out_buf_write(o, tmp + i, sizeof tmp - i);
    out_buf_putc(o, '"');
}

void json_write_base64(out_buf *o, const unsigned char *p, size_t len)
{
    static const char b64[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    out_buf_putc(o, '"');
    size_t i = 0;
    for (; i + 3 <= len; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        char q[4] = {b64[v >> 18], b64[(v >> 12) & 63], b64[(v >> 6) & 63],
                     b64[v & 63]};
        out_buf_write(o, q, 4);
    }
    if (i < len) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < len)
            v |= (uint32_t)p[i + 1] << 8;
        char q[4] = {b64[v >> 18], b64[(v >> 12) & 63],
                     i + 1 < len ? b64[(v >> 6) & 63] : '=', '='};
        out_buf_write(o, q, 4);
    }
    out_buf_putc(o, '"');
}
