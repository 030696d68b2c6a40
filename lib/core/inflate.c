/* Deflate through isa-l or zlib; see inflate.h. */
#include "core/inflate.h"

#include <string.h>

#ifdef TREAD_WITH_ISAL
#include <isa-l/igzip_lib.h>
#endif

int tread_inflate_default_engine(void)
{
#ifdef TREAD_WITH_ISAL
    return TREAD_INFLATE_ISAL;
#else
    return TREAD_INFLATE_ZLIB;
#endif
}

int tread_inflate_engine_built(int engine)
{
    return engine == TREAD_INFLATE_ZLIB || engine == tread_inflate_default_engine();
}

static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
    if (size && items > (uInt)-1 / size)
        return Z_NULL;
    return tread_malloc((const tread_alloc *)opaque, (size_t)items * size);
}

static void z_free(voidpf opaque, voidpf ptr) { tread_free((const tread_alloc *)opaque, ptr); }

#ifdef TREAD_WITH_ISAL
/* The gzip header's parts (RFC 1952), in order. */
enum { H_MAGIC, H_METHOD, H_FIXED, H_XLEN, H_EXTRA, H_NAME, H_COMMENT, H_HCRC, H_DONE };
enum { G_FHCRC = 2, G_FEXTRA = 4, G_FNAME = 8, G_FCOMMENT = 16, G_RESERVED = 0xe0 };

static void isal_begin(tread_inflater *f)
{
    isal_inflate_init(f->is);
    /* gzip: the header is read here (isa-l 2.30's own reading of it, fed
     * in pieces, failed on an intact FHCRC: test_inflate), isa-l checks
     * the CRC-32 and length; raw: it sums the Adler-32, the caller reads
     * the trailer */
    f->is->crc_flag = f->gzip ? ISAL_GZIP_NO_HDR_VER : ISAL_ZLIB_NO_HDR;
    f->hstate = f->gzip ? H_MAGIC : H_DONE;
    f->hleft = 2;
    f->hflags = 0;
    f->hcrc = 0;
}

/* The part after the one just read (or the field being read). */
static void header_next(tread_inflater *f)
{
    switch (f->hstate) {
    case H_MAGIC: f->hstate = H_METHOD, f->hleft = 2; return;
    case H_METHOD: f->hstate = H_FIXED, f->hleft = 6; return;
    case H_FIXED:
        if (f->hflags & G_FEXTRA) {
            f->hstate = H_XLEN, f->hleft = 2;
            return;
        }
        /* fall through */
    case H_XLEN:
    case H_EXTRA:
        if (f->hstate == H_XLEN && f->hleft) {
            f->hstate = H_EXTRA;
            return;
        }
        if (f->hflags & G_FNAME) {
            f->hstate = H_NAME;
            return;
        }
        /* fall through */
    case H_NAME:
        if (f->hstate != H_COMMENT && (f->hflags & G_FCOMMENT)) {
            f->hstate = H_COMMENT;
            return;
        }
        /* fall through */
    case H_COMMENT:
        if (f->hflags & G_FHCRC) {
            f->hstate = H_HCRC, f->hleft = 2;
            return;
        }
        /* fall through */
    default:
        f->hstate = H_DONE;
    }
}

/* Reads the header from in; *used counts what it took. 1 once it is read,
 * 0 when more is needed, -1 on damage (f->error, zlib's words, at zlib's
 * offset: the end of the field found wrong). */
static int read_header(tread_inflater *f, const unsigned char *in, size_t n, size_t *used)
{
    size_t i = 0;
    while (f->hstate != H_DONE && i < n) {
        unsigned char c = in[i++];
        if (f->hstate != H_HCRC)
            f->hcrc = (uint32_t)crc32(f->hcrc, &c, 1);
        switch (f->hstate) {
        case H_MAGIC:
        case H_METHOD:
        case H_HCRC:
        case H_XLEN:
            f->hbuf[2 - f->hleft] = c;
            if (--f->hleft)
                continue;
            if (f->hstate == H_MAGIC && (f->hbuf[0] != 0x1f || f->hbuf[1] != 0x8b)) {
                f->error = "incorrect header check";
                *used = i;
                return -1;
            }
            if (f->hstate == H_METHOD) {
                f->hflags = f->hbuf[1];
                f->error = f->hbuf[0] != Z_DEFLATED       ? "unknown compression method"
                           : (f->hflags & G_RESERVED) != 0 ? "unknown header flags set"
                                                           : NULL;
                if (f->error) {
                    *used = i;
                    return -1;
                }
            }
            if (f->hstate == H_HCRC && (f->hbuf[0] | (unsigned)f->hbuf[1] << 8) != (f->hcrc & 0xffff)) {
                f->error = "header crc mismatch";
                *used = i;
                return -1;
            }
            if (f->hstate == H_XLEN)
                f->hleft = f->hbuf[0] | (unsigned)f->hbuf[1] << 8;
            header_next(f);
            continue;
        case H_FIXED:
        case H_EXTRA:
            if (--f->hleft == 0)
                header_next(f);
            continue;
        case H_NAME:
        case H_COMMENT:
            if (c == 0)
                header_next(f);
            continue;
        }
    }
    *used = i;
    return f->hstate == H_DONE;
}
#endif

