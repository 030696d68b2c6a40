/*
 * The Python module tread (doc/python.md): what its files share.
 *
 * py_module.c  the extension tread._tread: open(), stats(), exceptions,
 *              constants (re-exported by the package tread)
 * py_reader.c  tread.Reader: the iterator that drives a parser in batches
 * py_event.c   tread.Event: one event, copied out of the parser's buffers
 * py_args.c    arguments: flattened to a private byte form at event time,
 *              turned into a dict only when .args is read
 * py_filter.c  the filter pushed down to C: tools/event_filter.c, the one
 *              `tread cat` uses, from keyword values
 * py_options.c keyword arguments: parser limits, warnings, filter
 * py_stats.c   stats(): the CLI's own stats code (tools/libtreadstats)
 * py_frame.c   _frame(): the columns of tread.frame(), filled in C
 * tread/       the package: __init__.py (the names of _tread, frame()),
 *              _frame.py (the DataFrame from the columns), dask.py
 *
 * Python.h must come first in every file of the module.
 */
#ifndef TREAD_PY_MODULE_H
#define TREAD_PY_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stddef.h>
#include <stdint.h>

#include <tread.h>

/* ---- exceptions and warnings (created once, in PyInit_tread) ---------- */

extern PyObject *tpy_Error;        /* tread.Error (base) */
extern PyObject *tpy_ParseError;   /* syntax, decompression */
extern PyObject *tpy_FormatError;  /* unknown / unsupported format */
extern PyObject *tpy_LimitError;   /* a TREAD_ERROR_LIMIT_* */
extern PyObject *tpy_Warning;      /* tread.TreadWarning (UserWarning) */

/* Sets the Python exception for the parser's error (after
 * TREAD_STATUS_ERROR): the tread.Error subclass for its code, with
 * .code, .offset and .message. Returns NULL. */
PyObject *tpy_raise_parser_error(const tread_parser *p);

/* Interned kind names, built once: tpy_kind_names[k] is a str. */
extern PyObject *tpy_kind_names[TREAD_EVENT_KIND_COUNT_];

/* A str from trace bytes: UTF-8, malformed bytes replaced by U+FFFD. */
PyObject *tpy_str(const char *p, size_t len);

/* ---- growable byte buffer (PyMem) ------------------------------------- */

typedef struct tpy_buf {
    unsigned char *data;
    size_t len, cap;
} tpy_buf;

int tpy_buf_reserve(tpy_buf *b, size_t more); /* 0, or -1 (MemoryError) */
void tpy_buf_free(tpy_buf *b);

/* ---- arguments (py_args.c) -------------------------------------------- */

/* Appends a tread_args, flattened to the module's private form, to b.
 * Returns 0, or -1 with MemoryError set. */
int tpy_args_flatten(tpy_buf *b, const tread_args *a);

/* A dict (top-level keys) or a list (keyless entries, e.g. a JSON
 * "stack" array) from the flattened form. */
PyObject *tpy_args_build(const unsigned char *p, size_t len, int as_list);

/* Appends a dict (keyed entries) or a list/tuple (keyless) of Python
 * values (None, bool, int, float, str, bytes, dict, list) in the
 * flattened form: the inverse of tpy_args_build, for unpickling. 0, or -1
 * with an exception set. */
int tpy_args_from_py(tpy_buf *b, PyObject *obj, int depth);

/* ---- the filter (py_filter.c) ----------------------------------------- */

/* The CLI's filter (tools/event_filter.h: `tread cat --kind --name ...`),
 * from keyword values. */
#include "event_filter.h"

typedef struct tpy_filter {
    int active;                 /* any part set */
    event_filter ef;
} tpy_filter;

/* From the keyword values (any may be NULL or None): kinds (an iterable
 * of kind names), name_prefix and cat_prefix (a str or an iterable of
 * str: prefixes), start and end (ns: an int, or a str with a unit such as
 * "1.5s"). 0, or -1 with an exception set. */
int tpy_filter_init(tpy_filter *f, PyObject *kinds, PyObject *name_prefix,
                    PyObject *cat_prefix, PyObject *start, PyObject *end);
