/* convert_sink: see convert_sink.h and doc/convert.md. */
#define _POSIX_C_SOURCE 200809L
#include "convert_sink.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int fail(convert_sink *s, const char *what, const char *path, int err)
{
    if (!s->failed)
        snprintf(s->error, sizeof s->error, "%s '%.300s': %s", what, path,
                 strerror(err));
    s->failed = 1;
    return -1;
}

static int fail_msg(convert_sink *s, const char *msg)
{
    if (!s->failed)
        snprintf(s->error, sizeof s->error, "%s", msg);
    s->failed = 1;
    return -1;
}

/* The pieces' error (it names the path and the complete pieces). */
static int fail_pieces(convert_sink *s)
{
    return fail_msg(s, split_pieces_error(s->sp));
}

const char *convert_loss_reason(convert_loss l)
{
    switch (l) {
    case CONVERT_LOSS_STACK_FRAME: return "stack frame definitions are not carried";
    case CONVERT_LOSS_BLOB: return "blobs are not carried";
    case CONVERT_LOSS_CLOCK: return "clock snapshots have no record in the output format";
    case CONVERT_LOSS_TRACE_KEYS: return "top-level keys are not carried";
    case CONVERT_LOSS_NONFINITE: return "JSON has no NaN or infinite numbers";
    case CONVERT_LOSS_UNKNOWN: return "events of unknown kind without a phase";
    case CONVERT_LOSS_TRACK:
        return "track descriptors the output format cannot hold";
    case CONVERT_LOSS_METADATA:
        return "metadata Perfetto has no field for (sort indexes, labels, "
               "names without a pid)";
    case CONVERT_LOSS_NO_VALUE: return "counters without a value";
    case CONVERT_LOSS_DUPLICATE:
        return "metadata that repeats the value in force (merged)";
    case CONVERT_LOSS_FRAME_LIMIT:
        return "stack frame definitions beyond --max-frame-bytes";
    case CONVERT_LOSS_FRAME_UNUSED:
        return "stack frame definitions no event's stack uses (Perfetto carries a frame "
               "in the callstacks that name it)";

    default: return "?";
    }
}

static void lose(convert_sink *s, convert_loss l, const tread_event *ev)
{
    unsigned k = (unsigned)ev->kind < TREAD_EVENT_KIND_COUNT_ ? (unsigned)ev->kind : 0;
    s->lost[l][k]++;
    s->lost_total++;
}

void convert_sink_print_losses(const convert_sink *s, FILE *fp)
{
    for (int l = 0; l < CONVERT_LOSS_COUNT_; l++)
        for (int k = 0; k < TREAD_EVENT_KIND_COUNT_; k++)
            if (s->lost[l][k])
                fprintf(fp, "tread: left out %llu %s events: %s\n",
                        (unsigned long long)s->lost[l][k],
                        tread_event_kind_name((tread_event_kind)k),
                        convert_loss_reason((convert_loss)l));
}

/* Why JSON has no record for an event convert_json_classify skips. */
static convert_loss json_loss(const tread_event *ev)
{
    switch (ev->kind) {
    case TREAD_EVENT_STACK_FRAME: return CONVERT_LOSS_STACK_FRAME;
    case TREAD_EVENT_BLOB: return CONVERT_LOSS_BLOB;
    case TREAD_EVENT_CLOCK_SYNC: return CONVERT_LOSS_CLOCK;
    case TREAD_EVENT_COUNTER: return CONVERT_LOSS_NONFINITE;
    case TREAD_EVENT_METADATA:
        return ev->meta == TREAD_META_TRACE ? CONVERT_LOSS_TRACE_KEYS
                                            : CONVERT_LOSS_TRACK;
    default: return CONVERT_LOSS_UNKNOWN;
    }
}

