/* JSON text to args tokens (json_tokens.h): a scanner for plain strict
 * JSON, and yajl's callbacks for the rest and as its oracle.
 *
 * The JSON a V8 profile record carries is mostly numbers (a chunk's
 * samples, timeDeltas, lines, columns); through yajl's callbacks each cost
 * ~300 instructions, half a sample's whole expansion. The scanner takes
 * text with no escape, no control byte in a string, no number yajl might
 * read otherwise (a leading zero before a digit), no whitespace but space,
 * tab, CR and LF, at most max_depth deep, and writes what the callbacks
 * write; anything else, and every error, is yajl's to read and report
 * (the scanner's tokens are dropped). test_json_tokens and fuzz_json
 * compare the two on the same texts. */
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

/* ---- the scanner ------------------------------------------------------ */

static int is_ws(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static int is_dig(unsigned char c) { return c >= '0' && c <= '9'; }

/* The end of the plain string whose text starts at p, at its quote; NULL
 * when it has an escape or a control byte, or no end. */
static const unsigned char *plain_string(const unsigned char *p, const unsigned char *e)
{
    for (; p < e; p++) {
        if (*p == '"')
            return p;
        if (*p == '\\' || *p < 0x20)
            return NULL;
    }
    return NULL;
}

/* The end of the number at p, or NULL when it is not one of the plain
 * shape or what follows it is not a delimiter. */
static const unsigned char *plain_number(const unsigned char *p, const unsigned char *e)
{
    if (p < e && *p == '-')
        p++;
    if (p >= e)
        return NULL;
    if (*p == '0') {
        p++;
        if (p < e && is_dig(*p))
            return NULL;
    } else if (is_dig(*p)) {
        while (p < e && is_dig(*p))
            p++;
    } else {
        return NULL;
    }
    if (p < e && *p == '.') {
        const unsigned char *d = ++p;
        while (p < e && is_dig(*p))
            p++;
        if (p == d)
            return NULL;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        const unsigned char *d = p;
        while (p < e && is_dig(*p))
            p++;
        if (p == d)
            return NULL;
    }
    if (p < e && !is_ws(*p) && *p != ',' && *p != ']' && *p != '}')
        return NULL;
    return p;
}

static int literal(const unsigned char **pp, const unsigned char *e, const char *w, size_t n)
{
    const unsigned char *p = *pp;
    if ((size_t)(e - p) < n || memcmp(p, w, n) != 0)
        return 0;
    p += n;
    if (p < e && !is_ws(*p) && *p != ',' && *p != ']' && *p != '}')
        return 0;
    *pp = p;
    return 1;
}

/* 1: s was read into out; 0: not plain (yajl reads it); -1 / -2: out's
 * limit / memory (the caller lets yajl say it). */
int json_text_tokens_plain(const unsigned char *s, size_t n, int max_depth, tread_buf *out)
{
    enum { WANT_VALUE, WANT_KEY, AFTER_VALUE };
    unsigned char stack[256]; /* 'a' or 'm' per open container */
    int depth = 0, state = WANT_VALUE, rc = 0;
    int first = 0; /* the container just opened: ']' / '}' may close it */
    const unsigned char *p = s, *e = s + n, *q;
    if (max_depth > (int)sizeof stack)
        max_depth = (int)sizeof stack;
    for (;;) {
        while (p < e && is_ws(*p))
            p++;
        if (p == e)
            return state == AFTER_VALUE && depth == 0;
        unsigned char c = *p;
        if (state == AFTER_VALUE) {
            if (depth == 0)
                return 0; /* (trailing bytes: yajl says so) */
            if (c == ',') {
                p++;
                state = stack[depth - 1] == 'm' ? WANT_KEY : WANT_VALUE;
                first = 0;
                continue;
            }
            if (c != (stack[depth - 1] == 'm' ? '}' : ']'))
                return 0;
        close:
            rc = args_put_tok(out, stack[depth - 1] == 'm' ? TOK_DICT_END : TOK_ARRAY_END);
            if (rc)
                return rc == -2 ? -1 : -2;
            depth--;
            p++;
            state = AFTER_VALUE;
            continue;
        }
        if (state == WANT_KEY) {
            if (c == '}' && first)
                goto close;
            if (c != '"' || !(q = plain_string(p + 1, e)))
                return 0;
            if ((rc = args_put_str(out, TOK_KEY, p + 1, (size_t)(q - p - 1))) != 0)
                return rc == -2 ? -1 : -2;
            p = q + 1;
            while (p < e && is_ws(*p))
                p++;
            if (p == e || *p != ':')
                return 0;
            p++;
            state = WANT_VALUE;
            first = 0;
            continue;
        }
        /* WANT_VALUE */
        if (c == ']' && first && depth && stack[depth - 1] == 'a')
            goto close;
        first = 0;
        if (c == '{' || c == '[') {
            if (depth >= max_depth)
                return 0;
            stack[depth++] = c == '{' ? 'm' : 'a';
            if ((rc = args_put_tok(out, c == '{' ? TOK_DICT_BEGIN : TOK_ARRAY_BEGIN)) != 0)
                return rc == -2 ? -1 : -2;
            p++;
            state = c == '{' ? WANT_KEY : WANT_VALUE;
            first = 1;
            continue;
        }
        if (c == '"') {
            if (!(q = plain_string(p + 1, e)))
                return 0;
            rc = args_put_str(out, TOK_STR, p + 1, (size_t)(q - p - 1));
            p = q + 1;
        } else if (c == '-' || is_dig(c)) {
            if (!(q = plain_number(p, e)))
                return 0;
            rc = args_put_str(out, TOK_NUM, p, (size_t)(q - p));
            p = q;
        } else if (literal(&p, e, "true", 4)) {
            rc = args_put_tok(out, TOK_TRUE);
        } else if (literal(&p, e, "false", 5)) {
            rc = args_put_tok(out, TOK_FALSE);
        } else if (literal(&p, e, "null", 4)) {
            rc = args_put_tok(out, TOK_NULL);
        } else {
            return 0;
        }
        if (rc)
            return rc == -2 ? -1 : -2;
        state = AFTER_VALUE;
    }
}

/* ---- yajl ------------------------------------------------------------- */

int json_text_tokens_yajl(const tread_alloc *a, const unsigned char *s, size_t n,
                          int max_depth, tread_buf *out, const char **why, size_t *at)
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

int json_text_tokens(const tread_alloc *a, const unsigned char *s, size_t n, int max_depth,
                     tread_buf *out, const char **why, size_t *at)
{
    size_t mark = out->len;
    int rc = json_text_tokens_plain(s, n, max_depth, out);
    if (rc == 1)
        return 0;
    out->len = mark;
    if (rc == -2)
        return -2;
    return json_text_tokens_yajl(a, s, n, max_depth, out, why, at);
}
