/* convert_pf_stacks: see convert_pf_stacks.h. Field numbers from
 * ../shared/spec/perfetto_fields.tsv (InternedData, Frame, Mapping,
 * Callstack, InternedString). */
#include "convert_pf_stacks.h"
#include "frame_table.h"
#include "pos_index.h"

#include <stdlib.h>
#include <string.h>

enum {
    ID_FUNCTION_NAMES = 5, ID_FRAMES = 6, ID_CALLSTACKS = 7, ID_MAPPING_PATHS = 17,
    ID_SOURCE_PATHS = 18, ID_MAPPINGS = 19
};
enum { IS_IID = 1, IS_STR = 2 };
enum { FR_IID = 1, FR_FUNCTION_NAME = 2, FR_MAPPING = 3, FR_REL_PC = 4, FR_SOURCE = 5,
       FR_LINE = 6 };
enum { MP_IID = 1, MP_PATHS = 7 };
enum { CS_IID = 1, CS_FRAMES = 2 };

/* One definition; its strings follow it in the same allocation. */
typedef struct cvp_frame {
    const char *id, *name, *cat, *src, *parent;
    size_t id_len, name_len, cat_len, src_len, parent_len;
    int has_name, has_cat, has_src, has_parent, has_line, has_pc;
    int used;                  /* in a callstack written */
    int ahead;                 /* held by cvp_stacks_rewind, not yet met
                                  again in this pass */
    int64_t line;
    uint64_t rel_pc;
    uint64_t gen, iid;         /* interned as this iid in generation gen */
    uint64_t cs_gen, cs_iid;   /* the callstack ending here, ... */
    uint64_t cs_defs;          /* ... built when st->defs was this */
    size_t bytes;
} cvp_frame;

struct cvp_stacks {
    cvp_frame **v;
    size_t n, cap;
    pos_index index;           /* hash of the id -> position in v */
    size_t bytes, max_bytes;
    uint64_t gen;              /* of the sequence's interned state, from 1 */
    uint64_t next_iid;         /* the next iid of this generation */
    uint64_t defs;             /* redefinitions so far (a cached callstack
                                  built before one may be stale) */
    uint64_t unused_replaced;
    size_t chain[CVP_STACK_MAX_DEPTH]; /* the resolved chain, leaf first */
    size_t chain_n;
};

static uint64_t hash_id(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h ^ (h >> 29);
}

cvp_stacks *cvp_stacks_new(size_t max_bytes)
{
    cvp_stacks *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    pos_index_init(&st->index);
    st->max_bytes = max_bytes ? max_bytes : FRAME_TABLE_DEFAULT_MAX_BYTES;
    st->gen = 1;
    st->next_iid = 1;
    return st;
}

void cvp_stacks_free(cvp_stacks *st)
{
    if (!st)
        return;
    for (size_t i = 0; i < st->n; i++)
        free(st->v[i]);
    free(st->v);
    pos_index_free(&st->index);
    free(st);
}

static cvp_frame *find(const cvp_stacks *st, const char *id, size_t len, size_t *pos)
{
    size_t it = 0, p;
    while (pos_index_next(&st->index, hash_id(id, len), &it, &p)) {
        cvp_frame *f = st->v[p];
        if (f->id_len == len && memcmp(f->id, id, len) == 0) {
            if (pos)
                *pos = p;
            return f;
        }
    }
    return NULL;
}

static char *put(char **o, tread_str s, size_t *len)
{
    char *at = *o;
    if (s.len)
        memcpy(at, s.ptr, s.len);
    at[s.len] = 0;
    *o += s.len + 1;
    *len = s.len;
    return at;
}

static int same_str(const char *s, size_t n, tread_str t)
{
    return n == t.len && (n == 0 || memcmp(s, t.ptr, n) == 0);
}

/* Does ev define f again, field for field? */
static int same_definition(const cvp_frame *f, const tread_event *ev, tread_str name,
                           tread_str cat, tread_str parent, tread_str src, int has_src,
                           int has_line, int64_t line, int has_pc, uint64_t pc)
{
    return f->has_name == (ev->name.ptr != NULL) && same_str(f->name, f->name_len, name) &&
           f->has_cat == (ev->cat.ptr != NULL) && same_str(f->cat, f->cat_len, cat) &&
           f->has_parent == (ev->parent.ptr != NULL && ev->parent.len > 0) &&
           same_str(f->parent, f->parent_len, parent) && f->has_src == has_src &&
           same_str(f->src, f->src_len, src) && f->has_line == has_line &&
           (!has_line || f->line == line) && f->has_pc == has_pc && (!has_pc || f->rel_pc == pc);
}

