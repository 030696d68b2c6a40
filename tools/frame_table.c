/* frame_table: see frame_table.h and doc/convert.md. */
#include "frame_table.h"

#include <stdlib.h>
#include <string.h>

#include "convert_json.h"

/* "\n],\"stackFrames\":{\n" + "\n}}\n" in place of the plain footer */
#define HEAD "\n],\"stackFrames\":{\n"
#define TAIL "\n}}\n"
#define SEP ",\n"
#define EXTRA (sizeof HEAD - 1 + sizeof TAIL - 1 - (sizeof CONVERT_JSON_FOOTER - 1))
#define MAX_PENDING 4096

typedef struct frame {
    char *id, *parent;     /* parent NULL: none */
    size_t id_len, parent_len;
    char *rec;             /* "id":{...} */
    size_t len;
    uint64_t epoch;        /* the piece carrying it (0: none) */
    uint64_t chain;        /* ...with its parents */
    uint64_t visit;
} frame;

struct frame_table {
    frame *v;
    size_t n, cap;
    size_t *slot;          /* open addressing: index + 1, 0 empty */
    size_t nslot;
    size_t held, max_bytes;
    uint64_t epoch;        /* the epoch marked/pending/bytes are for */
    size_t *marked;
    size_t n_marked, cap_marked;
    size_t bytes;
    char *pending[MAX_PENDING]; /* ids used before any definition */
    size_t pending_len[MAX_PENDING];
    size_t n_pending;
    uint64_t visit_no, unresolved;
    char *scratch;
    size_t scratch_len, scratch_cap;
};

static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

frame_table *frame_table_new(size_t max_bytes)
{
    frame_table *t = calloc(1, sizeof *t);
    if (t)
        t->max_bytes = max_bytes;
    return t;
}

void frame_table_free(frame_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].id);
        free(t->v[i].parent);
        free(t->v[i].rec);
    }
    for (size_t i = 0; i < t->n_pending; i++)
        free(t->pending[i]);
    free(t->v);
    free(t->slot);
    free(t->marked);
    free(t->scratch);
    free(t);
}

static frame *find(const frame_table *t, const char *id, size_t n)
{
    if (!t->nslot || !id)
        return NULL;
    size_t m = t->nslot - 1;
    for (size_t k = (size_t)hash(id, n) & m; t->slot[k]; k = (k + 1) & m) {
        frame *f = &t->v[t->slot[k] - 1];
        if (f->id_len == n && memcmp(f->id, id, n) == 0)
            return f;
    }
    return NULL;
}

/* ---- the record text --------------------------------------------------- */

static int put_raw(frame_table *t, const char *s, size_t n)
{
    if (t->scratch_cap - t->scratch_len < n) {
        size_t cap = t->scratch_cap ? t->scratch_cap : 256;
        while (cap - t->scratch_len < n)
            cap *= 2;
        char *p = realloc(t->scratch, cap);
        if (!p)
            return -1;
        t->scratch = p;
        t->scratch_cap = cap;
    }
    memcpy(t->scratch + t->scratch_len, s, n);
    t->scratch_len += n;
    return 0;
}

static int put_str(frame_table *t, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    if (put_raw(t, "\"", 1))
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        int rc = c == '"' || c == '\\' ? put_raw(t, "\\", 1) || put_raw(t, (const char *)&s[i], 1)
                 : c < 0x20             ? put_raw(t, e, 6)
                                        : put_raw(t, (const char *)&s[i], 1);
        if (rc)
            return -1;
    }
    return put_raw(t, "\"", 1);
}

/* The record of a STACK_FRAME event into t->scratch: "id":{"name":..,
 * "category":..,"parent":..} (the fields tread reads back the same). */
static int build(frame_table *t, const tread_event *ev)
{
    t->scratch_len = 0;
    int first = 1, rc = put_str(t, ev->id.ptr ? ev->id.ptr : "", ev->id.ptr ? ev->id.len : 0) ||
                        put_raw(t, ":{", 2);
    if (!rc && ev->name.ptr) {
        rc = put_raw(t, "\"name\":", 7) || put_str(t, ev->name.ptr, ev->name.len);
        first = 0;
    }
    if (!rc && ev->cat.ptr) {
        rc = (!first && put_raw(t, ",", 1)) || put_raw(t, "\"category\":", 11) ||
             put_str(t, ev->cat.ptr, ev->cat.len);
        first = 0;
    }
    if (!rc && ev->parent.ptr)
        rc = (!first && put_raw(t, ",", 1)) || put_raw(t, "\"parent\":", 9) ||
             put_str(t, ev->parent.ptr, ev->parent.len);
    return rc || put_raw(t, "}", 1);
}

