/* V8 CPU profiles expanded into stack frame and sample events
 * (json_profile.h). The facts follow trace_processor's JSON importer:
 * a Profile event's args.data.startTime (us) starts the profile of
 * (pid, id); a ProfileChunk's args.data.cpuProfile.nodes define nodes
 * (id, parent or children, callFrame) and its samples pair with
 * args.data.timeDeltas (us), each delta added to the profile's running
 * time. */
#include "json/json_decoder.h"
#include "json/json_profile.h"
#include "core/args.h"
#include "core/timeconv.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum { JP_FREE = 0, JP_PROFILE, JP_NODE };
enum { JP_F_SEEN = 1, JP_F_PARENT = 2, JP_F_START = 4 };
enum { JP_ID_NONE = 0, JP_ID_NUM, JP_ID_TEXT, JP_ID_CPU, JP_ID_FILE };

void json_profiles_init(json_profiles *t, tread_parser *p)
{
    memset(t, 0, sizeof *t);
    t->alloc = &p->alloc;
    t->max = p->max_profile_nodes;
    tread_buf_init(&t->fid, &p->alloc, p->max_string_bytes + 64);
    tread_buf_init(&t->parent, &p->alloc, p->max_string_bytes + 64);
    tread_buf_init(&t->sargs, &p->alloc, 4096);
}

void json_profiles_free(json_profiles *t)
{
    tread_free(t->alloc, t->slots);
    tread_free(t->alloc, t->pend);
    tread_buf_free(&t->fid);
    tread_buf_free(&t->parent);
    tread_buf_free(&t->sargs);
}

/* ---- the table -------------------------------------------------------- */

static size_t jp_hash(int type, uint64_t a, uint64_t b)
{
    uint64_t h = (a * 0x9e3779b97f4a7c15u) ^ (b + 0x632be59bd9b4e019u + (uint64_t)type);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9u;
    h ^= h >> 32;
    return (size_t)h;
}

static jp_entry *jp_find(const json_profiles *t, int type, uint64_t a, uint64_t b)
{
    if (!t->cap)
        return NULL;
    for (size_t i = jp_hash(type, a, b) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        jp_entry *e = &t->slots[i];
        if (e->type == JP_FREE)
            return NULL;
        if (e->type == type && e->a == a && e->b == b)
            return e;
    }
}

/* The entry of (type, a, b), made when new (*made = 1). NULL with *full
 * set past TREAD_OPT_MAX_PROFILE_NODES, NULL alone when out of memory. */
static jp_entry *jp_get(json_profiles *t, int type, uint64_t a, uint64_t b, int *made, int *full)
{
    *made = 0;
    *full = 0;
    jp_entry *e = jp_find(t, type, a, b);
    if (e)
        return e;
    if (t->used >= t->max) {
        *full = 1;
        return NULL;
    }
    if ((t->used + 1) * 2 > t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 64;
        jp_entry *ns = tread_malloc(t->alloc, ncap * sizeof *ns);
        if (!ns)
            return NULL;
        memset(ns, 0, ncap * sizeof *ns);
        for (size_t i = 0; i < t->cap; i++) {
            jp_entry *o = &t->slots[i];
            if (o->type == JP_FREE)
                continue;
            size_t j = jp_hash(o->type, o->a, o->b) & (ncap - 1);
            while (ns[j].type != JP_FREE)
                j = (j + 1) & (ncap - 1);
            ns[j] = *o;
        }
        tread_free(t->alloc, t->slots);
        t->slots = ns;
        t->cap = ncap;
    }
    size_t i = jp_hash(type, a, b) & (t->cap - 1);
    while (t->slots[i].type != JP_FREE)
        i = (i + 1) & (t->cap - 1);
    e = &t->slots[i];
    memset(e, 0, sizeof *e);
    e->type = (uint8_t)type;
    e->a = a;
    e->b = b;
    t->used++;
    *made = 1;
    return e;
}

/* ---- tokens ----------------------------------------------------------- */

/* 1 + the offset of the value of key among the members that start at p
 * (the first of duplicates), or 0. */
static size_t member_at(const tread_buf *tok, size_t p, const char *key)
{
    size_t kl = strlen(key);
    while (p < tok->len && tok->data[p] == TOK_KEY) {
        size_t n;
        const char *k = args_tok_str(tok->data + p, &n);
        size_t v = p + args_tok_size(tok->data + p);
        if (n == kl && memcmp(k, key, kl) == 0)
            return v + 1;
        p = args_skip_value(tok->data, tok->len, v);
    }
    return 0;
}

