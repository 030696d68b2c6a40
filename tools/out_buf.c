/* out_buf: see out_buf.h. */
#include "out_buf.h"

#include <errno.h>
#include <stdarg.h>

void out_buf_init(out_buf *o, FILE *fp)
{
    o->fp = fp;
    o->len = 0;
    o->failed = 0;
    o->err = 0;
}

static void fail(out_buf *o)
{
    o->failed = 1;
    o->err = errno ? errno : EIO;
}

int out_buf_flush(out_buf *o)
{
    errno = 0;
    if (o->len > 0 && !o->failed &&
        fwrite(o->data, 1, o->len, o->fp) != o->len)
        fail(o);
    o->len = 0;
    if (!o->failed && fflush(o->fp) != 0)
        fail(o);
    return o->failed ? -1 : 0;
}

void out_buf_write_slow(out_buf *o, const void *p, size_t n)
{
    const char *s = p;
    while (n > 0) {
        size_t room = OUT_BUF_SIZE - o->len;
        if (room == 0) {
            out_buf_flush(o);
            room = OUT_BUF_SIZE;
        }
        size_t k = n < room ? n : room;
        memcpy(o->data + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
    }
}

void out_buf_printf(out_buf *o, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    /* Report lines are short; a longer one is cut rather than allocated. */
    out_buf_write(o, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}