/* ---- epochs ------------------------------------------------------------ */

static void to_epoch(frame_table *t, uint64_t epoch)
{
    if (t->epoch == epoch)
        return;
    t->epoch = epoch;
    t->n_marked = 0;
    t->bytes = 0;
    for (size_t i = 0; i < t->n_pending; i++)
        free(t->pending[i]);
    t->unresolved += t->n_pending;
    t->n_pending = 0;
}

static size_t frame_cost(const frame_table *t, const frame *f)
{
    return f->len + (t->n_marked ? sizeof SEP - 1 : EXTRA);
}

static int mark(frame_table *t, frame *f)
{
    if (f->epoch == t->epoch)
        return 0;
    if (t->n_marked == t->cap_marked) {
        size_t cap = t->cap_marked ? t->cap_marked * 2 : 64;
        size_t *m = realloc(t->marked, cap * sizeof *m);
        if (!m)
            return -1;
        t->marked = m;
        t->cap_marked = cap;
    }
    t->bytes += frame_cost(t, f);
    t->marked[t->n_marked++] = (size_t)(f - t->v);
    f->epoch = t->epoch;
    return 0;
}

/* f and its parents, carried by the current epoch. */
static void chain(frame_table *t, frame *f)
{
    for (int d = 0; f && f->chain != t->epoch; d++) {
        if (d == FRAME_TABLE_MAX_DEPTH) {
            t->unresolved++;
            return;
        }
        f->chain = t->epoch;
        if (mark(t, f))
            return; /* (out of memory: the frame is left out of the piece) */
        f = f->parent ? find(t, f->parent, f->parent_len) : NULL;
    }
}

/* What the chain from id would add (frames not visited in this walk). */
static size_t chain_cost(frame_table *t, const char *id, size_t n, int *first)
{
    size_t c = 0;
    frame *f = find(t, id, n);
    for (int d = 0; f && f->chain != t->epoch && f->visit != t->visit_no &&
                    d < FRAME_TABLE_MAX_DEPTH; d++) {
        f->visit = t->visit_no;
        if (f->epoch != t->epoch) {
            c += f->len + (*first ? EXTRA : sizeof SEP - 1);
            *first = 0;
        }
        f = f->parent ? find(t, f->parent, f->parent_len) : NULL;
    }
    return c;
}

size_t frame_table_cost(frame_table *t, const tread_event *ev, uint64_t epoch)
{
    to_epoch(t, epoch);
    int first = t->n_marked == 0;
    t->visit_no++;
    size_t c = 0;
    if (ev->kind == TREAD_EVENT_STACK_FRAME) {
        c = build(t, ev) ? 0 : t->scratch_len + (first ? EXTRA : sizeof SEP - 1);
        first = 0;
        if (ev->parent.ptr)
            c += chain_cost(t, ev->parent.ptr, ev->parent.len, &first);
        return c;
    }
    if (ev->sf.ptr)
        c += chain_cost(t, ev->sf.ptr, ev->sf.len, &first);
    if (ev->esf.ptr)
        c += chain_cost(t, ev->esf.ptr, ev->esf.len, &first);
    return c;
}

static void use_id(frame_table *t, const char *id, size_t n)
{
    frame *f = find(t, id, n);
    if (f) {
        chain(t, f);
        return;
    }
    for (size_t i = 0; i < t->n_pending; i++)
        if (t->pending_len[i] == n && memcmp(t->pending[i], id, n) == 0)
            return;
    char *c = t->n_pending < MAX_PENDING ? malloc(n + 1) : NULL;
    if (!c) {
        t->unresolved++;
        return;
    }
    memcpy(c, id, n);
    t->pending[t->n_pending] = c;
    t->pending_len[t->n_pending++] = n;
}

void frame_table_use(frame_table *t, const tread_event *ev, uint64_t epoch)
{
    to_epoch(t, epoch);
    if (ev->sf.ptr)
        use_id(t, ev->sf.ptr, ev->sf.len);
    if (ev->esf.ptr)
        use_id(t, ev->esf.ptr, ev->esf.len);
}

