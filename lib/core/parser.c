/* The parser handle, options, the push pipeline, pause/resume, errors. */
#include "core/parser.h"
#include "core/sniff.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define DZ_OUT_SIZE (128u * 1024u)
/* With the decompression thread: input goes over in slices of at most
 * DZ_SLICE (copied: the caller's chunk is not ours after a pause), and
 * comes back in DZ_PIECES pieces of DZ_PIECE. */
#define DZ_SLICE (1024u * 1024u)
#define DZ_PIECE (64u * 1024u)
#define DZ_PIECES 4

/* Whether a parser may use a helper thread (TREAD_OPT_DECOMPRESS_THREAD). */
int tread__may_use_thread(const tread_parser *p)
{
    return p->decompress_thread > 0 ||
           (p->decompress_thread < 0 && tread_alloc_is_default(&p->alloc));
}

tread_parser *tread_parser_create(const tread_allocator *alloc)
{
    tread_alloc a;
    tread_alloc_init(&a, alloc);
    tread_parser *p = tread_malloc(&a, sizeof *p);
    if (!p)
        return NULL;
    memset(p, 0, sizeof *p);
    p->alloc = a;
    p->max_depth = 256;
    p->max_event_bytes = (size_t)64 << 20;
    p->max_string_bytes = (size_t)32 << 20;
    p->lenient = 1;
    p->decompress = 1;
    p->max_warnings_reported = -1;
    p->zstd_window_log_max = 27;
    p->json_fast_path = 1;
    p->perfetto_fast_path = 1;
    p->decompress_thread = -1;
    p->inflate_engine = tread_inflate_default_engine();
    p->read_thread = 1;
    p->max_decompressed_bytes = (uint64_t)512 << 20;
    p->max_interned_bytes = (uint64_t)256 << 20;
    p->max_line_bytes = (size_t)1 << 20;
    p->max_profile_nodes = (size_t)1 << 20;
    p->max_tracedat_meta_bytes = (uint64_t)64 << 20;
    p->src_start = -1;
    p->range_end = UINT64_MAX;
    p->src_fd = -1;
    tread_buf_init(&p->pending_raw, &p->alloc, SIZE_MAX);
    tread_buf_init(&p->sniff, &p->alloc, TREAD_SNIFF_MAX);
    tread_buf_init(&p->forced_check, &p->alloc, TREAD_SNIFF_MAX);
    tread_buf_init(&p->dz_in, &p->alloc, DZ_SLICE);
    return p;
}

void tread_parser_free(tread_parser *p)
{
    if (!p)
        return;
    if (p->dec && p->dec_ops)
        p->dec_ops->destroy(p->dec);
    tread_worker_free(p->dzw); /* before the decompressor it may be using */
    tread_buf_free(&p->dz_in);
    tread_dz_free(&p->dz);
    tread_free(&p->alloc, p->dz_out);
    tread__close_source(p); /* the reader first: it may be in read() */
    tread_free(&p->alloc, p->read_buf);
    tread_buf_free(&p->pending_raw);
    tread_buf_free(&p->sniff);
    tread_buf_free(&p->forced_check);
    tread_alloc a = p->alloc;
    tread_free(&a, p);
}

