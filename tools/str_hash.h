/*
 * str_hash: a fast non-cryptographic hash for the stats tables. Eight
 * bytes per step matter: stats hashes every event's name.
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

static inline uint64_t str_hash(const char *s, size_t len)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
        s += 8;
        len -= 8;
    }
    uint64_t tail = 0;
    memcpy(&tail, s, len);
    return mix64(h ^ tail);
}

#endif
