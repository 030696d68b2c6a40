/*
 * Compressed packets expanded as a stream (pf_expand.c), inline or on a
 * worker thread: pf_decoder.c owns the state (pf_zstate) and frames what
 * comes out.
 */
#ifndef TREAD_PERFETTO_PF_EXPAND_H
#define TREAD_PERFETTO_PF_EXPAND_H

#include "core/parser.h"
#include "core/worker.h"

#define PF_ZOUT_CHUNK 65536         /* decompressed bytes per step */

/* One compressed packet's stream (pf_expand.c), stepped by the decoder or
 * by its worker thread, which then owns it. */
typedef struct pf_zjob {
    int kind;                  /* 1 zlib (compressed_packets), 2 zstd */
    int done;                  /* zlib: stream end seen, adler32 matched */
    int stop;                  /* zlib: wrapper damaged or cut: inflate no more */
    int bad;                   /* the data does not decompress */
    uint32_t adler;            /* zlib: adler32 of what came out */
    tread_inflater inf;        /* raw deflate: pf_expand.c reads the wrapper */
    tread_decompressor dz;
    const unsigned char *in;
    size_t in_len;
} pf_zjob;

/* How an expansion ended (pf_z_next). */
enum { PF_ZEND_OK = 0, PF_ZEND_BAD, PF_ZEND_CUT, PF_ZEND_TRAILING };

/* The expansion of the current compressed packet. */
typedef struct pf_zstate {
    int z_active;
    int z_threaded;            /* this expansion runs on zw */
    pf_zjob zj;                /* zw's while z_threaded */
    tread_worker *zw;          /* the expanding thread, made at first use */
    int zw_failed;             /* no thread could be had: expand inline */
    tread_buf z_copy;          /* the compressed bytes, zw's own copy */
    uint64_t z_total;          /* bytes expanded from this packet */
    uint64_t z_off;            /* offset of the compressed packet */
    unsigned char *z_out;      /* inline: the one piece */
    const unsigned char *z_piece; /* the piece being framed */
    size_t z_out_len, z_out_pos;
} pf_zstate;

/* A compressed packet's expansion. pf_z_start: 0, or -1
 * after tread__fail. pf_z_next: the next piece's length (> 0) with *out,
 * 0 at the end with *end (PF_ZEND_*), -1 out of memory; the piece stays
 * valid until the next call. pf_z_end ends an expansion (early or not);
 * pf_z_free also frees the thread and buffers. */
int pf_z_start(pf_zstate *z, tread_parser *p, int zstd, const unsigned char *in, size_t len,
               uint64_t off);
long pf_z_next(pf_zstate *z, const unsigned char **out, int *end);
void pf_z_end(pf_zstate *z);
void pf_z_free(pf_zstate *z, const tread_alloc *a);

#endif
