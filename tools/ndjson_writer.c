/* ndjson_writer: see ndjson_writer.h and doc/cli-ndjson.md. */
#include "ndjson_writer.h"

#include <string.h>

#include <stdlib.h>

#include "json_write.h"

void ndjson_writer_init(ndjson_writer *w, out_buf *out)
{
    w->out = out;
    w->open = NULL;
    w->open_cap = 0;
    w->nomem = 0;
}

void ndjson_writer_free(ndjson_writer *w)
{
    free(w->open);
    w->open = NULL;
    w->open_cap = 0;
}

static int push_open(ndjson_writer *w, size_t depth, unsigned char is_object)
{
    if (depth >= w->open_cap) {
        size_t cap = w->open_cap ? w->open_cap * 2 : 64;
        while (cap <= depth)
            cap *= 2;
        unsigned char *p = realloc(w->open, cap);
        if (!p) {
            w->nomem = 1;
            return -1;
        }
        w->open = p;
        w->open_cap = cap;
    }
    w->open[depth] = is_object;
    return 0;
}

static void write_scalar(out_buf *o, const tread_arg *arg)
{
    switch (arg->type) {
    case TREAD_ARG_BOOL:
        if (arg->v.b)
            out_buf_write(o, "true", 4);
        else
            out_buf_write(o, "false", 5);
        break;
    case TREAD_ARG_INT:
        json_write_i64(o, arg->v.i);
        break;
    case TREAD_ARG_UINT:
    case TREAD_ARG_KOID:
        json_write_u64(o, arg->v.u);
        break;
    case TREAD_ARG_DOUBLE:
        json_write_double(o, arg->v.d, arg->text.ptr, arg->text.len);
        break;
    case TREAD_ARG_STRING:
        json_write_string(o, arg->v.s.ptr ? arg->v.s.ptr : "", arg->v.s.len);
        break;
    case TREAD_ARG_POINTER:
        json_write_hex_string(o, arg->v.u);
        break;
    case TREAD_ARG_BYTES:
        json_write_base64(o, (const unsigned char *)arg->v.s.ptr,
                          arg->v.s.ptr ? arg->v.s.len : 0);
        break;
    default: /* TREAD_ARG_NULL, and any type this tool does not know */
        out_buf_write(o, "null", 4);
        break;
    }
}

/* Walks the iterator to its end, writing members into the container that
 * is already open at level 0 (object or array per w->open[0]). */
static void write_members(ndjson_writer *w, tread_args_iter *it)
{
    out_buf *o = w->out;
    size_t level = 0;   /* open containers below the top one */
    int need_comma = 0;
    tread_arg arg;
    while (tread_args_next(it, &arg)) {
        if (arg.type == TREAD_ARG_DICT_END || arg.type == TREAD_ARG_ARRAY_END) {
            if (level == 0)
                continue; /* unbalanced: never close the top container */
            out_buf_putc(o, w->open[level] ? '}' : ']');
            level--;
            need_comma = 1;
            continue;
        }
        if (need_comma)
            out_buf_putc(o, ',');
        if (w->open[level]) {
            /* Object member: a missing key still needs a JSON key. */
            json_write_string(o, arg.key.ptr ? arg.key.ptr : "",
                              arg.key.ptr ? arg.key.len : 0);
            out_buf_putc(o, ':');
        }
        if (arg.type == TREAD_ARG_DICT_BEGIN ||
            arg.type == TREAD_ARG_ARRAY_BEGIN) {
            unsigned char is_object = arg.type == TREAD_ARG_DICT_BEGIN;
            if (push_open(w, level + 1, is_object) != 0) {
                /* Out of memory: write the container empty and skip it. */
                out_buf_write(o, is_object ? "{}" : "[]", 2);
                tread_args_skip(it);
                need_comma = 1;
                continue;
            }
            level++;
            out_buf_putc(o, is_object ? '{' : '[');
            need_comma = 0;
            continue;
        }
        write_scalar(o, &arg);
        need_comma = 1;
    }
    while (level > 0) { /* unbalanced input: close what is open */
        out_buf_putc(o, w->open[level] ? '}' : ']');
        level--;
    }
}

/* 1 if the sequence is exactly one array (the way a JSON "stack": [...]
 * may be stored), so it is written as that array, not wrapped again. */
static int is_single_array(const tread_args *a)
{
    tread_args_iter it;
    tread_arg arg;
    tread_args_iter_init(&it, a);
    if (!tread_args_next(&it, &arg) || arg.type != TREAD_ARG_ARRAY_BEGIN)
        return 0;
    tread_args_skip(&it);
    return !tread_args_next(&it, &arg);
}

