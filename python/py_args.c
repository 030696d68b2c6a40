/*
 * Arguments: an event's tread_args point into the parser's buffers (and,
 * for Perfetto and FXT, need the parser's interning tables to decode), so
 * they cannot outlive the callback. They are flattened at event time into
 * a private byte form, cheap to write and self-contained, and turned into
 * Python objects only when .args is read.
 *
 * One entry: type (1 byte), key length + 1 (8 bytes, 0: no key), the key,
 * then by type: BOOL 1 byte; INT, UINT, DOUBLE, POINTER, KOID 8 bytes;
 * STRING, BYTES length (8 bytes) and bytes; nothing otherwise.
 */
#include "py_module.h"

#include <string.h>

int tpy_buf_reserve(tpy_buf *b, size_t more)
{
    if (more <= b->cap - b->len)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < more) {
        if (cap > (size_t)PY_SSIZE_T_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    unsigned char *d = PyMem_Realloc(b->data, cap);
    if (!d) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = d;
    b->cap = cap;
    return 0;
}

void tpy_buf_free(tpy_buf *b)
{
    PyMem_Free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

static void put(tpy_buf *b, const void *p, size_t n)
{
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void put_u64(tpy_buf *b, uint64_t v)
{
    put(b, &v, 8);
}

int tpy_args_flatten(tpy_buf *b, const tread_args *a)
{
    if (!a->data || a->len == 0)
        return 0;
    tread_args_iter it;
    tread_args_iter_init(&it, a);
    tread_arg arg;
    while (tread_args_next(&it, &arg)) {
        size_t klen = arg.key.ptr ? arg.key.len : 0;
        size_t slen = (arg.type == TREAD_ARG_STRING || arg.type == TREAD_ARG_BYTES)
                          ? arg.v.s.len : 0;
        if (tpy_buf_reserve(b, 1 + 8 + klen + 8 + 8 + slen) != 0)
            return -1;
        unsigned char t = (unsigned char)arg.type;
        put(b, &t, 1);
        put_u64(b, arg.key.ptr ? (uint64_t)klen + 1 : 0);
        if (klen)
            put(b, arg.key.ptr, klen);
        switch (arg.type) {
        case TREAD_ARG_BOOL: {
            unsigned char v = arg.v.b != 0;
            put(b, &v, 1);
            break;
        }
        case TREAD_ARG_INT:
            put(b, &arg.v.i, 8);
            break;
        case TREAD_ARG_UINT:
        case TREAD_ARG_POINTER:
        case TREAD_ARG_KOID:
            put(b, &arg.v.u, 8);
            break;
        case TREAD_ARG_DOUBLE:
            put(b, &arg.v.d, 8);
            break;
        case TREAD_ARG_STRING:
        case TREAD_ARG_BYTES:
            put_u64(b, slen);
            if (slen)
                put(b, arg.v.s.ptr, slen);
            break;
        default:
            break;
        }
    }
    return 0;
}

/* ---- building --------------------------------------------------------- */

typedef struct reader {
    const unsigned char *p, *end;
} reader;

static uint64_t get_u64(reader *r)
{
    uint64_t v;
    memcpy(&v, r->p, 8);
    r->p += 8;
    return v;
}

/* Adds v to the container c (a dict when key is given, else a list);
 * steals v. Duplicate keys: the first wins, as tread_args_find has it. */
static int add(PyObject *c, PyObject *key, PyObject *v)
{
    int rc;
    if (PyDict_Check(c)) {
        PyObject *k = key ? key : Py_None;
        rc = PyDict_SetDefault(c, k, v) ? 0 : -1;
    } else {
        rc = PyList_Append(c, v);
    }
    Py_DECREF(v);
    return rc;
}

/* Reads entries into c until the matching *_END (or the end). */
static int build_into(reader *r, PyObject *c, int depth)
{
    while (r->p < r->end) {
        tread_arg_type t = (tread_arg_type)*r->p++;
        uint64_t klen = get_u64(r);
        PyObject *key = NULL;
        if (klen) {
            key = tpy_str((const char *)r->p, (size_t)(klen - 1));
            if (!key)
                return -1;
            r->p += klen - 1;
        }
        PyObject *v = NULL;
        switch (t) {
        case TREAD_ARG_NULL:
            Py_INCREF(Py_None);
            v = Py_None;
            break;
        case TREAD_ARG_BOOL:
            v = PyBool_FromLong(*r->p++);
            break;
        case TREAD_ARG_INT: {
            int64_t i;
            memcpy(&i, r->p, 8);
            r->p += 8;
            v = PyLong_FromLongLong(i);
            break;
        }
        case TREAD_ARG_UINT:
        case TREAD_ARG_POINTER:
        case TREAD_ARG_KOID:
            v = PyLong_FromUnsignedLongLong(get_u64(r));
            break;
        case TREAD_ARG_DOUBLE: {
            double d;
            memcpy(&d, r->p, 8);
            r->p += 8;
            v = PyFloat_FromDouble(d);
            break;
        }
        case TREAD_ARG_STRING:
        case TREAD_ARG_BYTES: {
            size_t n = (size_t)get_u64(r);
            v = t == TREAD_ARG_STRING
                    ? tpy_str((const char *)r->p, n)
                    : PyBytes_FromStringAndSize((const char *)r->p, (Py_ssize_t)n);
            r->p += n;
            break;
        }
        case TREAD_ARG_DICT_BEGIN:
        case TREAD_ARG_ARRAY_BEGIN:
            v = t == TREAD_ARG_DICT_BEGIN ? PyDict_New() : PyList_New(0);
            if (v && build_into(r, v, depth + 1) != 0)
                Py_CLEAR(v);
            break;
        case TREAD_ARG_DICT_END:
        case TREAD_ARG_ARRAY_END:
            Py_XDECREF(key);
            if (depth > 0)
                return 0;
            continue; /* unbalanced at the top: ignored */
        }
        if (!v) {
            Py_XDECREF(key);
            return -1;
        }
        int rc = add(c, key, v);
        Py_XDECREF(key);
        if (rc != 0)
            return -1;
    }
    return 0;
}

PyObject *tpy_args_build(const unsigned char *p, size_t len, int as_list)
{
    PyObject *c = as_list ? PyList_New(0) : PyDict_New();
    if (!c)
        return NULL;
    reader r = {p, p + len};
    if (build_into(&r, c, 0) != 0)
        Py_CLEAR(c);
    return c;
}

/* ---- from Python (unpickling an Event) -------------------------------- */

static int put_entry(tpy_buf *b, tread_arg_type t, PyObject *key, const void *v, size_t vlen,
                     int with_len)
{
    Py_ssize_t klen = 0;
    const char *k = NULL;
    if (key) {
        if (!PyUnicode_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "Event args: keys must be str");
            return -1;
        }
        if (!(k = PyUnicode_AsUTF8AndSize(key, &klen)))
            return -1;
    }
    if (tpy_buf_reserve(b, 1 + 8 + (size_t)klen + 8 + vlen) != 0)
        return -1;
    unsigned char tb = (unsigned char)t;
    put(b, &tb, 1);
    put_u64(b, k ? (uint64_t)klen + 1 : 0);
    if (klen)
        put(b, k, (size_t)klen);
    if (with_len)
        put_u64(b, vlen);
    if (vlen)
        put(b, v, vlen);
    return 0;
}

static int from_py(tpy_buf *b, PyObject *key, PyObject *v, int depth)
{
    if (depth > TREAD_ARGS_ITER_MAX_NEST) {
        PyErr_SetString(PyExc_ValueError, "Event args: nested too deeply");
        return -1;
    }
    if (v == Py_None)
        return put_entry(b, TREAD_ARG_NULL, key, NULL, 0, 0);
    if (PyBool_Check(v)) {
        unsigned char x = v == Py_True;
        return put_entry(b, TREAD_ARG_BOOL, key, &x, 1, 0);
    }
    if (PyLong_Check(v)) {
        int overflow;
        long long i = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (!overflow) {
            if (i == -1 && PyErr_Occurred())
                return -1;
            int64_t x = i;
            return put_entry(b, TREAD_ARG_INT, key, &x, 8, 0);
        }
        uint64_t u = PyLong_AsUnsignedLongLong(v);
        if (u == (uint64_t)-1 && PyErr_Occurred())
            return -1;
        return put_entry(b, TREAD_ARG_UINT, key, &u, 8, 0);
    }
    if (PyFloat_Check(v)) {
        double d = PyFloat_AS_DOUBLE(v);
        return put_entry(b, TREAD_ARG_DOUBLE, key, &d, 8, 0);
    }
    if (PyUnicode_Check(v)) {
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(v, &n);
        return s ? put_entry(b, TREAD_ARG_STRING, key, s, (size_t)n, 1) : -1;
    }
    if (PyBytes_Check(v))
        return put_entry(b, TREAD_ARG_BYTES, key, PyBytes_AS_STRING(v),
                         (size_t)PyBytes_GET_SIZE(v), 1);
    if (PyDict_Check(v) || PyList_Check(v) || PyTuple_Check(v)) {
        int dict = PyDict_Check(v);
        if (put_entry(b, dict ? TREAD_ARG_DICT_BEGIN : TREAD_ARG_ARRAY_BEGIN, key, NULL, 0,
                      0) != 0 ||
            tpy_args_from_py(b, v, depth + 1) != 0)
            return -1;
        return put_entry(b, dict ? TREAD_ARG_DICT_END : TREAD_ARG_ARRAY_END, NULL, NULL, 0, 0);
    }
    PyErr_Format(PyExc_TypeError, "Event args: %.100s is not an argument value",
                 Py_TYPE(v)->tp_name);
    return -1;
}

int tpy_args_from_py(tpy_buf *b, PyObject *obj, int depth)
{
    if (PyDict_Check(obj)) {
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        while (PyDict_Next(obj, &pos, &k, &v))
            if (from_py(b, k, v, depth) != 0)
                return -1;
        return 0;
    }
    PyObject *seq = PySequence_Fast(obj, "Event args: a dict or a list");
    if (!seq)
        return -1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++)
        if (from_py(b, NULL, PySequence_Fast_GET_ITEM(seq, i), depth) != 0) {
            Py_DECREF(seq);
            return -1;
        }
    Py_DECREF(seq);
    return 0;
}
