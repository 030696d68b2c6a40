/*
 * Large records (type 15, "Large BLOB record" in the format document),
 * streamed: the header part (up to and including the blob size word) is
 * gathered in rbuf, read like a normal record (raw hook, warnings, a
 * TREAD_EVENT_BLOB event), and the payload is passed to the blob callback
 * in pieces cut at multiples of FXT_PIECE_BYTES from its start, as the
 * bytes arrive. Padding and any words after the payload are skipped, as
 * are records of unknown large types and formats.
 */
#include "fxt/fxt_emit.h"
#include "fxt/fxt_wire.h"

#include <string.h>

enum { LARGE_NEED = 0, LARGE_COMPLETE = 1, LARGE_MALFORMED = -1, LARGE_UNKNOWN = -2 };

typedef struct large_layout {
    unsigned fmt, cref, nref, nargs, tref;
    size_t ts, args, args_end, header_len;
    uint64_t payload;
} large_layout;

/* Reads the header part from b[0..have), total: the record's bytes. */
static int large_parse(const unsigned char *b, size_t have, uint64_t total, large_layout *L,
                       size_t *need, const char **why)
{
#define NEED(n, what)                                                          \
    do {                                                                       \
        uint64_t n_ = (n);                                                     \
        if (n_ > total) {                                                      \
            *why = what;                                                       \
            return LARGE_MALFORMED;                                            \
        }                                                                      \
        if (n_ > have) {                                                       \
            *need = (size_t)n_;                                                \
            return LARGE_NEED;                                                 \
        }                                                                      \
    } while (0)
    memset(L, 0, sizeof *L);
    uint64_t h = fxt_load64(b);
    L->fmt = (unsigned)fxt_bits(h, 40, 43);
    if (fxt_bits(h, 36, 39) != 0 || L->fmt > 1)
        return LARGE_UNKNOWN;
    NEED(16, "no room for the format header word");
    uint64_t fw = fxt_load64(b + 8);
    L->cref = (unsigned)fxt_bits(fw, 0, 15);
    L->nref = (unsigned)fxt_bits(fw, 16, 31);
    uint64_t pos = 16 + fxt_sref_bytes(L->cref) + fxt_sref_bytes(L->nref);
    if (L->fmt == 0) {
        L->nargs = (unsigned)fxt_bits(fw, 32, 35);
        L->tref = (unsigned)fxt_bits(fw, 36, 43);
        L->ts = (size_t)pos;
        pos += 8 + fxt_tref_bytes(L->tref);
        L->args = (size_t)pos;
        for (unsigned i = 0; i < L->nargs; i++) {
            NEED(pos + 8, "argument past the end of the record");
            uint64_t words = fxt_bits(fxt_load64(b + pos), 4, 15);
            if (words == 0) {
                *why = "argument of size 0";
                return LARGE_MALFORMED;
            }
            pos += words * 8;
        }
        L->args_end = (size_t)pos;
    }
    NEED(pos + 8, "category, name, thread or arguments past the end of the record");
    L->payload = fxt_load64(b + pos);
    pos += 8;
    L->header_len = (size_t)pos;
    if (L->payload > total - pos || fxt_pad8(L->payload) > total - pos) {
        *why = "blob payload past the end of the record";
        return LARGE_MALFORMED;
    }
    return LARGE_COMPLETE;
#undef NEED
}

void fxt_large_start(fxt_decoder *d, uint64_t h, uint64_t off, size_t have)
{
    fxt_large *L = &d->large;
    L->phase = FXT_LARGE_HEADER;
    L->total = fxt_bits(h, 4, 35) * 8;
    L->done = have;
    L->need = 8;
    L->header_len = 0;
    L->payload_len = L->payload_done = 0;
    L->piece_len = 0;
    L->truncated_piece_sent = 0;
    d->rbuf.len = have;
    d->rec_offset = off;
    d->resume_step = 0;
}

