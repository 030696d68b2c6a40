/*
 * Expanding compressed_packets (zlib-wrapped deflate) and
 * zstd_compressed_packets, a piece at a time, for pf_decoder.c's inner
 * framer.
 *
 * The steps run on a worker thread (core/worker.h) when the parser allows
 * it (TREAD_OPT_DECOMPRESS_THREAD): inflating a piece then overlaps with
 * decoding the one before, and the worker reads its own copy of the
 * compressed bytes, so a stop never leaves it reading the caller's
 * memory. Otherwise the decoder runs the same step itself. The pieces,
 * and so the events, warnings and errors, are the same either way.
 *
 * The zlib wrapper is read here and the deflate data inflated raw (by
 * isa-l, or zlib: core/inflate.h): zlib's own check of the adler32
 * trailer ran a byte loop over the whole output (~9% of expanding); isa-l
 * sums it as it inflates. Header and trailer are judged as zlib's
 * inflate() judges them (test_perfetto checks each way they can be
 * damaged, with both engines).
 */
#include "perfetto/pf_expand.h"
#include "perfetto/pf_adler32.h"

#include <string.h>

/* Pieces of PF_ZOUT_CHUNK in the worker's ring. Measured on 100 MB of the
 * deflate SDK trace: 64 KiB x 4 pieces 1.11 s, x 8 the same; 128, 256
 * and 512 KiB pieces 1.15-1.38 s (less overlap, more cache misses). */
#define PF_ZPIECES 4

enum { PF_Z_BAD = 1, PF_Z_CUT = 2 };

/* The 2-byte header: its length, else PF_Z_CUT or PF_Z_BAD (as negative). */
static int zlib_header(const unsigned char *in, size_t len)
{
    if (len < 2)
        return -PF_Z_CUT;
    unsigned cmf = in[0], flg = in[1];
    if ((cmf * 256 + flg) % 31 || (cmf & 15) != Z_DEFLATED || (cmf >> 4) + 8 > 15)
        return -PF_Z_BAD;
    if (flg & 0x20) /* a preset dictionary: zlib asks for it once its id is read */
        return len - 2 >= 4 ? -PF_Z_BAD : -PF_Z_CUT;
    return 2;
}

/* One step (tread_worker_step): touches only the job. */
static long zjob_step(void *arg, unsigned char *out, size_t cap, int *end)
{
    pf_zjob *j = arg;
    size_t out_len = 0, used = 0;
    if (j->bad) {
        /* what came out before the damage was delivered */
    } else if (j->kind == 2) {
        int rc = tread_dz_run(&j->dz, j->in, j->in_len, &used, out, cap, &out_len);
        if (rc == TREAD_DZ_NOMEM)
            return -1;
        if (rc == TREAD_DZ_ERROR)
            j->bad = 1;
    } else if (j->done) {
        /* the stream and its trailer are read */
    } else if (j->stop) {
        j->bad = j->stop == PF_Z_BAD; /* nothing more comes out */
    } else {
        int rc = tread_inflate_run(&j->inf, j->in, j->in_len, &used, out, cap, &out_len);
        if (!tread_inflate_has_adler32(&j->inf))
            j->adler = pf_adler32(j->adler, out, out_len);
        if (rc == TREAD_INF_END) {
            /* isa-l may have taken some of the trailer: given back */
            size_t back = tread_inflate_unread(&j->inf);
            j->in += used, j->in_len -= used;
            j->in -= back, j->in_len += back;
            used = 0;
            if (tread_inflate_has_adler32(&j->inf))
                j->adler = tread_inflate_adler32(&j->inf);
            /* the adler32 trailer, big-endian */
            const unsigned char *t = j->in;
            if (j->in_len < 4) {
                j->stop = PF_Z_CUT;
            } else {
                uint32_t want = (uint32_t)t[0] << 24 | (uint32_t)t[1] << 16 |
                                (uint32_t)t[2] << 8 | t[3];
                used += 4;
                if (want == j->adler)
                    j->done = 1;
                else
                    j->stop = PF_Z_BAD;
            }
        } else if (rc == TREAD_INF_NOMEM) {
            return -1;
        } else if (rc == TREAD_INF_ERROR) {
            j->bad = 1;
        }
    }
    if (used) { /* (in is NULL for an empty packet's copy) */
        j->in += used;
        j->in_len -= used;
    }
    if (out_len)
        return (long)out_len;
    if (j->bad)
        *end = PF_ZEND_BAD;
    else if (j->kind == 2 ? !tread_dz_complete(&j->dz) : !j->done)
        *end = PF_ZEND_CUT;
    else if (j->kind == 1 && j->in_len)
        *end = PF_ZEND_TRAILING;
    else
        *end = PF_ZEND_OK;
    return 0;
}

