/* split_fxt: see split_fxt.h and doc/convert.md. */
#include "split_fxt.h"
#include "pos_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FXT_MAGIC UINT64_C(0x0016547846040010)
#define IMPLICIT UINT64_C(0x100000000) /* the provider of records before any */
#define MAX_STR_REFS 64                 /* string references noted per record */
#define MAX_KOIDS 4                     /* kernel objects noted per record */

enum { DEF_STRING = 1, DEF_THREAD, DEF_KOBJ, DEF_PROVIDER, DEF_INIT };

typedef struct fdef {
    int kind;
    uint64_t prov;           /* provider key (id, or IMPLICIT) */
    uint64_t key;            /* string/thread index, koid; 0 otherwise */
    uint64_t owner;          /* kernel objects: the provider of their strings */
    unsigned char *deps;     /* kernel objects: the string records they
                                referenced when defined, back to back (the
                                table may have changed since) */
    size_t deps_len;
    uint32_t gen;            /* the provider's generation when registered */
    unsigned char *rec;
    size_t len;
    size_t args_offset;      /* kernel objects: where the args start */
    unsigned nargs;
    uint64_t epoch;          /* the piece it was last written to */
    uint64_t plan;           /* the dry run that counted it */
} fdef;

typedef struct fprov {
    uint64_t key;
    uint32_t gen;            /* bumped by provider info: tables emptied */
    long announce, init;     /* defs: its provider info (or section), its
                                initialization record; -1 none */
    uint64_t epoch, plan;
} fprov;

/* The piece being written, or a dry run of it (sizes only). */
typedef struct emit_ctx {
    int dry;
    uint64_t plan;
    uint64_t bytes;
    int cur_set;
    uint64_t cur;
} emit_ctx;

struct split_fxt {
    split_pieces *sp;
    uint64_t epoch;          /* the current piece, from 1 */
    uint64_t plan_no;
    uint64_t piece_records;  /* input records in the current piece */
    int cur_set;             /* the piece's reader has a current provider */
    uint64_t cur;

    fdef *v;
    size_t n, cap_v;
    pos_index index;         /* def_hash -> position in v */
    size_t def_bytes;
    int defs_full;

    fprov *prov;
    size_t nprov, cap_prov;

    /* the record waiting for its events (kernel objects they name) */
    int pending;
    unsigned char *rec;
    size_t rec_len, rec_cap;
    uint64_t rec_header, rec_size;
    uint64_t rec_off;        /* its offset in the (decompressed) input */
    unsigned rec_type;
    uint64_t rec_prov;
    size_t rec_args_offset;
    unsigned rec_nargs;
    int rec_skipped;         /* the decoder skips it: it defines nothing */
    uint64_t koids[MAX_KOIDS];
    int nkoids;
    /* a large record being streamed */
    int large;
    uint64_t large_left;     /* bytes of it not written yet */
    int large_payload_done;