int tread_config(tread_parser *p, tread_option opt, int64_t v)
{
    if (!p || p->state != P_NEW || p->stats.bytes_in != 0)
        return -1;
    switch (opt) {
    case TREAD_OPT_FORMAT:
        if (v < 0 || v >= TREAD_FORMAT_COUNT_) return -1;
        p->forced_format = (int)v;
        return 0;
    case TREAD_OPT_MAX_DEPTH:
        if (v < 2 || v > 1000000) return -1;
        p->max_depth = (int)v;
        return 0;
    case TREAD_OPT_MAX_EVENT_BYTES:
        if (v < 64 || (uint64_t)v > SIZE_MAX / 2) return -1;
        p->max_event_bytes = (size_t)v;
        return 0;
    case TREAD_OPT_MAX_STRING_BYTES:
        if (v < 16 || (uint64_t)v > UINT32_MAX) return -1;
        p->max_string_bytes = (size_t)v;
        return 0;
    case TREAD_OPT_LENIENT:
        if (v != 0 && v != 1) return -1;
        p->lenient = (int)v;
        return 0;
    case TREAD_OPT_DECOMPRESS:
        if (v != 0 && v != 1) return -1;
        p->decompress = (int)v;
        return 0;
    case TREAD_OPT_MAX_WARNINGS_REPORTED:
        if (v < -1) return -1;
        p->max_warnings_reported = v;
        return 0;
    case TREAD_OPT_ZSTD_WINDOW_LOG_MAX:
        if (v < 10 || v > 31) return -1;
        p->zstd_window_log_max = (int)v;
        return 0;
    case TREAD_OPT_JSON_FAST_PATH:
        if (v != 0 && v != 1) return -1;
        p->json_fast_path = (int)v;
        return 0;
    case TREAD_OPT_PERFETTO_FAST_PATH:
        if (v != 0 && v != 1) return -1;
        p->perfetto_fast_path = (int)v;
        return 0;
    case TREAD_OPT_DECOMPRESS_THREAD:
        if (v < -1 || v > 1) return -1;
        p->decompress_thread = (int)v;
        return 0;
    case TREAD_OPT_READ_THREAD:
        if (v != 0 && v != 1) return -1;
        p->read_thread = (int)v;
        return 0;
    case TREAD_OPT_INFLATE:
        if (v == -1)
            v = tread_inflate_default_engine();
        if (v != TREAD_INFLATE_ZLIB && v != TREAD_INFLATE_ISAL)
            return -1;
        if (!tread_inflate_engine_built((int)v))
            return -1;
        p->inflate_engine = (int)v;
        return 0;
    case TREAD_OPT_MAX_DECOMPRESSED_BYTES:
        if (v < 4096) return -1;
        p->max_decompressed_bytes = (uint64_t)v;
        return 0;
    case TREAD_OPT_MAX_INTERNED_BYTES:
        if (v < 4096) return -1;
        p->max_interned_bytes = (uint64_t)v;
        return 0;
    case TREAD_OPT_MAX_LINE_BYTES:
        if (v < 256 || (uint64_t)v > SIZE_MAX / 2) return -1;
        p->max_line_bytes = (size_t)v;
        return 0;
    case TREAD_OPT_MAX_PROFILE_NODES:
        if (v < 16 || (uint64_t)v > SIZE_MAX / 128) return -1;
        p->max_profile_nodes = (size_t)v;
        return 0;
    case TREAD_OPT_MAX_TRACEDAT_META_BYTES:
        if (v < 4096) return -1;
        p->max_tracedat_meta_bytes = (uint64_t)v;
        return 0;
    case TREAD_OPT_RANGE_BEGIN:
        if (v < 0) return -1;
        p->range_begin = (uint64_t)v;
        return 0;
    case TREAD_OPT_RANGE_END:
        if (v < -1) return -1;
        p->range_end = v == -1 ? UINT64_MAX : (uint64_t)v;
        return 0;
    }
    return -1;
}

void tread_set_callbacks(tread_parser *p, const tread_callbacks *cb, void *user)
{
    tread_callbacks *to = p->in_prefix ? &p->range_cb : &p->cb;
    if (cb)
        *to = *cb;
    else
        memset(to, 0, sizeof *to);
    p->user = user;
}

/* ---- byte ranges ------------------------------------------------------ */

void tread__range_enter(tread_parser *p)
{
    if (!p->in_prefix)
        return;
    tread_stats s; /* from zero */
    tread_get_stats(p, &s);
    s.bytes_decoded = 0; /* kept in dec_offset */
    p->stats = s;
    p->in_prefix = 0;
    p->cb = p->range_cb;
}

void tread__range_stop(tread_parser *p)
{
    p->range_done = 1;
}

/* ---- reporting -------------------------------------------------------- */

void tread__emit(tread_parser *p, tread_event *ev) { (void)tread__emit_inline(p, ev); }

void tread__emit_json_raw(tread_parser *p, const tread_json_raw *raw)
{
    p->stats.records++;
    if (p->cb.json_raw && p->cb.json_raw(p->user, raw))
        p->stop_requested = 1;
}

void tread__emit_perfetto_packet(tread_parser *p, const tread_perfetto_packet *pkt)
{
    p->stats.records++;
    if (p->cb.perfetto_packet && p->cb.perfetto_packet(p->user, pkt))
        p->stop_requested = 1;
}

void tread__emit_blob(tread_parser *p, const tread_blob *b)
{
    if (p->cb.blob && p->cb.blob(p->user, b))
        p->stop_requested = 1;
}

