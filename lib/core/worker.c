/* The producer thread (worker.h): one mutex, two condition variables, a
 * ring of pieces. A piece is produced while fewer than npieces are held
 * (the one handed out counts until it is given back by the next call). */
#include "core/worker.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

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

static void *worker_main(void *arg)
{
    tread_worker *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->quit && !(w->running && w->held < w->n)) {
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

void tread_worker_start(tread_worker *w, tread_worker_step step, void *job)
{
    pthread_mutex_lock(&w->mu);
    w->step = step;
    w->job = job;
    w->head = w->tail = w->held = 0;
    w->handed = 0;
    w->running = 1;
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
        if (w->worker_waits)
            pthread_cond_signal(&w->work);
    }
    while (w->head == w->tail) {
        if (!w->running) { /* misuse: after the end, or no job */
            pthread_mutex_unlock(&w->mu);
            *end = 0;
            return -1;
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
    while (w->busy) {
        w->caller_waits = 1;
        pthread_cond_wait(&w->done, &w->mu);
        w->caller_waits = 0;
    }
    w->head = w->tail = w->held = 0;
    w->handed = 0;
    pthread_mutex_unlock(&w->mu);
}
