/*
 * FXT records to events: one function per record type of the format
 * document ("Record Types"), each reading the record's layout first
 * (a record that does not fit its size is a BAD_RECORD warning and is
 * skipped), then making its callbacks: the raw hook, warnings, events.
 * doc/formats/fxt.md has the table of what each record becomes.
 */
#include "fxt/fxt_decoder.h"
#include "fxt/fxt_time.h"
#include "fxt/fxt_wire.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- callbacks as steps ------------------------------------------------ */

static inline int step(fxt_decoder *d) { return d->step++ >= d->resume_step; }

static void rec_provider(fxt_decoder *d)
{
    const fxt_provider *pv = d->cur;
    d->rec.has_provider = !pv->implicit;
    d->rec.provider_id = pv->id;
    d->rec.provider_name.ptr = pv->name ? pv->name : "";
    d->rec.provider_name.len = pv->name ? pv->name_len : 0;
    d->actx.pv = pv;
}

static inline void begin_record(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t off)
{
    tread_fxt_record *rec = &d->rec;
    d->step = 0;
    d->raw_done = 0;
    rec->data = r;
    rec->len = len;
    rec->offset = off;
    rec->header = fxt_load64(r);
    rec->type = (unsigned)(rec->header & 15);
    rec->size_words = rec->type == FXT_REC_LARGE ? fxt_bits(rec->header, 4, 35)
                                                 : fxt_bits(rec->header, 4, 15);
    rec->args_offset = 0;
    rec->nargs = 0;
    d->actx.rec = r;
    d->actx.rec_end = r + len;
    d->actx.shadow = d->shadow;
    d->actx.nsynth = 0;
    rec_provider(d);
}

void fxt_begin_record(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t off)
{
    begin_record(d, r, len, off);
}

void fxt_emit_raw(fxt_decoder *d)
{
    if (d->raw_done)
        return;
    d->raw_done = 1;
    if (!step(d))
        return;
    d->c.records++;
    d->c.by_type[d->rec.type]++;
    tread__emit_fxt_record(d->p, &d->rec);
}

/* Returns 1 when the warning was made (not a step already taken). */
static int warn_v(fxt_decoder *d, tread_warning_kind kind, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 0)))
#endif
    ;
static int warn_v(fxt_decoder *d, tread_warning_kind kind, const char *fmt, va_list ap)
{
    fxt_emit_raw(d);
    if (!step(d))
        return 0;
    char msg[224];
    vsnprintf(msg, sizeof msg, fmt, ap);
    tread__warn(d->p, kind, d->rec.offset, "%s", msg);
    return 1;
}

void fxt_warn(fxt_decoder *d, tread_warning_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    warn_v(d, kind, fmt, ap);
    va_end(ap);
}