void tread__warn(tread_parser *p, tread_warning_kind kind, uint64_t offset,
                 const char *fmt, ...)
{
    p->stats.warnings++;
    if ((unsigned)kind < TREAD_WARN_KIND_COUNT_)
        p->stats.warnings_by_kind[kind]++;
    if (!p->cb.warning)
        return;
    /* at most one per parse, and what makes sense of the rest: past the cap
     * too */
    if (p->max_warnings_reported >= 0 && kind != TREAD_WARN_FORMAT_MISMATCH &&
        p->stats.warnings > (uint64_t)p->max_warnings_reported)
        return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tread_warning w = {kind, offset, msg};
    if (p->cb.warning(p->user, &w))
        p->stop_requested = 1;
}

tread_status tread__fail(tread_parser *p, tread_error err, uint64_t offset,
                         const char *fmt, ...)
{
    if (p->state == P_ERROR)
        return TREAD_STATUS_ERROR; /* keep the first error */
    p->state = P_ERROR;
    p->err = err;
    p->err_offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err_msg, sizeof p->err_msg, fmt, ap);
    va_end(ap);
    return TREAD_STATUS_ERROR;
}

int tread_wants_input(const tread_parser *p)
{
    return p->state != P_ERROR && p->state != P_FINISHED && !p->range_done;
}

tread_error tread_get_error(const tread_parser *p) { return p->err; }
const char *tread_get_error_message(const tread_parser *p) { return p->err ? p->err_msg : ""; }
uint64_t tread_get_error_offset(const tread_parser *p) { return p->err_offset; }

void tread_get_stats(const tread_parser *p, tread_stats *out)
{
    if (p->in_prefix) { /* before TREAD_OPT_RANGE_BEGIN: nothing counts */
        memset(out, 0, sizeof *out);
        out->bytes_in = p->stats.bytes_in;
        out->format = p->stats.format;
        out->compression = p->stats.compression;
    } else {
        *out = p->stats;
    }
    /* the container's, also from a callback of one of its sub-traces */
    out->format = p->top_format;
    out->bytes_decoded = p->dec_offset;
}

size_t tread_get_format_counters(const tread_parser *p, tread_counter *out, size_t max)
{
    if (!p || !p->dec || !p->dec_ops || !p->dec_ops->counters)
        return 0;
    /* before TREAD_OPT_RANGE_BEGIN nothing counts, as in tread_get_stats:
     * a range that never began (BEGIN past the end of input) reports no
     * counters, not those of the prefix it read (a JSON trace's
     * systemTraceEvents counters) */
    if (p->in_prefix)
        return 0;
    return p->dec_ops->counters(p->dec, out, out ? max : 0);
}

/* ---- format stage ----------------------------------------------------- */

static tread_status start_decoder(tread_parser *p, tread_format f)
{
    p->format_known = 1;
    p->stats.format = f;
    p->top_format = f;
    if (f == TREAD_FORMAT_UNKNOWN) {
        if (p->sniff.len == 0)
            return tread__fail(p, TREAD_ERROR_UNKNOWN_FORMAT, 0, "empty input");
        return tread__fail(p, TREAD_ERROR_UNKNOWN_FORMAT, 0,
                           "input is not a trace format tread knows (Chrome JSON, Perfetto, "
                           "Fuchsia FXT, ftrace text, systrace HTML)");
    }
    const tread_decoder_ops *ops = tread__decoder_for(f);
    if (!ops)
        return tread__fail(p, TREAD_ERROR_UNSUPPORTED, 0,
                           "format recognised (%s), not supported yet", tread_format_name(f));
    int ranged = p->range_begin > 0 || p->range_end != UINT64_MAX;
    if (ranged && !ops->ranges)
        return tread__fail(p, TREAD_ERROR_UNSUPPORTED, 0,
                           "byte ranges (TREAD_OPT_RANGE_BEGIN, TREAD_OPT_RANGE_END) are not "
                           "supported for %s input, only for FXT and JSON",
                           tread_format_name(f));
    if (p->range_begin > 0) {
        /* nothing is reported before the range: the decoder calls
         * tread__range_enter where it begins */
        p->in_prefix = 1;
        p->range_cb = p->cb;
        memset(&p->cb, 0, sizeof p->cb);
    }
    p->dec = ops->create(p);
    if (!p->dec)
        return tread__fail(p, TREAD_ERROR_NOMEM, 0, "out of memory creating the %s decoder",
                           tread_format_name(f));
    p->dec_ops = ops;
    return TREAD_STATUS_OK;
}

