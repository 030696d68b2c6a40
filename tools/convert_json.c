/* convert_json: see convert_json.h and doc/convert.md. */
#include "convert_json.h"

#include <math.h>
#include <string.h>

#include "json_write.h"

void convert_json_init(convert_json *w)
{
    ndjson_writer_init(&w->args, NULL);
}

void convert_json_free(convert_json *w)
{
    ndjson_writer_free(&w->args);
}

void convert_json_write_us(out_buf *o, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0)
        out_buf_putc(o, '-');
    json_write_u64(o, a / 1000);
    unsigned r = (unsigned)(a % 1000);
    if (r) {
        char frac[4] = {'.', (char)('0' + r / 100), (char)('0' + r / 10 % 10),
                        (char)('0' + r % 10)};
        out_buf_write(o, frac, 4);
    }
}

/* The phase letter of a kind, for events from formats without one. */
static char phase_of_kind(tread_event_kind k)
{
    switch (k) {
    case TREAD_EVENT_SLICE_BEGIN: return 'B';
    case TREAD_EVENT_SLICE_END: return 'E';
    case TREAD_EVENT_COMPLETE: return 'X';
    case TREAD_EVENT_INSTANT: return 'i';
    case TREAD_EVENT_COUNTER: return 'C';
    case TREAD_EVENT_ASYNC_BEGIN: return 'b';
    case TREAD_EVENT_ASYNC_STEP: return 'n';
    case TREAD_EVENT_ASYNC_END: return 'e';
    case TREAD_EVENT_FLOW_BEGIN: return 's';
    case TREAD_EVENT_FLOW_STEP: return 't';
    case TREAD_EVENT_FLOW_END: return 'f';
    case TREAD_EVENT_SAMPLE: return 'P';
    case TREAD_EVENT_OBJECT_NEW: return 'N';
    case TREAD_EVENT_OBJECT_SNAPSHOT: return 'O';
    case TREAD_EVENT_OBJECT_DELETE: return 'D';
    case TREAD_EVENT_METADATA: return 'M';
    case TREAD_EVENT_MEMORY_DUMP: return 'v';
    case TREAD_EVENT_CONTEXT_ENTER: return '(';
    case TREAD_EVENT_CONTEXT_LEAVE: return ')';
    case TREAD_EVENT_ID_LINK: return '=';
    /* No JSON phase: written as instants (doc/convert.md). */
    case TREAD_EVENT_CONTEXT_SWITCH:
    case TREAD_EVENT_WAKEUP:
    case TREAD_EVENT_LOG:
        return 'i';
    default:
        return 0;
    }
}

/* The kind the JSON decoder gives a phase (lib/core/phase.c). */
static tread_event_kind kind_of_phase(int ph)
{
    switch (ph) {
    case 'i': case 'I': case 'R': return TREAD_EVENT_INSTANT;
    case 'b': case 'S': return TREAD_EVENT_ASYNC_BEGIN;
    case 'n': case 'T': case 'p': return TREAD_EVENT_ASYNC_STEP;
    case 'e': case 'F': return TREAD_EVENT_ASYNC_END;
    case 'V': return TREAD_EVENT_MEMORY_DUMP;
    case 'c': return TREAD_EVENT_CLOCK_SYNC;
    default:
        for (int k = 0; k < TREAD_EVENT_KIND_COUNT_; k++)
            if (phase_of_kind((tread_event_kind)k) == ph &&
                k != TREAD_EVENT_CONTEXT_SWITCH && k != TREAD_EVENT_WAKEUP &&
                k != TREAD_EVENT_LOG)
                return (tread_event_kind)k;
        return TREAD_EVENT_UNKNOWN;
    }
}

/* The event's own phase when the JSON decoder reads it back as the same
 * kind (Perfetto's atrace 'N' instants would not be), else the kind's. */
char convert_phase_of(const tread_event *ev)
{
    if (ev->phase > ' ' && ev->phase < 127 &&
        kind_of_phase(ev->phase) == ev->kind)
        return (char)ev->phase;
    return phase_of_kind(ev->kind);
}

