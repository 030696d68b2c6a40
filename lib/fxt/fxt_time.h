/*
 * FXT timestamps are ticks of the provider's clock ("Timestamps" and
 * "Initialization record" in the format document); events carry int64
 * nanoseconds: ns = ticks * 1e9 / ticks_per_second, truncated, computed
 * exactly in 128 bits. A result beyond INT64_MAX is an overflow, never a
 * wrapped value.
 */
#ifndef TREAD_FXT_TIME_H
#define TREAD_FXT_TIME_H

#include <stdint.h>

#if defined(__SIZEOF_INT128__)
/* __extension__: -Wpedantic accepts a GNU type only when it is marked */
__extension__ typedef unsigned __int128 fxt_u128;
#endif

/* The 128-bit case, out of line (rare: ticks above ~1.8e10). */
int fxt_ticks_to_ns_wide(uint64_t ticks, uint64_t ticks_per_second, int64_t *ns);

/* Stores ticks in ns in *ns and returns 0, or returns -1 when the value
 * does not fit in int64. ticks_per_second is never 0 (the decoder refuses
 * a rate of 0). */
static inline int fxt_ticks_to_ns(uint64_t ticks, uint64_t ticks_per_second, int64_t *ns)
{
    uint64_t v;
    if (ticks_per_second == 1000000000u)
        v = ticks;
    else if (ticks <= UINT64_MAX / 1000000000u)
        v = ticks * 1000000000u / ticks_per_second;
    else
        return fxt_ticks_to_ns_wide(ticks, ticks_per_second, ns);
    if (v > (uint64_t)INT64_MAX)
        return -1;
    *ns = (int64_t)v;
    return 0;
}

/* A tick rate prepared for the conversions of its events: ns = ticks *
 * mul / div with mul/div = 1e9/tps reduced, the division by div done as a
 * multiplication by its reciprocal with an exact correction. */
typedef struct fxt_rate {
    uint64_t tps;
    uint64_t mul, div;   /* 1e9 / gcd, tps / gcd */
    uint64_t recip;      /* floor((2^64 - 1) / div) */
    uint64_t max_ticks;  /* ticks * mul fits in 64 bits up to this */
} fxt_rate;

void fxt_rate_set(fxt_rate *r, uint64_t ticks_per_second);

/* fxt_ticks_to_ns at a prepared rate: the same results. */
static inline int fxt_rate_to_ns(const fxt_rate *r, uint64_t ticks, int64_t *ns)
{
    uint64_t v;
    if (r->div == 1 && r->mul == 1) {
        v = ticks;
    } else if (ticks <= r->max_ticks) {
        uint64_t x = ticks * r->mul;
#if defined(__SIZEOF_INT128__)
        /* q <= x / div <= q + 2 (recip is at most 1 below (2^64-1)/div) */
        uint64_t q = (uint64_t)(((fxt_u128)x * r->recip) >> 64);
        uint64_t rem = x - q * r->div;
        /* the two corrections without branches: whether each applies
         * depends on the value, a misprediction as often as not */
        uint64_t c = rem >= r->div;
        q += c;
        rem -= r->div & (0 - c);
        q += rem >= r->div;
        v = q;
#else
        v = x / r->div;
#endif
    } else {
        return fxt_ticks_to_ns_wide(ticks, r->tps, ns);
    }
    if (v > (uint64_t)INT64_MAX)
        return -1;
    *ns = (int64_t)v;
    return 0;
}

#endif
