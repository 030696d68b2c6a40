#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createDStream_advanced: allocator hooks */
#include "core/decompress.h"

#include <string.h>

static void *zs_alloc(void *opaque, size_t size) { return tread_malloc((const tread_alloc *)opaque, size); }
static void zs_free(void *opaque, void *ptr) { tread_free((const tread_alloc *)opaque, ptr); }

int tread_dz_init(tread_decompressor *d, tread_compression kind,
                  const tread_alloc *a, int zstd_window_log_max, int engine)
{
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->a = a;
    if (kind == TREAD_COMPRESSION_GZIP) {
        if (tread_inflate_init(&d->inf, a, engine, 1) != TREAD_INF_OK) {
            tread_inflate_free(&d->inf);
            return TREAD_DZ_NOMEM;
        }
        d->inf_live = 1;
        if (engine == TREAD_INFLATE_ISAL) {
            d->stage = tread_malloc(a, TREAD_DZ_STAGE);
            if (!d->stage)
                return TREAD_DZ_NOMEM;
        }
    } else if (kind == TREAD_COMPRESSION_ZSTD) {
        ZSTD_customMem mem = {zs_alloc, zs_free, (void *)a};
        d->zs = ZSTD_createDStream_advanced(mem);
        if (!d->zs)
            return TREAD_DZ_NOMEM;
        ZSTD_initDStream(d->zs);
        if (ZSTD_isError(ZSTD_DCtx_setParameter(d->zs, ZSTD_d_windowLogMax, zstd_window_log_max)))
            return TREAD_DZ_ERROR;
        /* zstd streams a raw block out as its bytes come and checks a
         * compressed one whole: with the input cut elsewhere, a corrupt
         * frame gave other bytes before its error (fuzz_split_perfetto).
         * Staged like isa-l's, it sees the same pieces however fed. */
        d->stage = tread_malloc(a, TREAD_DZ_STAGE);
        if (!d->stage)
            return TREAD_DZ_NOMEM;
    }
    return TREAD_DZ_OK;
}

void tread_dz_free(tread_decompressor *d)
{
    if (d->inf_live)
        tread_inflate_free(&d->inf);
    d->inf_live = 0;
    tread_free(d->a, d->stage);
    d->stage = NULL;
    if (d->zs)
        ZSTD_freeDStream(d->zs);
    d->zs = NULL;
}

static int gzip_step(tread_decompressor *d, const unsigned char *in, size_t in_len,
                    size_t *in_used, unsigned char *out, size_t out_cap, size_t *out_len)
{
    int rc = TREAD_DZ_OK;
    *in_used = 0;
    *out_len = 0;
    if (d->skipping) {
        *in_used = in_len;
        return TREAD_DZ_OK;
    }
    while (*out_len < out_cap) {
        if (d->member_done) {
            if (*in_used == in_len)
                break;
            if (in[*in_used] != 0x1f) {
                /* Not another member: ignore the rest, as gzip(1) does. */
                d->skipping = 1;
                *in_used = in_len;
                return TREAD_DZ_TRAILING;
            }
            tread_inflate_reset(&d->inf);
            d->member_done = 0;
        }
        size_t used = 0, made = 0;
        int ir = tread_inflate_run(&d->inf, in + *in_used, in_len - *in_used, &used,
                                   out + *out_len, out_cap - *out_len, &made);
        *in_used += used;
        d->in_used += used;
        *out_len += made;
        if (ir == TREAD_INF_END) {
            d->member_done = 1;
            continue;
        }
        if (ir == TREAD_INF_NOMEM)
            return TREAD_DZ_NOMEM;
        if (ir == TREAD_INF_ERROR) {
            /* the offset of the error, not of what isa-l read ahead */
            d->in_used -= d->inf.error_back;
            d->error = d->inf.error;
            return TREAD_DZ_ERROR;
        }
        if (used == 0 && made == 0)
            break; /* needs more input */
        if (*in_used == in_len && *out_len < out_cap)
            break;
    }
    return rc;
}

/* isa-l leaves the last symbol before a cut undecoded when it was read
 * with more input behind it: where a cut stream ends would depend on how
 * the input was chunked. Staged, isa-l sees the same pieces (TREAD_DZ_STAGE
 * bytes at fixed offsets of the stream, the last one at the end of input)
 * however the caller chunks it, and decodes the same. A step that stops
 * for room may leave output in the decoder with the stage used up: at the
 * end of input it is stepped once more without input, or what it holds
 * would be lost, how much depending on the caller's buffer (fuzz_pipeline:
 * a cut gzip stream gave 196,617 bytes inline and 196,608 on the
 * decompression thread, three of its 64 KiB pieces). */
typedef int (*dz_step)(tread_decompressor *d, const unsigned char *in, size_t in_len,
                       size_t *in_used, unsigned char *out, size_t out_cap, size_t *out_len);

