/* Per-provider string and thread tables (see fxt_tables.h). */
#include "fxt/fxt_tables.h"

#include <string.h>

static int charge(fxt_tables *t, uint64_t n)
{
    if (n > t->max_interned || t->interned > t->max_interned - n)
        return -2;
    t->interned += n;
    return 0;
}

static void refund(fxt_tables *t, uint64_t n)
{
    t->interned = n > t->interned ? 0 : t->interned - n;
}

static void provider_init(fxt_provider *pv, uint32_t id)
{
    memset(pv, 0, sizeof *pv);
    pv->id = id;
    pv->ticks_per_second = FXT_DEFAULT_TICKS_PER_SECOND;
    fxt_rate_set(&pv->rate, FXT_DEFAULT_TICKS_PER_SECOND);
}

void fxt_tables_init(fxt_tables *t, const tread_alloc *a, uint64_t max_interned)
{
    memset(t, 0, sizeof *t);
    t->a = a;
    t->max_interned = max_interned;
    provider_init(&t->implicit, 0);
    t->implicit.implicit = 1;
}

static void provider_free_tables(fxt_tables *t, fxt_provider *pv)
{
    if (pv->strings) {
        refund(t, (uint64_t)pv->string_slots * sizeof *pv->strings);
        tread_free(t->a, pv->strings);
    }
    while (pv->blocks) {
        fxt_block *b = pv->blocks;
        pv->blocks = b->next;
        refund(t, b->size);
        tread_free(t->a, b);
    }
    if (pv->threads) {
        refund(t, FXT_THREAD_SLOTS * sizeof *pv->threads);
        tread_free(t->a, pv->threads);
    }
    pv->strings = NULL;
    pv->string_slots = 0;
    pv->threads = NULL;
}

static void provider_free(fxt_tables *t, fxt_provider *pv)
{
    provider_free_tables(t, pv);
    if (pv->name) {
        refund(t, pv->name_len + 1);
        tread_free(t->a, pv->name);
    }
    pv->name = NULL;
    pv->name_len = 0;
}

void fxt_tables_free(fxt_tables *t)
{
    for (size_t i = 0; i < t->nslots; i++) {
        if (t->slots[i]) {
            provider_free(t, t->slots[i]);
            tread_free(t->a, t->slots[i]);
        }
    }
    tread_free(t->a, t->slots);
    provider_free(t, &t->implicit);
    t->slots = NULL;
    t->nslots = t->count = 0;
}

static size_t slot_of(uint32_t id, size_t nslots)
{
    uint32_t h = id * 0x9e3779b1u;
    return (size_t)(h ^ (h >> 15)) & (nslots - 1);
}

static int grow_slots(fxt_tables *t)
{
    size_t n = t->nslots ? t->nslots * 2 : 16;
    if (charge(t, (uint64_t)(n - t->nslots) * sizeof *t->slots))
        return -2;
    fxt_provider **s = tread_malloc(t->a, n * sizeof *s);
    if (!s) {
        refund(t, (uint64_t)(n - t->nslots) * sizeof *t->slots);
        return -1;
    }
    memset(s, 0, n * sizeof *s);
    for (size_t i = 0; i < t->nslots; i++) {
        fxt_provider *pv = t->slots[i];
        if (!pv)
            continue;
        size_t j = slot_of(pv->id, n);
        while (s[j])
            j = (j + 1) & (n - 1);
        s[j] = pv;
    }
    tread_free(t->a, t->slots);
    t->slots = s;
    t->nslots = n;
    return 0;
}

fxt_provider *fxt_provider_get(fxt_tables *t, uint32_t id, int *created, int *rc)
{
    *created = 0;
    *rc = 0;
    if (t->nslots) {
        size_t j = slot_of(id, t->nslots);
        while (t->slots[j]) {
            if (t->slots[j]->id == id)
                return t->slots[j];
            j = (j + 1) & (t->nslots - 1);
        }
    }
    if ((t->count + 1) * 2 > t->nslots && (*rc = grow_slots(t)) != 0)
        return NULL;
    if ((*rc = charge(t, sizeof(fxt_provider))) != 0)
        return NULL;
    fxt_provider *pv = tread_malloc(t->a, sizeof *pv);
    if (!pv) {
        refund(t, sizeof(fxt_provider));
        *rc = -1;
        return NULL;
    }
    provider_init(pv, id);
    size_t j = slot_of(id, t->nslots);
    while (t->slots[j])
        j = (j + 1) & (t->nslots - 1);
    t->slots[j] = pv;
    t->count++;
    *created = 1;
    return pv;
}

void fxt_provider_reset(fxt_tables *t, fxt_provider *pv)
{
    (void)t;
    for (uint32_t i = 1; i < pv->string_slots; i++) /* [0] stays "" */
        pv->strings[i].len = FXT_STRING_UNSET;
    if (pv->threads)
        memset(pv->threads, 0, FXT_THREAD_SLOTS * sizeof *pv->threads);
    pv->ticks_per_second = FXT_DEFAULT_TICKS_PER_SECOND;
    fxt_rate_set(&pv->rate, FXT_DEFAULT_TICKS_PER_SECOND);
}

