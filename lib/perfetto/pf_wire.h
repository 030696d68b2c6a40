/*
 * A zero-copy protobuf wire reader: the one every Perfetto component uses
 * (framing, packets, interned data, clocks, lazy args). It never allocates
 * and never reads outside [p, end): every overrun is reported as malformed.
 */
#ifndef TREAD_PERFETTO_PF_WIRE_H
#define TREAD_PERFETTO_PF_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum {
    PF_WIRE_VARINT = 0,
    PF_WIRE_FIXED64 = 1,
    PF_WIRE_LEN = 2,
    PF_WIRE_GROUP_START = 3,
    PF_WIRE_GROUP_END = 4,
    PF_WIRE_FIXED32 = 5
};

/* Deepest group nesting pf_next follows before calling the data malformed. */
#define PF_MAX_GROUP_DEPTH 64

typedef struct pf_reader {
    const unsigned char *p, *end;
} pf_reader;

typedef struct pf_field {
    uint32_t num;               /* field number (>= 1) */
    int wire;                   /* PF_WIRE_* */
    uint64_t v;                 /* VARINT, FIXED64, FIXED32 value */
    const unsigned char *data;  /* LEN: payload; GROUP_START: the group's
                                   contents (without its end tag) */
    size_t len;
    const unsigned char *start; /* where the field's tag begins */
} pf_field;

enum { PF_OK = 1, PF_END = 0, PF_BAD = -1 };

#if defined(__GNUC__)
#define PF_ALWAYS_INLINE __attribute__((always_inline))
#define PF_NOINLINE __attribute__((noinline))
#define PF_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define PF_ALWAYS_INLINE
#define PF_NOINLINE
#define PF_LIKELY(x) (x)
#endif

static inline void pf_reader_init(pf_reader *r, const void *data, size_t len)
{
    r->p = (const unsigned char *)data;
    r->end = r->p + len;
}

/* A varint of more than one byte at p, with 10 bytes readable at p: its
 * length (2..10), or 0 when it is longer than 10 bytes. One load and a few
 * shifts instead of a loop with a branch a byte, for the long ones:
 * timestamps, kernel addresses (ftrace print's ip), track uuids (64-bit
 * hashes) and negative counter values are 8-10 byte varints. The bits of a
 * tenth byte past the 64th are dropped, as the byte loops drop them. */
static inline unsigned pf_varint_long(const unsigned char *p, uint64_t *out)
{
    uint64_t w;
    memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    uint64_t stop = ~w & 0x8080808080808080ull; /* bytes without a continuation bit */
    uint64_t x = w & 0x7f7f7f7f7f7f7f7full;
    unsigned n = 8;
    if (stop) {
        unsigned bit = (unsigned)__builtin_ctzll(stop); /* 8n - 1 for an n-byte varint */
        x &= ((uint64_t)2 << bit) - 1;
        n = (bit >> 3) + 1;
    }
    /* the 7-bit groups packed together: pairs, then fours, then eights */
    x = ((x & 0x7f007f007f007f00ull) >> 1) | (x & 0x007f007f007f007full);
    x = ((x & 0x3fff00003fff0000ull) >> 2) | (x & 0x00003fff00003fffull);
    x = ((x & 0x0fffffff00000000ull) >> 4) | (x & 0x000000000fffffffull);
    if (!stop) {
        x |= (uint64_t)(p[8] & 0x7f) << 56;
        n = 9;
        if (p[8] & 0x80) {
            if (p[9] & 0x80)
                return 0;
            x |= (uint64_t)p[9] << 63;
            n = 10;
        }
    }
    *out = x;
    return n;
}

/* Reads a varint at *p (< end). PF_OK, or PF_BAD when cut short or longer
 * than 10 bytes. (Always inlined: the field loops of every reader, the
 * fast one's too, read their tags and values through it.) */
static inline PF_ALWAYS_INLINE int pf_varint(const unsigned char **pp, const unsigned char *end,
                                             uint64_t *out)
{
    const unsigned char *p = *pp;
    if (PF_LIKELY(p < end && !(*p & 0x80))) { /* most varints are one byte */
        *out = *p;
        *pp = p + 1;
        return PF_OK;
    }
    if (PF_LIKELY(end - p >= 10)) {
        if (!(p[1] & 0x80)) { /* two bytes: deltas, iids */
            *out = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
            *pp = p + 2;
            return PF_OK;
        }
        unsigned n = pf_varint_long(p, out);
        *pp = p + n;
        return n ? PF_OK : PF_BAD;
    }
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (p >= end)
            return PF_BAD;
        unsigned char b = *p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *pp = p;
            *out = v;
            return PF_OK;
        }
    }
    return PF_BAD;
}

