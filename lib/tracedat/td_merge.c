/* The CPUs' data. A file stores each CPU's pages one after another.
 * Reading the file itself (td_dec.file), the CPUs are merged by
 * timestamp, holding one page per CPU (a v7 compressed CPU: one expanded
 * chunk). Fed as a stream, each CPU's events come in order, one CPU after
 * another, in the order of their offsets. */
#include "tracedat/td_dec.h"

static size_t min_sz(uint64_t a, uint64_t b) { return (size_t)(a < b ? a : b); }

static void bad_page(td_dec *d, td_cpu *c, uint64_t off, const char *why)
{
    d->c.bad_records++;
    tread__warn(d->p, TREAD_WARN_BAD_RECORD, off, "cpu %u: %s: the rest of the page is skipped",
                c->cpu, why);
}

/* Opens the page at data (n bytes) lying at file offset off. */
static void open_page(td_dec *d, td_cpu *c, const unsigned char *data, size_t n, uint64_t off)
{
    const char *why = "";
    c->page_file_off = off;
    if (td_page_open(&c->pg, &d->layout, d->be, data, n, &why) != 0) {
        bad_page(d, c, off, why);
        c->pg.data = NULL;
        return;
    }
    d->c.pages++;
    if (c->pg.missed)
        td_page_lost(d, c, off);
}

int td_data_stream(td_dec *d)
{
    while (d->stream_cpu < d->ncpu_data) {
        td_cpu *c = &d->cpus[d->stream_cpu];
        if (!c->pg.data) {
            if (c->done || c->next >= c->off + c->size) {
                c->done = 1;
                d->stream_cpu++;
                continue;
            }
            if (c->next < d->pos)
                return tread__fail(d->p, TREAD_ERROR_UNSUPPORTED, c->next,
                                   "cpu %u's data lies before the data already read: read the "
                                   "file (tread_parse_path/_fd) instead of a stream",
                                   c->cpu),
                       TD_ERROR;
            size_t n = min_sz(d->page_size, c->off + c->size - c->next);
            const unsigned char *pg = td_need(d, c->next, n);
            if (!pg)
                return TD_NEED;
            d->pos = c->next;
            open_page(d, c, pg, n, c->next);
            if (!c->pg.data) {
                c->next += d->page_size;
                continue;
            }
        }
        td_record r;
        const char *why = "";
        int k = td_page_next(&c->pg, d->be, &r, &why);
        if (k <= 0) {
            if (k < 0)
                bad_page(d, c, c->page_file_off + c->pg.pos, why);
            c->pg.data = NULL;
            c->next += d->page_size;
            continue;
        }
        if (td_emit_record(d, c, &r, c->page_file_off + r.at))
            return TD_PAUSED;
    }
    return TD_DONE;
}

