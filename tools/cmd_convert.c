/* tread convert: a trace of any format as Chrome JSON or Perfetto protobuf,
 * streamed (doc/convert.md). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_input.h"
#include "commands.h"
#include "convert_sink.h"

static int on_event(void *user, const tread_event *ev)
{
    return convert_sink_event(user, ev) != 0;
}

typedef struct guard_ctx {
    cli_input *in;
    const convert_sink *sink;
} guard_ctx;

/* The default --max-total-bytes: a multiple of the input decoded so far,
 * plus a fixed allowance per piece and in all (doc/convert.md). */
static uint64_t default_guard(void *user, const split_pieces *sp)
{
    guard_ctx *g = user;
    tread_stats st;
    tread_get_stats(g->in->parser, &st);
    uint64_t pieces = split_pieces_count(sp) + 1;
    int same = (st.format == TREAD_FORMAT_JSON && g->sink->to == CONVERT_TO_JSON) ||
               (st.format == TREAD_FORMAT_PERFETTO && g->sink->to == CONVERT_TO_PERFETTO);
    uint64_t factor = same ? SPLIT_TOTAL_FACTOR_SAME : SPLIT_TOTAL_FACTOR_CONVERT;
    uint64_t v = st.bytes_decoded * factor;
    if (v / factor != st.bytes_decoded)
        return UINT64_MAX;
    v += SPLIT_TOTAL_SLACK + pieces * SPLIT_PIECE_ALLOWANCE;
    return v < st.bytes_decoded ? UINT64_MAX : v;
}

/* Shared by convert and split: runs the parse into the sink. */
int convert_run(const cli_options *opt, const char *path, const char *prefix,
                uint64_t max_bytes)
{
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
    guard_ctx g = {&in, &sink};
    if (prefix && opt->max_total_bytes > 0) {
        sink.max_total_bytes = (uint64_t)opt->max_total_bytes;
    } else if (prefix) {
        sink.max_total_bytes = SPLIT_TOTAL_SLACK;
        sink.guard = default_guard;
        sink.guard_user = &g;
    }
    int to_stdout = path && strcmp(path, "-") == 0;
    int rc = cli_input_run(&in, opt, !to_stdout || !isatty(STDOUT_FILENO),
                           on_event, &sink);
    int close_rc = rc == EXIT_USAGE ? 0 : convert_sink_close(&sink);
    int output_failed = sink.failed;
    if (sink.failed) {
        diag_error(&in.diag, "%s: %s",
                   tread_error_name(TREAD_ERROR_IO), sink.error);
        rc = EXIT_INPUT_ERROR;
    } else if (close_rc != 0) {
        rc = EXIT_INPUT_ERROR;
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
    if (sink.sp && split_pieces_oversized(sink.sp))
        fprintf(stderr, "tread: warning: %llu pieces are larger than "
                "--max-bytes: each holds one event larger on its own\n",
                (unsigned long long)split_pieces_oversized(sink.sp));
    if (!opt->quiet && sink.cp.intern_resets)
        fprintf(stderr, "tread: note: the interning table filled up %llu "
                "times (--max-interned): the sequence state was cleared\n",
                (unsigned long long)sink.cp.intern_resets);
    if (sink.cp.lossy_ids || sink.cp.lossy_ts)
        fprintf(stderr, "tread: note: %llu ids that are not numbers and %llu "
                "negative timestamps could not be written (doc/convert.md)\n",
                (unsigned long long)sink.cp.lossy_ids,
                (unsigned long long)sink.cp.lossy_ts);
    if (rc == 0 && opt->strict && sink.lost_total) {
        fprintf(stderr, "tread: error: --strict: %llu events could not be "
                "written (above)\n", (unsigned long long)sink.lost_total);
        rc = EXIT_INPUT_ERROR;
    }
    convert_sink_free(&sink);
    cli_input_done(&in);
    return rc;
}

int cmd_convert(const cli_options *opt)
{
    return convert_run(opt, opt->output, NULL, 0);
}
