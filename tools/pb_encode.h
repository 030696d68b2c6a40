/*
 * pb_encode: a small protobuf wire encoder into a growable buffer, enough
 * for the Perfetto messages `tread convert` writes. Nested messages get a
 * four-byte (redundant) varint length that is patched when they end, the
 * way Perfetto's own protozero writes them, so no message is encoded twice.
 */
#ifndef TREAD_TOOLS_PB_ENCODE_H
#define TREAD_TOOLS_PB_ENCODE_H

#include <stddef.h>
#include <stdint.h>

/* The largest nested message: what a four-byte varint length holds. */
#define PB_MAX_NESTED_BYTES ((1u << 28) - 1)

typedef struct pb_buf {
    unsigned char *data;
    size_t len, cap;
    int failed;  /* out of memory, or a nested message over the maximum:
                    the buffer's content is then not a valid message */
} pb_buf;

void pb_init(pb_buf *b);
void pb_free(pb_buf *b);
static inline void pb_clear(pb_buf *b) { b->len = 0; b->failed = 0; }

void pb_raw(pb_buf *b, const void *p, size_t n);
void pb_varint_raw(pb_buf *b, uint64_t v);

/* Fields. int64 values are written as two's complement varints (the
 * protobuf int64 encoding). */
void pb_uint(pb_buf *b, uint32_t field, uint64_t v);
static inline void pb_int(pb_buf *b, uint32_t field, int64_t v)
{
    pb_uint(b, field, (uint64_t)v);
}
void pb_fixed64(pb_buf *b, uint32_t field, uint64_t v);
void pb_double(pb_buf *b, uint32_t field, double d);
void pb_bytes(pb_buf *b, uint32_t field, const void *p, size_t n);

/* A nested message: pb_begin returns a mark to hand to pb_end. */
size_t pb_begin(pb_buf *b, uint32_t field);
void pb_end(pb_buf *b, size_t mark);

#endif