static tread_status run_decoder(tread_parser *p, const unsigned char *d, size_t n,
                                size_t *consumed)
{
    *consumed = n;
    /* past the range's end the rest is the next range's: resuming must
     * not hand the decoder the sniffed bytes or the piece it stopped in
     * (fuzz_json: a gzip'd range paused in its sniffed bytes decoded on
     * past its end). A call with no bytes still lets the decoder finish
     * the record it stopped inside. */
    if (p->range_done && n)
        return TREAD_STATUS_OK;
    tread_status st = p->dec_ops->feed(p->dec, d, n, consumed);
    p->dec_offset += *consumed;
    if (st == TREAD_STATUS_ERROR)
        p->dec_offset = p->err_offset; /* independent of chunking */
    return st;
}

/* The bytes held while sniffing go to the decoder first. */
static tread_status drain_sniff(tread_parser *p)
{
    if (p->sniff_pos >= p->sniff.len)
        return TREAD_STATUS_OK;
    size_t c;
    tread_status st = run_decoder(p, p->sniff.data + p->sniff_pos, p->sniff.len - p->sniff_pos, &c);
    p->sniff_pos += c;
    return st;
}

static tread_status decide_format(tread_parser *p, int final)
{
    int need_more = 0;
    tread_format seen = tread_sniff_format(p->sniff.data, p->sniff.len, final, &need_more);
    int undecided = need_more && p->sniff.len < TREAD_SNIFF_MAX;
    if (undecided && !p->forced_format)
        return TREAD_STATUS_OK;
    tread_format f = p->forced_format ? (tread_format)p->forced_format : seen;
    if (p->forced_format) {
        /* a forced format does not wait; the sniffer's verdict may */
        if (undecided) {
            p->forced_checking = 1;
            if (tread_buf_append(&p->forced_check, p->sniff.data, p->sniff.len))
                return tread__fail(p, TREAD_ERROR_NOMEM, 0, "out of memory");
        } else {
            p->forced_seen = seen;
        }
    }
    tread_status st = start_decoder(p, f);
    if (st != TREAD_STATUS_OK)
        return st;
    return drain_sniff(p);
}

/* More first bytes for the forced format's check (decide_format). */
static tread_status check_forced(tread_parser *p, const unsigned char *d, size_t n)
{
    /* forced_check holds the decoded bytes [0, len); d starts at
     * dec_offset, and the bytes a stop left unconsumed come again after
     * tread_resume: take only those not held yet (found by fuzz_ftrace) */
    if (p->dec_offset < p->forced_check.len) {
        uint64_t held = p->forced_check.len - p->dec_offset;
        if (held >= n)
            return TREAD_STATUS_OK;
        d += held;
        n -= (size_t)held;
    }
    size_t take = TREAD_SNIFF_MAX - p->forced_check.len;
    if (take > n)
        take = n;
    if (tread_buf_append(&p->forced_check, d, take))
        return tread__fail(p, TREAD_ERROR_NOMEM, 0, "out of memory");
    int need_more = 0;
    tread_format seen = tread_sniff_format(p->forced_check.data, p->forced_check.len, 0,
                                           &need_more);
    if (!need_more || p->forced_check.len >= TREAD_SNIFF_MAX) {
        p->forced_seen = seen;
        p->forced_checking = 0;
        tread_buf_free(&p->forced_check);
    }
    return TREAD_STATUS_OK;
}

/* At the end of input: a forced format the sniffer does not see, said
 * once (a pause in finish comes back here). */
static void report_forced(tread_parser *p)
{
    if (!p->forced_format || p->forced_reported)
        return;
    p->forced_reported = 1;
    if (p->forced_checking && p->forced_check.len == 0) {
        p->forced_checking = 0; /* empty input: nothing to sniff */
        return;
    }
    if (p->forced_checking) {
        int need_more;
        p->forced_seen = tread_sniff_format(p->forced_check.data, p->forced_check.len, 1,
                                            &need_more);
        p->forced_checking = 0;
        tread_buf_free(&p->forced_check);
    }
    tread_format f = (tread_format)p->forced_format;
    if (p->forced_seen == f)
        return;
    if (p->forced_seen == TREAD_FORMAT_UNKNOWN)
        tread__warn(p, TREAD_WARN_FORMAT_MISMATCH, 0,
                    "format forced to %s, but the input does not look like any format "
                    "tread knows", tread_format_name(f));
    else
        tread__warn(p, TREAD_WARN_FORMAT_MISMATCH, 0,
                    "format forced to %s, but the input looks like %s", tread_format_name(f),
                    tread_format_name(p->forced_seen));
}

