/* FXT arguments: locating, checking, decoding; the lazy codec. */
#include "fxt/fxt_args.h"
#include "fxt/fxt_wire.h"

#include <string.h>

int fxt_arg_locate(const unsigned char *p, const unsigned char *end, fxt_arg_raw *a)
{
    if (end - p < 8)
        return FXT_ARG_OVERRUNS;
    uint64_t h = fxt_load64(p);
    uint64_t words = fxt_bits(h, 4, 15);
    if (words == 0)
        return FXT_ARG_SIZE_ZERO;
    if (words * 8 > (uint64_t)(end - p))
        return FXT_ARG_OVERRUNS;
    a->header = h;
    a->type = (unsigned)(h & 15);
    a->name_ref = (unsigned)fxt_bits(h, 16, 31);
    a->end = p + words * 8;
    const unsigned char *q = p + 8;
    uint64_t name_bytes = fxt_sref_bytes(a->name_ref);
    if (name_bytes > (uint64_t)(a->end - q))
        return FXT_ARG_BAD_LAYOUT;
    a->name = q;
    q += name_bytes;
    a->value = q;
    uint64_t left = (uint64_t)(a->end - q);
    a->known = 1;
    switch (a->type) {
    case FXT_ARG_NULL:
    case FXT_ARG_INT32:
    case FXT_ARG_UINT32:
    case FXT_ARG_BOOL:
        break;
    case FXT_ARG_INT64:
    case FXT_ARG_UINT64:
    case FXT_ARG_DOUBLE:
    case FXT_ARG_POINTER:
    case FXT_ARG_KOID:
        if (left < 8)
            return FXT_ARG_BAD_LAYOUT;
        break;
    case FXT_ARG_STRING:
        if (fxt_sref_bytes((unsigned)fxt_bits(h, 32, 47)) > left)
            return FXT_ARG_BAD_LAYOUT;
        break;
    case FXT_ARG_BLOB:
        /* [32..63] the blob's size, its bytes after the name. An argument
         * of type 10 laid out otherwise is some other extension: skipped
         * like any unknown type. */
        if (fxt_pad8(fxt_bits(h, 32, 63)) > left)
            a->known = 0;
        break;
    default:
        a->known = 0;
        break;
    }
    return FXT_ARG_OK;
}

static int missing_ref(const fxt_provider *pv, unsigned ref)
{
    return ref != 0 && !fxt_sref_inline(ref) && !fxt_string_get(pv, ref);
}

static void note_missing(fxt_args_check *chk, unsigned ref)
{
    if (chk->missing < sizeof chk->missing_refs / sizeof chk->missing_refs[0])
        chk->missing_refs[chk->missing++] = ref;
}

int fxt_args_walk_full(const fxt_provider *pv, const unsigned char *p,
                       const unsigned char *end, unsigned n, fxt_args_check *chk)
{
    chk->end = p;
    chk->error = 0;
    chk->bad_index = 0;
    chk->past_end = 0;
    chk->missing = 0;
    for (unsigned i = 0; i < n; i++) {
        fxt_arg_raw a;
        if (p >= end) {
            chk->past_end = 1;
            chk->error = FXT_ARG_OVERRUNS;
            chk->bad_index = i;
            return -1;
        }
        int rc = fxt_arg_locate(p, end, &a);
        if (rc != FXT_ARG_OK) {
            chk->error = rc;
            chk->bad_index = i;
            return -1;
        }
        if (a.known) {
            if (missing_ref(pv, a.name_ref))
                note_missing(chk, a.name_ref);
            if (a.type == FXT_ARG_STRING && missing_ref(pv, (unsigned)fxt_bits(a.header, 32, 47)))
                note_missing(chk, (unsigned)fxt_bits(a.header, 32, 47));
        }
        p = a.end;
    }
    chk->end = p;
    return 0;
}

const char *fxt_inline_str(fxt_args_ctx *c, const unsigned char *s, size_t n)
{
    if (n == 0)
        return "";
    if (s + n < c->rec_end && s[n] == 0)
        return (const char *)s;
    size_t o = (size_t)(s - c->rec);
    unsigned char *d = c->shadow + o + o / 8;
    memcpy(d, s, n);
    d[n] = 0;
    return (const char *)d;
}