/* Why Perfetto has none for an event convert_perfetto_wanted refuses. */
static convert_loss perfetto_loss(const tread_event *ev)
{
    switch (ev->kind) {
    case TREAD_EVENT_STACK_FRAME: return CONVERT_LOSS_STACK_FRAME;
    case TREAD_EVENT_BLOB: return CONVERT_LOSS_BLOB;
    case TREAD_EVENT_CLOCK_SYNC: return CONVERT_LOSS_CLOCK;
    case TREAD_EVENT_COUNTER: return CONVERT_LOSS_NO_VALUE;
    case TREAD_EVENT_METADATA:
        return ev->meta == TREAD_META_TRACE ? CONVERT_LOSS_TRACE_KEYS
               : ev->meta == TREAD_META_TRACK_DESCRIPTOR ? CONVERT_LOSS_TRACK
                                                         : CONVERT_LOSS_METADATA;
    default: return CONVERT_LOSS_UNKNOWN;
    }
}

static int put(convert_sink *s, const void *p, size_t n)
{
    if (s->sp)
        return split_pieces_write(s->sp, p, n) == 0 ? 0 : fail_pieces(s);
    out_buf_write(s->ob, p, n);
    return 0;
}

static const char *suffix(const convert_sink *s)
{
    return s->to == CONVERT_TO_JSON ? "json" : "pftrace";
}

/* Opens the one output of convert. */
static int open_output(convert_sink *s)
{
    if (strcmp(s->path, "-") == 0) {
        s->fp = stdout;
    } else {
        s->fp = fopen(s->path, "wb");
        if (!s->fp)
            return fail(s, "cannot create", s->path, errno);
    }
    s->created = 1;
    out_buf_init(s->ob, s->fp);
    if (s->to == CONVERT_TO_JSON)
        out_buf_write(s->ob, CONVERT_JSON_HEADER, sizeof CONVERT_JSON_HEADER - 1);
    return 0;
}

/* Starts the next piece of a split: its header, a fresh state. */
static int open_piece(convert_sink *s)
{
    if (!s->sp) {
        split_pieces_config cfg = {.prefix = s->prefix, .suffix = suffix(s),
                                   .max_bytes = s->max_bytes,
                                   .max_total_bytes = s->max_total_bytes};
        char err[256];
        if (split_pieces_new(&s->sp, &cfg, err, sizeof err) != 0)
            return fail_msg(s, err);
        if (s->guard)
            split_pieces_set_guard(s->sp, s->guard, s->guard_user);
        if (s->piece_numbers)
            split_pieces_share_numbers(s->sp, s->piece_numbers);
    }
    if (split_pieces_begin(s->sp) != 0)
        return fail_pieces(s);
    s->epoch++;
    s->piece_records = 0;
    s->piece_events = 0;
    s->piece_frames = 0;
    s->piece_oversize = 0;
    if (s->to == CONVERT_TO_JSON)
        return put(s, CONVERT_JSON_HEADER, sizeof CONVERT_JSON_HEADER - 1);
    if (s->epoch > 1 && convert_perfetto_restart(&s->cp) != 0)
        return fail_msg(s, "out of memory");
    return 0;
}

static int put_cb(void *user, const void *p, size_t n)
{
    return put(user, p, n);
}

/* The JSON footer: with the piece's (or the output's) stackFrames. */
static int json_footer(convert_sink *s)
{
    if (!s->frames)
        return put(s, CONVERT_JSON_FOOTER, sizeof CONVERT_JSON_FOOTER - 1);
    return frame_table_footer(s->frames, s->sp ? s->epoch : 1, put_cb, s);
}

static int close_piece(convert_sink *s)
{
    if (s->to == CONVERT_TO_JSON && json_footer(s) != 0)
        return -1;
    return split_pieces_end(s->sp) == 0 ? 0 : fail_pieces(s);
}

/* Bytes the current piece's stackFrames take (beyond the plain footer). */
static size_t frame_bytes(const convert_sink *s)
{
    return s->frames ? frame_table_bytes(s->frames, s->epoch) : 0;
}