/* Decompressed bytes: sniff the format, then decode. */
static tread_status push_decoded(tread_parser *p, const unsigned char *d, size_t n,
                                 size_t *consumed)
{
    *consumed = 0;
    if (p->range_done) { /* past TREAD_OPT_RANGE_END: ignored */
        *consumed = n;
        return TREAD_STATUS_OK;
    }
    if (p->forced_checking && p->format_known) {
        tread_status st = check_forced(p, d, n);
        if (st != TREAD_STATUS_OK)
            return st;
    }
    if (!p->format_known) {
        size_t take = TREAD_SNIFF_MAX - p->sniff.len;
        if (take > n)
            take = n;
        if (tread_buf_append(&p->sniff, d, take))
            return tread__fail(p, TREAD_ERROR_NOMEM, 0, "out of memory");
        *consumed = take;
        tread_status st = decide_format(p, 0);
        if (st != TREAD_STATUS_OK || !p->format_known)
            return st;
        d += take;
        n -= take;
        if (p->range_done) { /* the range ended in the sniffed bytes */
            *consumed += n;
            return TREAD_STATUS_OK;
        }
    }
    size_t c;
    tread_status st = run_decoder(p, d, n, &c);
    *consumed += c;
    return st;
}

/* ---- compression stage ------------------------------------------------ */

/* Garbage after the last gzip member: said once, in input order. */
static void report_dz_trailing(tread_parser *p)
{
    if (p->dz_trailing_pending && !p->range_done) {
        p->dz_trailing_pending = 0;
        tread__warn(p, TREAD_WARN_TRAILING_DATA, p->dec_offset,
                    "bytes after the last gzip member were ignored");
    }
}

/* One step of a slice's expansion on the decompression thread: what the
 * inline loop below does between two deliveries. */
enum { DZJ_OK = 0, DZJ_ERROR = 1 };
static long dz_job_step(void *arg, unsigned char *out, size_t cap, int *end)
{
    struct tread_dz_job *j = arg;
    for (;;) {
        size_t used = 0, out_len = 0;
        int rc = tread_dz_run(j->dz, j->in, j->in_len, &used, out, cap, &out_len);
        if (used) {
            j->in += used;
            j->in_len -= used;
        }
        if (rc == TREAD_DZ_NOMEM)
            return -1;
        if (rc == TREAD_DZ_ERROR) {
            *end = DZJ_ERROR; /* what came out in this step is not read */
            return 0;
        }
        if (rc == TREAD_DZ_TRAILING)
            j->trailing = 1; /* nothing comes out after it */
        if (out_len)
            return (long)out_len;
        if (!j->in_len || !used) {
            *end = DZJ_OK;
            return 0;
        }
    }
}

static tread_status dz_fail(tread_parser *p)
{
    return tread__fail(p, TREAD_ERROR_DECOMPRESS, p->dz.in_used,
                       "corrupt %s data at compressed byte %llu: %s",
                       tread_compression_name(p->stats.compression),
                       (unsigned long long)p->dz.in_used, p->dz.error);
}

/* Delivers the slice that is with the thread, to its end or a pause. */
static tread_status dz_job_run(tread_parser *p)
{
    while (p->dzw_active) {
        if (p->dz_out_pos < p->dz_out_len) {
            size_t c;
            tread_status st = push_decoded(p, p->dz_piece + p->dz_out_pos,
                                           p->dz_out_len - p->dz_out_pos, &c);
            p->dz_out_pos += c;
            if (st != TREAD_STATUS_OK)
                return st;
            continue;
        }
        int end = DZJ_OK;
        long n = tread_worker_next(p->dzw, &p->dz_piece, &end);
        p->dz_out_pos = 0;
        p->dz_out_len = n > 0 ? (size_t)n : 0;
        if (n > 0)
            continue;
        p->dzw_active = 0; /* the decompressor is ours again */
        if (n < 0)
            return tread__fail(p, TREAD_ERROR_NOMEM, p->dec_offset,
                               "out of memory in the decompressor");
        if (end == DZJ_ERROR)
            return dz_fail(p);
        if (p->dzj.trailing) {
            p->dzj.trailing = 0;
            p->dz_trailing_pending = 1;
            report_dz_trailing(p);
        }
    }
    return TREAD_STATUS_OK;
}

