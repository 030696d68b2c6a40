/* A tiny protobuf writer for tests: builds Perfetto traces and messages
 * byte by byte, so unit tests need no generated code and no corpus. */
#ifndef TREAD_PB_BUILD_H
#define TREAD_PB_BUILD_H

#include <stddef.h>
#include <stdint.h>

typedef struct pb {
    unsigned char *data;
    size_t len, cap;
} pb;

void pb_init(pb *b);
void pb_free(pb *b);
void pb_raw(pb *b, const void *data, size_t len);
void pb_varint_raw(pb *b, uint64_t v);
void pb_tag(pb *b, uint32_t field, int wire);
void pb_varint(pb *b, uint32_t field, uint64_t v);   /* wire 0 */
void pb_sint(pb *b, uint32_t field, int64_t v);      /* wire 0, zigzag */
void pb_fixed64(pb *b, uint32_t field, uint64_t v);  /* wire 1 */
void pb_fixed32(pb *b, uint32_t field, uint32_t v);  /* wire 5 */
void pb_double(pb *b, uint32_t field, double v);     /* wire 1 */
void pb_bytes(pb *b, uint32_t field, const void *data, size_t len); /* wire 2 */
void pb_string(pb *b, uint32_t field, const char *s);               /* wire 2 */
void pb_msg(pb *b, uint32_t field, const pb *m);     /* wire 2: m's bytes */
/* A length-delimited field whose length varint is written by pb_end:
 * nested messages without temporaries. Returns a mark for pb_end. */
size_t pb_begin(pb *b, uint32_t field);
void pb_end(pb *b, size_t mark);
/* A packed repeated varint field: n values v[i] in one wire-2 field. */
void pb_packed(pb *b, uint32_t field, const uint64_t *v, size_t n);

#endif