/* The same in the dict whose BEGIN is at off1 - 1. */
static size_t member(const tread_buf *tok, size_t off1, const char *key)
{
    if (!off1 || tok->data[off1 - 1] != TOK_DICT_BEGIN)
        return 0;
    return member_at(tok, off1, key);
}

/* member() of several keys in one pass over the dict at off1 - 1: each
 * key's value (1 + its offset, the first of duplicates) into out, 0 when
 * absent. (A chunk's data was read once a key before: its arrays, skipped
 * again for each later key, were a tenth of a sample's expansion.) */
static void members(const tread_buf *tok, size_t off1, const char *const *keys, size_t n,
                    size_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = 0;
    if (!off1 || tok->data[off1 - 1] != TOK_DICT_BEGIN)
        return;
    size_t p = off1;
    while (p < tok->len && tok->data[p] == TOK_KEY) {
        size_t kl;
        const char *k = args_tok_str(tok->data + p, &kl);
        size_t v = p + args_tok_size(tok->data + p);
        for (size_t i = 0; i < n; i++)
            if (!out[i] && strlen(keys[i]) == kl && memcmp(k, keys[i], kl) == 0)
                out[i] = v + 1;
        p = args_skip_value(tok->data, tok->len, v);
    }
}

/* 1 + the offset of the first element of the array at 1 + off, or 0 when
 * it is no array or empty. */
static size_t first_elem(const tread_buf *tok, size_t off1)
{
    if (!off1 || tok->data[off1 - 1] != TOK_ARRAY_BEGIN)
        return 0;
    return tok->data[off1] == TOK_ARRAY_END ? 0 : off1 + 1;
}

static size_t next_elem(const tread_buf *tok, size_t e1)
{
    /* (a scalar's size inline: samples[] and timeDeltas[] are numbers,
     * and the call was a quarter of a profile sample's expansion) */
    unsigned t = tok->data[e1 - 1];
    size_t n = t == TOK_DICT_BEGIN || t == TOK_ARRAY_BEGIN || t == TOK_KEY
                   ? args_skip_value(tok->data, tok->len, e1 - 1)
                   : e1 - 1 + args_tok_size(tok->data + e1 - 1);
    if (n > tok->len)
        n = tok->len;
    return n < tok->len && tok->data[n] != TOK_ARRAY_END ? n + 1 : 0;
}

static size_t count_elems(const tread_buf *tok, size_t e1)
{
    size_t n = 0;
    for (; e1; e1 = next_elem(tok, e1))
        n++;
    return n;
}

/* An integer value (a JSON number or numeric string; fractions round). */
static int tok_int(const unsigned char *t, int64_t *out)
{
    if (t[0] != TOK_NUM && t[0] != TOK_STR)
        return 0;
    size_t n;
    const char *s = args_tok_str(t, &n);
    return n && timeconv_decimal_scaled(s, n, 0, out) == 0;
}

static int tok_us(const unsigned char *t, int64_t *ns)
{
    if (t[0] != TOK_NUM && t[0] != TOK_STR)
        return 0;
    size_t n;
    const char *s = args_tok_str(t, &n);
    return n && timeconv_decimal_scaled(s, n, 3, ns) == 0;
}

/* ---- frame ids -------------------------------------------------------- */

/* "<pid>:<id>:" (a trace's profiles) or "" (a .cpuprofile's one). */
static int set_prefix(json_profiles *t, const tread_event *ev, const jp_entry *prof)
{
    char tmp[64];
    int n = 0, rc = 0;
    t->fid.len = 0;
    t->fid_cached = 0;
    if (prof->kind != JP_ID_FILE) {
        n = snprintf(tmp, sizeof tmp, "%" PRId64 ":", ev->pid);
        rc = tread_buf_append(&t->fid, tmp, (size_t)n);
        if (!rc && prof->kind == JP_ID_NUM) {
            n = snprintf(tmp, sizeof tmp, "0x%" PRIx64, prof->b);
            rc = tread_buf_append(&t->fid, tmp, (size_t)n);
        } else if (!rc && prof->kind == JP_ID_TEXT) {
            rc = tread_buf_append(&t->fid, ev->id.ptr, ev->id.len);
        } else if (!rc && prof->kind == JP_ID_CPU) {
            n = snprintf(tmp, sizeof tmp, "cpu%" PRIu64, prof->b);
            rc = tread_buf_append(&t->fid, tmp, (size_t)n);
        }
        if (!rc)
            rc = tread_buf_append(&t->fid, ":", 1);
    }
    t->prefix_len = t->fid.len;
    t->parent.len = 0;
    if (!rc)
        rc = tread_buf_append(&t->parent, t->fid.data, t->fid.len);
    return rc;
}