int tread_inflate_init(tread_inflater *f, const tread_alloc *a, int engine, int gzip)
{
    memset(f, 0, sizeof *f);
    f->engine = engine;
    f->gzip = gzip;
    f->a = a;
#ifdef TREAD_WITH_ISAL
    if (engine == TREAD_INFLATE_ISAL) {
        f->is = tread_malloc(a, sizeof *f->is);
        if (!f->is)
            return TREAD_INF_NOMEM;
        memset(f->is, 0, sizeof *f->is); /* its history starts defined */
        isal_begin(f);
        return TREAD_INF_OK;
    }
#endif
    f->engine = TREAD_INFLATE_ZLIB;
    f->z.zalloc = z_alloc;
    f->z.zfree = z_free;
    f->z.opaque = (voidpf)a;
    if (inflateInit2(&f->z, gzip ? 15 + 16 : -15) != Z_OK)
        return TREAD_INF_NOMEM;
    f->z_live = 1;
    return TREAD_INF_OK;
}

void tread_inflate_reset(tread_inflater *f)
{
    f->taken = 0;
    f->tail_len = 0;
#ifdef TREAD_WITH_ISAL
    if (f->is) {
        isal_begin(f);
        return;
    }
#endif
    if (f->z_live)
        inflateReset(&f->z);
}

void tread_inflate_free(tread_inflater *f)
{
    if (f->z_live)
        inflateEnd(&f->z);
    f->z_live = 0;
    tread_free(f->a, f->is);
    f->is = NULL;
}

static int run_zlib(tread_inflater *f, const unsigned char *in, size_t in_len,
                    size_t *in_used, unsigned char *out, size_t out_cap, size_t *out_len)
{
    for (;;) {
        /* zlib counts in uInt: at most 1 GiB at a time */
        size_t avail = in_len - *in_used, room = out_cap - *out_len;
        if (avail > (1u << 30)) avail = 1u << 30;
        if (room > (1u << 30)) room = 1u << 30;
        f->z.next_in = (Bytef *)(uintptr_t)(in + *in_used);
        f->z.avail_in = (uInt)avail;
        f->z.next_out = out + *out_len;
        f->z.avail_out = (uInt)room;
        int zr = inflate(&f->z, Z_NO_FLUSH);
        size_t used = avail - f->z.avail_in, made = room - f->z.avail_out;
        *in_used += used;
        *out_len += made;
        f->taken += used;
        if (zr == Z_STREAM_END)
            return TREAD_INF_END;
        if (zr == Z_MEM_ERROR)
            return TREAD_INF_NOMEM;
        if (zr != Z_OK && zr != Z_BUF_ERROR) {
            f->error = f->z.msg ? f->z.msg : "corrupt deflate data";
            return TREAD_INF_ERROR;
        }
        if (*in_used == in_len || *out_len == out_cap || (!used && !made))
            return TREAD_INF_OK;
    }
}

#ifdef TREAD_WITH_ISAL
static const char *isal_message(int rc)
{
    switch (rc) {
    case ISAL_INVALID_BLOCK: return "invalid block";
    case ISAL_INVALID_SYMBOL: return "invalid code";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "incorrect header check";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
    default: return "corrupt deflate data";
    }
}

/* Keeps the last 8 bytes taken: a gzip trailer, when its check fails. */
static void keep_tail(tread_inflater *f, const unsigned char *p, size_t n)
{
    if (n >= 8) {
        memcpy(f->tail, p + n - 8, 8);
        f->tail_len = 8;
        return;
    }
    unsigned keep = f->tail_len + n > 8 ? 8 - (unsigned)n : f->tail_len;
    memmove(f->tail, f->tail + f->tail_len - keep, keep);
    memcpy(f->tail + keep, p, n);
    f->tail_len = keep + (unsigned)n;
}

/* Where an error lies: isa-l has taken bytes into its bit buffer (and,
 * near the end of a call's input, into a buffer of its own) that it has
 * not decoded. Counting them back gives zlib's offset for damaged block
 * headers; inside a block isa-l decodes symbols in runs and may stop a
 * few bytes past where zlib would. */
static uint64_t isal_unread(const tread_inflater *f)
{
    uint64_t back = (uint64_t)(f->is->read_in_length > 0 ? f->is->read_in_length / 8 : 0) +
                    (uint64_t)(f->is->tmp_in_size > 0 ? f->is->tmp_in_size : 0);
    return back < f->taken ? back : f->taken;
}

