/*
 * The FXT decoder's framing: records are cut by the size in their header
 * word ("Record header", "Large record header"); whole records are read in
 * place, a record split across feeds is gathered first, large records are
 * streamed (fxt_large.c). See fxt_decoder.h.
 */
#include "fxt/fxt_decoder.h"
#include "fxt/fxt_emit.h"
#include "fxt/fxt_fast.h"
#include "fxt/fxt_wire.h"

#include <string.h>

int fxt_shadow_reserve(fxt_decoder *d, size_t n)
{
    size_t need = fxt_shadow_size(n);
    if (need <= d->shadow_cap)
        return 0;
    unsigned char *s = tread_realloc(&d->p->alloc, d->shadow, need);
    if (!s)
        return -1;
    d->shadow = s;
    d->shadow_cap = need;
    d->actx.shadow = s;
    return 0;
}

static void fd_destroy(void *dec)
{
    fxt_decoder *d = dec;
    if (!d)
        return;
    const tread_alloc *a = &d->p->alloc;
    fxt_tables_free(&d->tables);
    tread_buf_free(&d->rbuf);
    tread_free(a, d->shadow);
    tread_free(a, d->large.piece);
    tread_free(a, d->ev_mem);
    tread_free(a, d);
}

static void *fd_create(tread_parser *p)
{
    fxt_decoder *d = tread_malloc(&p->alloc, sizeof *d);
    if (!d)
        return NULL;
    memset(d, 0, sizeof *d);
    d->p = p;
    d->ev = tread_malloc_line(&p->alloc, sizeof *d->ev, &d->ev_mem);
    if (!d->ev) {
        tread_free(&p->alloc, d);
        return NULL;
    }
    memset(d->ev, 0, sizeof *d->ev);
    fxt_tables_init(&d->tables, &p->alloc, p->max_interned_bytes);
    d->cur = &d->tables.implicit;
    fxt_rec_provider(d);
    d->ev->raw = &d->rec; /* the rest of ev: see fxt_event_init */
    tread_buf_init(&d->rbuf, &p->alloc,
                   p->max_event_bytes > FXT_MAX_RECORD_BYTES ? p->max_event_bytes
                                                             : FXT_MAX_RECORD_BYTES);
    if (fxt_shadow_reserve(d, FXT_MAX_RECORD_BYTES)) {
        fd_destroy(d);
        return NULL;
    }
    /* a nested decoder must not begin or end the container's range
     * (fuzz_json: an FXT sub-trace in the prefix ended the JSON range at
     * its end: fuzz/seeds/json/regress_range_nested_fxt) */
    d->nested = p->dec != NULL;
    d->range_mark = d->nested ? UINT64_MAX : p->in_prefix ? p->range_begin : p->range_end;
    return d;
}

/* Records of these types carry no state the records after them need:
 * before a byte range begins they are skipped by their size. */
#define FXT_STATELESS_TYPES 0x7ff0u /* 4..14 */

/* The byte range begins: the counters start from zero. */
static void range_enter(fxt_decoder *d)
{
    memset(&d->c, 0, sizeof d->c);
    tread__range_enter(d->p);
    d->range_mark = d->p->range_end;
}

/* A record begins at off >= d->range_mark: the range begins there, or has
 * ended (returns 1: read no further). */
static int range_cross(fxt_decoder *d, uint64_t off)
{
    if (d->p->in_prefix) {
        range_enter(d);
        if (off < d->range_mark)
            return 0;
    }
    tread__range_stop(d->p);
    return 1;
}

/* Checks a header word; the record's bytes in *bytes (normal records).
 * Returns 1 for a large record, 0 for a normal one, -1 on a fatal error. */