/* fxt_warn that also counts, once, in *counter. */
static void warn_count(fxt_decoder *d, uint64_t *counter, tread_warning_kind kind,
                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void warn_count(fxt_decoder *d, uint64_t *counter, tread_warning_kind kind,
                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (warn_v(d, kind, fmt, ap))
        (*counter)++;
    va_end(ap);
}

/* Runs a callback, telling whether it (not an earlier one) asked to stop. */
static int asked_to_stop(tread_parser *p, int before)
{
    int asked = p->stop_requested;
    p->stop_requested |= before;
    return asked;
}

static inline int emit_event(fxt_decoder *d, tread_event *ev)
{
    if (!d->raw_done)
        fxt_emit_raw(d);
    if (!step(d))
        return 0;
    tread_parser *p = d->p;
    int before = p->stop_requested;
    p->stop_requested = 0;
    tread__emit(p, ev);
    return asked_to_stop(p, before);
}

int fxt_emit_event(fxt_decoder *d, tread_event *ev) { return emit_event(d, ev); }

int fxt_emit_piece(fxt_decoder *d, const tread_blob *b, int stepped)
{
    if (stepped && !step(d))
        return 0;
    tread_parser *p = d->p;
    d->c.blob_bytes += b->len;
    int before = p->stop_requested;
    p->stop_requested = 0;
    tread__emit_blob(p, b);
    return asked_to_stop(p, before);
}

/* ---- pieces of events -------------------------------------------------- */

static const char *const type_names[16] = {
    "metadata", "initialization", "string", "thread", "event", "blob", "userspace object",
    "kernel object", "scheduling", "log", "type 10", "type 11", "type 12", "type 13",
    "type 14", "large"};

static int bad(fxt_decoder *d, const char *what)
{
    fxt_warn(d, TREAD_WARN_BAD_RECORD, "%s record: %s: skipped", type_names[d->rec.type], what);
    return FXT_OK;
}

static int unknown(fxt_decoder *d, const char *what, unsigned value)
{
    fxt_warn(d, TREAD_WARN_UNKNOWN_RECORD, "%s record: %s %u unknown: skipped",
             type_names[d->rec.type], what, value);
    return FXT_OK;
}

static int fail_store(fxt_decoder *d, int rc)
{
    if (rc == -2)
        tread__fail(d->p, TREAD_ERROR_LIMIT_MEMORY, d->rec.offset,
                    "FXT string and thread tables over the limit of %llu bytes "
                    "(TREAD_OPT_MAX_INTERNED_BYTES)",
                    (unsigned long long)d->p->max_interned_bytes);
    else
        tread__fail(d->p, TREAD_ERROR_NOMEM, d->rec.offset, "out of memory");
    return FXT_FAIL;
}

/* The decoder's one event is zeroed when the decoder is made; FXT writes
 * only the fields reset here, so the others stay zero without clearing
 * the whole (large) struct for every event. */
tread_event *fxt_event_init(fxt_decoder *d)
{
    tread_event *ev = &d->ev;
    /* one store per field, each from a constant: chained assignments
     * (a = b = {0}) read back what was just stored, a store-forwarding
     * stall that cost more than all the rest */
    static const tread_str no_str;
    static const tread_args no_args;
    static const tread_ids no_ids;
    ev->kind = TREAD_EVENT_UNKNOWN;
    ev->flags = 0;
    ev->ts = 0;
    ev->dur = 0;
    ev->pid = 0;
    ev->tid = 0;
    ev->cpu = 0;
    ev->name = no_str;
    ev->cat = no_str;
    ev->series = no_str;
    ev->meta_str = no_str;
    ev->id_num = 0;
    ev->scope = TREAD_SCOPE_NONE;
    ev->value = 0;
    ev->value_int = 0;
    ev->meta = TREAD_META_NONE;
    ev->args = no_args;
    ev->track_uuid = 0;
    ev->track_kind = TREAD_TRACK_NONE;
    ev->flow_ids = no_ids;
    ev->terminating_flow_ids = no_ids;
    ev->offset = d->rec.offset;
    ev->raw = &d->rec;
    ev->provider_id = 0;
    ev->provider_name = no_str;
    if (d->rec.has_provider) {
        ev->flags = TREAD_HAS_PROVIDER;
        ev->provider_id = d->rec.provider_id;
        ev->provider_name = d->rec.provider_name;
    }
    return ev;
}

static void warn_ts_overflow(fxt_decoder *d, uint64_t ticks)
{
    warn_count(d, &d->c.ts_overflows, TREAD_WARN_NUMBER_RANGE,
               "timestamp of %llu ticks at %llu ticks/s is beyond the int64 "
               "nanosecond range: left out",
               (unsigned long long)ticks, (unsigned long long)d->cur->ticks_per_second);
}

static inline void event_ts(fxt_decoder *d, tread_event *ev, uint64_t ticks)
{
    if (fxt_ticks_to_ns(ticks, d->cur->ticks_per_second, &ev->ts) == 0)
        ev->flags |= TREAD_HAS_TS;
    else
        warn_ts_overflow(d, ticks);
}

void fxt_event_ts(fxt_decoder *d, tread_event *ev, uint64_t ticks) { event_ts(d, ev, ticks); }

static void warn_missing_string(fxt_decoder *d, unsigned idx, const char *what)
{
    warn_count(d, &d->c.string_misses, TREAD_WARN_UNRESOLVED_REF,
               "%s refers to string index %u, not in the string table of provider %u",
               what, idx, d->cur->id);
}

static inline int string_ref(fxt_decoder *d, unsigned ref, const unsigned char **inline_at,
                             tread_str *out, const char *what)
{
    if (fxt_resolve_str(&d->actx, ref, inline_at, out) == 0)
        return 0;
    warn_missing_string(d, ref, what);
    return -1;
}

int fxt_string_ref(fxt_decoder *d, unsigned ref, const unsigned char **inline_at,
                   tread_str *out, const char *what)
{
    return string_ref(d, ref, inline_at, out, what);
}

static void warn_missing_thread(fxt_decoder *d, unsigned ref)
{
    warn_count(d, &d->c.thread_misses, TREAD_WARN_UNRESOLVED_REF,
               "thread index %u not in the thread table of provider %u", ref, d->cur->id);
}

static inline int thread_ref(fxt_decoder *d, unsigned ref, const unsigned char **inline_at,
                             uint64_t *pid, uint64_t *tid)
{
    if (ref == 0) {
        *pid = fxt_load64(*inline_at);
        *tid = fxt_load64(*inline_at + 8);
        *inline_at += 16;
        return 0;
    }
    const fxt_thread *t = fxt_thread_get(d->cur, ref);
    if (t) {
        *pid = t->pid;
        *tid = t->tid;
        return 0;
    }
    warn_missing_thread(d, ref);
    return -1;
}

int fxt_thread_ref(fxt_decoder *d, unsigned ref, const unsigned char **inline_at,
                   uint64_t *pid, uint64_t *tid)
{
    return thread_ref(d, ref, inline_at, pid, tid);
}

void fxt_warn_missing_args(fxt_decoder *d, const fxt_args_check *chk)
{
    for (unsigned i = 0; i < chk->missing; i++)
        warn_missing_string(d, chk->missing_refs[i], "an argument");
}

void fxt_warn_bad_args(fxt_decoder *d, const fxt_args_check *chk)
{
    static const char *const why[] = {"", "has size 0", "overruns the record",
                                      "has a name or value past its size"};
    char msg[96];
    if (chk->past_end)
        snprintf(msg, sizeof msg, "argument %u of %u is past the end of the record",
                 chk->bad_index + 1, d->rec.nargs);
    else
        snprintf(msg, sizeof msg, "argument %u %s", chk->bad_index + 1, why[-chk->error]);
    bad(d, msg);
}

static void set_thread(tread_event *ev, uint64_t pid, uint64_t tid)
{
    ev->pid = (int64_t)pid;
    ev->tid = (int64_t)tid;
    ev->flags |= TREAD_HAS_PID | TREAD_HAS_TID;
}

static void set_args(fxt_decoder *d, tread_event *ev, const unsigned char *p, size_t n)
{
    /* with synthetic fields, data must be set even when n is 0 */
    if (n || d->actx.nsynth)
        ev->args = (tread_args){.data = p, .len = n, .encoding = TREAD_ARGS_FXT, .ctx = &d->actx};
}

/* Synthetic fields (see fxt_args.h). */
static void synth(fxt_decoder *d, tread_arg_type type, const char *key, uint64_t v)
{
    fxt_args_ctx *c = &d->actx;
    if (c->nsynth >= FXT_MAX_SYNTH)
        return;
    tread_arg *a = &c->synth[c->nsynth++];
    memset(a, 0, sizeof *a);
    a->type = type;
    if (key) {
        a->key.ptr = key;
        a->key.len = strlen(key);
    }
    a->v.u = v;
}

static void synth_str(fxt_decoder *d, const char *key, tread_str s)
{
    synth(d, TREAD_ARG_STRING, key, 0);
    d->actx.synth[d->actx.nsynth - 1].v.s = s;
}

/* ---- metadata ------------------------------------------------------------ */

static int switch_provider(fxt_decoder *d, uint32_t id, fxt_provider **out, int *created)
{
    int rc;
    fxt_provider *pv = fxt_provider_get(&d->tables, id, created, &rc);
    if (!pv)
        return fail_store(d, rc);
    d->cur = pv;
    rec_provider(d);
    *out = pv;
    return FXT_OK;
}

static int rec_metadata(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t h)
{
    unsigned type = (unsigned)fxt_bits(h, 16, 19);
    uint32_t id = (uint32_t)fxt_bits(h, 20, 51);
    fxt_provider *pv;
    int created;
    switch (type) {
    case 1: { /* provider info */
        size_t n = (size_t)fxt_bits(h, 52, 59);
        if (fxt_pad8(n) > len - 8)
            return bad(d, "provider name past the end of the record");
        if (switch_provider(d, id, &pv, &created))
            return FXT_FAIL;
        if (!created)
            fxt_provider_reset(&d->tables, pv); /* a new session of that provider */
        int rc = fxt_provider_set_name(&d->tables, pv, (const char *)r + 8, n);
        if (rc)
            return fail_store(d, rc);
        rec_provider(d);
        fxt_emit_raw(d);
        return FXT_OK;
    }
    case 2: /* provider section */
        if (switch_provider(d, id, &pv, &created))
            return FXT_FAIL;
        d->c.provider_sections++;
        fxt_emit_raw(d);
        return FXT_OK;
    case 3: { /* provider event */
        unsigned ev = (unsigned)fxt_bits(h, 52, 55);
        if (ev != 0)
            return unknown(d, "provider event", ev);
        int created_now = 0, rc;
        fxt_provider *named = fxt_provider_get(&d->tables, id, &created_now, &rc);
        if (!named)
            return fail_store(d, rc);
        fxt_warn(d, TREAD_WARN_DATA_LOSS,
                 "provider %u (%s): a buffer filled up, records were likely dropped", id,
                 named->name ? named->name : "");
        return FXT_OK;
    }
    case 4: { /* trace info */
        unsigned info = (unsigned)fxt_bits(h, 20, 23);
        if (info != 0)
            return unknown(d, "trace info type", info);
        if (fxt_bits(h, 24, 55) != 0x16547846u)
            return bad(d, "magic number record without the magic number");
        fxt_emit_raw(d);
        return FXT_OK;
    }
    default:
        return unknown(d, "metadata type", type);
    }
}

/* ---- initialization, strings, threads ---------------------------------- */

static int rec_initialization(fxt_decoder *d, const unsigned char *r, size_t len)
{
    if (len < 16)
        return bad(d, "no ticks-per-second word");
    uint64_t tps = fxt_load64(r + 8);
    if (tps == 0) {
        fxt_warn(d, TREAD_WARN_BAD_FIELD,
                 "initialization record with 0 ticks per second: ignored (the provider keeps "
                 "%llu ticks/s)",
                 (unsigned long long)d->cur->ticks_per_second);
        return FXT_OK;
    }
    d->cur->ticks_per_second = tps;
    /* words after ticks_per_second (the Jane Street writer's base ticks and
     * base time) are an extension: left to the raw hook */
    tread_event *ev = fxt_event_init(d);
    ev->kind = TREAD_EVENT_CLOCK_SYNC;
    ev->name.ptr = "ticks_per_second";
    ev->name.len = sizeof "ticks_per_second" - 1;
    ev->value = (double)tps;
    ev->flags |= TREAD_HAS_VALUE;
    if (tps <= (uint64_t)INT64_MAX) {
        ev->value_int = (int64_t)tps;
        ev->flags |= TREAD_VALUE_IS_INT;
    }
    return emit_event(d, ev) ? FXT_PAUSE : FXT_OK;
}

static int rec_string(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t h)
{
    unsigned idx = (unsigned)fxt_bits(h, 16, 30);
    size_t n = (size_t)fxt_bits(h, 32, 46);
    if (fxt_pad8(n) > len - 8)
        return bad(d, "string past the end of the record");
    if (idx == 0) {
        d->c.index0_ignored++;
        fxt_emit_raw(d);
        return FXT_OK;
    }
    if (n > d->p->max_string_bytes) {
        tread__fail(d->p, TREAD_ERROR_LIMIT_STRING, d->rec.offset,
                    "string of %zu bytes larger than the limit of %zu "
                    "(TREAD_OPT_MAX_STRING_BYTES)",
                    n, d->p->max_string_bytes);
        return FXT_FAIL;
    }
    int rc = fxt_string_put(&d->tables, d->cur, idx, (const char *)r + 8, n);
    if (rc)
        return fail_store(d, rc);
    fxt_emit_raw(d);
    return FXT_OK;
}

static int rec_thread(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t h)
{
    unsigned idx = (unsigned)fxt_bits(h, 16, 23);
    if (len < 24)
        return bad(d, "no room for the process and thread koids");
    uint64_t pid = fxt_load64(r + 8), tid = fxt_load64(r + 16);
    if (idx == 0) {
        d->c.index0_ignored++;
        fxt_emit_raw(d);
        return FXT_OK;
    }
    int rc = fxt_thread_put(&d->tables, d->cur, idx, pid, tid);
    if (rc)
        return fail_store(d, rc);
    /* tid belongs to pid: so that callers can place every thread */
    tread_event *ev = fxt_event_init(d);
    ev->kind = TREAD_EVENT_METADATA;
    ev->meta = TREAD_META_OTHER;
    ev->name.ptr = "thread";
    ev->name.len = 6;
    set_thread(ev, pid, tid);
    return emit_event(d, ev) ? FXT_PAUSE : FXT_OK;
}

/* ---- event records ------------------------------------------------------- */

static const tread_event_kind event_kinds[11] = {
    TREAD_EVENT_INSTANT,     TREAD_EVENT_COUNTER,    TREAD_EVENT_SLICE_BEGIN,
    TREAD_EVENT_SLICE_END,   TREAD_EVENT_COMPLETE,   TREAD_EVENT_ASYNC_BEGIN,
    TREAD_EVENT_ASYNC_STEP,  TREAD_EVENT_ASYNC_END,  TREAD_EVENT_FLOW_BEGIN,
    TREAD_EVENT_FLOW_STEP,   TREAD_EVENT_FLOW_END,
};

static const char *const event_words[11] = {
    NULL, "counter id", NULL, NULL, "end time", "async correlation id",
    "async correlation id", "async correlation id", "flow correlation id",
    "flow correlation id", "flow correlation id",
};

/* Counter: one event per numeric argument (as JSON "C" events). */
static int emit_counter(fxt_decoder *d, tread_event *ev, const unsigned char *p,
                        const unsigned char *end)
{
    unsigned series = 0;
    while (p < end) {
        fxt_arg_raw a;
        tread_arg v;
        if (fxt_arg_locate(p, end, &a) != FXT_ARG_OK)
            break; /* walked before: cannot happen */
        p = a.end;
        if (fxt_arg_decode(&d->actx, &a, &v))
            continue;
        ev->flags &= ~(TREAD_HAS_VALUE | TREAD_VALUE_IS_INT);
        if (v.type == TREAD_ARG_INT) {
            ev->value = (double)v.v.i;
            ev->value_int = v.v.i;
            ev->flags |= TREAD_VALUE_IS_INT;
        } else if (v.type == TREAD_ARG_UINT) {
            ev->value = (double)v.v.u;
        } else if (v.type == TREAD_ARG_DOUBLE) {
            ev->value = v.v.d;
        } else {
            fxt_warn(d, TREAD_WARN_BAD_COUNTER_VALUE,
                     "counter series \"%.*s\" is not a number (%s): skipped",
                     (int)(v.key.len > 60 ? 60 : v.key.len), v.key.ptr,
                     tread_arg_type_name(v.type));
            continue;
        }
        ev->flags |= TREAD_HAS_VALUE;
        ev->series = v.key;
        series++;
        if (emit_event(d, ev))
            return FXT_PAUSE;
    }
    if (series == 0)
        fxt_warn(d, TREAD_WARN_BAD_COUNTER_VALUE, "counter event \"%.*s\" has no numeric series",
                 (int)(ev->name.len > 60 ? 60 : ev->name.len), ev->name.ptr);
    return FXT_OK;
}

static int rec_event(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t h)
{
    unsigned et = (unsigned)fxt_bits(h, 16, 19), nargs = (unsigned)fxt_bits(h, 20, 23);
    unsigned tref = (unsigned)fxt_bits(h, 24, 31), cref = (unsigned)fxt_bits(h, 32, 47);
    unsigned nref = (unsigned)fxt_bits(h, 48, 63);
    const unsigned char *end = r + len, *q = r + 8;
    if ((uint64_t)(end - q) < 8 + fxt_tref_bytes(tref))
        return bad(d, "no room for the timestamp and thread");
    uint64_t ticks = fxt_load64(q);
    const unsigned char *thread_at = q + 8;
    q = thread_at + fxt_tref_bytes(tref);
    uint64_t sb = fxt_sref_bytes(cref) + fxt_sref_bytes(nref);
    if (sb > (uint64_t)(end - q))
        return bad(d, "category or name past the end of the record");
    const unsigned char *strs = q, *args = q + sb;
    fxt_args_check chk;
    d->rec.nargs = nargs;
    d->rec.args_offset = nargs ? (size_t)(args - r) : 0;
    if (nargs == 0) {
        chk.end = args;
        chk.missing = 0;
    } else if (fxt_args_walk(d->cur, args, end, nargs, &chk)) {
        fxt_warn_bad_args(d, &chk);
        return FXT_OK;
    }
    q = chk.end;
    if (et <= 10 && event_words[et] && end - q < 8) {
        char msg[64];
        snprintf(msg, sizeof msg, "no room for the %s", event_words[et]);
        return bad(d, msg);
    }

    tread_event *ev = fxt_event_init(d);
    if (et <= 10) {
        ev->kind = event_kinds[et];
    } else {
        ev->kind = TREAD_EVENT_UNKNOWN;
        fxt_warn(d, TREAD_WARN_UNKNOWN_RECORD,
                 "event record of unknown event type %u: delivered as an unknown event", et);
    }
    event_ts(d, ev, ticks);
    uint64_t pid, tid;
    if (thread_ref(d, tref, &thread_at, &pid, &tid) == 0)
        set_thread(ev, pid, tid);
    else
        ev->flags |= TREAD_THREAD_UNRESOLVED;
    if (string_ref(d, cref, &strs, &ev->cat, "the category"))
        ev->flags |= TREAD_CAT_UNRESOLVED;
    if (string_ref(d, nref, &strs, &ev->name, "the name"))
        ev->flags |= TREAD_NAME_UNRESOLVED;
    fxt_warn_missing_args(d, &chk);
    set_args(d, ev, args, (size_t)(chk.end - args));

    uint64_t w = et <= 10 && event_words[et] ? fxt_load64(q) : 0;
    switch (et) {
    case 0:
        /* A scope word after the arguments: the instant event layout of
         * older writers (0 thread, 1 process, 2 global). */
        if (end - q >= 8 && (w = fxt_load64(q)) <= 2)
            ev->scope = (tread_scope)(w + 1);
        break;
    case 1:
        ev->id_num = w;
        ev->track_uuid = w;
        ev->track_kind = TREAD_TRACK_COUNTER;
        ev->flags |= TREAD_HAS_ID | TREAD_HAS_ID_NUM | TREAD_HAS_TRACK;
        return emit_counter(d, ev, args, chk.end);
    case 4: {
        int64_t end_ns;
        if (fxt_ticks_to_ns(w, d->cur->ticks_per_second, &end_ns) != 0) {
            warn_count(d, &d->c.ts_overflows, TREAD_WARN_NUMBER_RANGE,
                       "end time of %llu ticks at %llu ticks/s is beyond the int64 "
                       "nanosecond range: no duration",
                       (unsigned long long)w, (unsigned long long)d->cur->ticks_per_second);
        } else if (ev->flags & TREAD_HAS_TS) {
            ev->dur = end_ns - ev->ts; /* both in 0..INT64_MAX: cannot overflow */
            ev->flags |= TREAD_HAS_DUR;
        }
        break;
    }
    case 5:
    case 6:
    case 7:
        ev->id_num = w;
        ev->track_uuid = w;
        ev->track_kind = TREAD_TRACK_ASYNC;
        ev->flags |= TREAD_HAS_ID | TREAD_HAS_ID_NUM | TREAD_HAS_TRACK;
        break;
    case 8:
    case 9:
    case 10:
        ev->id_num = w;
        ev->flags |= TREAD_HAS_ID | TREAD_HAS_ID_NUM;
        d->flow_id = w;
        if (et == 10)
            ev->terminating_flow_ids = (tread_ids){&d->flow_id, 1};
        else
            ev->flow_ids = (tread_ids){&d->flow_id, 1};
        break;
    default:
        break;
    }
    return emit_event(d, ev) ? FXT_PAUSE : FXT_OK;
}

/* ---- blobs, objects -------------------------------------------------------- */

static int rec_blob(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t h)
{
    unsigned nref = (unsigned)fxt_bits(h, 16, 31);
    size_t size = (size_t)fxt_bits(h, 32, 46);
    unsigned btype = (unsigned)fxt_bits(h, 48, 55);
    const unsigned char *q = r + 8;
    if (fxt_sref_bytes(nref) + fxt_pad8(size) > len - 8)
        return bad(d, "name or payload past the end of the record");
    tread_event *ev = fxt_event_init(d);
    ev->kind = TREAD_EVENT_BLOB;
    if (string_ref(d, nref, &q, &ev->name, "the blob name"))
        ev->flags |= TREAD_NAME_UNRESOLVED;
    ev->value = (double)size;
    ev->value_int = (int64_t)size;
    ev->flags |= TREAD_HAS_VALUE | TREAD_VALUE_IS_INT;
    if (emit_event(d, ev))
        return FXT_PAUSE;
    tread_blob b;
    memset(&b, 0, sizeof b);
    b.name = ev->name;
    b.total_size = size;
    b.blob_type = btype;
    b.offset = d->rec.offset;
    b.raw = &d->rec;
    size_t off = 0;
    do {
        size_t n = size - off < FXT_PIECE_BYTES ? size - off : FXT_PIECE_BYTES;
        b.piece_offset = off;
        b.data = q + off;
        b.len = n;
        b.last = off + n == size;
        off += n;
        if (fxt_emit_piece(d, &b, 1))
            return FXT_PAUSE;
    } while (off < size);
    return FXT_OK;
}

static int rec_userspace_object(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t h)
{
    unsigned tref = (unsigned)fxt_bits(h, 16, 23), nref = (unsigned)fxt_bits(h, 24, 39);
    unsigned nargs = (unsigned)fxt_bits(h, 40, 43);
    const unsigned char *end = r + len, *q = r + 8;
    size_t fixed = tref == 0 ? 16 : 8; /* pointer, and the process koid if inline */
    if ((size_t)(end - q) < fixed || fxt_sref_bytes(nref) > (uint64_t)(end - q - fixed))
        return bad(d, "pointer, process or name past the end of the record");
    uint64_t ptr = fxt_load64(q);
    const unsigned char *strs = q + fixed, *args = strs + fxt_sref_bytes(nref);
    fxt_args_check chk;
    d->rec.nargs = nargs;
    d->rec.args_offset = nargs ? (size_t)(args - r) : 0;
    if (fxt_args_walk(d->cur, args, end, nargs, &chk)) {
        fxt_warn_bad_args(d, &chk);
        return FXT_OK;
    }
    tread_event *ev = fxt_event_init(d);
    ev->kind = TREAD_EVENT_OBJECT_NEW;
    ev->id_num = ptr;
    ev->flags |= TREAD_HAS_ID | TREAD_HAS_ID_NUM;
    if (tref == 0) {
        ev->pid = ev->tid = (int64_t)fxt_load64(q + 8);
        ev->flags |= TREAD_HAS_PID;
    } else {
        const fxt_thread *t = fxt_thread_get(d->cur, tref);
        if (t) {
            ev->pid = ev->tid = (int64_t)t->pid;
            ev->flags |= TREAD_HAS_PID;
        } else {
            ev->flags |= TREAD_THREAD_UNRESOLVED;
            warn_missing_thread(d, tref);
        }
    }
    if (string_ref(d, nref, &strs, &ev->name, "the object name"))
        ev->flags |= TREAD_NAME_UNRESOLVED;
    fxt_warn_missing_args(d, &chk);
    set_args(d, ev, args, (size_t)(chk.end - args));
    return emit_event(d, ev) ? FXT_PAUSE : FXT_OK;
}

/* The "process" koid argument of a thread's kernel object record. */
static int process_arg(fxt_decoder *d, const unsigned char *p, const unsigned char *end,
                       uint64_t *pid)
{
    while (p < end) {
        fxt_arg_raw a;
        tread_arg v;
        if (fxt_arg_locate(p, end, &a) != FXT_ARG_OK)
            return 0;
        p = a.end;
        if (a.type != FXT_ARG_KOID || fxt_arg_decode(&d->actx, &a, &v))
            continue;
        if (v.key.len == 7 && memcmp(v.key.ptr, "process", 7) == 0) {
            *pid = v.v.u;
            return 1;
        }
    }
    return 0;
}

static int rec_kernel_object(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t h)
{
    unsigned ktype = (unsigned)fxt_bits(h, 16, 23), nref = (unsigned)fxt_bits(h, 24, 39);
    unsigned nargs = (unsigned)fxt_bits(h, 40, 43);
    const unsigned char *end = r + len, *q = r + 8;
    if (end - q < 8 || fxt_sref_bytes(nref) > (uint64_t)(end - q - 8))
        return bad(d, "koid or name past the end of the record");
    uint64_t koid = fxt_load64(q);
    const unsigned char *strs = q + 8, *args = strs + fxt_sref_bytes(nref);
    fxt_args_check chk;
    d->rec.nargs = nargs;
    d->rec.args_offset = nargs ? (size_t)(args - r) : 0;
    if (fxt_args_walk(d->cur, args, end, nargs, &chk)) {
        fxt_warn_bad_args(d, &chk);
        return FXT_OK;
    }
    tread_event *ev = fxt_event_init(d);
    tread_str label;
    int unresolved = string_ref(d, nref, &strs, &label, "the object name");
    fxt_warn_missing_args(d, &chk);
    uint64_t pid;
    switch (ktype) {
    case 1: /* ZX_OBJ_TYPE_PROCESS */
        ev->kind = TREAD_EVENT_METADATA;
        ev->meta = TREAD_META_PROCESS_NAME;
        ev->name = (tread_str){"process_name", 12};
        ev->meta_str = label;
        ev->pid = ev->tid = (int64_t)koid;
        ev->flags |= TREAD_HAS_PID;
        break;
    case 2: /* ZX_OBJ_TYPE_THREAD */
        ev->kind = TREAD_EVENT_METADATA;
        ev->meta = TREAD_META_THREAD_NAME;
        ev->name = (tread_str){"thread_name", 11};
        ev->meta_str = label;
        ev->tid = (int64_t)koid;
        ev->flags |= TREAD_HAS_TID;
        if (process_arg(d, args, chk.end, &pid)) {
            ev->pid = (int64_t)pid;
            ev->flags |= TREAD_HAS_PID;
        }
        break;
    default:
        ev->kind = TREAD_EVENT_OBJECT_NEW;
        ev->name = label;
        ev->id_num = koid;
        ev->flags |= TREAD_HAS_ID | TREAD_HAS_ID_NUM;
        break;
    }
    if (unresolved)
        ev->flags |= TREAD_NAME_UNRESOLVED;
    set_args(d, ev, args, (size_t)(chk.end - args));
    return emit_event(d, ev) ? FXT_PAUSE : FXT_OK;
}

/* ---- scheduling, logs ----------------------------------------------------- */

/* Context switches carry both threads as "out" and "in" dicts, as Fuchsia's
 * JSON export writes them; the event's own pid/tid is the outgoing thread. */
static void synth_thread(fxt_decoder *d, const char *key, int have, uint64_t pid, int have_pid,
                         uint64_t tid, int64_t state, int64_t prio)
{
    synth(d, TREAD_ARG_DICT_BEGIN, key, 0);
    if (have && have_pid)
        synth(d, TREAD_ARG_KOID, "pid", pid);
    if (have)
        synth(d, TREAD_ARG_KOID, "tid", tid);
    if (state >= 0)
        synth(d, TREAD_ARG_INT, "state", (uint64_t)state);
    if (prio >= 0)
        synth(d, TREAD_ARG_INT, "prio", (uint64_t)prio);
    synth(d, TREAD_ARG_DICT_END, NULL, 0);
}

static int rec_scheduling(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t h)
{
    unsigned st = (unsigned)fxt_bits(h, 60, 63);
    const unsigned char *end = r + len, *q = r + 8;
    if (st == 0) { /* legacy context switch */
        unsigned cpu = (unsigned)fxt_bits(h, 16, 23), state = (unsigned)fxt_bits(h, 24, 27);
        unsigned oref = (unsigned)fxt_bits(h, 28, 35), iref = (unsigned)fxt_bits(h, 36, 43);
        unsigned oprio = (unsigned)fxt_bits(h, 44, 51), iprio = (unsigned)fxt_bits(h, 52, 59);
        if ((uint64_t)(end - q) < 8 + fxt_tref_bytes(oref) + fxt_tref_bytes(iref))
            return bad(d, "threads past the end of the record");
        uint64_t ticks = fxt_load64(q), opid = 0, otid = 0, ipid = 0, itid = 0;
        const unsigned char *at = q + 8;
        tread_event *ev = fxt_event_init(d);
        ev->kind = TREAD_EVENT_CONTEXT_SWITCH;
        ev->cpu = cpu;
        ev->flags |= TREAD_HAS_CPU;
        event_ts(d, ev, ticks);
        int have_out = thread_ref(d, oref, &at, &opid, &otid) == 0;
        int have_in = thread_ref(d, iref, &at, &ipid, &itid) == 0;
        if (have_out)
            set_thread(ev, opid, otid);
        else
            ev->flags |= TREAD_THREAD_UNRESOLVED;
        synth_thread(d, "out", have_out, opid, 1, otid, state, oprio);
        synth_thread(d, "in", have_in, ipid, 1, itid, -1, iprio);
        set_args(d, ev, end, 0);
        return emit_event(d, ev) ? FXT_PAUSE : FXT_OK;
    }
    if (st == 3) {
        /* Fiber switch (fxt-cpp's extension, not in the format document):
         * fiber ids are not threads; only the raw hook sees it. */
        fxt_emit_raw(d);
        return FXT_OK;
    }
    if (st != 1 && st != 2)
        return unknown(d, "scheduling record type", st);
    unsigned nargs = (unsigned)fxt_bits(h, 16, 19), cpu = (unsigned)fxt_bits(h, 20, 35);
    size_t fixed = st == 1 ? 24 : 16;
    if ((size_t)(end - q) < fixed)
        return bad(d, "threads past the end of the record");
    const unsigned char *args = q + fixed;
    fxt_args_check chk;
    d->rec.nargs = nargs;
    d->rec.args_offset = nargs ? (size_t)(args - r) : 0;
    if (fxt_args_walk(d->cur, args, end, nargs, &chk)) {
        fxt_warn_bad_args(d, &chk);
        return FXT_OK;
    }
    tread_event *ev = fxt_event_init(d);
    ev->cpu = cpu;
    ev->flags |= TREAD_HAS_CPU;
    event_ts(d, ev, fxt_load64(q));
    ev->tid = (int64_t)fxt_load64(q + 8);
    ev->flags |= TREAD_HAS_TID;
    if (st == 1) {
        ev->kind = TREAD_EVENT_CONTEXT_SWITCH;
        synth_thread(d, "out", 1, 0, 0, fxt_load64(q + 8), (int64_t)fxt_bits(h, 36, 39), -1);
        synth_thread(d, "in", 1, 0, 0, fxt_load64(q + 16), -1, -1);
    } else {
        ev->kind = TREAD_EVENT_WAKEUP;
    }
    fxt_warn_missing_args(d, &chk);
    set_args(d, ev, args, (size_t)(chk.end - args));
    return emit_event(d, ev) ? FXT_PAUSE : FXT_OK;
}

static int rec_log(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t h)
{
    size_t n = (size_t)fxt_bits(h, 16, 30);
    unsigned tref = (unsigned)fxt_bits(h, 32, 39);
    const unsigned char *end = r + len, *q = r + 8;
    if ((uint64_t)(end - q) < 8 + fxt_tref_bytes(tref) + fxt_pad8(n))
        return bad(d, "thread or message past the end of the record");
    tread_event *ev = fxt_event_init(d);
    ev->kind = TREAD_EVENT_LOG;
    event_ts(d, ev, fxt_load64(q));
    const unsigned char *at = q + 8;
    uint64_t pid, tid;
    if (thread_ref(d, tref, &at, &pid, &tid) == 0)
        set_thread(ev, pid, tid);
    else
        ev->flags |= TREAD_THREAD_UNRESOLVED;
    tread_str msg = {fxt_inline_str(&d->actx, at, n), n};
    synth_str(d, "message", msg);
    set_args(d, ev, end, 0);
    return emit_event(d, ev) ? FXT_PAUSE : FXT_OK;
}

/* ---- dispatch ---------------------------------------------------------------- */

int fxt_record(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t off)
{
    begin_record(d, r, len, off);
    uint64_t h = d->rec.header;
    switch (d->rec.type) {
    case FXT_REC_METADATA:
        return rec_metadata(d, r, len, h);
    case FXT_REC_INITIALIZATION:
        return rec_initialization(d, r, len);
    case FXT_REC_STRING:
        return rec_string(d, r, len, h);
    case FXT_REC_THREAD:
        return rec_thread(d, r, len, h);
    case FXT_REC_EVENT:
        return rec_event(d, r, len, h);
    case FXT_REC_BLOB:
        return rec_blob(d, r, len, h);
    case FXT_REC_USERSPACE_OBJECT:
        return rec_userspace_object(d, r, len, h);
    case FXT_REC_KERNEL_OBJECT:
        return rec_kernel_object(d, r, len, h);
    case FXT_REC_SCHEDULING:
        return rec_scheduling(d, r, len, h);
    case FXT_REC_LOG:
        return rec_log(d, r, len, h);
    default:
        fxt_warn(d, TREAD_WARN_UNKNOWN_RECORD, "record type %u unknown: skipped (%llu words)",
                 d->rec.type, (unsigned long long)d->rec.size_words);
        return FXT_OK;
    }
}
