#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createDStream_advanced: allocator hooks */
#include "core/decompress.h"

#include <string.h>

static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
    if (size && items > (uInt)-1 / size)
        return Z_NULL;
    return tread_malloc((const tread_alloc *)opaque, (size_t)items * size);
}

static void z_free(voidpf opaque, voidpf ptr) { tread_free((const tread_alloc *)opaque, ptr); }

static void *zs_alloc(void *opaque, size_t size) { return tread_malloc((const tread_alloc *)opaque, size); }
static void zs_free(void *opaque, void *ptr) { tread_free((const tread_alloc *)opaque, ptr); }

int tread_dz_init(tread_decompressor *d, tread_compression kind,
                  const tread_alloc *a, int zstd_window_log_max)
{
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->a = a;
    if (kind == TREAD_COMPRESSION_GZIP) {
        d->z.zalloc = z_alloc;
        d->z.zfree = z_free;
        d->z.opaque = (voidpf)a;
        if (inflateInit2(&d->z, 15 + 16) != Z_OK)
            return TREAD_DZ_NOMEM;
        d->z_live = 1;
    } else if (kind == TREAD_COMPRESSION_ZSTD) {
        ZSTD_customMem mem = {zs_alloc, zs_free, (void *)a};
        d->zs = ZSTD_createDStream_advanced(mem);
        if (!d->zs)
            return TREAD_DZ_NOMEM;
        ZSTD_initDStream(d->zs);
        if (ZSTD_isError(ZSTD_DCtx_setParameter(d->zs, ZSTD_d_windowLogMax, zstd_window_log_max)))
            return TREAD_DZ_ERROR;
    }
    return TREAD_DZ_OK;
}

void tread_dz_free(tread_decompressor *d)
{
    if (d->z_live)
        inflateEnd(&d->z);
    d->z_live = 0;
    if (d->zs)
        ZSTD_freeDStream(d->zs);
    d->zs = NULL;
}

static int run_gzip(tread_decompressor *d, const unsigned char *in, size_t in_len,
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
            inflateReset(&d->z);
            d->member_done = 0;
        }
        /* zlib counts in uInt: feed at most 1 GiB at a time */
        size_t avail = in_len - *in_used;
        if (avail > (1u << 30)) avail = 1u << 30;
        size_t room = out_cap - *out_len;
        if (room > (1u << 30)) room = 1u << 30;
        d->z.next_in = (Bytef *)(in + *in_used);
        d->z.avail_in = (uInt)avail;
        d->z.next_out = out + *out_len;
        d->z.avail_out = (uInt)room;
        int zr = inflate(&d->z, Z_NO_FLUSH);
        size_t used = avail - d->z.avail_in;
        *in_used += used;
        d->in_used += used;
        *out_len += room - d->z.avail_out;
        if (zr == Z_STREAM_END) {
            d->member_done = 1;
            continue;
        }
        if (zr == Z_BUF_ERROR || (zr == Z_OK && used == 0 && d->z.avail_out == room))
            break; /* needs more input */
        if (zr != Z_OK) {
            d->error = d->z.msg ? d->z.msg : "corrupt gzip data";
            return zr == Z_MEM_ERROR ? TREAD_DZ_NOMEM : TREAD_DZ_ERROR;
        }
        if (*in_used == in_len && d->z.avail_out != 0)
            break;
    }
    return rc;
}

static int run_zstd(tread_decompressor *d, const unsigned char *in, size_t in_len,
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

int tread_dz_run(tread_decompressor *d, const unsigned char *in, size_t in_len,
                 size_t *in_used, unsigned char *out, size_t out_cap, size_t *out_len)
{
    if (d->kind == TREAD_COMPRESSION_GZIP)
        return run_gzip(d, in, in_len, in_used, out, out_cap, out_len);
    return run_zstd(d, in, in_len, in_used, out, out_cap, out_len);
}

int tread_dz_complete(const tread_decompressor *d)
{
    if (d->kind == TREAD_COMPRESSION_GZIP)
        return d->member_done || d->skipping;
    return !d->frame_open;
}
