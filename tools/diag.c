/* diag: see diag.h. */
#include "diag.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

void diag_init(diag *d, int quiet)
{
    d->quiet = quiet;
    d->printed = 0;
    d->before_print = NULL;
    d->before_print_ctx = NULL;
}

static void before_print(const diag *d)
{
    if (d->before_print)
        d->before_print(d->before_print_ctx);
}

int diag_warning_cb(void *user, const tread_warning *w)
{
    diag *d = user;
    if (d->quiet || d->printed >= DIAG_MAX_PRINTED_WARNINGS)
        return 0;
    d->printed++;
    before_print(d);
    fprintf(stderr, "tread: warning: %s at byte %" PRIu64 ": %s\n",
            tread_warning_name(w->kind), w->offset,
            w->message ? w->message : "");
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

void diag_parse_error(const diag *d, const tread_parser *p)
{
    const char *msg = tread_get_error_message(p);
    before_print(d);
    fprintf(stderr, "tread: error: %s at byte %" PRIu64 ": %s\n",
            tread_error_name(tread_get_error(p)), tread_get_error_offset(p),
            msg ? msg : "");
}

void diag_error(const diag *d, const char *fmt, ...)
{
    va_list ap;
    before_print(d);
    fputs("tread: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
