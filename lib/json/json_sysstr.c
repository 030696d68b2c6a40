#include "json/json_sysstr.h"
#include "systrace/sys_sub.h"

#include <string.h>

/* Largest write of one unit: a pending U+FFFD and a 4-byte code point. */
#define UNIT_MAX 8

static size_t put_utf8(unsigned char *w, unsigned cp)
{
    if (cp < 0x80) {
        w[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        w[0] = (unsigned char)(0xc0 | (cp >> 6));
        w[1] = (unsigned char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        w[0] = (unsigned char)(0xe0 | (cp >> 12));
        w[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        w[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    w[0] = (unsigned char)(0xf0 | (cp >> 18));
    w[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
    w[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
    w[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

/* A high surrogate not followed by its low half. */
static size_t put_lone(json_filter *f, unsigned char *w)
{
    if (!f->hi_surrogate)
        return 0;
    f->hi_surrogate = 0;
    return put_utf8(w, 0xfffd);
}

static int hex_val(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int json_sysstr_scan(json_filter *f, const unsigned char *d, size_t n, size_t *ip, uint64_t off)
{
    sys_sub *s = f->sub;
    size_t i = *ip;
    while (i < n) {
        size_t room;
        unsigned char *w = sys_sub_room(s, &room);
        /* flushed at the same point of the text whatever the chunking (so
         * that the sub-trace's offsets do not depend on it): when no more
         * than UNIT_MAX bytes are left */
        if (room <= UNIT_MAX) {
            tread_status st = sys_sub_flush(s, 0);
            *ip = i;
            if (st == TREAD_STATUS_PAUSED)
                return SYSSTR_PAUSED;
            if (st != TREAD_STATUS_OK)
                return SYSSTR_ERROR;
            continue;
        }
        unsigned char c = d[i];
        if (f->esc == 0) {
            if (c == '"' || c == '\\') {
                size_t k = c == '"' ? put_lone(f, w) : 0;
                if (k)
                    sys_sub_commit(s, k, off + i);
                i++;
                if (c == '"') {
                    *ip = i;
                    return SYSSTR_CLOSED;
                }
                f->esc = 1;
                f->esc_off = off + i - 1;
                continue;
            }
            /* a plain run: up to the next quote or backslash */
            size_t k = put_lone(f, w);
            size_t lim = n - i < room - UNIT_MAX - k ? n - i : room - UNIT_MAX - k;
            const unsigned char *q = memchr(d + i, '"', lim);
            size_t run = q ? (size_t)(q - (d + i)) : lim;
            const unsigned char *b = memchr(d + i, '\\', run);
            if (b)
                run = (size_t)(b - (d + i));
            memcpy(w + k, d + i, run);
            sys_sub_commit(s, k + run, off + i);
            i += run;
            continue;
        }
        if (f->esc == 1) {
            unsigned char out;
            switch (c) {
            case 'n': out = '\n'; break;
            case 't': out = '\t'; break;
            case 'r': out = '\r'; break;
            case 'b': out = '\b'; break;
            case 'f': out = '\f'; break;
            case '/': out = '/'; break;
            case '\\': out = '\\'; break;
            case '"': out = '"'; break;
            case 'u':
                f->esc = 2;
                f->esc_u = 0;
                i++;
                continue;
            default:
                tread__fail(f->p, TREAD_ERROR_SYNTAX, f->esc_off,
                            "invalid escape in the systemTraceEvents string");
                return SYSSTR_ERROR;
            }
            size_t k = put_lone(f, w);
            w[k++] = out;
            sys_sub_commit(s, k, off + i);
            f->esc = 0;
            i++;
            continue;
        }
        /* \uXXXX: one hex digit at a time */
        int h = hex_val(c);
        if (h < 0) {
            tread__fail(f->p, TREAD_ERROR_SYNTAX, off + i,
                        "invalid \\u escape in the systemTraceEvents string");
            return SYSSTR_ERROR;
        }
        f->esc_u = f->esc_u << 4 | (unsigned)h;
        i++;
        if (++f->esc < 6)
            continue;
        f->esc = 0;
        unsigned cp = f->esc_u;
        size_t k = 0;
        if (cp >= 0xdc00 && cp <= 0xdfff && f->hi_surrogate) {
            cp = 0x10000 + ((f->hi_surrogate - 0xd800) << 10) + (cp - 0xdc00);
            f->hi_surrogate = 0;
        } else {
            k = put_lone(f, w);
            if (cp >= 0xd800 && cp <= 0xdbff) {
                f->hi_surrogate = cp;
                if (k)
                    sys_sub_commit(s, k, off + i);
                continue;
            }
            if (cp >= 0xdc00 && cp <= 0xdfff)
                cp = 0xfffd;
        }
        k += put_utf8(w + k, cp);
        sys_sub_commit(s, k, off + i);
    }
    *ip = i;
    return SYSSTR_MORE;
}

tread_status json_sysstr_close(json_filter *f, uint64_t off)
{
    sys_sub *s = f->sub;
    if (f->hi_surrogate) {
        size_t room;
        unsigned char *w = sys_sub_room(s, &room);
        /* flushed at the same point of the text whatever the chunking (so
         * that the sub-trace's offsets do not depend on it): when no more
         * than UNIT_MAX bytes are left */
        if (room <= UNIT_MAX) {
            tread_status st = sys_sub_flush(s, 0);
            if (st != TREAD_STATUS_OK)
                return st;
            w = sys_sub_room(s, &room);
        }
        sys_sub_commit(s, put_lone(f, w), off);
    }
    f->esc = 0;
    return TREAD_STATUS_OK;
}
