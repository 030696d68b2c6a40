/* stats_ranges: see stats_ranges.h. */
#define _POSIX_C_SOURCE 200809L
#include "stats_ranges.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "range_cuts.h"
#include "range_probe.h"
#include "stats_merge.h"

/* The probe's parser takes the command's options (a forced format). */
static int configure(tread_parser *p, const void *opt)
{
    return cli_configure(p, (const cli_options *)opt);
}

void stats_ranges_plan(const cli_options *opt, stats_plan *plan)
{
    struct stat sb;
    memset(plan, 0, sizeof *plan);
    plan->n = 1;
    if (opt->jobs == 1 || opt->single_thread || strcmp(opt->path, "-") == 0 ||
        stat(opt->path, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0)
        return;
    range_plan rp;
    if (!range_plan_file(opt->path, (uint64_t)sb.st_size, configure, opt, &rp))
        return;
    plan->size = rp.size;
    plan->prefix_cost = rp.prefix_cost;
    plan->inflate_cost = rp.inflate_cost;
    plan->compressed = rp.inflate_cost > 0;
    int n = (int)opt->jobs;
    if (n == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        if (plan->size < STATS_RANGES_MIN_BYTES || cpus < 2)
            return;
        n = cpus < STATS_RANGES_AUTO_MAX ? (int)cpus : STATS_RANGES_AUTO_MAX;
    }
    if (n >= 2)
        plan->n = n;
}

typedef struct range_job {
    stats_ranges *r;
    const cli_options *opt;
    int i;
    int64_t begin, end;
    int bar;
    int rc;
} range_job;

static void *run_range(void *arg)
{
    range_job *j = arg;
    j->rc = cli_input_run_range(&j->r->ins[j->i], j->opt, j->bar, stats_collector_event,
                                &j->r->cols[j->i], j->begin, j->end);
    return NULL;
}

/* The format counters of ranges 0..last added up, by name, in the order
 * they first come (a JSON trace's sub-trace counters are in the ranges
 * that read one); those that describe tables rather than count records
 * (FXT's providers and interned bytes) are the last range's that has
 * them, which read every table before its end. */
static int add_counters(stats_ranges *r, int last)
{
    tread_counter *sum = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i <= last; i++) {
        const tread_parser *p = r->ins[i].parser;
        size_t m = p ? tread_get_format_counters(p, NULL, 0) : 0;
        if (!m)
            continue;
        tread_counter *one = calloc(m, sizeof *one);
        if (one && n + m > cap) {
            /* sum is kept (and freed) when realloc fails */
            tread_counter *grown = realloc(sum, (n + m) * sizeof *sum);
            if (!grown) {
                free(one);
                one = NULL;
            } else {
                sum = grown;
                cap = n + m;
            }
        }
        if (!one) {
            free(sum);
            return -1;
        }
        m = tread_get_format_counters(p, one, m);
        for (size_t k = 0; k < m; k++) {
            size_t j = 0;
            while (j < n && strcmp(sum[j].name, one[k].name) != 0)
                j++;
            if (j == n)
                sum[n++] = (tread_counter){one[k].name, 0};
            if (strcmp(one[k].name, "providers") == 0 || strcmp(one[k].name, "interned_bytes") == 0)
                sum[j].value = one[k].value;
            else
                sum[j].value += one[k].value;
        }
        free(one);
    }
    r->counters = sum;
    r->n_counters = n;
    return 0;
}

static void add_stats(tread_stats *sum, const tread_stats *s)
{
    sum->events += s->events;
    for (int k = 0; k < TREAD_EVENT_KIND_COUNT_; k++)
        sum->events_by_kind[k] += s->events_by_kind[k];
    sum->warnings += s->warnings;
    for (int k = 0; k < TREAD_WARN_KIND_COUNT_; k++)
        sum->warnings_by_kind[k] += s->warnings_by_kind[k];
    sum->records += s->records;
    sum->fast_records += s->fast_records;
}

