/*
 * tread.Reader: the iterator tread.open() returns.
 *
 * The parser runs inside __next__, never in a thread of its own: its event
 * callback copies the events that pass the filter into tread.Event objects
 * and, when a batch is full, asks the parser to stop; __next__ then hands
 * them out one by one and resumes the parser when the batch is empty. So
 * memory holds one batch and the parser's own bounded buffers, whatever
 * the size of the trace, and no Python code runs inside the parser except
 * the warning hook.
 *
 * A path is read by tread_parse_fd (large reads, resumed after each
 * pause); a file object by its read(chunk_size), fed with tread_feed.
 * Dropping the reader (or close(), or the end of a with block) frees the
 * parser at once.
 */
#include "py_module.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BATCH_EVENTS 256
/* Rejected events between checks for Ctrl-C: a filter that rejects a
 * whole file would otherwise keep the parser from returning until the end. */
#define SIGNAL_CHECK_EVERY 65536

Py_ssize_t tpy_live_parsers;

/* ---- sources ---------------------------------------------------------- */

int tpy_source_open(tpy_source *s, PyObject *obj)
{
    s->fd = -1;
    s->fileobj = NULL;
    s->name = NULL;
    if (!PyUnicode_Check(obj) && !PyBytes_Check(obj) && !PyObject_HasAttrString(obj, "__fspath__") &&
        PyObject_HasAttrString(obj, "read")) {
        Py_INCREF(obj);
        s->fileobj = obj;
        s->name = PyObject_Repr(obj);
        return s->name ? 0 : -1;
    }
    PyObject *bytes = NULL;
    if (!PyUnicode_FSConverter(obj, &bytes))
        return -1;
    const char *path = PyBytes_AS_STRING(bytes);
    int fd;
    Py_BEGIN_ALLOW_THREADS
    fd = open(path, O_RDONLY | O_CLOEXEC);
    Py_END_ALLOW_THREADS
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        fd = -1;
        errno = EISDIR;
    }
    if (fd < 0) {
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, obj);
        Py_DECREF(bytes);
        return -1;
    }
    s->fd = fd;
    s->name = PyUnicode_DecodeFSDefault(path);
    Py_DECREF(bytes);
    if (!s->name) {
        tpy_source_close(s);
        return -1;
    }
    return 0;
}

void tpy_source_close(tpy_source *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    Py_CLEAR(s->fileobj);
    Py_CLEAR(s->name);
}

PyObject *tpy_source_read(tpy_source *s, Py_ssize_t n)
{
    PyObject *data = PyObject_CallMethod(s->fileobj, "read", "n", n);
    if (!data)
        return NULL;
    if (!PyBytes_Check(data)) {
        /* bytearray, memoryview: copied; str: the file is in text mode */
        PyObject *b = PyObject_CheckBuffer(data) ? PyBytes_FromObject(data) : NULL;
        if (!b && !PyErr_Occurred())
            PyErr_Format(PyExc_TypeError,
                         "read() returned %.100s, not bytes: open the file in binary mode",
                         Py_TYPE(data)->tp_name);
        Py_DECREF(data);
        return b;
    }
    return data;
}

/* ---- the reader ------------------------------------------------------- */

enum { R_START, R_RUNNING, R_PAUSED, R_DONE };

typedef struct TreadReader {
    PyObject_HEAD
    tread_parser *parser;
    tpy_source src;
    tpy_options opt;
    int state;
    int finishing;          /* tread_finish called (file objects) */
    int cb_failed;          /* a Python exception is set from a callback */
    int busy;               /* inside the parser: no re-entry, no close */
    unsigned rejected;      /* events the filter rejected, for the signal
                               check */
    PyObject *pending_type, *pending_value, *pending_tb; /* raised after
                                                           the batch */
    PyObject **batch;
    size_t batch_len, batch_pos, batch_cap;
    tpy_buf scratch;
    tread_format format;    /* kept once the parser is gone */
    tread_stats stats;
} TreadReader;

static void free_parser(TreadReader *r)
{
    if (r->parser) {
        tread_get_stats(r->parser, &r->stats);
        r->format = r->stats.format;
        tread_parser_free(r->parser);
        r->parser = NULL;
        tpy_live_parsers--;
    }
    tpy_source_close(&r->src);
    tpy_buf_free(&r->scratch);
}