static int grow_slots(frame_table *t)
{
    size_t n = t->nslot ? t->nslot * 2 : 256;
    size_t *s = calloc(n, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < t->n; i++) { /* (a later definition of an id wins) */
        const frame *f = &t->v[i];
        size_t k = (size_t)hash(f->id, f->id_len) & (n - 1);
        while (s[k] && !(t->v[s[k] - 1].id_len == f->id_len &&
                         memcmp(t->v[s[k] - 1].id, f->id, f->id_len) == 0))
            k = (k + 1) & (n - 1);
        s[k] = i + 1;
    }
    free(t->slot);
    t->slot = s;
    t->nslot = n;
    return 0;
}

static char *dup(const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (c) {
        if (n)
            memcpy(c, s, n);
        c[n] = 0;
    }
    return c;
}

frame_put frame_table_put(frame_table *t, const tread_event *ev, uint64_t epoch)
{
    to_epoch(t, epoch);
    if (build(t, ev))
        return FRAME_NOT_KEPT;
    const char *id = ev->id.ptr ? ev->id.ptr : "";
    size_t id_len = ev->id.ptr ? ev->id.len : 0;
    size_t need = t->scratch_len + id_len + (ev->parent.ptr ? ev->parent.len : 0) + 2;
    frame *f = find(t, id, id_len);
    if (f && f->len == t->scratch_len && memcmp(f->rec, t->scratch, f->len) == 0)
        return FRAME_REPEAT;
    if (t->held + need > t->max_bytes)
        return FRAME_NOT_KEPT;
    char *rec = dup(t->scratch, t->scratch_len);
    char *parent = ev->parent.ptr ? dup(ev->parent.ptr, ev->parent.len) : NULL;
    if (!rec || (ev->parent.ptr && !parent)) {
        free(rec);
        free(parent);
        return FRAME_NOT_KEPT;
    }
    /* a new definition of an id is a frame of its own (both are in the
     * input); lookups find the last one */
    frame_put r = f ? FRAME_REPLACED : FRAME_NEW;
    char *idc = dup(id, id_len);
    if (!idc || ((t->n + 1) * 2 > t->nslot && grow_slots(t))) {
        free(idc);
        free(rec);
        free(parent);
        return FRAME_NOT_KEPT;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        frame *v = realloc(t->v, cap * sizeof *v);
        if (!v) {
            free(idc);
            free(rec);
            free(parent);
            return FRAME_NOT_KEPT;
        }
        t->v = v;
        t->cap = cap;
    }
    f = &t->v[t->n++];
    memset(f, 0, sizeof *f);
    f->id = idc;
    f->id_len = id_len;
    size_t m = t->nslot - 1, k = (size_t)hash(id, id_len) & m;
    while (t->slot[k]) {
        const frame *g = &t->v[t->slot[k] - 1];
        if (g->id_len == id_len && memcmp(g->id, id, id_len) == 0)
            break; /* the earlier definition: this one is found now */
        k = (k + 1) & m;
    }
    t->slot[k] = t->n;
    f->rec = rec;
    f->len = t->scratch_len;
    f->parent = parent;
    f->parent_len = ev->parent.ptr ? ev->parent.len : 0;
    t->held += need;
    chain(t, f); /* with its parents: every frame of a piece has its chain */
    /* an id the piece's events used before it was defined */
    for (size_t i = 0; i < t->n_pending; i++)
        if (t->pending_len[i] == id_len && memcmp(t->pending[i], id, id_len) == 0) {
            free(t->pending[i]);
            t->pending[i] = t->pending[--t->n_pending];
            t->pending_len[i] = t->pending_len[t->n_pending];
            chain(t, f);
            break;
        }
    return r;
}

size_t frame_table_bytes(const frame_table *t, uint64_t epoch)
{
    return t->epoch == epoch ? t->bytes : 0;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

int frame_table_footer(frame_table *t, uint64_t epoch, frame_write_fn w, void *u)
{
    to_epoch(t, epoch);
    int rc = 0;
    if (!t->n_marked) {
        rc = w(u, CONVERT_JSON_FOOTER, sizeof CONVERT_JSON_FOOTER - 1);
    } else {
        qsort(t->marked, t->n_marked, sizeof *t->marked, cmp_size);
        rc = w(u, HEAD, sizeof HEAD - 1);
        for (size_t i = 0; i < t->n_marked && !rc; i++) {
            const frame *f = &t->v[t->marked[i]];
            rc = (i && w(u, SEP, sizeof SEP - 1)) || w(u, f->rec, f->len);
        }
        rc = rc || w(u, TAIL, sizeof TAIL - 1);
    }
    to_epoch(t, 0); /* counts what is still pending */
    return rc ? -1 : 0;
}

uint64_t frame_table_unresolved(const frame_table *t)
{
    return t->unresolved;
}