int fxt_arg_decode(fxt_args_ctx *c, const fxt_arg_raw *a, tread_arg *out)
{
    if (!a->known)
        return 1;
    const unsigned char *q = a->name;
    uint64_t h = a->header, u;
    fxt_resolve_str(c, a->name_ref, &q, &out->key);
    out->depth = 0;
    out->text.ptr = NULL;
    out->text.len = 0;
    switch (a->type) {
    case FXT_ARG_NULL:
        out->type = TREAD_ARG_NULL;
        break;
    case FXT_ARG_INT32:
        out->type = TREAD_ARG_INT;
        out->v.i = (int32_t)(uint32_t)(h >> 32);
        break;
    case FXT_ARG_UINT32:
        out->type = TREAD_ARG_INT;
        out->v.i = (int64_t)(uint32_t)(h >> 32);
        break;
    case FXT_ARG_INT64:
        out->type = TREAD_ARG_INT;
        out->v.i = (int64_t)fxt_load64(a->value);
        break;
    case FXT_ARG_UINT64:
        u = fxt_load64(a->value);
        if (u > (uint64_t)INT64_MAX) {
            out->type = TREAD_ARG_UINT;
            out->v.u = u;
        } else {
            out->type = TREAD_ARG_INT;
            out->v.i = (int64_t)u;
        }
        break;
    case FXT_ARG_DOUBLE:
        u = fxt_load64(a->value);
        out->type = TREAD_ARG_DOUBLE;
        memcpy(&out->v.d, &u, sizeof u);
        break;
    case FXT_ARG_STRING:
        q = a->value;
        out->type = TREAD_ARG_STRING;
        fxt_resolve_str(c, (unsigned)fxt_bits(h, 32, 47), &q, &out->v.s);
        break;
    case FXT_ARG_POINTER:
        out->type = TREAD_ARG_POINTER;
        out->v.u = fxt_load64(a->value);
        break;
    case FXT_ARG_KOID:
        out->type = TREAD_ARG_KOID;
        out->v.u = fxt_load64(a->value);
        break;
    case FXT_ARG_BOOL:
        out->type = TREAD_ARG_BOOL;
        out->v.b = (int)((h >> 32) & 1);
        break;
    case FXT_ARG_BLOB:
        out->type = TREAD_ARG_BYTES;
        out->v.s.len = (size_t)fxt_bits(h, 32, 63);
        out->v.s.ptr = fxt_inline_str(c, a->value, out->v.s.len);
        break;
    default:
        return 1;
    }
    return 0;
}

/* ---- synthetic fields ---------------------------------------------------- */

static tread_arg *synth(fxt_args_ctx *c, tread_arg_type type, const char *key, size_t key_len,
                        uint64_t v)
{
    tread_arg *a = &c->synth[c->nsynth++]; /* FXT_MAX_SYNTH at most: see make_synth */
    memset(a, 0, sizeof *a);
    a->type = type;
    a->key.ptr = key;
    a->key.len = key_len;
    a->v.u = v;
    return a;
}

static void synth_thread(fxt_args_ctx *c, const char *key, const fxt_synth_thread *t)
{
    synth(c, TREAD_ARG_DICT_BEGIN, key, strlen(key), 0);
    if (t->have && t->have_pid)
        synth(c, TREAD_ARG_KOID, "pid", 3, t->pid);
    if (t->have)
        synth(c, TREAD_ARG_KOID, "tid", 3, t->tid);
    if (t->state >= 0)
        synth(c, TREAD_ARG_INT, "state", 5, (uint64_t)t->state);
    if (t->prio >= 0)
        synth(c, TREAD_ARG_INT, "prio", 4, (uint64_t)t->prio);
    synth(c, TREAD_ARG_DICT_END, NULL, 0, 0);
}

/* Makes the record's synthetic fields from what the reader noted (again
 * for every iterator: the same fields each time). */
static void make_synth(fxt_args_ctx *c)
{
    c->nsynth = 0;
    switch (c->synth_kind) {
    case FXT_SYNTH_SWITCH: /* 2 x 6 */
        synth_thread(c, "out", &c->sw[0]);
        synth_thread(c, "in", &c->sw[1]);
        break;
    case FXT_SYNTH_MESSAGE:
        synth(c, TREAD_ARG_STRING, "message", 7, 0)->v.s = c->message;
        break;
    default:
        break;
    }
}

/* ---- the codec (TREAD_ARGS_FXT) ----------------------------------------
 * it->state[0]: synthetic fields delivered so far. */

static void codec_init(tread_args_iter *it, const tread_args *a)
{
    (void)a;
    if (it->ctx)
        make_synth((fxt_args_ctx *)it->ctx);
}

static int codec_next(tread_args_iter *it, tread_arg *out)
{
    fxt_args_ctx *c = (fxt_args_ctx *)it->ctx;
    if (!c)
        return 0;
    if (it->state[0] < c->nsynth) {
        const tread_arg *s = &c->synth[it->state[0]++];
        *out = *s;
        if (s->type == TREAD_ARG_DICT_END || s->type == TREAD_ARG_ARRAY_END) {
            if (it->depth > 0)
                it->depth--;
            out->depth = it->depth;
        } else {
            out->depth = it->depth;
            if (s->type == TREAD_ARG_DICT_BEGIN || s->type == TREAD_ARG_ARRAY_BEGIN)
                it->depth++;
        }
        return 1;
    }
    while (it->p < it->end) {
        fxt_arg_raw a;
        if (fxt_arg_locate(it->p, it->end, &a) != FXT_ARG_OK) {
            it->failed = 1;
            it->p = it->end;
            return 0;
        }
        it->p = a.end;
        if (fxt_arg_decode(c, &a, out) == 0) {
            out->depth = it->depth;
            return 1;
        }
    }
    return 0;
}

/* Only synthetic fields open containers. */
static void codec_skip(tread_args_iter *it)
{
    const fxt_args_ctx *c = it->ctx;
    int nest = 1;
    while (c && it->state[0] < c->nsynth && nest > 0) {
        tread_arg_type t = c->synth[it->state[0]++].type;
        if (t == TREAD_ARG_DICT_BEGIN || t == TREAD_ARG_ARRAY_BEGIN)
            nest++;
        else if (t == TREAD_ARG_DICT_END || t == TREAD_ARG_ARRAY_END)
            nest--;
    }
    if (it->depth > 0)
        it->depth--;
}

const tread_args_codec tread__fxt_args_codec = {
    .init = codec_init,
    .next = codec_next,
    .skip = codec_skip,
};