cvj_class convert_json_classify(const tread_event *ev)
{
    if (ev->kind == TREAD_EVENT_METADATA) {
        switch (ev->meta) {
        case TREAD_META_PROCESS_NAME:
        case TREAD_META_THREAD_NAME:
        case TREAD_META_PROCESS_SORT_INDEX:
        case TREAD_META_THREAD_SORT_INDEX:
        case TREAD_META_PROCESS_LABELS:
            return CVJ_METADATA;
        case TREAD_META_TRACK_DESCRIPTOR:
            /* a named thread or process track names that thread/process */
            if (!ev->meta_str.len || !(ev->flags & TREAD_HAS_PID))
                return CVJ_SKIP;
            if (ev->track_kind == TREAD_TRACK_THREAD ||
                ev->track_kind == TREAD_TRACK_PROCESS)
                return CVJ_METADATA;
            return CVJ_SKIP;
        case TREAD_META_TRACE:
            return CVJ_SKIP; /* top-level keys: see doc/convert.md */
        default:
            return CVJ_EVENT;
        }
    }
    /* JSON has no NaN or infinities: such a counter value has no record */
    if (ev->kind == TREAD_EVENT_COUNTER && (ev->flags & TREAD_HAS_VALUE) &&
        !isfinite(ev->value))
        return CVJ_SKIP;
    if (ev->kind == TREAD_EVENT_STACK_FRAME || ev->kind == TREAD_EVENT_BLOB ||
        (ev->kind == TREAD_EVENT_CLOCK_SYNC && ev->phase != 'c'))
        return CVJ_SKIP;
    if (ev->kind == TREAD_EVENT_UNKNOWN && !(ev->phase > ' ' && ev->phase < 127))
        return CVJ_SKIP;
    return CVJ_EVENT;
}

#define LIT(o, s) out_buf_write((o), s, sizeof s - 1)

static void key_str(out_buf *o, const char *k, size_t kn, tread_str s)
{
    out_buf_write(o, k, kn);
    json_write_string(o, s.ptr ? s.ptr : "", s.ptr ? s.len : 0);
}
#define KEY_STR(o, lit, s) key_str((o), lit, sizeof lit - 1, (s))

static void write_pid_tid(out_buf *o, const tread_event *ev)
{
    uint32_t f = ev->flags;
    if (f & TREAD_HAS_PID) {
        if ((f & TREAD_PID_IS_STRING) && ev->pid_str.ptr)
            KEY_STR(o, ",\"pid\":", ev->pid_str);
        else {
            LIT(o, ",\"pid\":");
            json_write_i64(o, ev->pid);
        }
    }
    if (f & TREAD_HAS_TID) {
        if ((f & TREAD_TID_IS_STRING) && ev->tid_str.ptr)
            KEY_STR(o, ",\"tid\":", ev->tid_str);
        else {
            LIT(o, ",\"tid\":");
            json_write_i64(o, ev->tid);
        }
    }
}

static void write_id_value(out_buf *o, const tread_event *ev)
{
    if (ev->id.ptr)
        json_write_string(o, ev->id.ptr, ev->id.len);
    else
        json_write_hex_string(o, ev->id_num);
}

static void write_ids(out_buf *o, const tread_event *ev)
{
    uint32_t f = ev->flags;
    if (!(f & TREAD_HAS_ID) && !(f & TREAD_HAS_ID_NUM) && !ev->id.ptr)
        return;
    if (f & TREAD_ID_LOCAL) {
        LIT(o, ",\"id2\":{\"local\":");
        write_id_value(o, ev);
        out_buf_putc(o, '}');
    } else if (f & TREAD_ID_GLOBAL) {
        LIT(o, ",\"id2\":{\"global\":");
        write_id_value(o, ev);
        out_buf_putc(o, '}');
    } else {
        LIT(o, ",\"id\":");
        write_id_value(o, ev);
    }
}