int stats_ranges_run(stats_ranges *r, const cli_options *opt, const stats_plan *plan)
{
    const int n = plan->n;
    memset(r, 0, sizeof *r);
    diag_init(&r->diag, opt->quiet);
    r->cols = calloc((size_t)n, sizeof *r->cols);
    r->ins = calloc((size_t)n, sizeof *r->ins);
    range_job *jobs = calloc((size_t)n, sizeof *jobs);
    pthread_t *th = calloc((size_t)n, sizeof *th);
    int *started = calloc((size_t)n, sizeof *started);
    int rc = 0;
    /* a compressed file: each range inflates on its own thread, which
     * two threads a range would only share */
    cli_options ropt = *opt;
    if (plan->compressed)
        ropt.inline_inflate = 1;
    opt = &ropt;
    if (!r->cols || !r->ins || !jobs || !th || !started)
        goto nomem;
    for (int i = 0; i < n; i++) {
        if (stats_collector_init(&r->cols[i]) != 0)
            goto nomem;
        r->n = i + 1;
        r->cols[i].keep_underflows = i > 0;
        uint64_t b = range_cut_at(plan->size, n, i, plan->prefix_cost, plan->inflate_cost);
        uint64_t e = range_cut_at(plan->size, n, i + 1, plan->prefix_cost, plan->inflate_cost);
        jobs[i] = (range_job){r, opt, i, (int64_t)b, i == n - 1 ? -1 : (int64_t)e, i == n - 1, 0};
    }
    if (getenv("TREAD_STATS_TRACE_RANGES")) /* tread(1), ENVIRONMENT */
        fprintf(stderr, "tread: stats: %d byte ranges of %llu bytes%s\n", n,
                (unsigned long long)plan->size, plan->compressed ? " (decompressed)" : "");
    /* the last range reads the whole file: it drives the progress bar, on
     * this thread */
    for (int i = 0; i < n - 1; i++)
        started[i] = pthread_create(&th[i], NULL, run_range, &jobs[i]) == 0;
    run_range(&jobs[n - 1]);
    for (int i = 0; i < n - 1; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            run_range(&jobs[i]);
    }

    /* In order: each range's diagnostics, up to the first that failed;
     * the ranges after it met the same error, before their start. */
    int last = n - 1;
    for (int i = 0; i < n; i++) {
        int failed = diag_replay(&r->diag, &r->ins[i].captured) || jobs[i].rc != 0;
        if (jobs[i].rc != 0 && rc == 0)
            rc = jobs[i].rc;
        if (failed) {
            last = i;
            break;
        }
    }
    r->last = &r->ins[last];
    r->opened = r->ins[last].opened;
    for (int i = 1; i <= last; i++)
        if (stats_collector_merge(&r->cols[0], &r->cols[i]) != 0)
            goto nomem;
    stats_collector_merge_done(&r->cols[0]);
    stats_collector_finish(&r->cols[0]);
    if (r->ins[last].parser)
        tread_get_stats(r->ins[last].parser, &r->st);
    for (int i = 0; i < last; i++) {
        tread_stats s;
        tread_get_stats(r->ins[i].parser, &s);
        add_stats(&r->st, &s);
    }
    if (add_counters(r, last) != 0)
        goto nomem;
    free(jobs);
    free(th);
    free(started);
    return rc;

nomem:
    diag_error(&r->diag, "%s: out of memory", tread_error_name(TREAD_ERROR_NOMEM));
    free(jobs);
    free(th);
    free(started);
    r->opened = 0;
    return EXIT_INPUT_ERROR;
}

void stats_ranges_free(stats_ranges *r)
{
    for (int i = 0; i < r->n; i++) {
        stats_collector_free(&r->cols[i]);
        if (r->ins)
            cli_input_done(&r->ins[i]);
    }
    free(r->cols);
    free(r->ins);
    free(r->counters);
    memset(r, 0, sizeof *r);
}
