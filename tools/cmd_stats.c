/* tread stats: a summary of the whole trace, as text or --json. */
#include <stdlib.h>
#include <string.h>

#include "cli_input.h"
#include "commands.h"
#include "stats_async.h"
#include "stats_collect.h"
#include "stats_ranges.h"
#include "stats_report.h"

static int nomem(void)
{
    fprintf(stderr, "tread: error: %s: out of memory\n",
            tread_error_name(TREAD_ERROR_NOMEM));
    return EXIT_INPUT_ERROR;
}

/* The report of a parse: st and counters from the parser (or the byte
 * ranges added up), c the collector, in the input whose error stands, d
 * where warnings were printed. */
static int report(const cli_options *opt, const stats_collector *c, const tread_stats *st,
                  const tread_counter *counters, size_t n_counters, const cli_input *in,
                  const diag *d)
{
    diag_warning_summary(d, st->warnings);
    out_buf *o = malloc(sizeof *o);
    if (!o)
        return nomem();
    out_buf_init(o, stdout);
    stats_report r = {opt->path, st, c, in, (size_t)opt->top, counters, n_counters};
    int rc = opt->json ? stats_report_json(o, &r) : stats_report_text(o, &r);
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

/* report() for one parser. */
static int report_parser(const cli_options *opt, const stats_collector *c, const cli_input *in)
{
    tread_stats st;
    tread_get_stats(in->parser, &st);
    size_t n_counters = tread_get_format_counters(in->parser, NULL, 0);
    tread_counter *counters = NULL;
    if (n_counters) {
        counters = calloc(n_counters, sizeof *counters);
        if (!counters)
            return nomem();
        size_t all = tread_get_format_counters(in->parser, counters, n_counters);
        if (all < n_counters)
            n_counters = all;
    }
    int rc = report(opt, c, &st, counters, n_counters, in, &in->diag);
    free(counters);
    return rc;
}

/* An FXT file in byte ranges on several threads (stats_ranges.h). */
static int stats_in_ranges(const cli_options *opt, int n, uint64_t size)
{
    stats_ranges r;
    int rc = stats_ranges_run(&r, opt, n, size);
    if (r.opened && rc != EXIT_USAGE) {
        int rc2 = report(opt, &r.cols[0], &r.st, r.counters, r.n_counters, r.last, &r.diag);
        if (rc == 0)
            rc = rc2;
    }
    stats_ranges_free(&r);
    return rc;
}

int cmd_stats(const cli_options *opt)
{
    uint64_t size = 0;
    int n = stats_ranges_plan(opt, &size);
    if (n > 1)
        return stats_in_ranges(opt, n, size);
    stats_collector *c = malloc(sizeof *c);
    if (!c || stats_collector_init(c) != 0) {
        free(c);
        return nomem();
    }
    cli_input in;
    /* the collector on a thread of its own, unless one was asked for (or
     * none can be had): stats_async.h */
    stats_probe probe = {(const tread_parser *const *)&in.parser, 0, NULL, 0};
    stats_async *sa = opt->single_thread ? NULL
                                         : stats_async_start(c, stats_probe_decompressing, &probe);
    int rc = sa ? cli_input_run(&in, opt, 1, stats_async_event, sa)
                : cli_input_run(&in, opt, 1, stats_collector_event, c);
    stats_async_finish(sa); /* the collector is ours again */
    free(probe.cs);
    /* A parse that failed part way still has stats worth showing; one
     * that never started (bad options, unopenable file) has none. */
    if (rc != EXIT_USAGE && in.opened) {
        stats_collector_finish(c);
        int rc2 = report_parser(opt, c, &in);
        if (rc == 0)
            rc = rc2;
    }
    cli_input_done(&in);
    stats_collector_free(c);
    free(c);
    return rc;
}
