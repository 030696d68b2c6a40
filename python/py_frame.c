/*
 * tread._frame(): the columns of tread.frame() (doc/python.md), built in C.
 *
 * The event callback appends each event that passes the filter to one
 * typed, growable C array per column (int64 and a missing-value mask,
 * float64, categorical codes), with no Python object made per event and
 * the interpreter's lock released while the parser runs. Strings are
 * dictionary-encoded as they arrive (the codes of a categorical), so a
 * name repeated a million times is stored once. Argument columns
 * (args=[keys]) look up only those keys (tread_args_find: lazy encodings
 * decode only what they walk past) and keep a type tag and an 8-byte
 * value per row. At the end each array is handed to Python as a
 * tread._Buffer (buffer protocol, no copy) that numpy.frombuffer wraps;
 * python/tread/_frame.py makes the DataFrame.
 */
#include "py_module.h"

#include <string.h>

/* Events between pauses of the parser to check for Ctrl-C (the lock is
 * released while it runs, so signals are seen only then). */
#define PAUSE_EVERY (1u << 20)

/* ---- raw growable arrays (no lock needed) ----------------------------- */

typedef struct raw {
    unsigned char *p;
    size_t len, cap; /* bytes */
} raw;

static int raw_reserve(raw *r, size_t more)
{
    if (more <= r->cap - r->len)
        return 0;
    size_t cap = r->cap ? r->cap : 4096;
    while (cap - r->len < more) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2; /* large blocks are mmapped: realloc moves pages, and
                     what is not yet written is not resident */
    }
    unsigned char *p = PyMem_RawRealloc(r->p, cap);
    if (!p)
        return -1;
    r->p = p;
    r->cap = cap;
    return 0;
}

static void raw_free(raw *r)
{
    PyMem_RawFree(r->p);
    r->p = NULL;
    r->len = r->cap = 0;
}

/* ---- tread._Buffer: a raw array handed to numpy without a copy -------- */

typedef struct TreadBuffer {
    PyObject_HEAD
    unsigned char *p;
    Py_ssize_t len;
} TreadBuffer;

static int buffer_get(PyObject *self, Py_buffer *view, int flags)
{
    TreadBuffer *b = (TreadBuffer *)self;
    return PyBuffer_FillInfo(view, self, b->p ? b->p : (unsigned char *)"", b->len, 0, flags);
}

static void buffer_dealloc(PyObject *self)
{
    PyMem_RawFree(((TreadBuffer *)self)->p);
    PyObject_Free(self);
}

static PyBufferProcs buffer_procs = {buffer_get, NULL};

PyTypeObject tpy_BufferType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tread._Buffer",
    .tp_basicsize = sizeof(TreadBuffer),
    .tp_dealloc = buffer_dealloc,
    .tp_as_buffer = &buffer_procs,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Memory of one column of tread.frame() (buffer protocol; numpy.frombuffer)",
};

/* Moves r's memory into a new tread._Buffer (shrunk to its length). */
static PyObject *buffer_take(raw *r)
{
    TreadBuffer *b = PyObject_New(TreadBuffer, &tpy_BufferType);
    if (!b)
        return NULL;
    if (r->p && r->len < r->cap) {
        unsigned char *p = PyMem_RawRealloc(r->p, r->len ? r->len : 1);
        if (p)
            r->p = p;
    }
    b->p = r->p;
    b->len = (Py_ssize_t)r->len;
    r->p = NULL;
    r->len = r->cap = 0;
    return (PyObject *)b;
}

/* ---- dictionary encoding of strings ----------------------------------- */

typedef struct strdict {
    uint32_t *slots;      /* code + 1; 0: empty */
    size_t nslots;        /* power of two */
    raw offs;             /* size_t per code: start in arena */
    raw lens;             /* size_t per code */
    raw hashes;           /* uint64_t per code */
    raw arena;
    size_t n;
} strdict;

/* Eight bytes at a time: names are short, and this runs once per string
 * column per event. */
static uint64_t hash_bytes(const unsigned char *p, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 29);
}

static void strdict_free(strdict *d)
{
    PyMem_RawFree(d->slots);
    raw_free(&d->offs);
    raw_free(&d->lens);
    raw_free(&d->hashes);
    raw_free(&d->arena);
    memset(d, 0, sizeof *d);
}

