#include "json/json_decoder.h"
#include "json/json_fast.h"
#include "core/args.h"

#include <string.h>

#define D json_decoder *d = (json_decoder *)ctx

static int key_is(const tread_buf *b, const char *s)
{
    size_t n = strlen(s);
    return b->len == n && memcmp(b->data, s, n) == 0;
}

/* ---- failing and pausing from inside yajl ----------------------------- */

static int fail_buf(json_decoder *d, int rc, const char *what)
{
    if (rc == -2) {
        if (d->cap == CAP_RECORD || d->cap == CAP_TOP)
            tread__fail(d->p, TREAD_ERROR_LIMIT_EVENT, d->rec.offset,
                        "%s larger than the limit of %zu bytes (TREAD_OPT_MAX_EVENT_BYTES)",
                        what, d->p->max_event_bytes);
        else
            tread__fail(d->p, TREAD_ERROR_LIMIT_STRING, json_cur_off(d), "%s too long", what);
    } else {
        tread__fail(d->p, TREAD_ERROR_NOMEM, json_cur_off(d), "out of memory");
    }
    return 0; /* cancels yajl */
}

static int fast_role(int role)
{
    return role == ROLE_EVENTS || role == ROLE_SAMPLES || role == ROLE_SYS_EVENTS ||
           role == ROLE_NODES || role == ROLE_PSAMPLES || role == ROLE_PDELTAS;
}

/* Arrays whose elements the range scanner may skip: records without state
 * a later record needs (but V8 profiles: json_scan.h). */
static int skip_role(int role)
{
    return role == ROLE_EVENTS || role == ROLE_SAMPLES || role == ROLE_SYS_EVENTS;
}

/* Between two elements of an array of records, where the fast path may
 * take over from yajl (not inside text the filter made up). */
static int fast_possible(json_decoder *d)
{
    if (json_in_prefix(d)) /* before a byte range: the scanner skips (json_scan.h) */
        return !d->finishing && d->cap == CAP_NONE && d->depth > 0 &&
               skip_role(d->role[d->depth - 1]) && !d->slice_synthetic;
    if (!d->p->json_fast_path || d->finishing || d->cap != CAP_NONE || d->depth == 0 ||
        !fast_role(d->role[d->depth - 1]) || d->slice_synthetic)
        return 0;
    if (d->fast_skip) {
        d->fast_skip--;
        return 0;
    }
    return 1;
}

/* Stops yajl after the current token; jd_feed goes on from there. */
static int stop_yajl(json_decoder *d, int user, int fast, int had_value)
{
    if (user)
        d->p->stop_requested = 0;
    d->pausing = 1;
    d->pause_user = user;
    d->fast_pending = fast;
    d->fast_had_value = had_value;
    d->pause_taken = yajl_get_bytes_consumed(d->yh);
    return 0;
}

/* After a record or a skipped value: honour a stop request, or hand the
 * next records to the fast path. */
static int boundary(json_decoder *d)
{
    int user = d->p->stop_requested, fast = fast_possible(d);
    return user || fast ? stop_yajl(d, user, fast, 1) : 1;
}

static int finish_record(json_decoder *d)
{
    d->cap = CAP_NONE;
    if (json_emit_record(d, 0)) {
        d->p->stop_requested = 1; /* boundary() pauses */
        d->emit_pending = 1;
    }
    return boundary(d);
}

/* ---- byte ranges ------------------------------------------------------ */

int json_range_cross(json_decoder *d, uint64_t off)
{
    tread_parser *p = d->p;
    if (p->in_prefix) {
        tread__range_enter(p);
        sys_counts_free(&d->sub_counts, p); /* the counters start from zero */
        d->range_mark = p->range_end;
        if (off < d->range_mark)
            return 0;
    }
    tread__range_stop(p);
    d->range_mark = UINT64_MAX;
    return 1;
}

/* Where a scalar outside any record began: its first byte. */
static uint64_t scalar_start(const json_decoder *d, unsigned type, size_t n)
{
    if (type == TOK_STR && d->str_start)
        return d->str_start;
    uint64_t len = type == TOK_STR ? n + 2 : type == TOK_FALSE ? 5
                   : type == TOK_NULL || type == TOK_TRUE ? 4 : n;
    return d->value_end >= len ? d->value_end - len : 0;
}

/* ---- where a value stands --------------------------------------------- */

enum { ACT_NONE = 0, ACT_APPEND, ACT_RECORD, ACT_SKIP, ACT_FAIL, ACT_RANGE_END };

static int begin_top_capture(json_decoder *d, const char *prefix)
{
    json_record_reset(&d->rec, TREAD_JSON_TOP_LEVEL, d->key_end_off);
    tread_buf *k = &d->rec.key;
    k->len = 0;
    const tread_buf *src = prefix ? &d->sub_key : &d->top_key;
    int rc = 0;
    if (prefix)
        rc = tread_buf_append(k, prefix, strlen(prefix));
    if (!rc)
        rc = tread_buf_append(k, src->data, src->len);
    if (!rc)
        rc = tread_buf_append(k, "", 1);
    if (!rc)
        rc = args_put_str(&d->rec.tok, TOK_KEY, k->data, k->len - 1);
    d->cap = CAP_TOP;
    if (rc) {
        fail_buf(d, rc, "top-level value");
        return ACT_FAIL;
    }
    return ACT_APPEND;
}

/* A value starts outside any capture, at input offset start. container:
 * 'm', 'a' or 0 (scalar). *new_role gets the role of the container it
 * opens. */
