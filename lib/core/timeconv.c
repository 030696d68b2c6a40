#include "core/timeconv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double pow10_exact[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

double timeconv_parse_double(const char *s, size_t n)
{
    /* Fast path (exact): at most 15 significant digits and a small power
     * of ten, both exactly representable, so one IEEE operation rounds
     * correctly. Everything else goes to strtod. */
    size_t k = 0;
    int neg = 0, digits = 0, exp10 = 0;
    uint64_t m = 0;
    if (k < n && s[k] == '-') { neg = 1; k++; }
    for (; k < n && s[k] >= '0' && s[k] <= '9'; k++) {
        if (m == 0 && s[k] == '0') continue;
        m = m * 10 + (uint64_t)(s[k] - '0');
        if (++digits > 15) goto slow;
    }
    if (k < n && s[k] == '.') {
        for (k++; k < n && s[k] >= '0' && s[k] <= '9'; k++) {
            exp10--;
            if (m == 0 && s[k] == '0') continue;
            m = m * 10 + (uint64_t)(s[k] - '0');
            if (++digits > 15) goto slow;
        }
    }
    if (k < n && (s[k] == 'e' || s[k] == 'E')) {
        int eneg = 0, e = 0;
        k++;
        if (k < n && (s[k] == '+' || s[k] == '-')) eneg = s[k++] == '-';
        for (; k < n && s[k] >= '0' && s[k] <= '9'; k++) {
            e = e * 10 + (s[k] - '0');
            if (e > 10000) goto slow;
        }
        exp10 += eneg ? -e : e;
    }
    if (k != n)
        goto slow;
    {
        double d = (double)m;
        if (m == 0)
            return neg ? -0.0 : 0.0;
        if (exp10 >= 0 && exp10 <= 22)
            d *= pow10_exact[exp10];
        else if (exp10 < 0 && exp10 >= -22)
            d /= pow10_exact[-exp10];
        else
            goto slow;
        return neg ? -d : d;
    }
slow:;
    char tmp[512];
    if (n >= sizeof tmp)
        n = sizeof tmp - 1; /* absurdly long literals lose their tail */
    memcpy(tmp, s, n);
    tmp[n] = 0;
    return strtod(tmp, NULL);
}

#if !defined(__SIZEOF_INT128__)
#error "tread needs a compiler with unsigned __int128 (gcc or clang on a 64-bit target)"
#endif
__extension__ typedef unsigned __int128 u128;

/* The usual shapes: [-]digits[.digits], at most 15 digits in all and no
 * more fraction digits than the scale. Exact in 64 bits (< 10^18), no
 * rounding. Returns 0 when it does not apply. */
static int decimal_scaled_fast(const char *s, size_t n, int scale_pow10, int64_t *out)
{
    static const int64_t pow10[] = {1, 10, 100, 1000};
    size_t k = 0;
    int neg = 0, digits = 0, frac = 0;
    int64_t m = 0;
    if (scale_pow10 < 0 || scale_pow10 > 3 || n == 0 || n > 17)
        return 0;
    if (s[0] == '-') {
        neg = 1;
        k = 1;
    }
    for (; k < n && s[k] >= '0' && s[k] <= '9'; k++, digits++)
        m = m * 10 + (s[k] - '0');
    if (k < n && s[k] == '.') {
        for (k++; k < n && s[k] >= '0' && s[k] <= '9'; k++, digits++, frac++)
            m = m * 10 + (s[k] - '0');
        if (frac == 0)
            return 0; /* "1." is for the full parser to judge */
    }
    if (k != n || digits == 0 || digits > 15 || frac > scale_pow10)
        return 0;
    m *= pow10[scale_pow10 - frac];
    *out = neg ? -m : m;
    return 1;
}

int timeconv_decimal_scaled(const char *s, size_t n, int scale_pow10, int64_t *out)
{
    if (decimal_scaled_fast(s, n, scale_pow10, out))
        return 0;
    size_t k = 0;
    while (k < n && (s[k] == ' ' || s[k] == '\t')) k++;
    while (n > k && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    int neg = 0;
    if (k < n && (s[k] == '-' || s[k] == '+'))
        neg = s[k++] == '-';
    u128 m = 0;
    int sig = 0, any = 0, sticky = 0;
    long exp10 = scale_pow10;
    for (; k < n && s[k] >= '0' && s[k] <= '9'; k++) {
        any = 1;
        if (m == 0 && s[k] == '0') continue;
        if (sig < 36) { m = m * 10 + (unsigned)(s[k] - '0'); sig++; }
        else { exp10++; sticky |= s[k] != '0'; }
    }
    if (k < n && s[k] == '.') {
        for (k++; k < n && s[k] >= '0' && s[k] <= '9'; k++) {
            any = 1;
            if (m == 0 && s[k] == '0') { exp10--; continue; }
            if (sig < 36) { m = m * 10 + (unsigned)(s[k] - '0'); sig++; exp10--; }
            else sticky |= s[k] != '0';
        }
    }
    if (!any)
        return -1;
    if (k < n && (s[k] == 'e' || s[k] == 'E')) {
        int eneg = 0;
        long e = 0;
        k++;
        if (k < n && (s[k] == '+' || s[k] == '-')) eneg = s[k++] == '-';
        if (k == n) return -1;
        for (; k < n && s[k] >= '0' && s[k] <= '9'; k++)
            if (e < 100000) e = e * 10 + (s[k] - '0');
        exp10 += eneg ? -e : e;
    }
    if (k != n)
        return -1;
    if (m == 0) {
        *out = 0;
        return 0;
    }
    const u128 limit = (u128)INT64_MAX + (neg ? 1 : 0);
    if (exp10 > 0) {
        for (long e = 0; e < exp10; e++) {
            if (m > limit / 10) return -2;
            m *= 10;
        }
    } else if (exp10 < 0) {
        if (exp10 < -38) {
            m = 0;
        } else {
            u128 div = 1;
            for (long e = 0; e < -exp10; e++) div *= 10;
            u128 q = m / div, r = m % div;
            /* half away from zero; sticky digits only matter at exactly half */
            if (r * 2 > div || (r * 2 == div)) q++;
            (void)sticky;
            m = q;
        }
    }
    if (m > limit)
        return -2;
    *out = neg ? (m == (u128)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m) : (int64_t)m;
    return 0;
}

uint64_t timeconv_hash64(const char *s, size_t n)
{
    uint64_t h = 14695981039346656037ULL; /* FNV-1a 64 offset basis */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}
