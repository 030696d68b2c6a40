#include "core/alloc.h"

#include <stdint.h>
#include <stdlib.h>

static void *default_malloc(void *ctx, size_t n) { (void)ctx; return malloc(n); }
static void *default_realloc(void *ctx, void *p, size_t n) { (void)ctx; return realloc(p, n); }
static void default_free(void *ctx, void *p) { (void)ctx; free(p); }

void tread_alloc_init(tread_alloc *a, const tread_allocator *user)
{
    if (user && user->malloc_fn && user->realloc_fn && user->free_fn) {
        *a = *user;
    } else {
        a->malloc_fn = default_malloc;
        a->realloc_fn = default_realloc;
        a->free_fn = default_free;
        a->ctx = NULL;
    }
}

int tread_alloc_is_default(const tread_alloc *a) { return a->malloc_fn == default_malloc; }

void *tread_malloc(const tread_alloc *a, size_t n) { return a->malloc_fn(a->ctx, n ? n : 1); }
void *tread_realloc(const tread_alloc *a, void *p, size_t n) { return a->realloc_fn(a->ctx, p, n ? n : 1); }
void tread_free(const tread_alloc *a, void *p) { if (p) a->free_fn(a->ctx, p); }

void *tread_malloc_line(const tread_alloc *a, size_t n, void **mem)
{
    *mem = tread_malloc(a, n + 63);
    if (!*mem)
        return NULL;
    return (void *)(((uintptr_t)*mem + 63) & ~(uintptr_t)63);
}
