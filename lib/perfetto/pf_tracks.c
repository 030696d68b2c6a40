/* The track table (uuid -> kind, pid, tid, counter properties, name) and
 * the descriptors that become metadata events: TrackDescriptor,
 * ProcessDescriptor, ThreadDescriptor, ProcessTree. */
#include "perfetto/pf_tracks.h"
#include "perfetto/pf_seq.h"
#include "perfetto/pf_queue.h"

#include <string.h>

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ULL;
    x ^= x >> 29;
    return x;
}

pf_track *pf_track_lookup(pf_decoder *d, uint64_t uuid)
{
    if (!d->track_size || !uuid)
        return NULL;
    size_t j = mix(uuid) & (d->track_size - 1);
    while (d->tracks[j].uuid) {
        if (d->tracks[j].uuid == uuid)
            return &d->tracks[j];
        j = (j + 1) & (d->track_size - 1);
    }
    return NULL;
}

static int tracks_grow(pf_decoder *d, uint64_t off)
{
    size_t n = d->track_size ? d->track_size * 2 : 16;
    if (pf_charge(d, (n - d->track_size) * sizeof(pf_track), off))
        return -1;
    pf_track *t = tread_malloc(&d->p->alloc, n * sizeof *t);
    if (!t) {
        tread__fail(d->p, TREAD_ERROR_NOMEM, off, "out of memory");
        return -1;
    }
    memset(t, 0, n * sizeof *t);
    for (size_t i = 0; i < d->track_size; i++) {
        if (!d->tracks[i].uuid)
            continue;
        size_t j = mix(d->tracks[i].uuid) & (n - 1);
        while (t[j].uuid)
            j = (j + 1) & (n - 1);
        t[j] = d->tracks[i];
    }
    tread_free(&d->p->alloc, d->tracks);
    d->tracks = t;
    memset(d->tcache, 0, sizeof d->tcache);
    d->track_size = n;
    return 0;
}

/* Walks t's parent chain (at most PF_MAX_TRACK_DEPTH parents: a longer
 * one, or a cycle, counts as whole). On the way, a track without its own
 * thread or process descriptor (t->inherit) takes the pid of the first
 * ancestor that has one of those, and a counter track, through counter
 * ancestors only, that ancestor's tid (an async track between passes on
 * none); an ancestor not described yet gives nothing, and is looked for
 * again at the next use, so the order of the descriptors does not matter. */
int pf_track_parent_missing(pf_decoder *d, pf_track *t)
{
    int ids = t->inherit, counter = t->kind == TREAD_TRACK_COUNTER;
    if (ids) {
        t->has_pid = t->has_tid = 0;
        t->pid = t->tid = 0;
    }
    const pf_track *c = t;
    for (int depth = 0; c->parent && depth < PF_MAX_TRACK_DEPTH; depth++) {
        const pf_track *p = pf_track_find(d, c->parent);
        if (!p) {
            t->hier = PF_HIER_MISSING;
            return 1;
        }
        if (ids && !p->inherit) {
            if (p->has_pid)
                t->has_pid = 1, t->pid = p->pid;
            if (counter && p->has_tid)
                t->has_tid = 1, t->tid = p->tid;
            ids = 0;
        } else if (ids && p->kind != TREAD_TRACK_COUNTER) {
            counter = 0;
        }
        c = p;
    }
    t->hier = PF_HIER_OK;
    return 0;
}

uint64_t pf_tracks_parent_missing(pf_decoder *d)
{
    uint64_t n = 0;
    for (size_t i = 0; i < d->track_size; i++) {
        pf_track *t = &d->tracks[i];
        if (t->uuid && t->parent && t->hier != PF_HIER_OK && pf_track_parent_missing(d, t))
            n++;
    }
    return n;
}

/* The entry of uuid, created if needed; NULL when the table is full
 * (counted) or after tread__fail (*failed set). */
