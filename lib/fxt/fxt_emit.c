/* A record's callbacks as steps, the event reset, references and their
 * warnings, synthetic arguments (see fxt_emit.h). */
#include "fxt/fxt_emit.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- callbacks as steps ------------------------------------------------ */

/* Returns 1 when the warning was made (not a step already taken). */
static int warn_v(fxt_decoder *d, tread_warning_kind kind, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 0)))
#endif
    ;
static int warn_v(fxt_decoder *d, tread_warning_kind kind, const char *fmt, va_list ap)
{
    fxt_emit_raw(d);
    if (!fxt_step(d))
        return 0;
    char msg[224];
    vsnprintf(msg, sizeof msg, fmt, ap);
    tread__warn(d->p, kind, d->rec.offset, "%s", msg);
    return 1;
}

void fxt_warn(fxt_decoder *d, tread_warning_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    warn_v(d, kind, fmt, ap);
    va_end(ap);
}

void fxt_warn_count(fxt_decoder *d, uint64_t *counter, tread_warning_kind kind, const char *fmt,
                    ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (warn_v(d, kind, fmt, ap))
        (*counter)++;
    va_end(ap);
}

int fxt_emit_piece(fxt_decoder *d, const tread_blob *b, int stepped)
{
    if (stepped && !fxt_step(d))
        return 0;
    tread_parser *p = d->p;
    d->c.blob_bytes += b->len;
    int before = p->stop_requested;
    p->stop_requested = 0;
    tread__emit_blob(p, b);
    return fxt_asked_to_stop(p, before);
}

/* ---- pieces of events -------------------------------------------------- */

static const char *const type_names[16] = {
    "metadata", "initialization", "string", "thread", "event", "blob", "userspace object",
    "kernel object", "scheduling", "log", "type 10", "type 11", "type 12", "type 13",
    "type 14", "large"};

int fxt_bad(fxt_decoder *d, const char *what)
{
    d->rec.skipped = 1; /* before the raw hook the warning makes */
    fxt_warn(d, TREAD_WARN_BAD_RECORD, "%s record: %s: skipped", type_names[d->rec.type], what);
    return FXT_OK;
}

int fxt_unknown(fxt_decoder *d, const char *what, unsigned value)
{
    d->rec.skipped = 1;
    fxt_warn(d, TREAD_WARN_UNKNOWN_RECORD, "%s record: %s %u unknown: skipped",
             type_names[d->rec.type], what, value);
    return FXT_OK;
}

int fxt_fail_store(fxt_decoder *d, int rc)
{
    if (rc == -2)
        tread__fail(d->p, TREAD_ERROR_LIMIT_MEMORY, d->rec.offset,
                    "FXT string and thread tables over the limit of %llu bytes "
                    "(TREAD_OPT_MAX_INTERNED_BYTES)",
                    (unsigned long long)d->p->max_interned_bytes);
    else
        tread__fail(d->p, TREAD_ERROR_NOMEM, d->rec.offset, "out of memory");
    return FXT_FAIL;
}

void fxt_event_clear(fxt_decoder *d, unsigned groups)
{
    fxt_event_clear_inline(d, groups);
}

void fxt_warn_ts_overflow(fxt_decoder *d, uint64_t ticks)
{
    fxt_warn_count(d, &d->c.ts_overflows, TREAD_WARN_NUMBER_RANGE,
               "timestamp of %llu ticks at %llu ticks/s is beyond the int64 "
               "nanosecond range: left out",
               (unsigned long long)ticks, (unsigned long long)d->cur->ticks_per_second);
}

void fxt_warn_missing_string(fxt_decoder *d, unsigned idx, const char *what)
{
    fxt_warn_count(d, &d->c.string_misses, TREAD_WARN_UNRESOLVED_REF,
               "%s refers to string index %u, not in the string table of provider %u",
               what, idx, d->cur->id);
}

void fxt_warn_missing_thread(fxt_decoder *d, unsigned ref)
{
    fxt_warn_count(d, &d->c.thread_misses, TREAD_WARN_UNRESOLVED_REF,
               "thread index %u not in the thread table of provider %u", ref, d->cur->id);
}

void fxt_warn_missing_args(fxt_decoder *d, const fxt_args_check *chk)
{
    for (unsigned i = 0; i < chk->missing; i++)
        fxt_warn_missing_string(d, chk->missing_refs[i], "an argument");
}

void fxt_warn_bad_args(fxt_decoder *d, const fxt_args_check *chk)
{
    static const char *const why[] = {"", "has size 0", "overruns the record",
                                      "has a name or value past its size"};
    char msg[96];
    if (chk->past_end)
        snprintf(msg, sizeof msg, "argument %u of %u is past the end of the record",
                 chk->bad_index + 1, d->rec.nargs);
    else
        snprintf(msg, sizeof msg, "argument %u %s", chk->bad_index + 1, why[-chk->error]);
    fxt_bad(d, msg);
}