static int place_value(json_decoder *d, int container, int *new_role, uint64_t start)
{
    *new_role = ROLE_NONE;
    if (json_range_mark(d, start))
        return ACT_RANGE_END;
    if (d->depth == 0) {
        d->doc_started = 1;
        if (container == 'a' && d->cpuprofile) {
            tread__fail(d->p, TREAD_ERROR_SYNTAX, json_cur_off(d) - 1,
                        "a .cpuprofile is a JSON object, not an array");
            return ACT_FAIL;
        }
        if (container == 'a') {
            *new_role = ROLE_EVENTS;
            return ACT_NONE;
        }
        if (container == 'm') {
            *new_role = ROLE_TOP;
            return ACT_NONE;
        }
        tread__fail(d->p, TREAD_ERROR_SYNTAX, d->value_end,
                    "a JSON trace is an object or an array, not a bare value");
        return ACT_FAIL;
    }
    tread_json_section sect = TREAD_JSON_TRACE_EVENTS;
    switch (d->role[d->depth - 1]) {
    case ROLE_TOP:
        if (d->cpuprofile) {
            if (container == 'a' && key_is(&d->top_key, "nodes")) {
                *new_role = ROLE_NODES;
                return ACT_NONE;
            }
            if (container == 'a' && key_is(&d->top_key, "samples")) {
                *new_role = ROLE_PSAMPLES;
                return ACT_NONE;
            }
            if (container == 'a' && key_is(&d->top_key, "timeDeltas")) {
                *new_role = ROLE_PDELTAS;
                return ACT_NONE;
            }
            return begin_top_capture(d, NULL);
        }
        if (container == 'a' && key_is(&d->top_key, "traceEvents")) {
            *new_role = ROLE_EVENTS;
            return ACT_NONE;
        }
        if (container == 'a' && key_is(&d->top_key, "samples")) {
            *new_role = ROLE_SAMPLES;
            return ACT_NONE;
        }
        if (container == 'm' && key_is(&d->top_key, "stackFrames")) {
            *new_role = ROLE_FRAMES;
            return ACT_NONE;
        }
        if (key_is(&d->top_key, "systemTraceEvents") && container) {
            *new_role = container == 'm' ? ROLE_SYS_DICT : ROLE_SYS_EVENTS;
            return ACT_NONE;
        }
        return begin_top_capture(d, NULL);
    case ROLE_SYS_DICT:
        if (container == 'a' && key_is(&d->sub_key, "events")) {
            *new_role = ROLE_SYS_EVENTS;
            return ACT_NONE;
        }
        return begin_top_capture(d, "systemTraceEvents.");
    case ROLE_SAMPLES:
        sect = TREAD_JSON_SAMPLES;
        goto element;
    case ROLE_SYS_EVENTS:
        sect = TREAD_JSON_SYSTEM_EVENTS;
        goto element;
    case ROLE_NODES:
        sect = TREAD_JSON_PROFILE_NODES;
        goto element;
    case ROLE_PSAMPLES:
    case ROLE_PDELTAS:
        /* scalars are read in scalar(); anything else is not a value */
        tread__warn(d->p, TREAD_WARN_NOT_AN_EVENT, container ? json_cur_off(d) - 1 : d->value_end,
                    "%s where a number was expected: skipped",
                    container == 'a' ? "an array" : container ? "an object" : "a literal");
        if (container)
            d->cap = CAP_SKIP;
        return ACT_SKIP;
    case ROLE_FRAMES:
        sect = TREAD_JSON_STACK_FRAMES;
        goto element;
    case ROLE_EVENTS:
    element:
        if (container == 'm') {
            json_record_reset(&d->rec, sect, json_cur_off(d) - 1);
            if (sect == TREAD_JSON_STACK_FRAMES) {
                tread_buf *k = &d->rec.key;
                k->len = 0;
                int rc = tread_buf_append(k, d->sub_key.data, d->sub_key.len);
                if (!rc)
                    rc = tread_buf_append(k, "", 1);
                if (rc) {
                    fail_buf(d, rc, "stack frame id");
                    return ACT_FAIL;
                }
            }
            d->cap = CAP_RECORD;
            return ACT_RECORD;
        }
        tread__warn(d->p, sect == TREAD_JSON_STACK_FRAMES ? TREAD_WARN_BAD_FIELD : TREAD_WARN_NOT_AN_EVENT,
                    container ? json_cur_off(d) - 1 : d->value_end,
                    "%s where an object was expected: skipped",
                    container == 'a' ? "an array" : "a scalar");
        if (container)
            d->cap = CAP_SKIP;
        return ACT_SKIP;
    default:
        return ACT_SKIP;
    }
}

/* ---- tokens ----------------------------------------------------------- */

static inline int note_field(json_decoder *d)
{
    if (d->rec.cur_field >= 0 && d->depth == d->cap_depth && d->cap == CAP_RECORD) {
        d->rec.field[d->rec.cur_field] = d->rec.tok.len + 1;
        d->rec.cur_field = -1;
    }
    return 1;
}

/* A scalar value: appended to the capture, or placed. */
static int scalar(json_decoder *d, unsigned type, const void *s, size_t n)
{
    int top_scalar = 0;
    d->last_good_off = d->value_end;
    d->last_good_kind = JSON_GOOD_VALUE;
    if (d->sys_streamed) {
        /* the null standing for a streamed systemTraceEvents string: the
         * value ends where the string did, not where the null's 4 bytes,
         * placed at the string's quote, would (after a string of 1 byte,
         * a parse error was put at the token after the next, and where
         * depended on the chunking: fuzz_json,
         * fuzz/seeds/json/regress_sysstr_short_value_end) */
        d->sys_streamed = 0;
        d->value_end = d->last_good_off = d->sys_end;
        return boundary(d);
    }
    if (d->cap == CAP_NONE && d->depth > 0 &&
        (d->role[d->depth - 1] == ROLE_PSAMPLES || d->role[d->depth - 1] == ROLE_PDELTAS)) {
        /* a .cpuprofile's sample or time delta */
        size_t len = type >= TOK_KEY ? n : type == TOK_FALSE ? 5 : 4;
        uint64_t off = d->value_end >= len ? d->value_end - len : 0;
        if (type == TOK_STR && off)
            off--;
        if (json_profile_file_value(d, d->role[d->depth - 1] == ROLE_PDELTAS, type,
                                    (const char *)s, n, off) < 0)
            return 0;
        return boundary(d);
    }
    if (d->cap == CAP_NONE) {
        int role;
        int act = place_value(d, 0, &role, scalar_start(d, type, n));
        if (act == ACT_FAIL)
            return 0;
        if (act == ACT_RANGE_END)
            return stop_yajl(d, 0, 0, 1);
        if (act == ACT_SKIP)
            return boundary(d);
        top_scalar = 1; /* ACT_APPEND: a top-level key's scalar value */
    } else if (d->cap == CAP_SKIP) {
        return 1;
    }
    note_field(d);
    int rc = type >= TOK_KEY ? args_put_str(&d->rec.tok, type, s, n) : args_put_tok(&d->rec.tok, type);
    if (rc)
        return fail_buf(d, rc, "record");
    if (top_scalar) {
        /* a top-level scalar starts where its text does: exact for numbers
         * and literals, and for strings without escapes */
        uint64_t end = d->value_end, len = type == TOK_NUM ? n : type == TOK_FALSE ? 5
                                               : type == TOK_STR ? n + 2 : 4;
        if (type == TOK_STR && d->str_start) {
            d->rec.offset = d->str_start; /* its opening quote, escapes or not */
        } else if (type != TOK_NAN && type != TOK_POS_INF && type != TOK_NEG_INF &&
                   end >= len && end - len >= d->rec.offset) {
            d->rec.offset = end - len;
        }
        return finish_record(d);
    }
    return 1;
}

