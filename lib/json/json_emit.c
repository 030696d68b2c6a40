/* Chrome JSON records to tread_events: phases, fields, counters, metadata,
 * samples, stack frames, Fuchsia system events, top-level keys. */
#include "json/json_decoder.h"
#include "core/phase.h"
#include "core/args.h"
#include "core/timeconv.h"

#include <string.h>

typedef struct emit_ctx {
    json_decoder *d;
    json_record *r;
    int quiet;          /* resuming a record: its warnings were given */
    tread_json_raw raw;
} emit_ctx;

static const unsigned char *field(const json_record *r, int f)
{
    return r->field[f] ? r->tok.data + r->field[f] - 1 : NULL;
}

static tread_str tok_text(const unsigned char *t)
{
    tread_str s = {NULL, 0};
    if (t && (t[0] == TOK_STR || t[0] == TOK_NUM))
        s.ptr = args_tok_str(t, &s.len);
    return s;
}

/* The tokens strictly inside the container whose BEGIN is at t. */
static tread_args inner(const json_record *r, const unsigned char *t)
{
    tread_args a = {.data = NULL};
    if (!t || (t[0] != TOK_DICT_BEGIN && t[0] != TOK_ARRAY_BEGIN))
        return a;
    size_t off = (size_t)(t - r->tok.data);
    size_t end = args_skip_value(r->tok.data, r->tok.len, off);
    a.data = t + 1;
    a.len = end - off - 2;
    return a;
}

/* inner() of field f's value, with the end the fast path noted. */
static tread_args inner_field(const json_record *r, int f)
{
    if (((r->cend_ok >> f) & 1) && r->cend_at[f] == r->field[f]) {
        tread_args a = {.data = r->tok.data + r->field[f]};
        a.len = r->cend[f] - r->field[f] - 1;
        return a;
    }
    return inner(r, field(r, f));
}

/* Field f's number as the fast path read it (the usual shapes only). */
static int fast_num(const json_record *r, int f, int64_t *m, int *frac)
{
    if (!((r->num_ok >> f) & 1) || r->num_at[f] != r->field[f])
        return 0;
    *m = r->num[f];
    *frac = r->num_frac[f];
    return 1;
}

static void bad_field(emit_ctx *c, const char *name, const char *why)
{
    if (!c->quiet)
        tread__warn(c->d->p, TREAD_WARN_BAD_FIELD, c->r->offset,
                "field \"%s\" %s: ignored", name, why);
}

/* A time in microseconds (number or numeric string) to ns. */
static int get_time(emit_ctx *c, int f, const char *name, int64_t *out)
{
    static const int64_t scale[4] = {1000, 100, 10, 1};
    int64_t m;
    int frac;
    if (fast_num(c->r, f, &m, &frac)) {
        *out = m * scale[frac]; /* 15 digits: no overflow */
        return 1;
    }
    const unsigned char *t = field(c->r, f);
    if (!t || t[0] == TOK_NULL)
        return 0;
    tread_str s = tok_text(t);
    if (!s.ptr) {
        bad_field(c, name, "is not a number");
        return 0;
    }
    int rc = timeconv_decimal_scaled(s.ptr, s.len, 3, out);
    if (rc == -1) {
        bad_field(c, name, "is not a number");
        return 0;
    }
    if (rc == -2) {
        if (!c->quiet)
            tread__warn(c->d->p, TREAD_WARN_NUMBER_RANGE, c->r->offset,
                    "field \"%s\" (%.*s us) is out of the int64 nanosecond range: ignored",
                    name, (int)(s.len > 40 ? 40 : s.len), s.ptr);
        return 0;
    }
    return 1;
}

/* An integer field (number, or numeric string; fractions round). */
static int get_int(emit_ctx *c, const unsigned char *t, const char *name, int64_t *out)
{
    if (!t || t[0] == TOK_NULL)
        return 0;
    tread_str s = tok_text(t);
    if (s.ptr && timeconv_decimal_scaled(s.ptr, s.len, 0, out) == 0)
        return 1;
    if (t[0] == TOK_TRUE || t[0] == TOK_FALSE) {
        *out = t[0] == TOK_TRUE;
        return 1;
    }
    if (name)
        bad_field(c, name, "is not an integer");
    return 0;
}