static pf_track *track_get(pf_decoder *d, uint64_t uuid, uint64_t off, int *failed)
{
    pf_track *t = pf_track_find(d, uuid);
    if (t)
        return t;
    if (d->track_used >= PF_MAX_TRACKS) {
        d->n_tracks_dropped++;
        return NULL;
    }
    if ((d->track_used + 1) * 2 > d->track_size && tracks_grow(d, off)) {
        *failed = 1;
        return NULL;
    }
    size_t j = mix(uuid) & (d->track_size - 1);
    while (d->tracks[j].uuid)
        j = (j + 1) & (d->track_size - 1);
    t = &d->tracks[j];
    memset(t, 0, sizeof *t);
    t->uuid = uuid;
    t->unit_multiplier = 1;
    d->track_used++;
    return t;
}

void pf_tracks_free(pf_decoder *d)
{
    tread_free(&d->p->alloc, d->tracks);
    d->tracks = NULL;
    memset(d->tcache, 0, sizeof d->tcache);
    d->track_size = d->track_used = 0;
    tread_buf_free(&d->track_names);
}

int pf_keep_name(pf_decoder *d, const char *s, size_t len, size_t *off, uint64_t at)
{
    if (pf_charge(d, len + 1, at))
        return -1;
    *off = d->track_names.len;
    if (tread_buf_append(&d->track_names, s, len) || tread_buf_append(&d->track_names, "", 1)) {
        tread__fail(d->p, TREAD_ERROR_NOMEM, at, "out of memory");
        return -1;
    }
    return 0;
}

static int64_t sx32(uint64_t v) { return (int64_t)(int32_t)(uint32_t)v; }

typedef struct proc_info {
    int has_pid;
    int64_t pid;
    tread_str name;     /* process_name, else cmdline[0] */
    tread_str cmdline0;
    int has_sort;
    int64_t sort;
    tread_str labels;   /* first label */
} proc_info;

static int read_process(const unsigned char *m, size_t len, proc_info *pi)
{
    pf_reader r;
    pf_field f;
    int rc;
    memset(pi, 0, sizeof *pi);
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        switch (f.num) {
        case 1:
            if (f.wire == PF_WIRE_VARINT)
                pi->has_pid = 1, pi->pid = sx32(f.v);
            break;
        case 2:
            if (f.wire == PF_WIRE_LEN && !pi->cmdline0.ptr)
                pi->cmdline0.ptr = (const char *)f.data, pi->cmdline0.len = f.len;
            break;
        case 3:
            if (f.wire == PF_WIRE_VARINT)
                pi->has_sort = 1, pi->sort = sx32(f.v);
            break;
        case 6:
            if (f.wire == PF_WIRE_LEN)
                pi->name.ptr = (const char *)f.data, pi->name.len = f.len;
            break;
        case 8:
            if (f.wire == PF_WIRE_LEN && !pi->labels.ptr)
                pi->labels.ptr = (const char *)f.data, pi->labels.len = f.len;
            break;
        }
    }
    if (!pi->name.ptr)
        pi->name = pi->cmdline0;
    return rc == PF_BAD ? -1 : 0;
}

typedef struct thread_info {
    int has_pid, has_tid;
    int64_t pid, tid;
    tread_str name;
    int has_sort;
    int64_t sort;
    int has_ref_ts, has_ref_tt, has_ref_ti;
    int64_t ref_ts, ref_tt, ref_ti;
} thread_info;

static int read_thread(const unsigned char *m, size_t len, thread_info *ti)
{
    pf_reader r;
    pf_field f;
    int rc;
    memset(ti, 0, sizeof *ti);
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.wire == PF_WIRE_LEN && f.num == 5) {
            ti->name.ptr = (const char *)f.data;
            ti->name.len = f.len;
            continue;
        }
        if (f.wire != PF_WIRE_VARINT)
            continue;
        switch (f.num) {
        case 1: ti->has_pid = 1, ti->pid = sx32(f.v); break;
        case 2: ti->has_tid = 1, ti->tid = (int64_t)f.v; break;
        case 3: ti->has_sort = 1, ti->sort = sx32(f.v); break;
        case 6: ti->has_ref_ts = 1, ti->ref_ts = (int64_t)f.v; break;
        case 7: ti->has_ref_tt = 1, ti->ref_tt = (int64_t)f.v; break;
        case 8: ti->has_ref_ti = 1, ti->ref_ti = (int64_t)f.v; break;
        }
    }
    return rc == PF_BAD ? -1 : 0;
}