static int y_null(void *ctx)
{
    D;
    if (d->replaying) return 1;
    d->value_end = json_cur_off(d);
    return scalar(d, TOK_NULL, NULL, 0);
}

static int y_boolean(void *ctx, int v)
{
    D;
    if (d->replaying) return 1;
    d->value_end = json_cur_off(d);
    return scalar(d, v ? TOK_TRUE : TOK_FALSE, NULL, 0);
}

static int y_number(void *ctx, const char *s, size_t n)
{
    D;
    if (d->replaying) return 1;
    /* yajl knows a number ended when it sees the next byte; when that
     * byte opens a slice, the number ended where the last slice did (not
     * at this slice's start: a dropped comma or comment may lie between) */
    size_t c = yajl_get_bytes_consumed(d->yh);
    d->value_end = c ? d->slice_off + c : d->prev_slice_end;
    if (d->special) {
        /* A number that yajl ends at the first byte of the "0" standing
         * for NaN/Infinity is one the word ran into ("0NaN", "1-inf"):
         * taking it for the word moved the error with the chunking
         * (fuzz_json). */
        int ran_into = d->slice_synthetic && c == 0 &&
                       d->slice_off == d->special_end - d->special_len;
        if (ran_into || n != 1 || s[0] != '0') {
            /* or yajl read that "0" as part of a number around it
             * ("2.5-Infinity", "NaN.5"): a token no slicing may change
             * (fuzz_json found the error offset moving with the chunking
             * when this was accepted) */
            uint64_t at = d->special_end - d->special_len;
            d->special = 0;
            tread__fail(d->p, TREAD_ERROR_SYNTAX, at,
                        "invalid JSON: %.*s runs into a number", (int)d->special_len,
                        d->special_text);
            return 0;
        }
        d->value_end = d->special_end;
        unsigned t = d->special == JSON_SPECIAL_NAN ? TOK_NAN
                     : d->special == JSON_SPECIAL_POS_INF ? TOK_POS_INF : TOK_NEG_INF;
        d->special = 0;
        return scalar(d, t, d->special_text, d->special_len);
    }
    return scalar(d, TOK_NUM, s, n);
}

static int y_string(void *ctx, const unsigned char *s, size_t n)
{
    D;
    if (d->replaying) return 1;
    d->value_end = json_cur_off(d);
    if (n > d->p->max_string_bytes) {
        tread__fail(d->p, TREAD_ERROR_LIMIT_STRING, json_cur_off(d),
                    "string longer than the limit of %zu bytes", d->p->max_string_bytes);
        return 0;
    }
    d->str_start = 0;
    if (d->cap == CAP_NONE && d->depth >= 1) {
        /* a string outside records (a top-level key's, say): its opening quote is the first quote
         * before the closing one that no odd run of backslashes escapes;
         * a string cut by a chunk boundary comes as the held start, then
         * a slice with its rest, and starts where the held token did */
        size_t c = yajl_get_bytes_consumed(d->yh);
        const unsigned char *b = d->slice_data;
        size_t found = 0; /* 1 + the quote's index in the slice */
        int run_at_start = 0; /* its backslashes reach the slice's start */
        for (size_t k = c >= 2 ? c - 1 : 0; b && k-- > 0;) {
            if (b[k] != '"')
                continue;
            size_t bs = 0;
            while (bs < k && b[k - 1 - bs] == '\\')
                bs++;
            if (bs % 2 == 0) {
                found = k + 1;
                run_at_start = bs == k;
                break;
            }
        }
        /* No quote in the slice, or only one that a held backslash may
         * escape (at its first byte, or after backslashes from its first
         * byte on: backslashes stand only inside a string, so that quote is
         * in the held token): the slice is the rest of a held token, and
         * the string starts where that token did. A later string of the
         * same slice has its quote inside it, after a byte that is no
         * backslash. */
        int rest = d->slice_off != 0 && d->slice_off == d->filter.held_rest_off &&
                   d->filter.held.len == 0;
        if (rest && (!found || run_at_start))
            d->str_start = d->filter.held_tok_off;
        else if (found)
            d->str_start = d->slice_off + (found - 1);
    }
    return scalar(d, TOK_STR, s, n);
}

static int y_map_key(void *ctx, const unsigned char *s, size_t n)
{
    D;
    if (d->replaying) return 1;
    d->last_good_off = json_cur_off(d);
    d->last_good_kind = JSON_GOOD_KEY;
    if (d->cap == CAP_RECORD || d->cap == CAP_TOP) {
        if (d->cap == CAP_RECORD && d->depth == d->cap_depth)
            d->rec.cur_field = json_field_lookup(s, n);
        int rc = args_put_str(&d->rec.tok, TOK_KEY, s, n);
        return rc ? fail_buf(d, rc, "record") : 1;
    }
    if (d->cap == CAP_SKIP)
        return 1;
    tread_buf *k = d->depth == 1 ? &d->top_key : &d->sub_key;
    k->len = 0;
    int rc = tread_buf_append(k, s, n);
    if (rc)
        return fail_buf(d, rc, "key");
    d->key_end_off = json_cur_off(d);
    return 1;
}

