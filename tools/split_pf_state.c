/* split_pf_state.c: the copy of the decoder's state split_perfetto keeps:
 * sequences (validity, defaults, interned entries), track descriptors and
 * trace-level packets, within their named limits. */
#include "split_pf_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int spf_fail(split_perfetto *s, const char *msg)
{
    if (!s->failed)
        snprintf(s->err, sizeof s->err, "%s", msg);
    s->failed = 1;
    return -1;
}

int spf_nomem(split_perfetto *s)
{
    return spf_fail(s, "split: out of memory");
}


/* ---- sequences -------------------------------------------------------- */

seqst *spf_seq_find(split_perfetto *s, uint32_t id, int create)
{
    if (s->seq_size) {
        size_t m = s->seq_size - 1, i = (size_t)spf_mix(id) & m;
        for (; s->seqs[i].used; i = (i + 1) & m)
            if (s->seqs[i].id == id)
                return &s->seqs[i];
    }
    if (!create)
        return NULL;
    if (s->seq_used >= SPLIT_PF_MAX_SEQUENCES) {
        s->st.seq_not_kept++;
        return NULL;
    }
    if ((s->seq_used + 1) * 2 > s->seq_size) {
        size_t nsz = s->seq_size ? s->seq_size * 2 : 16;
        seqst *n = calloc(nsz, sizeof *n);
        if (!n) {
            spf_nomem(s);
            return NULL;
        }
        for (size_t j = 0; j < s->seq_size; j++) {
            if (!s->seqs[j].used)
                continue;
            size_t k = (size_t)spf_mix(s->seqs[j].id) & (nsz - 1);
            while (n[k].used)
                k = (k + 1) & (nsz - 1);
            n[k] = s->seqs[j];
        }
        free(s->seqs);
        s->seqs = n;
        s->seq_size = nsz;
    }
    size_t m = s->seq_size - 1, i = (size_t)spf_mix(id) & m;
    while (s->seqs[i].used)
        i = (i + 1) & m;
    seqst *q = &s->seqs[i];
    memset(q, 0, sizeof *q);
    q->id = id;
    q->used = 1;
    s->seq_used++;
    return q;
}

/* Charges n bytes of state; 0, or 1 when over the limit (counted). */
int spf_charge(split_perfetto *s, seqst *q, size_t n)
{
    if (s->held + n > SPLIT_PF_MAX_STATE_BYTES) {
        s->st.state_not_kept++;
        return 1;
    }
    s->held += n;
    if (q)
        q->held += n;
    return 0;
}

/* The incremental state cleared: interned entries, defaults, counters. */
void spf_seq_clear(split_perfetto *s, seqst *q)
{
    s->held -= q->held;
    q->held = 0;
    free(q->tab);
    q->tab = NULL;
    q->tab_size = q->tab_used = 0;
    q->arena.len = 0;
    q->n_ns = 0;
    q->defaults.len = 0;
    q->has_defaults = 0;
    q->dflt_ok = 0;
    q->n_ctr = 0;
}

entry *spf_entry_find(const seqst *q, uint32_t ns, uint64_t iid)
{
    if (!q->tab_size)
        return NULL;
    size_t m = q->tab_size - 1, i = (size_t)spf_mix(iid * 131 + ns) & m;
    for (; q->tab[i].ns; i = (i + 1) & m)
        if (q->tab[i].ns == ns && q->tab[i].iid == iid)
            return &q->tab[i];
    return NULL;
}

int spf_entry_put(split_perfetto *s, seqst *q, uint32_t ns, uint64_t iid,
                  const unsigned char *msg, size_t len)
{
    if (len > UINT32_MAX || spf_charge(s, q, len + sizeof(entry)))
        return 0;
    entry *e = spf_entry_find(q, ns, iid);
    if (!e) {
        if ((q->tab_used + 1) * 2 > q->tab_size) {
            size_t nsz = q->tab_size ? q->tab_size * 2 : 64;
            entry *n = calloc(nsz, sizeof *n);
            if (!n)
                return spf_nomem(s);
            for (size_t j = 0; j < q->tab_size; j++) {
                if (!q->tab[j].ns)
                    continue;
                size_t k = (size_t)spf_mix(q->tab[j].iid * 131 + q->tab[j].ns) & (nsz - 1);
                while (n[k].ns)
                    k = (k + 1) & (nsz - 1);
                n[k] = q->tab[j];
            }
            free(q->tab);
            q->tab = n;
            q->tab_size = nsz;
        }
        size_t m = q->tab_size - 1, i = (size_t)spf_mix(iid * 131 + ns) & m;
        while (q->tab[i].ns)
            i = (i + 1) & m;
        e = &q->tab[i];
        e->ns = ns;
        e->iid = iid;
        q->tab_used++;
        size_t k = 0;
        while (k < q->n_ns && q->ns[k] != ns)
            k++;
        if (k == q->n_ns && q->n_ns < sizeof q->ns / sizeof q->ns[0])
            q->ns[q->n_ns++] = ns;
    }
    e->off = q->arena.len;
    e->len = (uint32_t)len;
    e->piece = s->piece;
    return buf_put(&q->arena, msg, len) ? spf_nomem(s) : 0;
}

