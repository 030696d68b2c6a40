/* split_meta: see split_meta.h. */
#include "split_meta.h"
#include "pos_index.h"

#include <stdlib.h>
#include <string.h>

typedef struct meta_owner {
    int64_t pid, tid;
    int is_thread;
    split_meta_slot slot[3]; /* process: name, sort index, labels;
                                thread: name, sort index */
} meta_owner;

struct split_meta {
    meta_owner *v;
    size_t n, cap_v;
    pos_index index;         /* key_hash -> position in v */
    size_t bytes, max_bytes;
    int full;
};

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static uint64_t key_hash(int is_thread, int64_t pid, int64_t tid)
{
    return mix64(mix64((uint64_t)pid) ^ (uint64_t)tid ^ (is_thread ? 0x5bd1e995u : 0));
}

split_meta *split_meta_new(size_t max_bytes)
{
    split_meta *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    pos_index_init(&m->index);
    m->max_bytes = max_bytes;
    return m;
}

void split_meta_free(split_meta *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++)
        for (int s = 0; s < 3; s++)
            free(m->v[i].slot[s].rec);
    free(m->v);
    pos_index_free(&m->index);
    free(m);
}

int split_meta_full(const split_meta *m)
{
    return m->full;
}

static meta_owner *find(split_meta *m, int is_thread, int64_t pid, int64_t tid)
{
    size_t it = 0, pos;
    uint64_t h = key_hash(is_thread, pid, tid);
    while (pos_index_next(&m->index, h, &it, &pos)) {
        meta_owner *o = &m->v[pos];
        if (o->is_thread == is_thread && o->pid == pid && o->tid == tid)
            return o;
    }
    return NULL;
}

static meta_owner *add(split_meta *m, int is_thread, int64_t pid, int64_t tid)
{
    if (m->n >= UINT32_MAX - 1)
        return NULL;
    if (m->n == m->cap_v) {
        size_t cap = m->cap_v ? m->cap_v * 2 : 64;
        meta_owner *v = realloc(m->v, cap * sizeof *v);
        if (!v)
            return NULL;
        m->v = v;
        m->cap_v = cap;
    }
    if (pos_index_add(&m->index, key_hash(is_thread, pid, tid), m->n) != 0)
        return NULL;
    meta_owner *o = &m->v[m->n];
    memset(o, 0, sizeof *o);
    o->is_thread = is_thread;
    o->pid = pid;
    o->tid = tid;
    m->n++;
    return o;
}

/* The owner and slot of a metadata event: 0, or -1 when not tracked. */
static int slot_of(const tread_event *ev, int *is_thread, int *slot)
{
    if (ev->kind != TREAD_EVENT_METADATA || !(ev->flags & TREAD_HAS_PID))
        return -1;
    switch (ev->meta) {
    case TREAD_META_PROCESS_NAME: *is_thread = 0, *slot = 0; return 0;
    case TREAD_META_PROCESS_SORT_INDEX: *is_thread = 0, *slot = 1; return 0;
    case TREAD_META_PROCESS_LABELS: *is_thread = 0, *slot = 2; return 0;
    case TREAD_META_THREAD_NAME: *is_thread = 1, *slot = 0; return 0;
    case TREAD_META_THREAD_SORT_INDEX: *is_thread = 1, *slot = 1; return 0;
    case TREAD_META_TRACK_DESCRIPTOR:
        if (ev->track_kind == TREAD_TRACK_THREAD) {
            *is_thread = 1, *slot = 0;
            return 0;
        }
        if (ev->track_kind == TREAD_TRACK_PROCESS) {
            *is_thread = 0, *slot = 0;
            return 0;
        }
        return -1;
    default:
        return -1;
    }
}

/* Where a record's "args" begin (0: none). The fields before it, ph,
 * name, cat, ts, pid, tid, hold strings only escaped, so the first match
 * is the key itself. */
static size_t args_offset(const char *rec, size_t len)
{
    static const char key[] = ",\"args\":";
    const size_t k = sizeof key - 1;
    for (size_t i = 0; i + k <= len; i++)
        if (rec[i] == ',' && memcmp(rec + i, key, k) == 0)
            return i;
    return 0;
}

/* A record's "ts" field, the one part a repeat of the value in force may
 * differ in: [*at, *at + return), or 0 when it has none. Looked for
 * before "args" only (args_offset). */
