/* stats_async: see stats_async.h. */
#define _POSIX_C_SOURCE 200809L
#include "stats_async.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A record: the members of tread_event the collector reads, then the
 * name. A name absent (NULL) has length SA_NO_STR. */
#define SA_NO_STR UINT32_MAX
typedef struct sa_rec {
    uint32_t size;   /* bytes of the record and its strings */
    uint32_t flags;
    uint8_t kind, meta;
    uint16_t extras; /* 1: an sa_extras follows the record, then the name */
    uint32_t name_len;
    int64_t ts, dur, pid, tid;
    uint64_t track_uuid;
    const void *name_key; /* where the name was: the name table's cache key */
} sa_rec;

/* What few events carry besides, for the collector (stats_collect.c: a
 * string pid, a process name, an FXT provider): their strings follow the
 * name. */
typedef struct sa_extras {
    uint32_t provider_id;
    uint32_t x_len[3];    /* pid_str, meta_str, provider_name */
} sa_extras;

struct stats_async {
    stats_collector *c;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t full, empty;
    unsigned char *buf[SA_BUFS];
    size_t used[SA_BUFS];
    unsigned head, tail; /* batches handed over, batches collected */
    int quit;
    unsigned cur;        /* the batch being filled: buf[cur % SA_BUFS] */
    unsigned char *out;  /* its start */
    size_t pos;
    stats_async_busy_fn busy;
    void *busy_ctx;
    int direct;           /* collecting in place: the thread is idle */
    unsigned direct_left; /* events before busy is asked again */
};

static size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

static void collect_batch(stats_collector *c, const unsigned char *b, size_t n)
{
    tread_event ev;
    memset(&ev, 0, sizeof ev);
    tread_str *x[3] = {&ev.pid_str, &ev.meta_str, &ev.provider_name};
    for (size_t at = 0; at < n;) {
        const sa_rec *r = (const void *)(b + at);
        ev.kind = (tread_event_kind)r->kind;
        ev.flags = r->flags;
        ev.meta = (tread_meta)r->meta;
        ev.ts = r->ts;
        ev.dur = r->dur;
        ev.pid = r->pid;
        ev.tid = r->tid;
        ev.track_uuid = r->track_uuid;
        const sa_extras *e = r->extras ? (const void *)(r + 1) : NULL;
        const char *s = (const char *)(r + 1) + (e ? sizeof *e : 0);
        int named = r->name_len != SA_NO_STR;
        ev.name.ptr = named ? s : NULL;
        ev.name.len = named ? r->name_len : 0;
        if (e) {
            ev.provider_id = e->provider_id;
            s += ev.name.len;
            for (int i = 0; i < 3; i++) {
                x[i]->ptr = e->x_len[i] == SA_NO_STR ? NULL : s;
                x[i]->len = e->x_len[i] == SA_NO_STR ? 0 : e->x_len[i];
                s += x[i]->len;
            }
        }
        stats_collector_event_keyed(c, &ev, r->name_key);
        if (e) {
            ev.provider_id = 0;
            for (int i = 0; i < 3; i++)
                *x[i] = (tread_str){NULL, 0};
        }
        at += r->size;
    }
}

