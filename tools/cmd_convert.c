/* tread convert: a trace of any format as Chrome JSON or Perfetto protobuf,
 * streamed (doc/convert.md). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_input.h"
#include "commands.h"
#include "convert_sink.h"
#include "split_ftrace.h"
#include "split_fxt.h"
#include "split_perfetto.h"

/* How a split writes its pieces: decided at the first record or event. */
enum { MODE_UNDECIDED = 0, MODE_SINK, MODE_FXT, MODE_PERFETTO,
       MODE_TEXT /* ftrace text pieces for the lines, the sink (JSON
                    pieces) for a container's other events */ };

typedef struct guard_ctx {
    cli_input *in;
    const convert_sink *sink;
    const int *mode;
} guard_ctx;

typedef struct run_ctx {
    const cli_options *opt;
    const char *prefix;
    convert_sink *sink;
    guard_ctx *g;
    int mode;
    split_pieces *sp;        /* native splits */
    split_fxt *fxt;
    split_perfetto *pf;
    split_ftrace *ft;
    int last_writer;         /* MODE_TEXT: 1 ftrace pieces, 2 the sink */
    uint64_t piece_numbers;  /* MODE_TEXT: both writers' pieces, in order */
    int failed;              /* a native split failed: error holds why */
    char error[4096];
} run_ctx;

static uint64_t default_guard(void *user, const split_pieces *sp);
static uint64_t text_guard(void *user, const split_pieces *sp);

static int native_fail(run_ctx *r, const char *msg)
{
    if (!r->failed)
        snprintf(r->error, sizeof r->error, "%s", msg);
    r->failed = 1;
    return 1;
}

/* The pieces of a split into the input's own format. */
static int start_pieces(run_ctx *r, const char *suffix)
{
    split_pieces_config cfg = {.prefix = r->prefix, .suffix = suffix,
                               .max_bytes = r->sink->max_bytes,
                               .max_total_bytes = r->sink->max_total_bytes};
    char err[256];
    if (split_pieces_new(&r->sp, &cfg, err, sizeof err) != 0)
        return native_fail(r, err);
    if (r->sink->guard)
        split_pieces_set_guard(r->sp, r->sink->guard, r->sink->guard_user);
    return 0;
}

/* ftrace text or a systrace container split without --to: the lines of
 * its ftrace texts into ftrace text pieces (split_ftrace.c), a
 * container's other events (JSON blocks, process dumps) through the sink
 * into JSON pieces. Both count against one --max-total-bytes. */
static int start_text(run_ctx *r)
{
    r->sink->guard = text_guard;
    r->sink->guard_user = r;
    r->sink->piece_numbers = &r->piece_numbers;
    if (start_pieces(r, "txt") != 0)
        return 1;
    split_pieces_share_numbers(r->sp, &r->piece_numbers);
    if (!(r->ft = split_ftrace_new(r->sp)))
        return native_fail(r, "out of memory");
    r->mode = MODE_TEXT;
    return 0;
}

/* Is this parse one to split as ftrace text (decided at its first line or
 * event)? */
static int text_input(const run_ctx *r)
{
    if (!r->prefix || r->opt->convert_to != CLI_TO_NONE)
        return 0;
    tread_stats st;
    tread_get_stats(r->g->in->parser, &st);
    return st.format == TREAD_FORMAT_FTRACE || st.format == TREAD_FORMAT_SYSTRACE;
}

/* MODE_TEXT: the pieces of the other writer may have grown since this
 * one's guard last looked: make its next write ask again. */
static void switch_writer(run_ctx *r, int to)
{
    split_pieces *sp = to == 1 ? r->sp : r->sink->sp;
    if (r->last_writer != to && r->last_writer && sp)
        split_pieces_set_max_total(sp, split_pieces_total(sp));
    r->last_writer = to;
}

static int on_ftrace_line(void *user, const tread_ftrace_line *l)
{
    run_ctx *r = user;
    if (r->mode == MODE_UNDECIDED) {
        if (text_input(r)) {
            if (start_text(r) != 0)
                return 1;
        } else {
            r->mode = MODE_SINK;
        }
    }
    if (r->mode != MODE_TEXT)
        return 0;
    switch_writer(r, 1);
    return split_ftrace_line(r->ft, l) != 0 ? native_fail(r, split_ftrace_error(r->ft)) : 0;
}

