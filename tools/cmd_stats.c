/* tread stats: a summary of the whole trace, as text or --json. */
#include <stdlib.h>
#include <string.h>

#include "cli_input.h"
#include "commands.h"
#include "stats_collect.h"
#include "stats_report.h"

static int nomem(void)
{
    fprintf(stderr, "tread: error: %s: out of memory\n",
            tread_error_name(TREAD_ERROR_NOMEM));
    return EXIT_INPUT_ERROR;
}

static int report(const cli_options *opt, const stats_collector *c,
                  const cli_input *in)
{
    tread_stats st;
    tread_get_stats(in->parser, &st);
    diag_warning_summary(&in->diag, st.warnings);

    out_buf *o = malloc(sizeof *o);
    if (!o)
        return nomem();
    out_buf_init(o, stdout);
    size_t n_counters = tread_get_format_counters(in->parser, NULL, 0);
    tread_counter *counters = NULL;
    if (n_counters) {
        counters = calloc(n_counters, sizeof *counters);
        if (!counters) {
            free(o);
            return nomem();
        }
        size_t all = tread_get_format_counters(in->parser, counters, n_counters);
        if (all < n_counters)
            n_counters = all;
    }
    stats_report r = {opt->path, &st, c, in, (size_t)opt->top, counters, n_counters};
    int rc = opt->json ? stats_report_json(o, &r) : stats_report_text(o, &r);
    free(counters);
    if (rc != 0) {
        free(o);
        return nomem();
    }
    if (out_buf_flush(o) != 0) {
        fprintf(stderr, "tread: error: cannot write to standard output: %s\n",
                strerror(o->err));
        free(o);
        return EXIT_INPUT_ERROR;
    }
    free(o);
    return 0;
}

int cmd_stats(const cli_options *opt)
{
    stats_collector *c = malloc(sizeof *c);
    if (!c || stats_collector_init(c) != 0) {
        free(c);
        return nomem();
    }
    cli_input in;
    int rc = cli_input_run(&in, opt, 1, stats_collector_event, c);
    /* A parse that failed part way still has stats worth showing; one
     * that never started (bad options, unopenable file) has none. */
    if (rc != EXIT_USAGE && in.opened) {
        stats_collector_finish(c);
        int rc2 = report(opt, c, &in);
        if (rc == 0)
            rc = rc2;
    }
    cli_input_done(&in);
    stats_collector_free(c);
    free(c);
    return rc;
}
