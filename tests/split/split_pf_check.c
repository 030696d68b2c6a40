/* split_pf_check: see split_pf_check.h. */
#include "split_pf_check.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tread.h>
#include <tread/perfetto.h>

#include "event_dump.h"
#include "split_pf_internal.h"

static tread_parser *parser(const tread_callbacks *cb, void *user)
{
    tread_parser *p = tread_parser_create(NULL);
    if (!p)
        abort();
    tread_set_callbacks(p, cb, user);
    return p;
}

tread_status split_pf_feed(tread_parser *p, const unsigned char *in, size_t len, size_t chunk)
{
    tread_status st = TREAD_STATUS_OK;
    if (!chunk)
        chunk = len ? len : 1;
    for (size_t off = 0; off < len && st != TREAD_STATUS_ERROR; off += chunk) {
        size_t n = len - off < chunk ? len - off : chunk;
        st = tread_feed(p, in + off, n);
        while (st == TREAD_STATUS_PAUSED)
            st = tread_resume(p);
    }
    if (st != TREAD_STATUS_ERROR) {
        st = tread_finish(p);
        while (st == TREAD_STATUS_PAUSED)
            st = tread_resume(p);
    }
    return st;
}

void pieces_mem_free(pieces_mem *pm)
{
    for (size_t i = 0; i < pm->n; i++)
        free(pm->piece[i].data);
    free(pm->piece);
    memset(pm, 0, sizeof *pm);
}

/* ---- what a parse delivers, per packet -------------------------------- */

size_t split_pf_state_ends;

/* A 64-bit hash of a buffer, chained from h: 8 bytes a step (FNV-1a a
 * byte at a time was most of this check's time on big traces). Only ever
 * compares buffers hashed whole, so it need not be FNV's. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
    }
    for (; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h ^ n;
}
#define FNV0 0xcbf29ce484222325ULL

typedef struct pkrec {
    uint64_t norm;       /* the packet's bytes, sequence id and counter value aside */
    uint64_t off;        /* where it is in the parsed bytes */
    uint64_t ev;         /* its events' text, offsets aside */
    uint32_t events;
    int restates;        /* only metadata the whole file states, or clock syncs */
} pkrec;

typedef struct hset {
    uint64_t *v;
    size_t size, used;
} hset;

static void hset_add(hset *h, uint64_t x)
{
    x |= 1; /* 0 is the empty slot */
    if ((h->used + 1) * 2 > h->size) {
        size_t n = h->size ? h->size * 2 : 1024;
        uint64_t *v = calloc(n, sizeof *v);
        if (!v)
            abort();
        for (size_t i = 0; i < h->size; i++)
            if (h->v[i]) {
                size_t k = (size_t)(h->v[i] >> 7) & (n - 1);
                while (v[k])
                    k = (k + 1) & (n - 1);
                v[k] = h->v[i];
            }
        free(h->v);
        h->v = v;
        h->size = n;
    }
    size_t k = (size_t)(x >> 7) & (h->size - 1);
    while (h->v[k]) {
        if (h->v[k] == x)
            return;
        k = (k + 1) & (h->size - 1);
    }
    h->v[k] = x;
    h->used++;
}

static int hset_has(const hset *h, uint64_t x)
{
    x |= 1;
    if (!h->size)
        return 0;
    size_t k = (size_t)(x >> 7) & (h->size - 1);
    for (; h->v[k]; k = (k + 1) & (h->size - 1))
        if (h->v[k] == x)
            return 1;
    return 0;
}

typedef struct coll {
    pkrec *pk;
    size_t n, cap;
    dump d;
    hset *facts;         /* whole: filled; piece: looked up */
    hset *frame_ids;     /* whole: the ids of the stack frames it defines */
    int whole;
    unsigned char *nb;   /* normalisation scratch */
    size_t nb_cap;
    char *first_text;    /* diagnostics: the text of one packet's events */
    size_t want_index;   /* ...of this packet (SIZE_MAX: none) */
} coll;