static int get_bool(const unsigned char *t)
{
    if (!t)
        return 0;
    if (t[0] == TOK_TRUE)
        return 1;
    if (t[0] == TOK_NUM) {
        size_t n;
        const char *s = args_tok_str(t, &n);
        return !(n == 1 && s[0] == '0');
    }
    if (t[0] == TOK_STR) {
        size_t n;
        const char *s = args_tok_str(t, &n);
        return n == 4 && memcmp(s, "true", 4) == 0;
    }
    return 0;
}

/* pid/tid: integers as they are; other text keeps its text and gets a
 * stable synthetic id (FNV-1a, top bit clear) so callers can key on it. */
static int get_ident(emit_ctx *c, int f, int64_t *num, tread_str *text, uint32_t *flags,
                     uint32_t string_flag)
{
    int64_t m;
    int frac;
    if (fast_num(c->r, f, &m, &frac) && frac == 0) {
        *num = m; /* a number: no text */
        return 1;
    }
    const unsigned char *t = field(c->r, f);
    if (!t || t[0] == TOK_NULL)
        return 0;
    tread_str s = tok_text(t);
    if (!s.ptr) {
        bad_field(c, f == JF_PID ? "pid" : "tid", "is not a number or string");
        return 0;
    }
    int64_t i;
    uint64_t u;
    int kind = timeconv_parse_integer(s.ptr, s.len, &i, &u);
    if (kind == TIMECONV_INT) {
        *num = i;
        if (t[0] == TOK_STR) {
            *text = s;
            *flags |= string_flag;
        }
        return 1;
    }
    /* a number written 1.0 or 1e3 is that number (a fraction rounds) */
    if (t[0] == TOK_NUM && timeconv_decimal_scaled(s.ptr, s.len, 0, &i) == 0) {
        *num = i;
        return 1;
    }
    *num = (int64_t)(timeconv_hash64(s.ptr, s.len) & (uint64_t)INT64_MAX);
    *text = s;
    *flags |= string_flag;
    return 1;
}

static void parse_id_num(tread_event *ev)
{
    const char *s = ev->id.ptr;
    size_t n = ev->id.len, k = 0;
    uint64_t v = 0;
    int base = 10;
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        k = 2;
    }
    if (k == n || n - k > (base == 16 ? 16u : 20u))
        return;
    for (; k < n; k++) {
        unsigned dgt;
        char ch = s[k];
        if (ch >= '0' && ch <= '9') dgt = (unsigned)(ch - '0');
        else if (base == 16 && ch >= 'a' && ch <= 'f') dgt = (unsigned)(ch - 'a' + 10);
        else if (base == 16 && ch >= 'A' && ch <= 'F') dgt = (unsigned)(ch - 'A' + 10);
        else return;
        if (base == 10 && v > (UINT64_MAX - dgt) / 10)
            return;
        v = v * (uint64_t)base + dgt;
    }
    ev->id_num = v;
    ev->flags |= TREAD_HAS_ID_NUM;
}

static void get_id(emit_ctx *c, tread_event *ev)
{
    const unsigned char *t = field(c->r, JF_ID);
    tread_str s = tok_text(t);
    if (s.ptr) {
        ev->id = s;
        ev->flags |= TREAD_HAS_ID;
    }
    const unsigned char *t2 = field(c->r, JF_ID2);
    if (t2 && t2[0] == TOK_DICT_BEGIN) {
        tread_args a = inner_field(c->r, JF_ID2);
        tread_arg v;
        if (tread_args_find(&a, "local", 5, &v) && (v.type == TREAD_ARG_STRING || v.text.ptr)) {
            ev->flags |= TREAD_HAS_ID | TREAD_ID_LOCAL;
            ev->id = v.type == TREAD_ARG_STRING ? v.v.s : v.text;
        } else if (tread_args_find(&a, "global", 6, &v) && (v.type == TREAD_ARG_STRING || v.text.ptr)) {
            ev->flags |= TREAD_HAS_ID | TREAD_ID_GLOBAL;
            ev->id = v.type == TREAD_ARG_STRING ? v.v.s : v.text;
        }
    }
    if (ev->flags & TREAD_HAS_ID)
        parse_id_num(ev);
}

