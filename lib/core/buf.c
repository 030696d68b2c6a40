#include "core/buf.h"

void tread_buf_init(tread_buf *b, const tread_alloc *a, size_t limit)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->limit = limit;
    b->a = a;
}

void tread_buf_free(tread_buf *b)
{
    tread_free(b->a, b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

int tread_buf_grow(tread_buf *b, size_t n)
{
    if (n > b->limit || b->len > b->limit - n)
        return -2;
    size_t need = b->len + n;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    if (cap > b->limit)
        cap = b->limit;
    if (cap < need)
        cap = need;
    unsigned char *d = tread_realloc(b->a, b->data, cap);
    if (!d)
        return -1;
    b->data = d;
    b->cap = cap;
    return 0;
}