/* node in decimal, NUL-ended, into the end of tmp[24]; returns its start
 * (snprintf was a sixth of a .cpuprofile's reading time). */
static const char *decimal(char tmp[24], int64_t node, size_t *len)
{
    char *p = tmp + 23;
    *p = 0;
    uint64_t u = node < 0 ? 0 - (uint64_t)node : (uint64_t)node;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (node < 0)
        *--p = '-';
    *len = (size_t)(tmp + 23 - p);
    return p;
}

/* prefix bytes of b, then node in decimal, NUL-ended: *out. */
static int write_id(tread_buf *b, size_t prefix, int64_t node, tread_str *out)
{
    char tmp[24];
    size_t n;
    const char *s = decimal(tmp, node, &n);
    b->len = prefix;
    int rc = tread_buf_append(b, s, n + 1);
    if (rc)
        return rc;
    out->ptr = (const char *)b->data;
    out->len = b->len - 1;
    return 0;
}

/* The frame id of node after the prefix in force, in t->fid. Samples
 * dwell on a node, so the id written last is kept (fid_cached) and used
 * again while the prefix is the same: formatting it took a third of a
 * .cpuprofile sample's instructions. */
static int frame_id(json_profiles *t, int64_t node, tread_str *out)
{
    tread_buf *b = &t->fid;
    if (!t->fid_cached || t->fid_node != node || t->fid_prefix != t->prefix_len) {
        t->fid_cached = 0;
        int rc = write_id(b, t->prefix_len, node, out);
        if (rc)
            return rc;
        t->fid_cached = 1;
        t->fid_node = node;
        t->fid_prefix = t->prefix_len;
        t->fid_end = b->len;
    }
    b->len = t->fid_end;
    out->ptr = (const char *)b->data;
    out->len = b->len - 1;
    return 0;
}

static void nomem(const jp_host *d, uint64_t off)
{
    tread__fail(d->p, TREAD_ERROR_NOMEM, off, "out of memory");
}

static void warn_full(const jp_host *d, uint64_t off)
{
    json_profiles *t = d->t;
    if (t->cur.warned_full)
        return;
    t->cur.warned_full = 1;
    tread__warn(d->p, TREAD_WARN_LIMIT, off,
                "V8 profile table full (%zu profiles and nodes, TREAD_OPT_MAX_PROFILE_NODES): "
                "nodes not remembered", t->max);
}

/* ---- nodes ------------------------------------------------------------ */

/* One node of profile prof, its members starting at m in rec.tok. Emits
 * its STACK_FRAME event the first time the node is seen; tmpl is the
 * template (pid, tid, raw, offset). Returns 1 when it emitted. */