static int strdict_grow(strdict *d)
{
    size_t n = d->nslots ? d->nslots * 2 : 256;
    uint32_t *s = PyMem_RawCalloc(n, sizeof *s);
    if (!s)
        return -1;
    const uint64_t *h = (const uint64_t *)(void *)d->hashes.p;
    for (size_t c = 0; c < d->n; c++) {
        size_t i = (size_t)h[c] & (n - 1);
        while (s[i])
            i = (i + 1) & (n - 1);
        s[i] = (uint32_t)c + 1;
    }
    PyMem_RawFree(d->slots);
    d->slots = s;
    d->nslots = n;
    return 0;
}

/* The code of the string, added when new; -1 when out of memory. */
static int32_t strdict_code(strdict *d, const char *str, size_t len)
{
    const unsigned char *p = (const unsigned char *)(str ? str : "");
    uint64_t h = hash_bytes(p, len);
    if (d->n * 2 >= d->nslots && strdict_grow(d) != 0)
        return -1;
    size_t mask = d->nslots - 1, i = (size_t)h & mask;
    const uint64_t *hs = (const uint64_t *)(void *)d->hashes.p;
    const size_t *offs = (const size_t *)(void *)d->offs.p;
    const size_t *lens = (const size_t *)(void *)d->lens.p;
    while (d->slots[i]) {
        uint32_t c = d->slots[i] - 1;
        if (hs[c] == h && lens[c] == len && memcmp(d->arena.p + offs[c], p, len) == 0)
            return (int32_t)c;
        i = (i + 1) & mask;
    }
    if (d->n >= INT32_MAX - 1 || raw_reserve(&d->arena, len ? len : 1) != 0 ||
        raw_reserve(&d->offs, sizeof(size_t)) != 0 ||
        raw_reserve(&d->lens, sizeof(size_t)) != 0 ||
        raw_reserve(&d->hashes, sizeof(uint64_t)) != 0)
        return -1;
    size_t off = d->arena.len;
    if (len)
        memcpy(d->arena.p + off, p, len);
    d->arena.len += len;
    memcpy(d->offs.p + d->offs.len, &off, sizeof off);
    d->offs.len += sizeof off;
    memcpy(d->lens.p + d->lens.len, &len, sizeof len);
    d->lens.len += sizeof len;
    memcpy(d->hashes.p + d->hashes.len, &h, sizeof h);
    d->hashes.len += sizeof h;
    d->slots[i] = (uint32_t)d->n + 1;
    return (int32_t)d->n++;
}

/* ---- the columns ------------------------------------------------------ */

enum ctype {
    C_I64N,    /* int64 + mask (True: missing) */
    C_U64N,    /* uint64 + mask */
    C_F64,     /* float64, NaN when missing */
    C_U64,     /* uint64, always present */
    C_CATFIX,  /* int8 codes into a fixed list of names, -1 missing */
    C_CATSTR   /* int32 codes into the dictionary, -1 missing */
};

enum cfield {
    K_KIND, K_FORMAT, K_META, K_TRACK_KIND, K_SCOPE,
    K_TS, K_DUR, K_END, K_TTS, K_TDUR, K_PID, K_TID, K_CPU, K_META_NUM, K_RAW_TS,
    K_TIDELTA, K_TICOUNT,
    K_TRACK, K_ID_NUM, K_SEQ_ID, K_CLOCK_ID, K_PROVIDER_ID,
    K_VALUE, K_OFFSET, K_FLAGS,
    K_NAME, K_CAT, K_ID, K_PID_STR, K_TID_STR, K_SERIES, K_META_STR,
    K_PROVIDER_NAME, K_CNAME, K_VALUE_TEXT, K_ID_SCOPE, K_BIND_ID, K_PHASE,
    K_SF, K_ESF, K_PARENT
};

typedef struct colspec {
    const char *name;
    enum ctype type;
    enum cfield field;
} colspec;

/* Every column tread.frame() can make; named as tread.Event's attributes
 * (but "track" for track_uuid). */