/* protobuf reading, enough to normalise a packet */
static int vr(const unsigned char **p, const unsigned char *e, uint64_t *v)
{
    uint64_t x = 0;
    for (int s = 0; s < 64 && *p < e; s += 7) {
        unsigned char c = *(*p)++;
        x |= (uint64_t)(c & 0x7f) << s;
        if (!(c & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* TrackEvent's legacy microsecond timestamps, thread times and
 * instruction counts, delta or absolute: split_perfetto writes a delta as
 * an absolute where the piece lacks its base (the events compare them). */
static int legacy_time_field(uint32_t num)
{
    return num == 1 || num == 2 || num == 8 || num == 16 || num == 17 || num == 20;
}

/* Walks the fields of [p, e) (top: 1 a TracePacket, 0 a TrackEvent, 2 a
 * StreamingProfilePacket), appending to out those kept: all but the ones
 * split_perfetto may rewrite; returns -1 when malformed (then the bytes
 * are hashed as they are). */
static int copy_fields(const unsigned char *p, const unsigned char *e, int top, unsigned char *out,
                       size_t *olen)
{
    const unsigned char *start = p;
    while (p < e) {
        uint64_t tag, v;
        start = p;
        if (vr(&p, e, &tag))
            goto bad;
        uint32_t num = (uint32_t)(tag >> 3);
        int wire = (int)(tag & 7);
        const unsigned char *data = NULL;
        size_t len = 0;
        switch (wire) {
        case 0: if (vr(&p, e, &v)) goto bad; break;
        case 1: if (e - p < 8) goto bad; p += 8; break;
        case 5: if (e - p < 4) goto bad; p += 4; break;
        case 2:
            if (vr(&p, e, &v) || v > (uint64_t)(e - p))
                goto bad;
            data = p, len = (size_t)v;
            p += v;
            break;
        case 3: {
            /* as the split and the decoder skip a group */
            rd r = {p, e};
            if (rd_skip_group(&r, num))
                goto bad;
            p = r.p;
            break;
        }
        default: goto bad;
        }
        if (top == 2) { /* a StreamingProfilePacket */
            if (num == 2)
                continue; /* timestamp deltas: the events compare them */
            memcpy(out + *olen, start, (size_t)(p - start));
            *olen += (size_t)(p - start);
            continue;
        }
        if (top && num == 10 && wire == 0)
            continue; /* trusted_packet_sequence_id: the events compare it */
        if (top && num == 54 && wire == 2) {
            out[(*olen)++] = 0x5c; /* a marker: the streaming packet follows */
            if (copy_fields(data, data + len, 2, out, olen))
                return -1;
            out[(*olen)++] = 0x5d;
            continue;
        }
        if (!top && ((num == 30 && wire == 0) || (num == 44 && wire == 1) || num == 12 ||
                     num == 46 || (legacy_time_field(num) && wire == 0)))
            continue; /* counter values and legacy times: the events compare them */
        if (top && num == 11 && wire == 2) {
            size_t mark = *olen;
            out[(*olen)++] = 0x5a; /* a marker: the TrackEvent follows */
            if (copy_fields(data, data + len, 0, out, olen) == 0) {
                out[(*olen)++] = 0x5b;
                continue;
            }
            /* a TrackEvent that does not decode: split_perfetto copies it
             * as it is (it moves nothing on), while the packet's other
             * fields may be rewritten (a streaming packet's first delta) */
            *olen = mark;
        }
        memcpy(out + *olen, start, (size_t)(p - start));
        *olen += (size_t)(p - start);
    }
    return 0;
bad:
    if (top != 2)
        return -1;
    /* a streaming packet's tail that does not decode: as it is
     * (split_perfetto keeps it so; the decoder read what was before) */
    memcpy(out + *olen, start, (size_t)(e - start));
    *olen += (size_t)(e - start);
    return 0;
}

static uint64_t norm_hash(coll *c, const unsigned char *p, size_t n)
{
    if (c->nb_cap < 2 * n + 16) { /* two marker bytes per TrackEvent */
        free(c->nb);
        c->nb_cap = 2 * n + 16;
        c->nb = malloc(c->nb_cap);
        if (!c->nb)
            abort();
    }
    size_t olen = 0;
    if (copy_fields(p, p + n, 1, c->nb, &olen))
        return fnv(FNV0, p, n);
    return fnv(FNV0, c->nb, olen);
}

static int coll_packet(void *user, const tread_perfetto_packet *pk)
{
    coll *c = user;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 1024;
        c->pk = realloc(c->pk, c->cap * sizeof *c->pk);
        if (!c->pk)
            abort();
    }
    pkrec *r = &c->pk[c->n++];
    r->norm = norm_hash(c, pk->data, pk->len);
    r->off = pk->offset;
    r->ev = FNV0;
    r->events = 0;
    r->restates = 1;
    return 0;
}

/* The dump of ev into c->d (its offset as 0: offsets differ by piece). */
static void dump_at0(coll *c, const tread_event *ev)
{
    tread_event e = *ev;
    e.offset = 0;
    c->d.len = 0;
    if (c->d.text)
        c->d.text[0] = 0;
    dump_event(&c->d, &e);
}

static const char *frame_id(const char *l, size_t n, size_t *idn);

static int coll_event(void *user, const tread_event *ev)
{
    coll *c = user;
    if (!c->n)
        return 0; /* (every Perfetto event follows its packet's hook) */
    pkrec *r = &c->pk[c->n - 1];
    dump_at0(c, ev);
    if (ev->kind == TREAD_EVENT_STACK_FRAME) {
        /* a definition, given where a parser first meets its callsite: a
         * piece restates those its samples use, which must be the
         * whole's (as tests/split_check.py checks stack frames) */
        uint64_t def = fnv(FNV0 ^ 0x5354414b, c->d.text, c->d.len);
        if (c->whole) {
            hset_add(c->facts, def);
            size_t idn;
            const char *id = frame_id(c->d.text, c->d.len, &idn);
            if (id && c->frame_ids)
                hset_add(c->frame_ids, fnv(FNV0, id, idn));
            return 0;
        }
        if (hset_has(c->facts, def))
            return 0;
    }
    r->ev = fnv(r->ev, c->d.text, c->d.len);
    r->events++;
    if (c->want_index == c->n - 1 && c->first_text) {
        size_t have = strlen(c->first_text);
        char *t = realloc(c->first_text, have + c->d.len + 1);
        if (t) {
            memcpy(t + have, c->d.text, c->d.len + 1);
            c->first_text = t;
        }
    }
    if (ev->kind == TREAD_EVENT_CLOCK_SYNC)
        return 0;
    if (ev->kind != TREAD_EVENT_METADATA) {
        r->restates = 0;
        return 0;
    }
    /* a fact: the event without its time (added descriptors have none) */
    tread_event e2 = *ev;
    e2.flags &= ~(uint32_t)TREAD_HAS_TS;
    dump_at0(c, &e2);
    uint64_t fact = fnv(FNV0, c->d.text, c->d.len);
    if (c->whole) {
        hset_add(c->facts, fact);
    } else if (!hset_has(c->facts, fact)) {
        r->restates = 0;
    }
    return 0;
}

static void collect(coll *c, const void *in, size_t len)
{
    tread_callbacks cb = {.event = coll_event, .perfetto_packet = coll_packet};
    tread_parser *p = parser(&cb, c);
    tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_PERFETTO);
    split_pf_feed(p, in, len, 0);
    tread_parser_free(p);
}

static void coll_free(coll *c)
{
    free(c->pk);
    free(c->nb);
    free(c->first_text);
    dump_free(&c->d);
}

/* The events' text of packet `index` of a parse (diagnostics). */
static char *events_text(const void *in, size_t len, size_t index)
{
    coll c;
    memset(&c, 0, sizeof c);
    dump_init(&c.d);
    hset dummy = {0};
    c.facts = &dummy;
    c.want_index = index;
    c.first_text = calloc(1, 1);
    collect(&c, in, len);
    char *t = c.first_text;
    c.first_text = NULL;
    coll_free(&c);
    free(dummy.v);
    return t;
}

/* A copy of the dump text t without its stack_frame lines (malloc'd). */
static char *without_frames(const char *t)
{
    char *o = malloc(strlen(t) + 1), *w = o;
    if (!o)
        abort();
    while (*t) {
        const char *nl = strchr(t, '\n');
        size_t n = nl ? (size_t)(nl - t) + 1 : strlen(t);
        if (strncmp(t, "stack_frame ", 12) != 0) {
            memcpy(w, t, n);
            w += n;
        }
        t += n;
    }
    *w = 0;
    return o;
}

/* Whether the whole file's events of a packet (tb, n_whole of them) are
 * the piece's (ta, n_piece) but for one that ends a state: an unnamed
 * slice_end (TYPE_STATE, lib/perfetto/pf_track_event.c) whose state began
 * in an earlier piece. Stack frames are left out of the comparison, as
 * of the counts (coll_event: a piece restates the whole's definitions,
 * checked there): an inline callstack's frames come before the slice_end,
 * and the piece defines again what the whole defined in an earlier
 * piece (fuzz_split_perfetto, regress_state_end_after_frames). */
static int state_end_only(const char *ta0, const char *tb0, unsigned n_piece, unsigned n_whole)
{
    if (!ta0 || !tb0 || n_piece + 1 != n_whole)
        return 0;
    char *ta = without_frames(ta0), *tb = without_frames(tb0);
    int rc = 0;
    size_t la = strlen(ta);
    for (const char *l = tb; *l;) {
        const char *nl = strchr(l, '\n');
        if (!nl)
            break;
        int unnamed_end = strncmp(l, "slice_end ", 10) == 0;
        for (const char *c = l; unnamed_end && c < nl; c++)
            if (strncmp(c, " name=", 6) == 0)
                unnamed_end = 0;
        /* the whole's lines before l, then those after it, are the piece's */
        size_t before = (size_t)(l - tb);
        if (unnamed_end && la == before + strlen(nl + 1) && strncmp(ta, tb, before) == 0 &&
            strcmp(ta + before, nl + 1) == 0) {
            rc = 1;
            break;
        }
        l = nl + 1;
    }
    free(ta);
    free(tb);
    return rc;
}

/* A line of the event dump as a compact sched_switch reads without its
 * previous thread: without the flags, pid, tid and prev_pid tokens. */
static size_t no_prev(const char *l, size_t n, char *out)
{
    static const char arg[] = "[0 k=\"prev_pid\" ";
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        const char *t = l + i;
        size_t rest = n - i;
        if (i == 0 || l[i - 1] == ' ') {
            size_t skip = 0;
            if ((rest > 3 && memcmp(t, "fl=", 3) == 0) || (rest > 4 && memcmp(t, "pid=", 4) == 0) ||
                (rest > 4 && memcmp(t, "tid=", 4) == 0)) {
                while (skip < rest && t[skip] != ' ')
                    skip++;
            } else if (rest > sizeof arg - 1 && memcmp(t, arg, sizeof arg - 1) == 0) {
                while (skip < rest && t[skip] != ']')
                    skip++;
                skip++;
            }
            if (skip) {
                i += skip;
                if (i < n && l[i] == ' ')
                    i++;
                continue;
            }
        }
        out[o++] = l[i++];
    }
    return o;
}

/* Whether the piece's events of a packet (ta) are the whole file's (tb),
 * each of both counts, but for context switches that lack their previous
 * thread in the piece (a compact_sched switch first on its CPU in the
 * piece: doc/convert.md); *lost: how many. */
static int prev_only(const char *ta, const char *tb, unsigned n_piece, unsigned n_whole,
                     size_t *lost)
{
    *lost = 0;
    if (!ta || !tb || n_piece != n_whole)
        return 0;
    while (*ta || *tb) {
        const char *ea = strchr(ta, '\n'), *eb = strchr(tb, '\n');
        size_t na = ea ? (size_t)(ea - ta) : strlen(ta), nb = eb ? (size_t)(eb - tb) : strlen(tb);
        if (na != nb || memcmp(ta, tb, na) != 0) {
            char *x = malloc(na + 1), *y = malloc(nb + 1);
            if (!x || !y)
                abort();
            size_t nx = no_prev(ta, na, x), ny = no_prev(tb, nb, y);
            /* (the piece's line is the shorter: it has no prev_pid) */
            int same = strncmp(tb, "context_switch ", 15) == 0 && nx == ny &&
                       memcmp(x, y, nx) == 0 && na < nb;
            free(x);
            free(y);
            if (!same)
                return 0;
            ++*lost;
        }
        ta += na + (ea != NULL);
        tb += nb + (eb != NULL);
    }
    return *lost > 0;
}

/* A dump line of a V8 profile's sample or frame (lib/perfetto/pf_v8.c: sf
 * or id "<pid>:0x<id>:<node>"), whose time and flags (sample) or parent
 * (frame) a piece after the profile's first may not have. */
static int v8_line(const char *l, size_t n, const char **drop1, const char **drop2)
{
    int sample = n > 7 && memcmp(l, "sample ", 7) == 0;
    int frame = n > 12 && memcmp(l, "stack_frame ", 12) == 0;
    if (!sample && !frame)
        return 0;
    const char *key = sample ? " sf=\"" : " id=\"";
    const char *k = NULL;
    for (size_t i = 0; !k && i + strlen(key) <= n; i++)
        if (memcmp(l + i, key, strlen(key)) == 0)
            k = l + i + strlen(key);
    if (!k)
        return 0;
    const char *e = l + n;
    if (k < e && *k == '-')
        k++;
    const char *d = k;
    while (k < e && *k >= '0' && *k <= '9')
        k++;
    if (k == d || e - k < 3 || memcmp(k, ":0x", 3) != 0)
        return 0;
    *drop1 = sample ? "ts=" : "parent=";
    *drop2 = sample ? "fl=" : NULL;
    return 1;
}

/* l without its tokens starting drop1 or drop2 (at a word start). */
static size_t v8_norm(const char *l, size_t n, const char *drop1, const char *drop2, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (i == 0 || l[i - 1] == ' ') {
            const char *t = l + i;
            size_t rest = n - i, skip = 0;
            if ((drop1 && rest > strlen(drop1) && memcmp(t, drop1, strlen(drop1)) == 0) ||
                (drop2 && rest > strlen(drop2) && memcmp(t, drop2, strlen(drop2)) == 0)) {
                int q = 0;
                while (skip < rest && (q || t[skip] != ' ')) {
                    if (t[skip] == '"')
                        q = !q;
                    skip++;
                }
                i += skip;
                if (i < n && l[i] == ' ')
                    i++;
                continue;
            }
        }
        out[o++] = l[i++];
    }
    return o;
}

