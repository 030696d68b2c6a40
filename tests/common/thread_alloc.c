#include "thread_alloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static atomic_long live, elsewhere;
static pthread_t owner;

static void note(void)
{
    if (!pthread_equal(pthread_self(), owner))
        atomic_fetch_add(&elsewhere, 1);
}

static void *t_malloc(void *ctx, size_t n)
{
    (void)ctx;
    note();
    void *q = malloc(n);
    if (q)
        atomic_fetch_add(&live, 1);
    return q;
}

static void *t_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    note();
    void *q = realloc(p, n);
    if (q && !p)
        atomic_fetch_add(&live, 1);
    return q;
}

static void t_free(void *ctx, void *p)
{
    (void)ctx;
    note();
    if (p)
        atomic_fetch_sub(&live, 1);
    free(p);
}

const tread_allocator test_thread_alloc = {t_malloc, t_realloc, t_free, NULL};

void test_thread_alloc_reset(void)
{
    owner = pthread_self();
    atomic_store(&live, 0);
    atomic_store(&elsewhere, 0);
}

long test_thread_alloc_live(void) { return atomic_load(&live); }
long test_thread_alloc_elsewhere(void) { return atomic_load(&elsewhere); }