/* The header part's callbacks; may pause after the BLOB event. */
tread_status fxt_large_emit(fxt_decoder *d)
{
    fxt_large *L = &d->large;
    large_layout lay;
    size_t need;
    const char *why = "";
    if (fxt_shadow_reserve(d, d->rbuf.len))
        return tread__fail(d->p, TREAD_ERROR_NOMEM, d->rec_offset, "out of memory");
    int verdict = large_parse(d->rbuf.data, d->rbuf.len, L->total, &lay, &need, &why);
    fxt_record_begin(d, d->rbuf.data, d->rbuf.len, d->rec_offset);
    const unsigned char *r = d->rbuf.data;
    if (verdict == LARGE_UNKNOWN) {
        d->rec.skipped = 1;
        fxt_warn(d, TREAD_WARN_UNKNOWN_RECORD,
                 "large record of type %u, blob format %u unknown: skipped (%llu bytes)",
                 (unsigned)fxt_bits(d->rec.header, 36, 39),
                 (unsigned)fxt_bits(d->rec.header, 40, 43), (unsigned long long)L->total);
        L->phase = FXT_LARGE_SKIP;
        return TREAD_STATUS_OK;
    }
    if (verdict != LARGE_COMPLETE) {
        d->rec.skipped = 1;
        fxt_warn(d, TREAD_WARN_BAD_RECORD, "large record: %s: skipped", why);
        L->phase = FXT_LARGE_SKIP;
        return TREAD_STATUS_OK;
    }
    fxt_args_check chk;
    memset(&chk, 0, sizeof chk);
    chk.end = r + lay.args;
    if (lay.fmt == 0) {
        d->rec.nargs = lay.nargs;
        d->rec.args_offset = lay.nargs ? lay.args : 0;
        if (fxt_args_walk(d->cur, r + lay.args, r + lay.args_end, lay.nargs, &chk)) {
            fxt_warn_bad_args(d, &chk);
            L->phase = FXT_LARGE_SKIP;
            return TREAD_STATUS_OK;
        }
    }
    tread_event *ev = fxt_event_init(d);
    ev->kind = TREAD_EVENT_BLOB;
    const unsigned char *strs = r + 16;
    if (lay.fmt == 0) {
        const unsigned char *at = r + lay.ts + 8;
        uint64_t pid, tid;
        fxt_event_ts(d, ev, fxt_load64(r + lay.ts));
        if (fxt_thread_ref(d, lay.tref, &at, &pid, &tid) == 0) {
            ev->pid = (int64_t)pid;
            ev->tid = (int64_t)tid;
            ev->flags |= TREAD_HAS_PID | TREAD_HAS_TID;
        } else {
            ev->flags |= TREAD_THREAD_UNRESOLVED;
        }
    }
    if (fxt_string_ref(d, lay.cref, &strs, &ev->cat, "the category"))
        ev->flags |= TREAD_CAT_UNRESOLVED;
    if (fxt_string_ref(d, lay.nref, &strs, &ev->name, "the blob name"))
        ev->flags |= TREAD_NAME_UNRESOLVED;
    fxt_warn_missing_args(d, &chk);
    if (lay.fmt == 0 && lay.args_end > lay.args)
        ev->args = (tread_args){.data = r + lay.args, .len = lay.args_end - lay.args,
                               .encoding = TREAD_ARGS_FXT, .ctx = &d->actx};
    ev->value = (double)lay.payload;
    ev->flags |= TREAD_HAS_VALUE;
    if (lay.payload <= (uint64_t)INT64_MAX) {
        ev->value_int = (int64_t)lay.payload;
        ev->flags |= TREAD_VALUE_IS_INT;
    }
    memset(&L->blob, 0, sizeof L->blob);
    L->blob.name = ev->name;
    L->blob.total_size = lay.payload;
    L->blob.offset = d->rec_offset;
    L->blob.raw = &d->rec;
    L->header_len = lay.header_len;
    L->payload_len = lay.payload;
    L->payload_done = 0;
    if (fxt_emit_event(d, ev)) {
        d->resume_step = d->step;
        return TREAD_STATUS_PAUSED; /* read again on resume, callbacks skipped */
    }
    d->resume_step = 0;
    L->phase = FXT_LARGE_PAYLOAD;
    if (L->payload_len == 0) {
        L->phase = FXT_LARGE_SKIP;
        L->blob.data = (const unsigned char *)"";
        L->blob.last = 1;
        if (fxt_emit_piece(d, &L->blob, 0))
            return TREAD_STATUS_PAUSED;
    }
    return TREAD_STATUS_OK;
}

static int deliver(fxt_decoder *d, const unsigned char *p, size_t n)
{
    fxt_large *L = &d->large;
    L->blob.piece_offset = L->payload_done;
    L->blob.data = p;
    L->blob.len = n;
    L->payload_done += n;
    L->blob.last = L->payload_done == L->payload_len;
    return fxt_emit_piece(d, &L->blob, 0);
}

