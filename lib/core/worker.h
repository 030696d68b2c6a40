/*
 * A second thread for one producer job at a time (a decompressor, or a
 * file's reader), so that producing runs beside decoding what was
 * produced. The job's output comes
 * back in pieces through a small ring, in order, on the caller's thread:
 * events, warnings and errors stay where and when they were.
 *
 * The worker owns the job between tread_worker_start and the piece that
 * ends it (or tread_worker_stop): the caller touches neither the job nor
 * what the job reads meanwhile. A piece handed out by tread_worker_next
 * stays valid until the next call of tread_worker_next or _stop.
 */
#ifndef TREAD_CORE_WORKER_H
#define TREAD_CORE_WORKER_H

#include <stddef.h>
#include "core/alloc.h"

typedef struct tread_worker tread_worker;

/* One step of a job, run on the worker's thread: writes up to cap bytes
 * at out and returns how many (> 0); at the end of the job returns 0 with
 * *end set (the job's own code) or -1 (out of memory). Not called again
 * after it ended. */
typedef long (*tread_worker_step)(void *job, unsigned char *out, size_t cap, int *end);

/* A worker with npieces pieces of piece_size bytes (npieces >= 2), its
 * thread started (signals blocked in it). NULL when memory or the thread
 * cannot be had: the caller then runs its steps itself. */
tread_worker *tread_worker_create(const tread_alloc *a, size_t piece_size, unsigned npieces);

/* For a producer far faster than its caller (reading a file): the worker
 * never spins, and once the ring is full it sleeps until half of it is
 * free, then fills it again; a spinning producer would wait for every
 * piece with a CPU of its own. Before the first job. */
void tread_worker_lazy(tread_worker *w);

/* Stops a job still running, ends the thread, frees everything. */
void tread_worker_free(tread_worker *w);

/* Hands a job to the worker, which starts stepping it at once. The
 * worker must be idle (new, stopped, or its last job's end handed out). */
void tread_worker_start(tread_worker *w, tread_worker_step step, void *job);

/* The next piece, waiting for it: what the step returned, with *out (the
 * piece) when > 0 and *end at 0. Not to be called after the end. */
long tread_worker_next(tread_worker *w, const unsigned char **out, int *end);

/* Ends the job early: returns once the worker no longer touches it. */
void tread_worker_stop(tread_worker *w);

#endif