static size_t ts_field(const char *rec, size_t len, size_t *at)
{
    static const char key[] = ",\"ts\":";
    const size_t k = sizeof key - 1;
    size_t lim = args_offset(rec, len);
    if (!lim)
        lim = len;
    *at = 0;
    for (size_t i = 0; i + k <= lim; i++) {
        if (rec[i] == ',' && memcmp(rec + i, key, k) == 0) {
            size_t e = i + k;
            while (e < len && rec[e] != ',' && rec[e] != '}')
                e++;
            *at = i;
            return e - i;
        }
    }
    return 0;
}

/* Is rec the record of sl but for its time? Everything else counts: a
 * thread name written again with another category (or any other field)
 * is a fact of its own, which a split that left it out would lose
 * (fuzz_convert found a thread_name repeated with a "cat" and without
 * one, and the split kept only the first). */
static int same_fact(const split_meta_slot *sl, const char *rec, size_t len)
{
    size_t at;
    size_t n = ts_field(rec, len, &at);
    if (sl->len - sl->ts_len != len - n)
        return 0;
    size_t i = 0, j = 0;
    while (i < sl->len && j < len) {
        if (i == sl->ts_at && sl->ts_len) {
            i += sl->ts_len;
            continue;
        }
        if (j == at && n) {
            j += n;
            continue;
        }
        if (sl->rec[i++] != rec[j++])
            return 0;
    }
    /* (the lengths less the times are equal: what is left is a time) */
    return 1;
}

int split_meta_repeats(split_meta *m, const tread_event *ev, const char *rec,
                       size_t len)
{
    int is_thread, s;
    if (slot_of(ev, &is_thread, &s) != 0)
        return 0;
    meta_owner *o = find(m, is_thread, ev->pid, is_thread ? ev->tid : 0);
    if (!o || !o->slot[s].rec)
        return 0;
    return same_fact(&o->slot[s], rec, len);
}

int split_meta_put(split_meta *m, const tread_event *ev, const char *rec,
                   size_t len, uint64_t epoch)
{
    int is_thread, s;
    if (slot_of(ev, &is_thread, &s) != 0)
        return 2;
    /* a thread's key: (pid, tid); the tid of a thread track descriptor
     * even when the event does not flag it (convert_json writes it) */
    int64_t tid = is_thread ? ev->tid : 0;
    meta_owner *o = find(m, is_thread, ev->pid, tid);
    if (o && o->slot[s].rec && same_fact(&o->slot[s], rec, len))
        return 1;
    size_t old = o && o->slot[s].rec ? o->slot[s].len : 0;
    if (m->bytes - old + len > m->max_bytes) {
        m->full = 1;
        if (o && o->slot[s].rec) { /* no longer the value in force */
            free(o->slot[s].rec);
            m->bytes -= old;
            memset(&o->slot[s], 0, sizeof o->slot[s]);
        }
        return 2;
    }
    if (!o && !(o = add(m, is_thread, ev->pid, tid))) {
        m->full = 1;
        return 2;
    }
    char *copy = malloc(len ? len : 1);
    if (!copy) {
        m->full = 1;
        return 2;
    }
    memcpy(copy, rec, len);
    split_meta_slot *sl = &o->slot[s];
    free(sl->rec);
    m->bytes = m->bytes - old + len;
    sl->rec = copy;
    sl->len = len;
    sl->ts_len = ts_field(rec, len, &sl->ts_at);
    sl->epoch = epoch;
    return 0;
}

size_t split_meta_needed(split_meta *m, const tread_event *ev, uint64_t epoch,
                         split_meta_slot **out)
{
    size_t n = 0;
    if (!(ev->flags & TREAD_HAS_PID) || m->n == 0)
        return 0;
    meta_owner *o = find(m, 0, ev->pid, 0);
    for (int s = 0; o && s < 3; s++)
        if (o->slot[s].rec && o->slot[s].epoch != epoch)
            out[n++] = &o->slot[s];
    if (ev->flags & TREAD_HAS_TID) {
        o = find(m, 1, ev->pid, ev->tid);
        for (int s = 0; o && s < 2; s++)
            if (o->slot[s].rec && o->slot[s].epoch != epoch)
                out[n++] = &o->slot[s];
    }
    return n;
}
