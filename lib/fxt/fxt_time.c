/* Tick to nanosecond conversion beyond 64-bit products (see fxt_time.h). */
#include "fxt/fxt_time.h"

int fxt_ticks_to_ns_wide(uint64_t ticks, uint64_t ticks_per_second, int64_t *ns)
{
#if defined(__SIZEOF_INT128__)
    fxt_u128 v = (fxt_u128)ticks * 1000000000u / ticks_per_second;
    if (v > (fxt_u128)INT64_MAX)
        return -1;
    *ns = (int64_t)v;
    return 0;
#else
    /* ticks = q * tps + r: q * 1e9 exactly, then r * 1e9 / tps by long
     * division (r < tps, so that part is below 1e9). */
    uint64_t q = ticks / ticks_per_second, r = ticks % ticks_per_second;
    if (q > (uint64_t)INT64_MAX / 1000000000u)
        return -1;
    uint64_t hi = 0, lo = 0; /* r * 1e9 in 128 bits */
    uint64_t a = r, b = 1000000000u;
    uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32;
    uint64_t p0 = a_lo * b, p1 = a_hi * b;
    lo = p0 + (p1 << 32);
    hi = (p1 >> 32) + (lo < p0);
    uint64_t quot = 0, rem = 0;
    for (int i = 127; i >= 0; i--) {
        uint64_t bit = i >= 64 ? (hi >> (i - 64)) & 1 : (lo >> i) & 1;
        int carry = (rem >> 63) != 0;
        rem = (rem << 1) | bit;
        quot <<= 1;
        if (carry || rem >= ticks_per_second) {
            rem -= ticks_per_second;
            quot |= 1;
        }
    }
    uint64_t v = q * 1000000000u + quot;
    if (v > (uint64_t)INT64_MAX)
        return -1;
    *ns = (int64_t)v;
    return 0;
#endif
}

void fxt_rate_set(fxt_rate *r, uint64_t ticks_per_second)
{
    uint64_t a = 1000000000u, b = ticks_per_second;
    while (b) { /* gcd */
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    r->tps = ticks_per_second;
    r->mul = 1000000000u / a;
    r->div = ticks_per_second / a;
    r->recip = UINT64_MAX / r->div;
    r->max_ticks = UINT64_MAX / r->mul;
}
