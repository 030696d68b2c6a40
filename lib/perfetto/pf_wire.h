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

static inline void pf_reader_init(pf_reader *r, const void *data, size_t len)
{
    r->p = (const unsigned char *)data;
    r->end = r->p + len;
}

/* Reads a varint at *p (< end). PF_OK, or PF_BAD when cut short or longer
 * than 10 bytes. */
static inline int pf_varint(const unsigned char **pp, const unsigned char *end, uint64_t *out)
{
    const unsigned char *p = *pp;
    uint64_t v = 0;
    if (p < end && !(*p & 0x80)) { /* most varints are one byte */
        *out = *p;
        *pp = p + 1;
        return PF_OK;
    }
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
 * data, PF_BAD for a malformed field (the reader is then left at it). */
#if defined(__GNUC__)
#define PF_ALWAYS_INLINE __attribute__((always_inline))
#else
#define PF_ALWAYS_INLINE
#endif
/* (always inlined: the hot loops walk every field through it) */
static inline PF_ALWAYS_INLINE int pf_next(pf_reader *r, pf_field *f)
{
    if (r->p >= r->end)
        return PF_END;
    const unsigned char *p = r->p;
    uint64_t tag, n;
    f->start = p;
    f->v = 0; /* every member is defined whatever the wire type */
    f->data = NULL;
    f->len = 0;
    /* tags of fields 1..2047 are one or two bytes: read them inline */
    if (!(p[0] & 0x80)) {
        tag = p[0];
        p++;
    } else if (r->end - p >= 2 && !(p[1] & 0x80)) {
        tag = (uint64_t)(p[0] & 0x7f) | ((uint64_t)p[1] << 7);
        p += 2;
    } else if (pf_varint(&p, r->end, &tag) != PF_OK) {
        return PF_BAD;
    }
    if (tag < 8 || (tag >> 3) > UINT32_MAX)
        return PF_BAD;
    f->num = (uint32_t)(tag >> 3);
    f->wire = (int)(tag & 7);
    switch (f->wire) {
    case PF_WIRE_VARINT:
        if (pf_varint(&p, r->end, &f->v) != PF_OK)
            return PF_BAD;
        break;
    case PF_WIRE_FIXED64:
        if (r->end - p < 8)
            return PF_BAD;
        f->v = pf_le64(p);
        p += 8;
        break;
    case PF_WIRE_FIXED32:
        if (r->end - p < 4)
            return PF_BAD;
        f->v = pf_le32(p);
        p += 4;
        break;
    case PF_WIRE_LEN:
        if (pf_varint(&p, r->end, &n) != PF_OK || n > (uint64_t)(r->end - p))
            return PF_BAD;
        f->data = p;
        f->len = (size_t)n;
        p += n;
        break;
    case PF_WIRE_GROUP_START: {
        const unsigned char *q = p;
        if (pf_skip_group(&q, r->end, f->num) != PF_OK)
            return PF_BAD;
        f->data = p;
        f->len = 0; /* set below: the contents, without the end tag */
        {
            /* the end tag is a varint of (num << 3 | 4) just before q */
            uint64_t endtag = ((uint64_t)f->num << 3) | PF_WIRE_GROUP_END;
            size_t taglen = 1;
            while (endtag >= 0x80) {
                endtag >>= 7;
                taglen++;
            }
            f->len = (size_t)(q - p) - taglen;
        }
        p = q;
        break;
    }
    default:
        return PF_BAD; /* a lone group end, or wire types 6 and 7 */
    }
    r->p = p;
    return PF_OK;
}

/* Packed repeated varints: the next element of a LEN payload. */
static inline int pf_packed_varint(pf_reader *r, uint64_t *v)
{
    if (r->p >= r->end)
        return PF_END;
    return pf_varint(&r->p, r->end, v);
}

#endif