/* Chrome's argument filter writes "args": "__stripped__". */
static int is_stripped(const unsigned char *t)
{
    tread_str s = tok_text(t);
    return t[0] == TOK_STR && s.len == 12 && memcmp(s.ptr, "__stripped__", 12) == 0;
}

/* Fields common to every record shape. */
static void fill_common(emit_ctx *c, tread_event *ev)
{
    json_record *r = c->r;
    const unsigned char *t;
    ev->offset = r->offset;
    ev->raw = &c->raw;
    ev->name = tok_text(field(r, JF_NAME));
    ev->cat = tok_text(field(r, JF_CAT));
    if (get_time(c, JF_TS, "ts", &ev->ts)) ev->flags |= TREAD_HAS_TS;
    if (get_ident(c, JF_PID, &ev->pid, &ev->pid_str, &ev->flags, TREAD_PID_IS_STRING))
        ev->flags |= TREAD_HAS_PID;
    if (get_ident(c, JF_TID, &ev->tid, &ev->tid_str, &ev->flags, TREAD_TID_IS_STRING))
        ev->flags |= TREAD_HAS_TID;
    else
        ev->tid = ev->pid;
    if ((t = field(r, JF_CPU)) && get_int(c, t, "cpu", &ev->cpu))
        ev->flags |= TREAD_HAS_CPU;
    ev->sf = tok_text(field(r, JF_SF));
    ev->stack = inner_field(r, JF_STACK);
    t = field(r, JF_ARGS);
    if (t) {
        if (t[0] == TOK_DICT_BEGIN)
            ev->args = inner_field(r, JF_ARGS);
        else if (!(t[0] == TOK_ARRAY_BEGIN && t[1] == TOK_ARRAY_END) && t[0] != TOK_NULL &&
                 !is_stripped(t))
            bad_field(c, "args", "is not an object");
    }
}

static void fill_event_fields(emit_ctx *c, tread_event *ev)
{
    json_record *r = c->r;
    const unsigned char *t;
    if (get_time(c, JF_DUR, "dur", &ev->dur)) ev->flags |= TREAD_HAS_DUR;
    if (get_time(c, JF_TTS, "tts", &ev->tts)) ev->flags |= TREAD_HAS_TTS;
    if (get_time(c, JF_TDUR, "tdur", &ev->tdur)) ev->flags |= TREAD_HAS_TDUR;
    get_id(c, ev);
    ev->id_scope = tok_text(field(r, JF_SCOPE));
    ev->bind_id = tok_text(field(r, JF_BIND_ID));
    ev->cname = tok_text(field(r, JF_CNAME));
    ev->esf = tok_text(field(r, JF_ESF));
    ev->estack = inner_field(r, JF_ESTACK);
    if (get_bool(field(r, JF_FLOW_IN))) ev->flags |= TREAD_FLOW_IN;
    if (get_bool(field(r, JF_FLOW_OUT))) ev->flags |= TREAD_FLOW_OUT;
    if (get_bool(field(r, JF_USE_ASYNC_TTS))) ev->flags |= TREAD_USE_ASYNC_TTS;
    tread_str bp = tok_text(field(r, JF_BP));
    if (bp.len == 1 && bp.ptr[0] == 'e') ev->flags |= TREAD_BIND_ENCLOSING;
    tread_str s = tok_text(field(r, JF_S));
    if (s.len == 1)
        ev->scope = s.ptr[0] == 'g' ? TREAD_SCOPE_GLOBAL : s.ptr[0] == 'p' ? TREAD_SCOPE_PROCESS
                    : s.ptr[0] == 't' ? TREAD_SCOPE_THREAD : TREAD_SCOPE_NONE;
    if ((t = field(r, JF_TIDELTA)) && get_int(c, t, "tidelta", &ev->tidelta)) ev->flags |= TREAD_HAS_TIDELTA;
    if ((t = field(r, JF_TICOUNT)) && get_int(c, t, "ticount", &ev->ticount)) ev->flags |= TREAD_HAS_TICOUNT;
}