static int open_container(json_decoder *d, int type)
{
    d->last_good_off = json_cur_off(d);
    d->last_good_kind = JSON_GOOD_OPEN;
    if (d->depth >= d->max_depth) {
        tread__fail(d->p, TREAD_ERROR_LIMIT_DEPTH, json_cur_off(d) - 1,
                    "nesting deeper than the limit of %d (TREAD_OPT_MAX_DEPTH)", d->max_depth);
        return 0;
    }
    int role = ROLE_NONE, act = ACT_APPEND;
    if (d->cap == CAP_NONE) {
        act = place_value(d, type, &role, json_cur_off(d) - 1);
        if (act == ACT_FAIL)
            return 0;
        if (act == ACT_RANGE_END)
            return stop_yajl(d, 0, 0, 1);
    }
    if (act == ACT_APPEND && d->cap == CAP_TOP && d->cap_depth == 0)
        d->rec.offset = json_cur_off(d) - 1; /* a top-level value's '{' or '[' */
    if (act == ACT_APPEND && d->cap != CAP_SKIP) {
        note_field(d);
        int rc = args_put_tok(&d->rec.tok, type == 'm' ? TOK_DICT_BEGIN : TOK_ARRAY_BEGIN);
        if (rc)
            return fail_buf(d, rc, "record");
    }
    d->stack[d->depth] = (unsigned char)type;
    d->role[d->depth] = (unsigned char)role;
    d->depth++;
    if (d->cap != CAP_NONE && act != ACT_APPEND)
        d->cap_depth = d->depth; /* this container is the capture's root */
    else if (act == ACT_APPEND && d->cap == CAP_TOP && d->cap_depth == 0)
        d->cap_depth = d->depth;
    if (act == ACT_NONE && type == 'a' && fast_role(role)) {
        d->fast_misses = 0; /* a new array of records: a fresh start */
        d->fast_skip = 0;
        if (fast_possible(d))
            return stop_yajl(d, 0, 1, 0); /* traceEvents[ and the like */
    }
    return 1;
}

static int close_container(json_decoder *d, int type)
{
    d->last_good_off = json_cur_off(d);
    d->last_good_kind = JSON_GOOD_VALUE;
    if (d->depth == 0)
        return 1;
    if (d->cap == CAP_NONE && json_range_mark(d, json_cur_off(d) - 1))
        return stop_yajl(d, 0, 0, 1);
    if (d->cap != CAP_NONE && d->depth == d->cap_depth) {
        /* the capture's root closes */
        int cap = d->cap;
        d->depth--;
        d->cap_depth = 0;
        if (cap == CAP_SKIP) {
            d->cap = CAP_NONE;
            return boundary(d);
        }
        if (cap == CAP_TOP) {
            int rc = args_put_tok(&d->rec.tok, type == 'm' ? TOK_DICT_END : TOK_ARRAY_END);
            if (rc)
                return fail_buf(d, rc, "record");
        } else if (d->rec.tok.len == 0 && d->rec.section != TREAD_JSON_STACK_FRAMES) {
            /* (a stackFrames entry {} still defines its key: a frame
             * without a name, which tread convert writes for one) */
            d->cap = CAP_NONE;
            tread__warn(d->p, TREAD_WARN_EMPTY_EVENT, d->rec.offset, "empty event {} skipped");
            return boundary(d);
        }
        return finish_record(d);
    }
    if (d->cap == CAP_RECORD || d->cap == CAP_TOP) {
        int rc = args_put_tok(&d->rec.tok, type == 'm' ? TOK_DICT_END : TOK_ARRAY_END);
        if (rc)
            return fail_buf(d, rc, "record");
    }
    d->depth--;
    if (d->depth == 0 && d->cap == CAP_NONE) {
        if (d->cpuprofile)
            json_profile_file_end(d, json_cur_off(d) - 1);
        d->doc_done = 1;
        d->done_in_slice = 1;
        d->done_taken = yajl_get_bytes_consumed(d->yh);
    }
    return 1;
}

static int y_start_map(void *ctx) { D; return d->replaying ? 1 : open_container(d, 'm'); }
static int y_start_array(void *ctx) { D; return d->replaying ? 1 : open_container(d, 'a'); }
static int y_end_map(void *ctx) { D; return d->replaying ? 1 : close_container(d, 'm'); }
static int y_end_array(void *ctx) { D; return d->replaying ? 1 : close_container(d, 'a'); }

/* ---- yajl handle, rebuilt after a pause ------------------------------- */

static void *y_malloc(void *ctx, size_t n) { return tread_malloc((const tread_alloc *)ctx, n); }
static void *y_realloc(void *ctx, void *p, size_t n) { return tread_realloc((const tread_alloc *)ctx, p, n); }
static void y_free(void *ctx, void *p) { tread_free((const tread_alloc *)ctx, p); }

/* yajl cannot resume after a callback cancels it, so a pause throws the
 * handle away; the new one is put back in the same place by feeding it a
 * prefix made from the container stack, with callbacks muted. */
static int rebuild_yajl(json_decoder *d)
{
    if (d->yh)
        yajl_free(d->yh);
    d->yh = yajl_alloc(&d->ycb, &d->yaf, d);
    if (!d->yh) {
        tread__fail(d->p, TREAD_ERROR_NOMEM, d->p->dec_offset, "out of memory");
        return -1;
    }
    yajl_config(d->yh, yajl_dont_validate_strings, 1);
    yajl_config(d->yh, yajl_allow_partial_values, 1);
    yajl_config(d->yh, yajl_allow_trailing_garbage, 1);
    d->yajl_dead = 0;
    if (d->depth == 0)
        return 0;
    d->replaying = 1;
    for (int i = 0; i < d->depth; i++) {
        /* the last value is a literal: yajl reports it without lookahead,
         * so it is gone before the callbacks come back on; none when the
         * fast path stopped right after the array opened */
        int last = i + 1 == d->depth && d->fast_had_value;
        const char *piece = d->stack[i] == 'm' ? (last ? "{\"\":null" : "{\"\":")
                                               : !last ? "["
                                               : d->rebuild_comma ? "[null," : "[null";
        yajl_parse(d->yh, (const unsigned char *)piece, strlen(piece));
    }
    d->replaying = 0;
    d->rebuild_comma = 0;
    return 0;
}

/* The fast path hands the input back to the filter and yajl at offset
 * off; yajl, stopped when the fast path took over, is rebuilt there. */
