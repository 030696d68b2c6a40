/* The trace.dat decoder's ops. A regular, seekable, uncompressed file
 * given to tread_parse_fd/_path is read by the decoder itself with pread
 * (its CPUs merged by timestamp); the bytes the parser feeds are then
 * ignored, and the parser stops reading once the decoder is done
 * (tread__range_stop). Anything else is read as a stream through the byte
 * window. */
#include <stdio.h>
#include <sys/stat.h>
#include "tracedat/td_dec.h"

static void compact(td_dec *d)
{
    if (d->pos <= d->win_off)
        return;
    uint64_t drop = d->pos - d->win_off;
    if (drop > d->win.len)
        drop = d->win.len;
    memmove(d->win.data, d->win.data + drop, d->win.len - (size_t)drop);
    d->win.len -= (size_t)drop;
    d->win_off += drop;
}

static int cmp_off(const td_cpu *a, const td_cpu *b)
{
    return a->off < b->off ? -1 : a->off > b->off;
}

static int run(td_dec *d)
{
    if (!d->data_started) {
        int r = td_header_run(d);
        if (r != TD_DONE)
            return r;
        d->data_started = 1;
        if (!d->file) { /* the stream reads the CPUs in file order */
            for (uint32_t i = 1; i < d->ncpu_data; i++)
                for (uint32_t j = i; j > 0 && cmp_off(&d->cpus[j - 1], &d->cpus[j]) > 0; j--) {
                    td_cpu t = d->cpus[j];
                    d->cpus[j] = d->cpus[j - 1];
                    d->cpus[j - 1] = t;
                }
        }
    }
    return d->file ? td_data_file(d) : td_data_stream(d);
}

static void choose_source(td_dec *d)
{
    tread_parser *p = d->p;
    struct stat sb;
    if (p->src_start < 0 || p->src_fd < 0 || p->dec != d ||
        p->stats.compression != TREAD_COMPRESSION_NONE || fstat(p->src_fd, &sb) != 0 ||
        !S_ISREG(sb.st_mode) || (int64_t)sb.st_size < p->src_start)
        return;
    d->file = 1;
    d->fd = p->src_fd;
    d->base = p->src_start;
    d->file_size = (uint64_t)((int64_t)sb.st_size - p->src_start);
}

static tread_status td_feed(void *dec, const unsigned char *data, size_t len, size_t *consumed)
{
    td_dec *d = dec;
    *consumed = len;
    if (d->done)
        return TREAD_STATUS_OK;
    if (!d->started) {
        d->started = 1;
        choose_source(d);
    }
    if (d->file) {
        int r = run(d);
        if (r == TD_PAUSED)
            return TREAD_STATUS_PAUSED;
        if (r == TD_ERROR)
            return TREAD_STATUS_ERROR;
        d->done = 1;
        tread__range_stop(d->p); /* the rest of the file was read here */
        return TREAD_STATUS_OK;
    }
    size_t used = 0;
    for (;;) {
        int r = run(d);
        if (r == TD_PAUSED) {
            *consumed = used;
            return TREAD_STATUS_PAUSED;
        }
        if (r == TD_ERROR)
            return TREAD_STATUS_ERROR;
        if (r == TD_DONE) {
            d->done = 1; /* what follows the last CPU's data is not read */
            return TREAD_STATUS_OK;
        }
        if (!data || used == len)
            break;
        compact(d);
        if (d->want_off > d->stream_at) { /* bytes nobody needs: skipped */
            uint64_t skip = d->want_off - d->stream_at;
            if (skip > len - used)
                skip = len - used;
            used += (size_t)skip;
            d->stream_at += skip;
            d->win.len = 0;
            d->win_off = d->stream_at;
            continue;
        }
        uint64_t take = d->want_end > d->stream_at ? d->want_end - d->stream_at : 1;
        if (take > len - used)
            take = len - used;
        if (tread_buf_append(&d->win, data + used, (size_t)take) != 0)
            return tread__fail(d->p, TREAD_ERROR_NOMEM, d->stream_at, "out of memory");
        used += (size_t)take;
        d->stream_at += take;
    }
    return TREAD_STATUS_OK;
}

static tread_status td_finish(void *dec)
{
    td_dec *d = dec;
    if (d->finished || d->done)
        return TREAD_STATUS_OK;
    if (d->file && d->started)
        return TREAD_STATUS_OK;
    d->finished = 1;
    if (!d->data_started)
        return tread__fail(d->p, TREAD_ERROR_SYNTAX, d->stream_at,
                           "the input ends inside the trace.dat header (at offset %llu)",
                           (unsigned long long)d->pos);
    uint32_t left = 0;
    for (uint32_t i = d->stream_cpu; i < d->ncpu_data; i++)
        left += !d->cpus[i].done;
    if (left)
        tread__warn(d->p, TREAD_WARN_TRUNCATED_EVENT, d->stream_at,
                    "the input ends inside the data of cpu %u (%u CPUs' data not read whole)",
                    d->cpus[d->stream_cpu].cpu, left);
    return TREAD_STATUS_OK;
}