static void fill_metadata(tread_event *ev)
{
    static const struct { const char *name; tread_meta meta; const char *arg; int numeric; } table[] = {
        {"process_name", TREAD_META_PROCESS_NAME, "name", 0},
        {"thread_name", TREAD_META_THREAD_NAME, "name", 0},
        {"process_sort_index", TREAD_META_PROCESS_SORT_INDEX, "sort_index", 1},
        {"thread_sort_index", TREAD_META_THREAD_SORT_INDEX, "sort_index", 1},
        {"process_labels", TREAD_META_PROCESS_LABELS, "labels", 0},
        {"process_uptime_seconds", TREAD_META_PROCESS_UPTIME_SECONDS, "uptime", 1},
        {"num_cpus", TREAD_META_NUM_CPUS, "number", 1},
    };
    ev->meta = TREAD_META_OTHER;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        size_t n = strlen(table[i].name);
        if (ev->name.len != n || memcmp(ev->name.ptr, table[i].name, n) != 0)
            continue;
        ev->meta = table[i].meta;
        tread_arg v;
        if (!tread_args_find(&ev->args, table[i].arg, strlen(table[i].arg), &v))
            return;
        if (table[i].numeric) {
            if (v.type == TREAD_ARG_INT) {
                ev->meta_num = v.v.i;
                ev->flags |= TREAD_HAS_META_NUM;
            } else if ((v.type == TREAD_ARG_DOUBLE || v.type == TREAD_ARG_STRING) &&
                       timeconv_decimal_scaled(v.type == TREAD_ARG_STRING ? v.v.s.ptr : v.text.ptr,
                                               v.type == TREAD_ARG_STRING ? v.v.s.len : v.text.len,
                                               0, &ev->meta_num) == 0) {
                ev->flags |= TREAD_HAS_META_NUM;
            }
        } else if (v.type == TREAD_ARG_STRING) {
            ev->meta_str = v.v.s;
        }
        return;
    }
}

/* The series name of a counter leaf: its key, or the dotted path of keys
 * when it sits in nested dicts (DevTools' UpdateCounters: args.data.*). */
static int series_name(emit_ctx *c, const tread_str *path, int depth, tread_str key,
                       tread_str *out)
{
    if (depth == 0) {
        *out = key;
        return 0;
    }
    tread_buf *b = &c->d->series;
    b->len = 0;
    int rc = 0;
    for (int i = 0; i < depth && !rc; i++) {
        rc = tread_buf_append(b, path[i].ptr, path[i].len);
        if (!rc)
            rc = tread_buf_append(b, ".", 1);
    }
    if (!rc)
        rc = tread_buf_append(b, key.ptr, key.len);
    if (!rc)
        rc = tread_buf_append(b, "", 1);
    if (rc)
        return -1;
    out->ptr = (const char *)b->data;
    out->len = b->len - 1;
    return 0;
}

/* C: one event per numeric leaf of args (nested dicts flattened to dotted
 * series names). Returns 1 when stopped before the last series. */
static int emit_counters(emit_ctx *c, tread_event *ev, size_t first)
{
    enum { MAX_PATH = 16 };
    tread_str path[MAX_PATH];
    tread_args_iter it;
    tread_arg a;
    size_t index = 0, series = 0;
    tread_args_iter_init(&it, &ev->args);
    while (tread_args_next(&it, &a)) {
        if (a.type == TREAD_ARG_DICT_END)
            continue;
        if (a.type == TREAD_ARG_DICT_BEGIN && a.depth < MAX_PATH && a.key.ptr) {
            path[a.depth] = a.key;
            continue;
        }
        if (a.type == TREAD_ARG_DICT_BEGIN || a.type == TREAD_ARG_ARRAY_BEGIN)
            tread_args_skip(&it);
        if (index++ < first)
            continue;
        double v;
        tread_str text = a.text;
        int64_t scratch;
        if (a.type == TREAD_ARG_INT) v = (double)a.v.i;
        else if (a.type == TREAD_ARG_UINT) v = (double)a.v.u;
        else if (a.type == TREAD_ARG_DOUBLE) v = a.v.d;
        else if (a.type == TREAD_ARG_STRING && a.v.s.len &&
                 timeconv_decimal_scaled(a.v.s.ptr, a.v.s.len, 0, &scratch) != -1) {
            v = timeconv_parse_double(a.v.s.ptr, a.v.s.len);
            text = a.v.s;
        } else {
            tread__warn(c->d->p, TREAD_WARN_BAD_COUNTER_VALUE, c->r->offset,
                        "counter series \"%.*s\" is not a number: skipped",
                        (int)(a.key.len > 60 ? 60 : a.key.len), a.key.ptr ? a.key.ptr : "");
            continue;
        }
        if (series_name(c, path, a.depth, a.key, &ev->series)) {
            tread__fail(c->d->p, TREAD_ERROR_NOMEM, c->r->offset, "out of memory");
            return 0;
        }
        ev->value = v;
        ev->value_text = text;
        ev->flags |= TREAD_HAS_VALUE;
        series++;
        tread__emit(c->d->p, ev);
        if (c->d->p->stop_requested && it.p < it.end) {
            c->d->emit_next = index;
            return 1;
        }
    }
    if (series == 0 && first == 0)
        tread__warn(c->d->p, TREAD_WARN_BAD_COUNTER_VALUE, c->r->offset,
                    "counter event \"%.*s\" has no numeric series",
                    (int)(ev->name.len > 60 ? 60 : ev->name.len), ev->name.ptr ? ev->name.ptr : "");
    return 0;
}