static void leave_fast(json_decoder *d, uint64_t off, int cut)
{
    if (d->p->stats.fast_records + d->fast_values - d->fast_entry_reads >= JSON_FAST_MIN_RECORDS) {
        d->fast_misses = 0;
    } else if (!cut && ++d->fast_misses >= 2) {
        unsigned shift = d->fast_misses - 1;
        d->fast_skip = shift >= 10 ? JSON_FAST_MAX_SKIP : (uint64_t)1 << shift;
    }
    d->fast = 0;
    d->slice_off = off;
    d->slice_len = 0;
}

/* After the document: whitespace is fine, anything else is reported. */
static int check_trailing(json_decoder *d, const unsigned char *s, size_t n, uint64_t off)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0)
            continue;
        if (!d->p->lenient) {
            tread__fail(d->p, TREAD_ERROR_SYNTAX, off + i, "data after the end of the JSON document");
            return -1;
        }
        if (!d->trailing_reported) {
            d->trailing_reported = 1;
            tread__warn(d->p, TREAD_WARN_TRAILING_DATA, off + i,
                        "data after the end of the JSON document ignored");
        }
        break;
    }
    return 0;
}

/* Keeps the first JSON_AFTER_GOOD_MAX bytes after last_good_off, from the
 * slice s (at d->slice_off) just read: what a parse error in a later slice
 * needs to find the offending token. */
static void keep_after_good(json_decoder *d, const unsigned char *s, size_t n)
{
    if (d->slice_synthetic && d->slice_off + 1 == d->sys_null_at)
        n = 0; /* the null standing for a streamed string: not the input's
                  bytes (it overlaps what follows a string of 1 or 2) */
    uint64_t end = d->slice_off + n;
    if (d->after_good_off != d->last_good_off) {
        d->after_good_off = d->last_good_off;
        d->after_good_len = 0;
    }
    /* Bytes between what is kept and this slice went round yajl: blanks
     * the fast path took (it takes commas only with the record after
     * them, which moves last_good_off), or the blanks before a number
     * that yajl confirmed in the next slice. Kept as blanks. */
    while (d->after_good_len < JSON_AFTER_GOOD_MAX &&
           d->after_good_off + d->after_good_len < d->slice_off)
        d->after_good[d->after_good_len++] = ' ';
    uint64_t from = d->after_good_off + d->after_good_len;
    if (d->after_good_len == JSON_AFTER_GOOD_MAX || from >= end)
        return;
    size_t take = (size_t)(end - from);
    if (take > JSON_AFTER_GOOD_MAX - d->after_good_len)
        take = JSON_AFTER_GOOD_MAX - d->after_good_len;
    memcpy(d->after_good + d->after_good_len, s + (from - d->slice_off), take);
    d->after_good_len += take;
}

/* The byte at input offset off, from after_good or the slice s; -1 when
 * neither holds it. */
static int byte_at(const json_decoder *d, const unsigned char *s, size_t n, uint64_t off)
{
    if (off >= d->slice_off && off - d->slice_off < n)
        return s[off - d->slice_off];
    if (d->after_good_off == d->last_good_off && off >= d->after_good_off && off - d->after_good_off < d->after_good_len)
        return d->after_good[off - d->after_good_off];
    return -1;
}

