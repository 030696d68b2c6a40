/*
 * FXT records to events: one function per record type of the format
 * document ("Record Types"), each reading the record's layout first (a
 * record that does not fit its size is a BAD_RECORD warning and is
 * skipped), then making its callbacks (fxt_emit.h): the raw hook, warnings,
 * events. Event records are in fxt_events.c, large records in fxt_large.c.
 * doc/formats/fxt.md has the table of what each record becomes.
 */
#include "fxt/fxt_emit.h"
#include "fxt/fxt_wire.h"

#include <stdio.h>
#include <string.h>

/* ---- metadata ------------------------------------------------------------ */

static int switch_provider(fxt_decoder *d, uint32_t id, fxt_provider **out, int *created)
{
    int rc;
    fxt_provider *pv = fxt_provider_get(&d->tables, id, created, &rc);
    if (!pv)
        return fxt_fail_store(d, rc);
    d->cur = pv;
    fxt_rec_provider(d);
    *out = pv;
    return FXT_OK;
}

static int rec_metadata(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t h)
{
    unsigned type = (unsigned)fxt_bits(h, 16, 19);
    uint32_t id = (uint32_t)fxt_bits(h, 20, 51);
    fxt_provider *pv = NULL;
    int created = 0;
    switch (type) {
    case 1: { /* provider info */
        size_t n = (size_t)fxt_bits(h, 52, 59);
        if (fxt_pad8(n) > len - 8)
            return fxt_bad(d, "provider name past the end of the record");
        if (switch_provider(d, id, &pv, &created))
            return FXT_FAIL;
        if (!created)
            fxt_provider_reset(&d->tables, pv); /* a new session of that provider */
        int rc = fxt_provider_set_name(&d->tables, pv, (const char *)r + 8, n);
        if (rc)
            return fxt_fail_store(d, rc);
        fxt_rec_provider(d);
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
            return fxt_unknown(d, "provider event", ev);
        int created_now = 0, rc;
        fxt_provider *named = fxt_provider_get(&d->tables, id, &created_now, &rc);
        if (!named)
            return fxt_fail_store(d, rc);
        fxt_warn(d, TREAD_WARN_DATA_LOSS,
                 "provider %u (%s): a buffer filled up, records were likely dropped", id,
                 named->name ? named->name : "");
        return FXT_OK;
    }
    case 4: { /* trace info */
        unsigned info = (unsigned)fxt_bits(h, 20, 23);
        if (info != 0)
            return fxt_unknown(d, "trace info type", info);
        if (fxt_bits(h, 24, 55) != 0x16547846u)
            return fxt_bad(d, "magic number record without the magic number");
        fxt_emit_raw(d);
        return FXT_OK;
    }
    default:
        return fxt_unknown(d, "metadata type", type);
    }
}

/* ---- initialization, strings, threads ---------------------------------- */

static int rec_initialization(fxt_decoder *d, const unsigned char *r, size_t len)
{
    if (len < 16)
        return fxt_bad(d, "no ticks-per-second word");
    uint64_t tps = fxt_load64(r + 8);
    if (tps == 0) {
        d->rec.skipped = 1;
        fxt_warn(d, TREAD_WARN_BAD_FIELD,
                 "initialization record with 0 ticks per second: ignored (the provider keeps "
                 "%llu ticks/s)",
                 (unsigned long long)d->cur->ticks_per_second);
        return FXT_OK;
    }
    d->cur->ticks_per_second = tps;
    fxt_rate_set(&d->cur->rate, tps);
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
    return fxt_emit_event(d, ev) ? FXT_PAUSE : FXT_OK;
}

static int rec_string(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t h)
{
    unsigned idx = (unsigned)fxt_bits(h, 16, 30);
    size_t n = (size_t)fxt_bits(h, 32, 46);
    if (fxt_pad8(n) > len - 8)
        return fxt_bad(d, "string past the end of the record");
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
        return fxt_fail_store(d, rc);
    fxt_emit_raw(d);
    return FXT_OK;
}

