/* TREAD_ARGS_FTRACE: an ftrace event payload read lazily as key=value
 * fields (ftrace_kv.h); a payload of another shape is one STRING "text".
 * A function tracer line's args are its caller: one STRING "parent". */
#include <string.h>
#include "core/decoder.h"
#include "ftrace/ftrace_args.h"
#include "ftrace/ftrace_kv.h"

const int tread__ftrace_ctx_function = 1;

enum { M_FIELDS = 0, M_TEXT, M_PARENT, M_DONE };

static void fa_init(tread_args_iter *it, const tread_args *a)
{
    it->p = a->data;
    it->end = a->data;
    if (!a->data || a->len == 0) {
        it->state[0] = M_DONE; /* (no pointer arithmetic on NULL) */
        return;
    }
    const char *s = (const char *)a->data, *end = s + a->len;
    it->end = a->data + a->len;
    if (a->ctx == &tread__ftrace_ctx_function)
        it->state[0] = M_PARENT;
    else
        it->state[0] = ftrace_kv_shape(s, end) ? M_FIELDS : M_TEXT;
}

static void put_string(tread_arg *out, const char *key, size_t key_len,
                       const char *v, size_t n)
{
    memset(out, 0, sizeof *out);
    out->type = TREAD_ARG_STRING;
    out->key.ptr = key;
    out->key.len = key_len;
    out->v.s.ptr = v;
    out->v.s.len = n;
}

static int fa_next(tread_args_iter *it, tread_arg *out)
{
    const char *s = (const char *)it->p, *end = (const char *)it->end;
    switch (it->state[0]) {
    case M_FIELDS: {
        ftrace_kv kv;
        if (!ftrace_kv_next(&s, end, &kv)) {
            it->state[0] = M_DONE;
            return 0;
        }
        it->p = (const unsigned char *)s;
        int64_t i;
        if (kv.val_len && ftrace_parse_int(kv.val, kv.val_len, &i) == 0) {
            memset(out, 0, sizeof *out);
            out->type = TREAD_ARG_INT;
            out->key.ptr = kv.key;
            out->key.len = kv.key_len;
            out->v.i = i;
            out->text.ptr = kv.val;
            out->text.len = kv.val_len;
        } else {
            put_string(out, kv.key, kv.key_len, kv.val, kv.val_len);
        }
        return 1;
    }
    case M_TEXT:
        it->state[0] = M_DONE;
        put_string(out, "text", 4, s, (size_t)(end - s));
        return 1;
    case M_PARENT:
        it->state[0] = M_DONE;
        put_string(out, "parent", 6, s, (size_t)(end - s));
        return 1;
    default:
        return 0;
    }
}

static void fa_skip(tread_args_iter *it)
{
    (void)it; /* flat: no containers */
}

const tread_args_codec tread__ftrace_args_codec = {fa_init, fa_next, fa_skip};
