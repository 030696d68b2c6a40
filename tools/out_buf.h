/*
 * out_buf: a large output buffer flushed with fwrite in 64 KiB blocks, so
 * that writing one NDJSON field costs a memcpy, not a stdio call.
 */
#ifndef TREAD_TOOLS_OUT_BUF_H
#define TREAD_TOOLS_OUT_BUF_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define OUT_BUF_SIZE (64u * 1024u)

typedef struct out_buf {
    FILE *fp;
    size_t len;
    int failed;            /* a write failed; later output is dropped */
    int err;               /* errno of the failed write */
    char data[OUT_BUF_SIZE];
} out_buf;

void out_buf_init(out_buf *o, FILE *fp);

/* Writes the buffered bytes; returns 0, or -1 if any write has failed. */
int out_buf_flush(out_buf *o);

void out_buf_write_slow(out_buf *o, const void *p, size_t n);

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void out_buf_printf(out_buf *o, const char *fmt, ...);

/* The hot paths are inline: most writes are a few bytes. */
static inline void out_buf_write(out_buf *o, const void *p, size_t n)
{
    if (n <= OUT_BUF_SIZE - o->len) {
        memcpy(o->data + o->len, p, n);
        o->len += n;
    } else {
        out_buf_write_slow(o, p, n);
    }
}

static inline void out_buf_putc(out_buf *o, char c)
{
    if (o->len == OUT_BUF_SIZE)
        out_buf_flush(o);
    o->data[o->len++] = c;
}

static inline void out_buf_puts(out_buf *o, const char *s)
{
    out_buf_write(o, s, strlen(s));
}

/* Room for at least n bytes at o->data + o->len (n <= OUT_BUF_SIZE). */
static inline char *out_buf_reserve(out_buf *o, size_t n)
{
    if (n > OUT_BUF_SIZE - o->len)
        out_buf_flush(o);
    return o->data + o->len;
}

#endif