static int rec_thread(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t h)
{
    unsigned idx = (unsigned)fxt_bits(h, 16, 23);
    if (len < 24)
        return fxt_bad(d, "no room for the process and thread koids");
    uint64_t pid = fxt_load64(r + 8), tid = fxt_load64(r + 16);
    if (idx == 0) {
        d->c.index0_ignored++;
        fxt_emit_raw(d);
        return FXT_OK;
    }
    int rc = fxt_thread_put(&d->tables, d->cur, idx, pid, tid);
    if (rc)
        return fxt_fail_store(d, rc);
    /* tid belongs to pid: so that callers can place every thread */
    tread_event *ev = fxt_event_init_fast(d);
    d->ev_dirty |= FXT_EV_META;
    ev->kind = TREAD_EVENT_METADATA;
    ev->meta = TREAD_META_OTHER;
    ev->name.ptr = "thread";
    ev->name.len = 6;
    fxt_set_thread(ev, pid, tid);
    return fxt_emit_event(d, ev) ? FXT_PAUSE : FXT_OK;
}

/* ---- blobs, objects -------------------------------------------------------- */

static int rec_blob(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t h)
{
    unsigned nref = (unsigned)fxt_bits(h, 16, 31);
    size_t size = (size_t)fxt_bits(h, 32, 46);
    unsigned btype = (unsigned)fxt_bits(h, 48, 55);
    const unsigned char *q = r + 8;
    if (fxt_sref_bytes(nref) + fxt_pad8(size) > len - 8)
        return fxt_bad(d, "name or payload past the end of the record");
    tread_event *ev = fxt_event_init(d);
    ev->kind = TREAD_EVENT_BLOB;
    if (fxt_string_ref(d, nref, &q, &ev->name, "the blob name"))
        ev->flags |= TREAD_NAME_UNRESOLVED;
    ev->value = (double)size;
    ev->value_int = (int64_t)size;
    ev->flags |= TREAD_HAS_VALUE | TREAD_VALUE_IS_INT;
    if (fxt_emit_event(d, ev))
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
        return fxt_bad(d, "pointer, process or name past the end of the record");
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
            fxt_warn_missing_thread(d, tref);
        }
    }
    if (fxt_string_ref(d, nref, &strs, &ev->name, "the object name"))
        ev->flags |= TREAD_NAME_UNRESOLVED;
    fxt_warn_missing_args(d, &chk);
    fxt_set_args(d, ev, args, (size_t)(chk.end - args));
    return fxt_emit_event(d, ev) ? FXT_PAUSE : FXT_OK;
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
        return fxt_bad(d, "koid or name past the end of the record");
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
    int unresolved = fxt_string_ref(d, nref, &strs, &label, "the object name");
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
    fxt_set_args(d, ev, args, (size_t)(chk.end - args));
    return fxt_emit_event(d, ev) ? FXT_PAUSE : FXT_OK;
}

/* ---- scheduling, logs ----------------------------------------------------- */

/* Context switches carry both threads as "out" and "in" dicts, as Fuchsia's
 * JSON export writes them; the event's own pid/tid is the outgoing thread.
 * Noted here, made into arguments only if asked (fxt_args.h). */