static int node(const jp_host *d, tread_event *tmpl, const jp_entry *prof, size_t m)
{
    json_profiles *t = d->t;
    const tread_buf *tok = d->tok;
    uint64_t roff = tmpl->offset;
    int64_t id, parent = 0;
    size_t v = member_at(tok, m, "id");
    if (!v || !tok_int(tok->data + v - 1, &id)) {
        tread__warn(d->p, TREAD_WARN_BAD_FIELD, roff,
                    "a profile node without an integer \"id\": skipped");
        return 0;
    }
    int has_parent = 0;
    v = member_at(tok, m, "parent");
    if (v && tok_int(tok->data + v - 1, &parent))
        has_parent = 1;
    uint64_t pn = prof->x;
    int made, full;
    jp_entry *e = jp_get(t, JP_NODE, pn, (uint64_t)id, &made, &full);
    if (!e && !full) {
        nomem(d, roff);
        return 0;
    }
    if (full)
        warn_full(d, roff);
    if (e && (e->flags & JP_F_SEEN))
        return 0; /* sent again: defined once */
    if (!has_parent && e && (e->flags & JP_F_PARENT)) {
        parent = e->v; /* named in an earlier node's children */
        has_parent = 1;
    }
    if (e) {
        e->flags |= JP_F_SEEN;
        if (has_parent) {
            e->flags |= JP_F_PARENT;
            e->v = parent;
        }
    }
    /* children name this node as their parent (DevTools' and node's
     * form); a child already defined without a parent is said */
    for (size_t c = first_elem(tok, member_at(tok, m, "children")); c; c = next_elem(tok, c)) {
        int64_t child;
        if (!tok_int(tok->data + c - 1, &child))
            continue;
        jp_entry *ce = jp_get(t, JP_NODE, pn, (uint64_t)child, &made, &full);
        if (!ce) {
            if (!full) {
                nomem(d, roff);
                return 0;
            }
            warn_full(d, roff);
            continue;
        }
        if (ce->flags & JP_F_PARENT)
            continue;
        ce->flags |= JP_F_PARENT;
        ce->v = id;
        if (ce->flags & JP_F_SEEN)
            tread__warn(d->p, TREAD_WARN_UNRESOLVED_REF, roff,
                        "profile node %" PRId64 " comes before its parent %" PRId64
                        ": its stack frame has no parent", child, id);
    }
    tread_event ev = *tmpl;
    ev.kind = TREAD_EVENT_STACK_FRAME;
    ev.flags &= ~(uint32_t)(TREAD_HAS_TS | TREAD_HAS_TTS | TREAD_HAS_DUR | TREAD_HAS_TDUR |
                            TREAD_HAS_ID_NUM);
    ev.flags |= TREAD_HAS_ID;
    ev.name = (tread_str){NULL, 0};
    ev.cat = (tread_str){NULL, 0};
    ev.sf = ev.esf = (tread_str){NULL, 0};
    ev.args = (tread_args){.data = NULL};
    if (frame_id(t, id, &ev.id) ||
        (has_parent && write_id(&t->parent, t->prefix_len, parent, &ev.parent))) {
        nomem(d, roff);
        return 0;
    }
    size_t cf = member_at(tok, m, "callFrame");
    if (cf && tok->data[cf - 1] == TOK_DICT_BEGIN) {
        size_t end = args_skip_value(tok->data, tok->len, cf - 1);
        ev.args.data = tok->data + cf;
        ev.args.len = end - cf - 1;
        size_t f = member(tok, cf, "functionName");
        if (f && tok->data[f - 1] == TOK_STR)
            ev.name.ptr = args_tok_str(tok->data + f - 1, &ev.name.len);
        f = member(tok, cf, "url");
        if (f && tok->data[f - 1] == TOK_STR) {
            size_t n;
            const char *s = args_tok_str(tok->data + f - 1, &n);
            if (n)
                ev.cat = (tread_str){s, n};
        }
    }
    tread__emit(d->p, &ev);
    return 1;
}

/* ---- samples ---------------------------------------------------------- */

/* t->sev becomes the event every sample of this record starts from (one
 * copy a record: copying the whole event a sample was an eighth of a
 * .cpuprofile's reading time). */
static void sample_template(json_profiles *t, const tread_event *tmpl)
{
    tread_event *ev = &t->sev;
    *ev = *tmpl;
    ev->kind = TREAD_EVENT_SAMPLE;
    ev->flags &= ~(uint32_t)(TREAD_HAS_TS | TREAD_HAS_TTS | TREAD_HAS_DUR | TREAD_HAS_TDUR |
                             TREAD_HAS_ID | TREAD_HAS_ID_NUM);
    ev->name = (tread_str){NULL, 0};
    ev->id = (tread_str){NULL, 0};
    ev->sf = ev->esf = (tread_str){NULL, 0};
    ev->args = (tread_args){.data = NULL};
}

