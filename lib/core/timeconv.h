/* Exact conversions of number text: microseconds to int64 nanoseconds,
 * integers, doubles. No locale, no detour through double for times. */
#ifndef TREAD_CORE_TIMECONV_H
#define TREAD_CORE_TIMECONV_H

#include <stddef.h>
#include <stdint.h>

enum { TIMECONV_NOT_INT = 0, TIMECONV_INT, TIMECONV_UINT };

/* A plain JSON integer ("-12", "18446744073709551615"): TIMECONV_INT with
 * *i, TIMECONV_UINT with *u (above INT64_MAX), else TIMECONV_NOT_INT (not
 * an integer, or beyond 64 bits). Inline: the decoders read pids, tids
 * and cookies with it. */
static inline int timeconv_parse_integer(const char *s, size_t n, int64_t *i, uint64_t *u)
{
    size_t k = 0;
    int neg = 0;
    if (k < n && s[k] == '-') {
        neg = 1;
        k++;
    }
    if (k == n)
        return TIMECONV_NOT_INT;
    uint64_t v = 0;
    if (n - k <= 19) {
        /* 19 digits stay below 10^19 < 2^64: no overflow test a digit
         * (the common case: pids, tids, cookies) */
        for (; k < n; k++) {
            unsigned d = (unsigned char)s[k] - '0';
            if (d > 9)
                return TIMECONV_NOT_INT;
            v = v * 10 + d;
        }
    }
    for (; k < n; k++) {
        unsigned d = (unsigned char)s[k] - '0';
        if (d > 9)
            return TIMECONV_NOT_INT;
        if (v > (UINT64_MAX - d) / 10)
            return TIMECONV_NOT_INT;
        v = v * 10 + d;
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1)
            return TIMECONV_NOT_INT;
        *i = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
        return TIMECONV_INT;
    }
    if (v <= (uint64_t)INT64_MAX) {
        *i = (int64_t)v;
        return TIMECONV_INT;
    }
    *u = v;
    return TIMECONV_UINT;
}

/* Any JSON number text to the nearest double. */
double timeconv_parse_double(const char *s, size_t n);

/* Decimal text (integer, fraction, exponent; surrounding blanks allowed,
 * as found in string-valued timestamps) scaled by 10^scale_pow10 and
 * rounded to the nearest integer, half away from zero. Microseconds to
 * nanoseconds is scale_pow10 = 3. Returns 0, -1 for text that is not a
 * number, -2 when the result does not fit in int64. */
int timeconv_decimal_scaled(const char *s, size_t n, int scale_pow10, int64_t *out);

/* A stable 64-bit hash (FNV-1a) for synthetic ids of string pids/tids. */
uint64_t timeconv_hash64(const char *s, size_t n);

#endif
