/* tools/split_pieces.h: numbered output pieces under the split contract
 * (doc/convert.md). The interface fixed in SPLIT_INTERFACE.md; owned by the
 * split-core branch, which provides split_pieces.c (this copy lets
 * split_perfetto build and be tested before the two branches meet). */
#ifndef TREAD_TOOLS_SPLIT_PIECES_H
#define TREAD_TOOLS_SPLIT_PIECES_H

#include <stddef.h>
#include <stdint.h>

typedef struct split_pieces split_pieces;

typedef struct split_pieces_config {
    const char *prefix;          /* OUTPREFIX */
    const char *suffix;          /* "json", "pftrace", "fxt", "txt", ... */
    uint64_t max_bytes;          /* --max-bytes */
    uint64_t max_total_bytes;    /* --max-total-bytes, resolved by the caller */
} split_pieces_config;

int split_pieces_new(split_pieces **out, const split_pieces_config *cfg,
                     char *err, size_t errlen);
int split_pieces_begin(split_pieces *sp);
int split_pieces_write(split_pieces *sp, const void *p, size_t n);
uint64_t split_pieces_size(const split_pieces *sp);
uint64_t split_pieces_max(const split_pieces *sp);
int split_pieces_is_open(const split_pieces *sp);
void split_pieces_oversize(split_pieces *sp);
int split_pieces_end(split_pieces *sp);
const char *split_pieces_error(const split_pieces *sp);
uint64_t split_pieces_count(const split_pieces *sp);
uint64_t split_pieces_total(const split_pieces *sp);
void split_pieces_free(split_pieces *sp);

#endif