static const colspec specs[] = {
    {"kind", C_CATFIX, K_KIND},
    {"format", C_CATFIX, K_FORMAT},
    {"meta", C_CATFIX, K_META},
    {"track_kind", C_CATFIX, K_TRACK_KIND},
    {"scope", C_CATFIX, K_SCOPE},
    {"ts", C_I64N, K_TS},
    {"dur", C_I64N, K_DUR},
    {"end", C_I64N, K_END},
    {"tts", C_I64N, K_TTS},
    {"tdur", C_I64N, K_TDUR},
    {"pid", C_I64N, K_PID},
    {"tid", C_I64N, K_TID},
    {"cpu", C_I64N, K_CPU},
    {"meta_num", C_I64N, K_META_NUM},
    {"raw_ts", C_I64N, K_RAW_TS},
    {"tidelta", C_I64N, K_TIDELTA},
    {"ticount", C_I64N, K_TICOUNT},
    {"track", C_U64N, K_TRACK},
    {"id_num", C_U64N, K_ID_NUM},
    {"seq_id", C_U64N, K_SEQ_ID},
    {"clock_id", C_U64N, K_CLOCK_ID},
    {"provider_id", C_U64N, K_PROVIDER_ID},
    {"value", C_F64, K_VALUE},
    {"offset", C_U64, K_OFFSET},
    {"flags", C_U64, K_FLAGS},
    {"name", C_CATSTR, K_NAME},
    {"cat", C_CATSTR, K_CAT},
    {"id", C_CATSTR, K_ID},
    {"pid_str", C_CATSTR, K_PID_STR},
    {"tid_str", C_CATSTR, K_TID_STR},
    {"series", C_CATSTR, K_SERIES},
    {"meta_str", C_CATSTR, K_META_STR},
    {"provider_name", C_CATSTR, K_PROVIDER_NAME},
    {"cname", C_CATSTR, K_CNAME},
    {"value_text", C_CATSTR, K_VALUE_TEXT},
    {"id_scope", C_CATSTR, K_ID_SCOPE},
    {"bind_id", C_CATSTR, K_BIND_ID},
    {"phase", C_CATSTR, K_PHASE},
    {"sf", C_CATSTR, K_SF},
    {"esf", C_CATSTR, K_ESF},
    {"parent", C_CATSTR, K_PARENT},
};
#define N_SPECS (sizeof specs / sizeof specs[0])

static const char *const scope_names[] = {"thread", "process", "global"};

typedef struct column {
    const colspec *spec;
    raw data, mask;
    strdict dict;
} column;

/* An argument column: per row a tag and 8 bytes of value. */
enum { A_MISSING = 0, A_INT, A_UINT, A_DOUBLE, A_BOOL, A_STRING, A_OTHER };

typedef struct argcol {
    char *key;           /* UTF-8, owned (PyMem) */
    size_t key_len;
    raw tags, vals;
    strdict dict;
} argcol;

typedef struct framer {
    column *cols;
    size_t ncols;
    argcol *acols;
    size_t nacols;
    size_t rows;
    size_t cap_rows;           /* every column has room for this many */
    tpy_options opt;
    PyThreadState *released;   /* non-NULL while the lock is released */
    int nomem, cb_failed;
    unsigned since_pause;
} framer;

/* The width of a row in each array of a column. */
static size_t data_width(const column *c)
{
    switch (c->spec->type) {
    case C_CATFIX: return 1;
    case C_CATSTR: return 4;
    default: return 8;
    }
}

static int put_i64n(column *c, int present, int64_t v)
{
    if (!present)
        v = 0;
    memcpy(c->data.p + c->data.len, &v, 8);
    c->data.len += 8;
    c->mask.p[c->mask.len++] = !present;
    return 0;
}

static int put_u64(column *c, uint64_t v)
{
    memcpy(c->data.p + c->data.len, &v, 8);
    c->data.len += 8;
    return 0;
}

static int put_code8(column *c, int code)
{
    c->data.p[c->data.len++] = (unsigned char)(signed char)code;
    return 0;
}

static int put_str(column *c, const tread_str *s)
{
    int32_t code = -1;
    if (s->ptr && (code = strdict_code(&c->dict, s->ptr, s->len)) < 0)
        return -1;
    memcpy(c->data.p + c->data.len, &code, 4);
    c->data.len += 4;
    return 0;
}

