/*
 * The filter pushed down to C: checked in the parser's event callback, so
 * an event it rejects costs no Python object at all.
 *
 *   kinds        an iterable of kind names (tread.KINDS)
 *   name_prefix  a str, or an iterable of str: the name starts with one
 *   cat_prefix   the same for the category (the whole "a,b" text)
 *   start, end   ns: events overlapping [start, end) pass, i.e. ts < end
 *                and ts + dur >= start; events without a timestamp
 *                (metadata) always pass the time condition
 */
#include "py_module.h"

#include <string.h>

static void prefixes_free(tpy_prefixes *p)
{
    for (size_t i = 0; i < p->n; i++)
        PyMem_Free(p->v[i]);
    PyMem_Free(p->v);
    PyMem_Free(p->len);
    p->v = NULL;
    p->len = NULL;
    p->n = 0;
}

static int prefixes_init(tpy_prefixes *p, PyObject *obj, const char *what)
{
    p->v = NULL;
    p->len = NULL;
    p->n = 0;
    if (!obj || obj == Py_None)
        return 0;
    PyObject *seq;
    if (PyUnicode_Check(obj))
        seq = PyTuple_Pack(1, obj);
    else
        seq = PySequence_Tuple(obj);
    if (!seq) {
        PyErr_Format(PyExc_TypeError, "%s: a str or an iterable of str", what);
        return -1;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    if (n == 0) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: no prefix given", what);
        return -1;
    }
    p->v = PyMem_Calloc((size_t)n, sizeof *p->v);
    p->len = PyMem_Calloc((size_t)n, sizeof *p->len);
    if (!p->v || !p->len) {
        Py_DECREF(seq);
        prefixes_free(p);
        PyErr_NoMemory();
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
            prefixes_free(p);
            return -1;
        }
        p->v[i] = PyMem_Malloc((size_t)len + 1);
        if (!p->v[i]) {
            Py_DECREF(seq);
            prefixes_free(p);
            PyErr_NoMemory();
            return -1;
        }
        memcpy(p->v[i], u, (size_t)len + 1);
        p->len[i] = (size_t)len;
        p->n = (size_t)i + 1;
    }
    Py_DECREF(seq);
    return 0;
}

static int prefixes_match(const tpy_prefixes *p, const tread_str *s)
{
    const char *ptr = s->ptr ? s->ptr : "";
    size_t len = s->ptr ? s->len : 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->len[i] <= len && memcmp(ptr, p->v[i], p->len[i]) == 0)
            return 1;
    return 0;
}

static int time_init(PyObject *obj, int *has, int64_t *v, const char *what)
{
    *has = 0;
    if (!obj || obj == Py_None)
        return 0;
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: an int (nanoseconds)", what);
        return -1;
    }
    long long x = PyLong_AsLongLong(obj);
    if (x == -1 && PyErr_Occurred())
        return -1;
    *v = x;
    *has = 1;
    return 0;
}

static int kinds_init(tpy_filter *f, PyObject *obj)
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
        int found = -1;
        for (int k = 0; s && k < TREAD_EVENT_KIND_COUNT_; k++)
            if (strcmp(s, tread_event_kind_name((tread_event_kind)k)) == 0)
                found = k;
        if (found < 0) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "kinds: unknown kind %R (see tread.KINDS)", item);
            Py_DECREF(item);
            Py_DECREF(it);
            return -1;
        }
        f->kinds |= (uint64_t)1 << found;
        Py_DECREF(item);
    }
    Py_DECREF(it);
    if (PyErr_Occurred())
        return -1;
    f->has_kinds = 1;
    return 0;
}

int tpy_filter_init(tpy_filter *f, PyObject *kinds, PyObject *name_prefix,
                    PyObject *cat_prefix, PyObject *start, PyObject *end)
{
    memset(f, 0, sizeof *f);
    if (kinds_init(f, kinds) != 0 ||
        prefixes_init(&f->names, name_prefix, "name_prefix") != 0 ||
        prefixes_init(&f->cats, cat_prefix, "cat_prefix") != 0 ||
        time_init(start, &f->has_start, &f->start, "start") != 0 ||
        time_init(end, &f->has_end, &f->end, "end") != 0) {
        tpy_filter_free(f);
        return -1;
    }
    f->active = f->has_kinds || f->names.n || f->cats.n || f->has_start || f->has_end;
    return 0;
}

void tpy_filter_free(tpy_filter *f)
{
    prefixes_free(&f->names);
    prefixes_free(&f->cats);
    f->active = 0;
}

int tpy_filter_pass(const tpy_filter *f, const tread_event *ev)
{
    if (!f->active)
        return 1;
    if (f->has_kinds && ((unsigned)ev->kind >= 64 || !(f->kinds >> ev->kind & 1)))
        return 0;
    if ((f->has_start || f->has_end) && (ev->flags & TREAD_HAS_TS)) {
        if (f->has_end && ev->ts >= f->end)
            return 0;
        if (f->has_start) {
            int64_t e = ev->ts;
            if ((ev->flags & TREAD_HAS_DUR) && ev->dur > 0)
                e = (ev->ts > 0 && ev->dur > INT64_MAX - ev->ts) ? INT64_MAX
                                                                 : ev->ts + ev->dur;
            if (e < f->start)
                return 0;
        }
    }
    if (f->names.n && !prefixes_match(&f->names, &ev->name))
        return 0;
    if (f->cats.n && !prefixes_match(&f->cats, &ev->cat))
        return 0;
    return 1;
}
