#include "fxt_build.h"

#include <stdlib.h>
#include <string.h>

void fxb_init(fxb *b) { memset(b, 0, sizeof *b); }
void fxb_free(fxb *b) { free(b->d); memset(b, 0, sizeof *b); }

static void put(fxb *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->d = realloc(b->d, b->cap);
        if (!b->d)
            abort();
    }
    memcpy(b->d + b->len, p, n);
    b->len += n;
}

void fxb_word(fxb *b, uint64_t w)
{
    unsigned char x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (unsigned char)(w >> (8 * i));
    put(b, x, 8);
}

void fxb_stream(fxb *b, const void *s, size_t n)
{
    static const unsigned char zero[8];
    put(b, s, n);
    if (n % 8)
        put(b, zero, 8 - n % 8);
}

size_t fxb_begin(fxb *b, uint64_t header)
{
    size_t start = b->len;
    fxb_word(b, header);
    return start;
}

void fxb_end(fxb *b, size_t start)
{
    uint64_t h = 0, words = (b->len - start) / 8;
    for (int i = 7; i >= 0; i--)
        h = (h << 8) | b->d[start + i];
    if ((h & 15) == 15)
        h = (h & ~(UINT64_C(0xffffffff) << 4)) | (words << 4);
    else
        h = (h & ~(UINT64_C(0xfff) << 4)) | (words << 4);
    for (int i = 0; i < 8; i++)
        b->d[start + i] = (unsigned char)(h >> (8 * i));
}

void fxb_magic(fxb *b) { fxb_word(b, UINT64_C(0x0016547846040010)); }

void fxb_provider_info(fxb *b, uint32_t id, const char *name)
{
    size_t n = strlen(name);
    size_t s = fxb_begin(b, 0 | (UINT64_C(1) << 16) | ((uint64_t)id << 20) | ((uint64_t)n << 52));
    fxb_stream(b, name, n);
    fxb_end(b, s);
}

void fxb_provider_section(fxb *b, uint32_t id)
{
    size_t s = fxb_begin(b, 0 | (UINT64_C(2) << 16) | ((uint64_t)id << 20));
    fxb_end(b, s);
}

void fxb_preamble(fxb *b)
{
    fxb_magic(b);
    fxb_provider_info(b, 7, "prov");
    fxb_init_record(b, 1000000000);
    fxb_string(b, 1, "cat");
    fxb_string(b, 2, "name");
    fxb_thread(b, 1, 100, 101);
}

void fxb_init_record(fxb *b, uint64_t tps)
{
    size_t s = fxb_begin(b, 1);
    fxb_word(b, tps);
    fxb_end(b, s);
}

void fxb_string(fxb *b, unsigned idx, const char *str)
{
    size_t n = strlen(str);
    size_t s = fxb_begin(b, 2 | ((uint64_t)idx << 16) | ((uint64_t)n << 32));
    fxb_stream(b, str, n);
    fxb_end(b, s);
}

void fxb_thread(fxb *b, unsigned idx, uint64_t pid, uint64_t tid)
{
    size_t s = fxb_begin(b, 3 | ((uint64_t)idx << 16));
    fxb_word(b, pid);
    fxb_word(b, tid);
    fxb_end(b, s);
}

size_t fxb_event(fxb *b, unsigned type, unsigned nargs, unsigned tref, unsigned cref,
                 unsigned nref, uint64_t ticks)
{
    size_t s = fxb_begin(b, 4 | ((uint64_t)type << 16) | ((uint64_t)nargs << 20) |
                                ((uint64_t)tref << 24) | ((uint64_t)cref << 32) |
                                ((uint64_t)nref << 48));
    fxb_word(b, ticks);
    return s;
}

void fxb_arg(fxb *b, unsigned type, const char *name, uint64_t value_hi, const uint64_t *words,
             size_t nwords)
{
    size_t n = strlen(name);
    size_t s = fxb_begin(b, type | ((uint64_t)FXB_INLINE(n) << 16) | (value_hi << 32));
    fxb_stream(b, name, n);
    for (size_t i = 0; i < nwords; i++)
        fxb_word(b, words[i]);
    fxb_end(b, s);
}
