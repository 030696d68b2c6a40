/*
 * libFuzzer harness for the Perfetto lazy args codec alone
 * (lib/perfetto/pf_args.c): the input is a small interning table and the
 * bytes of one TrackEvent, iterated through the public iterator as
 * TREAD_ARGS_PERFETTO args with a fake pf_args_ctx.
 *
 * Input: [k] then k interned messages as [len:1][bytes], then the
 * TrackEvent. lookup(field, iid) answers message (field + iid) % k, except
 * that iids that are multiples of 5 are unknown. Every message and the
 * event sit in their own exactly sized heap blocks, so ASan sees any read
 * outside them.
 *
 * Checks: depths and keys as tread.h says (keys NULL in arrays and on
 * *_END), containers balanced (also when the data is malformed), depth at
 * most TREAD_ARGS_ITER_MAX_NEST, the end stays the end, two plain walks
 * deliver the same, a walk with random skips delivers a subsequence of the
 * plain one's top-level args, tread_args_find finds the first top-level
 * key with its type.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tread.h>

#include "harness.h"
#include "perfetto/pf_args.h"

#define PF_FUZZ_MAX_INTERNED 16

typedef struct fake_table {
    unsigned char *msg[PF_FUZZ_MAX_INTERNED];
    size_t len[PF_FUZZ_MAX_INTERNED];
    size_t n;
} fake_table;

static int fake_lookup(const void *seq, uint32_t field, uint64_t iid, const unsigned char **msg,
                       size_t *len)
{
    const fake_table *t = seq;
    if (!t->n || iid % 5 == 0)
        return 0;
    size_t i = (size_t)((field + iid) % t->n);
    *msg = t->msg[i];
    *len = t->len[i];
    return 1;
}

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3u; }

static uint64_t mix_str(uint64_t h, tread_str s)
{
    if (!s.ptr) {
        if (s.len)
            fuzz_fail("tread_str with a length but no pointer");
        return mix(h, 0xabad1dea);
    }
    h = mix(h, s.len);
    for (size_t i = 0; i < s.len; i++)
        h = mix(h, (unsigned char)s.ptr[i]);
    return h;
}

static uint64_t mix_arg(uint64_t h, const tread_arg *a)
{
    h = mix(h, (uint64_t)a->type);
    h = mix(h, (uint64_t)a->depth);
    h = mix_str(h, a->key);
    h = mix_str(h, a->text);
    switch (a->type) {
    case TREAD_ARG_STRING:
    case TREAD_ARG_BYTES:
        return mix_str(h, a->v.s);
    case TREAD_ARG_BOOL:
        return mix(h, (uint64_t)a->v.b);
    case TREAD_ARG_INT:
    case TREAD_ARG_UINT:
    case TREAD_ARG_POINTER:
    case TREAD_ARG_KOID:
        return mix(h, a->v.u);
    case TREAD_ARG_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &a->v.d, 8);
        return mix(h, bits);
    }
    default:
        return h;
    }
}

/* The first top-level argument, its key copied (the walk's own copy is
 * checked against it: keys must outlive the iterator's later calls). */
typedef struct first_arg {
    int have;
    tread_arg_type type;
    char key[64];
    size_t key_len; /* SIZE_MAX: no key, or too long to copy */
} first_arg;

/* One walk; skips containers at random when rng is given. Returns the
 * digest of what came out; *top gets the digest of the top-level args
 * (only their BEGIN for containers, so skipping does not change it). */