void ndjson_write_args(ndjson_writer *w, const tread_args *a, int as_object)
{
    out_buf *o = w->out;
    tread_args_iter it;
    if (push_open(w, 0, (unsigned char)as_object) != 0) {
        out_buf_write(o, as_object ? "{}" : "[]", 2);
        return;
    }
    if (!a->data || a->len == 0) {
        out_buf_write(o, as_object ? "{}" : "[]", 2);
        return;
    }
    tread_args_iter_init(&it, a);
    if (!as_object && is_single_array(a)) {
        tread_arg arg;
        tread_args_next(&it, &arg); /* step into the one array */
    }
    out_buf_putc(o, as_object ? '{' : '[');
    write_members(w, &it);
    out_buf_putc(o, as_object ? '}' : ']');
}

/* ,"key": */
static void key(out_buf *o, const char *k, size_t n)
{
    out_buf_write(o, k, n);
}
#define KEY(o, lit) key((o), lit, sizeof lit - 1)

static void str_or_null(out_buf *o, tread_str s)
{
    if (s.ptr)
        json_write_string(o, s.ptr, s.len);
    else
        out_buf_write(o, "null", 4);
}

static void opt_str(out_buf *o, const char *k, size_t n, tread_str s)
{
    if (s.ptr) {
        key(o, k, n);
        json_write_string(o, s.ptr, s.len);
    }
}
#define OPT_STR(o, lit, s) opt_str((o), lit, sizeof lit - 1, (s))

static const char *scope_name(tread_scope s)
{
    switch (s) {
    case TREAD_SCOPE_THREAD: return "thread";
    case TREAD_SCOPE_PROCESS: return "process";
    case TREAD_SCOPE_GLOBAL: return "global";
    default: return NULL;
    }
}

static void write_id(out_buf *o, const tread_event *ev)
{
    if (ev->id.ptr) {
        json_write_string(o, ev->id.ptr, ev->id.len);
    } else if (ev->flags & TREAD_HAS_ID_NUM) {
        out_buf_putc(o, '"');
        json_write_u64(o, ev->id_num);
        out_buf_putc(o, '"');
    } else {
        out_buf_write(o, "null", 4);
    }
}

/* Flow ids as strings: they are 64-bit, beyond what a double (jq,
 * JavaScript) holds exactly. */
static void write_ids(out_buf *o, tread_ids ids)
{
    out_buf_putc(o, '[');
    for (size_t i = 0; i < ids.n; i++) {
        if (i)
            out_buf_putc(o, ',');
        out_buf_putc(o, '"');
        json_write_u64(o, ids.v[i]);
        out_buf_putc(o, '"');
    }
    out_buf_putc(o, ']');
}

