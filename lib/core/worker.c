/* The producer thread (worker.h): one mutex, two condition variables, a
 * ring of pieces. A piece is produced while fewer than npieces are held
 * (the one handed out counts until it is given back by the next call). */
#include "core/worker.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A thread that finds nothing to do spins this long, watching the other
 * side's counter, before it sleeps on its condition variable. Sleeping and
 * being woken cost ~15 us a hand-over on the 2-core VM we measure on (a
 * futex call and a cross-CPU interrupt, which the hypervisor traps), and a
 * hand-over comes every 64 KiB piece: the wait for the next piece is most
 * often shorter than that. Not on a single CPU, where spinning only keeps
 * the other thread from running. */
#define WORKER_SPIN_NS 200000L

/* A spin that runs out (the other side did not come within WORKER_SPIN_NS:
 * busy elsewhere, or no CPU free for it while the machine is loaded) is
 * CPU taken from everything else, and on a loaded machine from the other
 * side itself: a JSON chunk test over a gzip trace fed a byte at a time
 * took 2.0 s idle and 21.5 s beside one busy process, 80% of it spinning.
 * So each side skips its next 2^k - 1 spins after k that ran out in a row
 * (k at most WORKER_SPIN_BACKOFF), and one that succeeds sets k back to 0. */
#define WORKER_SPIN_BACKOFF 10u

typedef struct spinner {
    unsigned fails; /* spins run out in a row */
    unsigned skip;  /* waits left to sleep through without spinning */
} spinner;

#if defined(__x86_64__) || defined(__i386__)
#define CPU_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define CPU_RELAX() __asm__ __volatile__("yield")
#else
#define CPU_RELAX() ((void)0)
#endif

struct tread_worker {
    tread_alloc a;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work;       /* to the worker: a job, room, or quit */
    pthread_cond_t done;       /* to the caller: a piece, or not busy */
    int quit;
    int running;               /* a job that has not ended */
    int busy;                  /* a step in progress (outside the lock) */
    int caller_waits, worker_waits;
    int spin;                  /* more than one CPU: spin before sleeping */
    unsigned refill;           /* lazy: a full ring waits for this many free */
    int refilling;             /* the worker waits for refill free pieces */
    spinner caller_spin, worker_spin; /* each touched by its side only */
    /* bumped under the lock by each side after a change the other may
     * wait for (a piece made; a piece given back, a job, stop or quit):
     * what a spinning thread watches without the lock */
    atomic_uint to_caller, to_worker;
    tread_worker_step step;
    void *job;
    size_t piece_size;
    unsigned n;
    unsigned head, tail, held; /* produced, given back, held by the caller */
    int handed;                /* piece tail is out with the caller */
    unsigned char **buf;
    long *len;
    int *end;
};

static long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000000000L + t.tv_nsec;
}

/* Called with the lock held, which it releases while it spins: returns
 * (locked again) once *x is no longer seen, or after WORKER_SPIN_NS. The
 * caller then checks its condition again under the lock. Does nothing
 * while sp says to skip (see WORKER_SPIN_BACKOFF). */
static void spin_while(tread_worker *w, spinner *sp, atomic_uint *x, unsigned seen)
{
    if (sp->skip) {
        sp->skip--;
        return;
    }
    pthread_mutex_unlock(&w->mu);
    long until = now_ns() + WORKER_SPIN_NS;
    int came = 0;
    for (unsigned k = 1;; k++) {
        if (atomic_load_explicit(x, memory_order_relaxed) != seen) {
            /* late (this thread was preempted while it spun) is a failure */
            came = now_ns() <= until;
            break;
        }
        CPU_RELAX();
        if (!(k & 63) && now_ns() > until)
            break;
    }
    pthread_mutex_lock(&w->mu);
    if (came) {
        sp->fails = 0;
    } else {
        if (sp->fails < WORKER_SPIN_BACKOFF)
            sp->fails++;
        sp->skip = (1u << sp->fails) - 1;
    }
}

/* A change the other side may be waiting for (lock held). */
static void bump(atomic_uint *x)
{
    atomic_fetch_add_explicit(x, 1, memory_order_relaxed);
}