static void *td_create(tread_parser *p)
{
    td_dec *d = tread_malloc(&p->alloc, sizeof *d);
    if (!d)
        return NULL;
    memset(d, 0, sizeof *d);
    d->p = p;
    d->fd = -1;
    d->limit = p->max_tracedat_meta_bytes;
    tread_buf_init(&d->win, &p->alloc, (size_t)d->limit + ((size_t)32 << 20));
    tread_buf_init(&d->sec, &p->alloc, (size_t)d->limit);
    tread_buf_init(&d->chunk_in, &p->alloc, (size_t)d->limit);
    tread_buf_init(&d->targs, &p->alloc, (size_t)1 << 20);
    td_formats_init(&d->formats, &p->alloc, d->limit);
    for (int i = 0; i < 64; i++)
        snprintf(d->lost_names[i], sizeof d->lost_names[i], "lost_events.cpu%d", i);
    return d;
}

static void td_destroy(void *dec)
{
    td_dec *d = dec;
    if (!d)
        return;
    for (uint32_t i = 0; i < d->ncpu_data; i++)
        tread_free(&d->p->alloc, d->cpus[i].page);
    tread_free(&d->p->alloc, d->cpus);
    tread_buf_free(&d->win);
    tread_buf_free(&d->sec);
    tread_buf_free(&d->chunk_in);
    tread_buf_free(&d->targs);
    td_expand_free(d);
    td_syms_free(&d->ksyms, &d->p->alloc);
    td_syms_free(&d->printk, &d->p->alloc);
    td_formats_free(&d->formats);
    tread_free(&d->p->alloc, d);
}

static size_t td_counters(const void *dec, tread_counter *out, size_t max)
{
    const td_dec *d = dec;
    size_t n = 0;
    n = tread__counter_put(out, max, n, "version", (uint64_t)d->version);
    n = tread__counter_put(out, max, n, "page_size", d->page_size);
    n = tread__counter_put(out, max, n, "formats", d->c.formats);
    n = tread__counter_put(out, max, n, "formats_skipped", d->c.formats_skipped);
    n = tread__counter_put(out, max, n, "systems", d->c.systems);
    n = tread__counter_put(out, max, n, "options", d->c.options);
    n = tread__counter_put(out, max, n, "sections", d->c.sections);
    n = tread__counter_put(out, max, n, "sections_compressed", d->c.sections_compressed);
    n = tread__counter_put(out, max, n, "buffers", d->nbuffers);
    n = tread__counter_put(out, max, n, "cpu_data", d->ncpu_data);
    n = tread__counter_put(out, max, n, "chunks", d->c.chunks);
    n = tread__counter_put(out, max, n, "pages", d->c.pages);
    n = tread__counter_put(out, max, n, "records", d->c.records);
    n = tread__counter_put(out, max, n, "events_mapped", d->c.events_mapped);
    n = tread__counter_put(out, max, n, "events_generic", d->c.events_generic);
    n = tread__counter_put(out, max, n, "unknown_ids", d->c.unknown_ids);
    n = tread__counter_put(out, max, n, "bad_records", d->c.bad_records);
    n = tread__counter_put(out, max, n, "atrace_malformed", d->c.atrace_malformed);
    n = tread__counter_put(out, max, n, "marker_text", d->c.marker_text);
    n = tread__counter_put(out, max, n, "kallsyms_bytes", d->c.kallsyms_bytes);
    n = tread__counter_put(out, max, n, "printk_bytes", d->c.printk_bytes);
    n = tread__counter_put(out, max, n, "cmdlines_bytes", d->c.cmdlines_bytes);
    n = tread__counter_put(out, max, n, "kallsyms_symbols", d->c.kallsyms_symbols);
    n = tread__counter_put(out, max, n, "kallsyms_bad_lines", d->c.kallsyms_bad_lines);
    n = tread__counter_put(out, max, n, "printk_formats", d->c.printk_formats);
    n = tread__counter_put(out, max, n, "printk_bad_lines", d->c.printk_bad_lines);
    n = tread__counter_put(out, max, n, "syms_resolved", d->c.syms_resolved);
    n = tread__counter_put(out, max, n, "syms_unresolved", d->c.syms_unresolved);
    n = tread__counter_put(out, max, n, "function_events", d->c.function_events);
    n = tread__counter_put(out, max, n, "graph_events", d->c.graph_events);
    n = tread__counter_put(out, max, n, "bprint_formatted", d->c.bprint_formatted);
    n = tread__counter_put(out, max, n, "bprint_bad", d->c.bprint_bad);
    n = tread__counter_put(out, max, n, "lost_pages", d->c.lost_pages);
    n = tread__counter_put(out, max, n, "lost_events", d->c.lost_events);
    uint64_t by_cpu[64] = {0};
    for (uint32_t i = 0; i < d->ncpu_data; i++)
        if (d->cpus[i].cpu < 64)
            by_cpu[d->cpus[i].cpu] += d->cpus[i].lost_events;
    for (int i = 0; i < 64; i++)
        if (by_cpu[i])
            n = tread__counter_put(out, max, n, d->lost_names[i], by_cpu[i]);
    return n;
}

const tread_decoder_ops tread__tracedat_decoder = {
    .format = TREAD_FORMAT_TRACEDAT,
    .create = td_create,
    .feed = td_feed,
    .finish = td_finish,
    .destroy = td_destroy,
    .counters = td_counters,
};