/* FXT input split without --to: FXT pieces (split_fxt.c). */
static int start_fxt(run_ctx *r)
{
    if (start_pieces(r, "fxt") != 0)
        return 1;
    if (!(r->fxt = split_fxt_new(r->sp)))
        return native_fail(r, "out of memory");
    r->mode = MODE_FXT;
    return 0;
}

/* Perfetto input split without --to or --to perfetto: Perfetto pieces,
 * packets copied (split_perfetto.c). */
static int start_perfetto(run_ctx *r)
{
    if (start_pieces(r, "pftrace") != 0)
        return 1;
    if (!(r->pf = split_perfetto_new(r->sp)))
        return native_fail(r, "out of memory");
    r->mode = MODE_PERFETTO;
    return 0;
}

static int on_packet(void *user, const tread_perfetto_packet *pk)
{
    run_ctx *r = user;
    if (r->mode == MODE_UNDECIDED) {
        if (r->prefix && r->opt->convert_to != CLI_TO_JSON) {
            if (start_perfetto(r) != 0)
                return 1;
        } else {
            r->mode = MODE_SINK;
        }
    }
    if (r->mode != MODE_PERFETTO)
        return 0;
    return split_perfetto_packet(r->pf, pk) != 0
               ? native_fail(r, split_perfetto_error(r->pf)) : 0;
}

static int on_event(void *user, const tread_event *ev)
{
    run_ctx *r = user;
    if (r->mode == MODE_FXT)
        return split_fxt_event(r->fxt, ev) != 0 ? native_fail(r, split_fxt_error(r->fxt)) : 0;
    if (r->mode == MODE_PERFETTO)
        return split_perfetto_event(r->pf, ev) != 0
                   ? native_fail(r, split_perfetto_error(r->pf)) : 0;
    if (r->mode == MODE_UNDECIDED && text_input(r) && start_text(r) != 0)
        return 1;
    if (r->mode == MODE_TEXT) {
        if (ev->format == TREAD_FORMAT_FTRACE)
            return 0; /* its line is in an ftrace piece */
        switch_writer(r, 2);
        return convert_sink_event(r->sink, ev) != 0;
    }
    r->mode = MODE_SINK;
    return convert_sink_event(r->sink, ev) != 0;
}

static int on_fxt_record(void *user, const tread_fxt_record *rec)
{
    run_ctx *r = user;
    if (r->mode == MODE_UNDECIDED) {
        if (r->prefix && r->opt->convert_to == CLI_TO_NONE) {
            if (start_fxt(r) != 0)
                return 1;
        } else {
            r->mode = MODE_SINK;
        }
    }
    if (r->mode != MODE_FXT)
        return 0;
    return split_fxt_record(r->fxt, rec) != 0 ? native_fail(r, split_fxt_error(r->fxt)) : 0;
}

static int on_blob(void *user, const tread_blob *b)
{
    run_ctx *r = user;
    if (r->mode != MODE_FXT)
        return 0;
    return split_fxt_blob(r->fxt, b) != 0 ? native_fail(r, split_fxt_error(r->fxt)) : 0;
}

/* Bytes the input holds beyond bytes_decoded: Perfetto compressed
 * packets, expanded (their packets are copied expanded into pieces). */
static uint64_t decoded_extra(const tread_parser *p)
{
    tread_counter c[64];
    size_t n = tread_get_format_counters(p, c, 64);
    for (size_t i = 0; i < n && i < 64; i++)
        if (strcmp(c[i].name, "compressed_bytes_expanded") == 0)
            return c[i].value;
    return 0;
}

/* The default --max-total-bytes: a multiple of the input decoded so far,
 * plus a fixed allowance per piece and in all (doc/convert.md). */