/* Loads the CPU's next page: 1, 0 when it has no more, TD_ERROR. */
static int load_page(td_dec *d, td_cpu *c)
{
    if (d->comp == TD_COMP_NONE || d->version < 7) {
        if (c->next >= c->off + c->size)
            return 0;
        size_t n = min_sz(d->page_size, c->off + c->size - c->next);
        if (!c->page && !(c->page = tread_malloc(&d->p->alloc, d->page_size)))
            return tread__fail(d->p, TREAD_ERROR_NOMEM, c->next, "out of memory"), TD_ERROR;
        if (td_pread(d, c->next, c->page, n) != 0)
            return tread__fail(d->p, TREAD_ERROR_SYNTAX, c->next,
                               "cpu %u's data runs past the end of the file", c->cpu),
                   TD_ERROR;
        open_page(d, c, c->page, n, c->next);
        c->next += d->page_size;
        return 1;
    }
    if (c->page && c->page_pos < c->page_len) {
        size_t n = min_sz(d->page_size, c->page_len - c->page_pos);
        open_page(d, c, c->page + c->page_pos, n, c->page_file_off);
        c->page_pos += d->page_size;
        return 1;
    }
    unsigned char h[8];
    if (!c->counted) {
        if (c->size < 4 || td_pread(d, c->next, h, 4) != 0)
            return tread__fail(d->p, TREAD_ERROR_SYNTAX, c->next,
                               "cpu %u's compressed data has no chunk count", c->cpu),
                   TD_ERROR;
        c->chunks_left = td_u32(d->be, h);
        c->counted = 1;
        c->next += 4;
    }
    if (c->chunks_left == 0)
        return 0;
    uint64_t at = c->next;
    /* trace-cmd's size of compressed CPU data leaves out the chunk count:
     * chunks are bounded by the file */
    if (at + 8 > d->file_size || td_pread(d, at, h, 8) != 0)
        return tread__fail(d->p, TREAD_ERROR_SYNTAX, at, "cpu %u: a chunk header past its data",
                           c->cpu),
               TD_ERROR;
    uint32_t cs = td_u32(d->be, h), us = td_u32(d->be, h + 4);
    if (cs > d->file_size - at - 8)
        return tread__fail(d->p, TREAD_ERROR_SYNTAX, at, "cpu %u: a chunk of %u bytes runs past "
                           "its data", c->cpu, cs),
               TD_ERROR;
    if (us > d->limit || cs > d->limit)
        return tread__fail(d->p, TREAD_ERROR_LIMIT_MEMORY, at,
                           "cpu %u: a chunk of %u bytes (%u expanded) is past the "
                           "max-tracedat-meta-bytes option (%llu)",
                           c->cpu, cs, us, (unsigned long long)d->limit),
               TD_ERROR;
    d->chunk_in.len = 0;
    if (tread_buf_reserve(&d->chunk_in, cs ? cs : 1) != 0)
        return tread__fail(d->p, TREAD_ERROR_NOMEM, at, "out of memory"), TD_ERROR;
    if (td_pread(d, at + 8, d->chunk_in.data, cs) != 0)
        return tread__fail(d->p, TREAD_ERROR_SYNTAX, at, "cpu %u: a chunk past the file's end",
                           c->cpu),
               TD_ERROR;
    if (us > c->page_len || !c->page) {
        unsigned char *np = tread_realloc(&d->p->alloc, c->page, us ? us : 1);
        if (!np)
            return tread__fail(d->p, TREAD_ERROR_NOMEM, at, "out of memory"), TD_ERROR;
        c->page = np;
    }
    if (td_expand(d, d->chunk_in.data, cs, c->page, us) != 0)
        return tread__fail(d->p, TREAD_ERROR_SYNTAX, at, "cpu %u: a chunk does not expand",
                           c->cpu),
               TD_ERROR;
    d->c.chunks++;
    c->page_len = us;
    c->page_pos = 0;
    c->page_file_off = at;
    c->next = at + 8 + cs;
    c->chunks_left--;
    if (us == 0)
        return load_page(d, c);
    size_t n = min_sz(d->page_size, us);
    open_page(d, c, c->page, n, at);
    c->page_pos = d->page_size;
    return 1;
}

/* The CPU's next record into c->rec: 0, or TD_ERROR. */
static int fill(td_dec *d, td_cpu *c)
{
    while (!c->has_rec && !c->done) {
        if (c->pg.data) {
            const char *why = "";
            int k = td_page_next(&c->pg, d->be, &c->rec, &why);
            if (k == 1) {
                c->has_rec = 1;
                break;
            }
            if (k < 0)
                bad_page(d, c, c->page_file_off + c->pg.pos, why);
            c->pg.data = NULL;
            continue;
        }
        int l = load_page(d, c);
        if (l == TD_ERROR)
            return TD_ERROR;
        if (l == 0)
            c->done = 1;
    }
    return 0;
}

int td_data_file(td_dec *d)
{
    for (;;) {
        td_cpu *best = NULL;
        for (uint32_t i = 0; i < d->ncpu_data; i++) {
            td_cpu *c = &d->cpus[i];
            if (!c->has_rec && fill(d, c) != 0)
                return TD_ERROR;
            if (c->has_rec && (!best || c->rec.ts < best->rec.ts))
                best = c;
        }
        if (!best)
            return TD_DONE;
        best->has_rec = 0; /* its page stays until the next fill */
        if (td_emit_record(d, best, &best->rec, best->page_file_off + best->rec.at))
            return TD_PAUSED;
    }
}