/* One sample of profile prof from t->sev (sample_template). */
static int sample(const jp_host *d, jp_entry *prof, int64_t node_id, int has_node, int64_t delta,
                  const unsigned char *line, const unsigned char *col)
{
    json_profiles *t = d->t;
    tread_event *ev = &t->sev;
    int64_t ts;
    if (__builtin_add_overflow(prof->v, delta, &ts)) {
        tread__warn(d->p, TREAD_WARN_NUMBER_RANGE, ev->offset,
                    "profile sample time out of the int64 nanosecond range: kept as it was");
        ts = prof->v;
    }
    prof->v = ts;
    ev->flags &= ~(uint32_t)TREAD_HAS_TS;
    if (prof->flags & JP_F_START) {
        ev->ts = ts;
        ev->flags |= TREAD_HAS_TS;
    }
    ev->sf = (tread_str){NULL, 0};
    ev->args = (tread_args){.data = NULL};
    if (has_node) {
        if (frame_id(t, node_id, &ev->sf)) {
            nomem(d, ev->offset);
            return 0;
        }
        /* (a node once seen stays seen: the last one found is not
         * looked up again while samples dwell on it) */
        if (!t->cur.warned_unknown &&
            !(t->seen_cached && t->seen_node == node_id && t->seen_prof == prof->x)) {
            jp_entry *n = jp_find(t, JP_NODE, prof->x, (uint64_t)node_id);
            if (n && (n->flags & JP_F_SEEN)) {
                t->seen_cached = 1;
                t->seen_node = node_id;
                t->seen_prof = prof->x;
            } else if (t->used < t->max) {
                t->cur.warned_unknown = 1;
                tread__warn(d->p, TREAD_WARN_UNRESOLVED_REF, ev->offset,
                            "a profile sample of node %" PRId64 ", which the profile never defined",
                            node_id);
            }
        }
    }
    if (line || col) {
        tread_buf *b = &t->sargs;
        b->len = 0;
        int rc = 0;
        if (line && (line[0] == TOK_NUM || line[0] == TOK_STR))
            rc = args_put_str(b, TOK_KEY, "line", 4) ||
                 tread_buf_append(b, line, args_tok_size(line));
        if (!rc && col && (col[0] == TOK_NUM || col[0] == TOK_STR))
            rc = args_put_str(b, TOK_KEY, "column", 6) ||
                 tread_buf_append(b, col, args_tok_size(col));
        if (rc) {
            nomem(d, ev->offset);
            return 0;
        }
        ev->args = (tread_args){.data = b->data, .len = b->len};
    }
    tread__emit(d->p, ev);
    return 1;
}

/* ---- trace events ----------------------------------------------------- */

int json_profile_kind(const unsigned char *name, size_t n, int phase, const json_decoder *d)
{
    (void)d;
    if (!name)
        return 0;
    if (phase == 'P' && n == 7 && memcmp(name, "Profile", 7) == 0)
        return JP_REC_PROFILE;
    if (phase == 'P' && n == 12 && memcmp(name, "ProfileChunk", 12) == 0)
        return JP_REC_CHUNK;
    if (n == 10 && memcmp(name, "CpuProfile", 10) == 0)
        return JP_REC_CPUPROFILE;
    return 0;
}

/* The profile of a record: (pid, id) for Profile and ProfileChunk, a new
 * one for each CpuProfile. NULL: not held (table full: warned, or out of
 * memory: failed). */
static jp_entry *record_profile(const jp_host *d, const tread_event *ev, int kind)
{
    json_profiles *t = d->t;
    uint64_t key = 0;
    int idk = JP_ID_NONE;
    if (kind == JP_REC_CPUPROFILE) {
        key = ++t->cpu_seq;
        idk = JP_ID_CPU;
    } else if (ev->flags & TREAD_HAS_ID_NUM) {
        key = ev->id_num;
        idk = JP_ID_NUM;
    } else if (ev->flags & TREAD_HAS_ID) {
        key = timeconv_hash64(ev->id.ptr, ev->id.len);
        idk = JP_ID_TEXT;
    }
    int made, full;
    /* the id's kind is part of the key: "0x1" and a text id hashing to 1
     * stay apart */
    jp_entry *e = jp_get(t, JP_PROFILE, (uint64_t)ev->pid, key ^ ((uint64_t)idk << 62), &made, &full);
    if (!e) {
        if (full)
            warn_full(d, ev->offset);
        else
            nomem(d, ev->offset);
        return NULL;
    }
    if (made) {
        e->x = ++t->nprof;
        e->kind = (uint8_t)idk;
    }
    return e;
}

/* The profile's key without its kind bits (what frame ids print). */
static jp_entry prof_view(const jp_entry *e)
{
    jp_entry v = *e;
    v.b = e->b ^ ((uint64_t)e->kind << 62);
    return v;
}

/* Sets the profile's start from startTime (us) at member 1 + off. */
static void set_start(const jp_host *d, jp_entry *prof, size_t v, uint64_t roff)
{
    int64_t ns;
    if (!tok_us(d->tok->data + v - 1, &ns)) {
        tread__warn(d->p, TREAD_WARN_BAD_FIELD, roff, "profile \"startTime\" is not a number: ignored");
        return;
    }
    if (d->t->map_start && d->t->map_start(d->t->map_ctx, ns, &ns)) {
        tread__warn(d->p, TREAD_WARN_CLOCK, roff,
                    "profile \"startTime\" has no path to the trace clock: its samples "
                    "have no timestamps");
        return;
    }
    prof->v = ns;
    prof->flags |= JP_F_START;
}