static uint64_t default_guard(void *user, const split_pieces *sp)
{
    guard_ctx *g = user;
    tread_stats st;
    tread_get_stats(g->in->parser, &st);
    uint64_t pieces = split_pieces_count(sp) + 1;
    st.bytes_decoded += decoded_extra(g->in->parser);
    int same = *g->mode == MODE_FXT || *g->mode == MODE_PERFETTO || *g->mode == MODE_TEXT ||
               (st.format == TREAD_FORMAT_JSON && g->sink->to == CONVERT_TO_JSON) ||
               (st.format == TREAD_FORMAT_PERFETTO && g->sink->to == CONVERT_TO_PERFETTO);
    uint64_t factor = same ? SPLIT_TOTAL_FACTOR_SAME : SPLIT_TOTAL_FACTOR_CONVERT;
    uint64_t v = st.bytes_decoded * factor;
    if (v / factor != st.bytes_decoded)
        return UINT64_MAX;
    v += SPLIT_TOTAL_SLACK + pieces * SPLIT_PIECE_ALLOWANCE;
    return v < st.bytes_decoded ? UINT64_MAX : v;
}

static uint64_t input_decoded(const cli_input *in)
{
    tread_stats st;
    tread_get_stats(in->parser, &st);
    return st.bytes_decoded;
}

/* MODE_TEXT: the guard of both writers, ftrace pieces and the sink's:
 * the limit in force less what the other has written. */
static uint64_t text_guard(void *user, const split_pieces *sp)
{
    run_ctx *r = user;
    const split_pieces *other = sp == r->sp ? r->sink->sp : r->sp;
    uint64_t lim;
    if (r->opt->max_total_bytes > 0) {
        lim = (uint64_t)r->opt->max_total_bytes;
    } else {
        lim = default_guard(r->g, sp);
        if (other && lim != UINT64_MAX)
            lim += split_pieces_count(other) * (uint64_t)SPLIT_PIECE_ALLOWANCE;
    }
    uint64_t o = other ? split_pieces_total(other) : 0;
    return lim > o ? lim - o : 0;
}