/* ---- tracks ----------------------------------------------------------- */

track *spf_track_find(split_perfetto *s, uint64_t uuid)
{
    if (!s->track_size || !uuid)
        return NULL;
    size_t m = s->track_size - 1, i = (size_t)spf_mix(uuid) & m;
    for (; s->tracks[i].uuid; i = (i + 1) & m)
        if (s->tracks[i].uuid == uuid)
            return &s->tracks[i];
    return NULL;
}

int spf_track_put(split_perfetto *s, uint32_t seq, const unsigned char *msg, size_t len)
{
    /* whether the whole file's decoder resolved its parent: its event has
     * the parent's pid, or the parent was described before it (a track
     * without a pid anywhere in its chain says nothing by its pid: its
     * ancestors must still come before it, or its events read as
     * TREAD_TRACK_UNRESOLVED in the piece) */
    int resolved = -1;
    if (s->own_desc_seen && s->own_desc_pid)
        resolved = 1;
    rd r;
    fld f;
    int rc;
    uint64_t uuid = 0, parent = 0;
    int incr = 0;
    rd_init(&r, msg, len);
    while ((rc = rd_next(&r, &f)) > 0) {
        if (f.num == 1 && f.wire == 0)
            uuid = f.v;
        else if (f.num == 5 && f.wire == 0)
            parent = f.v;
        else if (f.num == 8 && f.wire == 2) {
            rd c;
            fld g;
            rd_init(&c, f.data, f.len);
            while (rd_next(&c, &g) > 0)
                if (g.num == 5 && g.wire == 0)
                    incr = g.v != 0;
        }
    }
    if (rc < 0 || !uuid)
        return 0; /* the decoder warns; nothing to repeat */
    track *t = spf_track_find(s, uuid);
    if (!t) {
        if (s->track_used >= SPLIT_PF_MAX_TRACKS) {
            s->st.tracks_not_kept++;
            return 0;
        }
        if ((s->track_used + 1) * 2 > s->track_size) {
            size_t nsz = s->track_size ? s->track_size * 2 : 64;
            track *n = calloc(nsz, sizeof *n);
            if (!n)
                return spf_nomem(s);
            for (size_t j = 0; j < s->track_size; j++) {
                if (!s->tracks[j].uuid)
                    continue;
                size_t k = (size_t)spf_mix(s->tracks[j].uuid) & (nsz - 1);
                while (n[k].uuid)
                    k = (k + 1) & (nsz - 1);
                n[k] = s->tracks[j];
            }
            free(s->tracks);
            s->tracks = n;
            s->track_size = nsz;
        }
        size_t m = s->track_size - 1, i = (size_t)spf_mix(uuid) & m;
        while (s->tracks[i].uuid)
            i = (i + 1) & m;
        t = &s->tracks[i];
        t->uuid = uuid;
        s->track_used++;
    } else if (t->len == len && memcmp(s->tracks_arena.p + t->off, msg, len) == 0) {
        t->parent_known = resolved >= 0 ? resolved : spf_track_find(s, parent) != NULL;
        t->seq = seq;
        t->piece = s->piece;
        return 0;
    }
    t->parent_known = resolved >= 0 ? resolved : spf_track_find(s, parent) != NULL;
    t->parent = parent;
    t->incremental = incr;
    t->seq = seq;
    t->piece = s->piece;
    if (t->len >= len) { /* in place: a renamed track does not grow the arena */
        memcpy(s->tracks_arena.p + t->off, msg, len);
        t->len = len;
        return 0;
    }
    if (spf_charge(s, NULL, len)) {
        t->len = 0; /* its old bytes are stale: not repeated */
        return 0;
    }
    t->off = s->tracks_arena.len;
    t->len = len;
    return buf_put(&s->tracks_arena, msg, len) ? spf_nomem(s) : 0;
}

/* ---- trace-level packets ---------------------------------------------- */

int spf_note_trace_packet(split_perfetto *s, uint32_t field, uint32_t seq,
                          const unsigned char *m, size_t n)
{
    for (size_t i = 0; i < s->n_trace; i++)
        if (s->trace_pk[i].field == field && s->trace_pk[i].msg.len == n &&
            memcmp(s->trace_pk[i].msg.p, m, n) == 0)
            return 0;
    if (n > SPLIT_PF_MAX_TRACE_PACKET_BYTES || s->n_trace >= SPLIT_PF_MAX_TRACE_PACKETS ||
        s->trace_bytes + n > SPLIT_PF_MAX_TRACE_BYTES) {
        s->st.trace_not_kept++;
        return 0;
    }
    saved *sv = &s->trace_pk[s->n_trace++];
    sv->field = field;
    sv->seq = seq;
    sv->msg.len = 0;
    s->trace_bytes += n;
    return buf_put(&sv->msg, m, n) ? spf_nomem(s) : 0;
}