static int json_space(int c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* The first non-blank byte at or after off, within JSON_AFTER_GOOD_MAX of
 * last_good_off (which after_good and the slice cover); UINT64_MAX when
 * there is none. */
static uint64_t next_token(const json_decoder *d, const unsigned char *s, size_t n, uint64_t off)
{
    for (; off < d->last_good_off + JSON_AFTER_GOOD_MAX && off < d->slice_off + n; off++) {
        int c = byte_at(d, s, n, off);
        if (c >= 0 && !json_space(c))
            return off;
    }
    return UINT64_MAX;
}

static int report_yajl_error(json_decoder *d, const unsigned char *s, size_t n)
{
    unsigned char *msg = yajl_get_error(d->yh, 0, s, n);
    const char *m = msg ? (const char *)msg : "invalid JSON";
    size_t ml = strlen(m);
    while (ml && (m[ml - 1] == '\n' || m[ml - 1] == ' '))
        ml--;
    /* The offending byte, the same whatever the chunking. A lexical error
     * is found in the slice yajl was given (s), at the byte that spoils the
     * token (yajl's position), or, for a byte that starts no token, just
     * before it (it was consumed). A parse error is a whole token in the
     * wrong place: the first token after the last good one, or the one
     * after that when the first is the separator yajl accepted there (a
     * colon after a key, a comma after a value inside a container), told
     * by what the last good token was, never by yajl's position (which
     * depends on where the slices were cut: fuzz_json's byte ranges found
     * it one byte off). A trailing comma is the offence itself, where the
     * lenient mode's warning points. At the end of input (s NULL), or when
     * those bytes were not kept, the end of the last good token is what is
     * known. */
    uint64_t at = d->last_good_off;
    if (s) {
        uint64_t pos = json_cur_off(d);
        if (strncmp(m, "parse error", 11) == 0) {
            uint64_t t = next_token(d, s, n, d->last_good_off);
            int c = t == UINT64_MAX ? -1 : byte_at(d, s, n, t);
            int accepted = (c == ':' && d->last_good_kind == JSON_GOOD_KEY) ||
                           (c == ',' && d->last_good_kind == JSON_GOOD_VALUE && d->depth > 0);
            if (accepted) {
                uint64_t u = next_token(d, s, n, t + 1);
                int cu = u == UINT64_MAX ? -1 : byte_at(d, s, n, u);
                if (!(c == ',' && (cu == ']' || cu == '}')))
                    t = u;
            }
            if (t != UINT64_MAX)
                at = t;
        } else {
            int consumed = strstr(m, "invalid char in json text") != NULL;
            uint64_t bad = consumed && pos > d->slice_off ? pos - 1 : pos;
            if (bad > d->slice_off + n)
                bad = d->slice_off + n;
            if (bad > at)
                at = bad;
        }
    }
    tread__fail(d->p, TREAD_ERROR_SYNTAX, at, "invalid JSON: %.*s", (int)ml, m);
    if (msg)
        yajl_free_error(d->yh, msg);
    return -1;
}

static int json_sink(void *ctx, const unsigned char *s, size_t n, uint64_t off,
                     int synthetic, size_t *taken)
{
    D;
    *taken = n;
    if (d->doc_done)
        return check_trailing(d, s, n, off);
    if (d->yajl_dead && rebuild_yajl(d))
        return -1;
    d->prev_slice_end = d->slice_off + d->slice_len;
    d->slice_off = off;
    d->slice_len = n;
    d->slice_data = s;
    d->slice_synthetic = synthetic;
    d->done_in_slice = 0;
    yajl_status st = yajl_parse(d->yh, s, n);
    if (st == yajl_status_ok) {
        keep_after_good(d, s, n);
        if (d->done_in_slice && d->done_taken < n)
            return check_trailing(d, s + d->done_taken, n - d->done_taken, off + d->done_taken);
        return 0;
    }
    if (st == yajl_status_client_canceled) {
        d->yajl_dead = 1;
        if (d->pausing) {
            d->pausing = 0;
            *taken = d->pause_taken;
            return 1;
        }
        return -1; /* the error is recorded */
    }
    return report_yajl_error(d, s, n);
}

static void on_special(void *ctx, int kind, const char *text, size_t len, uint64_t off)
{
    D;
    d->special = kind;
    d->special_end = off + len;
    if (len > sizeof d->special_text)
        len = sizeof d->special_text;
    memcpy(d->special_text, text, len);
    d->special_len = len;
}

/* ---- the systemTraceEvents string ------------------------------------ */

static void sub_stop(json_decoder *d)
{
    if (d->sub_on)
        sys_sub_free(&d->sub);
    d->sub_on = 0;
}

static int on_stream(void *ctx, int op, uint64_t off)
{
    D;
    tread_status st;
    switch (op) {
    case JSON_STREAM_ASK:
        /* only the top-level key's string value, yajl having read the key */
        if (d->cpuprofile || d->depth != 1 || d->role[0] != ROLE_TOP || d->cap != CAP_NONE || d->doc_done ||
            !key_is(&d->top_key, "systemTraceEvents"))
            return 0;
        if (json_range_mark(d, off))
            return 0; /* the filter stops: the range has ended */
        if (sys_sub_init(&d->sub, d->p, TREAD_FORMAT_FTRACE, "systemTraceEvents", off + 1,
                         &d->sub_counts))
            return 0; /* out of memory is recorded: the capture path fails too */
        d->sub_on = 1;
        d->filter.sub = &d->sub;
        return 1;
    case JSON_STREAM_PAUSED:
        d->pause_user = 1;
        d->p->stop_requested = 0;
        return 0;
    default: /* END, TRUNC */
        if (!d->sub_on)
            return 0;
        st = sys_sub_finish(&d->sub);
        if (st == TREAD_STATUS_PAUSED) {
            d->pause_user = 1;
            d->p->stop_requested = 0;
            return 1;
        }
        if (op == JSON_STREAM_TRUNC && st == TREAD_STATUS_OK)
            tread__warn(d->p, TREAD_WARN_TRUNCATED_EVENT, off,
                        "input ends inside the systemTraceEvents string that starts at byte %llu: "
                        "what came of it was decoded",
                        (unsigned long long)(d->sub.off - 1));
        d->sys_null_at = d->sub.off; /* the quote's offset + 1 */
        sub_stop(d);
        d->sys_streamed = op == JSON_STREAM_END;
        d->sys_end = off;
        return st == TREAD_STATUS_OK ? 0 : -1;
    }
}

/* ---- skipping the prefix of a byte range ------------------------------ */

static void skip_begin(json_decoder *d)
{
    json_scan_start(&d->scan, d->scan_stack, (size_t)d->max_depth, d->fast_had_value);
    d->hold.len = 0;
    d->hold_over = 0;
}

/* yajl and the filter take over at input offset off, between two elements
 * of the array (a comma after the last one when comma). */
static void skip_leave(json_decoder *d, uint64_t off, int had_value, int comma)
{
    d->skip = 0;
    d->fast_had_value = had_value;
    d->rebuild_comma = comma && had_value;
    d->yajl_dead = 1;
    d->last_good_off = off;
    d->last_good_kind = !had_value ? JSON_GOOD_OPEN : comma ? JSON_GOOD_COMMA : JSON_GOOD_VALUE;
    d->slice_off = off;
    d->slice_len = 0;
}

enum { SKIP_DONE, SKIP_FOOT, SKIP_READ };

/* Scans data[*pos..len) (data[0] at dec_offset): SKIP_DONE when all was
 * skipped, SKIP_FOOT at the footing (*pos), SKIP_READ after a marked
 * element was read through the filter (*frc its result), -1 on error. */
static int skip_run(json_decoder *d, const unsigned char *data, size_t len, size_t *pos, int *frc)
{
    tread_parser *p = d->p;
    uint64_t off = p->dec_offset;
    size_t from = *pos, i = from;
    int ev;
    for (;;) {
        ev = json_scan_run(&d->scan, data, len, &i, off, p->range_begin);
        if (ev != JS_MARKED || d->scan.elem_start >= off || !d->hold_over)
            break;
        d->hold.len = 0; /* marked, but too large to have been kept: skipped */
        d->hold_over = 0;
        from = i;
    }
    if (ev == JS_MORE) {
        /* an element cut here is kept, in case it is marked */
        *pos = len;
        if (d->scan.elem == JS_GAP) {
            d->hold.len = 0;
            return SKIP_DONE;
        }
        uint64_t s0 = d->scan.elem_start;
        if (s0 >= off + from) {
            d->hold.len = 0;
            d->hold_over = 0;
            from = (size_t)(s0 - off);
        }
        if (!d->hold_over) {
            int rc = tread_buf_append(&d->hold, data + from, len - from);
            if (rc == -1) {
                tread__fail(p, TREAD_ERROR_NOMEM, off + from, "out of memory");
                return -1;
            }
            d->hold_over = rc != 0;
        }
        return SKIP_DONE;
    }
    *pos = i;
    if (ev != JS_MARKED) {
        skip_leave(d, off + i, d->scan.had_value, ev == JS_START);
        return SKIP_FOOT;
    }
    /* a marked element [s0, off + i): read (muted) for its state */
    uint64_t s0 = d->scan.elem_start;
    size_t c = 0;
    skip_leave(d, s0, d->scan.had_before, 1);
    int rc = 0;
    if (s0 < off)
        rc = json_filter_feed(&d->filter, d->hold.data, d->hold.len, s0, &c);
    d->hold.len = 0;
    size_t at = s0 < off ? 0 : (size_t)(s0 - off);
    if (rc == 0) {
        rc = json_filter_feed(&d->filter, data + at, i - at, off + at, &c);
        *pos = at + c;
    }
    *frc = rc;
    return SKIP_READ;
}

/* ---- decoder interface ------------------------------------------------ */

static tread_status continue_emit(json_decoder *d)
{
    if (d->emit_pending) {
        d->emit_pending = 0;
        if (json_emit_record(d, d->emit_next)) {
            d->emit_pending = 1;
            d->p->stop_requested = 0;
            return TREAD_STATUS_PAUSED;
        }
    }
    if (d->p->stop_requested) {
        d->p->stop_requested = 0;
        return TREAD_STATUS_PAUSED;
    }
    return TREAD_STATUS_OK;
}

static tread_status jd_feed(void *dec, const unsigned char *data, size_t len, size_t *consumed)
{
    json_decoder *d = dec;
    *consumed = 0;
    tread_status st = continue_emit(d);
    if (st == TREAD_STATUS_OK && d->sub_on && sys_sub_paused(&d->sub)) {
        st = sys_sub_resume(&d->sub); /* inside the systemTraceEvents string */
        if (st == TREAD_STATUS_PAUSED)
            d->p->stop_requested = 0;
    }
    if (st != TREAD_STATUS_OK || len == 0)
        return st;
    size_t pos = 0;
    for (;;) {
        int rc;
        if (d->skip) {
            int sr = skip_run(d, data, len, &pos, &rc);
            *consumed = pos;
            if (sr == SKIP_DONE)
                return TREAD_STATUS_OK;
            if (sr < 0)
                return TREAD_STATUS_ERROR;
            if (sr == SKIP_READ)
                goto filtered;
        }
        if (d->fast) {
            int fr = json_fast_run(d, data, len, &pos);
            *consumed = pos;
            if (fr == FAST_DONE)
                return TREAD_STATUS_OK;
            if (fr == FAST_PAUSED)
                return TREAD_STATUS_PAUSED;
            if (fr == FAST_ERROR)
                return TREAD_STATUS_ERROR;
            if (fr == FAST_RANGE_END) {
                *consumed = len;
                return TREAD_STATUS_OK;
            }
            leave_fast(d, d->p->dec_offset + pos, fr == FAST_CUT);
        }
        /* The filter scans all it is given before yajl sees any of it, so
         * while the fast path may take over again soon, it gets a window
         * that doubles each time yajl reads it all without stopping. */
        size_t n = len - pos;
        if (d->p->json_fast_path && n > d->slow_window)
            n = d->slow_window;
        size_t c = 0;
        rc = json_filter_feed(&d->filter, data + pos, n, d->p->dec_offset + pos, &c);
        pos += c;
        *consumed = pos;
    filtered:
        if (d->p->range_done) { /* the rest is the next range's */
            *consumed = len;
            return TREAD_STATUS_OK;
        }
        if (rc == 0) {
            if (pos < len) {
                if (d->slow_window < ((size_t)1 << 30))
                    d->slow_window *= 2;
                continue;
            }
            return TREAD_STATUS_OK;
        }
        if (rc < 0)
            return TREAD_STATUS_ERROR;
        /* yajl stopped: for the caller, the fast path, or both */
        if (d->fast_pending && json_in_prefix(d)) {
            d->fast_pending = 0;
            d->skip = json_filter_idle(&d->filter);
            if (d->skip)
                skip_begin(d);
        } else if (d->fast_pending) {
            d->fast_pending = 0;
            d->fast = json_filter_idle(&d->filter);
            if (d->fast) {
                d->slow_window = JSON_SLOW_WINDOW;
                d->fast_entry_reads = d->p->stats.fast_records + d->fast_values;
            }
        }
        if (d->pause_user) {
            d->pause_user = 0;
            return TREAD_STATUS_PAUSED;
        }
    }
}

static tread_status jd_finish(void *dec)
{
    json_decoder *d = dec;
    tread_parser *p = d->p;
    if (d->finished)
        return TREAD_STATUS_OK;
    tread_status st = continue_emit(d);
    if (st != TREAD_STATUS_OK)
        return st;
    if (d->fast)
        leave_fast(d, p->dec_offset, 1);
    if (d->skip) {
        /* the input ends inside the array being skipped, in an element
         * that began before the range (or between two): its containers
         * are the innermost unclosed ones */
        d->skip = 0;
        for (uint64_t k = 0; k < d->scan.nest && d->depth < d->max_depth; k++)
            d->stack[d->depth++] = d->scan.stack[k];
        goto end_of_input;
    }
    d->finishing = 1; /* no bytes are left for the fast path */
    int rc = json_filter_finish(&d->filter, p->dec_offset);
    if (p->range_done) {
        /* a word held to the end of input ("false" of the last member)
         * ended the range: the rest is the next range's, as in jd_feed
         * (fuzz_json found finish paused with no callback stopping:
         * fuzz/seeds/json/regress_range_end_in_final_word) */
        d->finished = 1;
        return TREAD_STATUS_OK;
    }
    if (rc)
        return rc == 1 ? TREAD_STATUS_PAUSED : TREAD_STATUS_ERROR;
    /* Input cut inside a token (string, number, literal): yajl would call
     * the fragment a syntax error; it is a truncation, reported below. */
    if (!d->doc_done && !json_filter_mid_token(&d->filter)) {
        if (d->yajl_dead && rebuild_yajl(d))
            return TREAD_STATUS_ERROR;
        d->prev_slice_end = d->slice_off + d->slice_len;
        d->slice_off = p->dec_offset;
        d->slice_len = 0;
        d->slice_synthetic = 1;
        yajl_status ys = yajl_complete_parse(d->yh);
        if (ys == yajl_status_client_canceled) {
            d->yajl_dead = 1;
            if (d->pausing) {
                d->pausing = 0;
                if (p->range_done) {
                    d->finished = 1;
                    return TREAD_STATUS_OK;
                }
                return TREAD_STATUS_PAUSED;
            }
            return TREAD_STATUS_ERROR;
        }
        if (ys != yajl_status_ok) {
            report_yajl_error(d, NULL, 0);
            return TREAD_STATUS_ERROR;
        }
    }
    if (!d->doc_started)
        return tread__fail(p, TREAD_ERROR_SYNTAX, p->dec_offset, "no JSON value in the input");
    if (d->cap == CAP_RECORD || d->cap == CAP_TOP) {
        tread__warn(p, TREAD_WARN_TRUNCATED_EVENT, d->rec.offset,
                    "input ends inside a record that starts at byte %llu: dropped",
                    (unsigned long long)d->rec.offset);
        d->cap = CAP_NONE;
    }
end_of_input:
    /* the end of input is a boundary: said by the range it is in */
    if (json_range_mark(d, p->dec_offset)) {
        d->finished = 1;
        return TREAD_STATUS_OK;
    }
    if (!d->doc_done && d->depth > 0) {
        char closers[16];
        int n = 0;
        for (int i = d->depth - 1; i >= 0 && n < (int)sizeof closers - 4; i--)
            closers[n++] = d->stack[i] == 'm' ? '}' : ']';
        if (d->depth > (int)sizeof closers - 4)
            closers[n++] = '.', closers[n++] = '.', closers[n++] = '.';
        closers[n] = 0;
        tread__warn(p, TREAD_WARN_MISSING_END, p->dec_offset,
                    "input ends before the JSON document is closed (missing %s)", closers);
    }
    d->finished = 1;
    return TREAD_STATUS_OK;
}

static void jd_destroy(void *dec)
{
    json_decoder *d = dec;
    const tread_alloc *a = &d->p->alloc;
    if (d->yh)
        yajl_free(d->yh);
    tread_buf_free(&d->rec.tok);
    tread_buf_free(&d->rec.key);
    tread_buf_free(&d->top_key);
    tread_buf_free(&d->sub_key);
    tread_buf_free(&d->series);
    sub_stop(d);
    json_profiles_free(&d->prof);
    sys_counts_free(&d->sub_counts, d->p);
    json_filter_free(&d->filter);
    tread_buf_free(&d->hold);
    tread_free(a, d->scan_stack);
    tread_free(a, d->stack);
    tread_free(a, d->role);
    tread_free(a, d);
}

static void *jd_create(tread_parser *p);

/* Only the systemTraceEvents string's ftrace counters ("ftrace.lines"...):
 * JSON itself has none of its own yet. */
static size_t jd_counters(const void *dec, tread_counter *out, size_t max)
{
    const json_decoder *d = dec;
    return sys_counts_put(&d->sub_counts, out, max, 0);
}

const tread_decoder_ops tread__json_decoder = {
    .format = TREAD_FORMAT_JSON,
    .create = jd_create,
    .feed = jd_feed,
    .finish = jd_finish,
    .destroy = jd_destroy,
    .counters = jd_counters,
    .ranges = 1,
};

static void *cpd_create(tread_parser *p)
{
    json_decoder *d = jd_create(p);
    if (d)
        d->cpuprofile = 1;
    return d;
}

/* A .cpuprofile: the JSON decoder with the profile's keys (json_profile.h). */
const tread_decoder_ops tread__cpuprofile_decoder = {
    .format = TREAD_FORMAT_CPUPROFILE,
    .create = cpd_create,
    .feed = jd_feed,
    .finish = jd_finish,
    .destroy = jd_destroy,
    .counters = jd_counters,
};

static void *jd_create(tread_parser *p)
{
    json_decoder *d = tread_malloc(&p->alloc, sizeof *d);
    if (!d)
        return NULL;
    memset(d, 0, sizeof *d);
    d->p = p;
    d->max_depth = p->max_depth;
    d->stack = tread_malloc(&p->alloc, (size_t)d->max_depth);
    d->role = tread_malloc(&p->alloc, (size_t)d->max_depth);
    /* A sub-trace's decoder (a systemTraceEvents string holding JSON, a
     * Perfetto packet's Chrome JSON: the container's decoder exists) is
     * inside one record of its container, which alone marks ranges (fuzz_json
     * found a nested decoder entering the range at its own end of input:
     * fuzz/seeds/json/regress_range_nested_json) */
    d->nested = p->dec != NULL;
    d->range_mark = d->nested ? UINT64_MAX : p->in_prefix ? p->range_begin : p->range_end;
    if (json_in_prefix(d))
        d->scan_stack = tread_malloc(&p->alloc, (size_t)d->max_depth);
    tread_buf_init(&d->hold, &p->alloc, p->max_event_bytes);
    tread_buf_init(&d->rec.tok, &p->alloc, p->max_event_bytes);
    tread_buf_init(&d->rec.key, &p->alloc, p->max_string_bytes + 32);
    tread_buf_init(&d->top_key, &p->alloc, p->max_string_bytes);
    tread_buf_init(&d->sub_key, &p->alloc, p->max_string_bytes);
    tread_buf_init(&d->series, &p->alloc, p->max_event_bytes);
    json_profiles_init(&d->prof, p);
    d->ycb.yajl_null = y_null;
    d->ycb.yajl_boolean = y_boolean;
    d->ycb.yajl_number = y_number; /* raw text: exact times, no 64-bit overflow abort */
    d->ycb.yajl_string = y_string;
    d->ycb.yajl_start_map = y_start_map;
    d->ycb.yajl_map_key = y_map_key;
    d->ycb.yajl_end_map = y_end_map;
    d->ycb.yajl_start_array = y_start_array;
    d->ycb.yajl_end_array = y_end_array;
    d->yaf.malloc = y_malloc;
    d->yaf.realloc = y_realloc;
    d->yaf.free = y_free;
    d->yaf.ctx = (void *)&p->alloc;
    json_filter_init(&d->filter, p, json_sink, on_special, d);
    d->filter.stream = on_stream;
    d->slow_window = JSON_SLOW_WINDOW;
    if (!d->stack || !d->role || (json_in_prefix(d) && !d->scan_stack) || rebuild_yajl(d)) {
        jd_destroy(d);
        return NULL;
    }
    return d;
}
