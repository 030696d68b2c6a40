/*
 * tread.stats(): the facts of `tread stats --json`, as a dict. The CLI's
 * own code does the work (tools/libtreadstats: stats_collect gathers,
 * stats_report writes the JSON); this file only drives the parse like
 * tools/cli_input.c does, writes the report into memory and hands it to
 * json.loads, so both always say the same thing.
 */
#include "py_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_input.h"
#include "stats_async.h"
#include "stats_collect.h"
#include "stats_report.h"

typedef struct stats_run {
    stats_collector *c;
    stats_async *sa;       /* the collector's thread, or NULL: in place */
    const tpy_options *opt;
    int cb_failed;
} stats_run;

static int on_event(void *user, const tread_event *ev)
{
    stats_run *s = user;
    return s->sa ? stats_async_event(s->sa, ev) : stats_collector_event(s->c, ev);
}

static int on_warning(void *user, const tread_warning *w)
{
    stats_run *s = user;
    if (s->cb_failed)
        return 1;
    if (tpy_warn(s->opt, w) != 0) {
        s->cb_failed = 1;
        return 1;
    }
    return 0;
}

/* Parses the whole source. Returns the final status; -2 with a Python
 * exception set when reading a file object or a callback failed. */
static int run(tread_parser *p, tpy_source *src, stats_run *s)
{
    tread_status st;
    if (src->fd >= 0) {
        st = tread_parse_fd(p, src->fd);
    } else {
        for (;;) {
            PyObject *data = tpy_source_read(src, 256 * 1024);
            if (!data)
                return -2;
            Py_ssize_t n = PyBytes_GET_SIZE(data);
            st = n ? tread_feed(p, PyBytes_AS_STRING(data), (size_t)n) : tread_finish(p);
            Py_DECREF(data);
            if (n == 0 || st != TREAD_STATUS_OK)
                break;
        }
    }
    if (s->cb_failed)
        return -2;
    return (int)st;
}

/* The report as JSON text, parsed by the json module. */
static PyObject *report(const char *name, const tread_parser *p,
                        const stats_collector *c, const cli_input *in, size_t top)
{
    tread_stats st;
    tread_get_stats(p, &st);
    size_t n_counters = tread_get_format_counters(p, NULL, 0);
    tread_counter *counters = NULL;
    if (n_counters) {
        counters = calloc(n_counters, sizeof *counters);
        if (!counters)
            return PyErr_NoMemory();
        size_t all = tread_get_format_counters(p, counters, n_counters);
        if (all < n_counters)
            n_counters = all;
    }
    char *text = NULL;
    size_t text_len = 0;
    FILE *fp = open_memstream(&text, &text_len);
    out_buf *o = malloc(sizeof *o);
    int rc = -1;
    if (fp && o) {
        out_buf_init(o, fp);
        stats_report r = {name, &st, c, in, top, counters, n_counters};
        rc = stats_report_json(o, &r);
        if (out_buf_flush(o) != 0)
            rc = -1;
    }
    free(o);
    free(counters);
    if (fp)
        fclose(fp); /* text and text_len are final now */
    if (rc != 0) {
        free(text);
        return PyErr_NoMemory();
    }
    PyObject *json = PyImport_ImportModule("json");
    PyObject *d = json ? PyObject_CallMethod(json, "loads", "s#", text, (Py_ssize_t)text_len)
                       : NULL;
    Py_XDECREF(json);
    free(text);
    return d;
}

PyObject *tpy_stats(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    PyObject *source, *format = NULL, *result = NULL;
    if (!PyArg_ParseTuple(args, "O|O:stats", &source, &format))
        return NULL;
    tpy_options opt;
    if (tpy_options_parse(&opt, format, kwargs, TPY_FOR_STATS) != 0)
        return NULL;
    tpy_source src;
    if (tpy_source_open(&src, source) != 0) {
        tpy_options_free(&opt);
        return NULL;
    }
    const char *name = PyUnicode_AsUTF8(src.name);
    stats_collector *c = malloc(sizeof *c);
    tread_parser *p = NULL;
    if (!name)
        goto done;
    if (!c || stats_collector_init(c) != 0) {
        free(c);
        c = NULL;
        PyErr_NoMemory();
        goto done;
    }
    p = tread_parser_create(NULL);
    if (!p) {
        PyErr_NoMemory();
        goto done;
    }
    tpy_live_parsers++;
    if (tpy_options_apply(&opt, p) != 0)
        goto done;
    /* the collector on a thread of its own, as in `tread stats` */
    stats_probe probe = {(const tread_parser *const *)&p, 0, NULL, 0};
    stats_run s = {c, NULL, &opt, 0};
    if (opt.limit[TREAD_OPT_READ_THREAD] != 0)
        s.sa = stats_async_start(c, stats_probe_decompressing, &probe);
    tread_callbacks cb = {0};
    cb.event = on_event;
    cb.warning = on_warning;
    tread_set_callbacks(p, &cb, &s);

    int st = run(p, &src, &s);
    stats_async_finish(s.sa); /* the collector is ours again */
    free(probe.cs);
    if (st == -2)
        goto done;
    cli_input in;
    memset(&in, 0, sizeof in);
    in.parser = p;
    in.status = (tread_status)st;
    if (st == TREAD_STATUS_ERROR) {
        in.failed = 1;
        in.error_name = tread_error_name(tread_get_error(p));
        in.error_offset = tread_get_error_offset(p);
        snprintf(in.error_message, sizeof in.error_message, "%s",
                 tread_get_error_message(p));
    }
    stats_collector_finish(c);
    result = report(name, p, c, &in, (size_t)opt.top);
    if (result && st == TREAD_STATUS_ERROR) {
        /* a parse that failed part way: the error, with the stats of what
         * was read before it as exc.stats */
        tpy_raise_parser_error(p);
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        PyErr_NormalizeException(&t, &v, &tb);
        if (v)
            PyObject_SetAttrString(v, "stats", result);
        PyErr_Restore(t, v, tb);
        Py_CLEAR(result);
    }
done:
    if (p) {
        tread_parser_free(p);
        tpy_live_parsers--;
    }
    if (c) {
        stats_collector_free(c);
        free(c);
    }
    tpy_source_close(&src);
    tpy_options_free(&opt);
    return result;
}
