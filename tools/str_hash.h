/*
 * str_hash: a fast non-cryptographic hash and equality test for the stats
 * tables, which see every event's name. Names are short (most under 16
 * bytes), so both read a short string with two overlapping loads instead
 * of a byte loop or a call to memcpy/memcmp with a variable length.
 */
#ifndef TREAD_TOOLS_STR_HASH_H
#define TREAD_TOOLS_STR_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t mix64(uint64_t h)
{
    /* The splitmix64 finaliser. */
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    return h;
}

static inline uint64_t str_load64(const char *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
    return w;
}

static inline uint64_t str_load32(const char *s)
{
    uint32_t w;
    memcpy(&w, s, 4);
    return w;
}

/* Two words that together hold all of s (len <= 16): overlapping loads. */
static inline void str_words(const char *s, size_t len, uint64_t *a, uint64_t *b)
{
    if (len >= 8) {
        *a = str_load64(s);
        *b = str_load64(s + len - 8);
    } else if (len >= 4) {
        *a = str_load32(s);
        *b = str_load32(s + len - 4);
    } else if (len > 0) {
        *a = (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[len / 2] << 8 |
             (uint64_t)(unsigned char)s[len - 1] << 16;
        *b = 0;
    } else {
        *a = *b = 0;
    }
}

static inline uint64_t str_hash(const char *s, size_t len)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ len, a, b;
    if (len > 16) {
        /* whole words, then the last eight bytes (overlapping the last
         * word read when len is not a multiple of eight) */
        const char *last = s + len - 8;
        for (; s < last; s += 8) {
            h = (h ^ str_load64(s)) * 0x100000001b3ull;
            h ^= h >> 29;
        }
        a = str_load64(last);
        b = 0;
    } else {
        str_words(s, len, &a, &b);
    }
    h = (h ^ a) * 0xbf58476d1ce4e5b9ull;
    h ^= b;
    return mix64(h);
}

/* a and b hold len bytes each: equal? */
static inline int str_eq(const char *a, const char *b, size_t len)
{
    if (len <= 16) {
        uint64_t a0, a1, b0, b1;
        str_words(a, len, &a0, &a1);
        str_words(b, len, &b0, &b1);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    return memcmp(a, b, len) == 0;
}

#endif