/* Input in slices to the thread; *consumed counts a slice once it is
 * the thread's. */
static tread_status push_compressed_threaded(tread_parser *p, const unsigned char *d, size_t n,
                                             size_t *consumed)
{
    *consumed = 0;
    /* n == 0: the end of input, what the decompressor staged */
    while ((*consumed < n || (n == 0 && tread_dz_pending(&p->dz))) && !p->range_done) {
        size_t take = n - *consumed < DZ_SLICE ? n - *consumed : DZ_SLICE;
        p->dz_in.len = 0;
        if (tread_buf_append(&p->dz_in, d + *consumed, take))
            return tread__fail(p, TREAD_ERROR_NOMEM, p->dec_offset, "out of memory");
        *consumed += take;
        p->dzj.dz = &p->dz;
        p->dzj.in = take ? p->dz_in.data : (const unsigned char *)"";
        p->dzj.in_len = take;
        p->dzj.trailing = 0;
        p->dz_out_pos = p->dz_out_len = 0;
        p->dzw_active = 1;
        tread_worker_start(p->dzw, dz_job_step, &p->dzj);
        tread_status st = dz_job_run(p);
        if (st != TREAD_STATUS_OK)
            return st;
        if (n == 0)
            break;
    }
    if (p->range_done)
        *consumed = n;
    return TREAD_STATUS_OK;
}

static tread_status push_compressed(tread_parser *p, const unsigned char *d, size_t n,
                                    size_t *consumed)
{
    if (p->stats.compression == TREAD_COMPRESSION_NONE)
        return push_decoded(p, d, n, consumed);
    if (p->dzw)
        return push_compressed_threaded(p, d, n, consumed);
    *consumed = 0;
    while (!p->range_done) {
        size_t used = 0, out_len = 0;
        int rc = tread_dz_run(&p->dz, d + *consumed, n - *consumed, &used, p->dz_out,
                              DZ_OUT_SIZE, &out_len);
        *consumed += used;
        if (rc == TREAD_DZ_ERROR)
            return dz_fail(p);
        if (rc == TREAD_DZ_NOMEM)
            return tread__fail(p, TREAD_ERROR_NOMEM, p->dec_offset, "out of memory in the decompressor");
        if (rc == TREAD_DZ_TRAILING)
            p->dz_trailing_pending = 1; /* reported after the bytes before it */
        if (out_len) {
            size_t c;
            p->dz_out_len = out_len;
            tread_status st = push_decoded(p, p->dz_out, out_len, &c);
            p->dz_out_pos = c;
            if (st != TREAD_STATUS_OK)
                return st;
            p->dz_out_len = p->dz_out_pos = 0;
        }
        report_dz_trailing(p);
        if (out_len < DZ_OUT_SIZE && *consumed == n)
            break;
        if (out_len == 0 && used == 0)
            break;
    }
    if (p->range_done)
        *consumed = n;
    return TREAD_STATUS_OK;
}

static tread_status start_compression(tread_parser *p, tread_compression c)
{
    p->compression_known = 1;
    p->stats.compression = c;
    if (c == TREAD_COMPRESSION_NONE)
        return TREAD_STATUS_OK;
    p->dz_out = tread_malloc(&p->alloc, DZ_OUT_SIZE);
    if (!p->dz_out)
        return tread__fail(p, TREAD_ERROR_NOMEM, 0, "out of memory");
    p->dz_piece = p->dz_out;
    int rc = tread_dz_init(&p->dz, c, &p->alloc, p->zstd_window_log_max, p->inflate_engine);
    if (rc != TREAD_DZ_OK)
        return tread__fail(p, rc == TREAD_DZ_NOMEM ? TREAD_ERROR_NOMEM : TREAD_ERROR_DECOMPRESS, 0,
                           "cannot start the %s decoder", tread_compression_name(c));
    if (tread__may_use_thread(p)) /* none to be had: inline */
        p->dzw = tread_worker_create(&p->alloc, DZ_PIECE, DZ_PIECES);
    return TREAD_STATUS_OK;
}

/* The bytes held while sniffing the compression (at most 4). */
static tread_status drain_head(tread_parser *p)
{
    size_t c;
    tread_status st = push_compressed(p, p->head, p->head_len, &c);
    if (st == TREAD_STATUS_PAUSED &&
        tread_buf_append(&p->pending_raw, p->head + c, p->head_len - c))
        return tread__fail(p, TREAD_ERROR_NOMEM, p->dec_offset, "out of memory");
    p->head_len = 0;
    return st;
}