static int check_header(fxt_decoder *d, uint64_t h, uint64_t off, size_t *bytes)
{
    if (h == FXT_MAGIC_WORD_SWAPPED) {
        tread__fail(d->p, TREAD_ERROR_UNSUPPORTED, off,
                    "big-endian FXT archive (magic 00 16 54 78 46 04 00 10): tread reads "
                    "little-endian archives only");
        return -1;
    }
    unsigned type = (unsigned)(h & 15);
    uint64_t words = type == FXT_REC_LARGE ? fxt_bits(h, 4, 35) : fxt_bits(h, 4, 15);
    if (words == 0) {
        tread__fail(d->p, TREAD_ERROR_SYNTAX, off,
                    "FXT record of size 0 (type %u) at byte %llu: the records after it cannot "
                    "be found",
                    type, (unsigned long long)off);
        return -1;
    }
    if (type == FXT_REC_LARGE)
        return 1;
    *bytes = (size_t)words * 8;
    if (*bytes > d->p->max_event_bytes) {
        tread__fail(d->p, TREAD_ERROR_LIMIT_EVENT, off,
                    "FXT record of %zu bytes larger than the limit of %zu bytes "
                    "(TREAD_OPT_MAX_EVENT_BYTES)",
                    *bytes, d->p->max_event_bytes);
        return -1;
    }
    return 0;
}

/* After reading a whole record at r (fxt_record's result rc): on a pause
 * inside it, keeps a copy in rbuf (unless it is there already) to be read
 * again on resume. */
static tread_status run_record_end(fxt_decoder *d, int rc, const unsigned char *r, size_t n,
                                   uint64_t off)
{
    int in_rbuf = r == d->rbuf.data;
    if (rc == FXT_FAIL)
        return TREAD_STATUS_ERROR;
    if (rc == FXT_PAUSE) {
        if (!in_rbuf) {
            d->rbuf.len = 0;
            if (tread_buf_append(&d->rbuf, r, n))
                return tread__fail(d->p, TREAD_ERROR_NOMEM, off, "out of memory");
        }
        d->rec_offset = off;
        d->paused_in_record = 1;
        d->resume_step = d->step;
        return TREAD_STATUS_PAUSED;
    }
    if (in_rbuf) {
        d->rbuf.len = 0;
        d->need = 0;
    }
    d->resume_step = 0;
    return d->p->stop_requested ? TREAD_STATUS_PAUSED : TREAD_STATUS_OK;
}

/* The record paused inside: the rest of its callbacks. */
static tread_status resume_record(fxt_decoder *d)
{
    int rc = fxt_record(d, d->rbuf.data, d->rbuf.len, d->rec_offset);
    if (rc == FXT_FAIL)
        return TREAD_STATUS_ERROR;
    if (rc == FXT_PAUSE) {
        d->resume_step = d->step;
        return TREAD_STATUS_PAUSED;
    }
    d->paused_in_record = 0;
    d->resume_step = 0;
    d->rbuf.len = 0;
    d->need = 0;
    return d->p->stop_requested ? TREAD_STATUS_PAUSED : TREAD_STATUS_OK;
}

/* Gathers a record that does not fit in what was fed. */
static tread_status gather(fxt_decoder *d, const unsigned char *data, size_t len, size_t *pos)
{
    if (d->need == 0) {
        if (FXT_UNLIKELY(d->offset >= d->range_mark) && range_cross(d, d->offset)) {
            *pos = len;
            return TREAD_STATUS_OK;
        }
        d->need = 8; /* the header word first */
        d->rec_offset = d->offset; /* the offset of data[*pos] */
        d->rbuf.len = 0;
    }
    size_t take = d->need - d->rbuf.len;
    if (take > len - *pos)
        take = len - *pos;
    if (tread_buf_append(&d->rbuf, data + *pos, take))
        return tread__fail(d->p, TREAD_ERROR_NOMEM, d->rec_offset, "out of memory");
    *pos += take;
    if (d->rbuf.len < d->need)
        return TREAD_STATUS_OK;
    if (d->need == 8) {
        uint64_t h = fxt_load64(d->rbuf.data);
        size_t bytes = 0;
        int k = check_header(d, h, d->rec_offset, &bytes);
        if (k < 0)
            return TREAD_STATUS_ERROR;
        if (k == 1) {
            /* the header word stays in rbuf: the large record goes on
             * from it now (it may be all there is of the record) */
            size_t used;
            d->need = 0;
            fxt_large_start(d, h, d->rec_offset, 8);
            return fxt_large_feed(d, data + *pos, 0, &used);
        }
        d->need = bytes;
        if (d->rbuf.len < d->need)
            return TREAD_STATUS_OK;
    }
    return run_record_end(d, fxt_record(d, d->rbuf.data, d->rbuf.len, d->rec_offset),
                          d->rbuf.data, d->rbuf.len, d->rec_offset);
}