int ndjson_write_event(ndjson_writer *w, const tread_event *ev)
{
    out_buf *o = w->out;
    uint32_t f = ev->flags;

    /* The leading keys are always there (null when absent), so that every
     * line has the same columns for DuckDB and jq. */
    KEY(o, "{\"kind\":");
    json_write_cstring(o, tread_event_kind_name(ev->kind));
    KEY(o, ",\"ts_ns\":");
    if (f & TREAD_HAS_TS)
        json_write_i64(o, ev->ts);
    else
        out_buf_write(o, "null", 4);
    KEY(o, ",\"dur_ns\":");
    if (f & TREAD_HAS_DUR)
        json_write_i64(o, ev->dur);
    else
        out_buf_write(o, "null", 4);
    KEY(o, ",\"pid\":");
    if (f & TREAD_HAS_PID)
        json_write_i64(o, ev->pid);
    else
        out_buf_write(o, "null", 4);
    KEY(o, ",\"tid\":");
    if (f & TREAD_HAS_TID)
        json_write_i64(o, ev->tid);
    else
        out_buf_write(o, "null", 4);
    KEY(o, ",\"name\":");
    str_or_null(o, ev->name);
    KEY(o, ",\"cat\":");
    str_or_null(o, ev->cat);
    KEY(o, ",\"id\":");
    write_id(o, ev);

    /* The rest only when present, in a fixed order. */
    if (ev->phase > 0 && ev->phase < 256) {
        char ph = (char)ev->phase;
        KEY(o, ",\"ph\":");
        json_write_string(o, &ph, 1);
    }
    if (f & TREAD_HAS_TTS) {
        KEY(o, ",\"tts_ns\":");
        json_write_i64(o, ev->tts);
    }
    if (f & TREAD_HAS_TDUR) {
        KEY(o, ",\"tdur_ns\":");
        json_write_i64(o, ev->tdur);
    }
    const char *scope = scope_name(ev->scope);
    if (scope) {
        KEY(o, ",\"scope\":");
        json_write_cstring(o, scope);
    }
    OPT_STR(o, ",\"id_scope\":", ev->id_scope);
    if (f & TREAD_ID_LOCAL)
        KEY(o, ",\"id2\":\"local\"");
    else if (f & TREAD_ID_GLOBAL)
        KEY(o, ",\"id2\":\"global\"");
    OPT_STR(o, ",\"bind_id\":", ev->bind_id);
    if (f & TREAD_FLOW_IN)
        KEY(o, ",\"flow_in\":true");
    if (f & TREAD_FLOW_OUT)
        KEY(o, ",\"flow_out\":true");
    if (f & TREAD_BIND_ENCLOSING)
        KEY(o, ",\"bp\":\"e\"");
    OPT_STR(o, ",\"cname\":", ev->cname);
    OPT_STR(o, ",\"sf\":", ev->sf);
    OPT_STR(o, ",\"esf\":", ev->esf);
    if (ev->stack.data && ev->stack.len > 0) {
        KEY(o, ",\"stack\":");
        ndjson_write_args(w, &ev->stack, 0);
    }
    if (ev->estack.data && ev->estack.len > 0) {
        KEY(o, ",\"estack\":");
        ndjson_write_args(w, &ev->estack, 0);
    }
    OPT_STR(o, ",\"series\":", ev->series);
    if (f & TREAD_HAS_VALUE) {
        KEY(o, ",\"value\":");
        json_write_double(o, ev->value, ev->value_text.ptr,
                          ev->value_text.len);
    }
    if (ev->meta != TREAD_META_NONE) {
        KEY(o, ",\"meta\":");
        json_write_cstring(o, tread_meta_name(ev->meta));
    }
    OPT_STR(o, ",\"meta_str\":", ev->meta_str);
    if (f & TREAD_HAS_META_NUM) {
        KEY(o, ",\"meta_num\":");
        json_write_i64(o, ev->meta_num);
    }
    if (f & TREAD_HAS_CPU) {
        KEY(o, ",\"cpu\":");
        json_write_i64(o, ev->cpu);
    }
    OPT_STR(o, ",\"parent\":", ev->parent);
    if (f & TREAD_PID_IS_STRING)
        OPT_STR(o, ",\"pid_str\":", ev->pid_str);
    if (f & TREAD_TID_IS_STRING)
        OPT_STR(o, ",\"tid_str\":", ev->tid_str);
    if (f & TREAD_USE_ASYNC_TTS)
        KEY(o, ",\"use_async_tts\":true");
    if (f & TREAD_HAS_TIDELTA) {
        KEY(o, ",\"tidelta\":");
        json_write_i64(o, ev->tidelta);
    }
    if (f & TREAD_HAS_TICOUNT) {
        KEY(o, ",\"ticount\":");
        json_write_i64(o, ev->ticount);
    }
    if (f & TREAD_HAS_TRACK) {
        KEY(o, ",\"track_uuid\":\"");
        json_write_u64(o, ev->track_uuid);
        out_buf_putc(o, '"');
        KEY(o, ",\"track_kind\":");
        json_write_cstring(o, tread_track_kind_name(ev->track_kind));
    }
    if (f & TREAD_HAS_SEQ) {
        KEY(o, ",\"seq\":");
        json_write_u64(o, ev->seq_id);
    }
    if (f & TREAD_HAS_RAW_TS) {
        KEY(o, ",\"raw_ts\":");
        json_write_i64(o, ev->raw_ts);
        KEY(o, ",\"clock_id\":");
        json_write_u64(o, ev->clock_id);
    }
    if (f & TREAD_VALUE_IS_INT) {
        KEY(o, ",\"value_int\":");
        json_write_i64(o, ev->value_int);
    }
    if (ev->flow_ids.n) {
        KEY(o, ",\"flow_ids\":");
        write_ids(o, ev->flow_ids);
    }
    if (ev->terminating_flow_ids.n) {
        KEY(o, ",\"terminating_flow_ids\":");
        write_ids(o, ev->terminating_flow_ids);
    }
    if (f & TREAD_HAS_PROVIDER) {
        KEY(o, ",\"provider_id\":");
        json_write_u64(o, ev->provider_id);
        OPT_STR(o, ",\"provider\":", ev->provider_name);
    }
    if (f & (TREAD_NAME_UNRESOLVED | TREAD_CAT_UNRESOLVED | TREAD_THREAD_UNRESOLVED |
             TREAD_TRACK_UNRESOLVED)) {
        KEY(o, ",\"unresolved\":[");
        const char *sep = "";
        if (f & TREAD_NAME_UNRESOLVED) {
            out_buf_write(o, "\"name\"", 6);
            sep = ",";
        }
        if (f & TREAD_CAT_UNRESOLVED) {
            out_buf_write(o, sep, strlen(sep));
            out_buf_write(o, "\"cat\"", 5);
            sep = ",";
        }
        if (f & TREAD_THREAD_UNRESOLVED) {
            out_buf_write(o, sep, strlen(sep));
            out_buf_write(o, "\"thread\"", 8);
            sep = ",";
        }
        if (f & TREAD_TRACK_UNRESOLVED) {
            out_buf_write(o, sep, strlen(sep));
            out_buf_write(o, "\"track\"", 7);
        }
        out_buf_putc(o, ']');
    }

    KEY(o, ",\"args\":");
    ndjson_write_args(w, &ev->args, 1);
    out_buf_write(o, "}\n", 2);

    int nomem = w->nomem;
    w->nomem = 0;
    return nomem ? -1 : 0;
}