/* A V8 profile record (Profile, ProfileChunk, CpuProfile), or 0. */
static int profile_kind(emit_ctx *c, const tread_event *ev)
{
    int k = json_profile_kind((const unsigned char *)ev->name.ptr, ev->name.len, ev->phase, c->d);
    if (k == JP_REC_CPUPROFILE) {
        tread_arg a;
        if (!tread_args_find(&ev->args, "data.cpuProfile", 15, &a) ||
            a.type != TREAD_ARG_DICT_BEGIN)
            return 0;
    }
    return k;
}

static void emit_trace_event(emit_ctx *c, tread_event *ev, size_t first, int *stopped)
{
    tread_str ph = tok_text(field(c->r, JF_PH));
    fill_common(c, ev);
    fill_event_fields(c, ev);
    if (ph.len == 1) {
        ev->phase = (unsigned char)ph.ptr[0];
        ev->kind = tread__kind_of_phase(ev->phase);
    }
    int pk = ev->name.ptr ? profile_kind(c, ev) : 0;
    if (pk) {
        *stopped = json_profile_emit(c->d, ev, pk, first > 0);
        return;
    }
    if (ev->kind == TREAD_EVENT_UNKNOWN) {
        if (first == 0)
            tread__warn(c->d->p, TREAD_WARN_UNKNOWN_PHASE, c->r->offset,
                        ph.ptr ? "unknown phase \"%.*s\": delivered as a raw event"
                               : "event without a phase%.*s: delivered as a raw event",
                        (int)(ph.len > 8 ? 8 : ph.len), ph.ptr ? ph.ptr : "");
    } else if (ev->kind == TREAD_EVENT_METADATA) {
        fill_metadata(ev);
    } else if (ev->kind == TREAD_EVENT_COUNTER) {
        *stopped = emit_counters(c, ev, first);
        return;
    }
    tread__emit(c->d->p, ev);
}

/* Fuchsia's JSON export: systemTraceEvents.events[] */
static void emit_system_event(emit_ctx *c, tread_event *ev)
{
    tread_str ph = tok_text(field(c->r, JF_PH));
    fill_common(c, ev);
    ev->args = (tread_args){.data = c->r->tok.data, .len = c->r->tok.len};
    ev->phase = ph.len == 1 ? (unsigned char)ph.ptr[0] : 0;
    switch (ev->phase) {
    case 'p':
        ev->kind = TREAD_EVENT_METADATA;
        ev->meta = TREAD_META_PROCESS_NAME;
        ev->meta_str = ev->name;
        break;
    case 't':
        ev->kind = TREAD_EVENT_METADATA;
        ev->meta = TREAD_META_THREAD_NAME;
        ev->meta_str = ev->name;
        break;
    case 'k':
        ev->kind = TREAD_EVENT_CONTEXT_SWITCH;
        break;
    default:
        tread__warn(c->d->p, TREAD_WARN_UNKNOWN_PHASE, c->r->offset,
                    "unknown system event phase \"%.*s\": delivered as a raw event",
                    (int)(ph.len > 8 ? 8 : ph.len), ph.ptr ? ph.ptr : "");
        break;
    }
    tread__emit(c->d->p, ev);
}

/* A sample's weight: a number, or a string holding one ("3", " 2.5 "),
 * which is converted; anything else is said, not dropped silently. */