static void *worker_main(void *arg)
{
    tread_worker *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        int spun = !w->spin || w->refill;
        if (w->refill && w->held == w->n)
            w->refilling = 1;
        while (!w->quit && !(w->running && w->held < w->n && !w->refilling)) {
            if (!spun) {
                spin_while(w, &w->worker_spin, &w->to_worker,
                           atomic_load_explicit(&w->to_worker, memory_order_relaxed));
                spun = 1;
                continue;
            }
            w->worker_waits = 1;
            pthread_cond_wait(&w->work, &w->mu);
            w->worker_waits = 0;
        }
        if (w->quit)
            break;
        unsigned i = w->head % w->n;
        tread_worker_step step = w->step;
        void *job = w->job;
        w->busy = 1;
        pthread_mutex_unlock(&w->mu);

        int end = 0;
        long r = step(job, w->buf[i], w->piece_size, &end);

        pthread_mutex_lock(&w->mu);
        w->busy = 0;
        if (w->running) { /* not stopped meanwhile */
            w->len[i] = r;
            w->end[i] = end;
            w->head++;
            w->held++;
            if (r <= 0)
                w->running = 0;
        }
        bump(&w->to_caller);
        if (w->caller_waits)
            pthread_cond_signal(&w->done);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static void free_buffers(tread_worker *w)
{
    if (w->buf)
        for (unsigned i = 0; i < w->n; i++)
            tread_free(&w->a, w->buf[i]);
    tread_free(&w->a, w->buf);
    tread_free(&w->a, w->len);
    tread_free(&w->a, w->end);
}

tread_worker *tread_worker_create(const tread_alloc *a, size_t piece_size, unsigned npieces)
{
    if (npieces < 2 || !piece_size)
        return NULL;
    tread_worker *w = tread_malloc(a, sizeof *w);
    if (!w)
        return NULL;
    memset(w, 0, sizeof *w);
    w->a = *a;
    w->piece_size = piece_size;
    w->n = npieces;
    w->spin = sysconf(_SC_NPROCESSORS_ONLN) > 1;
    atomic_init(&w->to_caller, 0);
    atomic_init(&w->to_worker, 0);
    w->buf = tread_malloc(a, npieces * sizeof *w->buf);
    w->len = tread_malloc(a, npieces * sizeof *w->len);
    w->end = tread_malloc(a, npieces * sizeof *w->end);
    int ok = w->buf && w->len && w->end;
    if (w->buf) {
        memset(w->buf, 0, npieces * sizeof *w->buf);
        for (unsigned i = 0; ok && i < npieces; i++)
            ok = (w->buf[i] = tread_malloc(a, piece_size)) != NULL;
    }
    if (!ok)
        goto fail;
    if (pthread_mutex_init(&w->mu, NULL))
        goto fail;
    if (pthread_cond_init(&w->work, NULL))
        goto fail_mu;
    if (pthread_cond_init(&w->done, NULL))
        goto fail_work;
    /* the caller's signals stay the caller's: the thread blocks them all */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&w->thread, NULL, worker_main, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0)
        return w;
    pthread_cond_destroy(&w->done);
fail_work:
    pthread_cond_destroy(&w->work);
fail_mu:
    pthread_mutex_destroy(&w->mu);
fail:
    free_buffers(w);
    tread_free(a, w);
    return NULL;
}

void tread_worker_free(tread_worker *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->quit = 1;
    w->running = 0;
    bump(&w->to_worker);
    pthread_cond_signal(&w->work);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->done);
    pthread_cond_destroy(&w->work);
    pthread_mutex_destroy(&w->mu);
    free_buffers(w);
    tread_alloc a = w->a;
    tread_free(&a, w);
}

void tread_worker_lazy(tread_worker *w)
{
    pthread_mutex_lock(&w->mu);
    w->refill = w->n / 2;
    pthread_mutex_unlock(&w->mu);
}

void tread_worker_start(tread_worker *w, tread_worker_step step, void *job)
{
    pthread_mutex_lock(&w->mu);
    w->refilling = 0;
    w->step = step;
    w->job = job;
    w->head = w->tail = w->held = 0;
    w->handed = 0;
    w->running = 1;
    bump(&w->to_worker);
    if (w->worker_waits)
        pthread_cond_signal(&w->work);
    pthread_mutex_unlock(&w->mu);
}

long tread_worker_next(tread_worker *w, const unsigned char **out, int *end)
{
    pthread_mutex_lock(&w->mu);
    if (w->handed) { /* the last piece is given back */
        w->handed = 0;
        w->tail++;
        w->held--;
        if (w->refilling && w->held + w->refill <= w->n)
            w->refilling = 0;
        bump(&w->to_worker);
        if (w->worker_waits && !w->refilling)
            pthread_cond_signal(&w->work);
    }
    int spun = !w->spin;
    while (w->head == w->tail) {
        if (!w->running) { /* misuse: after the end, or no job */
            pthread_mutex_unlock(&w->mu);
            *end = 0;
            return -1;
        }
        if (!spun) {
            spin_while(w, &w->caller_spin, &w->to_caller,
                       atomic_load_explicit(&w->to_caller, memory_order_relaxed));
            spun = 1;
            continue;
        }
        w->caller_waits = 1;
        pthread_cond_wait(&w->done, &w->mu);
        w->caller_waits = 0;
    }
    unsigned i = w->tail % w->n;
    w->handed = 1;
    long r = w->len[i];
    *end = w->end[i];
    *out = w->buf[i];
    pthread_mutex_unlock(&w->mu);
    return r;
}

void tread_worker_stop(tread_worker *w)
{
    pthread_mutex_lock(&w->mu);
    w->running = 0;
    bump(&w->to_worker);
    while (w->busy) {
        w->caller_waits = 1;
        pthread_cond_wait(&w->done, &w->mu);
        w->caller_waits = 0;
    }
    w->head = w->tail = w->held = 0;
    w->handed = 0;
    w->refilling = 0;
    pthread_mutex_unlock(&w->mu);
}