/* The same with name and cat (patterns as `tread cat --name`: a prefix,
 * or a glob when they hold * ? or [) and pid and tid (an int or an
 * iterable of int). */
int tpy_filter_init_ex(tpy_filter *f, PyObject *kinds, PyObject *name_prefix,
                       PyObject *cat_prefix, PyObject *start, PyObject *end, PyObject *name,
                       PyObject *cat, PyObject *pid, PyObject *tid);
void tpy_filter_free(tpy_filter *f);
int tpy_filter_pass(const tpy_filter *f, const tread_event *ev);

/* ---- options (py_options.c) ------------------------------------------- */

enum { TPY_WARN_PYTHON = 0, TPY_WARN_CALLBACK, TPY_WARN_IGNORE };

typedef struct tpy_options {
    tread_format format;        /* UNKNOWN: sniff */
    int64_t limit[TREAD_OPT_MAX_TRACEDAT_META_BYTES + 1]; /* by tread_option
                                          (the last is TREAD_OPT_MAX_TRACEDAT_
                                          META_BYTES); -2: not given */
    int warn_mode;
    PyObject *warn_cb;          /* owned; TPY_WARN_CALLBACK */
    int capture_args;           /* args=True (default) */
    Py_ssize_t chunk_size;
    Py_ssize_t top;             /* stats(): names listed */
    tpy_filter filter;
} tpy_options;

enum { TPY_FOR_OPEN = 1, TPY_FOR_STATS = 2 };

/* Parses format (may be NULL) and the keyword arguments of open() or
 * stats() (which). 0, or -1 with TypeError/ValueError set. */
int tpy_options_parse(tpy_options *o, PyObject *format, PyObject *kwargs,
                      int which);
void tpy_options_free(tpy_options *o);

/* Applies format and limits to a new parser. 0, or -1 with ValueError. */
int tpy_options_apply(const tpy_options *o, tread_parser *p);

/* Hands a warning to Python as o says. 0, or -1 with an exception set
 * (a warnings filter set to "error", a callback that raised). */
int tpy_warn(const tpy_options *o, const tread_warning *w);

/* ---- input (py_reader.c) ---------------------------------------------- */

/* Where bytes come from: a file (path, read by tread_parse_fd) or a
 * Python file object (its read(n) in chunks, fed with tread_feed). */
typedef struct tpy_source {
    int fd;                     /* -1 for a file object */
    PyObject *fileobj;          /* owned, or NULL */
    PyObject *name;             /* owned: the path (str) or repr */
} tpy_source;

/* From a path (str, bytes, os.PathLike) or an object with read(). 0, or
 * -1 with an exception (OSError for a file that does not open). */
int tpy_source_open(tpy_source *s, PyObject *obj);
void tpy_source_close(tpy_source *s);

/* Reads the next chunk of a file object: a new bytes object (empty at
 * the end), or NULL with an exception. */
PyObject *tpy_source_read(tpy_source *s, Py_ssize_t n);

/* ---- types ------------------------------------------------------------ */

extern PyTypeObject tpy_EventType;
extern PyTypeObject tpy_ReaderType;

/* A new tread.Event holding a copy of ev (args flattened when
 * capture_args; scratch is reused between calls). NULL with an
 * exception when out of memory. */
PyObject *tpy_event_new(const tread_event *ev, int capture_args,
                        tpy_buf *scratch);

/* tread.Event's pickling: tread._tread._event(fields, flags) rebuilds
 * the event Event.__reduce__ took apart (fields: to_dict()). */
PyObject *tpy_event_restore(PyObject *self, PyObject *args);

/* tread.open() and tread.stats(). */
PyObject *tpy_open(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *tpy_stats(PyObject *self, PyObject *args, PyObject *kwargs);

/* tread._frame(): the columns of tread.frame() (py_frame.c), and
 * tread.COLUMNS, the names it knows. */
extern PyTypeObject tpy_BufferType;
PyObject *tpy_frame(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *tpy_frame_columns(void);

/* Parsers alive right now (tests check that a reader frees its own). */
extern Py_ssize_t tpy_live_parsers;

#endif
