/*
 * FXT wire primitives: little-endian words read from any alignment, header
 * bit fields, string and thread references. See the "Encoding primitives"
 * and "Record header" sections of the Fuchsia trace format document.
 */
#ifndef TREAD_FXT_WIRE_H
#define TREAD_FXT_WIRE_H

#include <stdint.h>
#include <string.h>

/* The magic number record as one little-endian word, and as a big-endian
 * archive's first word reads when taken as little-endian. */
#define FXT_MAGIC_WORD UINT64_C(0x0016547846040010)
#define FXT_MAGIC_WORD_SWAPPED UINT64_C(0x1000044678541600)

/* Record types (header bits 0..3). */
enum {
    FXT_REC_METADATA = 0,
    FXT_REC_INITIALIZATION = 1,
    FXT_REC_STRING = 2,
    FXT_REC_THREAD = 3,
    FXT_REC_EVENT = 4,
    FXT_REC_BLOB = 5,
    FXT_REC_USERSPACE_OBJECT = 6,
    FXT_REC_KERNEL_OBJECT = 7,
    FXT_REC_SCHEDULING = 8,
    FXT_REC_LOG = 9,
    FXT_REC_LARGE = 15
};

/* Argument types. 10 is the blob argument newer writers emit. */
enum {
    FXT_ARG_NULL = 0,
    FXT_ARG_INT32,
    FXT_ARG_UINT32,
    FXT_ARG_INT64,
    FXT_ARG_UINT64,
    FXT_ARG_DOUBLE,
    FXT_ARG_STRING,
    FXT_ARG_POINTER,
    FXT_ARG_KOID,
    FXT_ARG_BOOL,
    FXT_ARG_BLOB
};

#if defined(__GNUC__)
#define FXT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define FXT_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define FXT_UNLIKELY(x) (x)
#define FXT_LIKELY(x) (x)
#endif

/* Largest size of a normal record: 12-bit size field, in bytes. */
#define FXT_MAX_RECORD_BYTES (4095u * 8u)

static inline uint64_t fxt_load64(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

/* Bits lo..hi (inclusive) of w, as the format document numbers them. */
static inline uint64_t fxt_bits(uint64_t w, unsigned lo, unsigned hi)
{
    return (w >> lo) & ((hi - lo == 63) ? ~UINT64_C(0) : ((UINT64_C(1) << (hi - lo + 1)) - 1));
}

/* Bytes a stream of n bytes occupies (padded to 8). */
static inline uint64_t fxt_pad8(uint64_t n) { return (n + 7) & ~UINT64_C(7); }

/* String refs: 0 empty, MSB set: inline of (ref & 0x7fff) bytes, else a
 * string table index. */
static inline int fxt_sref_inline(unsigned ref) { return (ref & 0x8000u) != 0; }
static inline unsigned fxt_sref_len(unsigned ref) { return ref & 0x7fffu; }
/* Bytes the ref takes in the record's streams. */
static inline uint64_t fxt_sref_bytes(unsigned ref)
{
    return fxt_sref_inline(ref) ? fxt_pad8(fxt_sref_len(ref)) : 0;
}

/* Thread refs: 0 inline (two koid words follow), else a thread table
 * index. */
static inline uint64_t fxt_tref_bytes(unsigned ref) { return ref == 0 ? 16 : 0; }

#endif