static tread_status fd_feed(void *dec, const unsigned char *data, size_t len, size_t *consumed)
{
    fxt_decoder *d = dec;
    size_t pos = 0;
    tread_status st = TREAD_STATUS_OK;
    *consumed = 0;
    if (d->p->range_done) {
        *consumed = len;
        return TREAD_STATUS_OK;
    }
    if (d->paused_in_record && (st = resume_record(d)) != TREAD_STATUS_OK)
        return st;
    if (d->large.phase == FXT_LARGE_EMIT) {
        size_t used = 0;
        st = fxt_large_feed(d, NULL, 0, &used);
        if (st != TREAD_STATUS_OK)
            return st;
    }
    while (pos < len && !d->p->range_done) {
        if (d->large.phase != FXT_LARGE_NONE) {
            size_t used = 0;
            st = fxt_large_feed(d, data + pos, len - pos, &used);
            pos += used;
            d->offset += used;
            if (st != TREAD_STATUS_OK)
                break;
            continue;
        }
        if (d->need) {
            size_t before = pos;
            st = gather(d, data, len, &pos);
            d->offset += pos - before;
            if (st != TREAD_STATUS_OK)
                break;
            continue;
        }
        /* whole records, read in place: a tight loop over the header
         * words; check_header for what is not a plain normal record */
        tread_parser *const p = d->p;
        const size_t max_bytes = p->max_event_bytes;
        uint64_t off = d->offset;
        int prefix = p->in_prefix;
        while (len - pos >= 8) {
            if (FXT_UNLIKELY(off >= d->range_mark)) {
                if (range_cross(d, off)) {
                    pos = len;
                    break;
                }
                prefix = 0;
            }
            uint64_t h = fxt_load64(data + pos);
            size_t n = (size_t)((h >> 4) & 0xfff) * 8;
            unsigned type = (unsigned)h & 15;
            /* n - 1 >= max_bytes: a size of 0, or over the limit; the
             * swapped magic word reads as a metadata record */
            if (FXT_UNLIKELY(n - 1 >= max_bytes || type == FXT_REC_LARGE ||
                             (type == FXT_REC_METADATA && h == FXT_MAGIC_WORD_SWAPPED))) {
                int k = check_header(d, h, off, &n);
                if (k < 0) {
                    d->offset = off;
                    *consumed = pos;
                    return TREAD_STATUS_ERROR;
                }
                if (k == 1) {
                    d->offset = off;
                    fxt_large_start(d, h, off, 0);
                    break;
                }
            }
            if (n > len - pos)
                break;
            if (FXT_UNLIKELY(prefix) && ((FXT_STATELESS_TYPES >> type) & 1)) {
                pos += n;
                off += n;
                continue;
            }
            /* tests in the order of frequency, not a switch: as a jump
             * table its indirect branch mispredicted on every other record
             * of a mixed trace (callgrind's model); the hint keeps gcc
             * from making the chain a jump table */
            int rc;
            if (FXT_LIKELY(type == FXT_REC_EVENT))
                rc = fxt_event_fast(d, data + pos, n, off, h);
            else if (type == FXT_REC_STRING)
                rc = fxt_string_fast(d, data + pos, n, off, h);
            else if (type == FXT_REC_SCHEDULING)
                rc = fxt_sched_fast(d, data + pos, n, off, h);
            else if (type == FXT_REC_THREAD)
                rc = fxt_thread_fast(d, data + pos, n, off, h);
            else if (type == FXT_REC_LOG)
                rc = fxt_log_fast(d, data + pos, n, off, h);
            else
                rc = FXT_SLOW;
            if (rc == FXT_SLOW)
                rc = fxt_record(d, data + pos, n, off);
            if (rc != FXT_OK || p->stop_requested) {
                d->offset = off;
                st = run_record_end(d, rc, data + pos, n, off);
                pos += n;
                d->offset += n;
                *consumed = pos;
                return st;
            }
            pos += n;
            off += n;
        }
        d->offset = off;
        if (d->large.phase == FXT_LARGE_NONE && pos < len) {
            size_t before = pos;
            st = gather(d, data, len, &pos);
            d->offset += pos - before;
            if (st != TREAD_STATUS_OK)
                break;
        }
    }
    *consumed = pos;
    return st;
}