static inline int64_t pf_zigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

static inline uint64_t pf_le64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline uint32_t pf_le32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

static inline double pf_double(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

static inline float pf_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

int pf_skip_group(const unsigned char **pp, const unsigned char *end, uint32_t num);

/* The next field of r. PF_OK with *f filled, PF_END at the end of the
 * data, PF_BAD for a malformed field (the reader is then left at it).
 * Every member of *f is defined whatever the wire type. */
/* The whole reader (any tag, wire type and length): out of line. */
int pf_next_slow(pf_reader *r, pf_field *f);

/* (always inlined: the hot loops walk every field through it) The common
 * fields have a one- or two-byte tag and are a varint or a length-delimited
 * field with a one- or two-byte length: read here in a handful of
 * instructions; everything else goes to pf_next_slow. */
static inline PF_ALWAYS_INLINE int pf_next(pf_reader *r, pf_field *f)
{
    const unsigned char *p = r->p, *end = r->end, *start = p;
    if (p >= end)
        return PF_END;
    unsigned t = p[0];
    if (t & 0x80) {
        /* a two-byte tag (fields 16..2047): taken as a one-byte tag one
         * byte further on */
        if (end - p < 3 || (p[1] & 0x80))
            return pf_next_slow(r, f);
        t = (t & 0x7f) | ((unsigned)p[1] << 7);
        p++;
    }
    if (PF_LIKELY(t >= 8 && end - p >= 2)) {
        unsigned w = t & 7;
        uint64_t v = p[1];
        if (w == PF_WIRE_VARINT) {
            const unsigned char *q = p + 2;
            if (v & 0x80) {
                v &= 0x7f;
                int shift = 7;
                if (PF_LIKELY(end - p >= 11)) {
                    /* at least 10 bytes lie in [p + 1, end) */
                    if (!(p[2] & 0x80)) { /* two bytes */
                        v |= (uint64_t)p[2] << 7;
                        q = p + 3;
                    } else {
                        unsigned n = pf_varint_long(p + 1, &v);
                        if (!n)
                            return pf_next_slow(r, f); /* longer than 10 bytes */
                        q = p + 1 + n;
                    }
                } else {
                    /* near the end of the message (a timestamp or pid
                     * last): each byte checked; fewer than 10 bytes
                     * remain, so no varint here is too long */
                    for (;;) {
                        if (q >= end)
                            return pf_next_slow(r, f); /* cut short */
                        unsigned c = *q++;
                        v |= (uint64_t)(c & 0x7f) << shift;
                        if (!(c & 0x80))
                            break;
                        shift += 7;
                    }
                }
            }
            f->start = start;
            f->num = t >> 3;
            f->wire = PF_WIRE_VARINT;
            f->v = v;
            f->data = NULL;
            f->len = 0;
            r->p = q;
            return PF_OK;
        }
        if (w == PF_WIRE_LEN) {
            /* a length of one or two bytes (up to 16383: ftrace bundles,
             * descriptors, interned data) */
            const unsigned char *q = p + 2;
            if (v & 0x80) {
                if (end - p < 3 || (p[2] & 0x80))
                    return pf_next_slow(r, f);
                v = (v & 0x7f) | ((uint64_t)p[2] << 7);
                q++;
            }
            if (v <= (uint64_t)(end - q)) {
                f->start = start;
                f->num = t >> 3;
                f->wire = PF_WIRE_LEN;
                f->v = 0;
                f->data = q;
                f->len = (size_t)v;
                r->p = q + v;
                return PF_OK;
            }
        }
    }
    return pf_next_slow(r, f);
}

/* Packed repeated varints: the next element of a LEN payload. */
static inline int pf_packed_varint(pf_reader *r, uint64_t *v)
{
    if (r->p >= r->end)
        return PF_END;
    return pf_varint(&r->p, r->end, v);
}

#define PF_MAX_EXTRA_COUNTERS 64    /* extra counter values of one event */

/* A short list of repeated scalars (extra counter values and uuids). */
typedef struct pf_u64list {
    uint64_t v[PF_MAX_EXTRA_COUNTERS];
    size_t n;
    int present;
    int overflow;              /* more than PF_MAX_EXTRA_COUNTERS */
} pf_u64list;

/* A repeated scalar field, packed or not, appended to l (fixed: a fixed64
 * or double field). 0, or -1 when the wire type does not fit. */
int pf_read_repeated(const pf_field *f, int fixed, pf_u64list *l);

#endif
