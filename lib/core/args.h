/*
 * The typed-argument token stream behind tread_args.
 *
 * Every decoder writes its arguments (JSON args, and later Perfetto debug
 * annotations and FXT arguments) as this stream, so that one iterator
 * serves every format. Layout of a token:
 *   [type:1]                       null, false, true, *_BEGIN, *_END
 *   [type:1][value:8]              int, uint, double, pointer, koid
 *   [type:1][len:4][bytes][NUL]    key, string, bytes, JSON number text,
 *                                  NaN/Infinity (with their text)
 * Integers are stored in host byte order; the stream never leaves the
 * process.
 */
#ifndef TREAD_CORE_ARGS_H
#define TREAD_CORE_ARGS_H

#include <stdint.h>
#include <string.h>
#include "core/buf.h"

enum {
    TOK_NULL = 1,
    TOK_FALSE,
    TOK_TRUE,
    TOK_DICT_BEGIN,
    TOK_DICT_END,
    TOK_ARRAY_BEGIN,
    TOK_ARRAY_END,
    /* fixed 8-byte payload */
    TOK_INT,
    TOK_UINT,
    TOK_DOUBLE,
    TOK_POINTER,
    TOK_KOID,
    /* length-prefixed payload */
    TOK_KEY,
    TOK_STR,
    TOK_BYTES,
    TOK_NUM,        /* a JSON number's literal text */
    TOK_NAN,        /* lenient JSON NaN/nan: text as written */
    TOK_POS_INF,    /* Infinity/inf */
    TOK_NEG_INF     /* -Infinity/-inf */
};

static inline int tok_has_len(unsigned t) { return t >= TOK_KEY; }
static inline int tok_has_u64(unsigned t) { return t >= TOK_INT && t < TOK_KEY; }

/* Writers: 0 on success, or tread_buf_grow's error. */
static inline int args_put_tok(tread_buf *b, unsigned type)
{
    int rc = tread_buf_reserve(b, 1);
    if (rc) return rc;
    b->data[b->len++] = (unsigned char)type;
    return 0;
}

static inline int args_put_str(tread_buf *b, unsigned type, const void *s, size_t n)
{
    if (n > UINT32_MAX) return -2;
    int rc = tread_buf_reserve(b, n + 6);
    if (rc) return rc;
    unsigned char *d = b->data + b->len;
    uint32_t n32 = (uint32_t)n;
    d[0] = (unsigned char)type;
    memcpy(d + 1, &n32, 4);
    if (n) memcpy(d + 5, s, n);
    d[5 + n] = 0;
    b->len += n + 6;
    return 0;
}

static inline int args_put_u64(tread_buf *b, unsigned type, uint64_t v)
{
    int rc = tread_buf_reserve(b, 9);
    if (rc) return rc;
    b->data[b->len] = (unsigned char)type;
    memcpy(b->data + b->len + 1, &v, 8);
    b->len += 9;
    return 0;
}

/* Size of the token at p (which must be a complete token). */
static inline size_t args_tok_size(const unsigned char *p)
{
    if (tok_has_len(p[0])) {
        uint32_t n;
        memcpy(&n, p + 1, 4);
        return (size_t)n + 6;
    }
    return tok_has_u64(p[0]) ? 9 : 1;
}

/* Payload of a length-prefixed token. */
static inline const char *args_tok_str(const unsigned char *p, size_t *len)
{
    uint32_t n;
    memcpy(&n, p + 1, 4);
    *len = n;
    return (const char *)p + 5;
}

/* Offset just past the value starting at off (skips whole containers). */
size_t args_skip_value(const unsigned char *data, size_t len, size_t off);

/* Classifies a JSON number text into an arg (INT, UINT or DOUBLE). */
void args_number_from_text(const char *s, size_t n, tread_arg *out);

/* Fills *out with the value token at p (no key). */
void args_decode_value(const unsigned char *p, tread_arg *out);

#endif
