/* Adler-32 of the zlib-wrapped compressed packets (pf_decoder.c inflates
 * them raw and checks the trailer itself): the same sums as zlib's
 * adler32(), 16 bytes at a time with SSE2 where there is SSE2. zlib's own
 * is a byte loop and cost ~9% of expanding a deflate packet. */
#include "perfetto/pf_adler32.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define ADLER_BASE 65521u
/* the most bytes before the sums must be reduced (zlib's NMAX; a multiple
 * of 16) */
#define ADLER_NMAX 5552u

uint32_t pf_adler32(uint32_t adler, const unsigned char *p, size_t len)
{
    uint64_t s1 = adler & 0xffff, s2 = adler >> 16;
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    const __m128i w_lo = _mm_setr_epi16(16, 15, 14, 13, 12, 11, 10, 9);
    const __m128i w_hi = _mm_setr_epi16(8, 7, 6, 5, 4, 3, 2, 1);
    while (len >= 16) {
        size_t n = len < ADLER_NMAX ? len & ~(size_t)15 : ADLER_NMAX;
        len -= n;
        /* over n bytes: s2 gains n * s1, then each byte times the number
         * of bytes from it to the end; per 16-byte block that is 16 times
         * the sum of the blocks before it (ps) plus the byte weighted
         * 16..1 inside the block (ws) */
        s2 += (uint64_t)n * s1;
        __m128i vs = zero, ps = zero, ws = zero;
        for (; n; n -= 16, p += 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
            ps = _mm_add_epi32(ps, vs);
            vs = _mm_add_epi32(vs, _mm_sad_epu8(x, zero));
            ws = _mm_add_epi32(ws, _mm_madd_epi16(_mm_unpacklo_epi8(x, zero), w_lo));
            ws = _mm_add_epi32(ws, _mm_madd_epi16(_mm_unpackhi_epi8(x, zero), w_hi));
        }
        uint32_t a[4], b[4], c[4];
        _mm_storeu_si128((__m128i *)(void *)a, vs);
        _mm_storeu_si128((__m128i *)(void *)b, ps);
        _mm_storeu_si128((__m128i *)(void *)c, ws);
        /* (every lane stays below 2^32 within ADLER_NMAX bytes) */
        s1 += (uint64_t)a[0] + a[2];
        s2 += 16 * ((uint64_t)b[0] + b[2]) + c[0] + c[1] + c[2] + c[3];
        s1 %= ADLER_BASE;
        s2 %= ADLER_BASE;
    }
#endif
    while (len) {
        size_t n = len < ADLER_NMAX ? len : ADLER_NMAX;
        len -= n;
        for (; n; n--) {
            s1 += *p++;
            s2 += s1;
        }
        s1 %= ADLER_BASE;
        s2 %= ADLER_BASE;
    }
    return (uint32_t)(s2 << 16 | s1);
}
