/* The byte window the header and data states read through. Fed as a
 * stream, it holds what was fed from the oldest offset still needed
 * (td_decoder.c drops the rest and fills it); reading a file, it is a
 * pread of what is asked (and some read-ahead). Compressed v7 blocks are
 * expanded here. */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createDCtx_advanced: allocator hooks */
#include <errno.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "tracedat/td_dec.h"

/* zstd's and zlib's memory comes from the parser's allocator, as in
 * lib/core/decompress.c; both contexts live as long as the decoder. */
static void *zs_alloc(void *opaque, size_t size) { return tread_malloc((const tread_alloc *)opaque, size); }
static void zs_free(void *opaque, void *ptr) { tread_free((const tread_alloc *)opaque, ptr); }
static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
    if (size && items > (uInt)-1 / size)
        return Z_NULL;
    return tread_malloc((const tread_alloc *)opaque, (size_t)items * size);
}
static void z_free(voidpf opaque, voidpf ptr) { tread_free((const tread_alloc *)opaque, ptr); }

void td_expand_free(td_dec *d)
{
    if (d->zctx)
        ZSTD_freeDCtx(d->zctx);
    d->zctx = NULL;
    if (d->zs) {
        inflateEnd(d->zs);
        tread_free(&d->p->alloc, d->zs);
    }
    d->zs = NULL;
}

#define READ_AHEAD (64u * 1024u)

int td_pread(td_dec *d, uint64_t off, void *out, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(d->fd, (unsigned char *)out + got, n - got,
                          (off_t)(d->base + (int64_t)(off + got)));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

const unsigned char *td_need(td_dec *d, uint64_t off, size_t n)
{
    if (off >= d->win_off && off - d->win_off <= d->win.len &&
        n <= d->win.len - (off - d->win_off))
        return d->win.data + (off - d->win_off);
    if (!d->file) {
        d->want_off = off;
        d->want_end = off + n;
        return NULL;
    }
    if (off > d->file_size || n > d->file_size - off)
        return NULL;
    size_t rd = n < READ_AHEAD ? READ_AHEAD : n;
    if (rd > d->file_size - off)
        rd = (size_t)(d->file_size - off);
    d->win.len = 0;
    if (tread_buf_reserve(&d->win, rd) != 0)
        return NULL;
    if (td_pread(d, off, d->win.data, rd) != 0)
        return NULL;
    d->win.len = rd;
    d->win_off = off;
    return d->win.data;
}

const unsigned char *td_need_str(td_dec *d, uint64_t off, size_t max, size_t *len, int *bad)
{
    *bad = 0;
    for (size_t n = 16;; n *= 2) {
        if (n > max)
            n = max;
        const unsigned char *s = td_need(d, off, n);
        if (!s) {
            /* fewer bytes may be left in the window or the file */
            size_t have = 0;
            if (off >= d->win_off && off - d->win_off < d->win.len)
                have = d->win.len - (size_t)(off - d->win_off);
            if (!d->file && have) {
                const unsigned char *z = memchr(d->win.data + (off - d->win_off), 0, have);
                if (z) {
                    *len = (size_t)(z - (d->win.data + (off - d->win_off)));
                    return d->win.data + (off - d->win_off);
                }
                if (have >= max) {
                    *bad = 1;
                    return NULL;
                }
                d->want_off = off;
                d->want_end = off + have + 1;
            }
            if (d->file && off < d->file_size && d->file_size - off < n) {
                s = td_need(d, off, (size_t)(d->file_size - off));
                if (s) {
                    const unsigned char *z = memchr(s, 0, (size_t)(d->file_size - off));
                    if (z) {
                        *len = (size_t)(z - s);
                        return s;
                    }
                }
            }
            return NULL;
        }
        const unsigned char *z = memchr(s, 0, n);
        if (z) {
            *len = (size_t)(z - s);
            return s;
        }
        if (n == max) {
            *bad = 1;
            return NULL;
        }
    }
}

int td_expand(td_dec *d, const unsigned char *in, size_t len, unsigned char *out, size_t usize)
{
    if (d->comp == TD_COMP_ZSTD) {
        if (!d->zctx) {
            ZSTD_customMem mem = {zs_alloc, zs_free, (void *)&d->p->alloc};
            if (!(d->zctx = ZSTD_createDCtx_advanced(mem)))
                return -1;
        }
        size_t r = ZSTD_decompressDCtx(d->zctx, out, usize, in, len);
        return ZSTD_isError(r) || r != usize ? -1 : 0;
    }
    if (d->comp == TD_COMP_ZLIB) {
        z_stream *z = d->zs;
        if (!z) {
            if (!(z = tread_malloc(&d->p->alloc, sizeof *z)))
                return -1;
            memset(z, 0, sizeof *z);
            z->zalloc = z_alloc;
            z->zfree = z_free;
            z->opaque = (voidpf)&d->p->alloc;
            if (inflateInit(z) != Z_OK) {
                tread_free(&d->p->alloc, z);
                return -1;
            }
            d->zs = z;
        } else if (inflateReset(z) != Z_OK) {
            return -1;
        }
        if (len > UINT_MAX || usize > UINT_MAX)
            return -1;
        z->next_in = (Bytef *)(uintptr_t)in;
        z->avail_in = (uInt)len;
        z->next_out = out;
        z->avail_out = (uInt)usize;
        int r = inflate(z, Z_FINISH);
        return r != Z_STREAM_END || z->total_out != usize ? -1 : 0;
    }
    return -1;
}
