/* pb_encode: see pb_encode.h. */
#include "pb_encode.h"

#include <stdlib.h>
#include <string.h>

void pb_init(pb_buf *b)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}

void pb_free(pb_buf *b)
{
    free(b->data);
    pb_init(b);
}

static int reserve(pb_buf *b, size_t n)
{
    if (n <= b->cap - b->len)
        return 0;
    if (b->failed)
        return -1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < n) {
        if (cap > SIZE_MAX / 2) {
            b->failed = 1;
            return -1;
        }
        cap *= 2;
    }
    unsigned char *p = realloc(b->data, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

void pb_raw(pb_buf *b, const void *p, size_t n)
{
    if (n == 0 || reserve(b, n) != 0)
        return;
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void pb_varint_raw(pb_buf *b, uint64_t v)
{
    if (reserve(b, 10) != 0)
        return;
    unsigned char *p = b->data + b->len;
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (unsigned char)v;
    b->len += n;
}

static void tag(pb_buf *b, uint32_t field, unsigned wire_type)
{
    pb_varint_raw(b, ((uint64_t)field << 3) | wire_type);
}

void pb_uint(pb_buf *b, uint32_t field, uint64_t v)
{
    tag(b, field, 0);
    pb_varint_raw(b, v);
}

void pb_fixed64(pb_buf *b, uint32_t field, uint64_t v)
{
    unsigned char le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (unsigned char)(v >> (8 * i));
    tag(b, field, 1);
    pb_raw(b, le, 8);
}

void pb_double(pb_buf *b, uint32_t field, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    pb_fixed64(b, field, v);
}

void pb_bytes(pb_buf *b, uint32_t field, const void *p, size_t n)
{
    tag(b, field, 2);
    pb_varint_raw(b, n);
    pb_raw(b, p, n);
}

size_t pb_begin(pb_buf *b, uint32_t field)
{
    static const unsigned char zero4[4] = {0x80, 0x80, 0x80, 0x00};
    tag(b, field, 2);
    size_t mark = b->len;
    pb_raw(b, zero4, 4);
    return mark;
}

void pb_end(pb_buf *b, size_t mark)
{
    if (b->failed || mark + 4 > b->len)
        return;
    size_t n = b->len - mark - 4;
    if (n > PB_MAX_NESTED_BYTES) {
        b->failed = 1;
        return;
    }
    unsigned char *p = b->data + mark;
    p[0] = (unsigned char)(0x80 | (n & 0x7f));
    p[1] = (unsigned char)(0x80 | ((n >> 7) & 0x7f));
    p[2] = (unsigned char)(0x80 | ((n >> 14) & 0x7f));
    p[3] = (unsigned char)((n >> 21) & 0x7f);
}