static tread_status push_raw(tread_parser *p, const unsigned char *d, size_t n, size_t *consumed)
{
    *consumed = 0;
    if (!p->compression_known) {
        int need_more = 0;
        tread_compression c = TREAD_COMPRESSION_NONE;
        if (p->head_len == 0 && n >= sizeof p->head) {
            if (p->decompress)
                c = tread_sniff_compression(d, n, 0, &need_more);
            tread_status st = start_compression(p, c);
            return st != TREAD_STATUS_OK ? st : push_compressed(p, d, n, consumed);
        }
        size_t take = sizeof p->head - p->head_len;
        if (take > n)
            take = n;
        memcpy(p->head + p->head_len, d, take);
        p->head_len += take;
        *consumed = take;
        if (p->decompress)
            c = tread_sniff_compression(p->head, p->head_len, 0, &need_more);
        if (need_more)
            return TREAD_STATUS_OK;
        tread_status st = start_compression(p, c);
        if (st == TREAD_STATUS_OK)
            st = drain_head(p);
        if (st != TREAD_STATUS_OK)
            return st;
        d += take;
        n -= take;
    }
    size_t c;
    tread_status st = push_compressed(p, d, n, &c);
    *consumed += c;
    return st;
}

/* ---- the public calls ------------------------------------------------- */

static tread_status check_usable(tread_parser *p, const char *what)
{
    if (p->state == P_ERROR)
        return TREAD_STATUS_ERROR;
    if (p->state == P_PAUSED)
        return tread__fail(p, TREAD_ERROR_MISUSE, p->dec_offset,
                           "%s while paused: call tread_resume first", what);
    if (p->state == P_FINISHED)
        return tread__fail(p, TREAD_ERROR_MISUSE, p->dec_offset, "%s after the end of input", what);
    return TREAD_STATUS_OK;
}

static tread_status pause_with(tread_parser *p, tread_status st)
{
    /* A stop asked for where no event boundary followed (a warning at
     * the end of the data, say) takes effect at the end of the call. */
    if (st == TREAD_STATUS_OK && p->stop_requested)
        st = TREAD_STATUS_PAUSED;
    if (st == TREAD_STATUS_PAUSED) {
        p->stop_requested = 0;
        p->state = P_PAUSED;
    }
    return st;
}

tread_status tread_feed(tread_parser *p, const void *data, size_t len)
{
    tread_status st = check_usable(p, "tread_feed");
    if (st != TREAD_STATUS_OK)
        return st;
    if (!data && len)
        return tread__fail(p, TREAD_ERROR_MISUSE, p->dec_offset, "tread_feed: NULL data");
    p->state = P_RUNNING;
    p->stats.bytes_in += len;
    if (p->range_end <= p->range_begin)
        p->range_done = 1; /* an empty range: nothing begins in it */
    if (p->range_done)
        return TREAD_STATUS_OK;
    size_t c = 0;
    st = push_raw(p, data, len, &c);
    if (st == TREAD_STATUS_PAUSED &&
        tread_buf_append(&p->pending_raw, (const unsigned char *)data + c, len - c))
        return tread__fail(p, TREAD_ERROR_NOMEM, p->dec_offset, "out of memory");
    return pause_with(p, st);
}

