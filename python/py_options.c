/*
 * Keyword arguments of open() and stats(): the parser's limits (named as
 * tread_option without the prefix, lower case), where warnings go, and
 * (open() only) the filter, args capture and the read size.
 */
#include "py_module.h"

#include <string.h>

typedef struct limit_kw {
    const char *name;
    tread_option opt;
    int is_bool;
} limit_kw;

static const limit_kw limits[] = {
    {"max_depth", TREAD_OPT_MAX_DEPTH, 0},
    {"max_event_bytes", TREAD_OPT_MAX_EVENT_BYTES, 0},
    {"max_string_bytes", TREAD_OPT_MAX_STRING_BYTES, 0},
    {"lenient", TREAD_OPT_LENIENT, 1},
    {"decompress", TREAD_OPT_DECOMPRESS, 1},
    {"max_warnings", TREAD_OPT_MAX_WARNINGS_REPORTED, 0},
    {"zstd_window_log_max", TREAD_OPT_ZSTD_WINDOW_LOG_MAX, 0},
    {"json_fast_path", TREAD_OPT_JSON_FAST_PATH, 1},
    {"max_decompressed_bytes", TREAD_OPT_MAX_DECOMPRESSED_BYTES, 0},
    {"max_interned_bytes", TREAD_OPT_MAX_INTERNED_BYTES, 0},
    {"max_profile_nodes", TREAD_OPT_MAX_PROFILE_NODES, 0},
    {"range_begin", TREAD_OPT_RANGE_BEGIN, 0},
    {"range_end", TREAD_OPT_RANGE_END, 0},
    {"read_thread", TREAD_OPT_READ_THREAD, 1},
    {"max_line_bytes", TREAD_OPT_MAX_LINE_BYTES, 0},
    {"max_tracedat_meta_bytes", TREAD_OPT_MAX_TRACEDAT_META_BYTES, 0},
};
#define N_LIMITS (sizeof limits / sizeof limits[0])
#define NOT_GIVEN (-2)
/* Warnings handed to Python's warnings module by default: as many as the
 * CLI prints; all are counted in the stats. */
#define DEFAULT_MAX_WARNINGS 20
#define DEFAULT_CHUNK_SIZE (256 * 1024)

static int parse_format(tpy_options *o, PyObject *format)
{
    o->format = TREAD_FORMAT_UNKNOWN;
    if (!format || format == Py_None)
        return 0;
    const char *s = PyUnicode_Check(format) ? PyUnicode_AsUTF8(format) : NULL;
    if (!s) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "format: a str such as 'json' or None");
        return -1;
    }
    for (int f = 1; f < TREAD_FORMAT_COUNT_; f++)
        if (strcmp(s, tread_format_name((tread_format)f)) == 0) {
            o->format = (tread_format)f;
            return 0;
        }
    PyErr_Format(PyExc_ValueError, "format: unknown format %R", format);
    return -1;
}

static int parse_warnings(tpy_options *o, PyObject *v)
{
    if (!v || v == Py_None) {
        o->warn_mode = TPY_WARN_PYTHON;
        return 0;
    }
    if (PyUnicode_Check(v) && PyUnicode_CompareWithASCIIString(v, "ignore") == 0) {
        o->warn_mode = TPY_WARN_IGNORE;
        return 0;
    }
    if (PyCallable_Check(v)) {
        o->warn_mode = TPY_WARN_CALLBACK;
        Py_INCREF(v);
        o->warn_cb = v;
        return 0;
    }
    PyErr_SetString(PyExc_TypeError,
                    "warnings: None (Python's warnings module), 'ignore' or a callable");
    return -1;
}

static int parse_size(PyObject *v, const char *name, Py_ssize_t min, Py_ssize_t *out)
{
    Py_ssize_t n = PyLong_Check(v) ? PyLong_AsSsize_t(v) : -1;
    if (n < min) {
        if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s: an int >= %zd", name, min);
        }
        return -1;
    }
    *out = n;
    return 0;
}

