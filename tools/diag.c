/* diag: see diag.h. */
#include "diag.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void diag_init(diag *d, int quiet)
{
    d->quiet = quiet;
    d->printed = 0;
    d->before_print = NULL;
    d->before_print_ctx = NULL;
    d->capture = NULL;
}

static void before_print(const diag *d)
{
    if (d->before_print)
        d->before_print(d->before_print_ctx);
}

/* Appends a tagged line to a capture: the tag, the text's length, the
 * text (which may hold newlines: a warning may quote the input); out of
 * memory, the line is lost. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 0)))
#endif
static void capture_line(diag_capture *c, char tag, const char *fmt, va_list ap)
{
    char line[640];
    int n = vsnprintf(line, sizeof line, fmt, ap);
    if (n < 0)
        return;
    uint32_t len = (size_t)n < sizeof line ? (uint32_t)n : (uint32_t)sizeof line - 1;
    size_t need = 1 + sizeof len + len;
    if (c->len + need > c->size) {
        size_t size = c->size ? c->size * 2 : 4096;
        while (size < c->len + need)
            size *= 2;
        char *b = realloc(c->buf, size);
        if (!b)
            return;
        c->buf = b;
        c->size = size;
    }
    c->buf[c->len++] = tag;
    memcpy(c->buf + c->len, &len, sizeof len);
    c->len += sizeof len;
    memcpy(c->buf + c->len, line, len);
    c->len += len;
}

/* One line to stderr, or to the capture. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void out(const diag *d, char tag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (d->capture) {
        capture_line(d->capture, tag, fmt, ap);
    } else {
        before_print(d);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
    va_end(ap);
}

int diag_warning_cb(void *user, const tread_warning *w)
{
    diag *d = user;
    /* a forced format the input does not look like comes at the end and
     * explains the rest: printed past the cap */
    if (d->quiet ||
        (d->printed >= DIAG_MAX_PRINTED_WARNINGS && w->kind != TREAD_WARN_FORMAT_MISMATCH))
        return 0;
    d->printed++;
    out(d, 'W', "tread: warning: %s at byte %" PRIu64 ": %s", tread_warning_name(w->kind),
        w->offset, w->message ? w->message : "");
    return 0;
}

void diag_warning_summary(const diag *d, uint64_t total)
{
    if (d->quiet || total <= d->printed)
        return;
    before_print(d);
    fprintf(stderr, "tread: %" PRIu64 " warnings in total, %" PRIu64
            " shown\n", total, d->printed);
}

void diag_error(const diag *d, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    out(d, 'E', "tread: error: %s", msg);
}

int diag_replay(diag *d, const diag_capture *c)
{
    int error = 0;
    for (size_t i = 0; i + 1 + sizeof(uint32_t) <= c->len;) {
        char tag = c->buf[i];
        uint32_t len;
        memcpy(&len, c->buf + i + 1, sizeof len);
        const char *text = c->buf + i + 1 + sizeof len;
        if (tag == 'E' || (!d->quiet && d->printed < DIAG_MAX_PRINTED_WARNINGS)) {
            if (tag == 'W')
                d->printed++;
            error |= tag == 'E';
            out(d, tag, "%.*s", (int)len, text);
        }
        i += 1 + sizeof len + len;
    }
    return error;
}

void diag_capture_free(diag_capture *c)
{
    free(c->buf);
    c->buf = NULL;
    c->len = c->size = 0;
}
