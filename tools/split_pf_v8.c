/* split_pf_v8.c: V8 profile records (Chrome's legacy Profile and
 * ProfileChunk TrackEvents, expanded by lib/perfetto/pf_v8.c) in pieces.
 *
 * A profile's state in the decoder (its start, its running time, the nodes
 * seen and the parents their "children" lists name) is built from every
 * record of the profile. A piece that holds the profile's first record
 * holds every later one up to its end, so its decoder has the whole's
 * state ("in sync"). In a later piece the split restates the running time
 * before the profile's first record there: a ProfileChunk record of its
 * own whose "data" is {"startTime": T}, which sets the start and makes no
 * event (json_profile.c reads a startTime in any record). T is the whole
 * decoder's running time, taken from its last sample of the profile, in
 * microseconds on CLOCK_MONOTONIC: so only when the trace clock is
 * MONOTONIC (Chrome's), where the piece's decoder moves it by nothing.
 * Where that cannot be done (another trace clock, a Profile record since
 * the last sample, a profile whose records may name parents in "children"
 * lists, which the piece's decoder lacks), the record is counted
 * (v8_records_split): its samples' times in the piece may be missing or
 * differ, its frames may lack a parent. A profile that never started
 * (samples without times in the whole) is in sync anywhere.
 *
 * The records are recognised by the events the whole file's decoder made
 * of them: stack frames and samples whose ids are "<pid>:0x<id>:<node>",
 * and the Profile event (METADATA, phase 'P', named "Profile"). */
#include "split_pf_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    SPF_V8_UNSTARTED = 0, /* no start in the whole: samples without times */
    SPF_V8_RUNNING,       /* the running time is the last sample's */
    SPF_V8_UNKNOWN        /* started, the running time not known here */
};
enum { SPF_V8_ACT_NONE = 0, SPF_V8_ACT_RESTATED, SPF_V8_ACT_LOST };

struct spf_v8_prof {
    uint64_t key;        /* 0: a free slot */
    uint64_t piece;      /* the piece whose decoder has its state */
    uint64_t id;         /* the record's legacy id */
    int64_t ts;          /* SPF_V8_RUNNING: the running time (ns) */
    int state;
    int children;        /* a record of it may name parents in "children" */
};

static uint64_t fnv(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 0x100000001b3ull;
    }
    return h | 1;
}

/* The length of the "<pid>:0x<id>" of a V8 frame id (and its id), or 0. */
static size_t v8_prefix(tread_str s, uint64_t *id)
{
    size_t n = s.len, i = 0;
    if (!s.ptr)
        return 0;
    if (i < n && s.ptr[i] == '-')
        i++;
    size_t digits = i;
    while (i < n && s.ptr[i] >= '0' && s.ptr[i] <= '9')
        i++;
    if (i == digits || i + 3 > n || memcmp(s.ptr + i, ":0x", 3) != 0)
        return 0;
    i += 3;
    uint64_t v = 0;
    size_t hex = i;
    for (; i < n && s.ptr[i] != ':'; i++) {
        char c = s.ptr[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0 || i - hex >= 16)
            return 0;
        v = v << 4 | (uint64_t)d;
    }
    if (i == hex || i >= n)
        return 0;
    *id = v;
    return i;
}

static struct spf_v8_pk *pk_entry(split_perfetto *s, uint64_t key, uint64_t id)
{
    for (size_t i = 0; i < s->n_v8; i++)
        if (s->v8[i].key == key)
            return &s->v8[i];
    if (s->n_v8 == SPLIT_PF_PACKET_V8) {
        s->v8_over = 1;
        return NULL;
    }
    struct spf_v8_pk *e = &s->v8[s->n_v8++];
    memset(e, 0, sizeof *e);
    e->key = key;
    e->id = id;
    e->state = -1; /* (unchanged by the packet) */
    return e;
}

int spf_v8_event(split_perfetto *s, const tread_event *ev)
{
    if (ev->phase != 'P')
        return 0;
    uint64_t id = 0;
    size_t n;
    struct spf_v8_pk *e;
    if (ev->kind == TREAD_EVENT_SAMPLE && (n = v8_prefix(ev->sf, &id)) != 0) {
        if ((e = pk_entry(s, fnv(ev->sf.ptr, n), id)) != NULL) {
            e->state = (ev->flags & TREAD_HAS_TS) ? SPF_V8_RUNNING : SPF_V8_UNSTARTED;
            e->ts = ev->ts;
        }
    } else if (ev->kind == TREAD_EVENT_STACK_FRAME && (n = v8_prefix(ev->id, &id)) != 0) {
        pk_entry(s, fnv(ev->id.ptr, n), id);
    } else if (ev->kind == TREAD_EVENT_METADATA && ev->name.len == 7 &&
               memcmp(ev->name.ptr, "Profile", 7) == 0 && (ev->flags & TREAD_HAS_ID_NUM)) {
        char b[64];
        int k = snprintf(b, sizeof b, "%" PRId64 ":0x%" PRIx64, ev->pid, ev->id_num);
        if (k > 0 && (size_t)k < sizeof b && (e = pk_entry(s, fnv(b, (size_t)k), ev->id_num)))
            e->state = SPF_V8_UNKNOWN; /* (its startTime is not read here) */
    }
    return 0;
}