/* Whether this expansion may run on a thread, and the thread if so. */
static int use_worker(pf_zstate *z, tread_parser *p)
{
    if (!tread__may_use_thread(p) || z->zw_failed)
        return 0;
    if (!z->zw) {
        z->zw = tread_worker_create(&p->alloc, PF_ZOUT_CHUNK, PF_ZPIECES);
        if (!z->zw) {
            z->zw_failed = 1; /* expanded inline from now on */
            return 0;
        }
    }
    return 1;
}

int pf_z_start(pf_zstate *z, tread_parser *p, int zstd, const unsigned char *in, size_t len,
               uint64_t off)
{
    pf_zjob *j = &z->zj;
    int threaded = use_worker(z, p);
    if (threaded) {
        z->z_copy.len = 0;
        if (tread_buf_append(&z->z_copy, in, len)) {
            tread__fail(p, TREAD_ERROR_NOMEM, off, "out of memory");
            return -1;
        }
        in = z->z_copy.data;
    } else if (!z->z_out) {
        z->z_out = tread_malloc(&p->alloc, PF_ZOUT_CHUNK);
        if (!z->z_out) {
            tread__fail(p, TREAD_ERROR_NOMEM, off, "out of memory");
            return -1;
        }
    }
    memset(j, 0, sizeof *j);
    if (zstd) {
        if (tread_dz_init(&j->dz, TREAD_COMPRESSION_ZSTD, &p->alloc, p->zstd_window_log_max,
                          p->inflate_engine)) {
            tread__fail(p, TREAD_ERROR_NOMEM, off, "out of memory in the decompressor");
            return -1;
        }
        tread_dz_whole_input(&j->dz);
    } else {
        if (tread_inflate_init(&j->inf, &p->alloc, p->inflate_engine, 0) != TREAD_INF_OK) {
            tread_inflate_free(&j->inf);
            tread__fail(p, TREAD_ERROR_NOMEM, off, "out of memory in the decompressor");
            return -1;
        }
        int h = zlib_header(in, len);
        j->stop = h < 0 ? -h : 0;
        j->adler = 1;
        if (h > 0)
            in += h, len -= (size_t)h;
    }
    j->kind = zstd ? 2 : 1;
    j->in = in;
    j->in_len = len;
    z->z_active = 1;
    z->z_threaded = threaded;
    z->z_total = 0;
    z->z_off = off;
    z->z_piece = NULL;
    z->z_out_len = z->z_out_pos = 0;
    if (threaded)
        tread_worker_start(z->zw, zjob_step, j);
    return 0;
}

long pf_z_next(pf_zstate *z, const unsigned char **out, int *end)
{
    if (z->z_threaded)
        return tread_worker_next(z->zw, out, end);
    *out = z->z_out;
    return zjob_step(&z->zj, z->z_out, PF_ZOUT_CHUNK, end);
}

void pf_z_end(pf_zstate *z)
{
    if (!z->z_active)
        return;
    if (z->z_threaded)
        tread_worker_stop(z->zw); /* the job is ours again */
    if (z->zj.kind == 2)
        tread_dz_free(&z->zj.dz);
    else if (z->zj.kind == 1)
        tread_inflate_free(&z->zj.inf);
    z->zj.kind = 0;
    z->z_active = 0;
    z->z_threaded = 0;
    z->z_piece = NULL;
}

void pf_z_free(pf_zstate *z, const tread_alloc *a)
{
    pf_z_end(z);
    tread_worker_free(z->zw);
    z->zw = NULL;
    tread_buf_free(&z->z_copy);
    tread_free(a, z->z_out);
    z->z_out = NULL;
}