static int queue_meta(pf_decoder *d, const pf_base *base, tread_meta meta, int has_pid,
                      int64_t pid, int has_tid, int64_t tid, tread_str str, int has_num,
                      int64_t num)
{
    pf_qitem *q = pf_queue_event(d, base);
    if (!q)
        return -1;
    tread_event *ev = &q->ev;
    ev->kind = TREAD_EVENT_METADATA;
    ev->phase = 'M';
    ev->meta = meta;
    static const char *const names[] = {
        [TREAD_META_PROCESS_NAME] = "process_name",
        [TREAD_META_THREAD_NAME] = "thread_name",
        [TREAD_META_PROCESS_SORT_INDEX] = "process_sort_index",
        [TREAD_META_THREAD_SORT_INDEX] = "thread_sort_index",
        [TREAD_META_PROCESS_LABELS] = "process_labels",
    };
    if ((unsigned)meta < sizeof names / sizeof names[0] && names[meta]) {
        ev->name.ptr = names[meta];
        ev->name.len = strlen(names[meta]);
        q->nul |= PF_NUL_NAME;
    }
    if (has_pid) {
        ev->flags |= TREAD_HAS_PID;
        ev->pid = ev->tid = pid;
    }
    if (has_tid) {
        ev->flags |= TREAD_HAS_TID;
        ev->tid = tid;
    }
    ev->meta_str = str;
    if (has_num) {
        ev->flags |= TREAD_HAS_META_NUM;
        ev->meta_num = num;
    }
    return 0;
}

static int process_events(pf_decoder *d, const proc_info *pi, const pf_base *base)
{
    if (pi->name.ptr && queue_meta(d, base, TREAD_META_PROCESS_NAME, pi->has_pid, pi->pid, 0, 0,
                                   pi->name, 0, 0))
        return -1;
    if (pi->has_sort && queue_meta(d, base, TREAD_META_PROCESS_SORT_INDEX, pi->has_pid, pi->pid,
                                   0, 0, (tread_str){NULL, 0}, 1, pi->sort))
        return -1;
    if (pi->labels.ptr && queue_meta(d, base, TREAD_META_PROCESS_LABELS, pi->has_pid, pi->pid, 0,
                                     0, pi->labels, 0, 0))
        return -1;
    return 0;
}

static int thread_events(pf_decoder *d, const thread_info *ti, const pf_base *base)
{
    if (ti->name.ptr && queue_meta(d, base, TREAD_META_THREAD_NAME, ti->has_pid, ti->pid,
                                   ti->has_tid, ti->tid, ti->name, 0, 0))
        return -1;
    if (ti->has_sort && queue_meta(d, base, TREAD_META_THREAD_SORT_INDEX, ti->has_pid, ti->pid,
                                   ti->has_tid, ti->tid, (tread_str){NULL, 0}, 1, ti->sort))
        return -1;
    return 0;
}

static void bad(pf_decoder *d, const pf_base *base, const char *what)
{
    tread__warn(d->p, TREAD_WARN_BAD_RECORD, base->offset, "%s does not decode: skipped", what);
}

int pf_process_descriptor(pf_decoder *d, const unsigned char *m, size_t len,
                          const pf_base *base)
{
    proc_info pi;
    if (read_process(m, len, &pi)) {
        bad(d, base, "process_descriptor");
        return 0;
    }
    d->n_descriptors++;
    return process_events(d, &pi, base);
}

int pf_thread_descriptor(pf_decoder *d, pf_seq *s, const unsigned char *m, size_t len,
                         const pf_base *base)
{
    thread_info ti;
    if (read_thread(m, len, &ti)) {
        bad(d, base, "thread_descriptor");
        return 0;
    }
    d->n_descriptors++;
    if (s) {
        s->has_v8_thread = 1;
        s->v8_pid = ti.pid;
        s->v8_tid = ti.tid;
    }
    /* legacy: a sequence bound to a thread, with delta-encoding bases */
    if (s) {
        s->has_thread = 1;
        s->pid = ti.pid;
        s->tid = ti.tid;
        if (ti.has_ref_ts)
            s->ts_us = ti.ref_ts;
        if (ti.has_ref_tt)
            s->tt_us = ti.ref_tt;
        if (ti.has_ref_ti)
            s->ti = ti.ref_ti;
    }
    return thread_events(d, &ti, base);
}

