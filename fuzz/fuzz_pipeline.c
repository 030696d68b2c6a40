/*
 * libFuzzer harness for the whole pipeline: format sniffing, gzip/zstd
 * decompression and whichever decoder the sniffer picks, as `tread` runs it
 * on an unknown file: containers included (systrace HTML and ctrace, whose
 * blocks are sub-traces fed to nested decoders, and the JSON
 * systemTraceEvents string streamed into the ftrace decoder; seeds
 * container_* in fuzz/seeds/pipeline/). Memory stays bounded: small record/string/depth
 * limits, an allocator with a ceiling (that also fails on purpose for some
 * inputs, to reach the out-of-memory paths), and a budget on decompressed
 * bytes against compression bombs. Each input is parsed in 512-byte pieces
 * with compressed data expanded inline (the reference), and then in random
 * chunks with pauses with it expanded on the decompression thread
 * (TREAD_OPT_DECOMPRESS_THREAD 1: the allocator is thread-safe), and both
 * runs must agree: callbacks and their contents, how the parse ends, and
 * (when it ends well) the final statistics and every format counter. When
 * tread has isa-l, a third run inflates with zlib (TREAD_OPT_INFLATE 0),
 * fed as the first, and must agree with it (fuzz_compare_engines).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tread.h>

#include "harness.h"

#define LIVE_CEILING ((size_t)256 << 20) /* bytes live at once */
#define DECODED_BUDGET ((uint64_t)16 << 20)
/* A zstd frame can grow ~30000-fold, so one feed is kept small enough that
 * the budget is overshot by a few MiB at most. */
#define MAX_CHUNK 512

/* Each block carries its size in a header that keeps max_align_t alignment. */
typedef union block_header {
    size_t size;
    max_align_t align;
} block_header;

typedef struct counting_alloc {
    pthread_mutex_t mu;  /* the decompression thread allocates too */
    size_t live;
    uint64_t allocs;
    uint64_t fail_after; /* the allocation with this number fails; 0: none */
} counting_alloc;

static int may_allocate(counting_alloc *a, size_t old_size, size_t size)
{
    a->allocs++;
    if (a->fail_after && a->allocs >= a->fail_after)
        return 0;
    return size <= LIVE_CEILING - sizeof(block_header) &&
           a->live - old_size + size <= LIVE_CEILING;
}

static void *malloc_locked(void *ctx, size_t size)
{
    counting_alloc *a = ctx;
    if (!may_allocate(a, 0, size))
        return NULL;
    block_header *h = malloc(sizeof *h + size);
    if (!h)
        return NULL;
    h->size = size;
    a->live += size;
    return h + 1;
}

static void *realloc_locked(void *ctx, void *ptr, size_t size)
{
    counting_alloc *a = ctx;
    if (!ptr)
        return malloc_locked(ctx, size);
    block_header *h = (block_header *)ptr - 1;
    size_t old = h->size;
    if (!may_allocate(a, old, size))
        return NULL;
    block_header *n = realloc(h, sizeof *n + size);
    if (!n)
        return NULL;
    n->size = size;
    a->live = a->live - old + size;
    return n + 1;
}

static void free_locked(void *ctx, void *ptr)
{
    counting_alloc *a = ctx;
    if (!ptr)
        return;
    block_header *h = (block_header *)ptr - 1;
    a->live -= h->size;
    free(h);
}

static void *counting_malloc(void *ctx, size_t size)
{
    counting_alloc *a = ctx;
    pthread_mutex_lock(&a->mu);
    void *q = malloc_locked(ctx, size);
    pthread_mutex_unlock(&a->mu);
    return q;
}

static void *counting_realloc(void *ctx, void *ptr, size_t size)
{
    counting_alloc *a = ctx;
    pthread_mutex_lock(&a->mu);
    void *q = realloc_locked(ctx, ptr, size);
    pthread_mutex_unlock(&a->mu);
    return q;
}

static void counting_free(void *ctx, void *ptr)
{
    counting_alloc *a = ctx;
    pthread_mutex_lock(&a->mu);
    free_locked(ctx, ptr);
    pthread_mutex_unlock(&a->mu);
}

__attribute__((visibility("default")))
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_rng r;
    fuzz_rng_init(&r, data, size);
    /* One input in 16 runs out of memory after a few allocations; then the
     * runs allocate differently and are not compared. */
    /* No allocation-failure injection: yajl 2.1 does not check its own
     * allocations (yajl_alloc, its byte stack), so an allocator that fails
     * crashes inside yajl. tread's own allocations are checked; see the
     * unit tests. */
    uint64_t fail_after = 0;
    (void)fuzz_rng_below(&r, 16);
    int strict = fuzz_rng_below(&r, 4) == 0;

    /* the default engine (isa-l when built with it) whole and stressed,
     * then zlib, the oracle, fed as the first run */
    int runs = fuzz_have_isal() ? 3 : 2;
    fuzz_outcome out[3];
    for (int run = 0; run < runs; run++) {
        int stressed = run == 1;
        fuzz_plan plan = {stressed, MAX_CHUNK, DECODED_BUDGET, TREAD_FORMAT_UNKNOWN, 0};
        counting_alloc ca = {PTHREAD_MUTEX_INITIALIZER, 0, 0, fail_after};
        tread_allocator alloc = {counting_malloc, counting_realloc, counting_free, &ca};
        tread_parser *p = tread_parser_create(&alloc);
        if (!p) {
            if (!fail_after)
                fuzz_fail("tread_parser_create failed with memory to spare");
            return 0;
        }
        if ((tread_config(p, TREAD_OPT_MAX_EVENT_BYTES, (int64_t)1 << 20) != 0 ||
             tread_config(p, TREAD_OPT_MAX_STRING_BYTES, (int64_t)256 << 10) != 0 ||
             tread_config(p, TREAD_OPT_MAX_DEPTH, 64) != 0) && !fail_after)
            fuzz_fail("tread_config rejects a limit");
        if (strict)
            tread_config(p, TREAD_OPT_LENIENT, 0);
        if (tread_config(p, TREAD_OPT_DECOMPRESS_THREAD, stressed) != 0)
            fuzz_fail("tread_config rejects DECOMPRESS_THREAD");
        if (run == 2 && tread_config(p, TREAD_OPT_INFLATE, 0) != 0)
            fuzz_fail("tread_config rejects INFLATE 0");
        fuzz_run(p, &plan, data, size, &out[run]);
        tread_parser_free(p);
        if (ca.live != 0)
            fuzz_fail("memory still allocated after tread_parser_free");
    }
    if (!fail_after) {
        fuzz_compare(&out[0], &out[1]);
        fuzz_compare_counts(&out[0], &out[1]);
    }
    if (runs == 3)
        fuzz_compare_engines(&out[2], &out[0]);
    return 0;
}