static int put_column(column *c, const tread_event *ev)
{
    uint32_t fl = ev->flags;
    switch (c->spec->field) {
    case K_KIND:
        return put_code8(c, (unsigned)ev->kind < TREAD_EVENT_KIND_COUNT_ ? (int)ev->kind : 0);
    case K_FORMAT:
        return put_code8(c, (unsigned)ev->format < TREAD_FORMAT_COUNT_ ? (int)ev->format : 0);
    case K_META:
        return put_code8(c, ev->kind == TREAD_EVENT_METADATA &&
                                    (unsigned)ev->meta < TREAD_META_COUNT_
                                ? (int)ev->meta : -1);
    case K_TRACK_KIND:
        return put_code8(c, (fl & TREAD_HAS_TRACK) &&
                                    (unsigned)ev->track_kind < TREAD_TRACK_COUNT_
                                ? (int)ev->track_kind : -1);
    case K_SCOPE:
        return put_code8(c, ev->scope >= TREAD_SCOPE_THREAD && ev->scope <= TREAD_SCOPE_GLOBAL
                                ? (int)ev->scope - 1 : -1);
    case K_TS: return put_i64n(c, (fl & TREAD_HAS_TS) != 0, ev->ts);
    case K_DUR: return put_i64n(c, (fl & TREAD_HAS_DUR) != 0, ev->dur);
    case K_END:
        return put_i64n(c, (fl & TREAD_HAS_TS) != 0,
                        (int64_t)((uint64_t)ev->ts +
                                  (uint64_t)((fl & TREAD_HAS_DUR) ? ev->dur : 0)));
    case K_TTS: return put_i64n(c, (fl & TREAD_HAS_TTS) != 0, ev->tts);
    case K_TDUR: return put_i64n(c, (fl & TREAD_HAS_TDUR) != 0, ev->tdur);
    case K_PID: return put_i64n(c, (fl & TREAD_HAS_PID) != 0, ev->pid);
    case K_TID: return put_i64n(c, (fl & (TREAD_HAS_TID | TREAD_HAS_PID)) != 0, ev->tid);
    case K_CPU: return put_i64n(c, (fl & TREAD_HAS_CPU) != 0, ev->cpu);
    case K_META_NUM: return put_i64n(c, (fl & TREAD_HAS_META_NUM) != 0, ev->meta_num);
    case K_RAW_TS: return put_i64n(c, (fl & TREAD_HAS_RAW_TS) != 0, ev->raw_ts);
    case K_TIDELTA: return put_i64n(c, (fl & TREAD_HAS_TIDELTA) != 0, ev->tidelta);
    case K_TICOUNT: return put_i64n(c, (fl & TREAD_HAS_TICOUNT) != 0, ev->ticount);
    case K_TRACK:
        return put_i64n(c, (fl & TREAD_HAS_TRACK) != 0, (int64_t)ev->track_uuid);
    case K_ID_NUM:
        return put_i64n(c, (fl & TREAD_HAS_ID_NUM) != 0, (int64_t)ev->id_num);
    case K_SEQ_ID: return put_i64n(c, (fl & TREAD_HAS_SEQ) != 0, (int64_t)ev->seq_id);
    case K_CLOCK_ID: return put_i64n(c, (fl & TREAD_HAS_RAW_TS) != 0, (int64_t)ev->clock_id);
    case K_PROVIDER_ID:
        return put_i64n(c, (fl & TREAD_HAS_PROVIDER) != 0, (int64_t)ev->provider_id);
    case K_VALUE: {
        double v = (fl & TREAD_HAS_VALUE) ? ev->value : Py_NAN;
        uint64_t bits;
        memcpy(&bits, &v, 8);
        return put_u64(c, bits);
    }
    case K_OFFSET: return put_u64(c, ev->offset);
    case K_FLAGS: return put_u64(c, fl);
    case K_NAME: return put_str(c, &ev->name);
    case K_CAT: return put_str(c, &ev->cat);
    case K_ID: return put_str(c, &ev->id);
    case K_PID_STR: return put_str(c, &ev->pid_str);
    case K_TID_STR: return put_str(c, &ev->tid_str);
    case K_SERIES: return put_str(c, &ev->series);
    case K_META_STR: return put_str(c, &ev->meta_str);
    case K_PROVIDER_NAME: return put_str(c, &ev->provider_name);
    case K_CNAME: return put_str(c, &ev->cname);
    case K_VALUE_TEXT: return put_str(c, &ev->value_text);
    case K_ID_SCOPE: return put_str(c, &ev->id_scope);
    case K_BIND_ID: return put_str(c, &ev->bind_id);
    case K_PHASE: {
        char ch = (char)ev->phase;
        tread_str s = {ev->phase > 0 && ev->phase <= 127 ? &ch : NULL, 1};
        return put_str(c, &s);
    }
    case K_SF: return put_str(c, &ev->sf);
    case K_ESF: return put_str(c, &ev->esf);
    case K_PARENT: return put_str(c, &ev->parent);
    }
    return 0;
}

