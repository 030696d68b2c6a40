/*
 * The filter pushed down to C: checked in the parser's event callback, so
 * an event it rejects costs no Python object at all. The filter itself is
 * the CLI's (tools/event_filter.c, `tread cat --kind --name ...`): the
 * same words mean the same thing in both. Keywords (doc/python.md):
 *
 *   kinds        an iterable of kind names (tread.KINDS)
 *   name_prefix  a str, or an iterable of str: the name starts with one
 *   cat_prefix   the same for the category (the whole "a,b" text)
 *   name, cat    patterns as `tread cat --name`: a prefix, or a glob over
 *                the whole text when they hold * ? or [
 *   pid, tid     an int or an iterable of int
 *   start, end   ns (an int, or a str with a unit: "1.5s", "200ms"):
 *                events overlapping [start, end) pass, i.e. ts < end and
 *                ts + dur >= start; events without a timestamp (metadata)
 *                always pass the time condition
 */
#include "py_module.h"

#include <string.h>

/* A str or an iterable of str, as patterns matched how. */
static int patterns_init(ef_patterns *p, PyObject *obj, ef_match how, const char *what)
{
    if (!obj || obj == Py_None)
        return 0;
    PyObject *seq = PyUnicode_Check(obj) ? PyTuple_Pack(1, obj) : PySequence_Tuple(obj);
    if (!seq) {
        PyErr_Format(PyExc_TypeError, "%s: a str or an iterable of str", what);
        return -1;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    if (n == 0) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: no pattern given", what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *s = PyTuple_GET_ITEM(seq, i);
        Py_ssize_t len;
        const char *u = PyUnicode_Check(s) ? PyUnicode_AsUTF8AndSize(s, &len) : NULL;
        if (!u) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "%s: a str or an iterable of str", what);
            Py_DECREF(seq);
            return -1;
        }
        if (event_filter_add_pattern(p, u, (size_t)len, how) != 0) {
            Py_DECREF(seq);
            PyErr_NoMemory();
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

/* An int or an iterable of int. */
static int ids_init(ef_ids *ids, PyObject *obj, const char *what)
{
    if (!obj || obj == Py_None)
        return 0;
    PyObject *seq = PyLong_Check(obj) ? PyTuple_Pack(1, obj) : PySequence_Tuple(obj);
    if (!seq) {
        PyErr_Format(PyExc_TypeError, "%s: an int or an iterable of int", what);
        return -1;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    if (n == 0) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: no id given", what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyTuple_GET_ITEM(seq, i);
        long long x = PyLong_Check(v) && !PyBool_Check(v) ? PyLong_AsLongLong(v) : -1;
        if (!PyLong_Check(v) || PyBool_Check(v) || (x == -1 && PyErr_Occurred())) {
            if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_OverflowError)) {
                PyErr_Clear();
                PyErr_Format(PyExc_TypeError, "%s: an int or an iterable of int", what);
            }
            Py_DECREF(seq);
            return -1;
        }
        if (event_filter_add_id(ids, x) != 0) {
            Py_DECREF(seq);
            PyErr_NoMemory();
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

static int time_init(PyObject *obj, int *has, int64_t *v, const char *what)
{
    *has = 0;
    if (!obj || obj == Py_None)
        return 0;
    if (PyUnicode_Check(obj)) {
        const char *s = PyUnicode_AsUTF8(obj);
        if (!s)
            return -1;
        if (ef_parse_time(s, v) != 0) {
            PyErr_Format(PyExc_ValueError,
                         "%s: %R is not a time: ns, or a number with a unit: "
                         "'1.5s', '200ms', '30us', '12ns'", what, obj);
            return -1;
        }
        *has = 1;
        return 0;
    }
    if (!PyLong_Check(obj) || PyBool_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: an int (nanoseconds) or a str such as '1.5s'", what);
        return -1;
    }
    long long x = PyLong_AsLongLong(obj);
    if (x == -1 && PyErr_Occurred())
        return -1;
    *v = x;
    *has = 1;
    return 0;
}

static int kinds_init(event_filter *f, PyObject *obj)
{
    if (!obj || obj == Py_None)
        return 0;
    if (PyUnicode_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "kinds: an iterable of kind names, e.g. {'complete'}");
        return -1;
    }
    PyObject *it = PyObject_GetIter(obj);
    if (!it)
        return -1;
    PyObject *item;
    while ((item = PyIter_Next(it)) != NULL) {
        const char *s = PyUnicode_Check(item) ? PyUnicode_AsUTF8(item) : NULL;
        if (!s || event_filter_add_kind_name(f, s) != 0) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "kinds: unknown kind %R (see tread.KINDS)", item);
            Py_DECREF(item);
            Py_DECREF(it);
            return -1;
        }
        Py_DECREF(item);
    }
    Py_DECREF(it);
    if (PyErr_Occurred())
        return -1;
    f->has_kinds = 1; /* an empty iterable keeps nothing */
    return 0;
}

int tpy_filter_init_ex(tpy_filter *f, PyObject *kinds, PyObject *name_prefix,
                       PyObject *cat_prefix, PyObject *start, PyObject *end, PyObject *name,
                       PyObject *cat, PyObject *pid, PyObject *tid)
{
    memset(f, 0, sizeof *f);
    event_filter_init(&f->ef);
    event_filter *e = &f->ef;
    if (kinds_init(e, kinds) != 0 ||
        patterns_init(&e->names, name_prefix, EF_PREFIX, "name_prefix") != 0 ||
        patterns_init(&e->cats, cat_prefix, EF_PREFIX, "cat_prefix") != 0 ||
        patterns_init(&e->names, name, EF_AUTO, "name") != 0 ||
        patterns_init(&e->cats, cat, EF_AUTO, "cat") != 0 ||
        ids_init(&e->pids, pid, "pid") != 0 || ids_init(&e->tids, tid, "tid") != 0 ||
        time_init(start, &e->has_start, &e->start, "start") != 0 ||
        time_init(end, &e->has_end, &e->end, "end") != 0) {
        tpy_filter_free(f);
        return -1;
    }
    event_filter_finish(e);
    f->active = e->active;
    return 0;
}

int tpy_filter_init(tpy_filter *f, PyObject *kinds, PyObject *name_prefix,
                    PyObject *cat_prefix, PyObject *start, PyObject *end)
{
    return tpy_filter_init_ex(f, kinds, name_prefix, cat_prefix, start, end, NULL, NULL, NULL,
                              NULL);
}

void tpy_filter_free(tpy_filter *f)
{
    event_filter_free(&f->ef);
    f->active = 0;
}

int tpy_filter_pass(const tpy_filter *f, const tread_event *ev)
{
    return !f->active || event_filter_pass(&f->ef, ev);
}
