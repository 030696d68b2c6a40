/* The typed-argument iterator and lookup (tread_args_*). */
#include "core/args.h"
#include "core/decoder.h"
#include "core/timeconv.h"

#include <math.h>

size_t args_skip_value(const unsigned char *data, size_t len, size_t off)
{
    int nest = 0;
    while (off < len) {
        unsigned t = data[off];
        off += args_tok_size(data + off);
        if (t == TOK_DICT_BEGIN || t == TOK_ARRAY_BEGIN)
            nest++;
        else if (t == TOK_DICT_END || t == TOK_ARRAY_END)
            nest--;
        if (nest <= 0 && t != TOK_KEY)
            break;
    }
    return off > len ? len : off;
}

void args_number_from_text(const char *s, size_t n, tread_arg *out)
{
    out->text.ptr = s;
    out->text.len = n;
    int64_t i;
    uint64_t u;
    switch (timeconv_parse_integer(s, n, &i, &u)) {
    case TIMECONV_INT:
        out->type = TREAD_ARG_INT;
        out->v.i = i;
        return;
    case TIMECONV_UINT:
        out->type = TREAD_ARG_UINT;
        out->v.u = u;
        return;
    default:
        out->type = TREAD_ARG_DOUBLE;
        out->v.d = timeconv_parse_double(s, n);
        return;
    }
}

void args_decode_value(const unsigned char *p, tread_arg *out)
{
    size_t n;
    const char *s;
    uint64_t u;
    out->text.ptr = NULL;
    out->text.len = 0;
    switch (p[0]) {
    case TOK_NULL: out->type = TREAD_ARG_NULL; break;
    case TOK_FALSE: out->type = TREAD_ARG_BOOL; out->v.b = 0; break;
    case TOK_TRUE: out->type = TREAD_ARG_BOOL; out->v.b = 1; break;
    case TOK_DICT_BEGIN: out->type = TREAD_ARG_DICT_BEGIN; break;
    case TOK_DICT_END: out->type = TREAD_ARG_DICT_END; break;
    case TOK_ARRAY_BEGIN: out->type = TREAD_ARG_ARRAY_BEGIN; break;
    case TOK_ARRAY_END: out->type = TREAD_ARG_ARRAY_END; break;
    case TOK_INT: memcpy(&u, p + 1, 8); out->type = TREAD_ARG_INT; out->v.i = (int64_t)u; break;
    case TOK_UINT: memcpy(&u, p + 1, 8); out->type = TREAD_ARG_UINT; out->v.u = u; break;
    case TOK_DOUBLE: out->type = TREAD_ARG_DOUBLE; memcpy(&out->v.d, p + 1, 8); break;
    case TOK_POINTER: memcpy(&u, p + 1, 8); out->type = TREAD_ARG_POINTER; out->v.u = u; break;
    case TOK_KOID: memcpy(&u, p + 1, 8); out->type = TREAD_ARG_KOID; out->v.u = u; break;
    case TOK_STR:
    case TOK_KEY:
        s = args_tok_str(p, &n);
        out->type = TREAD_ARG_STRING;
        out->v.s.ptr = s;
        out->v.s.len = n;
        break;
    case TOK_BYTES:
        s = args_tok_str(p, &n);
        out->type = TREAD_ARG_BYTES;
        out->v.s.ptr = s;
        out->v.s.len = n;
        break;
    case TOK_NUM:
        s = args_tok_str(p, &n);
        args_number_from_text(s, n, out);
        break;
    case TOK_NAN:
    case TOK_POS_INF:
    case TOK_NEG_INF:
        s = args_tok_str(p, &n);
        out->type = TREAD_ARG_DOUBLE;
        out->v.d = p[0] == TOK_NAN ? NAN : p[0] == TOK_POS_INF ? INFINITY : -INFINITY;
        out->text.ptr = s;
        out->text.len = n;
        break;
    default:
        out->type = TREAD_ARG_NULL;
        break;
    }
}

void tread_args_iter_init(tread_args_iter *it, const tread_args *a)
{
    memset(it, 0, sizeof *it);
    it->p = a ? a->data : NULL;
    it->end = a && a->data ? a->data + a->len : NULL;
    if (a && a->encoding != TREAD_ARGS_TOKENS) {
        const tread_args_codec *c = tread__args_codec(a->encoding);
        it->encoding = a->encoding;
        it->ctx = a->ctx;
        if (!c) {
            it->p = it->end = NULL; /* an encoding this build cannot read */
            it->failed = 1;
        } else if (c->init) {
            c->init(it, a);
        }
    }
}

int tread_args_iter_failed(const tread_args_iter *it) { return it->failed; }

static int tokens_next(tread_args_iter *it, tread_arg *out)
{
    const unsigned char *p = it->p;
    if (!p || p >= it->end)
        return 0;
    out->key.ptr = NULL;
    out->key.len = 0;
    if (*p == TOK_KEY) {
        out->key.ptr = args_tok_str(p, &out->key.len);
        p += args_tok_size(p);
        if (p >= it->end) {
            it->p = it->end;
            return 0;
        }
    }
    args_decode_value(p, out);
    if (*p == TOK_DICT_END || *p == TOK_ARRAY_END) {
        if (it->depth > 0)
            it->depth--;
        out->depth = it->depth;
    } else {
        out->depth = it->depth;
        if (*p == TOK_DICT_BEGIN || *p == TOK_ARRAY_BEGIN)
            it->depth++;
    }
    it->p = p + args_tok_size(p);
    return 1;
}

