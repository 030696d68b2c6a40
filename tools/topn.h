/*
 * topn: the k best of n items by a caller's ordering, with a heap of k
 * indices (O(n log k) time, O(k) memory): `tread stats` ranks up to 100k
 * names without sorting them all.
 */
#ifndef TREAD_TOOLS_TOPN_H
#define TREAD_TOOLS_TOPN_H

#include <stddef.h>
#include <stdint.h>

/* Non-zero if item a ranks before item b. Must be a strict total order
 * (break ties) for a stable output. */
typedef int (*topn_before_fn)(const void *ctx, uint32_t a, uint32_t b);
/* Non-zero if item i takes part. */
typedef int (*topn_eligible_fn)(const void *ctx, uint32_t i);

/* Stores up to k item indices in out, best first; returns how many. */
size_t topn_select(const void *ctx, uint32_t n, topn_eligible_fn eligible,
                   topn_before_fn before, uint32_t *out, size_t k);

#endif
