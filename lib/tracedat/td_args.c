/* TREAD_ARGS_TRACEDAT: a record's bytes read lazily through its event
 * format (ctx, a td_format the decoder keeps for the parser's life): the
 * event's own fields in the format's order, common_* left out. */
#include "core/decoder.h"
#include "tracedat/td_internal.h"

static void ta_init(tread_args_iter *it, const tread_args *a)
{
    it->p = a->data;
    it->end = a->data ? a->data + a->len : a->data;
    it->state[0] = 0; /* the next field */
}

static int ta_next(tread_args_iter *it, tread_arg *out)
{
    const td_format *f = it->ctx;
    const unsigned char *rec = it->p;
    size_t len = (size_t)(it->end - it->p);
    if (!f || !rec)
        return 0;
    while (it->state[0] < f->nfields) {
        int i = (int)it->state[0]++;
        const td_field *fl = &f->fields[i];
        if (fl->common)
            continue;
        memset(out, 0, sizeof *out);
        out->key.ptr = fl->name;
        out->key.len = fl->name_len;
        if (fl->kind == TD_F_INT) {
            int64_t v;
            if (td_field_int(f, i, rec, len, &v) != 0)
                goto bad;
            if (!fl->is_signed && fl->size == 8 && (uint64_t)v > (uint64_t)INT64_MAX) {
                out->type = TREAD_ARG_UINT;
                out->v.u = (uint64_t)v;
            } else {
                out->type = TREAD_ARG_INT;
                out->v.i = v;
            }
            return 1;
        }
        if (fl->kind == TD_F_STRING || fl->kind == TD_F_DYN_STRING) {
            if (td_field_str(f, i, rec, len, &out->v.s) != 0)
                goto bad;
            out->type = TREAD_ARG_STRING;
            return 1;
        }
        const unsigned char *p;
        size_t n;
        if (td_field_bytes(f, i, rec, len, &p, &n) != 0)
            goto bad;
        out->type = TREAD_ARG_BYTES;
        out->v.s.ptr = (const char *)p;
        out->v.s.len = n;
        return 1;
    }
    return 0;
bad:
    it->failed = 1; /* a field outside the record */
    it->state[0] = f->nfields;
    return 0;
}

static void ta_skip(tread_args_iter *it) { (void)it; }

const tread_args_codec tread__tracedat_args_codec = {ta_init, ta_next, ta_skip};