static void sample_weight(emit_ctx *c, const unsigned char *t, tread_event *ev)
{
    tread_arg a;
    args_decode_value(t, &a);
    if (a.type == TREAD_ARG_INT || a.type == TREAD_ARG_UINT || a.type == TREAD_ARG_DOUBLE) {
        ev->value = a.type == TREAD_ARG_INT ? (double)a.v.i
                    : a.type == TREAD_ARG_UINT ? (double)a.v.u : a.v.d;
        ev->value_text = a.text;
        ev->flags |= TREAD_HAS_VALUE;
        return;
    }
    if (a.type == TREAD_ARG_STRING) {
        const char *p = a.v.s.ptr;
        size_t n = a.v.s.len;
        int64_t check;
        while (n && (*p == ' ' || *p == '\t'))
            p++, n--;
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        if (n && timeconv_decimal_scaled(p, n, 0, &check) != -1) {
            ev->value = timeconv_parse_double(p, n);
            ev->value_text = a.v.s; /* as written (NUL-terminated) */
            ev->flags |= TREAD_HAS_VALUE;
            return;
        }
    }
    bad_field(c, "weight", "is not a number");
}

int json_emit_record(json_decoder *d, size_t first)
{
    json_record *r = &d->rec;
    emit_ctx c;
    c.d = d;
    c.r = r;
    c.quiet = first > 0;
    c.raw.section = r->section;
    c.raw.offset = r->offset;
    c.raw.length = d->last_good_off - r->offset; /* the record's last token ended there */
    c.raw.key.ptr = NULL;
    c.raw.key.len = 0;
    if (r->section == TREAD_JSON_STACK_FRAMES || r->section == TREAD_JSON_TOP_LEVEL) {
        c.raw.key.ptr = (const char *)r->key.data;
        c.raw.key.len = r->key.len ? r->key.len - 1 : 0;
    }
    c.raw.fields = (tread_args){.data = r->tok.data, .len = r->tok.len};
    if (first == 0)
        tread__emit_json_raw(d->p, &c.raw);

    tread_event ev;
    memset(&ev, 0, sizeof ev);
    int stopped = 0;
    switch (r->section) {
    case TREAD_JSON_TRACE_EVENTS:
        emit_trace_event(&c, &ev, first, &stopped);
        break;
    case TREAD_JSON_SAMPLES: {
        const unsigned char *t;
        fill_common(&c, &ev);
        ev.kind = TREAD_EVENT_SAMPLE;
        if ((t = field(r, JF_WEIGHT)) != NULL && t[0] != TOK_NULL)
            sample_weight(&c, t, &ev);
        tread__emit(d->p, &ev);
        break;
    }
    case TREAD_JSON_STACK_FRAMES:
        fill_common(&c, &ev);
        ev.kind = TREAD_EVENT_STACK_FRAME;
        ev.id = c.raw.key;
        ev.flags |= TREAD_HAS_ID;
        if (!ev.cat.ptr)
            ev.cat = tok_text(field(r, JF_CATEGORY));
        ev.parent = tok_text(field(r, JF_PARENT));
        tread__emit(d->p, &ev);
        break;
    case TREAD_JSON_SYSTEM_EVENTS:
        emit_system_event(&c, &ev);
        break;
    case TREAD_JSON_PROFILE_NODES:
        ev.offset = r->offset;
        ev.raw = &c.raw;
        stopped = json_profile_file_node(d, &ev);
        break;
    case TREAD_JSON_TOP_LEVEL:
        if (d->cpuprofile && first == 0 && c.raw.key.len == 9 &&
            memcmp(c.raw.key.ptr, "startTime", 9) == 0 && r->tok.len) {
            const unsigned char *v = r->tok.data + args_tok_size(r->tok.data);
            size_t n = 0;
            const char *s = tok_has_len(v[0]) ? args_tok_str(v, &n) : NULL;
            json_profile_file_start(d, s, n, v[0], r->offset);
        }
        ev.offset = r->offset;
        ev.raw = &c.raw;
        ev.kind = TREAD_EVENT_METADATA;
        ev.meta = TREAD_META_TRACE;
        ev.name = c.raw.key;
        ev.args = c.raw.fields;
        tread__emit(d->p, &ev);
        break;
    }
    return stopped;
}
