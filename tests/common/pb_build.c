#include "pb_build.h"

#include <stdlib.h>
#include <string.h>

void pb_init(pb *b) { memset(b, 0, sizeof *b); }

void pb_free(pb *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void pb_raw(pb *b, const void *data, size_t len)
{
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + len)
            cap *= 2;
        unsigned char *d = realloc(b->data, cap);
        if (!d)
            abort();
        b->data = d;
        b->cap = cap;
    }
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
}

void pb_varint_raw(pb *b, uint64_t v)
{
    unsigned char t[10];
    size_t n = 0;
    do {
        t[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v)
            t[n] |= 0x80;
        n++;
    } while (v);
    pb_raw(b, t, n);
}

void pb_tag(pb *b, uint32_t field, int wire) { pb_varint_raw(b, ((uint64_t)field << 3) | (unsigned)wire); }

void pb_varint(pb *b, uint32_t field, uint64_t v)
{
    pb_tag(b, field, 0);
    pb_varint_raw(b, v);
}

void pb_sint(pb *b, uint32_t field, int64_t v)
{
    pb_varint(b, field, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void pb_fixed64(pb *b, uint32_t field, uint64_t v)
{
    unsigned char t[8];
    for (int i = 0; i < 8; i++)
        t[i] = (unsigned char)(v >> (8 * i));
    pb_tag(b, field, 1);
    pb_raw(b, t, 8);
}

void pb_fixed32(pb *b, uint32_t field, uint32_t v)
{
    unsigned char t[4];
    for (int i = 0; i < 4; i++)
        t[i] = (unsigned char)(v >> (8 * i));
    pb_tag(b, field, 5);
    pb_raw(b, t, 4);
}

void pb_double(pb *b, uint32_t field, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    pb_fixed64(b, field, u);
}

void pb_bytes(pb *b, uint32_t field, const void *data, size_t len)
{
    pb_tag(b, field, 2);
    pb_varint_raw(b, len);
    pb_raw(b, data, len);
}

void pb_string(pb *b, uint32_t field, const char *s) { pb_bytes(b, field, s, strlen(s)); }

void pb_msg(pb *b, uint32_t field, const pb *m) { pb_bytes(b, field, m->data, m->len); }

/* The length is written as a 5-byte padded varint (valid protobuf), so
 * nothing has to move when the message ends. */
size_t pb_begin(pb *b, uint32_t field)
{
    static const unsigned char pad[5] = {0x80, 0x80, 0x80, 0x80, 0x00};
    pb_tag(b, field, 2);
    size_t mark = b->len;
    pb_raw(b, pad, 5);
    return mark;
}

void pb_end(pb *b, size_t mark)
{
    size_t n = b->len - mark - 5;
    for (int i = 0; i < 5; i++) {
        b->data[mark + (size_t)i] = (unsigned char)((n >> (7 * i)) & 0x7f);
        if (i < 4)
            b->data[mark + (size_t)i] |= 0x80;
    }
}

void pb_packed(pb *b, uint32_t field, const uint64_t *v, size_t n)
{
    size_t m = pb_begin(b, field);
    for (size_t i = 0; i < n; i++)
        pb_varint_raw(b, v[i]);
    pb_end(b, m);
}