static void clear_batch(TreadReader *r)
{
    for (size_t i = r->batch_pos; i < r->batch_len; i++)
        Py_DECREF(r->batch[i]);
    r->batch_len = r->batch_pos = 0;
}

static int on_event(void *user, const tread_event *ev)
{
    TreadReader *r = user;
    if (r->cb_failed)
        return 1;
    if (!tpy_filter_pass(&r->opt.filter, ev)) {
        if (++r->rejected % SIGNAL_CHECK_EVERY == 0 && PyErr_CheckSignals() != 0) {
            r->cb_failed = 1;
            return 1;
        }
        return 0;
    }
    if (r->batch_len == r->batch_cap) {
        /* not reached: the parser stops right after the event that
         * filled the batch; grown rather than lost all the same */
        size_t cap = r->batch_cap * 2;
        PyObject **b = PyMem_Realloc(r->batch, cap * sizeof *b);
        if (!b) {
            PyErr_NoMemory();
            r->cb_failed = 1;
            return 1;
        }
        r->batch = b;
        r->batch_cap = cap;
    }
    PyObject *o = tpy_event_new(ev, r->opt.capture_args, &r->scratch);
    if (!o) {
        r->cb_failed = 1;
        return 1;
    }
    r->batch[r->batch_len++] = o;
    return r->batch_len >= BATCH_EVENTS;
}

static int on_warning(void *user, const tread_warning *w)
{
    TreadReader *r = user;
    if (r->cb_failed)
        return 1;
    if (tpy_warn(&r->opt, w) != 0) {
        r->cb_failed = 1;
        return 1;
    }
    return 0;
}

PyObject *tpy_open(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    PyObject *source, *format = NULL;
    if (!PyArg_ParseTuple(args, "O|O:open", &source, &format))
        return NULL;
    TreadReader *r = PyObject_New(TreadReader, &tpy_ReaderType);
    if (!r)
        return NULL;
    r->parser = NULL;
    r->src.fd = -1;
    r->src.fileobj = r->src.name = NULL;
    memset(&r->opt, 0, sizeof r->opt);
    r->state = R_DONE;
    r->finishing = r->cb_failed = r->busy = 0;
    r->rejected = 0;
    r->pending_type = r->pending_value = r->pending_tb = NULL;
    r->batch = NULL;
    r->batch_len = r->batch_pos = r->batch_cap = 0;
    memset(&r->scratch, 0, sizeof r->scratch);
    r->format = TREAD_FORMAT_UNKNOWN;
    memset(&r->stats, 0, sizeof r->stats);

    if (tpy_options_parse(&r->opt, format, kwargs, TPY_FOR_OPEN) != 0)
        goto fail;
    r->batch = PyMem_Malloc(BATCH_EVENTS * sizeof *r->batch);
    if (!r->batch) {
        PyErr_NoMemory();
        goto fail;
    }
    r->batch_cap = BATCH_EVENTS;
    if (tpy_source_open(&r->src, source) != 0)
        goto fail;
    r->parser = tread_parser_create(NULL);
    if (!r->parser) {
        PyErr_NoMemory();
        goto fail;
    }
    tpy_live_parsers++;
    if (tpy_options_apply(&r->opt, r->parser) != 0)
        goto fail;
    tread_callbacks cb = {0};
    cb.event = on_event;
    cb.warning = on_warning;
    tread_set_callbacks(r->parser, &cb, r);
    r->state = R_START;
    return (PyObject *)r;
fail:
    Py_DECREF(r);
    return NULL;
}

/* Runs the parser until it has a batch, or ends, or fails. 0, or -1 with
 * an exception for a failure outside the parse itself (reading a file
 * object). A parse error is kept pending until the batch is handed out. */