int pf_process_tree(pf_decoder *d, const unsigned char *m, size_t len, const pf_base *base)
{
    pf_reader r;
    pf_field f;
    int rc;
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.wire != PF_WIRE_LEN)
            continue;
        if (f.num == 1) { /* Process: pid=1 ppid=2 cmdline=3 */
            pf_reader pr;
            pf_field pfl;
            proc_info pi;
            int prc;
            memset(&pi, 0, sizeof pi);
            pf_reader_init(&pr, f.data, f.len);
            while ((prc = pf_next(&pr, &pfl)) == PF_OK) {
                if (pfl.num == 1 && pfl.wire == PF_WIRE_VARINT)
                    pi.has_pid = 1, pi.pid = sx32(pfl.v);
                else if (pfl.num == 3 && pfl.wire == PF_WIRE_LEN && !pi.name.ptr)
                    pi.name.ptr = (const char *)pfl.data, pi.name.len = pfl.len;
            }
            if (prc == PF_BAD) {
                bad(d, base, "process_tree process");
                continue;
            }
            if (process_events(d, &pi, base))
                return -1;
        } else if (f.num == 2) { /* Thread: tid=1 name=2 tgid=3 */
            pf_reader tr;
            pf_field tf;
            thread_info ti;
            int trc;
            memset(&ti, 0, sizeof ti);
            pf_reader_init(&tr, f.data, f.len);
            while ((trc = pf_next(&tr, &tf)) == PF_OK) {
                if (tf.num == 1 && tf.wire == PF_WIRE_VARINT)
                    ti.has_tid = 1, ti.tid = sx32(tf.v);
                else if (tf.num == 3 && tf.wire == PF_WIRE_VARINT)
                    ti.has_pid = 1, ti.pid = sx32(tf.v);
                else if (tf.num == 2 && tf.wire == PF_WIRE_LEN)
                    ti.name.ptr = (const char *)tf.data, ti.name.len = tf.len;
            }
            if (trc == PF_BAD) {
                bad(d, base, "process_tree thread");
                continue;
            }
            if (thread_events(d, &ti, base))
                return -1;
        }
    }
    if (rc == PF_BAD)
        bad(d, base, "process_tree");
    else
        d->n_descriptors++;
    return 0;
}

