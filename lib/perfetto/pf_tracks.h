/*
 * Tracks (pf_tracks.c): the track table and its names, a track's
 * resolution onto an event, and the descriptors that fill the table
 * (TrackDescriptor, ProcessDescriptor, ThreadDescriptor, ProcessTree),
 * which queue their metadata events through pf_queue.h.
 */
#ifndef TREAD_PERFETTO_PF_TRACKS_H
#define TREAD_PERFETTO_PF_TRACKS_H

#include "perfetto/pf_context.h"
#include "perfetto/pf_seq.h"
#include "perfetto/pf_queue.h"

#define PF_MAX_TRACKS 65536         /* track descriptors kept per parser */

struct pf_track {
    uint64_t uuid;             /* 0: empty slot */
    uint64_t parent;
    tread_track_kind kind;
    int has_pid, has_tid;
    int64_t pid, tid;
    int64_t unit_multiplier;   /* 1 when not given */
    int is_incremental;
    int is_counter;
    size_t name_off, name_len; /* in the decoder's track-name buffer */
    unsigned char hier;        /* PF_HIER_*: is the parent chain whole? */
    unsigned char state_open;  /* a TYPE_STATE state is open on it */
    unsigned char inherit;     /* no thread or process descriptor but a
                                  parent: pid (and a counter's tid) come
                                  from the parent chain, resolved at use
                                  until it is whole (pf_track_parent_missing) */
};

/* pf_track.hier: unchecked (new, or its descriptor was read again), every
 * ancestor known (stays so), or a parent uuid without a descriptor (checked
 * again at each event until the descriptor comes). */
enum { PF_HIER_UNCHECKED = 0, PF_HIER_OK, PF_HIER_MISSING };
/* Longest parent chain followed (a longer one, or a cycle, counts as
 * whole). */
#define PF_MAX_TRACK_DEPTH 64

pf_track *pf_track_lookup(pf_decoder *d, uint64_t uuid);
/* The track of uuid, NULL when unknown (or uuid 0); cached. */
static inline pf_track *pf_track_find(pf_decoder *d, uint64_t uuid)
{
    struct pf_tcache *c = &d->tcache[(uuid ^ (uuid >> 17)) & (PF_TRACK_CACHE - 1)];
    if (c->t && c->uuid == uuid)
        return c->t;
    pf_track *t = pf_track_lookup(d, uuid);
    if (t) {
        c->uuid = uuid;
        c->t = t;
    }
    return t;
}
/* TrackDescriptor / ProcessDescriptor / ThreadDescriptor / ProcessTree:
 * updates the tables and queues metadata events. -1 after tread__fail. */
int pf_track_descriptor(pf_decoder *d, pf_seq *s, const unsigned char *m, size_t len,
                        const pf_base *base);
int pf_process_descriptor(pf_decoder *d, const unsigned char *m, size_t len,
                          const pf_base *base);
int pf_thread_descriptor(pf_decoder *d, pf_seq *s, const unsigned char *m, size_t len,
                         const pf_base *base);
int pf_process_tree(pf_decoder *d, const unsigned char *m, size_t len, const pf_base *base);
/* The track's name (NUL-terminated in the track-name buffer), or {NULL, 0}. */
static inline tread_str pf_track_name(const pf_decoder *d, const pf_track *t)
{
    tread_str s = {NULL, 0};
    if (t && t->name_len) {
        s.ptr = (const char *)d->track_names.data + t->name_off;
        s.len = t->name_len;
    }
    return s;
}

/* 1 when a parent uuid on t's chain has no descriptor (pf_tracks.c); an
 * inheriting track's pid and tid are resolved again on the way. */
int pf_track_parent_missing(pf_decoder *d, pf_track *t);
/* How many known tracks have such a chain (at the end of the trace: what
 * trace_processor, which sees the whole trace first, would find). */
uint64_t pf_tracks_parent_missing(pf_decoder *d);

/* Sets the track fields of ev from uuid (0: the sequence's thread). */
static inline const pf_track *pf_resolve_track(pf_decoder *d, pf_seq *s, uint64_t uuid,
                                               tread_event *ev)
{
    if (uuid) {
        pf_track *t = pf_track_find(d, uuid);
        ev->flags |= TREAD_HAS_TRACK;
        ev->track_uuid = uuid;
        if (!t) {
            d->n_unknown_track++;
            ev->track_kind = TREAD_TRACK_NONE;
            return NULL;
        }
        ev->track_kind = t->kind;
        if (t->parent && t->hier != PF_HIER_OK && pf_track_parent_missing(d, t)) {
            ev->flags |= TREAD_TRACK_UNRESOLVED;
            d->n_parent_missing++;
        }
        if (t->has_pid) {
            ev->flags |= TREAD_HAS_PID;
            ev->pid = ev->tid = t->pid;
        }
        if (t->has_tid) {
            ev->flags |= TREAD_HAS_TID;
            ev->tid = t->tid;
        }
        return t;
    }
    if (s && s->has_thread) {
        ev->flags |= TREAD_HAS_TRACK | TREAD_HAS_PID | TREAD_HAS_TID;
        ev->track_kind = TREAD_TRACK_THREAD;
        ev->pid = s->pid;
        ev->tid = s->tid;
    }
    return NULL;
}

void pf_tracks_free(pf_decoder *d);

/* A copy of bytes in the track-name buffer (interned bytes accounting),
 * for the packet at input offset at. -1 after tread__fail. */
int pf_keep_name(pf_decoder *d, const char *s, size_t len, size_t *off, uint64_t at);

/* A counter value on track t: unit_multiplier, then is_incremental (the
 * running value in the sequence's store). -1 after tread__fail. */
static inline int pf_set_counter_ev(pf_decoder *d, pf_seq *s, const pf_track *t, tread_event *ev,
                                    unsigned *nul, int is_int, int64_t iv, double dv)
{
    int64_t mult = t ? t->unit_multiplier : 1;
    if (t && t->is_incremental && s) {
        pf_entry *run = pf_seq_counter(d, s, t->uuid, ev->offset);
        if (!run)
            return -1;
        if (is_int) {
            run->ival = pf_wrap_add(run->ival, iv);
            iv = run->ival;
        } else {
            run->dval += dv;
            dv = run->dval;
        }
    }
    ev->flags |= TREAD_HAS_VALUE;
    if (is_int) {
        ev->value_int = (int64_t)((uint64_t)iv * (uint64_t)mult);
        ev->flags |= TREAD_VALUE_IS_INT;
        ev->value = (double)ev->value_int;
    } else {
        ev->value = dv * (double)mult;
    }
    /* track names are NUL-terminated in the decoder's buffer */
    tread_str tn = pf_track_name(d, t);
    ev->series = tn;
    *nul |= PF_NUL_SERIES;
    if ((!ev->name.ptr || !ev->name.len) && tn.ptr) {
        ev->name = tn;
        *nul |= PF_NUL_NAME;
    }
    return 0;
}

/* pf_set_counter_ev on a queued event. */
static inline int pf_set_counter(pf_decoder *d, pf_seq *s, const pf_track *t, pf_qitem *q,
                                 int is_int, int64_t iv, double dv)
{
    return pf_set_counter_ev(d, s, t, &q->ev, &q->nul, is_int, iv, dv);
}

#endif