int json_profile_expand(const jp_host *d, tread_event *tmpl, int kind, int resume)
{
    json_profiles *t = d->t;
    jp_cursor *c = &t->cur;
    const tread_buf *tok = d->tok;
    jp_entry *prof = NULL;
    size_t args1 = d->args1;
    if (!resume) {
        static const char *const dkeys[] = {"cpuProfile", "startTime", "timeDeltas", "lines",
                                            "columns"};
        static const char *const ckeys[] = {"startTime", "nodes", "samples", "timeDeltas"};
        size_t dv[5], cv[4];
        members(tok, member(tok, args1, "data"), dkeys, 5, dv);
        members(tok, dv[0], ckeys, 4, cv);
        memset(c, 0, sizeof *c);
        prof = record_profile(d, tmpl, kind);
        if (!prof) {
            if (d->p->state == P_ERROR)
                return 0;
            /* not held: delivered as it was before profiles were read */
            tread__emit(d->p, tmpl);
            return 0;
        }
        c->prof = prof->x;
        c->pa = prof->a;
        c->pb = prof->b;
        size_t st = kind == JP_REC_CPUPROFILE ? cv[0] : dv[1];
        if (st)
            set_start(d, prof, st, tmpl->offset);
        c->nodes = first_elem(tok, cv[1]);
        c->s = first_elem(tok, cv[2]);
        c->t = first_elem(tok, dv[2] ? dv[2] : cv[3]);
        c->l = first_elem(tok, dv[3]);
        c->c = first_elem(tok, dv[4]);
        size_t ns = count_elems(tok, c->s), nt = count_elems(tok, c->t);
        if (ns != nt)
            tread__warn(d->p, TREAD_WARN_BAD_FIELD, tmpl->offset,
                        "profile samples (%zu) and timeDeltas (%zu) differ in length: "
                        "the %zu unpaired are dropped", ns, nt, ns > nt ? ns - nt : nt - ns);
        if (ns && nt && !(prof->flags & JP_F_START))
            tread__warn(d->p, TREAD_WARN_UNRESOLVED_REF, tmpl->offset,
                        "profile samples before a Profile event with a startTime: "
                        "delivered without timestamps");
        c->stage = kind == JP_REC_PROFILE ? 0 : 1;
    } else {
        prof = jp_find(t, JP_PROFILE, c->pa, c->pb); /* the table may have grown */
        if (!prof)
            return 0;
    }
    jp_entry view = prof_view(prof);
    if (set_prefix(t, tmpl, &view)) {
        nomem(d, tmpl->offset);
        return 0;
    }
    if (c->stage == 0) {
        /* the Profile event itself: metadata, its args as written */
        c->stage = 1;
        tread_event ev = *tmpl;
        ev.kind = TREAD_EVENT_METADATA;
        ev.meta = TREAD_META_OTHER;
        tread__emit(d->p, &ev);
        if (d->p->stop_requested)
            goto stopped;
    }
    while (c->stage == 1 && c->nodes) {
        size_t n = c->nodes;
        c->nodes = next_elem(tok, n);
        int emitted = 0;
        if (tok->data[n - 1] == TOK_DICT_BEGIN)
            emitted = node(d, tmpl, &view, n);
        else
            tread__warn(d->p, TREAD_WARN_BAD_FIELD, tmpl->offset,
                        "a profile node is not an object: skipped");
        if (d->p->state == P_ERROR)
            return 0;
        if (emitted && d->p->stop_requested)
            goto stopped;
    }
    c->stage = 2;
    if (c->s && c->t)
        sample_template(t, tmpl);
    while (c->s && c->t) {
        jp_entry *pe = jp_find(t, JP_PROFILE, c->pa, c->pb);
        if (!pe)
            return 0;
        size_t s = c->s, td = c->t, l = c->l, cc = c->c;
        c->s = next_elem(tok, s);
        c->t = next_elem(tok, td);
        c->l = l ? next_elem(tok, l) : 0;
        c->c = cc ? next_elem(tok, cc) : 0;
        int64_t node_id = 0, delta = 0;
        int has_node = tok_int(tok->data + s - 1, &node_id);
        if (!has_node || !tok_us(tok->data + td - 1, &delta))
            tread__warn(d->p, TREAD_WARN_BAD_FIELD, tmpl->offset,
                        "a profile sample or time delta is not a number: %s",
                        has_node ? "the delta counts as 0" : "the sample has no stack frame");
        sample(d, pe, node_id, has_node, delta, l ? tok->data + l - 1 : NULL,
               cc ? tok->data + cc - 1 : NULL);
        if (d->p->state == P_ERROR)
            return 0;
        if (d->p->stop_requested && c->s && c->t)
            goto stopped;
    }
    c->stage = 3;
    return 0;
stopped:
    return 1;
}

