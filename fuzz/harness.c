/* Shared driver for the libFuzzer harnesses; see harness.h. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tread/json.h>
#include <tread/perfetto.h>

_Noreturn void fuzz_fail(const char *what)
{
    fprintf(stderr, "fuzz: broken invariant: %s\n", what);
    abort();
}

/* FNV-1a over the input, then splitmix64 steps. */
void fuzz_rng_init(fuzz_rng *r, const uint8_t *data, size_t size)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 0x100000001b3u;
    r->state = h ^ size;
}

uint64_t fuzz_rng_next(fuzz_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

uint64_t fuzz_rng_below(fuzz_rng *r, uint64_t n)
{
    return fuzz_rng_next(r) % n;
}

/* One run's state, the user pointer of the callbacks. */
typedef struct run_state {
    const fuzz_plan *plan;
    fuzz_rng rng;
    unsigned pause_every;     /* a callback returns 1 every N-th call; 0 never */
    uint64_t calls;           /* callbacks made */
    uint64_t pause_requests;  /* non-zero returns given */
    int verbose;              /* $TREAD_FUZZ_VERBOSE: trace to stderr */
    int nul_terminated;       /* strings of the current callback end in NUL */
    fuzz_outcome *out;
} run_state;

static void mix(run_state *st, uint64_t v)
{
    st->out->digest = (st->out->digest ^ v) * 0x100000001b3u;
}

static void mix_bytes(run_state *st, const void *p, size_t n)
{
    const unsigned char *b = p;
    mix(st, n);
    for (size_t i = 0; i < n; i++)
        mix(st, b[i]);
}

/* Reads and hashes every byte of a string; present strings end in NUL
 * where tread.h promises it (JSON input; binary formats are zero copy). */
static void touch(run_state *st, const char *p, size_t n, const char *what)
{
    if (!p) {
        if (n)
            fuzz_fail(what);
        mix(st, 0xabad1dea);
        return;
    }
    mix_bytes(st, p, n);
    if (st->nul_terminated && p[n] != '\0')
        fuzz_fail(what);
}

static void touch_str(run_state *st, tread_str s, const char *what)
{
    touch(st, s.ptr, s.len, what);
}

static void touch_arg(run_state *st, const tread_arg *a)
{
    if ((unsigned)a->type > TREAD_ARG_ARRAY_END)
        fuzz_fail("tread_arg.type out of range");
    if (!tread_arg_type_name(a->type))
        fuzz_fail("tread_arg_type_name returned NULL");
    touch_str(st, a->key, "tread_arg.key not NUL-terminated");
    touch_str(st, a->text, "tread_arg.text not NUL-terminated");
    switch (a->type) {
    case TREAD_ARG_STRING:
    case TREAD_ARG_BYTES:
        touch_str(st, a->v.s, "tread_arg.v.s not NUL-terminated");
        break;
    case TREAD_ARG_BOOL:
        mix(st, (uint64_t)a->v.b);
        break;
    case TREAD_ARG_INT:
    case TREAD_ARG_UINT:
    case TREAD_ARG_POINTER:
    case TREAD_ARG_KOID:
        mix(st, a->v.u);
        break;
    case TREAD_ARG_DOUBLE:
        mix_bytes(st, &a->v.d, sizeof a->v.d);
        break;
    default:
        break;
    }
}

/* Looks a few keys up, and checks that the first top-level key is found
 * with the type the iterator gave it (the first duplicate wins). */
static void find_keys(run_state *st, const tread_args *a, const tread_arg *first)
{
    static const char *const keys[] = {
        "data", "data.frame", "name", "args.data", "stack.0", "0", "a.0.b",
    };
    tread_arg out;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (tread_args_find(a, keys[i], strlen(keys[i]), &out))
            touch_arg(st, &out);

    if (!first || !first->key.ptr || first->key.len == 0 ||
        memchr(first->key.ptr, '.', first->key.len))
        return;
    if (!tread_args_find(a, first->key.ptr, first->key.len, &out))
        fuzz_fail("tread_args_find misses the first top-level key");
    if (out.type != first->type)
        fuzz_fail("tread_args_find gives another type than the iterator");
    touch_arg(st, &out);
}

/* Walks a tread_args, skipping some containers (stressed runs only), and
 * checks the nesting. The digest takes the encoded stream, not what the
 * walk reads, since the skips differ between the runs. */
static void walk_args(run_state *st, const tread_args *a, int is_dict)
{
    tread_args_iter it;
    tread_arg arg, first;
    char first_key[128];
    int open = 0, have_first = 0;

    memset(&first, 0, sizeof first);
    if (a->len && !a->data)
        fuzz_fail("tread_args with a length but no data");
    /* The encoded stream is the same whatever the chunking. */
    if (a->data)
        mix_bytes(st, a->data, a->len);
    else
        mix(st, 0);
    uint64_t saved = st->out->digest;

    tread_args_iter_init(&it, a);
    while (tread_args_next(&it, &arg)) {
        touch_arg(st, &arg);
        if (arg.depth < 0)
            fuzz_fail("tread_arg.depth < 0");
        if (!have_first) {
            first = arg;
            have_first = 1;
            /* a key may live in the iterator (TREAD_ARGS_PROTO's unknown
             * field numbers): valid only until the next call, so keep a
             * copy */
            if (arg.key.ptr && arg.key.len < sizeof first_key) {
                memcpy(first_key, arg.key.ptr, arg.key.len);
                first_key[arg.key.len] = '\0';
                first.key.ptr = first_key;
            } else {
                first.key.ptr = NULL;
            }
        }
        switch (arg.type) {
        case TREAD_ARG_DICT_BEGIN:
        case TREAD_ARG_ARRAY_BEGIN:
            if (st->plan->stressed && fuzz_rng_below(&st->rng, 8) == 0)
                tread_args_skip(&it);
            else
                open++;
            break;
        case TREAD_ARG_DICT_END:
        case TREAD_ARG_ARRAY_END:
            if (open == 0)
                fuzz_fail("tread_args: *_END without *_BEGIN");
            open--;
            break;
        default:
            break;
        }
    }
    if (open != 0)
        fuzz_fail("tread_args: container left open");
    if (is_dict)
        find_keys(st, a, have_first ? &first : NULL);
    st->out->digest = saved;
}

/* A container's sub-trace carries its own format (doc/architecture.md
 * section 13): a JSON trace's systemTraceEvents string is ftrace text; a
 * systrace block is ftrace text or JSON. */
static int is_sub_trace_format(tread_format container, tread_format f)
{
    if (container == TREAD_FORMAT_JSON) /* systemTraceEvents: whatever the
                                           string holds (doc/formats/json.md;
                                           an FXT one: regress_sub_trace_fxt) */
        return f != TREAD_FORMAT_UNKNOWN;
    if (container == TREAD_FORMAT_SYSTRACE)
        return f == TREAD_FORMAT_FTRACE || f == TREAD_FORMAT_JSON || f == TREAD_FORMAT_CPUPROFILE;
    return 0;
}

static void walk_raw(run_state *st, const tread_json_raw *raw)
{
    if ((unsigned)raw->section > TREAD_JSON_PROFILE_NODES)
        fuzz_fail("tread_json_raw.section out of range");
    mix(st, raw->section);
    mix(st, raw->offset);
    mix(st, raw->length);
    touch_str(st, raw->key, "tread_json_raw.key not NUL-terminated");
    walk_args(st, &raw->fields, 1);
}

/* Returns 1 (stop) every pause_every-th callback. */
static int maybe_pause(run_state *st, const char *what, uint64_t offset)
{
    int stop = 0;
    st->calls++;
    if (st->pause_every && st->calls % st->pause_every == 0) {
        st->pause_requests++;
        stop = 1;
    }
    if (st->verbose)
        fprintf(stderr, "  %s at %llu%s\n", what, (unsigned long long)offset,
                stop ? " -> stop" : "");
    return stop;
}

static int on_event(void *user, const tread_event *ev)
{
    run_state *st = user;
    st->nul_terminated = ev->format == TREAD_FORMAT_JSON || ev->format == TREAD_FORMAT_CPUPROFILE;
    st->out->events++;
    mix(st, 0xe0e0e0e0);
    if ((unsigned)ev->kind >= TREAD_EVENT_KIND_COUNT_)
        fuzz_fail("tread_event.kind out of range");
    if (!tread_event_kind_name(ev->kind))
        fuzz_fail("tread_event_kind_name returned NULL");
    if ((unsigned)ev->format >= TREAD_FORMAT_COUNT_ ||
        (st->plan->format != TREAD_FORMAT_UNKNOWN && ev->format != st->plan->format &&
         !is_sub_trace_format(st->plan->format, ev->format)))
        fuzz_fail("tread_event.format unexpected");
    if ((unsigned)ev->meta >= TREAD_META_COUNT_ || !tread_meta_name(ev->meta))
        fuzz_fail("tread_event.meta out of range");
    if ((ev->kind == TREAD_EVENT_METADATA) != (ev->meta != TREAD_META_NONE))
        fuzz_fail("tread_event.meta is NONE exactly when kind is not METADATA");
    if ((ev->flags & TREAD_PID_IS_STRING) && !ev->pid_str.ptr)
        fuzz_fail("TREAD_PID_IS_STRING without pid_str");
    if ((ev->flags & TREAD_TID_IS_STRING) && !ev->tid_str.ptr)
        fuzz_fail("TREAD_TID_IS_STRING without tid_str");

    const uint64_t nums[] = {
        (uint64_t)ev->kind, (uint64_t)ev->format, ev->flags, (uint64_t)ev->phase,
        (uint64_t)ev->ts, (uint64_t)ev->dur, (uint64_t)ev->tts, (uint64_t)ev->tdur,
        (uint64_t)ev->pid, (uint64_t)ev->tid, (uint64_t)ev->cpu, ev->id_num,
        (uint64_t)ev->scope, (uint64_t)ev->tidelta, (uint64_t)ev->ticount,
        (uint64_t)ev->meta, (uint64_t)ev->meta_num, ev->offset,
        ev->track_uuid, (uint64_t)ev->track_kind, ev->seq_id, (uint64_t)ev->raw_ts,
        ev->clock_id, (uint64_t)ev->value_int, ev->provider_id,
        ev->flow_ids.n, ev->terminating_flow_ids.n,
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        mix(st, nums[i]);
    mix_bytes(st, &ev->value, sizeof ev->value);
    const tread_str strs[] = {
        ev->pid_str, ev->tid_str, ev->name, ev->cat, ev->id, ev->id_scope,
        ev->bind_id, ev->cname, ev->sf, ev->esf, ev->parent, ev->series,
        ev->value_text, ev->meta_str, ev->provider_name,
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        touch_str(st, strs[i], "tread_event string not NUL-terminated");
    if ((unsigned)ev->track_kind >= TREAD_TRACK_COUNT_)
        fuzz_fail("tread_event.track_kind out of range");
    if ((ev->flags & TREAD_HAS_TS) && (ev->flags & TREAD_HAS_RAW_TS))
        fuzz_fail("TREAD_HAS_TS and TREAD_HAS_RAW_TS together");
    if ((ev->flow_ids.n && !ev->flow_ids.v) ||
        (ev->terminating_flow_ids.n && !ev->terminating_flow_ids.v))
        fuzz_fail("tread_ids with a count but no array");
    for (size_t i = 0; i < ev->flow_ids.n; i++)
        mix(st, ev->flow_ids.v[i]);
    for (size_t i = 0; i < ev->terminating_flow_ids.n; i++)
        mix(st, ev->terminating_flow_ids.v[i]);

    walk_args(st, &ev->args, 1);
    walk_args(st, &ev->stack, 0);
    walk_args(st, &ev->estack, 0);
    if ((ev->format == TREAD_FORMAT_JSON || ev->format == TREAD_FORMAT_CPUPROFILE) && ev->raw)
        walk_raw(st, ev->raw);
    return maybe_pause(st, tread_event_kind_name(ev->kind), ev->offset);
}

static int on_warning(void *user, const tread_warning *w)
{
    run_state *st = user;
    st->nul_terminated = 1;
    st->out->warnings++;
    mix(st, 0x3a3a3a3a);
    if ((unsigned)w->kind >= TREAD_WARN_KIND_COUNT_ || !tread_warning_name(w->kind))
        fuzz_fail("tread_warning.kind out of range");
    if (!w->message)
        fuzz_fail("tread_warning.message is NULL");
    if (w->kind == TREAD_WARN_COMPRESSED_TRUNCATED ||
        (w->kind == TREAD_WARN_BAD_RECORD && strstr(w->message, "does not decompress")))
        st->out->inflate_damage = 1;
    mix(st, (uint64_t)w->kind);
    mix(st, w->offset);
    touch(st, w->message, strlen(w->message), "tread_warning.message");
    return maybe_pause(st, w->message, w->offset);
}

static int on_json_raw(void *user, const tread_json_raw *raw)
{
    run_state *st = user;
    st->nul_terminated = 1;
    st->out->records++;
    mix(st, 0x7a7a7a7a);
    walk_raw(st, raw);
    return maybe_pause(st, "json_raw", raw->offset);
}

/* Blob pieces may break anywhere (they follow the input chunks), so the
 * digest takes their bytes one by one and the blob's facts once, at its
 * last piece; pieces must follow each other. */
static int on_blob(void *user, const tread_blob *b)
{
    run_state *st = user;
    st->nul_terminated = 0;
    if (b->len && !b->data)
        fuzz_fail("tread_blob with a length but no data");
    if (b->piece_offset + b->len > b->total_size)
        fuzz_fail("tread_blob piece past the total size");
    if (b->last && b->piece_offset + b->len != b->total_size)
        fuzz_fail("tread_blob last piece does not end the blob");
    for (size_t i = 0; i < b->len; i++)
        mix(st, b->data[i]);
    if (b->last) {
        mix(st, 0xb10bb10b);
        mix(st, b->total_size);
        mix(st, b->blob_type);
        mix(st, b->offset);
        touch_str(st, b->name, "tread_blob.name");
    }
    return maybe_pause(st, "blob", b->offset);
}

/* The raw hooks of the binary formats: the records themselves are checked
 * through the events made from them; here, that every call may stop, and
 * (Perfetto) that the packet is described the same whichever reader
 * reads it, however the input is cut. */
static int on_perfetto_packet(void *user, const tread_perfetto_packet *pkt)
{
    run_state *st = user;
    st->out->records++;
    mix(st, 0x9a9a9a9a);
    mix(st, pkt->offset);
    mix_bytes(st, pkt->data, pkt->len);
    mix(st, pkt->seq_id);
    mix(st, pkt->clock_id);
    mix(st, pkt->sequence_flags);
    mix(st, pkt->state);
    mix(st, pkt->trace_clock_id);
    if (pkt->state & TREAD_PF_STATE_HAS_TS)
        mix(st, (uint64_t)pkt->ts);
    return maybe_pause(st, "perfetto_packet", pkt->offset);
}

static int on_fxt_record(void *user, const tread_fxt_record *rec)
{
    run_state *st = user;
    (void)rec;
    st->out->records++;
    mix(st, 0xf7f7f7f7);
    return maybe_pause(st, "fxt_record", 0);
}

/* Checks a status against the stop requests made during the call that
 * returned it: PAUSED needs a request, and a request must not be lost. */
static void check_status(const run_state *st, tread_status s, uint64_t requests_before)
{
    int asked = st->pause_requests != requests_before;
    switch (s) {
    case TREAD_STATUS_PAUSED:
        if (!asked)
            fuzz_fail("TREAD_STATUS_PAUSED though no callback asked to stop");
        break;
    case TREAD_STATUS_OK:
        if (asked)
            fuzz_fail("a callback asked to stop but the call returned OK");
        break;
    case TREAD_STATUS_ERROR:
        break;
    default:
        fuzz_fail("unknown tread_status");
    }
}

/* Resumes while paused, checking each status; returns the final one. */
static tread_status settle(tread_parser *p, run_state *st, tread_status s,
                           uint64_t requests_before)
{
    if (st->verbose)
        fprintf(stderr, "  -> status %d\n", s);
    check_status(st, s, requests_before);
    while (s == TREAD_STATUS_PAUSED) {
        tread_stats stats;
        tread_get_stats(p, &stats);
        /* Every callback stands for some input; many more calls than
         * bytes means resume delivers the same thing again and again. */
        if (st->calls > 8 * stats.bytes_decoded + 64)
            fuzz_fail("more callbacks than decoded bytes: resume repeats itself?");
        requests_before = st->pause_requests;
        s = tread_resume(p);
        if (st->verbose)
            fprintf(stderr, "  tread_resume -> status %d\n", s);
        check_status(st, s, requests_before);
    }
    return s;
}

static void check_error(const tread_parser *p)
{
    tread_error e = tread_get_error(p);
    if (e == TREAD_ERROR_NONE)
        fuzz_fail("TREAD_STATUS_ERROR with TREAD_ERROR_NONE");
    if ((unsigned)e >= TREAD_ERROR_COUNT_ || !tread_error_name(e))
        fuzz_fail("tread_get_error out of range");
    const char *msg = tread_get_error_message(p);
    if (!msg)
        fuzz_fail("tread_get_error_message returned NULL");
    (void)strlen(msg);
    (void)tread_get_error_offset(p);
}

static void check_stats(const tread_parser *p, const fuzz_plan *plan,
                        const fuzz_outcome *out, size_t fed)
{
    tread_stats stats;
    tread_get_stats(p, &stats);
    if (stats.events != out->events)
        fuzz_fail("tread_stats.events differs from the events delivered");
    uint64_t sum = 0;
    for (int k = 0; k < TREAD_EVENT_KIND_COUNT_; k++)
        sum += stats.events_by_kind[k];
    if (sum != stats.events)
        fuzz_fail("tread_stats.events_by_kind does not add up to events");
    if (stats.warnings < out->warnings)
        fuzz_fail("tread_stats.warnings below the warnings delivered");
    sum = 0;
    for (int k = 0; k < TREAD_WARN_KIND_COUNT_; k++)
        sum += stats.warnings_by_kind[k];
    if (sum != stats.warnings)
        fuzz_fail("tread_stats.warnings_by_kind does not add up to warnings");
    if (stats.bytes_in != fed)
        fuzz_fail("tread_stats.bytes_in differs from the bytes fed");
    if ((unsigned)stats.format >= TREAD_FORMAT_COUNT_ || !tread_format_name(stats.format) ||
        (unsigned)stats.compression >= TREAD_COMPRESSION_COUNT_ ||
        !tread_compression_name(stats.compression))
        fuzz_fail("tread_stats.format/compression out of range");
    if (plan->format != TREAD_FORMAT_UNKNOWN && stats.events && stats.format != plan->format)
        fuzz_fail("tread_stats.format differs from the forced format");
    /* format counters (a container's include its sub-traces'): named, and
     * as many on a sized call as on the counting one */
    tread_counter cs[64];
    size_t n = tread_get_format_counters(p, NULL, 0);
    size_t m = tread_get_format_counters(p, cs, 64);
    if (n != m)
        fuzz_fail("tread_get_format_counters: the count differs between calls");
    for (size_t i = 0; i < m && i < 64; i++)
        if (!cs[i].name || !cs[i].name[0])
            fuzz_fail("tread_get_format_counters: a counter without a name");
}

/* Size of the next chunk: the mode is fixed per run, sizes vary. */
static size_t next_chunk(run_state *st, unsigned mode, size_t left)
{
    static const size_t caps[] = {SIZE_MAX, 1, 3, 16, 512, SIZE_MAX};
    size_t cap = caps[mode] < st->plan->max_chunk ? caps[mode] : st->plan->max_chunk;
    size_t n = mode == 0 || mode == 1 ? cap : 1 + (size_t)fuzz_rng_below(&st->rng, cap);
    return n < left ? n : left;
}

void fuzz_run(tread_parser *p, const fuzz_plan *plan, const uint8_t *data,
              size_t size, fuzz_outcome *out)
{
    run_state st;
    memset(&st, 0, sizeof st);
    memset(out, 0, sizeof *out);
    out->digest = plan->digest_seed;
    st.plan = plan;
    st.out = out;
    fuzz_rng_init(&st.rng, data, size);
    unsigned mode = 0;
    if (plan->stressed) {
        mode = (unsigned)fuzz_rng_below(&st.rng, 6);
        /* A third of the runs never pause; the others pause every
         * 1st..7th call. */
        uint64_t k = fuzz_rng_below(&st.rng, 10);
        st.pause_every = k < 3 ? 0 : (unsigned)(k - 2);
    }
    st.verbose = getenv("TREAD_FUZZ_VERBOSE") != NULL;
    if (st.verbose)
        fprintf(stderr, "fuzz: %s run, chunk mode %u, pause every %u\n",
                plan->stressed ? "stressed" : "reference", mode, st.pause_every);
    tread_callbacks cb = {.event = on_event, .warning = on_warning, .json_raw = on_json_raw,
                          .blob = on_blob, .perfetto_packet = on_perfetto_packet,
                          .fxt_record = on_fxt_record};
    tread_set_callbacks(p, &cb, &st);

    tread_status s = TREAD_STATUS_OK;
    size_t off = 0;
    while (off < size) {
        /* Now and then an empty feed, which must change nothing. */
        size_t n = plan->stressed && fuzz_rng_below(&st.rng, 16) == 0
                       ? 0 : next_chunk(&st, mode, size - off);
        uint64_t before = st.pause_requests;
        if (st.verbose)
            fprintf(stderr, "tread_feed %zu bytes at %zu\n", n, off);
        s = settle(p, &st, tread_feed(p, data + off, n), before);
        off += n;
        if (s == TREAD_STATUS_ERROR)
            break;
        if (plan->decoded_budget) {
            tread_stats stats;
            tread_get_stats(p, &stats);
            if (stats.bytes_decoded > plan->decoded_budget) {
                out->stopped = 1;
                break;
            }
        }
    }
    if (s != TREAD_STATUS_ERROR) {
        uint64_t before = st.pause_requests;
        if (st.verbose)
            fprintf(stderr, "tread_finish\n");
        s = settle(p, &st, tread_finish(p), before);
    }
    out->status = s;
    tread_get_stats(p, &out->stats);
    {
        tread_counter cs[FUZZ_MAX_COUNTERS];
        size_t n = tread_get_format_counters(p, cs, FUZZ_MAX_COUNTERS);
        out->ncounters = n;
        for (size_t i = 0; i < n && i < FUZZ_MAX_COUNTERS; i++) {
            snprintf(out->counters[i].name, sizeof out->counters[i].name, "%s",
                     cs[i].name ? cs[i].name : "");
            out->counters[i].value = cs[i].value;
        }
    }
    {
        /* warnings held back (TREAD_OPT_MAX_WARNINGS_REPORTED) may have
         * been a deflate stream's */
        tread_stats ws;
        tread_get_stats(p, &ws);
        if (ws.warnings_by_kind[TREAD_WARN_COMPRESSED_TRUNCATED] ||
            (ws.warnings > out->warnings && ws.warnings_by_kind[TREAD_WARN_BAD_RECORD]))
            out->inflate_damage = 1;
    }
    if (s == TREAD_STATUS_ERROR) {
        check_error(p);
        if (st.verbose)
            fprintf(stderr, "error %s at %llu: %s\n", tread_error_name(tread_get_error(p)),
                    (unsigned long long)tread_get_error_offset(p), tread_get_error_message(p));
        out->error = tread_get_error(p);
        out->error_offset = tread_get_error_offset(p);
        snprintf(out->error_message, sizeof out->error_message, "%s", tread_get_error_message(p));
        return;
    }
    check_stats(p, plan, out, off);
}

void fuzz_compare_errors(const fuzz_outcome *ref, const fuzz_outcome *run)
{
    if (ref->error_offset != run->error_offset ||
        strcmp(ref->error_message, run->error_message) != 0) {
        fprintf(stderr, "fuzz: error at %llu: %s\nvs error at %llu: %s\n",
                (unsigned long long)ref->error_offset, ref->error_message,
                (unsigned long long)run->error_offset, run->error_message);
        fuzz_fail("the two runs report different errors");
    }
}

void fuzz_compare(const fuzz_outcome *ref, const fuzz_outcome *run)
{
    if (ref->stopped || run->stopped)
        return; /* fed different amounts */
    /* A gzip/zstd stream is checked (CRC, checksum) only after its data has
     * come out, so what was parsed before a corrupt stream fails, and even
     * which error comes first, depends on the chunking. */
    if (ref->error == TREAD_ERROR_DECOMPRESS || run->error == TREAD_ERROR_DECOMPRESS)
        return;
    if (ref->status != run->status || ref->error != run->error) {
        fprintf(stderr, "fuzz: whole run: status %d (%s), stressed run: status %d (%s)\n",
                ref->status, tread_error_name(ref->error),
                run->status, tread_error_name(run->error));
        fuzz_fail("chunking or pausing changes how the parse ends");
    }
    if (ref->events != run->events || ref->warnings != run->warnings ||
        ref->records != run->records || ref->digest != run->digest) {
        fprintf(stderr, "fuzz: whole run: %llu events, %llu warnings, %llu records; "
                "stressed run: %llu, %llu, %llu\n",
                (unsigned long long)ref->events, (unsigned long long)ref->warnings,
                (unsigned long long)ref->records, (unsigned long long)run->events,
                (unsigned long long)run->warnings, (unsigned long long)run->records);
        fuzz_fail("chunking or pausing changes the callbacks or their contents");
    }
}

/* One line per statistic that differs; returns how many did. */
static int stat_differs(const char *name, int index, uint64_t a, uint64_t b)
{
    if (a == b)
        return 0;
    char at[16] = "";
    if (index >= 0)
        snprintf(at, sizeof at, "[%d]", index);
    fprintf(stderr, "fuzz: tread_stats.%s%s: %llu in the reference run, %llu in the stressed one\n",
            name, at, (unsigned long long)a, (unsigned long long)b);
    return 1;
}

void fuzz_compare_counts(const fuzz_outcome *ref, const fuzz_outcome *run)
{
    if (ref->stopped || run->stopped || ref->status != TREAD_STATUS_OK ||
        run->status != TREAD_STATUS_OK)
        return; /* fed different amounts, or stopped where an error was found */
    const tread_stats *a = &ref->stats, *b = &run->stats;
    int bad = 0;
    bad += stat_differs("bytes_in", -1, a->bytes_in, b->bytes_in);
    bad += stat_differs("bytes_decoded", -1, a->bytes_decoded, b->bytes_decoded);
    bad += stat_differs("format", -1, (uint64_t)a->format, (uint64_t)b->format);
    bad += stat_differs("compression", -1, (uint64_t)a->compression, (uint64_t)b->compression);
    bad += stat_differs("events", -1, a->events, b->events);
    for (int k = 0; k < TREAD_EVENT_KIND_COUNT_; k++)
        bad += stat_differs("events_by_kind", k, a->events_by_kind[k], b->events_by_kind[k]);
    bad += stat_differs("warnings", -1, a->warnings, b->warnings);
    for (int k = 0; k < TREAD_WARN_KIND_COUNT_; k++)
        bad += stat_differs("warnings_by_kind", k, a->warnings_by_kind[k],
                            b->warnings_by_kind[k]);
    bad += stat_differs("records", -1, a->records, b->records);
    if (bad)
        fuzz_fail("chunking or pausing changes the final statistics");
    if (ref->ncounters != run->ncounters) {
        fprintf(stderr, "fuzz: %zu format counters in the reference run, %zu in the stressed one\n",
                ref->ncounters, run->ncounters);
        bad = 1;
    }
    size_t n = ref->ncounters < run->ncounters ? ref->ncounters : run->ncounters;
    if (n > FUZZ_MAX_COUNTERS)
        n = FUZZ_MAX_COUNTERS;
    for (size_t i = 0; i < n; i++) {
        const struct fuzz_counter *x = &ref->counters[i], *y = &run->counters[i];
        if (strcmp(x->name, y->name) != 0 || x->value != y->value) {
            fprintf(stderr, "fuzz: format counter %zu: %s = %llu in the reference run, "
                    "%s = %llu in the stressed one\n", i, x->name,
                    (unsigned long long)x->value, y->name, (unsigned long long)y->value);
            bad = 1;
        }
    }
    if (bad)
        fuzz_fail("chunking or pausing changes the format counters");
}

void fuzz_compare_engines(const fuzz_outcome *zlib, const fuzz_outcome *isal)
{
    if (zlib->stopped || isal->stopped)
        return; /* fed different amounts */
    if (zlib->error == TREAD_ERROR_DECOMPRESS || isal->error == TREAD_ERROR_DECOMPRESS) {
        /* the other may fail first elsewhere (garbage that came out) */
        if (zlib->status != TREAD_STATUS_ERROR || isal->status != TREAD_STATUS_ERROR) {
            fprintf(stderr, "fuzz: zlib: status %d (%s), isa-l: status %d (%s)\n", zlib->status,
                    tread_error_name(zlib->error), isal->status, tread_error_name(isal->error));
            fuzz_fail("one inflate engine finds the gzip stream damaged, the other does not");
        }
        return;
    }
    if (zlib->inflate_damage || isal->inflate_damage) {
        if (zlib->status == TREAD_STATUS_OK && isal->status == TREAD_STATUS_OK &&
            zlib->inflate_damage != isal->inflate_damage)
            fuzz_fail("one inflate engine finds a deflate stream cut or damaged, the other not");
        return;
    }
    fuzz_compare(zlib, isal);
    fuzz_compare_errors(zlib, isal);
}

int fuzz_have_isal(void)
{
    tread_parser *p = tread_parser_create(NULL);
    if (!p)
        abort();
    int ok = tread_config(p, TREAD_OPT_INFLATE, 1) == 0;
    tread_parser_free(p);
    return ok;
}

void fuzz_forced_pair(tread_format fmt, const fuzz_option *opts, size_t n, const uint8_t *data,
                      size_t size)
{
    fuzz_outcome out[2];
    for (int i = 0; i < 2; i++) {
        fuzz_plan plan = {i, SIZE_MAX, 0, fmt, 0};
        tread_parser *p = tread_parser_create(NULL);
        if (!p)
            abort();
        if (tread_config(p, TREAD_OPT_FORMAT, fmt) != 0 ||
            tread_config(p, TREAD_OPT_DECOMPRESS, 0) != 0)
            fuzz_fail("tread_config rejects a forced format");
        for (size_t k = 0; k < n; k++)
            if (tread_config(p, opts[k].opt, opts[k].value) != 0)
                fuzz_fail("tread_config rejects a harness's option");
        fuzz_run(p, &plan, data, size, &out[i]);
        tread_parser_free(p);
    }
    fuzz_compare(&out[0], &out[1]);
    fuzz_compare_errors(&out[0], &out[1]);
    fuzz_compare_counts(&out[0], &out[1]);
}