static inline void note_thread(fxt_synth_thread *t, int have, uint64_t pid, int have_pid,
                               uint64_t tid, int64_t state, int64_t prio)
{
    t->pid = pid;
    t->tid = tid;
    t->state = state;
    t->prio = prio;
    t->have = (unsigned char)have;
    t->have_pid = (unsigned char)have_pid;
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
            return fxt_bad(d, "threads past the end of the record");
        uint64_t ticks = fxt_load64(q), opid = 0, otid = 0, ipid = 0, itid = 0;
        const unsigned char *at = q + 8;
        tread_event *ev = fxt_event_init_fast(d);
        d->ev_dirty |= FXT_EV_CPU;
        ev->kind = TREAD_EVENT_CONTEXT_SWITCH;
        ev->cpu = cpu;
        ev->flags |= TREAD_HAS_CPU;
        fxt_event_ts(d, ev, ticks);
        int have_out = fxt_thread_ref(d, oref, &at, &opid, &otid) == 0;
        int have_in = fxt_thread_ref(d, iref, &at, &ipid, &itid) == 0;
        if (have_out)
            fxt_set_thread(ev, opid, otid);
        else
            ev->flags |= TREAD_THREAD_UNRESOLVED;
        d->actx.synth_kind = FXT_SYNTH_SWITCH;
        note_thread(&d->actx.sw[0], have_out, opid, 1, otid, state, oprio);
        note_thread(&d->actx.sw[1], have_in, ipid, 1, itid, -1, iprio);
        fxt_set_args(d, ev, end, 0);
        return fxt_emit_event(d, ev) ? FXT_PAUSE : FXT_OK;
    }
    if (st == 3) {
        /* Fiber switch (fxt-cpp's extension, not in the format document):
         * fiber ids are not threads; only the raw hook sees it. */
        fxt_emit_raw(d);
        return FXT_OK;
    }
    if (st != 1 && st != 2)
        return fxt_unknown(d, "scheduling record type", st);
    unsigned nargs = (unsigned)fxt_bits(h, 16, 19), cpu = (unsigned)fxt_bits(h, 20, 35);
    size_t fixed = st == 1 ? 24 : 16;
    if ((size_t)(end - q) < fixed)
        return fxt_bad(d, "threads past the end of the record");
    const unsigned char *args = q + fixed;
    fxt_args_check chk;
    d->rec.nargs = nargs;
    d->rec.args_offset = nargs ? (size_t)(args - r) : 0;
    if (fxt_args_walk(d->cur, args, end, nargs, &chk)) {
        fxt_warn_bad_args(d, &chk);
        return FXT_OK;
    }
    tread_event *ev = fxt_event_init_fast(d);
    d->ev_dirty |= FXT_EV_CPU;
    ev->cpu = cpu;
    ev->flags |= TREAD_HAS_CPU;
    fxt_event_ts(d, ev, fxt_load64(q));
    ev->tid = (int64_t)fxt_load64(q + 8);
    ev->flags |= TREAD_HAS_TID;
    if (st == 1) {
        ev->kind = TREAD_EVENT_CONTEXT_SWITCH;
        d->actx.synth_kind = FXT_SYNTH_SWITCH;
        note_thread(&d->actx.sw[0], 1, 0, 0, fxt_load64(q + 8), (int64_t)fxt_bits(h, 36, 39), -1);
        note_thread(&d->actx.sw[1], 1, 0, 0, fxt_load64(q + 16), -1, -1);
    } else {
        ev->kind = TREAD_EVENT_WAKEUP;
    }
    fxt_warn_missing_args(d, &chk);
    fxt_set_args(d, ev, args, (size_t)(chk.end - args));
    return fxt_emit_event(d, ev) ? FXT_PAUSE : FXT_OK;
}

static int rec_log(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t h)
{
    size_t n = (size_t)fxt_bits(h, 16, 30);
    unsigned tref = (unsigned)fxt_bits(h, 32, 39);
    const unsigned char *end = r + len, *q = r + 8;
    if ((uint64_t)(end - q) < 8 + fxt_tref_bytes(tref) + fxt_pad8(n))
        return fxt_bad(d, "thread or message past the end of the record");
    tread_event *ev = fxt_event_init_fast(d);
    ev->kind = TREAD_EVENT_LOG;
    fxt_event_ts(d, ev, fxt_load64(q));
    const unsigned char *at = q + 8;
    uint64_t pid, tid;
    if (fxt_thread_ref(d, tref, &at, &pid, &tid) == 0)
        fxt_set_thread(ev, pid, tid);
    else
        ev->flags |= TREAD_THREAD_UNRESOLVED;
    d->actx.synth_kind = FXT_SYNTH_MESSAGE;
    d->actx.message = (tread_str){fxt_inline_str(&d->actx, at, n), n};
    fxt_set_args(d, ev, end, 0);
    return fxt_emit_event(d, ev) ? FXT_PAUSE : FXT_OK;
}

/* ---- dispatch ---------------------------------------------------------------- */

int fxt_record(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t off)
{
    fxt_record_begin(d, r, len, off);
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
        return fxt_event_record(d, r, len, h);
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
        d->rec.skipped = 1;
        fxt_warn(d, TREAD_WARN_UNKNOWN_RECORD, "record type %u unknown: skipped (%llu words)",
                 d->rec.type, (unsigned long long)d->rec.size_words);
        return FXT_OK;
    }
}