/* The id="..." of a dump line, or NULL (*n its length). */
static const char *frame_id(const char *l, size_t n, size_t *idn)
{
    for (size_t i = 0; i + 5 <= n; i++)
        if (memcmp(l + i, " id=\"", 5) == 0) {
            const char *s = l + i + 5, *e = memchr(s, '"', n - i - 5);
            if (!e)
                return NULL;
            *idn = (size_t)(e - s);
            return s;
        }
    return NULL;
}

/* Whether two stack_frame dump lines define the same id. */
static int same_frame_id(const char *a, size_t na, const char *b, size_t nb)
{
    size_t ia, ib;
    const char *x = frame_id(a, na, &ia), *y = frame_id(b, nb, &ib);
    return x && y && ia == ib && memcmp(x, y, ia) == 0;
}

/* Whether the piece's events of a packet (ta) are the whole file's (tb)
 * but for what a V8 profile record in a piece after its profile's first
 * lacks (tools/split_pf_v8.c): its samples' times, its frames' parents,
 * frames the piece defines again (a frame of the piece that is no
 * definition of the whole's is left out of both): 1 when they differ so
 * (a loss the split counts), 0 when only by frames the whole defines in
 * other packets (no loss), -1 when otherwise. */
static int v8_only(const char *ta, const char *tb, const hset *frame_ids)
{
    if (!ta || !tb)
        return -1;
    int differs = 0;
    while (*ta || *tb) {
        const char *ea = strchr(ta, '\n'), *eb = strchr(tb, '\n');
        size_t na = ea ? (size_t)(ea - ta) : strlen(ta), nb = eb ? (size_t)(eb - tb) : strlen(tb);
        const char *a1, *a2, *b1, *b2;
        int va = *ta && v8_line(ta, na, &a1, &a2);
        /* (a frame the piece defines that the whole's packet does not,
         * before the whole's next frame or in its place: the piece's only,
         * its parent lost; fuzz_split_perfetto found the former) */
        if (va && strncmp(ta, "stack_frame ", 12) == 0 &&
            !(*tb && strncmp(tb, "stack_frame ", 12) == 0 && same_frame_id(ta, na, tb, nb))) {
            /* (one the whole defined elsewhere is the input's own
             * definition of that node again: a piece meets the node in
             * this record, the whole met it first in an earlier one,
             * with other content when the input gives it twice,
             * fuzz_split_perfetto; not a loss) */
            size_t idn;
            const char *id = frame_id(ta, na, &idn);
            if (!(id && hset_has(frame_ids, fnv(FNV0, id, idn))))
                differs = 1;
            ta += na + (ea != NULL);
            continue;
        }
        if (!*ta || !*tb)
            return -1;
        if (na != nb || memcmp(ta, tb, na) != 0) {
            if (!va || !v8_line(tb, nb, &b1, &b2))
                return -1;
            char *x = malloc(na + 1), *y = malloc(nb + 1);
            if (!x || !y)
                abort();
            size_t nx = v8_norm(ta, na, a1, a2, x), ny = v8_norm(tb, nb, b1, b2, y);
            int same = nx == ny && memcmp(x, y, nx) == 0;
            free(x);
            free(y);
            if (!same)
                return -1;
            differs = 1;
        }
        ta += na + (ea != NULL);
        tb += nb + (eb != NULL);
    }
    return differs;
}