static int run_staged(tread_decompressor *d, dz_step step, const unsigned char *in,
                      size_t in_len, size_t *in_used, unsigned char *out, size_t out_cap,
                      size_t *out_len)
{
    int rc = TREAD_DZ_OK;
    *in_used = 0;
    *out_len = 0;
    for (;;) {
        if (d->skipping) { /* garbage after the last member: not staged */
            d->stage_pos = d->stage_len = 0;
            *in_used = in_len;
            return rc;
        }
        if ((d->stage_pos < d->stage_len && (d->stage_len == TREAD_DZ_STAGE || d->input_ended)) ||
            (d->input_ended && d->out_full)) {
            size_t used = 0, made = 0, room = out_cap - *out_len;
            int r = step(d, d->stage + d->stage_pos, d->stage_len - d->stage_pos, &used,
                         out + *out_len, room, &made);
            d->stage_pos += used;
            *out_len += made;
            d->out_full = made == room && room > 0;
            if (r == TREAD_DZ_ERROR || r == TREAD_DZ_NOMEM)
                return r;
            if (r == TREAD_DZ_TRAILING)
                rc = r;
            if (*out_len == out_cap || (!used && !made))
                return rc; /* room needed, or isa-l wants more than is staged */
            continue;
        }
        if (d->stage_pos == d->stage_len)
            d->stage_pos = d->stage_len = 0;
        if (*in_used == in_len || d->stage_len == TREAD_DZ_STAGE)
            return rc;
        size_t take = in_len - *in_used;
        if (take > TREAD_DZ_STAGE - d->stage_len)
            take = TREAD_DZ_STAGE - d->stage_len;
        memcpy(d->stage + d->stage_len, in + *in_used, take);
        d->stage_len += take;
        *in_used += take;
    }
}

static int run_gzip(tread_decompressor *d, const unsigned char *in, size_t in_len,
                    size_t *in_used, unsigned char *out, size_t out_cap, size_t *out_len)
{
    if (d->stage)
        return run_staged(d, gzip_step, in, in_len, in_used, out, out_cap, out_len);
    return gzip_step(d, in, in_len, in_used, out, out_cap, out_len);
}

static int zstd_step(tread_decompressor *d, const unsigned char *in, size_t in_len,
                     size_t *in_used, unsigned char *out, size_t out_cap, size_t *out_len)
{
    ZSTD_inBuffer ib = {in, in_len, 0};
    ZSTD_outBuffer ob = {out, out_cap, 0};
    while (ob.pos < ob.size) {
        size_t before_in = ib.pos, before_out = ob.pos;
        size_t r = ZSTD_decompressStream(d->zs, &ob, &ib);
        if (ZSTD_isError(r)) {
            d->error = ZSTD_getErrorName(r);
            *in_used = ib.pos;
            d->in_used += ib.pos;
            *out_len = ob.pos;
            return ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation ? TREAD_DZ_NOMEM : TREAD_DZ_ERROR;
        }
        if (ib.pos > before_in)
            d->frame_open = 1;
        if (r == 0)
            d->frame_open = 0;
        if (ib.pos == before_in && ob.pos == before_out)
            break;
        if (ib.pos == ib.size && ob.pos < ob.size)
            break;
    }
    *in_used = ib.pos;
    d->in_used += ib.pos;
    *out_len = ob.pos;
    return TREAD_DZ_OK;
}

static int run_zstd(tread_decompressor *d, const unsigned char *in, size_t in_len,
                    size_t *in_used, unsigned char *out, size_t out_cap, size_t *out_len)
{
    if (d->stage)
        return run_staged(d, zstd_step, in, in_len, in_used, out, out_cap, out_len);
    return zstd_step(d, in, in_len, in_used, out, out_cap, out_len);
}

void tread_dz_whole_input(tread_decompressor *d)
{
    tread_free(d->a, d->stage);
    d->stage = NULL;
    d->stage_pos = d->stage_len = 0;
}

int tread_dz_run(tread_decompressor *d, const unsigned char *in, size_t in_len,
                 size_t *in_used, unsigned char *out, size_t out_cap, size_t *out_len)
{
    if (d->kind == TREAD_COMPRESSION_GZIP)
        return run_gzip(d, in, in_len, in_used, out, out_cap, out_len);
    return run_zstd(d, in, in_len, in_used, out, out_cap, out_len);
}

void tread_dz_end_input(tread_decompressor *d)
{
    d->input_ended = 1;
}

int tread_dz_pending(const tread_decompressor *d)
{
    return (d->stage_pos < d->stage_len || (d->input_ended && d->out_full)) && !d->skipping;
}

int tread_dz_complete(const tread_decompressor *d)
{
    if (d->kind == TREAD_COMPRESSION_GZIP)
        return d->member_done || d->skipping;
    return !d->frame_open;
}