static void write_counter_args(out_buf *o, const tread_event *ev)
{
    LIT(o, ",\"args\":{");
    if (ev->flags & TREAD_HAS_VALUE) {
        const char *s = ev->series.ptr ? ev->series.ptr : "value";
        size_t n = ev->series.ptr ? ev->series.len : 5;
        json_write_string(o, s, n);
        out_buf_putc(o, ':');
        if (ev->value_text.ptr)
            json_write_double(o, ev->value, ev->value_text.ptr,
                              ev->value_text.len);
        else if (ev->flags & TREAD_VALUE_IS_INT)
            json_write_i64(o, ev->value_int);
        else
            json_write_double(o, ev->value, NULL, 0);
    }
    out_buf_putc(o, '}');
}

/* A metadata record: name and its one argument (the event's own args when
 * they hold it, as JSON input's do). */
static void write_meta(convert_json *w, out_buf *o, const tread_event *ev)
{
    const char *name = NULL, *arg = NULL;
    int is_str = 1;
    tread_meta m = ev->meta;
    if (m == TREAD_META_TRACK_DESCRIPTOR)
        m = ev->track_kind == TREAD_TRACK_THREAD ? TREAD_META_THREAD_NAME
                                                 : TREAD_META_PROCESS_NAME;
    switch (m) {
    case TREAD_META_PROCESS_NAME: name = "process_name", arg = "name"; break;
    case TREAD_META_THREAD_NAME: name = "thread_name", arg = "name"; break;
    case TREAD_META_PROCESS_LABELS: name = "process_labels", arg = "labels"; break;
    case TREAD_META_PROCESS_SORT_INDEX:
        name = "process_sort_index", arg = "sort_index", is_str = 0; break;
    case TREAD_META_THREAD_SORT_INDEX:
        name = "thread_sort_index", arg = "sort_index", is_str = 0; break;
    case TREAD_META_PROCESS_UPTIME_SECONDS:
        name = "process_uptime_seconds", arg = "uptime", is_str = 0; break;
    case TREAD_META_NUM_CPUS: name = "num_cpus", arg = "number", is_str = 0; break;
    default: break;
    }
    LIT(o, "\"ph\":\"M\",\"name\":");
    json_write_cstring(o, name);
    if (ev->cat.ptr)
        KEY_STR(o, ",\"cat\":", ev->cat);
    if (ev->flags & TREAD_HAS_TS) {
        LIT(o, ",\"ts\":");
        convert_json_write_us(o, ev->ts);
    }
    write_pid_tid(o, ev);
    if (ev->meta == TREAD_META_TRACK_DESCRIPTOR &&
        ev->track_kind == TREAD_TRACK_THREAD && !(ev->flags & TREAD_HAS_TID)) {
        LIT(o, ",\"tid\":");
        json_write_i64(o, ev->tid);
    }
    tread_arg found;
    if (ev->meta != TREAD_META_TRACK_DESCRIPTOR &&
        tread_args_find(&ev->args, arg, strlen(arg), &found)) {
        LIT(o, ",\"args\":");
        ndjson_write_args(&w->args, &ev->args, 1);
        out_buf_putc(o, '}');
        return;
    }
    LIT(o, ",\"args\":{");
    json_write_cstring(o, arg);
    out_buf_putc(o, ':');
    if (is_str)
        json_write_string(o, ev->meta_str.ptr ? ev->meta_str.ptr : "",
                          ev->meta_str.ptr ? ev->meta_str.len : 0);
    else
        json_write_i64(o, ev->meta_num);
    LIT(o, "}}");
}