int pf_track_descriptor(pf_decoder *d, pf_seq *s, const unsigned char *m, size_t len,
                        const pf_base *base)
{
    pf_reader r;
    pf_field f;
    int rc;
    uint64_t uuid = 0, parent = 0;
    int has_parent = 0, has_counter = 0, is_incr = 0, has_proc = 0, has_thread = 0;
    int64_t mult = 1;
    tread_str name = {NULL, 0}, static_name = {NULL, 0};
    const unsigned char *proc = NULL, *thr = NULL;
    size_t proc_len = 0, thr_len = 0;
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        switch (f.num) {
        case 1:
            if (f.wire == PF_WIRE_VARINT)
                uuid = f.v;
            break;
        case 2:
            if (f.wire == PF_WIRE_LEN)
                name.ptr = (const char *)f.data, name.len = f.len;
            break;
        case 10:
            if (f.wire == PF_WIRE_LEN)
                static_name.ptr = (const char *)f.data, static_name.len = f.len;
            break;
        case 3:
            if (f.wire == PF_WIRE_LEN)
                has_proc = 1, proc = f.data, proc_len = f.len;
            break;
        case 4:
            if (f.wire == PF_WIRE_LEN)
                has_thread = 1, thr = f.data, thr_len = f.len;
            break;
        case 5:
            if (f.wire == PF_WIRE_VARINT)
                has_parent = 1, parent = f.v;
            break;
        case 8:
            if (f.wire == PF_WIRE_LEN) {
                pf_reader cr;
                pf_field cf;
                has_counter = 1;
                pf_reader_init(&cr, f.data, f.len);
                while (pf_next(&cr, &cf) == PF_OK) {
                    if (cf.wire != PF_WIRE_VARINT)
                        continue;
                    if (cf.num == 4 && (int64_t)cf.v != 0)
                        mult = (int64_t)cf.v;
                    else if (cf.num == 5)
                        is_incr = cf.v != 0;
                }
            }
            break;
        }
    }
    if (rc == PF_BAD) {
        bad(d, base, "track_descriptor");
        return 0;
    }
    d->n_descriptors++;
    if (!name.ptr)
        name = static_name;
    proc_info pi;
    thread_info ti;
    memset(&pi, 0, sizeof pi);
    memset(&ti, 0, sizeof ti);
    if (has_proc && read_process(proc, proc_len, &pi))
        bad(d, base, "track_descriptor process");
    if (has_thread && read_thread(thr, thr_len, &ti))
        bad(d, base, "track_descriptor thread");
    else if (has_thread && ti.has_pid && ti.has_tid && s)
        s->has_v8_thread = 1, s->v8_pid = ti.pid, s->v8_tid = ti.tid;

    int failed = 0;
    pf_track *t = uuid ? track_get(d, uuid, base->offset, &failed) : NULL;
    if (failed)
        return -1;
    tread_track_kind kind;
    int hp = 0, ht = 0;
    int64_t pid = 0, tid = 0;
    if (has_thread) {
        kind = TREAD_TRACK_THREAD;
        hp = ti.has_pid, pid = ti.pid, ht = ti.has_tid, tid = ti.tid;
    } else if (has_counter) {
        kind = TREAD_TRACK_COUNTER;
    } else if (has_proc) {
        kind = TREAD_TRACK_PROCESS;
        hp = pi.has_pid, pid = pi.pid;
    } else {
        kind = has_parent ? TREAD_TRACK_ASYNC : TREAD_TRACK_GLOBAL;
    }
    /* a child track belongs to its parent chain's process (and thread):
     * resolved at its first event (pf_track_parent_missing, hier) */
    int inherit = !has_thread && !has_proc && has_parent;
    if (t) {
        t->kind = kind;
        t->parent = has_parent ? parent : 0;
        t->hier = PF_HIER_UNCHECKED;
        t->inherit = (unsigned char)inherit;
        t->has_pid = hp, t->pid = pid;
        t->has_tid = ht, t->tid = tid;
        t->is_counter = has_counter;
        t->unit_multiplier = mult;
        t->is_incremental = is_incr;
        if (name.ptr) {
            tread_str old = pf_track_name(d, t);
            if (old.len != name.len || (name.len && memcmp(old.ptr, name.ptr, name.len))) {
                if (pf_keep_name(d, name.ptr, name.len, &t->name_off, base->offset))
                    return -1;
                t->name_len = name.len;
            }
        }
    }

    /* the descriptor itself as metadata */
    pf_qitem *q = pf_queue_event(d, base);
    if (!q)
        return -1;
    tread_event *ev = &q->ev;
    ev->kind = TREAD_EVENT_METADATA;
    ev->phase = 'M';
    ev->meta = TREAD_META_TRACK_DESCRIPTOR;
    ev->name = name;
    ev->meta_str = name;
    ev->flags |= TREAD_HAS_TRACK;
    ev->track_uuid = uuid;
    ev->track_kind = kind;
    if (has_parent) {
        ev->flags |= TREAD_HAS_ID_NUM;
        ev->id_num = parent;
    }
    /* what the descriptor states itself: a child track's pid comes from
     * its parent chain at its events, so that the order of the
     * descriptors changes nothing (here it would) */
    if (hp) {
        ev->flags |= TREAD_HAS_PID;
        ev->pid = ev->tid = pid;
    }
    if (ht) {
        ev->flags |= TREAD_HAS_TID;
        ev->tid = tid;
    }
    if (has_thread && thread_events(d, &ti, base))
        return -1;
    if (has_proc && !has_thread && process_events(d, &pi, base))
        return -1;
    return 0;
}