static tread_status fd_finish(void *dec)
{
    fxt_decoder *d = dec;
    if (d->finished)
        return TREAD_STATUS_OK;
    if (!d->nested && (d->p->range_done || d->p->in_prefix)) {
        /* a record cut at the end began in an earlier range: its own; a
         * range still before its beginning holds nothing of the end (it
         * ends there: the forced format's warning is not its) */
        if (d->p->in_prefix) {
            range_enter(d);
            tread__range_stop(d->p);
        }
        d->finished = 1;
        return TREAD_STATUS_OK;
    }
    if (d->large.phase != FXT_LARGE_NONE) {
        /* what was gathered may complete the header part, or the record;
         * a payload whose last piece's callback asked to stop is complete
         * but still in its phase: this moves it on, with no input */
        size_t used;
        tread_status st = fxt_large_feed(d, (const unsigned char *)"", 0, &used);
        if (st != TREAD_STATUS_OK)
            return st;
    }
    if (d->large.phase != FXT_LARGE_NONE) {
        tread_status st = fxt_large_truncated(d);
        if (st != TREAD_STATUS_OK)
            return st;
    } else if (d->need) {
        if (d->rbuf.len < 8)
            tread__warn(d->p, TREAD_WARN_TRUNCATED_EVENT, d->rec_offset,
                        "input ends with %zu bytes that are not a whole record header",
                        d->rbuf.len);
        else
            tread__warn(d->p, TREAD_WARN_TRUNCATED_EVENT, d->rec_offset,
                        "input ends inside a record of type %u (%zu of its %zu bytes): dropped",
                        (unsigned)(fxt_load64(d->rbuf.data) & 15), d->rbuf.len, d->need);
        d->need = 0;
        d->rbuf.len = 0;
    }
    d->finished = 1;
    return TREAD_STATUS_OK;
}

static const char *const type_counter_names[16] = {
    "records_by_type.metadata",       "records_by_type.initialization",
    "records_by_type.string",         "records_by_type.thread",
    "records_by_type.event",          "records_by_type.blob",
    "records_by_type.userspace_object", "records_by_type.kernel_object",
    "records_by_type.scheduling",     "records_by_type.log",
    "records_by_type.unknown_10",     "records_by_type.unknown_11",
    "records_by_type.unknown_12",     "records_by_type.unknown_13",
    "records_by_type.unknown_14",     "records_by_type.large",
};

static size_t fd_counters(const void *dec, tread_counter *out, size_t max)
{
    const fxt_decoder *d = dec;
    static const fxt_counters none; /* before a byte range begins */
    const fxt_counters *c = d->p->in_prefix ? &none : &d->c;
    size_t n = 0;
    uint64_t records = 0; /* every record is counted once, by its type */
    for (int t = 0; t < 16; t++)
        records += c->by_type[t];
    n = tread__counter_put(out, max, n, "records", records);
    for (int t = 0; t < 16; t++)
        n = tread__counter_put(out, max, n, type_counter_names[t], c->by_type[t]);
    n = tread__counter_put(out, max, n, "providers", d->tables.count);
    n = tread__counter_put(out, max, n, "provider_sections", c->provider_sections);
    n = tread__counter_put(out, max, n, "string_table_misses", c->string_misses);
    n = tread__counter_put(out, max, n, "thread_table_misses", c->thread_misses);
    n = tread__counter_put(out, max, n, "index0_records_ignored", c->index0_ignored);
    n = tread__counter_put(out, max, n, "timestamp_overflows", c->ts_overflows);
    n = tread__counter_put(out, max, n, "blob_bytes", c->blob_bytes);
    n = tread__counter_put(out, max, n, "interned_bytes", d->tables.interned);
    return n;
}

const tread_decoder_ops tread__fxt_decoder = {
    .format = TREAD_FORMAT_FXT,
    .create = fd_create,
    .feed = fd_feed,
    .finish = fd_finish,
    .destroy = fd_destroy,
    .counters = fd_counters,
    .ranges = 1,
};