int convert_json_event(convert_json *w, out_buf *o, const tread_event *ev)
{
    uint32_t f = ev->flags;
    w->args.out = o;
    out_buf_putc(o, '{');
    if (ev->kind == TREAD_EVENT_METADATA && ev->meta != TREAD_META_OTHER &&
        ev->meta != TREAD_META_NONE) {
        write_meta(w, o, ev);
        int nomem = w->args.nomem;
        w->args.nomem = 0;
        return nomem ? -1 : 0;
    }
    char ph = convert_phase_of(ev);
    int no_phase = ev->phase == 0 && ph == 'i' &&
                   ev->kind != TREAD_EVENT_INSTANT;
    /* "ph" first: every record has it; absent fields stay absent */
    LIT(o, "\"ph\":");
    json_write_string(o, &ph, 1);
    if (ev->name.ptr)
        KEY_STR(o, ",\"name\":", ev->name);
    else if (no_phase) {
        LIT(o, ",\"name\":");
        json_write_cstring(o, tread_event_kind_name(ev->kind));
    }
    if (ev->cat.ptr)
        KEY_STR(o, ",\"cat\":", ev->cat);
    else if (no_phase) {
        /* keeps the kind visible: "tread.context_switch" */
        LIT(o, ",\"cat\":\"tread.");
        out_buf_puts(o, tread_event_kind_name(ev->kind));
        out_buf_putc(o, '"');
    }
    if (f & TREAD_HAS_TS) {
        LIT(o, ",\"ts\":");
        convert_json_write_us(o, ev->ts);
    }
    if (f & TREAD_HAS_DUR) {
        LIT(o, ",\"dur\":");
        convert_json_write_us(o, ev->dur);
    }
    if (f & TREAD_HAS_TTS) {
        LIT(o, ",\"tts\":");
        convert_json_write_us(o, ev->tts);
    }
    if (f & TREAD_HAS_TDUR) {
        LIT(o, ",\"tdur\":");
        convert_json_write_us(o, ev->tdur);
    }
    write_pid_tid(o, ev);
    write_ids(o, ev);
    if (ev->id_scope.ptr)
        KEY_STR(o, ",\"scope\":", ev->id_scope);
    if (ev->bind_id.ptr)
        KEY_STR(o, ",\"bind_id\":", ev->bind_id);
    if (f & TREAD_FLOW_IN)
        LIT(o, ",\"flow_in\":true");
    if (f & TREAD_FLOW_OUT)
        LIT(o, ",\"flow_out\":true");
    if (f & TREAD_BIND_ENCLOSING)
        LIT(o, ",\"bp\":\"e\"");
    switch (ev->scope) {
    case TREAD_SCOPE_GLOBAL: LIT(o, ",\"s\":\"g\""); break;
    case TREAD_SCOPE_PROCESS: LIT(o, ",\"s\":\"p\""); break;
    case TREAD_SCOPE_THREAD: LIT(o, ",\"s\":\"t\""); break;
    default: break;
    }
    if (ev->cname.ptr)
        KEY_STR(o, ",\"cname\":", ev->cname);
    if (ev->sf.ptr)
        KEY_STR(o, ",\"sf\":", ev->sf);
    if (ev->esf.ptr)
        KEY_STR(o, ",\"esf\":", ev->esf);
    if (ev->stack.data && ev->stack.len) {
        LIT(o, ",\"stack\":");
        ndjson_write_args(&w->args, &ev->stack, 0);
    }
    if (ev->estack.data && ev->estack.len) {
        LIT(o, ",\"estack\":");
        ndjson_write_args(&w->args, &ev->estack, 0);
    }
    if (f & TREAD_USE_ASYNC_TTS)
        LIT(o, ",\"use_async_tts\":1");
    if (f & TREAD_HAS_TIDELTA) {
        LIT(o, ",\"tidelta\":");
        json_write_i64(o, ev->tidelta);
    }
    if (f & TREAD_HAS_TICOUNT) {
        LIT(o, ",\"ticount\":");
        json_write_i64(o, ev->ticount);
    }
    if (ev->kind == TREAD_EVENT_COUNTER) {
        write_counter_args(o, ev);
    } else {
        LIT(o, ",\"args\":");
        ndjson_write_args(&w->args, &ev->args, 1);
    }
    out_buf_putc(o, '}');
    int nomem = w->args.nomem;
    w->args.nomem = 0;
    return nomem ? -1 : 0;
}