jp_host json_profile_host(json_decoder *d)
{
    jp_host h = {d->p, &d->prof, &d->rec.tok, d->rec.field[JF_ARGS]};
    return h;
}

int json_profile_emit(json_decoder *d, tread_event *tmpl, int kind, int resume)
{
    jp_host h = json_profile_host(d);
    int stopped = json_profile_expand(&h, tmpl, kind, resume);
    if (stopped)
        d->emit_next = 1;
    return stopped;
}

/* ---- a .cpuprofile file ----------------------------------------------- */

static int text_int(unsigned type, const char *s, size_t n, int64_t *out)
{
    return (type == TOK_NUM || type == TOK_STR) && n &&
           timeconv_decimal_scaled(s, n, 0, out) == 0;
}

static int text_us(unsigned type, const char *s, size_t n, int64_t *out)
{
    return (type == TOK_NUM || type == TOK_STR) && n &&
           timeconv_decimal_scaled(s, n, 3, out) == 0;
}

static void file_prefix(json_profiles *t)
{
    t->fid.len = 0;
    t->parent.len = 0;
    t->prefix_len = 0;
}

int json_profile_file_node(json_decoder *d, tread_event *tmpl)
{
    json_profiles *t = &d->prof;
    memset(&t->cur, 0, sizeof t->cur);
    t->file.kind = JP_ID_FILE;
    file_prefix(t);
    jp_host h = json_profile_host(d);
    node(&h, tmpl, &t->file, 0);
    return 0; /* one event at most: the stop comes after the record */
}

void json_profile_file_start(json_decoder *d, const char *s, size_t n, unsigned type,
                             uint64_t off)
{
    json_profiles *t = &d->prof;
    int64_t ns;
    if (!text_us(type, s, n, &ns)) {
        tread__warn(d->p, TREAD_WARN_BAD_FIELD, off, "profile \"startTime\" is not a number: ignored");
        return;
    }
    if (t->n_samples || t->n_deltas) {
        /* the deltas so far count from it (their samples had no time) */
        if (__builtin_add_overflow(t->file.v, ns, &ns)) {
            tread__warn(d->p, TREAD_WARN_NUMBER_RANGE, off,
                        "profile \"startTime\" out of the int64 nanosecond range: ignored");
            return;
        }
    }
    t->file.v = ns;
    t->file.flags |= JP_F_START;
}

int json_profile_file_value(json_decoder *d, int which, unsigned type, const char *s, size_t n,
                            uint64_t off)
{
    int64_t v;
    if (which == 0 ? !text_int(type, s, n, &v) : !text_us(type, s, n, &v)) {
        tread__warn(d->p, TREAD_WARN_BAD_FIELD, off, which == 0
                    ? "a profile sample is not an integer node id: the sample has no stack frame"
                    : "a profile time delta is not a number: it counts as 0");
        v = which == 0 ? INT64_MIN : 0;
    }
    return json_profile_file_num(d, which, v, off);
}

static inline int64_t pend_get(const json_profiles *t, size_t i)
{
    if (t->pend_w == 8) {
        int64_t v;
        memcpy(&v, t->pend + 8 * i, 8);
        return v;
    }
    int32_t v;
    memcpy(&v, t->pend + 4 * i, 4);
    return v == INT32_MIN ? INT64_MIN : v;
}

static void pend_fail(json_decoder *d, int which, uint64_t off)
{
    tread__fail(d->p, TREAD_ERROR_LIMIT_EVENT, off,
                "profile %s waiting for their %s larger than the limit of %zu bytes "
                "(TREAD_OPT_MAX_EVENT_BYTES)",
                which == 0 ? "samples" : "timeDeltas", which == 0 ? "timeDeltas" : "samples",
                d->p->max_event_bytes);
}