static void *consumer(void *arg)
{
    stats_async *a = arg;
    pthread_mutex_lock(&a->mu);
    for (;;) {
        while (a->tail == a->head && !a->quit)
            pthread_cond_wait(&a->full, &a->mu);
        if (a->tail == a->head)
            break;
        unsigned i = a->tail % SA_BUFS;
        pthread_mutex_unlock(&a->mu);
        collect_batch(a->c, a->buf[i], a->used[i]);
        pthread_mutex_lock(&a->mu);
        a->tail++;
        pthread_cond_signal(&a->empty);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

stats_async *stats_async_start(stats_collector *c, stats_async_busy_fn busy, void *ctx)
{
    stats_async *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->c = c;
    a->busy = busy;
    a->busy_ctx = ctx;
    for (int i = 0; i < SA_BUFS; i++)
        if (!(a->buf[i] = malloc(SA_BATCH)))
            goto fail;
    a->out = a->buf[0];
    if (pthread_mutex_init(&a->mu, NULL) != 0)
        goto fail;
    if (pthread_cond_init(&a->full, NULL) != 0)
        goto fail_mu;
    if (pthread_cond_init(&a->empty, NULL) != 0)
        goto fail_full;
    if (pthread_create(&a->thread, NULL, consumer, a) == 0)
        return a;
    pthread_cond_destroy(&a->empty);
fail_full:
    pthread_cond_destroy(&a->full);
fail_mu:
    pthread_mutex_destroy(&a->mu);
fail:
    for (int i = 0; i < SA_BUFS; i++)
        free(a->buf[i]);
    free(a);
    return NULL;
}

/* Waits until the thread has collected every batch handed over. */
static void drain(stats_async *a)
{
    pthread_mutex_lock(&a->mu);
    while (a->tail != a->head)
        pthread_cond_wait(&a->empty, &a->mu);
    pthread_mutex_unlock(&a->mu);
}

/* Hands the batch being filled to the thread and waits for a free one. */
static void hand_over(stats_async *a)
{
    pthread_mutex_lock(&a->mu);
    a->used[a->cur % SA_BUFS] = a->pos;
    a->head++;
    pthread_cond_signal(&a->full);
    a->cur++;
    while (a->head - a->tail >= SA_BUFS)
        pthread_cond_wait(&a->empty, &a->mu);
    pthread_mutex_unlock(&a->mu);
    a->out = a->buf[a->cur % SA_BUFS];
    a->pos = 0;
}

/* The batch is full: hands it over. Returns 0, or 1 when the event is
 * to be collected in place, as every one after it while the second core
 * is busy (asked each time a batch is handed over; the thread is idle). */
static int next_batch(stats_async *a)
{
    hand_over(a);
    if (!a->busy || !a->busy(a->busy_ctx))
        return 0;
    drain(a);
    a->direct = 1;
    a->direct_left = SA_PROBE_EVENTS;
    return 1;
}

/* Adds a record of size bytes to the batch (which has room), its name
 * after extras bytes; returns where the extras go. */
static inline unsigned char *put_rec(stats_async *a, const tread_event *ev, size_t size,
                                     size_t extras)
{
    sa_rec *r = (void *)(a->out + a->pos);
    a->pos += size;
    r->size = (uint32_t)size;
    r->flags = ev->flags;
    r->kind = (uint8_t)ev->kind;
    r->meta = (uint8_t)ev->meta;
    r->extras = extras != 0;
    r->name_len = ev->name.ptr ? (uint32_t)ev->name.len : SA_NO_STR;
    r->ts = ev->ts;
    r->dur = ev->dur;
    r->pid = ev->pid;
    r->tid = ev->tid;
    r->track_uuid = ev->track_uuid;
    r->name_key = ev->name.ptr;
    if (ev->name.len)
        memcpy((unsigned char *)(r + 1) + extras, ev->name.ptr, ev->name.len);
    return (unsigned char *)(r + 1);
}

/* An event with strings besides its name that the collector reads, or
 * too large for a batch. */
static int rare_event(stats_async *a, const tread_event *ev)
{
    const tread_str *x[3] = {
        (ev->flags & TREAD_PID_IS_STRING) && ev->pid_str.ptr ? &ev->pid_str : NULL,
        ev->kind == TREAD_EVENT_METADATA && ev->meta_str.ptr ? &ev->meta_str : NULL,
        (ev->flags & TREAD_HAS_PROVIDER) && ev->provider_name.ptr ? &ev->provider_name : NULL};
    size_t strs = ev->name.len;
    for (int i = 0; i < 3; i++)
        strs += x[i] ? x[i]->len : 0;
    size_t size = pad8(sizeof(sa_rec) + sizeof(sa_extras) + strs);
    if (size > SA_BATCH) { /* collected here, in order, once the thread is idle */
        if (a->pos)
            hand_over(a);
        drain(a);
        return stats_collector_event(a->c, ev);
    }
    if (a->pos + size > SA_BATCH && next_batch(a))
        return stats_collector_event(a->c, ev);
    unsigned char *at = put_rec(a, ev, size, sizeof(sa_extras));
    sa_extras e;
    e.provider_id = ev->provider_id;
    unsigned char *out = at + sizeof e + ev->name.len;
    for (int i = 0; i < 3; i++) {
        e.x_len[i] = x[i] ? (uint32_t)x[i]->len : SA_NO_STR;
        if (x[i] && x[i]->len) {
            memcpy(out, x[i]->ptr, x[i]->len);
            out += x[i]->len;
        }
    }
    memcpy(at, &e, sizeof e);
    return 0;
}

/* An event while collecting in place. */
static int direct_event(stats_async *a, const tread_event *ev)
{
    if (--a->direct_left == 0) {
        a->direct_left = SA_PROBE_EVENTS;
        if (!a->busy(a->busy_ctx))
            a->direct = 0; /* this event is still collected here */
    }
    return stats_collector_event(a->c, ev);
}

int stats_async_event(void *user, const tread_event *ev)
{
    stats_async *a = user;
    if (a->direct)
        return direct_event(a, ev);
    if ((ev->flags & (TREAD_PID_IS_STRING | TREAD_HAS_PROVIDER)) ||
        ev->kind == TREAD_EVENT_METADATA || ev->name.len > SA_BATCH / 2)
        return rare_event(a, ev);
    size_t size = pad8(sizeof(sa_rec) + ev->name.len);
    if (a->pos + size > SA_BATCH && next_batch(a))
        return stats_collector_event(a->c, ev);
    put_rec(a, ev, size, 0);
    return 0;
}

int stats_probe_decompressing(void *arg)
{
    stats_probe *pr = arg;
    const tread_parser *p = *pr->parser;
    tread_stats s;
    tread_get_stats(p, &s);
    if (s.compression != TREAD_COMPRESSION_NONE)
        return 1;
    size_t n = tread_get_format_counters(p, NULL, 0);
    if (n > pr->cap) {
        tread_counter *cs = realloc(pr->cs, n * sizeof *cs);
        if (!cs)
            return 0;
        pr->cs = cs;
        pr->cap = n;
    }
    n = tread_get_format_counters(p, pr->cs, pr->cap);
    for (size_t i = 0; i < n && i < pr->cap; i++)
        if (strcmp(pr->cs[i].name, "compressed_bytes_expanded") == 0) {
            int grew = pr->cs[i].value != pr->expanded;
            pr->expanded = pr->cs[i].value;
            return grew;
        }
    return 0;
}

void stats_async_finish(stats_async *a)
{
    if (!a)
        return;
    if (a->pos)
        hand_over(a);
    pthread_mutex_lock(&a->mu);
    a->quit = 1;
    pthread_cond_signal(&a->full);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->thread, NULL);
    pthread_cond_destroy(&a->empty);
    pthread_cond_destroy(&a->full);
    pthread_mutex_destroy(&a->mu);
    for (int i = 0; i < SA_BUFS; i++)
        free(a->buf[i]);
    free(a);
}
