/* pieces_mem: the split_pieces interface (tools/split_pieces.h) kept in
 * memory, for the tests and the fuzz harness of split_perfetto: the pieces
 * are byte buffers, and each records whether it was declared oversize. */
#ifndef TREAD_TESTS_PIECES_MEM_H
#define TREAD_TESTS_PIECES_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "split_pieces.h"

typedef struct mem_piece {
    unsigned char *data;
    size_t len, cap;
    int oversize;
    size_t header;             /* its first bytes restate (split_pieces_header_end) */
} mem_piece;

/* The pieces of the split_pieces made last (one at a time). */
typedef struct pieces_mem {
    mem_piece *piece;
    size_t n;
    size_t cap;
} pieces_mem;

/* Takes the pieces out of sp (before split_pieces_free); the caller frees
 * them with pieces_mem_free (in split_pf_check.c). */
void pieces_mem_take(split_pieces *sp, pieces_mem *out);
void pieces_mem_free(pieces_mem *pm);

#endif