static int fill(TreadReader *r)
{
    while (r->batch_len == 0 && r->state != R_DONE) {
        tread_status st;
        int path = r->src.fd >= 0;
        if (r->state == R_PAUSED) {
            st = tread_resume(r->parser);
        } else if (path) {
            st = tread_parse_fd(r->parser, r->src.fd);
        } else {
            PyObject *data = tpy_source_read(&r->src, r->opt.chunk_size);
            if (!data)
                return -1;
            if (PyBytes_GET_SIZE(data) == 0) {
                r->finishing = 1;
                st = tread_finish(r->parser);
            } else {
                st = tread_feed(r->parser, PyBytes_AS_STRING(data),
                                (size_t)PyBytes_GET_SIZE(data));
            }
            Py_DECREF(data);
        }
        if (r->cb_failed) {
            /* an exception from a callback (a warning turned into an
             * error, out of memory): raised after the batch */
            PyErr_Fetch(&r->pending_type, &r->pending_value, &r->pending_tb);
            r->state = R_DONE;
            break;
        }
        if (st == TREAD_STATUS_PAUSED) {
            r->state = R_PAUSED;
        } else if (st == TREAD_STATUS_ERROR) {
            tpy_raise_parser_error(r->parser);
            PyErr_Fetch(&r->pending_type, &r->pending_value, &r->pending_tb);
            r->state = R_DONE;
        } else if (path || r->finishing) {
            r->state = R_DONE;
        } else {
            r->state = R_RUNNING;
        }
    }
    if (r->state == R_DONE && r->parser)
        free_parser(r); /* the stats stay readable */
    return 0;
}

static int check_not_busy(const TreadReader *r)
{
    if (!r->busy)
        return 0;
    /* a warning callback (or another thread, while a file object's read()
     * let go of the GIL) using the reader the parser is running for */
    PyErr_SetString(PyExc_RuntimeError, "tread.Reader is already running");
    return -1;
}

static PyObject *reader_next(PyObject *self)
{
    TreadReader *r = (TreadReader *)self;
    if (check_not_busy(r) != 0)
        return NULL;
    if (r->batch_pos == r->batch_len) {
        r->batch_len = r->batch_pos = 0;
        r->busy = 1;
        int rc = fill(r);
        r->busy = 0;
        if (rc != 0) {
            r->state = R_DONE;
            free_parser(r);
            return NULL;
        }
    }
    if (r->batch_pos < r->batch_len)
        return r->batch[r->batch_pos++]; /* the reference moves to the caller */
    if (r->pending_type) {
        PyErr_Restore(r->pending_type, r->pending_value, r->pending_tb);
        r->pending_type = r->pending_value = r->pending_tb = NULL;
    }
    return NULL; /* StopIteration, or the pending error */
}

static void do_close(TreadReader *r)
{
    clear_batch(r);
    r->state = R_DONE;
    free_parser(r);
    Py_CLEAR(r->pending_type);
    Py_CLEAR(r->pending_value);
    Py_CLEAR(r->pending_tb);
}

static PyObject *reader_close(PyObject *self, PyObject *unused)
{
    (void)unused;
    TreadReader *r = (TreadReader *)self;
    if (check_not_busy(r) != 0)
        return NULL;
    do_close(r);
    Py_RETURN_NONE;
}

static void reader_dealloc(PyObject *self)
{
    TreadReader *r = (TreadReader *)self;
    do_close(r); /* never busy: a running parse holds a reference */
    PyMem_Free(r->batch);
    tpy_options_free(&r->opt);
    PyObject_Free(self);
}

static PyObject *reader_enter(PyObject *self, PyObject *unused)
{
    (void)unused;
    Py_INCREF(self);
    return self;
}

static PyObject *reader_exit(PyObject *self, PyObject *args)
{
    (void)args;
    PyObject *rc = reader_close(self, NULL);
    if (!rc)
        return NULL;
    Py_DECREF(rc);
    Py_RETURN_FALSE;
}

static int put_u64(PyObject *d, const char *k, uint64_t v)
{
    PyObject *x = PyLong_FromUnsignedLongLong(v);
    int rc = x ? PyDict_SetItemString(d, k, x) : -1;
    Py_XDECREF(x);
    return rc;
}

static int put_str(PyObject *d, const char *k, const char *v)
{
    PyObject *x = PyUnicode_FromString(v);
    int rc = x ? PyDict_SetItemString(d, k, x) : -1;
    Py_XDECREF(x);
    return rc;
}

