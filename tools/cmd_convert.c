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

/* Shared by convert and split: runs the parse into the sink. */
int convert_run(const cli_options *opt, const char *path, const char *prefix,
                uint64_t max_bytes)
{
    convert_sink sink;
    cli_input in;
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
    int to_stdout = path && strcmp(path, "-") == 0;
    int rc = cli_input_run(&in, opt, !to_stdout || !isatty(STDOUT_FILENO),
                           on_event, &sink);
    int close_rc = convert_sink_close(&sink);
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
        if (rc == EXIT_INPUT_ERROR && in.opened)
            diag_error(&in.diag, "the output is incomplete: it holds the "
                       "events before the error");
    }
    if (!opt->quiet && sink.cp.intern_resets)
        fprintf(stderr, "tread: note: the interning table filled up %llu "
                "times (--max-interned): the sequence state was cleared\n",
                (unsigned long long)sink.cp.intern_resets);
    if (!opt->quiet && (sink.cp.lossy_ids || sink.cp.lossy_ts))
        fprintf(stderr, "tread: note: %llu ids that are not numbers and %llu "
                "negative timestamps could not be written (doc/convert.md)\n",
                (unsigned long long)sink.cp.lossy_ids,
                (unsigned long long)sink.cp.lossy_ts);
    convert_sink_free(&sink);
    cli_input_done(&in);
    return rc;
}

int cmd_convert(const cli_options *opt)
{
    return convert_run(opt, opt->output, NULL, 0);
}
