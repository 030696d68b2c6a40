/*
 * Deflate data inflated by isa-l (when configure found it) or by zlib (the
 * fallback, and the oracle the tests and fuzzers compare isa-l with;
 * TREAD_OPT_INFLATE chooses). Two wrappings: a gzip member, header and
 * trailer checked (decompress.c loops over the members), and raw deflate
 * whose Adler-32 the caller checks (Perfetto's compressed packets, whose
 * zlib wrapper pf_expand.c reads).
 */
#ifndef TREAD_CORE_INFLATE_H
#define TREAD_CORE_INFLATE_H

#include <stdint.h>
#include <zlib.h>
#include "core/alloc.h"

enum { TREAD_INFLATE_ZLIB = 0, TREAD_INFLATE_ISAL = 1 };

/* isa-l when tread was built with it, else zlib. */
int tread_inflate_default_engine(void);
/* 1 when engine can be had in this build. */
int tread_inflate_engine_built(int engine);

struct inflate_state; /* isa-l's */

typedef struct tread_inflater {
    int engine;
    int gzip;                 /* 1: a gzip member; 0: raw deflate */
    const tread_alloc *a;
    z_stream z;
    int z_live;
    struct inflate_state *is; /* isa-l's state (~85 KiB, its window inside) */
    unsigned char tail[8];    /* isa-l, gzip: the last bytes taken, the
                                 trailer when its check fails */
    unsigned tail_len;
    /* isa-l, gzip: the member's header, read here as zlib reads it */
    int hstate;
    unsigned hflags, hleft;
    uint32_t hcrc;
    unsigned char hbuf[2];
    uint64_t taken;           /* bytes taken since the start or reset */
    const char *error;        /* after TREAD_INF_ERROR */
    uint64_t error_back;      /* the error lies this many bytes before the
                                 end of what was taken (isa-l reads ahead) */
} tread_inflater;

enum { TREAD_INF_OK = 0, TREAD_INF_END = 1, TREAD_INF_ERROR = -1, TREAD_INF_NOMEM = -2 };

int tread_inflate_init(tread_inflater *f, const tread_alloc *a, int engine, int gzip);
/* For the next gzip member (after TREAD_INF_END). */
void tread_inflate_reset(tread_inflater *f);
void tread_inflate_free(tread_inflater *f);

/* Inflates from in[0..in_len) into out[0..out_cap): sets *in_used and
 * *out_len. TREAD_INF_END: the stream (gzip: its trailer too, checked)
 * has ended; *in_used then stops at its end, except that isa-l may have
 * taken up to tread_inflate_unread() bytes of raw deflate's followers.
 * TREAD_INF_OK: more input or more room is needed. TREAD_INF_ERROR:
 * f->error says why; what came out in this call is not to be used. */
int tread_inflate_run(tread_inflater *f, const unsigned char *in, size_t in_len,
                      size_t *in_used, unsigned char *out, size_t out_cap, size_t *out_len);

/* Raw deflate after TREAD_INF_END: bytes taken past the stream's end (in
 * this call or earlier ones) that the caller gives back. */
size_t tread_inflate_unread(const tread_inflater *f);

/* Raw deflate: 1 when the engine computed the Adler-32 of the output
 * (isa-l), available after TREAD_INF_END as tread_inflate_adler32(). */
int tread_inflate_has_adler32(const tread_inflater *f);
uint32_t tread_inflate_adler32(const tread_inflater *f);

#endif
