/*
 * The extension tread._tread: open(), stats(), the exceptions, the kind
 * names; the package tread (python/tread/__init__.py) re-exports them and
 * adds frame() and the submodule tread.dask. See doc/python.md.
 */
#include "py_module.h"

#include <string.h>

#include "py_docpath.h" /* TPY_DOC_PATH: $(docdir)/python.md (python/Makefile.inc) */

PyObject *tpy_Error, *tpy_ParseError, *tpy_FormatError, *tpy_LimitError;
PyObject *tpy_Warning;
PyObject *tpy_kind_names[TREAD_EVENT_KIND_COUNT_];

PyObject *tpy_str(const char *p, size_t len)
{
    return PyUnicode_DecodeUTF8(p, (Py_ssize_t)len, "replace");
}

PyObject *tpy_raise_parser_error(const tread_parser *p)
{
    tread_error e = tread_get_error(p);
    PyObject *type = tpy_Error;
    switch (e) {
    case TREAD_ERROR_SYNTAX:
    case TREAD_ERROR_DECOMPRESS:
        type = tpy_ParseError;
        break;
    case TREAD_ERROR_UNKNOWN_FORMAT:
    case TREAD_ERROR_UNSUPPORTED:
        type = tpy_FormatError;
        break;
    case TREAD_ERROR_LIMIT_DEPTH:
    case TREAD_ERROR_LIMIT_EVENT:
    case TREAD_ERROR_LIMIT_STRING:
    case TREAD_ERROR_LIMIT_MEMORY:
        type = tpy_LimitError;
        break;
    case TREAD_ERROR_NOMEM:
        return PyErr_NoMemory();
    default:
        break;
    }
    const char *msg = tread_get_error_message(p);
    unsigned long long off = (unsigned long long)tread_get_error_offset(p);
    PyObject *exc = PyObject_CallFunction(type, "O", Py_None);
    if (!exc)
        return NULL;
    PyObject *text = PyUnicode_FromFormat("%s at byte %llu: %s", tread_error_name(e), off,
                                          msg ? msg : "");
    PyObject *excargs = text ? PyTuple_Pack(1, text) : NULL;
    PyObject *code = PyUnicode_FromString(tread_error_name(e));
    PyObject *offset = PyLong_FromUnsignedLongLong(off);
    PyObject *message = tpy_str(msg ? msg : "", msg ? strlen(msg) : 0);
    if (excargs && code && offset && message &&
        PyObject_SetAttrString(exc, "args", excargs) == 0 &&
        PyObject_SetAttrString(exc, "code", code) == 0 &&
        PyObject_SetAttrString(exc, "offset", offset) == 0 &&
        PyObject_SetAttrString(exc, "message", message) == 0)
        PyErr_SetObject(type, exc);
    Py_XDECREF(text);
    Py_XDECREF(excargs);
    Py_XDECREF(code);
    Py_XDECREF(offset);
    Py_XDECREF(message);
    Py_DECREF(exc);
    return NULL;
}

static PyObject *live_parsers(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromSsize_t(tpy_live_parsers);
}

/* METH_VARARGS | METH_KEYWORDS functions are PyCFunctionWithKeywords; the
 * table wants a PyCFunction: cast through a generic function pointer. */
#define KW_FUNC(f) ((PyCFunction)(void (*)(void))(f))