int convert_sink_open(convert_sink *s, convert_to to, const char *path,
                      const char *prefix, uint64_t max_bytes,
                      uint64_t max_interned)
{
    memset(s, 0, sizeof *s);
    s->to = to;
    s->path = path;
    s->prefix = prefix;
    s->max_bytes = max_bytes;
    convert_json_init(&s->cj);
    if (convert_perfetto_init(&s->cp, max_interned,
                              CONVERT_PF_MAX_TRACKS_DEFAULT) != 0)
        return fail_msg(s, "out of memory");
    s->ob = malloc(sizeof *s->ob);
    if (!s->ob)
        return fail_msg(s, "out of memory");
    if (prefix) { /* JSON pieces stage each record */
        s->mem = open_memstream(&s->mem_data, &s->mem_size);
        s->stage = malloc(sizeof *s->stage);
        s->meta = split_meta_new(CONVERT_MAX_REPEATED_METADATA);
        if (!s->mem || !s->stage || !s->meta)
            return fail_msg(s, "out of memory");
        out_buf_init(s->stage, s->mem);
    }
    return 0; /* the output is opened at the first event (split picks its
                 format from the input's) or at the end */
}

/* After a record went into an empty piece: a piece over max_bytes holds
 * one event larger on its own (with its header and metadata). */
static void check_oversize(convert_sink *s)
{
    if (!s->piece_oversize && split_pieces_size(s->sp) +
        (s->to == CONVERT_TO_JSON ? sizeof CONVERT_JSON_FOOTER - 1 + frame_bytes(s) : 0) >
        s->max_bytes) {
        s->piece_oversize = 1;
        split_pieces_oversize(s->sp);
    }
}

/* Stages the record of ev in s->mem_data; its length, or -1. */
static long stage_record(convert_sink *s, const tread_event *ev)
{
    if (fseeko(s->mem, 0, SEEK_SET) != 0)
        return fail_msg(s, "cannot stage a record");
    out_buf_init(s->stage, s->mem);
    if (convert_json_event(&s->cj, s->stage, ev) != 0 ||
        out_buf_flush(s->stage) != 0)
        return fail_msg(s, "out of memory while staging a record");
    off_t n = ftello(s->mem);
    if (n < 0 || n > (off_t)0x7fffffff)
        return fail_msg(s, "cannot stage a record");
    return (long)n;
}

static int json_split_event(convert_sink *s, const tread_event *ev, cvj_class c)
{
    const size_t sep = sizeof CONVERT_JSON_SEPARATOR - 1;
    const size_t footer = sizeof CONVERT_JSON_FOOTER - 1;
    long n = stage_record(s, ev);
    if (n < 0)
        return -1;
    size_t len = (size_t)n;
    /* a repeat of the value in force is no new fact */
    if (c == CVJ_METADATA && split_meta_repeats(s->meta, ev, s->mem_data, len)) {
        lose(s, CONVERT_LOSS_DUPLICATE, ev);
        return 0;
    }
    split_meta_slot *need[SPLIT_META_MAX_NEEDED];
    size_t nneed = c == CVJ_EVENT ? split_meta_needed(s->meta, ev, s->epoch, need) : 0;
    size_t extra = 0;
    for (size_t i = 0; i < nneed; i++)
        extra += need[i]->len + sep;
    /* the stack frames it uses, with their parents, in the piece's footer */
    if (s->frames)
        extra += frame_bytes(s) + frame_table_cost(s->frames, ev, s->epoch);
    if ((s->piece_records || s->piece_frames) &&
        split_pieces_size(s->sp) + extra + sep + len + footer > s->max_bytes) {
        if (close_piece(s) != 0 || open_piece(s) != 0)
            return -1;
        nneed = c == CVJ_EVENT ? split_meta_needed(s->meta, ev, s->epoch, need) : 0;
    }
    if (s->frames)
        frame_table_use(s->frames, ev, s->epoch);
    if (c == CVJ_METADATA &&
        split_meta_put(s->meta, ev, s->mem_data, len, s->epoch) == 2 &&
        split_meta_full(s->meta) && !s->meta_warned) {
        s->meta_warned = 1;
        fprintf(stderr, "tread: warning: more than %u bytes of process "
                "and thread metadata: later ones are not repeated in the "
                "pieces that need them\n", CONVERT_MAX_REPEATED_METADATA);
    }
    for (size_t i = 0; i < nneed; i++) {
        if ((s->piece_records && put(s, CONVERT_JSON_SEPARATOR, sep) != 0) ||
            put(s, need[i]->rec, need[i]->len) != 0)
            return -1;
        need[i]->epoch = s->epoch;
        s->piece_records++;
        s->repeated++;
    }
    if ((s->piece_records && put(s, CONVERT_JSON_SEPARATOR, sep) != 0) ||
        put(s, s->mem_data, len) != 0)
        return -1;
    s->piece_records++;
    s->piece_events++;
    s->records++;
    if (s->piece_events == 1)
        check_oversize(s);
    return 0;
}