static struct spf_v8_prof *prof_find(split_perfetto *s, uint64_t key, int make)
{
    if (!s->v8_tab) {
        if (!make)
            return NULL;
        s->v8_tab = calloc(2 * SPLIT_PF_MAX_V8_PROFILES, sizeof *s->v8_tab);
        if (!s->v8_tab)
            return NULL;
    }
    size_t mask = 2 * SPLIT_PF_MAX_V8_PROFILES - 1;
    size_t j = (size_t)(key * 0x9e3779b97f4a7c15u >> 40) & mask;
    while (s->v8_tab[j].key && s->v8_tab[j].key != key)
        j = (j + 1) & mask;
    if (s->v8_tab[j].key || !make || s->v8_used >= SPLIT_PF_MAX_V8_PROFILES)
        return s->v8_tab[j].key ? &s->v8_tab[j] : NULL;
    s->v8_used++;
    memset(&s->v8_tab[j], 0, sizeof s->v8_tab[j]);
    s->v8_tab[j].key = key;
    s->v8_tab[j].piece = s->piece;
    s->v8_tab[j].state = SPF_V8_UNSTARTED;
    return &s->v8_tab[j];
}

/* A ProfileChunk record on seq, id: {"startTime": ns / 1000 us}. */
static int put_start(split_perfetto *s, buf *out, uint32_t seq, uint64_t id, int64_t ns)
{
    char json[64];
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    int k = snprintf(json, sizeof json, "{\"startTime\":%s%" PRIu64 ".%03u}", ns < 0 ? "-" : "",
                     a / 1000, (unsigned)(a % 1000));
    buf *te = &s->tmp2, *lg = &s->tmp;
    lg->len = 0;
    te->len = 0;
    size_t mark;
    if (buf_tag(lg, 2, 0) || buf_varint(lg, 'P') || buf_tag(lg, 6, 0) || buf_varint(lg, id) ||
        buf_lenfield(te, 23, "ProfileChunk", 12) || buf_lenfield(te, 6, lg->p, lg->len))
        return spf_nomem(s);
    lg->len = 0; /* the annotation */
    if (buf_lenfield(lg, 10, "data", 4) || buf_lenfield(lg, 9, json, (size_t)k) ||
        buf_lenfield(te, 4, lg->p, lg->len) || put_packet_begin(out, &mark) ||
        buf_tag(out, F_SEQ_ID, 0) || buf_varint(out, seq) ||
        buf_lenfield(out, F_TRACK_EVENT, te->p, te->len))
        return spf_nomem(s);
    put_packet_end(out, mark);
    return 0;
}

int spf_v8_restate(split_perfetto *s, buf *out)
{
    for (size_t i = 0; i < s->n_v8; i++) {
        struct spf_v8_pk *e = &s->v8[i];
        struct spf_v8_prof *p = prof_find(s, e->key, 0);
        e->act = SPF_V8_ACT_NONE;
        if (!p) {
            /* its first record (or one not followed: counted) */
            if (s->v8_tab && s->v8_used >= SPLIT_PF_MAX_V8_PROFILES)
                e->act = SPF_V8_ACT_LOST;
            continue;
        }
        if (p->piece == s->piece || (p->state == SPF_V8_UNSTARTED && !p->children))
            continue;
        if (p->state == SPF_V8_RUNNING && !p->children && s->trace_clock == 3 /* MONOTONIC */ &&
            s->clock_fixed) {
            if (put_start(s, out, s->pk.seq_id, p->id, p->ts))
                return -1;
            e->act = SPF_V8_ACT_RESTATED;
            s->st.v8_starts_restated++;
        } else {
            e->act = SPF_V8_ACT_LOST;
        }
    }
    return 0;
}

/* Whether the packet's bytes may name a parent in a "children" list
 * (yajl unescapes a key, so an escape may spell it too). */
static int may_name_children(const unsigned char *p, size_t n)
{
    static const char w[] = "children";
    for (size_t i = 0; i + 1 < n; i++) {
        if (p[i] == '\\' && p[i + 1] == 'u')
            return 1;
        if (i + sizeof w - 1 <= n && memcmp(p + i, w, sizeof w - 1) == 0)
            return 1;
    }
    return 0;
}

int spf_v8_note(split_perfetto *s)
{
    if (s->v8_over)
        s->st.v8_records_split++;
    if (!s->n_v8)
        return 0;
    int children = may_name_children(s->cur.p, s->cur.len);
    int lost = 0;
    for (size_t i = 0; i < s->n_v8; i++) {
        struct spf_v8_pk *e = &s->v8[i];
        struct spf_v8_prof *p = prof_find(s, e->key, 1);
        if (!p) {
            if (!s->v8_tab)
                return spf_nomem(s);
            lost = 1; /* not followed */
            continue;
        }
        if (e->act == SPF_V8_ACT_LOST)
            lost = 1;
        else /* (the piece's decoder has its state now) */
            p->piece = s->piece;
        p->id = e->id;
        p->children |= children;
        if (e->state >= 0) {
            p->state = e->state;
            p->ts = e->ts;
        }
    }
    s->st.v8_records_split += (uint64_t)(lost && !s->v8_over);
    return 0;
}
int spf_thread_td(const unsigned char *m, size_t n)
{
    /* as lib/perfetto/pf_tracks.c reads it: the last thread field of a
     * descriptor that decodes, itself decoding, with a pid and a tid */
    rd r, t;
    fld f, g;
    int rc, has = 0, pid = 0, tid = 0;
    const unsigned char *thr = NULL;
    size_t thr_len = 0;
    rd_init(&r, m, n);
    while ((rc = rd_next(&r, &f)) > 0)
        if (f.num == 4 && f.wire == 2)
            has = 1, thr = f.data, thr_len = f.len;
    if (rc < 0 || !has)
        return 0;
    rd_init(&t, thr, thr_len);
    while ((rc = rd_next(&t, &g)) > 0) {
        if (g.wire == 0 && g.num == 1)
            pid = 1;
        else if (g.wire == 0 && g.num == 2)
            tid = 1;
    }
    return rc == 0 && pid && tid;
}