int tread_args_next(tread_args_iter *it, tread_arg *out)
{
    if (it->encoding == TREAD_ARGS_TOKENS)
        return tokens_next(it, out);
    const tread_args_codec *c = tread__args_codec((tread_args_encoding)it->encoding);
    if (!c || !it->p)
        return 0;
    return c->next(it, out);
}

void tread_args_skip(tread_args_iter *it)
{
    if (it->encoding != TREAD_ARGS_TOKENS) {
        const tread_args_codec *c = tread__args_codec((tread_args_encoding)it->encoding);
        if (c && it->p)
            c->skip(it);
        return;
    }
    int nest = 1;
    while (it->p && it->p < it->end && nest > 0) {
        unsigned t = *it->p;
        if (t == TOK_DICT_BEGIN || t == TOK_ARRAY_BEGIN)
            nest++;
        else if (t == TOK_DICT_END || t == TOK_ARRAY_END)
            nest--;
        it->p += args_tok_size(it->p);
    }
    if (it->depth > 0)
        it->depth--;
}

static int parse_index(const char *s, size_t n, size_t *idx)
{
    size_t v = 0;
    if (n == 0 || n > 18)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (size_t)(s[i] - '0');
    }
    *idx = v;
    return 1;
}

/* Any encoding: walks the iterator, skipping containers that do not
 * match. The token stream has the direct walk below. */
static int find_by_iter(const tread_args *a, const char *key, size_t key_len, tread_arg *out)
{
    tread_args_iter it;
    tread_arg v;
    tread_args_iter_init(&it, a);
    size_t seg = 0;
    int in_array = 0;
    while (seg <= key_len) {
        size_t e = seg;
        while (e < key_len && key[e] != '.')
            e++;
        const char *k = key + seg;
        size_t kn = e - seg, idx = 0, want = 0;
        if (in_array && !parse_index(k, kn, &want))
            return 0;
        for (;;) {
            if (!tread_args_next(&it, &v))
                return 0;
            if (v.type == TREAD_ARG_DICT_END || v.type == TREAD_ARG_ARRAY_END)
                return 0;
            int match = in_array ? idx++ == want
                                 : v.key.ptr && v.key.len == kn && memcmp(v.key.ptr, k, kn) == 0;
            if (match)
                break;
            if (v.type == TREAD_ARG_DICT_BEGIN || v.type == TREAD_ARG_ARRAY_BEGIN)
                tread_args_skip(&it);
        }
        if (e >= key_len) {
            *out = v;
            /* a codec may keep a key in the iterator, gone on return */
            if (!in_array) {
                out->key.ptr = k;
                out->key.len = kn;
            }
            return 1;
        }
        if (v.type == TREAD_ARG_DICT_BEGIN)
            in_array = 0;
        else if (v.type == TREAD_ARG_ARRAY_BEGIN)
            in_array = 1;
        else
            return 0;
        seg = e + 1;
    }
    return 0;
}

int tread_args_find(const tread_args *a, const char *key, size_t key_len,
                    tread_arg *out)
{
    if (!a || !a->data || !key)
        return 0;
    if (a->encoding != TREAD_ARGS_TOKENS)
        return find_by_iter(a, key, key_len, out);
    const unsigned char *d = a->data;
    size_t len = a->len, off = 0, seg = 0;
    int in_array = 0, depth = 0;
    while (seg <= key_len) {
        size_t e = seg;
        while (e < key_len && key[e] != '.')
            e++;
        const char *k = key + seg;
        size_t kn = e - seg;
        size_t val = SIZE_MAX;
        if (in_array) {
            size_t idx;
            if (!parse_index(k, kn, &idx))
                return 0;
            while (off < len && d[off] != TOK_ARRAY_END) {
                if (idx-- == 0) {
                    val = off;
                    break;
                }
                off = args_skip_value(d, len, off);
            }
        } else {
            while (off < len && d[off] == TOK_KEY) {
                size_t n;
                const char *s = args_tok_str(d + off, &n);
                size_t v = off + args_tok_size(d + off);
                if (v >= len)
                    return 0;
                if (n == kn && memcmp(s, k, n) == 0) {
                    val = v;
                    break;
                }
                off = args_skip_value(d, len, v);
            }
        }
        if (val == SIZE_MAX)
            return 0;
        if (e >= key_len) {
            args_decode_value(d + val, out);
            out->key.ptr = in_array ? NULL : k;
            out->key.len = in_array ? 0 : kn;
            out->depth = depth;
            return 1;
        }
        if (d[val] == TOK_DICT_BEGIN)
            in_array = 0;
        else if (d[val] == TOK_ARRAY_BEGIN)
            in_array = 1;
        else
            return 0;
        off = val + 1;
        depth++;
        seg = e + 1;
    }
    return 0;
}