/* A stack frame definition: held for the output's (or each piece's)
 * top-level stackFrames (tools/frame_table.c). */
static int json_frame(convert_sink *s, const tread_event *ev)
{
    if (s->prefix && (s->piece_records || s->piece_frames) &&
        split_pieces_size(s->sp) + frame_bytes(s) + frame_table_cost(s->frames, ev, s->epoch) +
        sizeof CONVERT_JSON_FOOTER - 1 > s->max_bytes) {
        if (close_piece(s) != 0 || open_piece(s) != 0)
            return -1;
    }
    switch (frame_table_put(s->frames, ev, s->prefix ? s->epoch : 1)) {
    case FRAME_REPEAT: lose(s, CONVERT_LOSS_DUPLICATE, ev); return 0;
    case FRAME_NOT_KEPT: lose(s, CONVERT_LOSS_FRAME_LIMIT, ev); return 0;
    case FRAME_REPLACED: /* (both definitions are written) */
    case FRAME_NEW: break;
    }
    if (s->prefix && s->piece_frames++ == 0 && !s->piece_records)
        check_oversize(s);
    return 0;
}

static int json_event(convert_sink *s, const tread_event *ev)
{
    cvj_class c = convert_json_classify(ev);
    const size_t sep = sizeof CONVERT_JSON_SEPARATOR - 1;
    if (!s->frames) {
        s->frames = frame_table_new(s->max_frame_bytes ? (size_t)s->max_frame_bytes
                                                       : FRAME_TABLE_DEFAULT_MAX_BYTES);
        if (!s->frames)
            return fail_msg(s, "out of memory");
    }
    if (ev->kind == TREAD_EVENT_STACK_FRAME)
        return json_frame(s, ev);
    if (c == CVJ_SKIP) {
        lose(s, json_loss(ev), ev);
        return 0;
    }
    if (s->prefix)
        return json_split_event(s, ev, c);
    /* one output: straight to it */
    if (s->records)
        out_buf_write(s->ob, CONVERT_JSON_SEPARATOR, sep);
    if (convert_json_event(&s->cj, s->ob, ev) != 0)
        return fail_msg(s, "out of memory while writing args");
    s->records++;
    return s->ob->failed ? fail(s, "cannot write", s->path, s->ob->err) : 0;
}

