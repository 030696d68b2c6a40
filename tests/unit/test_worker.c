/* The producer thread (lib/core/worker.c): pieces come back whole and in
 * order, the step runs on the other thread, the end and out-of-memory
 * codes come through, a job can be stopped early (also while the ring is
 * full) and another started, and everything allocated is freed. Waits
 * short and long: a side that waits spins first (WORKER_SPIN_NS), then
 * sleeps on its condition variable, and after spins that ran out skips
 * spinning for a while (WORKER_SPIN_BACKOFF): every way must hand over.
 * A lazy worker (a file's reader) fills its ring, then waits for half of
 * it to be free. */
#include "testlib.h"
#include "core/worker.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

/* Longer than the worker's spin before it sleeps (200 us). */
static void sleep_1ms(void)
{
    struct timespec t = {0, 1000000};
    nanosleep(&t, NULL);
}

/* A counting allocator (the worker's thread may call it). */
static atomic_long live_blocks;
static void *c_malloc(void *ctx, size_t n) { (void)ctx; atomic_fetch_add(&live_blocks, 1); return malloc(n); }
static void *c_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    if (!p)
        atomic_fetch_add(&live_blocks, 1);
    return realloc(p, n);
}
static void c_free(void *ctx, void *p) { (void)ctx; if (p) atomic_fetch_sub(&live_blocks, 1); free(p); }

/* A job that writes total bytes of a pattern, then ends with code 42; or
 * fails (-1) once fail_at bytes are out. */
typedef struct job {
    size_t total, done;
    size_t fail_at;         /* SIZE_MAX: never */
    unsigned seed;
    int slow;               /* yield in every step (the consumer gets ahead);
                               2: sleep 1 ms, past the caller's spin */
    atomic_int steps, steps_elsewhere;
    pthread_t caller;
} job;

static unsigned char pattern(const job *j, size_t i) { return (unsigned char)(i * 131u + j->seed + (i >> 9)); }

static long step(void *arg, unsigned char *out, size_t cap, int *end)
{
    job *j = arg;
    atomic_fetch_add(&j->steps, 1);
    if (!pthread_equal(pthread_self(), j->caller))
        atomic_fetch_add(&j->steps_elsewhere, 1);
    if (j->slow == 2)
        sleep_1ms();
    else if (j->slow)
        for (int i = 0; i < 20; i++)
            sched_yield();
    if (j->done >= j->fail_at)
        return -1;
    size_t n = j->total - j->done;
    if (n == 0) {
        *end = 42;
        return 0;
    }
    if (n > cap)
        n = cap;
    if (j->fail_at != SIZE_MAX && n > j->fail_at - j->done)
        n = j->fail_at - j->done;
    for (size_t i = 0; i < n; i++)
        out[i] = pattern(j, j->done + i);
    j->done += n;
    return (long)n;
}

static void job_init(job *j, size_t total, unsigned seed)
{
    memset(j, 0, sizeof *j);
    j->total = total;
    j->fail_at = SIZE_MAX;
    j->seed = seed;
    j->caller = pthread_self();
}

/* Reads a job to its end: 0 if every byte came back in order and the end
 * code is 42, else the number of differences. */
static size_t drain(tread_worker *w, job *j, int slow_consumer)
{
    size_t at = 0, bad = 0;
    for (;;) {
        const unsigned char *out = NULL;
        int end = -7;
        long n = tread_worker_next(w, &out, &end);
        if (slow_consumer == 2)
            sleep_1ms(); /* past the worker's spin: it sleeps, the ring full */
        else if (slow_consumer)
            for (int i = 0; i < 20; i++)
                sched_yield();
        if (n < 0)
            return bad + 1000000;
        if (n == 0) {
            bad += end != 42;
            break;
        }
        for (long i = 0; i < n; i++)
            bad += out[i] != pattern(j, at + (size_t)i);
        at += (size_t)n;
    }
    return bad + (at != j->total);
}