int cvp_stacks_define(cvp_stacks *st, const tread_event *ev)
{
    static const tread_str none = {"", 0};
    tread_str id = ev->id.ptr ? ev->id : none;
    tread_str name = ev->name.ptr ? ev->name : none, cat = ev->cat.ptr ? ev->cat : none;
    tread_str parent = ev->parent.ptr ? ev->parent : none, src = none;
    tread_arg a;
    int has_src = 0, has_line = 0, has_pc = 0;
    int64_t line = 0;
    uint64_t pc = 0;
    if (tread_args_find(&ev->args, "source_file", 11, &a) && a.type == TREAD_ARG_STRING)
        has_src = 1, src = a.v.s;
    if (tread_args_find(&ev->args, "line_number", 11, &a) && a.type == TREAD_ARG_INT &&
        a.v.i >= 0 && a.v.i <= UINT32_MAX)
        has_line = 1, line = a.v.i;
    if (tread_args_find(&ev->args, "rel_pc", 6, &a) &&
        (a.type == TREAD_ARG_INT || a.type == TREAD_ARG_UINT))
        has_pc = 1, pc = a.type == TREAD_ARG_INT ? (uint64_t)a.v.i : a.v.u;

    size_t bytes = sizeof(cvp_frame) + id.len + name.len + cat.len + parent.len + src.len + 5;
    size_t pos = 0;
    cvp_frame *old = find(st, id.ptr, id.len, &pos);
    if (old && old->ahead) {
        old->ahead = 0;
        if (same_definition(old, ev, name, cat, parent, src, has_src, has_line, line, has_pc,
                            pc))
            return 0; /* the definition held ahead of its events, met again */
    }
    if (st->bytes - (old ? old->bytes : 0) + bytes > st->max_bytes)
        return 1;
    cvp_frame *f = malloc(bytes);
    if (!f)
        return -1;
    memset(f, 0, sizeof *f);
    char *o = (char *)(f + 1);
    f->id = put(&o, id, &f->id_len);
    f->name = put(&o, name, &f->name_len);
    f->cat = put(&o, cat, &f->cat_len);
    f->parent = put(&o, parent, &f->parent_len);
    f->src = put(&o, src, &f->src_len);
    f->has_name = ev->name.ptr != NULL;
    f->has_cat = ev->cat.ptr != NULL;
    f->has_parent = ev->parent.ptr != NULL && ev->parent.len > 0;
    f->has_src = has_src;
    f->has_line = has_line, f->line = line;
    f->has_pc = has_pc, f->rel_pc = pc;
    f->bytes = bytes;
    if (old) {
        /* a new definition of the id: a frame of its own (a new iid), and
         * no callstack built through the old one is used again */
        st->bytes -= old->bytes;
        st->unused_replaced += !old->used;
        free(old);
        st->v[pos] = f;
        st->defs++;
    } else {
        if (st->n == st->cap) {
            size_t cap = st->cap ? st->cap * 2 : 256;
            cvp_frame **v = realloc(st->v, cap * sizeof *v);
            if (!v) {
                free(f);
                return -1;
            }
            st->v = v;
            st->cap = cap;
        }
        if (pos_index_add(&st->index, hash_id(id.ptr, id.len), st->n) != 0) {
            free(f);
            return -1;
        }
        st->v[st->n++] = f;
    }
    st->bytes += bytes;
    return 0;
}

size_t cvp_stacks_resolve(cvp_stacks *st, tread_str sf)
{
    st->chain_n = 0;
    if (!sf.ptr || !sf.len)
        return 0;
    size_t pos;
    cvp_frame *f = find(st, sf.ptr, sf.len, &pos);
    if (!f)
        return 0;
    /* leaf first, while the parents are held; the depth bounds a cycle */
    for (;;) {
        st->chain[st->chain_n++] = pos;
        if (st->chain_n == CVP_STACK_MAX_DEPTH || !f->has_parent)
            break;
        f = find(st, f->parent, f->parent_len, &pos);
        if (!f)
            break;
    }
    return st->chain_n;
}

