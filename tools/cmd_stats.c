/* tread stats: a summary of each trace, as text or --json; for several
 * files, a report per file and a total. */
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

/* What the files have in common: where reports go and the total. */
typedef struct stats_run {
    out_buf *o;
    int several;        /* more than one FILE: --json writes an array */
    int items;          /* --json: objects written so far */
    stats_total total;
} stats_run;

/* --json with several files: a comma between the array's objects. */
static void begin_item(stats_run *sr, const cli_options *opt)
{
    if (opt->json && sr->several && sr->items++)
        out_buf_putc(sr->o, ',');
}

/* The report of a parse: st and counters from the parser (or the byte
 * ranges added up), c the collector, in the input whose error stands, d
 * where warnings were printed. An input that failed before its first
 * event has no report: nothing (text), or its error alone (--json). */
static int report(stats_run *sr, const cli_options *opt, const stats_collector *c,
                  const tread_stats *st, const tread_counter *counters, size_t n_counters,
                  const cli_input *in, const diag *d)
{
    diag_warning_summary(d, st->warnings);
    stats_total_add(&sr->total, st, in->failed);
    if (in->failed && st->events == 0) {
        if (opt->json) {
            begin_item(sr, opt);
            stats_report_json_error(sr->o, opt->path, in);
        }
        return 0;
    }
    if (!opt->json && sr->several && sr->total.files > 1)
        out_buf_putc(sr->o, '\n');
    begin_item(sr, opt);
    stats_report r = {opt->path, st, c, in, (size_t)opt->top, counters, n_counters};
    int rc = opt->json ? stats_report_json(sr->o, &r) : stats_report_text(sr->o, &r);
    return rc != 0 ? nomem() : 0;
}

/* report() for one parser. */
static int report_parser(stats_run *sr, const cli_options *opt, const stats_collector *c,
                         const cli_input *in)
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
    int rc = report(sr, opt, c, &st, counters, n_counters, in, &in->diag);
    free(counters);
    return rc;
}

/* An FXT or JSON file (JSON gzip'd too) in byte ranges on several threads
 * (stats_ranges.h). */
static int stats_in_ranges(stats_run *sr, const cli_options *opt, const stats_plan *plan)
{
    stats_ranges r;
    int rc = stats_ranges_run(&r, opt, plan);
    if (rc == 0)
        rc = cli_strict_count(&r.diag, opt, r.st.warnings);
    if (rc != EXIT_USAGE) {
        int rc2;
        if (r.opened) {
            rc2 = report(sr, opt, &r.cols[0], &r.st, r.counters, r.n_counters, r.last, &r.diag);
        } else {
            /* never read (unopenable, or out of memory before): the error
             * alone, from the range that has it when there is one */
            tread_stats none;
            cli_input nomem;
            memset(&none, 0, sizeof none);
            memset(&nomem, 0, sizeof nomem);
            nomem.failed = 1;
            nomem.error_name = tread_error_name(TREAD_ERROR_NOMEM);
            snprintf(nomem.error_message, sizeof nomem.error_message, "out of memory");
            const cli_input *in = r.last && r.last->error_name ? r.last : &nomem;
            rc2 = report(sr, opt, NULL, &none, NULL, 0, in, &r.diag);
        }
        if (rc == 0)
            rc = rc2;
    }
    stats_ranges_free(&r);
    return rc;
}

static int stats_one(stats_run *sr, const cli_options *opt)
{
    stats_plan plan;
    stats_ranges_plan(opt, &plan);
    if (plan.n > 1)
        return stats_in_ranges(sr, opt, &plan);
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
    if (rc != EXIT_USAGE) {
        stats_collector_finish(c);
        int rc2;
        if (in.parser && in.opened) {
            rc2 = report_parser(sr, opt, c, &in);
        } else { /* never started: no stats, only the error */
            tread_stats none;
            memset(&none, 0, sizeof none);
            rc2 = report(sr, opt, c, &none, NULL, 0, &in, &in.diag);
        }
        if (rc == 0)
            rc = rc2;
    }
    cli_input_done(&in);
    stats_collector_free(c);
    free(c);
    return rc;
}

/* An input error wins over --strict's warnings, which win over success. */
static int worse(int a, int b)
{
    if (a == EXIT_INPUT_ERROR || b == EXIT_INPUT_ERROR)
        return EXIT_INPUT_ERROR;
    return a ? a : b;
}

int cmd_stats(const cli_options *opt)
{
    stats_run sr;
    memset(&sr, 0, sizeof sr);
    sr.o = malloc(sizeof *sr.o);
    if (!sr.o)
        return nomem();
    out_buf_init(sr.o, stdout);
    sr.several = opt->n_paths > 1;
    if (opt->json && sr.several)
        out_buf_putc(sr.o, '[');
    int rc = 0;
    for (int i = 0; i < opt->n_paths && rc != EXIT_USAGE; i++) {
        cli_options one = *opt;
        one.path = opt->paths[i];
        rc = worse(rc, stats_one(&sr, &one));
        /* a report at a time: a long list does not wait for the last */
        if (out_buf_flush(sr.o) != 0)
            break;
    }
    if (sr.several && rc != EXIT_USAGE) {
        if (opt->json) {
            begin_item(&sr, opt);
            stats_report_total_json(sr.o, &sr.total);
            out_buf_puts(sr.o, "]\n");
        } else {
            out_buf_putc(sr.o, '\n');
            stats_report_total_text(sr.o, &sr.total);
        }
    }
    if (out_buf_flush(sr.o) != 0) {
        fprintf(stderr, "tread: error: cannot write to standard output: %s\n",
                strerror(sr.o->err));
        rc = EXIT_INPUT_ERROR;
    }
    free(sr.o);
    return rc;
}