    uint64_t repeated;
    int failed;
    char error[512];
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

static uint64_t word(const unsigned char *p, size_t len, size_t i)
{
    uint64_t w = 0;
    if (i < len / 8)
        for (int b = 7; b >= 0; b--)
            w = (w << 8) | p[i * 8 + (size_t)b];
    return w;
}

static int fail(split_fxt *s, const char *msg)
{
    if (!s->failed)
        snprintf(s->error, sizeof s->error, "%s", msg);
    s->failed = 1;
    return -1;
}

static int fail_pieces(split_fxt *s)
{
    return fail(s, split_pieces_error(s->sp));
}

/* ------------------------------------------------------------------------ */
/* Definitions                                                              */

static uint64_t def_hash(int kind, uint64_t prov, uint64_t key)
{
    return mix64(mix64(prov ^ ((uint64_t)kind << 40)) ^ key);
}

static fdef *def_find(split_fxt *s, int kind, uint64_t prov, uint64_t key)
{
    size_t it = 0, pos;
    uint64_t h = def_hash(kind, prov, key);
    while (pos_index_next(&s->index, h, &it, &pos)) {
        fdef *d = &s->v[pos];
        if (d->kind == kind && d->prov == prov && d->key == key)
            return d;
    }
    return NULL;
}

static fprov *prov_get(split_fxt *s, uint64_t key)
{
    for (size_t i = 0; i < s->nprov; i++)
        if (s->prov[i].key == key)
            return &s->prov[i];
    if (s->nprov == s->cap_prov) {
        size_t cap = s->cap_prov ? s->cap_prov * 2 : 8;
        fprov *p = realloc(s->prov, cap * sizeof *p);
        if (!p)
            return NULL;
        s->prov = p;
        s->cap_prov = cap;
    }
    fprov *p = &s->prov[s->nprov++];
    memset(p, 0, sizeof *p);
    p->key = key;
    p->announce = p->init = -1;
    return p;
}

/* Stores (replaces) a definition; its position, or -1 when it is not kept
 * (the table is full: a warning at the end says so). */
static long def_put(split_fxt *s, int kind, uint64_t prov, uint64_t key, uint32_t gen,
                    const unsigned char *rec, size_t len)
{
    fdef *d = def_find(s, kind, prov, key);
    size_t old = d ? d->len : 0;
    if (s->def_bytes - old + len > SPLIT_FXT_MAX_DEFS_BYTES) {
        s->defs_full = 1;
        if (d) { /* no longer the value in force */
            free(d->rec);
            free(d->deps);
            d->rec = d->deps = NULL;
            s->def_bytes -= old + d->deps_len;
            d->len = d->deps_len = 0;
        }
        return -1;
    }
    if (!d) {
        if (s->n == s->cap_v) {
            size_t cap = s->cap_v ? s->cap_v * 2 : 256;
            fdef *v = realloc(s->v, cap * sizeof *v);
            if (!v)
                return -1;
            s->v = v;
            s->cap_v = cap;
        }
        if (pos_index_add(&s->index, def_hash(kind, prov, key), s->n) != 0)
            return -1;
        d = &s->v[s->n];
        memset(d, 0, sizeof *d);
        d->kind = kind;
        d->prov = prov;
        d->key = key;
        s->n++;
    }
    unsigned char *copy = malloc(len ? len : 1);
    if (!copy)
        return -1;
    memcpy(copy, rec, len);
    free(d->rec);
    free(d->deps);
    d->deps = NULL;
    s->def_bytes -= d->deps_len;
    d->deps_len = 0;
    s->def_bytes = s->def_bytes - old + len;
    d->rec = copy;
    d->len = len;
    d->gen = gen;
    d->epoch = 0;
    d->plan = 0;
    return (long)(d - s->v);
}

/* A string or thread definition in force for provider prov, or NULL. */
static fdef *def_live(split_fxt *s, int kind, uint64_t prov, uint64_t key)
{
    fdef *d = def_find(s, kind, prov, key);
    if (!d || !d->rec)
        return NULL;
    if (kind == DEF_STRING || kind == DEF_THREAD) {
        fprov *p = prov_get(s, prov);
        if (!p || p->gen != d->gen)
            return NULL;
    }
    return d;
}

/* ------------------------------------------------------------------------ */
/* References                                                               */

typedef struct refs {
    uint16_t str[MAX_STR_REFS];
    int nstr;
    uint8_t thr[2];
    int nthr;
} refs;

static void ref_str(refs *r, uint64_t v)
{
    v &= 0xffff;
    if (v == 0 || (v & 0x8000) || r->nstr >= MAX_STR_REFS)
        return; /* empty or inline */
    for (int i = 0; i < r->nstr; i++)
        if (r->str[i] == v)
            return;
    r->str[r->nstr++] = (uint16_t)v;
}

static void ref_thr(refs *r, uint64_t v)
{
    v &= 0xff;
    if (v && r->nthr < 2)
        r->thr[r->nthr++] = (uint8_t)v;
}

static void ref_args(refs *r, const unsigned char *p, size_t len, size_t off, unsigned nargs)
{
    if (!off)
        return;
    size_t w = off / 8;
    for (unsigned i = 0; i < nargs && w < len / 8; i++) {
        uint64_t h = word(p, len, w);
        uint64_t size = (h >> 4) & 0xfff;
        ref_str(r, h >> 16);
        if ((h & 0xf) == 6)
            ref_str(r, h >> 32);
        if (size == 0)
            break;
        w += size;
    }
}

/* The string and thread table entries a record uses (doc/formats/fxt.md). */
static void record_refs(refs *r, unsigned type, uint64_t h, const unsigned char *p,
                        size_t len, size_t args_offset, unsigned nargs)
{
    memset(r, 0, sizeof *r);
    switch (type) {
    case TREAD_FXT_EVENT:
        ref_thr(r, h >> 24);
        ref_str(r, h >> 32);
        ref_str(r, h >> 48);
        break;
    case TREAD_FXT_BLOB:
        ref_str(r, h >> 16);
        break;
    case TREAD_FXT_USERSPACE_OBJECT:
        ref_thr(r, h >> 16);
        ref_str(r, h >> 24);
        break;
    case TREAD_FXT_KERNEL_OBJECT:
        ref_str(r, h >> 24);
        break;
    case TREAD_FXT_SCHEDULING:
        if (((h >> 60) & 0xf) == 0) { /* legacy context switch */
            ref_thr(r, h >> 28);
            ref_thr(r, h >> 36);
        }
        break;
    case TREAD_FXT_LOG:
        ref_thr(r, h >> 32);
        break;
    case TREAD_FXT_LARGE:
        if (((h >> 36) & 0xf) == 0) {
            uint64_t f = word(p, len, 1);
            ref_str(r, f);
            ref_str(r, f >> 16);
            if (((h >> 40) & 0xf) == 0)
                ref_thr(r, f >> 36);
        }
        break;
    default:
        break;
    }
    ref_args(r, p, len, args_offset, nargs);
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */

static int out(split_fxt *s, emit_ctx *c, const void *p, size_t n)
{
    c->bytes += n;
    if (c->dry)
        return 0;
    return split_pieces_write(s->sp, p, n) == 0 ? 0 : fail_pieces(s);
}

/* Not yet in this piece (nor counted by this dry run). */
static int wanted(const emit_ctx *c, uint64_t epoch, uint64_t *d_epoch, uint64_t *d_plan)
{
    if (*d_epoch == epoch || (c->dry && *d_plan == c->plan))
        return 0;
    if (c->dry)
        *d_plan = c->plan;
    else
        *d_epoch = epoch;
    return 1;
}

static int emit_def(split_fxt *s, emit_ctx *c, fdef *d)
{
    if (!wanted(c, s->epoch, &d->epoch, &d->plan))
        return 0;
    if (!c->dry)
        s->repeated++;
    return out(s, c, d->rec, d->len);
}

/* Makes prov the piece's current provider: its announcement (and
 * initialization record) the first time in the piece, else a section
 * record when another one is current. */
static int ensure_provider(split_fxt *s, emit_ctx *c, uint64_t key)
{
    fprov *p = prov_get(s, key);
    if (!p)
        return fail(s, "out of memory");
    if (wanted(c, s->epoch, &p->epoch, &p->plan)) {
        if (key != IMPLICIT) {
            if (p->announce >= 0 && s->v[p->announce].rec) {
                if (out(s, c, s->v[p->announce].rec, s->v[p->announce].len) != 0)
                    return -1;
            } else {
                uint64_t w = 0 | (1u << 4) | (2u << 16) | ((key & 0xffffffffu) << 20);
                unsigned char b[8];
                for (int i = 0; i < 8; i++)
                    b[i] = (unsigned char)(w >> (8 * i));
                if (out(s, c, b, 8) != 0)
                    return -1;
            }
            if (!c->dry)
                s->repeated++;
        }
        c->cur_set = 1;
        c->cur = key;
        if (p->init >= 0 && s->v[p->init].rec)
            return emit_def(s, c, &s->v[p->init]);
        return 0;
    }
    if (key != IMPLICIT && (!c->cur_set || c->cur != key)) {
        uint64_t w = 0 | (1u << 4) | (2u << 16) | ((key & 0xffffffffu) << 20);
        unsigned char b[8];
        for (int i = 0; i < 8; i++)
            b[i] = (unsigned char)(w >> (8 * i));
        if (out(s, c, b, 8) != 0)
            return -1;
        c->cur_set = 1;
        c->cur = key;
    }
    return 0;
}

static int emit_strings(split_fxt *s, emit_ctx *c, uint64_t prov, const refs *r)
{
    for (int i = 0; i < r->nstr; i++) {
        fdef *d = def_live(s, DEF_STRING, prov, r->str[i]);
        if (d && emit_def(s, c, d) != 0)
            return -1;
    }
    return 0;
}

/* A kernel object's strings as they were when it was defined; the table
 * entries they replace in the piece's reader are written again when a
 * later record needs them. */
static int emit_kobj_strings(split_fxt *s, emit_ctx *c, fdef *k)
{
    size_t off = 0;
    while (off + 8 <= k->deps_len) {
        uint64_t h = word(k->deps + off, 8, 0);
        size_t len = (size_t)((h >> 4) & 0xfff) * 8;
        if (len == 0 || off + len > k->deps_len)
            break;
        fdef *cur = def_live(s, DEF_STRING, k->owner, (h >> 16) & 0x7fff);
        int same = cur && cur->len == len && memcmp(cur->rec, k->deps + off, len) == 0;
        if (!same || !(cur->epoch == s->epoch || (c->dry && cur->plan == c->plan))) {
            if (out(s, c, k->deps + off, len) != 0)
                return -1;
            if (!c->dry)
                s->repeated++;
        }
        if (cur && c->dry)
            cur->plan = same ? c->plan : 0;
        else if (cur)
            cur->epoch = same ? s->epoch : 0;
        off += len;
    }
    return 0;
}

/* Everything the pending record needs before it, then the record. */
static int emit_pending(split_fxt *s, emit_ctx *c)
{
    uint64_t prov = s->rec_prov;
    unsigned type = s->rec_type;
    uint64_t h = s->rec_header;
    /* a record the decoder skips uses nothing (its skip depends on its
     * own bytes only): copied as it is, it is skipped in the piece too */
    if (s->rec_skipped)
        return out(s, c, s->rec, s->rec_len);
    /* kernel objects named by its events, with their own strings */
    for (int i = 0; type != TREAD_FXT_KERNEL_OBJECT && i < s->nkoids; i++) {
        fdef *k = def_find(s, DEF_KOBJ, 0, s->koids[i]);
        if (!k || !k->rec || k->epoch == s->epoch || (c->dry && k->plan == c->plan))
            continue;
        if (ensure_provider(s, c, k->owner) != 0 || emit_kobj_strings(s, c, k) != 0 ||
            emit_def(s, c, k) != 0)
            return -1;
    }
    /* a provider info record announces itself; magic and trace info
     * records belong to none; every other record needs its provider */
    unsigned mt = (unsigned)((h >> 16) & 0xf);
    int needs_provider = type != TREAD_FXT_METADATA || mt == 2 || mt == 3;
    if (needs_provider && ensure_provider(s, c, prov) != 0)
        return -1;
    refs r;
    record_refs(&r, type, h, s->rec, s->rec_len, s->rec_args_offset, s->rec_nargs);
    if (emit_strings(s, c, prov, &r) != 0)
        return -1;
    for (int i = 0; i < r.nthr; i++) {
        fdef *d = def_live(s, DEF_THREAD, prov, r.thr[i]);
        if (d && emit_def(s, c, d) != 0)
            return -1;
    }
    return out(s, c, s->rec, s->rec_len);
}

static int begin_piece(split_fxt *s)
{
    if (split_pieces_begin(s->sp) != 0)
        return fail_pieces(s);
    s->epoch++;
    s->cur_set = 0;
    s->piece_records = 0;
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(FXT_MAGIC >> (8 * i));
    return split_pieces_write(s->sp, b, 8) == 0 ? 0 : fail_pieces(s);
}

/* After the record went to the piece: what it defines, in force now. A
 * record the decoder skips (a string past its record's end, a provider
 * name past it, a kernel object with bad arguments, an initialization
 * record without a rate or with 0, ...) defines nothing: the entry in
 * force stays the one before it, as in the decoder's tables. */
static int define(split_fxt *s)
{
    uint64_t h = s->rec_header;
    uint64_t prov = s->rec_prov;
    fprov *p;
    long pos;
    if (s->rec_skipped)
        return 0;
    switch (s->rec_type) {
    case TREAD_FXT_METADATA:
        if (((h >> 16) & 0xf) == 1 || ((h >> 16) & 0xf) == 2) {
            int info = ((h >> 16) & 0xf) == 1;
            if (!(p = prov_get(s, prov)))
                return fail(s, "out of memory");
            if (info) { /* a new session: the tables are emptied */
                p->gen++;
                p->init = -1;
            }
            if (info || p->announce < 0) {
                pos = def_put(s, DEF_PROVIDER, prov, 0, 0, s->rec, s->rec_len);
                if (!(p = prov_get(s, prov)))
                    return fail(s, "out of memory");
                p->announce = pos;
                if (pos >= 0)
                    s->v[pos].epoch = s->epoch;
            }
            p->epoch = s->epoch;
            s->cur_set = 1;
            s->cur = prov;
        }
        return 0;
    case TREAD_FXT_INITIALIZATION:
        if (!(p = prov_get(s, prov)))
            return fail(s, "out of memory");
        pos = def_put(s, DEF_INIT, prov, 0, 0, s->rec, s->rec_len);
        if (!(p = prov_get(s, prov)))
            return fail(s, "out of memory");
        p->init = pos;
        break;
    case TREAD_FXT_STRING:
    case TREAD_FXT_THREAD: {
        uint64_t idx = s->rec_type == TREAD_FXT_STRING ? (h >> 16) & 0x7fff : (h >> 16) & 0xff;
        if (!idx || !(p = prov_get(s, prov)))
            return 0;
        pos = def_put(s, s->rec_type == TREAD_FXT_STRING ? DEF_STRING : DEF_THREAD, prov,
                      idx, p->gen, s->rec, s->rec_len);
        break;
    }
    case TREAD_FXT_KERNEL_OBJECT: {
        unsigned otype = (unsigned)((h >> 16) & 0xff);
        if (otype != 1 && otype != 2) /* processes and threads name events */
            return 0;
        pos = def_put(s, DEF_KOBJ, 0, word(s->rec, s->rec_len, 1), 0, s->rec, s->rec_len);
        if (pos >= 0) { /* keyed by koid alone; its strings are its provider's */
            fdef *d = &s->v[pos];
            d->args_offset = s->rec_args_offset;
            d->nargs = s->rec_nargs;
            d->owner = prov;
            refs r;
            record_refs(&r, TREAD_FXT_KERNEL_OBJECT, h, s->rec, s->rec_len,
                        s->rec_args_offset, s->rec_nargs);
            size_t need = 0;
            for (int i = 0; i < r.nstr; i++) {
                fdef *st = def_live(s, DEF_STRING, prov, r.str[i]);
                need += st ? st->len : 0;
            }
            if (need && s->def_bytes + need <= SPLIT_FXT_MAX_DEFS_BYTES &&
                (d->deps = malloc(need)) != NULL) {
                for (int i = 0; i < r.nstr; i++) {
                    fdef *st = def_live(s, DEF_STRING, prov, r.str[i]);
                    if (st) {
                        memcpy(d->deps + d->deps_len, st->rec, st->len);
                        d->deps_len += st->len;
                    }
                }
                s->def_bytes += d->deps_len;
            } else if (need) {
                s->defs_full = 1;
            }
        }
        break;
    }
    default:
        return 0;
    }
    if (pos >= 0)
        s->v[pos].epoch = s->epoch;
    return 0;
}

/* Writes the pending record: into the current piece, or a new one when it
 * would take the current one past max_bytes. */
static int flush(split_fxt *s)
{
    if (!s->pending)
        return 0;
    s->pending = 0;
    uint64_t total_size = s->large ? s->rec_size : s->rec_len;
    emit_ctx dry = {.dry = 1, .plan = ++s->plan_no, .cur_set = s->cur_set, .cur = s->cur};
    if (!split_pieces_is_open(s->sp) && begin_piece(s) != 0)
        return -1;
    if (emit_pending(s, &dry) != 0)
        return -1;
    uint64_t need = dry.bytes - s->rec_len + total_size;
    if (s->piece_records && split_pieces_size(s->sp) + need > split_pieces_max(s->sp)) {
        if (split_pieces_end(s->sp) != 0)
            return fail_pieces(s);
        if (begin_piece(s) != 0)
            return -1;
    }
    emit_ctx c = {.dry = 0, .cur_set = s->cur_set, .cur = s->cur};
    if (emit_pending(s, &c) != 0)
        return -1;
    s->cur_set = c.cur_set;
    s->cur = c.cur;
    s->piece_records++;
    if (define(s) != 0)
        return -1;
    if (s->large)
        s->large_left = s->rec_size > s->rec_len ? s->rec_size - s->rec_len : 0;
    if (s->piece_records == 1 &&
        split_pieces_size(s->sp) + (s->large ? s->large_left : 0) > split_pieces_max(s->sp))
        split_pieces_oversize(s->sp);
    return 0;
}

/* The rest of a large record: zero padding after its payload (and a
 * payload the decoder skipped, an unknown large type, as zeros). When the
 * input ended inside the record (input_end: its decoded size, else
 * UINT64_MAX), only as far as the input held it: the piece is cut where
 * the input is, and a header declaring gigabytes writes no more than the
 * input had. */
static int finish_large(split_fxt *s, uint64_t input_end)
{
    if (!s->large)
        return 0;
    s->large = 0;
    if (input_end != UINT64_MAX) {
        uint64_t held = input_end > s->rec_off ? input_end - s->rec_off : 0;
        uint64_t unwritten_held = held > s->rec_size - s->large_left
                                      ? held - (s->rec_size - s->large_left) : 0;
        if (s->large_left > unwritten_held)
            s->large_left = unwritten_held;
    }
    static const unsigned char zeros[4096];
    while (s->large_left) {
        size_t k = s->large_left < sizeof zeros ? (size_t)s->large_left : sizeof zeros;
        if (split_pieces_write(s->sp, zeros, k) != 0)
            return fail_pieces(s);
        s->large_left -= k;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Hooks                                                                    */

int split_fxt_record(split_fxt *s, const tread_fxt_record *rec)
{
    if (s->failed)
        return -1;
    if (flush(s) != 0 || finish_large(s, UINT64_MAX) != 0)
        return -1;
    if (rec->len > s->rec_cap) {
        size_t cap = s->rec_cap ? s->rec_cap : 4096;
        while (cap < rec->len)
            cap *= 2;
        unsigned char *p = realloc(s->rec, cap);
        if (!p)
            return fail(s, "out of memory");
        s->rec = p;
        s->rec_cap = cap;
    }
    memcpy(s->rec, rec->data, rec->len);
    s->rec_len = rec->len;
    s->rec_header = rec->header;
    s->rec_type = rec->type;
    s->rec_size = rec->size_words * 8;
    s->rec_off = rec->offset;
    s->rec_args_offset = rec->args_offset;
    s->rec_nargs = rec->nargs;
    s->rec_skipped = rec->skipped;
    s->rec_prov = rec->has_provider ? rec->provider_id : IMPLICIT;
    if (rec->type == TREAD_FXT_METADATA) {
        unsigned mt = (unsigned)((rec->header >> 16) & 0xf);
        if (mt >= 1 && mt <= 3) /* the provider it announces, switches to, names */
            s->rec_prov = (rec->header >> 20) & 0xffffffffu;
    }
    s->nkoids = 0;
    s->large = rec->type == TREAD_FXT_LARGE;
    s->large_left = 0;
    s->large_payload_done = 0;
    s->pending = 1;
    return 0;
}

int split_fxt_event(split_fxt *s, const tread_event *ev)
{
    if (s->failed)
        return -1;
    if (!s->pending)
        return 0;
    uint64_t k[2];
    int n = 0;
    if (ev->flags & TREAD_HAS_PID)
        k[n++] = (uint64_t)ev->pid;
    if (ev->flags & TREAD_HAS_TID)
        k[n++] = (uint64_t)ev->tid;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < s->nkoids; j++)
            seen |= s->koids[j] == k[i];
        if (!seen && s->nkoids < MAX_KOIDS)
            s->koids[s->nkoids++] = k[i];
    }
    return 0;
}

int split_fxt_blob(split_fxt *s, const tread_blob *b)
{
    if (s->failed)
        return -1;
    if (s->pending && s->large && flush(s) != 0)
        return -1;
    if (!s->large)
        return 0; /* a blob record's payload is inside its bytes */
    size_t n = b->len;
    if (n > s->large_left)
        n = (size_t)s->large_left;
    if (n && split_pieces_write(s->sp, b->data, n) != 0)
        return fail_pieces(s);
    s->large_left -= n;
    if (b->last)
        s->large_payload_done = 1;
    return 0;
}

int split_fxt_finish(split_fxt *s, uint64_t input_end)
{
    if (s->failed)
        return -1;
    if (flush(s) != 0 || finish_large(s, input_end) != 0)
        return -1;
    if (!split_pieces_is_open(s->sp) && begin_piece(s) != 0)
        return -1; /* an empty trace: one piece with the magic record */
    return split_pieces_end(s->sp) == 0 ? 0 : fail_pieces(s);
}

split_fxt *split_fxt_new(split_pieces *sp)
{
    split_fxt *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->sp = sp;
    pos_index_init(&s->index);
    return s;
}

const char *split_fxt_error(const split_fxt *s) { return s->error; }
int split_fxt_defs_full(const split_fxt *s) { return s->defs_full; }
uint64_t split_fxt_repeated(const split_fxt *s) { return s->repeated; }

void split_fxt_free(split_fxt *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].rec);
        free(s->v[i].deps);
    }
    free(s->v);
    pos_index_free(&s->index);
    free(s->prov);
    free(s->rec);
    free(s);
}