/* In the trailer: whether its CRC-32 has arrived whole and differs from
 * the output's. The bytes isa-l holds undecoded (after the last block's
 * padding bits) are the trailer so far, the last ones keep_tail kept. */
/* A gzip trailer's CRC-32: 4 little-endian bytes. */
static uint32_t trailer_crc(const unsigned char *t)
{
    return (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
}

static int crc_arrived_wrong(const tread_inflater *f)
{
    uint64_t have = isal_unread(f);
    if (have < 4 || have > f->tail_len)
        return 0;
    return trailer_crc(f->tail + f->tail_len - have) != f->is->crc;
}

static int run_isal(tread_inflater *f, const unsigned char *in, size_t in_len,
                    size_t *in_used, unsigned char *out, size_t out_cap, size_t *out_len)
{
    struct inflate_state *s = f->is;
    if (f->hstate != H_DONE) {
        int h = read_header(f, in, in_len, in_used);
        f->taken += *in_used;
        if (h < 0) {
            f->error_back = 0;
            return TREAD_INF_ERROR;
        }
        if (!h)
            return TREAD_INF_OK;
    }
    for (;;) {
        /* isa-l counts in uint32_t too */
        size_t avail = in_len - *in_used, room = out_cap - *out_len;
        if (avail > (1u << 30)) avail = 1u << 30;
        if (room > (1u << 30)) room = 1u << 30;
        s->next_in = (uint8_t *)(uintptr_t)(in + *in_used);
        s->avail_in = (uint32_t)avail;
        s->next_out = out + *out_len;
        s->avail_out = (uint32_t)room;
        int rc = isal_inflate(s);
        /* a failing call may give back more input than it was handed
         * (its read-ahead bits): nothing taken, then (found by
         * fuzz_split_perfetto: the pointer arithmetic wrapped) */
        size_t used = s->avail_in <= avail ? avail - s->avail_in : 0;
        size_t made = s->avail_out <= room ? room - s->avail_out : 0;
        if (rc < 0)
            made = 0; /* isa-l copies a match before it checks its distance:
                         what it wrote in the failing call is not data
                         (valgrind: bytes from its unwritten history) */
        if (f->gzip && used)
            keep_tail(f, in + *in_used, used);
        *in_used += used;
        *out_len += made;
        f->taken += used;
        if (rc < 0) {
            f->error = isal_message(rc);
            f->error_back = isal_unread(f);
            if (rc == ISAL_INCORRECT_CHECKSUM && f->gzip && f->tail_len == 8) {
                /* as zlib: a wrong CRC-32 is found at the length that
                 * follows it, a wrong length at the end */
                if (trailer_crc(f->tail) != s->crc) {
                    f->error_back = 4;
                } else {
                    f->error = "incorrect length check";
                    f->error_back = 0;
                }
            }
            return TREAD_INF_ERROR;
        }
        /* ISAL_DECOMP_OK, ISAL_END_INPUT or ISAL_OUT_OVERFLOW: the state
         * says whether the stream ended */
        if (s->block_state == ISAL_BLOCK_FINISH)
            return TREAD_INF_END;
        if (f->gzip && s->block_state == ISAL_CHECKSUM_CHECK && crc_arrived_wrong(f)) {
            /* isa-l checks the trailer once all 8 bytes are in; zlib
             * the CRC-32 as soon as its 4 are, so a cut trailer with a
             * wrong CRC is an error to both (fuzz_pipeline) */
            f->error = "incorrect data check";
            f->error_back = isal_unread(f) - 4;
            return TREAD_INF_ERROR;
        }
        if (*in_used == in_len || *out_len == out_cap || (!used && !made))
            return TREAD_INF_OK;
    }
}
#endif

int tread_inflate_run(tread_inflater *f, const unsigned char *in, size_t in_len,
                      size_t *in_used, unsigned char *out, size_t out_cap, size_t *out_len)
{
    *in_used = 0;
    *out_len = 0;
#ifdef TREAD_WITH_ISAL
    if (f->is)
        return run_isal(f, in, in_len, in_used, out, out_cap, out_len);
#endif
    return run_zlib(f, in, in_len, in_used, out, out_cap, out_len);
}

size_t tread_inflate_unread(const tread_inflater *f)
{
#ifdef TREAD_WITH_ISAL
    /* gzip: isa-l reads the trailer out of its bit buffer and gives the
     * rest back itself; raw deflate leaves the followers in it */
    if (f->is && !f->gzip)
        return (size_t)isal_unread(f);
#else
    (void)f;
#endif
    return 0;
}

int tread_inflate_has_adler32(const tread_inflater *f)
{
    return f->is != NULL && !f->gzip;
}

uint32_t tread_inflate_adler32(const tread_inflater *f)
{
#ifdef TREAD_WITH_ISAL
    if (f->is)
        return f->is->crc;
#else
    (void)f;
#endif
    return 0;
}