static tread_status payload(fxt_decoder *d, const unsigned char *data, size_t len, size_t *used)
{
    fxt_large *L = &d->large;
    while (L->payload_done < L->payload_len) {
        uint64_t rest = L->payload_len - L->payload_done;
        size_t target = rest < FXT_PIECE_BYTES ? (size_t)rest : FXT_PIECE_BYTES;
        size_t avail = len - *used;
        if (L->piece_len == 0 && avail >= target) {
            const unsigned char *src = data + *used;
            *used += target;
            L->done += target;
            if (deliver(d, src, target))
                return TREAD_STATUS_PAUSED;
            continue;
        }
        if (avail == 0)
            return TREAD_STATUS_OK;
        if (!L->piece) {
            L->piece = tread_malloc(&d->p->alloc, FXT_PIECE_BYTES);
            if (!L->piece)
                return tread__fail(d->p, TREAD_ERROR_NOMEM, d->rec_offset, "out of memory");
        }
        size_t take = target - L->piece_len < avail ? target - L->piece_len : avail;
        memcpy(L->piece + L->piece_len, data + *used, take);
        L->piece_len += take;
        *used += take;
        L->done += take;
        if (L->piece_len == target) {
            L->piece_len = 0;
            if (deliver(d, L->piece, target))
                return TREAD_STATUS_PAUSED;
        }
    }
    L->phase = FXT_LARGE_SKIP;
    return TREAD_STATUS_OK;
}

tread_status fxt_large_feed(fxt_decoder *d, const unsigned char *data, size_t len, size_t *used)
{
    fxt_large *L = &d->large;
    tread_status st;
    *used = 0;
    for (;;) {
        switch (L->phase) {
        case FXT_LARGE_HEADER: {
            if (d->rbuf.len < L->need) {
                size_t take = L->need - d->rbuf.len;
                if (take > len - *used)
                    take = len - *used;
                if (tread_buf_append(&d->rbuf, data + *used, take))
                    return tread__fail(d->p, TREAD_ERROR_NOMEM, d->rec_offset, "out of memory");
                *used += take;
                L->done += take;
                if (d->rbuf.len < L->need)
                    return TREAD_STATUS_OK;
            }
            large_layout lay;
            size_t need = 0;
            const char *why = "";
            int v = large_parse(d->rbuf.data, d->rbuf.len, L->total, &lay, &need, &why);
            if (v == LARGE_NEED) {
                if (need > d->p->max_event_bytes)
                    return tread__fail(d->p, TREAD_ERROR_LIMIT_EVENT, d->rec_offset,
                                       "header part of a large record larger than the limit of "
                                       "%zu bytes (TREAD_OPT_MAX_EVENT_BYTES)",
                                       d->p->max_event_bytes);
                L->need = need;
                continue;
            }
            L->phase = FXT_LARGE_EMIT;
            d->resume_step = 0;
            break;
        }
        case FXT_LARGE_EMIT:
            st = fxt_large_emit(d);
            if (st != TREAD_STATUS_OK)
                return st;
            break;
        case FXT_LARGE_PAYLOAD:
            st = payload(d, data, len, used);
            if (st != TREAD_STATUS_OK || L->phase == FXT_LARGE_PAYLOAD)
                return st;
            break;
        case FXT_LARGE_SKIP: {
            uint64_t left = L->total - L->done;
            size_t take = left < (uint64_t)(len - *used) ? (size_t)left : len - *used;
            *used += take;
            L->done += take;
            if (L->done < L->total)
                return TREAD_STATUS_OK;
            L->phase = FXT_LARGE_NONE;
            d->rbuf.len = 0;
            return d->p->stop_requested ? TREAD_STATUS_PAUSED : TREAD_STATUS_OK;
        }
        default:
            return TREAD_STATUS_OK;
        }
    }
}

tread_status fxt_large_truncated(fxt_decoder *d)
{
    fxt_large *L = &d->large;
    if (L->phase == FXT_LARGE_PAYLOAD && L->piece_len && !L->truncated_piece_sent) {
        /* what arrived of the last piece (the payload stays incomplete:
         * no piece has last set) */
        L->truncated_piece_sent = 1;
        size_t n = L->piece_len;
        L->piece_len = 0;
        L->blob.piece_offset = L->payload_done;
        L->blob.data = L->piece;
        L->blob.len = n;
        L->blob.last = 0;
        L->payload_done += n;
        if (fxt_emit_piece(d, &L->blob, 0))
            return TREAD_STATUS_PAUSED;
    }
    tread__warn(d->p, TREAD_WARN_TRUNCATED_EVENT, d->rec_offset,
                "input ends inside a large record (%llu of its %llu bytes): the rest is missing",
                (unsigned long long)L->done, (unsigned long long)L->total);
    L->phase = FXT_LARGE_NONE;
    d->rbuf.len = 0;
    return TREAD_STATUS_OK;
}