static tread_status finish_input(tread_parser *p)
{
    if (p->range_end <= p->range_begin)
        p->range_done = 1; /* an empty range: nothing begins in it */
    if (p->range_done) { /* the rest of the input is another range's */
        if (p->stop_requested) /* asked for as the range ended (resume) */
            return pause_with(p, TREAD_STATUS_OK);
        p->state = P_FINISHED;
        return TREAD_STATUS_OK;
    }
    p->pause_in_finish = 1;
    tread_status st;
    if (!p->compression_known) {
        int need_more;
        tread_compression c = p->decompress
                                  ? tread_sniff_compression(p->head, p->head_len, 1, &need_more)
                                  : TREAD_COMPRESSION_NONE;
        st = start_compression(p, c);
        if (st == TREAD_STATUS_OK)
            st = drain_head(p);
        if (st != TREAD_STATUS_OK)
            return pause_with(p, st);
    }
    if (p->stats.compression != TREAD_COMPRESSION_NONE && !p->dz_truncation_reported) {
        /* what the decompressor holds back (isa-l's staged input) */
        tread_dz_end_input(&p->dz);
        size_t c;
        st = push_compressed(p, (const unsigned char *)"", 0, &c);
        if (st != TREAD_STATUS_OK)
            return pause_with(p, st);
        p->dz_truncation_reported = 1;
        /* a range that ended in what was held back stopped inflating
         * there: the rest of the stream is the next range's */
        if (!p->range_done && !tread_dz_complete(&p->dz))
            tread__warn(p, TREAD_WARN_COMPRESSED_TRUNCATED, p->dec_offset,
                        "the %s stream ends early (cut off?): decoded what arrived",
                        tread_compression_name(p->stats.compression));
    }
    if (!p->format_known) {
        st = decide_format(p, 1);
        if (st != TREAD_STATUS_OK)
            return pause_with(p, st);
    }
    if (p->range_done) {
        /* the range ended in the bytes held for sniffing, or in what the
         * decompressor held back: a stop asked for on the way pauses
         * (resuming then finishes at once); fuzz_json found it lost */
        if (p->stop_requested)
            return pause_with(p, TREAD_STATUS_OK);
        p->state = P_FINISHED;
        p->pause_in_finish = 0;
        return TREAD_STATUS_OK;
    }
    st = p->dec_ops->finish(p->dec); /* idempotent once it returned OK */
    if (st == TREAD_STATUS_PAUSED)
        return pause_with(p, st);
    /* The warning belongs to the end of input: a byte range says it only
     * when it holds the end, as the decoder's finish left it: not before
     * its beginning, nor past its end (a JSON range ends at the end of
     * input when the next holds it; an FXT range still before its
     * beginning there ends too). fuzz_fxt found both ranges saying it;
     * fuzz_json the first of two saying it before the second's warnings. */
    if (p->in_prefix || p->range_done)
        p->forced_reported = 1;
    /* after the decoder's last callbacks: how much of the input a stop
     * left for finish to decode must not move the warning among them
     * (found by fuzz_systrace) */
    report_forced(p);
    if (st == TREAD_STATUS_OK && p->stop_requested)
        return pause_with(p, st); /* resuming finishes without callbacks */
    if (st == TREAD_STATUS_OK)
        p->state = P_FINISHED;
    p->pause_in_finish = 0;
    return st;
}

tread_status tread_finish(tread_parser *p)
{
    tread_status st = check_usable(p, "tread_finish");
    if (st != TREAD_STATUS_OK)
        return st;
    p->state = P_RUNNING;
    return finish_input(p);
}

tread_status tread_resume(tread_parser *p)
{
    if (p->state == P_ERROR)
        return TREAD_STATUS_ERROR;
    if (p->state != P_PAUSED)
        return tread__fail(p, TREAD_ERROR_MISUSE, p->dec_offset, "tread_resume: the parser is not paused");
    p->state = P_RUNNING;
    size_t c;
    tread_status st = TREAD_STATUS_OK;
    if (p->format_known) {
        /* lets the decoder finish a record it stopped inside */
        st = run_decoder(p, NULL, 0, &c);
        if (st == TREAD_STATUS_OK)
            st = drain_sniff(p);
        if (st == TREAD_STATUS_OK && p->dzw_active) {
            st = dz_job_run(p); /* the rest of the thread's slice */
        } else if (st == TREAD_STATUS_OK && p->dz_out_pos < p->dz_out_len) {
            st = run_decoder(p, p->dz_piece + p->dz_out_pos, p->dz_out_len - p->dz_out_pos, &c);
            p->dz_out_pos += c;
        }
    }
    if (st != TREAD_STATUS_OK)
        return pause_with(p, st);
    p->dz_out_pos = p->dz_out_len = 0;
    report_dz_trailing(p);
    if (p->pending_raw_pos < p->pending_raw.len) {
        /* push_raw may pause again and append to pending_raw: work on a
         * private copy of the position */
        size_t start = p->pending_raw_pos, len = p->pending_raw.len;
        st = push_raw(p, p->pending_raw.data + start, len - start, &c);
        p->pending_raw_pos = start + c;
        if (st != TREAD_STATUS_OK)
            return pause_with(p, st);
    }
    p->pending_raw.len = p->pending_raw_pos = 0;
    if (p->pause_in_finish)
        return finish_input(p);
    if (p->stop_requested)
        return pause_with(p, TREAD_STATUS_OK);
    if (p->src_fd >= 0)
        return tread__read_fd_loop(p);
    return TREAD_STATUS_OK;
}