int main(void)
{
    tread_allocator hooks = {c_malloc, c_realloc, c_free, NULL};
    tread_alloc a;
    tread_alloc_init(&a, &hooks);

    CHECK(tread_worker_create(&a, 64, 1) == NULL); /* at least two pieces */
    CHECK(tread_worker_create(&a, 0, 4) == NULL);
    CHECK_EQ_INT(atomic_load(&live_blocks), 0);

    tread_worker *w = tread_worker_create(&a, 100, 3);
    CHECK(w != NULL);
    if (!w)
        return TEST_EXIT();

    /* no job: next does not wait for ever */
    const unsigned char *out;
    int end;
    CHECK_EQ_INT(tread_worker_next(w, &out, &end), -1);

    /* lengths around the piece size, one job after another */
    static const size_t totals[] = {0, 1, 99, 100, 101, 299, 300, 301, 12345};
    for (size_t i = 0; i < sizeof totals / sizeof totals[0]; i++) {
        for (int mode = 0; mode < 3; mode++) {
            job j;
            job_init(&j, totals[i], (unsigned)i);
            j.slow = mode == 1;
            tread_worker_start(w, step, &j);
            CHECK_EQ_INT(drain(w, &j, mode == 2), 0);
            /* every step ran on the worker's thread; after the end, none */
            int steps = atomic_load(&j.steps);
            CHECK_EQ_INT(atomic_load(&j.steps_elsewhere), steps);
            CHECK_EQ_INT(steps, (int)((totals[i] + 99) / 100) + 1);
        }
    }

    /* waits longer than the spin: the producer sleeps in each step (the
     * caller sleeps on its condition variable), then the consumer sleeps
     * after each piece (the worker does) */
    for (int mode = 0; mode < 2; mode++) {
        job j;
        job_init(&j, 2345, 77u + (unsigned)mode);
        j.slow = mode == 0 ? 2 : 0;
        tread_worker_start(w, step, &j);
        CHECK_EQ_INT(drain(w, &j, mode == 1 ? 2 : 0), 0);
        CHECK_EQ_INT(atomic_load(&j.steps), 25);
    }

    /* after those runs-out each side skips up to 2^10 - 1 spins: fast
     * jobs through the whole skip window, sleeping, and spinning again */
    for (int i = 0; i < 1200; i++) {
        job f;
        job_init(&f, 250, (unsigned)i);
        tread_worker_start(w, step, &f);
        CHECK_EQ_INT(drain(w, &f, 0), 0);
    }

    /* out of memory after 250 bytes: two whole pieces, 50 bytes, -1 */
    job j;
    job_init(&j, 1000, 9);
    j.fail_at = 250;
    tread_worker_start(w, step, &j);
    long n1 = tread_worker_next(w, &out, &end);
    long n2 = tread_worker_next(w, &out, &end);
    long n3 = tread_worker_next(w, &out, &end);
    long n4 = tread_worker_next(w, &out, &end);
    CHECK_EQ_INT(n1, 100);
    CHECK_EQ_INT(n2, 100);
    CHECK_EQ_INT(n3, 50);
    CHECK_EQ_INT(n4, -1);

    /* stopped early, with the ring full and the worker waiting for room:
     * the job is ours again at once, and the next one starts afresh */
    job_init(&j, 100000, 3);
    tread_worker_start(w, step, &j);
    CHECK_EQ_INT(tread_worker_next(w, &out, &end), 100);
    while (atomic_load(&j.steps) < 3) /* the other two pieces */
        sched_yield();
    tread_worker_stop(w);
    int steps_at_stop = atomic_load(&j.steps);
    for (int i = 0; i < 1000; i++)
        sched_yield();
    CHECK_EQ_INT(atomic_load(&j.steps), steps_at_stop);
    CHECK_EQ_INT(tread_worker_next(w, &out, &end), -1);
    job k;
    job_init(&k, 777, 5);
    tread_worker_start(w, step, &k);
    CHECK_EQ_INT(drain(w, &k, 0), 0);

    /* stopped while a step runs (slow steps) */
    for (int i = 0; i < 20; i++) {
        job_init(&j, 100000, (unsigned)i);
        j.slow = 1;
        tread_worker_start(w, step, &j);
        if (i & 1)
            CHECK_EQ_INT(tread_worker_next(w, &out, &end), 100);
        tread_worker_stop(w);
        int s = atomic_load(&j.steps);
        for (int y = 0; y < 200; y++)
            sched_yield();
        CHECK_EQ_INT(atomic_load(&j.steps), s);
    }

    /* freed with a job running: the thread ends, nothing leaks */
    job_init(&j, 100000, 1);
    tread_worker_start(w, step, &j);
    CHECK_EQ_INT(tread_worker_next(w, &out, &end), 100);
    tread_worker_free(w);
    tread_worker_free(NULL);
    CHECK_EQ_INT(atomic_load(&live_blocks), 0);

    /* a lazy worker (tread_worker_lazy): the same pieces in every mode;
     * once the ring is full it makes no piece until half of it is free */
    tread_worker *lz = tread_worker_create(&a, 100, 4);
    CHECK(lz != NULL);
    if (lz) {
        tread_worker_lazy(lz);
        for (size_t i = 0; i < sizeof totals / sizeof totals[0]; i++)
            for (int mode = 0; mode < 5; mode++) {
                job_init(&j, totals[i], 100u + (unsigned)i);
                j.slow = mode == 1 ? 1 : mode == 3 ? 2 : 0;
                tread_worker_start(lz, step, &j);
                CHECK_EQ_INT(drain(lz, &j, mode == 2 ? 1 : mode == 4 ? 2 : 0), 0);
                CHECK_EQ_INT(atomic_load(&j.steps), (int)((totals[i] + 99) / 100) + 1);
            }
        job_init(&j, 100000, 8);
        tread_worker_start(lz, step, &j);
        CHECK_EQ_INT(tread_worker_next(lz, &out, &end), 100); /* held: 4 */
        while (atomic_load(&j.steps) < 4)
            sched_yield();
        CHECK_EQ_INT(tread_worker_next(lz, &out, &end), 100); /* 3 held: waits */
        for (int y = 0; y < 1000; y++)
            sched_yield();
        CHECK_EQ_INT(atomic_load(&j.steps), 4);
        CHECK_EQ_INT(tread_worker_next(lz, &out, &end), 100); /* 2: refills */
        while (atomic_load(&j.steps) < 6)
            sched_yield();
        for (int y = 0; y < 1000; y++)
            sched_yield();
        CHECK_EQ_INT(atomic_load(&j.steps), 6);
        tread_worker_stop(lz);
        job_init(&k, 4321, 6);
        tread_worker_start(lz, step, &k);
        CHECK_EQ_INT(drain(lz, &k, 0), 0);
        job_init(&j, 100000, 2); /* freed while it waits for room */
        tread_worker_start(lz, step, &j);
        CHECK_EQ_INT(tread_worker_next(lz, &out, &end), 100);
        tread_worker_free(lz);
        CHECK_EQ_INT(atomic_load(&live_blocks), 0);
    }

    /* many workers made and freed (threads are joined) */
    for (int i = 0; i < 50; i++) {
        tread_worker *x = tread_worker_create(&a, 4096, 2);
        CHECK(x != NULL);
        job_init(&j, (size_t)i * 1000, (unsigned)i);
        if (x) {
            tread_worker_start(x, step, &j);
            if (i % 3)
                CHECK_EQ_INT(drain(x, &j, 0), 0);
            tread_worker_free(x);
        }
    }
    CHECK_EQ_INT(atomic_load(&live_blocks), 0);
    return TEST_EXIT();
}