static int put_arg(argcol *a, const tread_event *ev)
{
    tread_arg arg;
    unsigned char tag = A_MISSING;
    uint64_t v = 0;
    if (ev->args.data && ev->args.len &&
        tread_args_find(&ev->args, a->key, a->key_len, &arg)) {
        switch (arg.type) {
        case TREAD_ARG_NULL:
            break;
        case TREAD_ARG_BOOL:
            tag = A_BOOL;
            v = arg.v.b != 0;
            break;
        case TREAD_ARG_INT:
            tag = A_INT;
            v = (uint64_t)arg.v.i;
            break;
        case TREAD_ARG_UINT:
        case TREAD_ARG_POINTER:
        case TREAD_ARG_KOID:
            tag = A_UINT;
            v = arg.v.u;
            break;
        case TREAD_ARG_DOUBLE:
            tag = A_DOUBLE;
            memcpy(&v, &arg.v.d, 8);
            break;
        case TREAD_ARG_STRING: {
            int32_t code = strdict_code(&a->dict, arg.v.s.ptr, arg.v.s.len);
            if (code < 0)
                return -1;
            tag = A_STRING;
            v = (uint64_t)code;
            break;
        }
        default:
            tag = A_OTHER; /* bytes, a dict or an array: see the flat keys */
            break;
        }
    }
    a->tags.p[a->tags.len++] = tag;
    memcpy(a->vals.p + a->vals.len, &v, 8);
    a->vals.len += 8;
    return 0;
}

/* Room for rows more rows in every array, so that the per-event code
 * writes without checking. 0, or -1 when out of memory. */
static int reserve_rows(framer *f, size_t rows)
{
    for (size_t i = 0; i < f->ncols; i++) {
        column *c = &f->cols[i];
        if (raw_reserve(&c->data, rows * data_width(c)) != 0 ||
            ((c->spec->type == C_I64N || c->spec->type == C_U64N) &&
             raw_reserve(&c->mask, rows) != 0))
            return -1;
    }
    for (size_t i = 0; i < f->nacols; i++)
        if (raw_reserve(&f->acols[i].tags, rows) != 0 ||
            raw_reserve(&f->acols[i].vals, rows * 8) != 0)
            return -1;
    f->cap_rows = f->rows + rows;
    return 0;
}

static int on_event(void *user, const tread_event *ev)
{
    framer *f = user;
    if (f->nomem || f->cb_failed)
        return 1;
    if (!tpy_filter_pass(&f->opt.filter, ev))
        return ++f->since_pause >= PAUSE_EVERY;
    if (f->rows == f->cap_rows && reserve_rows(f, f->rows > 4096 ? f->rows : 4096) != 0)
        goto nomem;
    for (size_t i = 0; i < f->ncols; i++)
        if (put_column(&f->cols[i], ev) != 0)
            goto nomem;
    for (size_t i = 0; i < f->nacols; i++)
        if (put_arg(&f->acols[i], ev) != 0)
            goto nomem;
    f->rows++;
    return ++f->since_pause >= PAUSE_EVERY;
nomem:
    /* the columns filled so far are longer than rows: all is dropped */
    f->nomem = 1;
    return 1;
}

static int on_warning(void *user, const tread_warning *w)
{
    framer *f = user;
    if (f->cb_failed)
        return 1;
    if (f->released)
        PyEval_RestoreThread(f->released);
    int rc = tpy_warn(&f->opt, w);
    if (rc != 0)
        f->cb_failed = 1; /* the exception stays set until the parse returns */
    if (f->released)
        f->released = PyEval_SaveThread();
    return rc != 0;
}

static void framer_free(framer *f)
{
    for (size_t i = 0; i < f->ncols; i++) {
        raw_free(&f->cols[i].data);
        raw_free(&f->cols[i].mask);
        strdict_free(&f->cols[i].dict);
    }
    for (size_t i = 0; i < f->nacols; i++) {
        PyMem_Free(f->acols[i].key);
        raw_free(&f->acols[i].tags);
        raw_free(&f->acols[i].vals);
        strdict_free(&f->acols[i].dict);
    }
    PyMem_Free(f->cols);
    PyMem_Free(f->acols);
    tpy_options_free(&f->opt);
}