/* v waits for its partner. 0, or -1 after tread__fail. */
static int pend_push(json_decoder *d, int which, int64_t v, uint64_t off)
{
    json_profiles *t = &d->prof;
    size_t max = d->p->max_event_bytes;
    if (!t->pend_w)
        t->pend_w = 4;
    int widen = t->pend_w == 4 && v != INT64_MIN && (v <= INT32_MIN || v > INT32_MAX);
    if (t->pend_head && (t->pend_len == t->pend_cap || widen)) {
        /* the values taken are dropped before the array grows or widens */
        memmove(t->pend, t->pend + t->pend_head * t->pend_w,
                (t->pend_len - t->pend_head) * t->pend_w);
        t->pend_len -= t->pend_head;
        t->pend_head = 0;
    }
    if (widen) {
        /* a value past 32 bits: every waiting value widens to 8 bytes */
        size_t ncap = t->pend_cap;
        if (ncap * 8 > max)
            ncap = max / 8;
        if (ncap <= t->pend_len) {
            pend_fail(d, which, off);
            return -1;
        }
        unsigned char *np = tread_malloc(t->alloc, ncap * 8);
        if (!np) {
            tread__fail(d->p, TREAD_ERROR_NOMEM, off, "out of memory");
            return -1;
        }
        for (size_t i = 0; i < t->pend_len; i++) {
            int64_t w = pend_get(t, i);
            memcpy(np + 8 * i, &w, 8);
        }
        tread_free(t->alloc, t->pend);
        t->pend = np;
        t->pend_cap = ncap;
        t->pend_w = 8;
    }
    if (t->pend_len == t->pend_cap) {
        size_t ncap = t->pend_cap ? t->pend_cap * 2 : 1024;
        if (ncap * t->pend_w > max) {
            if (t->pend_cap * t->pend_w >= max || max / t->pend_w <= t->pend_cap) {
                pend_fail(d, which, off);
                return -1;
            }
            ncap = max / t->pend_w;
        }
        unsigned char *np = tread_realloc(t->alloc, t->pend, ncap * t->pend_w);
        if (!np) {
            tread__fail(d->p, TREAD_ERROR_NOMEM, off, "out of memory");
            return -1;
        }
        t->pend = np;
        t->pend_cap = ncap;
    }
    if (t->pend_w == 8) {
        memcpy(t->pend + 8 * t->pend_len, &v, 8);
    } else {
        int32_t n = v == INT64_MIN ? INT32_MIN : (int32_t)v;
        memcpy(t->pend + 4 * t->pend_len, &n, 4);
    }
    t->pend_len++;
    return 0;
}

int json_profile_file_num(json_decoder *d, int which, int64_t v, uint64_t off)
{
    json_profiles *t = &d->prof;
    uint64_t *mine = which == 0 ? &t->n_samples : &t->n_deltas;
    uint64_t other = which == 0 ? t->n_deltas : t->n_samples;
    (*mine)++;
    if (*mine > other) { /* this array is ahead: its value waits for its partner */
        if (t->pend_w == 4 && t->pend_len < t->pend_cap && v > INT32_MIN && v <= INT32_MAX) {
            int32_t n = (int32_t)v; /* the common case, in line */
            memcpy(t->pend + 4 * t->pend_len++, &n, 4);
            return 0;
        }
        return pend_push(d, which, v, off);
    }
    int64_t partner = pend_get(t, t->pend_head++);
    if (t->pend_head == t->pend_len)
        t->pend_head = t->pend_len = 0;
    int64_t node_id = which == 0 ? v : partner, delta = which == 0 ? partner : v;
    if (!(t->file.flags & JP_F_START) && !t->warned_late_start) {
        t->warned_late_start = 1;
        tread__warn(d->p, TREAD_WARN_UNRESOLVED_REF, off,
                    "profile samples before its \"startTime\": delivered without timestamps");
    }
    if (!t->file_sev) {
        tread_event ev;
        memset(&ev, 0, sizeof ev);
        sample_template(t, &ev);
        t->file_sev = 1;
    }
    t->sev.offset = off;
    file_prefix(t);
    t->cur.warned_unknown = t->warned_unknown;
    jp_host h = json_profile_host(d);
    sample(&h, &t->file, node_id, node_id != INT64_MIN, delta, NULL, NULL);
    t->warned_unknown = t->cur.warned_unknown;
    if (d->p->state == P_ERROR)
        return -1;
    return d->p->stop_requested ? 1 : 0;
}

void json_profile_file_end(json_decoder *d, uint64_t off)
{
    json_profiles *t = &d->prof;
    size_t left = t->pend_len - t->pend_head;
    if (left)
        tread__warn(d->p, TREAD_WARN_BAD_FIELD, off,
                    "profile samples (%" PRIu64 ") and timeDeltas (%" PRIu64
                    ") differ in length: the %zu unpaired are dropped",
                    t->n_samples, t->n_deltas, left);
    t->pend_head = t->pend_len = 0;
}