int fxt_provider_set_name(fxt_tables *t, fxt_provider *pv, const char *s, size_t n)
{
    if (pv->name && pv->name_len == n && memcmp(pv->name, s, n) == 0)
        return 0;
    int rc = charge(t, n + 1);
    if (rc)
        return rc;
    char *c = tread_malloc(t->a, n + 1);
    if (!c) {
        refund(t, n + 1);
        return -1;
    }
    if (n)
        memcpy(c, s, n);
    c[n] = '\0';
    if (pv->name) {
        refund(t, pv->name_len + 1);
        tread_free(t->a, pv->name);
    }
    pv->name = c;
    pv->name_len = n;
    return 0;
}

static char *arena_take(fxt_tables *t, fxt_provider *pv, size_t n, int *rc);

static int grow_strings(fxt_tables *t, fxt_provider *pv, unsigned idx)
{
    uint32_t n = pv->string_slots ? pv->string_slots : 64;
    while (n <= idx)
        n *= 2;
    if (n > FXT_STRING_SLOTS)
        n = FXT_STRING_SLOTS;
    uint64_t more = (uint64_t)(n - pv->string_slots) * sizeof *pv->strings;
    int rc = charge(t, more);
    if (rc)
        return rc;
    fxt_string *s = tread_realloc(t->a, pv->strings, (size_t)n * sizeof *s);
    if (!s) {
        refund(t, more);
        return -1;
    }
    for (uint32_t i = pv->string_slots; i < n; i++) {
        s[i].ptr = NULL;
        s[i].len = FXT_STRING_UNSET;
        s[i].cap = 0;
    }
    pv->strings = s;
    if (pv->string_slots == 0) {
        /* index 0, the empty string ref, resolves like any other index
         * (one test fewer per ref in fxt_fast.h); nothing is stored to it */
        pv->string_slots = n;
        char *c = arena_take(t, pv, 16, &rc);
        if (!c)
            return rc;
        c[0] = '\0';
        s[0].ptr = c;
        s[0].len = 0;
        s[0].cap = 16;
    }
    pv->string_slots = n;
    return 0;
}

/* Room for n bytes (n a multiple of 16) in the provider's arena. */
static char *arena_take(fxt_tables *t, fxt_provider *pv, size_t n, int *rc)
{
    fxt_block *b = pv->blocks;
    if (!b || b->size - b->used < n) {
        /* blocks grow from 1 KiB to 64 KiB; a longer string gets its own */
        const size_t hdr = (sizeof(fxt_block) + 15) & ~(size_t)15;
        size_t size = b ? (b->size < 65536 ? b->size * 2 : 65536) : 1024;
        while (size < hdr + n)
            size *= 2;
        if ((*rc = charge(t, size)) != 0)
            return NULL;
        fxt_block *nb = tread_malloc(t->a, size);
        if (!nb) {
            refund(t, size);
            *rc = -1;
            return NULL;
        }
        nb->size = size;
        nb->used = hdr;
        if (b && b->size - b->used >= nb->size - nb->used - n) {
            /* the current block keeps more room: the new one goes behind */
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            pv->blocks = nb;
        }
        b = nb;
    }
    char *c = (char *)b + b->used;
    b->used += n;
    return c;
}

int fxt_string_put(fxt_tables *t, fxt_provider *pv, unsigned idx, const char *s, size_t n)
{
    int rc;
    if (idx >= pv->string_slots && (rc = grow_strings(t, pv, idx)) != 0)
        return rc;
    fxt_string *e = &pv->strings[idx];
    if (e->cap < n + 1) {
        /* at least twice the old room: a slot that keeps growing leaves
         * behind at most as much as it holds */
        size_t cap = (n + 1 + 15) & ~(size_t)15;
        if (e->cap && cap < (size_t)e->cap * 2)
            cap = (size_t)e->cap * 2;
        char *c = arena_take(t, pv, cap, &rc);
        if (!c)
            return rc;
        e->ptr = c;
        e->cap = (uint32_t)cap;
    }
    if (n)
        memcpy(e->ptr, s, n);
    e->ptr[n] = '\0';
    e->len = (uint32_t)n;
    return 0;
}

int fxt_thread_put(fxt_tables *t, fxt_provider *pv, unsigned idx, uint64_t pid, uint64_t tid)
{
    if (!pv->threads) {
        int rc = charge(t, FXT_THREAD_SLOTS * sizeof *pv->threads);
        if (rc)
            return rc;
        pv->threads = tread_malloc(t->a, FXT_THREAD_SLOTS * sizeof *pv->threads);
        if (!pv->threads) {
            refund(t, FXT_THREAD_SLOTS * sizeof *pv->threads);
            return -1;
        }
        memset(pv->threads, 0, FXT_THREAD_SLOTS * sizeof *pv->threads);
    }
    pv->threads[idx].pid = pid;
    pv->threads[idx].tid = tid;
    pv->threads[idx].set = 1;
    return 0;
}
