/* A growable byte buffer with a hard size limit. */
#ifndef TREAD_CORE_BUF_H
#define TREAD_CORE_BUF_H

#include <string.h>
#include "core/alloc.h"

typedef struct tread_buf {
    unsigned char *data;
    size_t len, cap;
    size_t limit;           /* len never exceeds this */
    const tread_alloc *a;
} tread_buf;

void tread_buf_init(tread_buf *b, const tread_alloc *a, size_t limit);
void tread_buf_free(tread_buf *b);
/* Grows so that n more bytes fit. Returns 0, -1 on no memory, -2 when the
 * limit would be exceeded. */
int tread_buf_grow(tread_buf *b, size_t n);

static inline int tread_buf_reserve(tread_buf *b, size_t n)
{
    return (b->cap - b->len >= n) ? 0 : tread_buf_grow(b, n);
}

static inline int tread_buf_append(tread_buf *b, const void *p, size_t n)
{
    int rc = tread_buf_reserve(b, n);
    if (rc) return rc;
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

#endif