static int interned(const cvp_stacks *st, const cvp_frame *f)
{
    return f->gen == st->gen;
}

static int callstack_cached(const cvp_stacks *st, const cvp_frame *leaf)
{
    return leaf->cs_gen == st->gen && leaf->cs_defs == st->defs;
}

size_t cvp_stacks_new_entries(const cvp_stacks *st)
{
    if (!st->chain_n)
        return 0;
    if (callstack_cached(st, st->v[st->chain[0]]))
        return 0;
    size_t n = 1;
    for (size_t i = 0; i < st->chain_n; i++)
        n += !interned(st, st->v[st->chain[i]]);
    return n;
}

static void istr(pb_buf *b, uint32_t field, uint64_t iid, const char *s, size_t n)
{
    size_t m = pb_begin(b, field);
    pb_uint(b, IS_IID, iid);
    pb_bytes(b, IS_STR, s, n);
    pb_end(b, m);
}

/* A frame's entries, under one iid in each table: its function name,
 * mapping path and mapping, source path, and the frame. */
static void write_frame(pb_buf *b, const cvp_frame *f)
{
    uint64_t iid = f->iid;
    if (f->has_name)
        istr(b, ID_FUNCTION_NAMES, iid, f->name, f->name_len);
    if (f->has_cat) {
        /* the reader joins a mapping's path components with a "/" before
         * each: a category "/lib/x.so" comes back as itself, "v8" as "/v8" */
        const char *c = f->cat;
        size_t n = f->cat_len;
        if (n && c[0] == '/')
            c++, n--;
        istr(b, ID_MAPPING_PATHS, iid, c, n);
        size_t m = pb_begin(b, ID_MAPPINGS);
        pb_uint(b, MP_IID, iid);
        pb_uint(b, MP_PATHS, iid);
        pb_end(b, m);
    }
    if (f->has_src)
        istr(b, ID_SOURCE_PATHS, iid, f->src, f->src_len);
    size_t m = pb_begin(b, ID_FRAMES);
    pb_uint(b, FR_IID, iid);
    if (f->has_name)
        pb_uint(b, FR_FUNCTION_NAME, iid);
    if (f->has_cat)
        pb_uint(b, FR_MAPPING, iid);
    if (f->has_pc)
        pb_uint(b, FR_REL_PC, f->rel_pc);
    if (f->has_src)
        pb_uint(b, FR_SOURCE, iid);
    if (f->has_line)
        pb_uint(b, FR_LINE, (uint64_t)f->line);
    pb_end(b, m);
}

uint64_t cvp_stacks_write(cvp_stacks *st, pb_buf *idata)
{
    if (!st->chain_n)
        return 0;
    cvp_frame *leaf = st->v[st->chain[0]];
    if (callstack_cached(st, leaf))
        return leaf->cs_iid;
    for (size_t i = st->chain_n; i-- > 0;) {
        cvp_frame *f = st->v[st->chain[i]];
        f->used = 1;
        if (interned(st, f))
            continue;
        f->gen = st->gen;
        f->iid = st->next_iid++;
        write_frame(idata, f);
    }
    uint64_t cs = st->next_iid++;
    size_t m = pb_begin(idata, ID_CALLSTACKS);
    pb_uint(idata, CS_IID, cs);
    for (size_t i = st->chain_n; i-- > 0;) /* root first */
        pb_uint(idata, CS_FRAMES, st->v[st->chain[i]]->iid);
    pb_end(idata, m);
    leaf->cs_gen = st->gen;
    leaf->cs_defs = st->defs;
    leaf->cs_iid = cs;
    return cs;
}

uint64_t cvp_stacks_interned(const cvp_stacks *st)
{
    return st->next_iid - 1;
}

void cvp_stacks_reset(cvp_stacks *st)
{
    st->gen++;
    st->next_iid = 1;
}

void cvp_stacks_rewind(cvp_stacks *st)
{
    cvp_stacks_reset(st);
    st->unused_replaced = 0;
    for (size_t i = 0; i < st->n; i++) {
        st->v[i]->used = 0;
        st->v[i]->ahead = 1;
    }
}

uint64_t cvp_stacks_unused(const cvp_stacks *st)
{
    uint64_t n = st->unused_replaced;
    for (size_t i = 0; i < st->n; i++)
        n += !st->v[i]->used;
    return n;
}