/* ---- results ---------------------------------------------------------- */

/* The dictionary's strings as a list. Distinct byte strings are distinct
 * str unless malformed UTF-8 was replaced by U+FFFD: only then is the
 * list checked for duplicates, and codes rewritten so that the categories
 * stay unique. */
static PyObject *categories(strdict *d, int32_t *codes, size_t n)
{
    const size_t *offs = (const size_t *)(void *)d->offs.p;
    const size_t *lens = (const size_t *)(void *)d->lens.p;
    PyObject *list = PyList_New((Py_ssize_t)d->n), *seen = NULL, *out = NULL;
    int32_t *remap = NULL;
    int replaced = 0;
    if (!list)
        return NULL;
    for (size_t c = 0; c < d->n; c++) {
        const char *p = (const char *)d->arena.p + offs[c];
        PyObject *s = PyUnicode_DecodeUTF8(p, (Py_ssize_t)lens[c], NULL);
        if (!s && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
            PyErr_Clear();
            replaced = 1;
            s = tpy_str(p, lens[c]);
        }
        if (!s)
            goto fail;
        PyList_SET_ITEM(list, (Py_ssize_t)c, s);
    }
    if (!replaced)
        return list;
    /* rare: keep the first of each str, and map the codes of the others */
    if (!(seen = PyDict_New()) || !(out = PyList_New(0)) ||
        !(remap = PyMem_Malloc((d->n + 1) * sizeof *remap))) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto fail;
    }
    for (size_t c = 0; c < d->n; c++) {
        PyObject *s = PyList_GET_ITEM(list, (Py_ssize_t)c);
        PyObject *prev = PyDict_GetItemWithError(seen, s);
        if (prev) {
            remap[c] = (int32_t)PyLong_AsLong(prev);
            continue;
        }
        if (PyErr_Occurred())
            goto fail;
        PyObject *code = PyLong_FromSsize_t(PyList_GET_SIZE(out));
        int rc = code ? PyDict_SetItem(seen, s, code) : -1;
        Py_XDECREF(code);
        if (rc != 0 || PyList_Append(out, s) != 0)
            goto fail;
        remap[c] = (int32_t)(PyList_GET_SIZE(out) - 1);
    }
    if (codes)
        for (size_t i = 0; i < n; i++)
            if (codes[i] >= 0)
                codes[i] = remap[codes[i]];
    PyMem_Free(remap);
    Py_DECREF(seen);
    Py_DECREF(list);
    return out;
fail:
    PyMem_Free(remap);
    Py_XDECREF(seen);
    Py_XDECREF(out);
    Py_DECREF(list);
    return NULL;
}

/* Narrows int32 codes in place to the width pandas gives a categorical
 * with that many categories (so that Categorical.from_codes does not
 * copy them): int8 below 127, int16 below 32767. Returns the width. */
static int narrow_codes(raw *r, size_t n, size_t ncats)
{
    const int32_t *in = (const int32_t *)(void *)r->p;
    if (ncats < 127) {
        signed char *out = (signed char *)r->p;
        for (size_t i = 0; i < n; i++)
            out[i] = (signed char)in[i];
        r->len = n;
        return 1;
    }
    if (ncats < 32767) {
        int16_t *out = (int16_t *)(void *)r->p;
        for (size_t i = 0; i < n; i++) {
            int16_t v = (int16_t)in[i];
            memcpy(&out[i], &v, 2);
        }
        r->len = n * 2;
        return 2;
    }
    return 4;
}

static PyObject *names_tuple(int which)
{
    int n = which == K_KIND ? TREAD_EVENT_KIND_COUNT_
            : which == K_FORMAT ? TREAD_FORMAT_COUNT_
            : which == K_META ? TREAD_META_COUNT_
            : which == K_TRACK_KIND ? TREAD_TRACK_COUNT_ : 3;
    PyObject *t = PyList_New(n);
    for (int i = 0; t && i < n; i++) {
        const char *s = which == K_KIND ? tread_event_kind_name((tread_event_kind)i)
                        : which == K_FORMAT ? tread_format_name((tread_format)i)
                        : which == K_META ? tread_meta_name((tread_meta)i)
                        : which == K_TRACK_KIND ? tread_track_kind_name((tread_track_kind)i)
                        : scope_names[i];
        PyObject *x = PyUnicode_FromString(s);
        if (!x)
            Py_CLEAR(t);
        else
            PyList_SET_ITEM(t, i, x);
    }
    return t;
}