static int perfetto_event(convert_sink *s, const tread_event *ev)
{
    if (ev->kind == TREAD_EVENT_STACK_FRAME) {
        /* held for the callstacks of the events that name it */
        s->cp.max_frame_bytes = s->max_frame_bytes;
        int rc = convert_perfetto_frame(&s->cp, ev);
        if (rc < 0)
            return fail_msg(s, s->cp.error);
        if (rc == 1)
            lose(s, CONVERT_LOSS_FRAME_LIMIT, ev);
        else if (s->sf_missing)
            s->frames_late++;
        return 0;
    }
    if (!convert_perfetto_wanted(ev)) {
        lose(s, perfetto_loss(ev), ev);
        return 0;
    }
    if (convert_perfetto_event(&s->cp, ev) != 0)
        return fail_msg(s, s->cp.error);
    if (!s->cp.out.len) { /* a name that was given already */
        lose(s, CONVERT_LOSS_DUPLICATE, ev);
        return 0;
    }
    if (s->prefix && s->piece_records &&
        split_pieces_size(s->sp) + s->cp.out.len > s->max_bytes) {
        /* encode it again after the restart: its interned names and
         * tracks must be in the new piece */
        pb_clear(&s->cp.out);
        if (close_piece(s) != 0 || open_piece(s) != 0)
            return -1;
        if (convert_perfetto_event(&s->cp, ev) != 0)
            return fail_msg(s, s->cp.error);
    }
    if (put(s, s->cp.out.data, s->cp.out.len) != 0)
        return -1;
    pb_clear(&s->cp.out);
    s->records++;
    s->sf_missing += s->cp.last_sf_missing;
    if (s->prefix) {
        s->piece_records++;
        if (s->piece_records == 1)
            check_oversize(s);
    } else if (s->ob->failed) {
        return fail(s, "cannot write", s->path, s->ob->err);
    }
    return 0;
}

/* Opens the output at the first event (or at the end). */
static int start(convert_sink *s, tread_format format)
{
    if (s->to == CONVERT_TO_NONE)
        s->to = format == TREAD_FORMAT_PERFETTO ? CONVERT_TO_PERFETTO
                                                : CONVERT_TO_JSON;
    return s->prefix ? open_piece(s) : open_output(s);
}

int convert_sink_event(convert_sink *s, const tread_event *ev)
{
    if (s->failed)
        return -1;
    if (!s->created && !s->sp && start(s, ev->format) != 0)
        return -1;
    return s->to == CONVERT_TO_JSON ? json_event(s, ev) : perfetto_event(s, ev);
}

cvp_stacks *convert_sink_take_frames(convert_sink *s)
{
    cvp_stacks *st = s->cp.stacks;
    s->cp.stacks = NULL;
    return st;
}

void convert_sink_preload_frames(convert_sink *s, cvp_stacks *st)
{
    cvp_stacks_free(s->cp.stacks);
    cvp_stacks_rewind(st);
    s->cp.stacks = st;
    s->frames_ahead = 1;
}

int convert_sink_close(convert_sink *s)
{
    if (s->failed)
        return -1;
    if (s->cp.stacks) {
        /* (counted once: a container's split closes the sink twice) */
        uint64_t n = cvp_stacks_unused(s->cp.stacks) - s->frames_unused;
        s->frames_unused += n;
        s->lost[CONVERT_LOSS_FRAME_UNUSED][TREAD_EVENT_STACK_FRAME] += n;
        s->lost_total += n;
    }
    if (!s->created && !s->sp && start(s, TREAD_FORMAT_JSON) != 0)
        return -1; /* no event at all: an empty trace */
    if (s->sp)
        return close_piece(s);
    if (s->to == CONVERT_TO_JSON)
        json_footer(s); /* (into ob: a write error shows at the flush) */
    int rc = 0;
    if (out_buf_flush(s->ob) != 0)
        rc = fail(s, "cannot write", s->path, s->ob->err);
    if (s->fp != stdout) {
        if (fclose(s->fp) != 0 && rc == 0)
            rc = fail(s, "cannot write", s->path, errno);
    } else if (fflush(stdout) != 0 && rc == 0) {
        rc = fail(s, "cannot write", s->path, errno);
    }
    s->fp = NULL;
    return rc;
}

void convert_sink_free(convert_sink *s)
{
    if (s->fp && s->fp != stdout)
        fclose(s->fp);
    s->fp = NULL;
    split_pieces_free(s->sp); /* removes a partial piece */
    if (s->mem)
        fclose(s->mem);
    free(s->mem_data);
    free(s->stage);
    free(s->ob);
    split_meta_free(s->meta);
    frame_table_free(s->frames);
    convert_json_free(&s->cj);
    convert_perfetto_free(&s->cp);
    memset(s, 0, sizeof *s);
}
