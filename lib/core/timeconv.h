/* Exact conversions of number text: microseconds to int64 nanoseconds,
 * integers, doubles. No locale, no detour through double for times. */
#ifndef TREAD_CORE_TIMECONV_H
#define TREAD_CORE_TIMECONV_H

#include <stddef.h>
#include <stdint.h>

enum { TIMECONV_NOT_INT = 0, TIMECONV_INT, TIMECONV_UINT };

/* A plain JSON integer ("-12", "18446744073709551615"): TIMECONV_INT with
 * *i, TIMECONV_UINT with *u (above INT64_MAX), else TIMECONV_NOT_INT (not
 * an integer, or beyond 64 bits). */
int timeconv_parse_integer(const char *s, size_t n, int64_t *i, uint64_t *u);

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