static PyMethodDef module_methods[] = {
    {"open", KW_FUNC(tpy_open), METH_VARARGS | METH_KEYWORDS,
     "open(source, /, format=None, *, kinds=None, name_prefix=None, cat_prefix=None, "
     "name=None, cat=None, pid=None, tid=None, start=None, end=None, args=True, "
     "warnings=None, chunk_size=262144, max_depth=None, max_event_bytes=None, "
     "max_string_bytes=None, max_line_bytes=None, max_decompressed_bytes=None, "
     "max_interned_bytes=None, max_tracedat_meta_bytes=None, max_warnings=None, "
     "zstd_window_log_max=None, lenient=None, decompress=None, json_fast_path=None, read_thread=None, "
     "range_begin=None, range_end=None)\n--\n\n"
     "An iterator (tread.Reader) over the events of a trace, read lazily in\n"
     "chunks, in bounded memory.\n\n"
     "source: a path (str, bytes, os.PathLike) or a binary file object.\n"
     "format: 'json', 'perfetto', 'fxt', 'ftrace', 'systrace', 'cpuprofile',\n"
     "'tracedat'\n"
     "or None (sniff).\n"
     "Filter, in C (a rejected event costs no Python object; the same as\n"
     "`tread cat`'s): kinds (names from tread.KINDS), name_prefix and\n"
     "cat_prefix (str or iterable: prefixes), name and cat (patterns: a\n"
     "prefix, or a glob when they hold * ? or [), pid and tid (int or\n"
     "iterable), start and end (ns as int, or str with a unit: '1.5s').\n"
     "args: False skips copying the arguments. warnings: None (Python's\n"
     "warnings module), 'ignore', or a callable(kind, offset, message).\n"
     "chunk_size: bytes read at a time from a file object.\n"
     "The parser's limits (None: the default): max_depth, max_event_bytes,\n"
     "max_string_bytes, max_line_bytes, max_decompressed_bytes,\n"
     "max_interned_bytes, max_tracedat_meta_bytes, max_warnings,\n"
     "zstd_window_log_max; and lenient,\n"
     "decompress, json_fast_path, read_thread, range_begin, range_end.\n"
     "Raises tread.Error subclasses (.code, .offset, .message)."},
    {"stats", KW_FUNC(tpy_stats), METH_VARARGS | METH_KEYWORDS,
     "stats(source, /, format=None, *, top=10, warnings=None, max_depth=None, "
     "max_event_bytes=None, max_string_bytes=None, max_line_bytes=None, "
     "max_decompressed_bytes=None, max_interned_bytes=None, "
     "max_tracedat_meta_bytes=None, max_warnings=None, "
     "zstd_window_log_max=None, lenient=None, decompress=None, json_fast_path=None, "
     "read_thread=None, range_begin=None, range_end=None)\n--\n\n"
     "What `tread stats --json` says about the trace, as a dict: format,\n"
     "sizes, events by kind, time range, processes, threads, top names,\n"
     "warnings by kind (keys in tread(1), JSON STATISTICS). top: how many\n"
     "names and processes are listed. Other keywords as for open()."},
    {"_frame", KW_FUNC(tpy_frame), METH_VARARGS | METH_KEYWORDS,
     "_frame(source, columns, arg_keys, format=None, **options)\n--\n\n"
     "The columns of tread.frame() as raw buffers (see python/tread/_frame.py)."},
    {"_event", tpy_event_restore, METH_VARARGS,
     "_event(fields, flags, /)\n--\n\n"
     "The Event whose to_dict() is fields (unpickling)."},
    {"_live_parsers", live_parsers, METH_NOARGS,
     "_live_parsers()\n--\n\nParsers not yet freed (for tests)."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "tread._tread",
    .m_doc = "The C part of the package tread (see help(tread)): open(), stats(), "
             "Event, Reader, the exceptions, KINDS and FORMATS. Reference: "
             "doc/python.md, installed as " TPY_DOC_PATH ".",
    .m_size = -1,
    .m_methods = module_methods,
};

static PyObject *new_error(PyObject *m, const char *name, PyObject *base, const char *doc)
{
    char full[64];
    PyOS_snprintf(full, sizeof full, "tread.%s", name);
    PyObject *e = PyErr_NewExceptionWithDoc(full, doc, base, NULL);
    if (e && PyModule_AddObjectRef(m, name, e) != 0)
        Py_CLEAR(e);
    return e;
}

PyMODINIT_FUNC PyInit__tread(void);

PyMODINIT_FUNC PyInit__tread(void)
{
    if (PyType_Ready(&tpy_EventType) < 0 || PyType_Ready(&tpy_ReaderType) < 0 ||
        PyType_Ready(&tpy_BufferType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    if (!(tpy_Error = new_error(m, "Error", NULL,
                                "A trace that cannot be read: .code (error name), .offset "
                                "(byte in the decompressed input), .message")) ||
        !(tpy_ParseError = new_error(m, "ParseError", tpy_Error,
                                     "Malformed input (syntax, corrupt compression)")) ||
        !(tpy_FormatError = new_error(m, "FormatError", tpy_Error,
                                      "Not a trace format tread reads")) ||
        !(tpy_LimitError = new_error(m, "LimitError", tpy_Error,
                                     "A limit was reached (max_depth, max_event_bytes, ...)")) ||
        !(tpy_Warning = new_error(m, "TreadWarning", PyExc_UserWarning,
                                  "A problem tread skipped over (counted in the stats)")))
        goto fail;
    PyObject *kinds = PyTuple_New(TREAD_EVENT_KIND_COUNT_);
    if (!kinds)
        goto fail;
    for (int k = 0; k < TREAD_EVENT_KIND_COUNT_; k++) {
        PyObject *s = PyUnicode_InternFromString(tread_event_kind_name((tread_event_kind)k));
        if (!s) {
            Py_DECREF(kinds);
            goto fail;
        }
        Py_INCREF(s);
        tpy_kind_names[k] = s;
        PyTuple_SET_ITEM(kinds, k, s);
    }
    PyObject *formats = PyTuple_New(TREAD_FORMAT_COUNT_ - 1);
    for (int f = 1; formats && f < TREAD_FORMAT_COUNT_; f++) {
        PyObject *s = PyUnicode_FromString(tread_format_name((tread_format)f));
        if (!s)
            Py_CLEAR(formats);
        else
            PyTuple_SET_ITEM(formats, f - 1, s);
    }
    if (PyModule_AddObject(m, "KINDS", kinds) != 0) {
        Py_DECREF(kinds);
        Py_XDECREF(formats);
        goto fail;
    }
    if (!formats || PyModule_AddObject(m, "FORMATS", formats) != 0) {
        Py_XDECREF(formats);
        goto fail;
    }
    Py_INCREF(&tpy_EventType);
    Py_INCREF(&tpy_ReaderType);
    Py_INCREF(&tpy_BufferType);
    if (PyModule_AddObject(m, "_Buffer", (PyObject *)&tpy_BufferType) != 0) {
        Py_DECREF(&tpy_BufferType);
        goto fail;
    }
    PyObject *columns = tpy_frame_columns();
    if (!columns || PyModule_AddObject(m, "COLUMNS", columns) != 0) {
        Py_XDECREF(columns);
        goto fail;
    }
    if (PyModule_AddObject(m, "Event", (PyObject *)&tpy_EventType) != 0 ||
        PyModule_AddObject(m, "Reader", (PyObject *)&tpy_ReaderType) != 0 ||
        PyModule_AddStringConstant(m, "__version__", tread_version()) != 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
