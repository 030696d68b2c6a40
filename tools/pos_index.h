/*
 * pos_index: an index of positions into the caller's own array, by a
 * 64-bit hash of each element's key that the caller computes. Open
 * addressing with linear probing, at most half full, doubling as it
 * grows; a slot holds the position and the full hash, so growing needs no
 * callback and a probe compares keys only where the hashes agree. The
 * caller keeps its elements (and decides what "the same key" means):
 *
 *     size_t it = 0, pos;
 *     while (pos_index_next(&x, h, &it, &pos))
 *         if (same_key(&v[pos], key))
 *             return &v[pos];
 *
 * Used by the split and convert tables (split_fxt's definitions,
 * split_meta's owners, convert_perfetto's tracks). Positions are below
 * UINT32_MAX. Memory: 16 bytes a slot, at most 4 slots an element.
 */
#ifndef TREAD_TOOLS_POS_INDEX_H
#define TREAD_TOOLS_POS_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct pos_slot {
    uint64_t hash;
    uint32_t pos1; /* the position + 1; 0: empty */
} pos_slot;

typedef struct pos_index {
    pos_slot *slot;
    size_t cap; /* a power of two, or 0 before the first add */
    size_t n;
} pos_index;

/* An empty index (no allocation until the first add). */
void pos_index_init(pos_index *x);
void pos_index_free(pos_index *x);

/* Adds pos under hash (a position may be added once); 0, or -1 when out
 * of memory or pos >= UINT32_MAX - 1 (the index is unchanged). */
int pos_index_add(pos_index *x, uint64_t hash, size_t pos);

/* The positions added under hash, one a call, from *it = 0: 1 and the
 * next one in *pos, or 0 when there are no more. (Positions of other
 * hashes that share the probe are passed over.) */
int pos_index_next(const pos_index *x, uint64_t hash, size_t *it, size_t *pos);

#endif
