/* tread cat: every event as one NDJSON line on standard output. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_input.h"
#include "commands.h"
#include "ndjson_writer.h"

typedef struct cat_state {
    out_buf *out;
    ndjson_writer writer;
    int nomem;
} cat_state;

static int on_event(void *user, const tread_event *ev)
{
    cat_state *st = user;
    if (ndjson_write_event(&st->writer, ev) != 0)
        st->nomem = 1;
    /* Stop early once output is gone (e.g. a full disk): no point in
     * reading the rest of a large file. */
    return st->out->failed || st->nomem;
}

int cmd_cat(const cli_options *opt)
{
    cat_state st;
    cli_input in;
    out_buf *out = malloc(sizeof *out); /* 64 KiB: not on the stack */
    if (!out) {
        fprintf(stderr, "tread: error: %s: out of memory\n",
                tread_error_name(TREAD_ERROR_NOMEM));
        return EXIT_INPUT_ERROR;
    }
    out_buf_init(out, stdout);
    st.out = out;
    st.nomem = 0;
    ndjson_writer_init(&st.writer, out);

    /* A bar would mix with the lines if both go to the terminal. */
    int rc = cli_input_run(&in, opt, !isatty(STDOUT_FILENO), on_event, &st);
    if (out_buf_flush(out) != 0) {
        diag_error(&in.diag, "cannot write to standard output: %s",
                   strerror(out->err));
        rc = EXIT_INPUT_ERROR;
    } else if (st.nomem) {
        diag_error(&in.diag, "%s: out of memory while writing args",
                   tread_error_name(TREAD_ERROR_NOMEM));
        rc = EXIT_INPUT_ERROR;
    }
    if (in.parser) {
        tread_stats s;
        tread_get_stats(in.parser, &s);
        diag_warning_summary(&in.diag, s.warnings);
    }
    ndjson_writer_free(&st.writer);
    cli_input_done(&in);
    free(out);
    return rc;
}