int tpy_options_parse(tpy_options *o, PyObject *format, PyObject *kwargs, int which)
{
    memset(o, 0, sizeof *o);
    for (size_t i = 0; i < sizeof o->limit / sizeof o->limit[0]; i++)
        o->limit[i] = NOT_GIVEN;
    o->capture_args = 1;
    o->chunk_size = DEFAULT_CHUNK_SIZE;
    o->top = 10;
    PyObject *kinds = NULL, *name_prefix = NULL, *cat_prefix = NULL;
    PyObject *start = NULL, *end = NULL, *name = NULL, *cat = NULL, *pid = NULL, *tid = NULL;
    if (parse_format(o, format) != 0)
        return -1;
    PyObject *key, *v;
    Py_ssize_t pos = 0;
    while (kwargs && PyDict_Next(kwargs, &pos, &key, &v)) {
        const char *k = PyUnicode_AsUTF8(key);
        if (!k)
            goto fail;
        const limit_kw *lk = NULL;
        for (size_t i = 0; i < N_LIMITS; i++)
            if (strcmp(k, limits[i].name) == 0)
                lk = &limits[i];
        if (lk) {
            if (v == Py_None)
                continue;
            long long x;
            if (lk->is_bool) {
                int t = PyObject_IsTrue(v);
                if (t < 0)
                    goto fail;
                x = t;
            } else {
                x = PyLong_Check(v) ? PyLong_AsLongLong(v) : -1;
                if (!PyLong_Check(v) || (x == -1 && PyErr_Occurred())) {
                    PyErr_Clear();
                    PyErr_Format(PyExc_TypeError, "%s: an int", k);
                    goto fail;
                }
            }
            if (x == NOT_GIVEN) { /* would read as "not given" */
                PyErr_Format(PyExc_ValueError, "%s: value %lld out of range", k, x);
                goto fail;
            }
            o->limit[lk->opt] = x;
        } else if (strcmp(k, "format") == 0) {
            if (format) {
                PyErr_SetString(PyExc_TypeError, "format given twice");
                goto fail;
            }
            if (parse_format(o, v) != 0)
                goto fail;
        } else if (strcmp(k, "warnings") == 0) {
            if (parse_warnings(o, v) != 0)
                goto fail;
        } else if (which == TPY_FOR_STATS && strcmp(k, "top") == 0) {
            if (parse_size(v, k, 0, &o->top) != 0)
                goto fail;
        } else if (which == TPY_FOR_OPEN && strcmp(k, "chunk_size") == 0) {
            if (parse_size(v, k, 1, &o->chunk_size) != 0)
                goto fail;
        } else if (which == TPY_FOR_OPEN && strcmp(k, "args") == 0) {
            int t = PyObject_IsTrue(v);
            if (t < 0)
                goto fail;
            o->capture_args = t;
        } else if (which == TPY_FOR_OPEN && strcmp(k, "kinds") == 0) {
            kinds = v;
        } else if (which == TPY_FOR_OPEN && strcmp(k, "name_prefix") == 0) {
            name_prefix = v;
        } else if (which == TPY_FOR_OPEN && strcmp(k, "cat_prefix") == 0) {
            cat_prefix = v;
        } else if (which == TPY_FOR_OPEN && strcmp(k, "start") == 0) {
            start = v;
        } else if (which == TPY_FOR_OPEN && strcmp(k, "end") == 0) {
            end = v;
        } else if (which == TPY_FOR_OPEN && strcmp(k, "name") == 0) {
            name = v;
        } else if (which == TPY_FOR_OPEN && strcmp(k, "cat") == 0) {
            cat = v;
        } else if (which == TPY_FOR_OPEN && strcmp(k, "pid") == 0) {
            pid = v;
        } else if (which == TPY_FOR_OPEN && strcmp(k, "tid") == 0) {
            tid = v;
        } else {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'",
                         which == TPY_FOR_OPEN ? "open" : "stats", k);
            goto fail;
        }
    }
    if (o->limit[TREAD_OPT_MAX_WARNINGS_REPORTED] == NOT_GIVEN &&
        o->warn_mode == TPY_WARN_PYTHON)
        o->limit[TREAD_OPT_MAX_WARNINGS_REPORTED] = DEFAULT_MAX_WARNINGS;
    if (tpy_filter_init_ex(&o->filter, kinds, name_prefix, cat_prefix, start, end, name, cat,
                           pid, tid) != 0)
        goto fail;
    return 0;
fail:
    Py_CLEAR(o->warn_cb);
    return -1;
}

void tpy_options_free(tpy_options *o)
{
    Py_CLEAR(o->warn_cb);
    tpy_filter_free(&o->filter);
}

int tpy_options_apply(const tpy_options *o, tread_parser *p)
{
    if (o->format != TREAD_FORMAT_UNKNOWN &&
        tread_config(p, TREAD_OPT_FORMAT, o->format) != 0) {
        PyErr_SetString(PyExc_ValueError, "format: not accepted by the parser");
        return -1;
    }
    for (size_t i = 0; i < N_LIMITS; i++) {
        int64_t v = o->limit[limits[i].opt];
        if (v != NOT_GIVEN && tread_config(p, limits[i].opt, v) != 0) {
            PyErr_Format(PyExc_ValueError, "%s: value %lld out of range", limits[i].name,
                         (long long)v);
            return -1;
        }
    }
    return 0;
}

int tpy_warn(const tpy_options *o, const tread_warning *w)
{
    const char *kind = tread_warning_name(w->kind);
    switch (o->warn_mode) {
    case TPY_WARN_IGNORE:
        return 0;
    case TPY_WARN_CALLBACK: {
        PyObject *r = PyObject_CallFunction(o->warn_cb, "sKs", kind,
                                            (unsigned long long)w->offset, w->message);
        if (!r)
            return -1;
        Py_DECREF(r);
        return 0;
    }
    default:
        return PyErr_WarnFormat(tpy_Warning, 1, "%s at byte %llu: %s", kind,
                                (unsigned long long)w->offset, w->message);
    }
}
