/*
 * Per-provider state of an FXT archive: the string table (indices
 * 1..32767), the thread table (1..255) and the tick rate. The "Provider
 * section metadata" section of the format document asks readers to keep
 * these separately for each provider and switch between them.
 *
 * Tables are arrays indexed directly (O(1) lookups), allocated when a
 * provider first registers an entry and grown to the highest index used.
 * Every byte they hold counts against TREAD_OPT_MAX_INTERNED_BYTES.
 */
#ifndef TREAD_FXT_TABLES_H
#define TREAD_FXT_TABLES_H

#include <stddef.h>
#include <stdint.h>
#include "core/alloc.h"
#include "fxt/fxt_time.h"

#define FXT_STRING_SLOTS 32768u
#define FXT_THREAD_SLOTS 256u
#define FXT_DEFAULT_TICKS_PER_SECOND UINT64_C(1000000000)

typedef struct fxt_string {
    char *ptr;          /* NUL-terminated copy in the provider's arena (kept
                           when a reset empties the slot, for the next
                           registration to reuse) */
    uint32_t len, cap;  /* len FXT_STRING_UNSET: not registered */
} fxt_string;
/* Index 0 of a provider's table (once it has one) is the empty string, set
 * when the table is made and never replaced or reset. */

/* String storage: blocks bump-allocated, freed with the provider. A slot
 * whose string outgrows its room moves to one at least twice as large, so
 * the room left behind is at most what the slots hold. */
typedef struct fxt_block {
    struct fxt_block *next;
    size_t size, used;
    /* the bytes follow */
} fxt_block;

#define FXT_STRING_UNSET UINT32_MAX

typedef struct fxt_thread {
    uint64_t pid, tid;  /* process and thread koids */
    int set;
} fxt_thread;

typedef struct fxt_provider {
    uint32_t id;
    int implicit;       /* holds the records before any provider metadata */
    char *name;         /* NUL-terminated; NULL until provider info names it */
    size_t name_len;
    uint64_t ticks_per_second;
    fxt_rate rate;          /* ticks_per_second prepared (fxt_time.h) */
    fxt_string *strings;
    uint32_t string_slots;  /* indices below this are in the array */
    fxt_thread *threads;    /* FXT_THREAD_SLOTS entries, or NULL */
    fxt_block *blocks;      /* the string arena, newest first */
} fxt_provider;

typedef struct fxt_tables {
    const tread_alloc *a;
    fxt_provider **slots;   /* open addressing on the provider id */
    size_t nslots, count;
    fxt_provider implicit;
    uint64_t interned, max_interned;
} fxt_tables;

/* Status of the calls that store: 0, or -1 out of memory, -2 over the
 * interned-bytes limit. */
void fxt_tables_init(fxt_tables *t, const tread_alloc *a, uint64_t max_interned);
void fxt_tables_free(fxt_tables *t);

/* The provider with this id, created (empty, default tick rate) when
 * absent; NULL with *rc set on failure. *created says whether it is new. */
fxt_provider *fxt_provider_get(fxt_tables *t, uint32_t id, int *created, int *rc);
/* Forgets the provider's strings, threads and tick rate (the memory is
 * kept for the registrations that follow). */
void fxt_provider_reset(fxt_tables *t, fxt_provider *pv);
int fxt_provider_set_name(fxt_tables *t, fxt_provider *pv, const char *s, size_t n);

/* Registers (replaces) a string; idx 1..32767. */
int fxt_string_put(fxt_tables *t, fxt_provider *pv, unsigned idx, const char *s, size_t n);
/* Registers (replaces) a thread; idx 1..255. */
int fxt_thread_put(fxt_tables *t, fxt_provider *pv, unsigned idx, uint64_t pid, uint64_t tid);

/* Lookups: NULL when the index was never registered. */
static inline const fxt_string *fxt_string_get(const fxt_provider *pv, unsigned idx)
{
    if (idx >= pv->string_slots || pv->strings[idx].len == FXT_STRING_UNSET)
        return NULL;
    return &pv->strings[idx];
}

static inline const fxt_thread *fxt_thread_get(const fxt_provider *pv, unsigned idx)
{
    if (!pv->threads || idx >= FXT_THREAD_SLOTS || !pv->threads[idx].set)
        return NULL;
    return &pv->threads[idx];
}

#endif