static int regular_file(const char *path)
{
    struct stat sb;
    return path && strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* A conversion to Perfetto whose events named stack frames defined only
 * after them (a JSON trace's stackFrames object after its traceEvents,
 * as Chrome and catapult write it) runs again, the frames known ahead,
 * when both the input and the output are regular files: a stream cannot
 * look ahead, but a file can be read twice (doc/convert.md). */
static int second_pass_wanted(const convert_sink *sink, const cli_options *opt,
                              const char *path, const char *prefix)
{
    return sink->to == CONVERT_TO_PERFETTO && !prefix && !sink->frames_ahead &&
           sink->sf_missing && sink->frames_late && regular_file(opt->path) &&
           regular_file(path);
}

/* Is OUT the input file itself? Writing it would truncate what is being
 * read (and a second pass would read the output). */
static int same_file(const char *in, const char *out)
{
    struct stat a, b;
    return in && out && strcmp(in, "-") != 0 && strcmp(out, "-") != 0 && stat(in, &a) == 0 &&
           stat(out, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Shared by convert and split: runs the parse into the sink. */
int convert_run(const cli_options *opt, const char *path, const char *prefix,
                uint64_t max_bytes)
{
    if (!prefix && same_file(opt->path, path)) {
        diag d0;
        diag_init(&d0, 0);
        diag_error(&d0, "OUT %s is the input file: writing it would destroy the input", path);
        return EXIT_USAGE;
    }
    cvp_stacks *ahead = NULL; /* the first pass's frames, for the second */
    uint64_t first_pass_missing = 0;
again:;
    convert_sink sink;
    cli_input in;
    memset(&in, 0, sizeof in);
    convert_to to = opt->convert_to == CLI_TO_PERFETTO ? CONVERT_TO_PERFETTO
                    : opt->convert_to == CLI_TO_JSON ? CONVERT_TO_JSON
                                                     : CONVERT_TO_NONE;
    uint64_t max_interned = opt->max_interned > 0
                                ? (uint64_t)opt->max_interned
                                : CONVERT_PF_MAX_INTERNED_DEFAULT;
    diag d;
    diag_init(&d, opt->quiet);
    if (convert_sink_open(&sink, to, path, prefix, max_bytes, max_interned) != 0) {
        diag_error(&d, "%s: %s", tread_error_name(TREAD_ERROR_IO), sink.error);
        convert_sink_free(&sink);
        return EXIT_INPUT_ERROR;
    }
    if (opt->max_frame_bytes > 0)
        sink.max_frame_bytes = (uint64_t)opt->max_frame_bytes;
    if (ahead)
        convert_sink_preload_frames(&sink, ahead);
    ahead = NULL;
    run_ctx r = {.opt = opt, .prefix = prefix, .sink = &sink};
    guard_ctx g = {&in, &sink, &r.mode};
    r.g = &g;
    if (prefix && opt->max_total_bytes > 0) {
        sink.max_total_bytes = (uint64_t)opt->max_total_bytes;
    } else if (prefix) {
        sink.max_total_bytes = SPLIT_TOTAL_SLACK;
        sink.guard = default_guard;
        sink.guard_user = &g;
    }
    int to_stdout = path && strcmp(path, "-") == 0;
    /* split: FXT records and Perfetto packets are copied into pieces of
     * their own format (the raw hooks) */
    const cli_hooks hooks = {.on_packet = prefix ? on_packet : NULL,
                             .on_fxt_record = prefix ? on_fxt_record : NULL,
                             .on_blob = prefix ? on_blob : NULL,
                             .on_ftrace_line = prefix ? on_ftrace_line : NULL};
    /* the second pass's warnings are the first's: said once */
    cli_options quiet_opt = *opt;
    quiet_opt.quiet = 1;
    int rc = cli_input_run_hooks(&in, sink.frames_ahead ? &quiet_opt : opt,
                                 !to_stdout || !isatty(STDOUT_FILENO), on_event, &hooks, &r);
    int close_rc = 0;
    if (rc != EXIT_USAGE && r.mode == MODE_FXT && !r.failed &&
        split_fxt_finish(r.fxt, input_decoded(&in)) != 0)
        native_fail(&r, split_fxt_error(r.fxt));
    else if (rc != EXIT_USAGE && r.mode == MODE_PERFETTO && !r.failed &&
             split_perfetto_finish(r.pf) != 0)
        native_fail(&r, split_perfetto_error(r.pf));
    else if (rc != EXIT_USAGE && r.mode == MODE_TEXT && !r.failed &&
             split_ftrace_finish(r.ft) != 0)
        native_fail(&r, split_ftrace_error(r.ft));
    else if (rc != EXIT_USAGE && r.mode == MODE_TEXT && !r.failed && sink.sp)
        close_rc = convert_sink_close(&sink); /* a container's JSON pieces */
    else if (rc != EXIT_USAGE && r.mode != MODE_FXT && r.mode != MODE_PERFETTO &&
             r.mode != MODE_TEXT &&
             !(prefix && rc != 0 && r.mode == MODE_UNDECIDED))
        close_rc = convert_sink_close(&sink); /* (a split of an input that
                                                 fails before its first
                                                 event writes no piece) */
    if (rc == 0 && close_rc == 0 && !sink.failed && !r.failed &&
        second_pass_wanted(&sink, opt, path, prefix)) {
        ahead = convert_sink_take_frames(&sink);
        first_pass_missing = sink.sf_missing;
        if (in.parser) {
            tread_stats s;
            tread_get_stats(in.parser, &s);
            diag_warning_summary(&in.diag, s.warnings);
        }
        convert_sink_free(&sink);
        cli_input_done(&in);
        if (!opt->quiet)
            fprintf(stderr, "tread: note: stack frames are defined after events that "
                    "name them (%llu events name frames not defined before them): "
                    "converting again with the definitions known (a second pass over "
                    "the input)\n", (unsigned long long)first_pass_missing);
        goto again;
    }
    int output_failed = sink.failed || r.failed;
    if (sink.failed || r.failed) {
        diag_error(&in.diag, "%s: %s", tread_error_name(TREAD_ERROR_IO),
                   r.failed ? r.error : sink.error);
        rc = EXIT_INPUT_ERROR;
    } else if (close_rc != 0) {
        rc = EXIT_INPUT_ERROR;
    }
    if (r.pf && !output_failed) {
        split_perfetto_print_warnings(r.pf, stderr);
        split_perfetto_print_losses(r.pf, stderr);
    }
    if (r.fxt && split_fxt_defs_full(r.fxt))
        fprintf(stderr, "tread: warning: more than %u bytes of FXT strings, "
                "threads and kernel objects in force: later ones are not "
                "repeated in the pieces that need them\n", SPLIT_FXT_MAX_DEFS_BYTES);
    uint64_t text_lost = r.ft ? split_ftrace_too_long(r.ft) : 0;
    if (r.ft && !output_failed) {
        /* said even with -q: a loss (doc/convert.md) */
        if (text_lost)
            fprintf(stderr, "tread: left out %llu ftrace lines: longer than "
                    "--max-line-bytes (the decoder skips them, with a warning)\n",
                    (unsigned long long)text_lost);
        if (!opt->quiet && split_ftrace_header_dropped(r.ft))
            fprintf(stderr, "tread: note: %llu ftrace header lines are not "
                    "repeated in later pieces (over %u bytes, or half of "
                    "--max-bytes)\n",
                    (unsigned long long)split_ftrace_header_dropped(r.ft),
                    SPLIT_FTRACE_MAX_HEADER_BYTES);
        if (!opt->quiet && split_ftrace_tracer_lines(r.ft))
            fprintf(stderr, "tread: note: %llu pieces start with a '# tracer' "
                    "line: the input's header does not say it is ftrace text\n",
                    (unsigned long long)split_ftrace_tracer_lines(r.ft));
    }
    if (in.parser) {
        tread_stats s;
        tread_get_stats(in.parser, &s);
        diag_warning_summary(&in.diag, s.warnings);
        /* after an input error only: a split's own error says which
         * pieces are complete, an output error says what failed */
        if (rc == EXIT_INPUT_ERROR && in.opened && !prefix && sink.created &&
            !output_failed)
            diag_error(&in.diag, "the output is incomplete: it holds the "
                       "events before the error");
    }
    /* what could not be written is said even with -q (doc/convert.md);
     * after an output error the one error says it all */
    if (rc != EXIT_USAGE && !output_failed)
        convert_sink_print_losses(&sink, stderr);
    if (prefix && sink.frames && frame_table_unresolved(sink.frames) && !output_failed)
        fprintf(stderr, "tread: warning: %llu stack frame references are not in the "
                "piece that uses them (the frame is defined after that piece, or "
                "nowhere)\n", (unsigned long long)frame_table_unresolved(sink.frames));
    if (sink.sf_missing && !output_failed && sink.frames_ahead)
        fprintf(stderr, "tread: warning: %llu events name a stack frame (sf) the "
                "input does not define: written without their stack\n",
                (unsigned long long)sink.sf_missing);
    else if (sink.sf_missing && !output_failed)
        fprintf(stderr, "tread: warning: %llu events name a stack frame (sf) no "
                "definition before them gives: written without their stack%s\n",
                (unsigned long long)sink.sf_missing,
                sink.frames_late && !prefix
                    ? " (the definitions come later: with the input and the output "
                      "regular files, tread converts twice to carry them)"
                    : "");
    /* (a container split as text writes through both) */
    uint64_t oversized = (sink.sp ? split_pieces_oversized(sink.sp) : 0) +
                         (r.sp ? split_pieces_oversized(r.sp) : 0);
    if (oversized)
        fprintf(stderr, "tread: warning: %llu pieces are larger than "
                "--max-bytes: each holds one record larger on its own\n",
                (unsigned long long)oversized);
    if (!opt->quiet && sink.cp.intern_resets)
        fprintf(stderr, "tread: note: the interning table filled up %llu "
                "times (--max-interned): the sequence state was cleared\n",
                (unsigned long long)sink.cp.intern_resets);
    if (sink.cp.lossy_ids || sink.cp.lossy_ts)
        fprintf(stderr, "tread: note: %llu ids that are not numbers and %llu "
                "negative timestamps could not be written (doc/convert.md)\n",
                (unsigned long long)sink.cp.lossy_ids,
                (unsigned long long)sink.cp.lossy_ts);
    uint64_t lost = sink.lost_total + (r.pf ? split_perfetto_lost(r.pf) : 0) + text_lost;
    if (rc == 0 && opt->strict && lost) {
        fprintf(stderr, "tread: error: --strict: %llu events or lines could not be "
                "written (above)\n", (unsigned long long)lost);
        rc = EXIT_INPUT_ERROR;
    }
    convert_sink_free(&sink);
    split_fxt_free(r.fxt);
    split_perfetto_free(r.pf);
    split_ftrace_free(r.ft);
    split_pieces_free(r.sp); /* removes a partial piece */
    cli_input_done(&in);
    return rc;
}

int cmd_convert(const cli_options *opt)
{
    return convert_run(opt, opt->output, NULL, 0);
}