static PyObject *reader_stats(PyObject *self, PyObject *unused)
{
    (void)unused;
    TreadReader *r = (TreadReader *)self;
    tread_stats st;
    if (r->parser)
        tread_get_stats(r->parser, &st);
    else
        st = r->stats;
    PyObject *d = PyDict_New(), *byk = PyDict_New(), *byw = PyDict_New();
    if (!d || !byk || !byw)
        goto fail;
    if (put_str(d, "format", tread_format_name(st.format)) ||
        put_str(d, "compression", tread_compression_name(st.compression)) ||
        put_u64(d, "bytes_in", st.bytes_in) || put_u64(d, "bytes_decoded", st.bytes_decoded) ||
        put_u64(d, "records", st.records) || put_u64(d, "events", st.events) ||
        put_u64(d, "warnings", st.warnings))
        goto fail;
    for (int k = 0; k < TREAD_EVENT_KIND_COUNT_; k++)
        if (put_u64(byk, tread_event_kind_name((tread_event_kind)k), st.events_by_kind[k]))
            goto fail;
    for (int k = 0; k < TREAD_WARN_KIND_COUNT_; k++)
        if (put_u64(byw, tread_warning_name((tread_warning_kind)k), st.warnings_by_kind[k]))
            goto fail;
    if (PyDict_SetItemString(d, "events_by_kind", byk) ||
        PyDict_SetItemString(d, "warnings_by_kind", byw))
        goto fail;
    Py_DECREF(byk);
    Py_DECREF(byw);
    return d;
fail:
    Py_XDECREF(d);
    Py_XDECREF(byk);
    Py_XDECREF(byw);
    return NULL;
}

static PyObject *reader_format(PyObject *self, void *closure)
{
    (void)closure;
    TreadReader *r = (TreadReader *)self;
    tread_format f = r->format;
    if (r->parser) {
        tread_stats st;
        tread_get_stats(r->parser, &st);
        f = st.format;
    }
    if (f == TREAD_FORMAT_UNKNOWN)
        Py_RETURN_NONE;
    return PyUnicode_FromString(tread_format_name(f));
}

static PyObject *reader_closed(PyObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(((TreadReader *)self)->parser == NULL);
}

static PyObject *reader_repr(PyObject *self)
{
    TreadReader *r = (TreadReader *)self;
    if (r->src.name)
        return PyUnicode_FromFormat("<tread.Reader %U>", r->src.name);
    return PyUnicode_FromString("<tread.Reader (closed)>");
}

static PyMethodDef reader_methods[] = {
    {"close", reader_close, METH_NOARGS,
     "close($self, /)\n--\n\n"
     "Free the parser and close the file (a file object passed in is left\n"
     "open). Iterating afterwards stops at once. Safe to call twice."},
    {"stats", reader_stats, METH_NOARGS,
     "stats($self, /)\n--\n\n"
     "The parser's counters so far (tread_get_stats), as a dict: format,\n"
     "compression, bytes_in, bytes_decoded, records, events,\n"
     "events_by_kind, warnings, warnings_by_kind."},
    {"__enter__", reader_enter, METH_NOARGS,
     "__enter__($self, /)\n--\n\n"
     "Return the reader itself: `with tread.open(path) as r:` closes it at\n"
     "the end of the block."},
    {"__exit__", reader_exit, METH_VARARGS,
     "__exit__($self, exc_type, exc_value, traceback, /)\n--\n\n"
     "Close the reader (see close()); an exception raised in the block\n"
     "goes on (returns False)."},
    {NULL, NULL, 0, NULL}
};

static PyGetSetDef reader_getset[] = {
    {"format", reader_format, NULL, "the format, once sniffed (None before)", NULL},
    {"closed", reader_closed, NULL, "True once the parser is freed", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

PyTypeObject tpy_ReaderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tread.Reader",
    .tp_basicsize = sizeof(TreadReader),
    .tp_dealloc = reader_dealloc,
    .tp_repr = reader_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Iterator over the events of a trace, made by tread.open().\n\n"
              "Yields tread.Event objects in input order, read lazily in chunks\n"
              "(bounded memory). A context manager: `with tread.open(p) as r:`.\n"
              "Attributes: format (None until sniffed), closed.\n"
              "Methods: stats(), close().",
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = reader_next,
    .tp_methods = reader_methods,
    .tp_getset = reader_getset,
};