static PyObject *column_result(column *c, size_t rows)
{
    PyObject *data = NULL, *mask = NULL, *cats = NULL;
    const char *kind = "";
    int width = 1;
    switch (c->spec->type) {
    case C_I64N:
    case C_U64N:
        kind = c->spec->type == C_I64N ? "int" : "uint";
        mask = buffer_take(&c->mask);
        break;
    case C_F64: kind = "float"; break;
    case C_U64: kind = "uint64"; break;
    case C_CATFIX:
        kind = "cat";
        cats = names_tuple(c->spec->field);
        break;
    case C_CATSTR:
        kind = "cat";
        cats = categories(&c->dict, (int32_t *)(void *)c->data.p, rows);
        if (cats)
            width = narrow_codes(&c->data, rows, (size_t)PyList_GET_SIZE(cats));
        strdict_free(&c->dict);
        break;
    }
    data = buffer_take(&c->data);
    PyObject *r = NULL;
    if (data && (c->spec->type == C_I64N || c->spec->type == C_U64N) && mask)
        r = Py_BuildValue("(sOO)", kind, data, mask);
    else if (data && (c->spec->type == C_F64 || c->spec->type == C_U64))
        r = Py_BuildValue("(sO)", kind, data);
    else if (data && cats)
        r = Py_BuildValue("(sOOi)", kind, data, cats, width);
    Py_XDECREF(data);
    Py_XDECREF(mask);
    Py_XDECREF(cats);
    return r;
}

static PyObject *argcol_result(argcol *a)
{
    PyObject *cats = categories(&a->dict, NULL, 0);
    PyObject *tags = cats ? buffer_take(&a->tags) : NULL;
    PyObject *vals = tags ? buffer_take(&a->vals) : NULL;
    PyObject *r = vals ? Py_BuildValue("(OOO)", tags, vals, cats) : NULL;
    strdict_free(&a->dict);
    Py_XDECREF(tags);
    Py_XDECREF(vals);
    Py_XDECREF(cats);
    return r;
}

/* ---- tread._frame ----------------------------------------------------- */

static int setup(framer *f, PyObject *columns, PyObject *arg_keys)
{
    PyObject *cols = PySequence_Tuple(columns);
    if (!cols)
        return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(cols);
    f->cols = PyMem_Calloc((size_t)n + 1, sizeof *f->cols);
    if (!f->cols) {
        Py_DECREF(cols);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyTuple_GET_ITEM(cols, i);
        const char *s = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
        const colspec *sp = NULL;
        for (size_t k = 0; s && k < N_SPECS; k++)
            if (strcmp(s, specs[k].name) == 0)
                sp = &specs[k];
        if (!sp) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "columns: unknown column %R (see tread.COLUMNS)",
                             o);
            Py_DECREF(cols);
            return -1;
        }
        f->cols[f->ncols++].spec = sp;
    }
    Py_DECREF(cols);
    PyObject *keys = PySequence_Tuple(arg_keys);
    if (!keys)
        return -1;
    n = PyTuple_GET_SIZE(keys);
    f->acols = PyMem_Calloc((size_t)n + 1, sizeof *f->acols);
    if (!f->acols) {
        Py_DECREF(keys);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyTuple_GET_ITEM(keys, i);
        Py_ssize_t len;
        const char *s = PyUnicode_Check(o) ? PyUnicode_AsUTF8AndSize(o, &len) : NULL;
        if (!s) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "args: argument keys as str");
            Py_DECREF(keys);
            return -1;
        }
        argcol *a = &f->acols[f->nacols++];
        a->key = PyMem_Malloc((size_t)len + 1);
        if (!a->key) {
            Py_DECREF(keys);
            PyErr_NoMemory();
            return -1;
        }
        memcpy(a->key, s, (size_t)len + 1);
        a->key_len = (size_t)len;
    }
    Py_DECREF(keys);
    return 0;
}

/* Runs the parse to its end, the lock released while the parser runs.
 * 0, or -1 with an exception set. */
