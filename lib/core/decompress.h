/* Streaming gzip (several members; inflate.c: isa-l or zlib) and zstd
 * (several frames) decoding. */
#ifndef TREAD_CORE_DECOMPRESS_H
#define TREAD_CORE_DECOMPRESS_H

#include <tread.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "core/alloc.h"
#include "core/inflate.h"

typedef struct tread_decompressor {
    tread_compression kind;
    const tread_alloc *a;
    tread_inflater inf;
    int inf_live;        /* tread_inflate_init done */
    int member_done;     /* gzip: between members */
    int skipping;        /* garbage after the last member: ignored */
    ZSTD_DStream *zs;
    int frame_open;      /* zstd: inside a frame */
    unsigned char *stage; /* isa-l, zstd: input staged (run_staged in decompress.c) */
    size_t stage_len, stage_pos;
    int input_ended;     /* tread_dz_end_input: the last stage is complete */
    int out_full;        /* the last step stopped for room: the decoder may
                            hold output though the stage is used up */
    uint64_t in_used;    /* compressed bytes consumed, for error offsets */
    const char *error;   /* message after TREAD_DZ_ERROR */
} tread_decompressor;

enum { TREAD_DZ_OK = 0, TREAD_DZ_ERROR = -1, TREAD_DZ_NOMEM = -2,
       TREAD_DZ_TRAILING = 1 /* OK, but garbage after the last gzip member
                                was skipped (reported once) */ };

/* engine: TREAD_INFLATE_* for gzip */
int tread_dz_init(tread_decompressor *d, tread_compression kind,
                  const tread_alloc *a, int zstd_window_log_max, int engine);
void tread_dz_free(tread_decompressor *d);

/* Decodes from in[0..in_len) into out[0..out_cap): sets *in_used and
 * *out_len. Call again while *out_len == out_cap (more may be pending)
 * or input remains. */
int tread_dz_run(tread_decompressor *d, const unsigned char *in, size_t in_len,
                 size_t *in_used, unsigned char *out, size_t out_cap,
                 size_t *out_len);

/* isa-l's and zstd's input is staged in pieces of this size. */
#define TREAD_DZ_STAGE (16u * 1024u)

/* The end of input: what is staged is decoded by the next calls (with no
 * input) of tread_dz_run, while tread_dz_pending(). */
void tread_dz_end_input(tread_decompressor *d);
/* The input is given whole, in one buffer (a Perfetto compressed packet):
 * nothing to stage, since no caller's chunking can move its cuts. Call
 * before the first tread_dz_run. */
void tread_dz_whole_input(tread_decompressor *d);
int tread_dz_pending(const tread_decompressor *d);

/* At end of input: 1 if the stream ended cleanly (complete member/frame). */
int tread_dz_complete(const tread_decompressor *d);

#endif