static int failf(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int failf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

struct split_pf_whole {
    coll c;     /* the whole file's packets and events */
    hset facts; /* the metadata facts it states */
    hset frame_ids; /* the stack frame ids it defines */
};

split_pf_whole *split_pf_whole_read(const void *in, size_t len)
{
    split_pf_whole *w = calloc(1, sizeof *w);
    if (!w)
        abort();
    dump_init(&w->c.d);
    w->c.facts = &w->facts;
    w->c.frame_ids = &w->frame_ids;
    w->c.whole = 1;
    w->c.want_index = SIZE_MAX;
    collect(&w->c, in, len);
    return w;
}

void split_pf_whole_free(split_pf_whole *w)
{
    if (!w)
        return;
    coll_free(&w->c);
    free(w->facts.v);
    free(w->frame_ids.v);
    free(w);
}

int split_pf_verify(const void *in, size_t len, const pieces_mem *pm, uint64_t max_bytes,
                    const split_perfetto_stats *st, char *err, size_t errlen)
{
    split_pf_whole *w = split_pf_whole_read(in, len);
    int rc = split_pf_verify_whole(w, in, len, pm, max_bytes, st, err, errlen);
    split_pf_whole_free(w);
    return rc;
}

int split_pf_verify_whole(split_pf_whole *w, const void *in, size_t len, const pieces_mem *pm,
                          uint64_t max_bytes, const split_perfetto_stats *st, char *err,
                          size_t errlen)
{
    size_t state_ends = 0, prevs_lost = 0, v8_split = 0;
    const coll *whole = &w->c;
    int rc = 0;
    size_t j = 0; /* the next input packet */
    for (size_t k = 0; k < pm->n && rc == 0; k++) {
        const mem_piece *mp = &pm->piece[k];
        coll pc;
        memset(&pc, 0, sizeof pc);
        dump_init(&pc.d);
        pc.facts = &w->facts;
        pc.want_index = SIZE_MAX;
        collect(&pc, mp->data, mp->len);
        /* the piece's packets are input packets, in order, with the packets
         * split_perfetto adds before the ones that need them: a packet is
         * the next input packet when it has its bytes, else an added one */
        size_t m = 0; /* input packets in the piece */
        for (size_t i = 0; rc == 0 && i < pc.n; i++) {
            const pkrec *a = &pc.pk[i];
            /* (a packet of the piece's header restates, whatever its
             * bytes: it may have an input packet's, as a global clock
             * snapshot repeated has, fuzz_split_perfetto,
             * fuzz/seeds/split_perfetto/regress_header_snapshot_twin) */
            const pkrec *b = j + m < whole->n && a->off >= mp->header ? &whole->pk[j + m] : NULL;
            int same_events = b && a->ev == b->ev && a->events == b->events;
            /* the next input packet when it has its bytes; else (or when
             * its events differ while they only restate metadata: a global
             * clock snapshot repeated from another sequence's has the same
             * bytes but not the same sequence) an added packet */
            if (b && a->norm == b->norm && (same_events || !a->restates)) {
                if (!same_events) {
                    char *ta = events_text(mp->data, mp->len, i);
                    char *tb = events_text(in, len, j + m);
                    size_t lost;
                    if (prev_only(ta, tb, a->events, b->events, &lost)) {
                        prevs_lost += lost;
                        free(ta);
                        free(tb);
                        m++;
                        continue;
                    }
                    if (state_end_only(ta, tb, a->events, b->events)) {
                        state_ends++;
                        free(ta);
                        free(tb);
                        m++;
                        continue;
                    }
                    int v8 = v8_only(ta, tb, &w->frame_ids);
                    if (v8 >= 0) {
                        v8_split += (size_t)v8;
                        free(ta);
                        free(tb);
                        m++;
                        continue;
                    }
                    rc = failf(err, errlen, "piece %zu packet %zu (input packet %zu): %u "
                               "events, %u in the whole\npiece:\n%.1500s\nwhole:\n%.1500s",
                               k, i, j + m, a->events, b->events, ta ? ta : "", tb ? tb : "");
                    free(ta);
                    free(tb);
                }
                m++;
            } else if (!a->restates) {
                char *ta = events_text(mp->data, mp->len, i);
                rc = failf(err, errlen, "piece %zu: packet %zu is not input packet %zu, and "
                           "its events are not metadata the input states:\n%.1500s", k, i,
                           j + m, ta ? ta : "");
                free(ta);
            }
        }
        if (rc == 0 && m == 0)
            rc = failf(err, errlen, "piece %zu holds no input packet", k);
        if (rc == 0 && mp->len > max_bytes && !(mp->oversize && m == 1))
            rc = failf(err, errlen, "piece %zu: %zu bytes over %" PRIu64 " with %zu input "
                       "packets%s", k, mp->len, max_bytes, m,
                       mp->oversize ? "" : ", not declared oversize");
        j += m;
        coll_free(&pc);
    }
    if (rc == 0 && j != whole->n)
        rc = failf(err, errlen, "the pieces hold %zu input packets of %zu", j, whole->n);
    /* a lost state end is a loss the split reports, exactly */
    if (rc == 0 && st && st->state_ends_lost != state_ends)
        rc = failf(err, errlen, "%zu TYPE_STATE ends are not in the pieces, the split "
                   "reported %llu", state_ends, (unsigned long long)st->state_ends_lost);
    if (rc == 0 && st && st->sched_prevs_lost != prevs_lost)
        rc = failf(err, errlen, "%zu context switches lack their previous thread in the "
                   "pieces, the split reported %llu", prevs_lost,
                   (unsigned long long)st->sched_prevs_lost);
    /* (counted per record the split cannot keep whole, whether or not its
     * events came out different) */
    if (rc == 0 && st && v8_split > st->v8_records_split)
        rc = failf(err, errlen, "%zu V8 profile records differ from the whole in the pieces, "
                   "the split counted %llu", v8_split,
                   (unsigned long long)st->v8_records_split);
    split_pf_state_ends += state_ends;
    return rc;
}