static int run(framer *f, tread_parser *p, tpy_source *src)
{
    tread_status st = TREAD_STATUS_OK;
    int finishing = 0;
    for (;;) {
        PyObject *data = NULL;
        Py_ssize_t n = 0;
        int fileobj_read = src->fd < 0 && st != TREAD_STATUS_PAUSED;
        if (fileobj_read) {
            if (!(data = tpy_source_read(src, f->opt.chunk_size)))
                return -1;
            n = PyBytes_GET_SIZE(data);
        }
        f->released = PyEval_SaveThread();
        if (st == TREAD_STATUS_PAUSED)
            st = tread_resume(p);
        else if (src->fd >= 0)
            st = tread_parse_fd(p, src->fd);
        else if (n)
            st = tread_feed(p, PyBytes_AS_STRING(data), (size_t)n);
        else
            st = tread_finish(p);
        PyEval_RestoreThread(f->released);
        f->released = NULL;
        Py_XDECREF(data);
        if (fileobj_read && n == 0)
            finishing = 1;
        if (f->cb_failed)
            return -1;
        if (f->nomem) {
            PyErr_NoMemory();
            return -1;
        }
        if (st == TREAD_STATUS_ERROR) {
            tpy_raise_parser_error(p);
            return -1;
        }
        if (st == TREAD_STATUS_PAUSED) {
            f->since_pause = 0;
            if (PyErr_CheckSignals() != 0)
                return -1;
            continue;
        }
        if (src->fd >= 0 || finishing)
            return 0;
    }
}

PyObject *tpy_frame(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    PyObject *source, *columns, *arg_keys, *format = NULL;
    if (!PyArg_ParseTuple(args, "OOO|O:_frame", &source, &columns, &arg_keys, &format))
        return NULL;
    framer f;
    memset(&f, 0, sizeof f);
    tpy_source src = {-1, NULL, NULL};
    tread_parser *p = NULL;
    PyObject *result = NULL;
    if (tpy_options_parse(&f.opt, format, kwargs, TPY_FOR_OPEN) != 0) {
        memset(&f.opt, 0, sizeof f.opt);
        goto done;
    }
    if (setup(&f, columns, arg_keys) != 0 || tpy_source_open(&src, source) != 0)
        goto done;
    p = tread_parser_create(NULL);
    if (!p) {
        PyErr_NoMemory();
        goto done;
    }
    tpy_live_parsers++;
    if (tpy_options_apply(&f.opt, p) != 0)
        goto done;
    tread_callbacks cb = {0};
    cb.event = on_event;
    cb.warning = on_warning;
    tread_set_callbacks(p, &cb, &f);
    if (run(&f, p, &src) != 0)
        goto done;
    tread_stats st;
    tread_get_stats(p, &st);
    /* the parser's buffers go before the columns become Python objects */
    tread_parser_free(p);
    tpy_live_parsers--;
    p = NULL;
    tpy_source_close(&src);

    PyObject *cols = PyDict_New(), *acols = PyDict_New();
    if (!cols || !acols)
        goto fail_dicts;
    for (size_t i = 0; i < f.ncols; i++) {
        PyObject *r = column_result(&f.cols[i], f.rows);
        if (!r || PyDict_SetItemString(cols, f.cols[i].spec->name, r) != 0) {
            Py_XDECREF(r);
            goto fail_dicts;
        }
        Py_DECREF(r);
    }
    for (size_t i = 0; i < f.nacols; i++) {
        PyObject *r = argcol_result(&f.acols[i]);
        PyObject *k = r ? PyUnicode_FromStringAndSize(f.acols[i].key,
                                                      (Py_ssize_t)f.acols[i].key_len)
                        : NULL;
        if (!k || PyDict_SetItem(acols, k, r) != 0) {
            Py_XDECREF(r);
            Py_XDECREF(k);
            goto fail_dicts;
        }
        Py_DECREF(r);
        Py_DECREF(k);
    }
    result = Py_BuildValue("{snsOsOss}", "rows", (Py_ssize_t)f.rows, "columns", cols,
                           "args", acols, "format", tread_format_name(st.format));
fail_dicts:
    Py_XDECREF(cols);
    Py_XDECREF(acols);
done:
    if (p) {
        tread_parser_free(p);
        tpy_live_parsers--;
    }
    tpy_source_close(&src);
    framer_free(&f);
    return result;
}

PyObject *tpy_frame_columns(void)
{
    PyObject *t = PyTuple_New((Py_ssize_t)N_SPECS);
    for (size_t i = 0; t && i < N_SPECS; i++) {
        PyObject *s = PyUnicode_FromString(specs[i].name);
        if (!s)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, (Py_ssize_t)i, s);
    }
    return t;
}
