/* JSON text to args tokens through yajl's callbacks (json_tokens.h). */
#include "json/json_tokens.h"
#include "core/args.h"

#include <yajl/yajl_parse.h>

typedef struct jt {
    tread_buf *out;
    int depth, max_depth;
    int too_deep;
    int rc;        /* the first writer's error: -1 memory, -2 the limit */
} jt;

#define JT jt *t = ctx
static int put(jt *t, int rc)
{
    if (rc && !t->rc)
        t->rc = rc;
    return !rc;
}
static int j_null(void *ctx) { JT; return put(t, args_put_tok(t->out, TOK_NULL)); }
static int j_bool(void *ctx, int b) { JT; return put(t, args_put_tok(t->out, b ? TOK_TRUE : TOK_FALSE)); }
static int j_number(void *ctx, const char *s, size_t n)
{
    JT;
    return put(t, args_put_str(t->out, TOK_NUM, s, n));
}
static int j_string(void *ctx, const unsigned char *s, size_t n)
{
    JT;
    return put(t, args_put_str(t->out, TOK_STR, s, n));
}
static int j_key(void *ctx, const unsigned char *s, size_t n)
{
    JT;
    return put(t, args_put_str(t->out, TOK_KEY, s, n));
}
static int open_c(jt *t, unsigned type)
{
    if (++t->depth > t->max_depth) {
        t->too_deep = 1;
        return 0;
    }
    return put(t, args_put_tok(t->out, type));
}
static int j_start_map(void *ctx) { JT; return open_c(t, TOK_DICT_BEGIN); }
static int j_end_map(void *ctx) { JT; t->depth--; return put(t, args_put_tok(t->out, TOK_DICT_END)); }
static int j_start_array(void *ctx) { JT; return open_c(t, TOK_ARRAY_BEGIN); }
static int j_end_array(void *ctx) { JT; t->depth--; return put(t, args_put_tok(t->out, TOK_ARRAY_END)); }

static void *y_malloc(void *ctx, size_t n) { return tread_malloc((const tread_alloc *)ctx, n); }
static void *y_realloc(void *ctx, void *p, size_t n) { return tread_realloc((const tread_alloc *)ctx, p, n); }
static void y_free(void *ctx, void *p) { tread_free((const tread_alloc *)ctx, p); }

int json_text_tokens(const tread_alloc *a, const unsigned char *s, size_t n, int max_depth,
                     tread_buf *out, const char **why, size_t *at)
{
    static const yajl_callbacks cb = {j_null, j_bool, NULL, NULL, j_number, j_string,
                                      j_start_map, j_key, j_end_map, j_start_array, j_end_array};
    yajl_alloc_funcs af = {y_malloc, y_realloc, y_free, (void *)a};
    jt t = {out, 0, max_depth, 0, 0};
    size_t mark = out->len;
    yajl_handle h = yajl_alloc(&cb, &af, &t);
    if (!h)
        return -2;
    yajl_config(h, yajl_dont_validate_strings, 1);
    yajl_status st = yajl_parse(h, s, n);
    size_t used = yajl_get_bytes_consumed(h);
    if (st == yajl_status_ok) {
        st = yajl_complete_parse(h);
        used = n;
    }
    yajl_free(h);
    if (st == yajl_status_ok)
        return 0;
    out->len = mark;
    if (t.rc == -1)
        return -2;
    *why = t.too_deep  ? "nested deeper than TREAD_OPT_MAX_DEPTH"
           : t.rc      ? "its tokens larger than their limit"
                       : "not valid JSON";
    *at = used;
    return -1;
}