static uint64_t walk(const tread_args *a, fuzz_rng *rng, uint64_t *top, first_arg *first,
                     int *failed)
{
    tread_args_iter it;
    tread_arg v;
    char kinds[TREAD_ARGS_ITER_MAX_NEST + 1];
    int open = 0;
    uint64_t h = 0xcbf29ce484222325u, t = h;
    const char *first_key = NULL;
    first->have = 0;
    tread_args_iter_init(&it, a);
    while (tread_args_next(&it, &v)) {
        if ((unsigned)v.type > TREAD_ARG_ARRAY_END)
            fuzz_fail("tread_arg.type out of range");
        int is_end = v.type == TREAD_ARG_DICT_END || v.type == TREAD_ARG_ARRAY_END;
        if (is_end) {
            if (open == 0)
                fuzz_fail("*_END without *_BEGIN");
            open--;
            if (kinds[open] != (v.type == TREAD_ARG_DICT_END ? 'd' : 'a'))
                fuzz_fail("*_END of another kind than its *_BEGIN");
        }
        if (v.depth != open)
            fuzz_fail("tread_arg.depth is not the nesting");
        int in_array = open > 0 && kinds[open - 1] == 'a';
        if ((is_end || in_array) != (v.key.ptr == NULL))
            fuzz_fail("key NULL exactly in arrays and on *_END");
        h = mix_arg(h, &v);
        if (v.depth == 0 && !is_end) {
            t = mix_arg(t, &v);
            if (!first->have) {
                first->have = 1;
                first->type = v.type;
                first->key_len = SIZE_MAX;
                if (v.key.ptr && v.key.len < sizeof first->key) {
                    memcpy(first->key, v.key.ptr, v.key.len);
                    first->key_len = v.key.len;
                    first_key = v.key.ptr;
                }
            }
        }
        if (v.type == TREAD_ARG_DICT_BEGIN || v.type == TREAD_ARG_ARRAY_BEGIN) {
            if (open == TREAD_ARGS_ITER_MAX_NEST)
                fuzz_fail("nesting deeper than TREAD_ARGS_ITER_MAX_NEST");
            if (rng && fuzz_rng_below(rng, 4) == 0)
                tread_args_skip(&it);
            else
                kinds[open++] = v.type == TREAD_ARG_DICT_BEGIN ? 'd' : 'a';
        }
    }
    if (open != 0)
        fuzz_fail("a container left open");
    if (first_key && memcmp(first_key, first->key, first->key_len) != 0)
        fuzz_fail("a key changed before the callback would return");
    if (tread_args_next(&it, &v))
        fuzz_fail("an argument after the end");
    *failed = tread_args_iter_failed(&it);
    *top = t;
    return h;
}

static unsigned char *exact_copy(const uint8_t *p, size_t n)
{
    unsigned char *c = malloc(n ? n : 1);
    if (!c)
        abort();
    if (n)
        memcpy(c, p, n);
    return c;
}

__attribute__((visibility("default")))
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fake_table t;
    size_t off = 0;
    memset(&t, 0, sizeof t);
    if (size > 0) {
        size_t k = data[off++] % (PF_FUZZ_MAX_INTERNED + 1);
        while (t.n < k && off < size) {
            size_t n = data[off++];
            if (n > size - off)
                n = size - off;
            t.msg[t.n] = exact_copy(data + off, n);
            t.len[t.n++] = n;
            off += n;
        }
    }
    unsigned char *ev = exact_copy(data + off, size - off);
    pf_args_ctx ctx = {fake_lookup, &t};
    tread_args a = {ev, size - off, TREAD_ARGS_PERFETTO, &ctx};

    fuzz_rng rng;
    fuzz_rng_init(&rng, data, size);
    first_arg first, first2;
    tread_arg found;
    int failed, failed2;
    uint64_t top, top2;
    uint64_t h1 = walk(&a, NULL, &top, &first, &failed);
    uint64_t h2 = walk(&a, NULL, &top2, &first2, &failed2);
    if (h1 != h2 || top != top2 || failed != failed2)
        fuzz_fail("two plain walks differ");
    /* Skipping changes nothing at the top level unless the data fails
     * inside what a skip passes over (then the plain walk ends earlier). */
    (void)walk(&a, &rng, &top2, &first2, &failed2);
    if (!failed && !failed2 && top != top2)
        fuzz_fail("a walk with skips gives other top-level args");

    static const char *const keys[] = {"a", "a.b", "a.0", "a.b.2", "source_location.line_number",
                                       "log_message.body", "<unknown iid>", "x.y.z"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (tread_args_find(&a, keys[i], strlen(keys[i]), &found))
            (void)mix_arg(0, &found);
    if (first.have && first.key_len != SIZE_MAX && !memchr(first.key, '.', first.key_len)) {
        if (!tread_args_find(&a, first.key, first.key_len, &found))
            fuzz_fail("tread_args_find misses the first top-level key");
        if (found.type != first.type)
            fuzz_fail("tread_args_find gives another type than the iterator");
    }

    free(ev);
    for (size_t i = 0; i < t.n; i++)
        free(t.msg[i]);
    return 0;
}
