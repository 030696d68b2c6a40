/*
 * tread.Event: one event. The parser's strings and ids are valid only
 * while its callback runs, so everything is copied, in one allocation:
 * the object is variable-sized and its tail (blob) holds the flow ids,
 * the strings and the flattened arguments, which the copied tread_event's
 * pointers are rewritten to. Python objects are made only when an
 * attribute is read (args: once, then cached).
 */
#include "py_module.h"

#include <string.h>

typedef struct TreadEvent {
    PyObject_VAR_HEAD
    tread_event ev;              /* pointers rewritten into blob */
    const unsigned char *args;   /* flattened (py_args.c), in blob */
    size_t args_len;
    const unsigned char *stack, *estack;
    size_t stack_len, estack_len;
    int has_args;                /* args were captured */
    PyObject *args_cache;        /* the dict, once built */
    unsigned char blob[1];
} TreadEvent;

/* The string fields of tread_event, copied into the blob. */
#define EV_STRINGS(X) X(pid_str) X(tid_str) X(name) X(cat) X(id) X(id_scope) \
    X(bind_id) X(cname) X(sf) X(esf) X(parent) X(series) X(value_text)        \
    X(meta_str) X(provider_name)

/* The Event for ev, whose args, stack and estack are already flattened
 * into scratch (the three lengths given). */
static PyObject *event_alloc(const tread_event *ev, int capture_args, const tpy_buf *scratch,
                             size_t args_len, size_t stack_len, size_t estack_len);

PyObject *tpy_event_new(const tread_event *ev, int capture_args,
                        tpy_buf *scratch)
{
    size_t args_len = 0, stack_len = 0, estack_len = 0;
    scratch->len = 0;
    if (capture_args) {
        if (tpy_args_flatten(scratch, &ev->args) != 0)
            return NULL;
        args_len = scratch->len;
        if (tpy_args_flatten(scratch, &ev->stack) != 0)
            return NULL;
        stack_len = scratch->len - args_len;
        if (tpy_args_flatten(scratch, &ev->estack) != 0)
            return NULL;
        estack_len = scratch->len - args_len - stack_len;
    }
    return event_alloc(ev, capture_args, scratch, args_len, stack_len, estack_len);
}

static PyObject *event_alloc(const tread_event *ev, int capture_args, const tpy_buf *scratch,
                             size_t args_len, size_t stack_len, size_t estack_len)
{
    size_t size = (ev->flow_ids.n + ev->terminating_flow_ids.n) * sizeof(uint64_t);
#define SIZE_OF(f) size += ev->f.ptr ? ev->f.len : 0;
    EV_STRINGS(SIZE_OF)
#undef SIZE_OF
    size += scratch->len;
    if (size > (size_t)PY_SSIZE_T_MAX - 64)
        return PyErr_NoMemory();

    TreadEvent *o = PyObject_NewVar(TreadEvent, &tpy_EventType, (Py_ssize_t)size);
    if (!o)
        return NULL;
    o->ev = *ev;
    o->ev.raw = NULL;
    o->args_cache = NULL;
    o->has_args = capture_args;
    memset(&o->ev.args, 0, sizeof o->ev.args);
    memset(&o->ev.stack, 0, sizeof o->ev.stack);
    memset(&o->ev.estack, 0, sizeof o->ev.estack);
    unsigned char *w = o->blob;
    /* ids first: the blob's start is as aligned as the struct */
    if (ev->flow_ids.n) {
        memcpy(w, ev->flow_ids.v, ev->flow_ids.n * sizeof(uint64_t));
        o->ev.flow_ids.v = (const uint64_t *)(void *)w;
        w += ev->flow_ids.n * sizeof(uint64_t);
    }
    if (ev->terminating_flow_ids.n) {
        memcpy(w, ev->terminating_flow_ids.v,
               ev->terminating_flow_ids.n * sizeof(uint64_t));
        o->ev.terminating_flow_ids.v = (const uint64_t *)(void *)w;
        w += ev->terminating_flow_ids.n * sizeof(uint64_t);
    }
#define COPY(f)                                   \
    if (ev->f.ptr) {                              \
        if (ev->f.len)                            \
            memcpy(w, ev->f.ptr, ev->f.len);      \
        o->ev.f.ptr = (const char *)w;            \
        w += ev->f.len;                           \
    }
    EV_STRINGS(COPY)
#undef COPY
    if (scratch->len)
        memcpy(w, scratch->data, scratch->len);
    o->args = w;
    o->args_len = args_len;
    o->stack = w + args_len;
    o->stack_len = stack_len;
    o->estack = w + args_len + stack_len;
    o->estack_len = estack_len;
    return (PyObject *)o;
}

static void event_dealloc(PyObject *self)
{
    TreadEvent *o = (TreadEvent *)self;
    Py_XDECREF(o->args_cache);
    Py_TYPE(self)->tp_free(self);
}

/* ---- attributes ------------------------------------------------------- */

enum {
    F_KIND, F_FORMAT, F_PHASE, F_TS, F_DUR, F_END, F_TTS, F_TDUR, F_PID, F_TID,
    F_PID_STR, F_TID_STR, F_CPU, F_NAME, F_CAT, F_ID, F_ID_NUM, F_ID_SCOPE,
    F_BIND_ID, F_CNAME, F_SCOPE, F_SF, F_ESF, F_STACK, F_ESTACK, F_PARENT,
    F_TIDELTA, F_TICOUNT, F_SERIES, F_VALUE, F_VALUE_TEXT, F_META, F_META_STR,
    F_META_NUM, F_ARGS, F_TRACK_UUID, F_TRACK_KIND, F_SEQ_ID, F_RAW_TS,
    F_CLOCK_ID, F_FLOW_IDS, F_TERMINATING_FLOW_IDS, F_FLOW_IN, F_FLOW_OUT,
    F_PROVIDER_ID, F_PROVIDER_NAME, F_OFFSET, F_FLAGS
};

static PyObject *none(void)
{
    Py_RETURN_NONE;
}

static PyObject *opt_str(const tread_str *s)
{
    return s->ptr ? tpy_str(s->ptr, s->len) : none();
}

static PyObject *opt_i64(const tread_event *ev, uint32_t flag, int64_t v)
{
    return (ev->flags & flag) ? PyLong_FromLongLong(v) : none();
}

static PyObject *ids_tuple(const tread_ids *ids)
{
    PyObject *t = PyTuple_New((Py_ssize_t)ids->n);
    for (size_t i = 0; t && i < ids->n; i++) {
        uint64_t v;
        memcpy(&v, (const unsigned char *)ids->v + i * sizeof v, sizeof v);
        PyObject *x = PyLong_FromUnsignedLongLong(v);
        if (!x) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, (Py_ssize_t)i, x);
    }
    return t;
}

static PyObject *event_get(PyObject *self, void *closure)
{
    TreadEvent *o = (TreadEvent *)self;
    const tread_event *ev = &o->ev;
    switch ((int)(intptr_t)closure) {
    case F_KIND:
        if ((unsigned)ev->kind >= TREAD_EVENT_KIND_COUNT_)
            return none();
        Py_INCREF(tpy_kind_names[ev->kind]);
        return tpy_kind_names[ev->kind];
    case F_FORMAT:
        return PyUnicode_FromString(tread_format_name(ev->format));
    case F_PHASE: {
        if (ev->phase <= 0 || ev->phase > 127)
            return none();
        char c = (char)ev->phase;
        return PyUnicode_FromStringAndSize(&c, 1);
    }
    case F_TS: return opt_i64(ev, TREAD_HAS_TS, ev->ts);
    case F_DUR: return opt_i64(ev, TREAD_HAS_DUR, ev->dur);
    case F_END:
        if (!(ev->flags & TREAD_HAS_TS))
            return none();
        return PyLong_FromLongLong(ev->ts + ((ev->flags & TREAD_HAS_DUR) ? ev->dur : 0));
    case F_TTS: return opt_i64(ev, TREAD_HAS_TTS, ev->tts);
    case F_TDUR: return opt_i64(ev, TREAD_HAS_TDUR, ev->tdur);
    case F_PID: return opt_i64(ev, TREAD_HAS_PID, ev->pid);
    case F_TID:
        return opt_i64(ev, TREAD_HAS_TID | TREAD_HAS_PID, ev->tid);
    case F_PID_STR: return opt_str(&ev->pid_str);
    case F_TID_STR: return opt_str(&ev->tid_str);
    case F_CPU: return opt_i64(ev, TREAD_HAS_CPU, ev->cpu);
    case F_NAME: return opt_str(&ev->name);
    case F_CAT: return opt_str(&ev->cat);
    case F_ID: return opt_str(&ev->id);
    case F_ID_NUM:
        return (ev->flags & TREAD_HAS_ID_NUM) ? PyLong_FromUnsignedLongLong(ev->id_num)
                                              : none();
    case F_ID_SCOPE: return opt_str(&ev->id_scope);
    case F_BIND_ID: return opt_str(&ev->bind_id);
    case F_CNAME: return opt_str(&ev->cname);
    case F_SCOPE:
        switch (ev->scope) {
        case TREAD_SCOPE_THREAD: return PyUnicode_FromString("thread");
        case TREAD_SCOPE_PROCESS: return PyUnicode_FromString("process");
        case TREAD_SCOPE_GLOBAL: return PyUnicode_FromString("global");
        default: return none();
        }
    case F_SF: return opt_str(&ev->sf);
    case F_ESF: return opt_str(&ev->esf);
    case F_STACK:
        return o->stack_len ? tpy_args_build(o->stack, o->stack_len, 1) : none();
    case F_ESTACK:
        return o->estack_len ? tpy_args_build(o->estack, o->estack_len, 1) : none();
    case F_PARENT: return opt_str(&ev->parent);
    case F_TIDELTA: return opt_i64(ev, TREAD_HAS_TIDELTA, ev->tidelta);
    case F_TICOUNT: return opt_i64(ev, TREAD_HAS_TICOUNT, ev->ticount);
    case F_SERIES: return opt_str(&ev->series);
    case F_VALUE:
        if (!(ev->flags & TREAD_HAS_VALUE))
            return none();
        if (ev->flags & TREAD_VALUE_IS_INT)
            return PyLong_FromLongLong(ev->value_int);
        return PyFloat_FromDouble(ev->value);
    case F_VALUE_TEXT: return opt_str(&ev->value_text);
    case F_META:
        return ev->kind == TREAD_EVENT_METADATA ? PyUnicode_FromString(tread_meta_name(ev->meta))
                                                : none();
    case F_META_STR: return opt_str(&ev->meta_str);
    case F_META_NUM: return opt_i64(ev, TREAD_HAS_META_NUM, ev->meta_num);
    case F_ARGS:
        if (!o->has_args)
            return none();
        if (!o->args_cache) {
            o->args_cache = tpy_args_build(o->args, o->args_len, 0);
            if (!o->args_cache)
                return NULL;
        }
        Py_INCREF(o->args_cache);
        return o->args_cache;
    case F_TRACK_UUID:
        return (ev->flags & TREAD_HAS_TRACK) ? PyLong_FromUnsignedLongLong(ev->track_uuid)
                                             : none();
    case F_TRACK_KIND:
        return (ev->flags & TREAD_HAS_TRACK)
                   ? PyUnicode_FromString(tread_track_kind_name(ev->track_kind))
                   : none();
    case F_SEQ_ID:
        return (ev->flags & TREAD_HAS_SEQ) ? PyLong_FromUnsignedLong(ev->seq_id) : none();
    case F_RAW_TS: return opt_i64(ev, TREAD_HAS_RAW_TS, ev->raw_ts);
    case F_CLOCK_ID:
        return (ev->flags & TREAD_HAS_RAW_TS) ? PyLong_FromUnsignedLong(ev->clock_id) : none();
    case F_FLOW_IDS: return ids_tuple(&ev->flow_ids);
    case F_TERMINATING_FLOW_IDS: return ids_tuple(&ev->terminating_flow_ids);
    case F_FLOW_IN: return PyBool_FromLong((ev->flags & TREAD_FLOW_IN) != 0);
    case F_FLOW_OUT: return PyBool_FromLong((ev->flags & TREAD_FLOW_OUT) != 0);
    case F_PROVIDER_ID:
        return (ev->flags & TREAD_HAS_PROVIDER) ? PyLong_FromUnsignedLong(ev->provider_id)
                                                : none();
    case F_PROVIDER_NAME: return opt_str(&ev->provider_name);
    case F_OFFSET: return PyLong_FromUnsignedLongLong(ev->offset);
    case F_FLAGS: return PyLong_FromUnsignedLong(ev->flags);
    }
    return none();
}

#define GET(name, id, doc) {name, event_get, NULL, doc, (void *)(intptr_t)(id)}
static PyGetSetDef event_getset[] = {
    GET("kind", F_KIND, "kind name: 'complete', 'slice_begin', ... (tread.KINDS)"),
    GET("format", F_FORMAT, "format of the trace: 'json', 'perfetto', ..."),
    GET("phase", F_PHASE, "JSON phase character, or None"),
    GET("ts", F_TS, "timestamp in ns, or None"),
    GET("dur", F_DUR, "duration in ns, or None"),
    GET("end", F_END, "ts + dur (ts when no dur), or None"),
    GET("tts", F_TTS, "thread clock timestamp in ns, or None"),
    GET("tdur", F_TDUR, "thread clock duration in ns, or None"),
    GET("pid", F_PID, "process id (synthetic for a string pid), or None"),
    GET("tid", F_TID, "thread id (the pid when absent), or None"),
    GET("pid_str", F_PID_STR, "text of a string pid, or None"),
    GET("tid_str", F_TID_STR, "text of a string tid, or None"),
    GET("cpu", F_CPU, "CPU number, or None"),
    GET("name", F_NAME, "event name, or None"),
    GET("cat", F_CAT, "category, or None"),
    GET("id", F_ID, "id / id2.local / id2.global as text, or None"),
    GET("id_num", F_ID_NUM, "id as a number, or None"),
    GET("id_scope", F_ID_SCOPE, "id scope, or None"),
    GET("bind_id", F_BIND_ID, "flow v2 binding id, or None"),
    GET("cname", F_CNAME, "colour name, or None"),
    GET("scope", F_SCOPE, "instant scope: 'thread', 'process', 'global' or None"),
    GET("sf", F_SF, "stack frame id, or None"),
    GET("esf", F_ESF, "end stack frame id, or None"),
    GET("stack", F_STACK, "the JSON stack array as a list, or None"),
    GET("estack", F_ESTACK, "the JSON estack array as a list, or None"),
    GET("parent", F_PARENT, "stack frame definition: parent id, or None"),
    GET("tidelta", F_TIDELTA, "instruction count delta, or None"),
    GET("ticount", F_TICOUNT, "instruction count, or None"),
    GET("series", F_SERIES, "counter series name, or None"),
    GET("value", F_VALUE, "counter value / sample weight (int or float), or None"),
    GET("value_text", F_VALUE_TEXT, "the value's literal text, or None"),
    GET("meta", F_META, "metadata kind ('process_name', ...) of a metadata event, or None"),
    GET("meta_str", F_META_STR, "metadata string (name, labels), or None"),
    GET("meta_num", F_META_NUM, "metadata number (sort index, ...), or None"),
    GET("args", F_ARGS, "arguments as a dict, built on first access (None with args=False)"),
    GET("track_uuid", F_TRACK_UUID, "track uuid, or None"),
    GET("track_kind", F_TRACK_KIND, "track kind ('thread', 'async', ...), or None"),
    GET("seq_id", F_SEQ_ID, "Perfetto trusted packet sequence id, or None"),
    GET("raw_ts", F_RAW_TS, "timestamp not convertible to the trace clock, or None"),
    GET("clock_id", F_CLOCK_ID, "clock of raw_ts, or None"),
    GET("flow_ids", F_FLOW_IDS, "flows this event starts or continues (tuple)"),
    GET("terminating_flow_ids", F_TERMINATING_FLOW_IDS, "flows this event ends (tuple)"),
    GET("flow_in", F_FLOW_IN, "JSON flow_in: true"),
    GET("flow_out", F_FLOW_OUT, "JSON flow_out: true"),
    GET("provider_id", F_PROVIDER_ID, "FXT provider id, or None"),
    GET("provider_name", F_PROVIDER_NAME, "FXT provider name, or None"),
    GET("offset", F_OFFSET, "byte offset of the record in the decompressed input"),
    GET("flags", F_FLAGS, "the TREAD_HAS_* bits of tread.h"),
    {NULL, NULL, NULL, NULL, NULL}
};
#undef GET

static PyObject *event_to_dict(PyObject *self, PyObject *unused)
{
    (void)unused;
    PyObject *d = PyDict_New();
    for (const PyGetSetDef *g = event_getset; d && g->name; g++) {
        PyObject *v = g->get(self, g->closure);
        if (!v) {
            Py_CLEAR(d);
            break;
        }
        int keep = v != Py_None && !(PyTuple_Check(v) && PyTuple_GET_SIZE(v) == 0) &&
                   v != Py_False && !(g->closure == (void *)(intptr_t)F_FLAGS);
        if (keep && PyDict_SetItemString(d, g->name, v) != 0)
            Py_CLEAR(d);
        Py_DECREF(v);
    }
    return d;
}

static PyObject *event_repr(PyObject *self)
{
    TreadEvent *o = (TreadEvent *)self;
    const tread_event *ev = &o->ev;
    PyObject *name = opt_str(&ev->name);
    if (!name)
        return NULL;
    PyObject *r;
    if (ev->flags & TREAD_HAS_TS)
        r = PyUnicode_FromFormat("<tread.Event %s ts=%lld name=%R>",
                                 tread_event_kind_name(ev->kind), (long long)ev->ts, name);
    else
        r = PyUnicode_FromFormat("<tread.Event %s name=%R>",
                                 tread_event_kind_name(ev->kind), name);
    Py_DECREF(name);
    return r;
}

/* ---- pickling: to_dict() and the flags, and back ---------------------- */

static PyObject *event_reduce(PyObject *self, PyObject *unused)
{
    (void)unused;
    static PyObject *restore;
    if (!restore) {
        PyObject *m = PyImport_ImportModule("tread._tread");
        restore = m ? PyObject_GetAttrString(m, "_event") : NULL;
        Py_XDECREF(m);
        if (!restore)
            return NULL;
    }
    PyObject *d = event_to_dict(self, NULL);
    if (!d)
        return NULL;
    PyObject *r = Py_BuildValue("(O(Ok))", restore, d,
                                (unsigned long)((TreadEvent *)self)->ev.flags);
    Py_DECREF(d);
    return r;
}

/* Names back to enums: the index whose name is s, or -1. */
static int name_index(PyObject *s, const char *(*name)(int), int n)
{
    const char *u = s && PyUnicode_Check(s) ? PyUnicode_AsUTF8(s) : NULL;
    for (int i = 0; u && i < n; i++)
        if (strcmp(u, name(i)) == 0)
            return i;
    return -1;
}

static const char *kind_name(int i) { return tread_event_kind_name((tread_event_kind)i); }
static const char *format_name(int i) { return tread_format_name((tread_format)i); }
static const char *meta_name(int i) { return tread_meta_name((tread_meta)i); }
static const char *track_kind_name(int i) { return tread_track_kind_name((tread_track_kind)i); }
static const char *scope_name(int i)
{
    static const char *const v[] = {"", "thread", "process", "global"};
    return v[i];
}

typedef struct restore_ctx {
    PyObject *d;
    int failed;
} restore_ctx;

static PyObject *item(restore_ctx *c, const char *k)
{
    PyObject *v = PyDict_GetItemString(c->d, k);
    return v == Py_None ? NULL : v;
}

static int64_t get_i64(restore_ctx *c, const char *k)
{
    PyObject *v = item(c, k);
    if (!v)
        return 0;
    long long x = PyLong_AsLongLong(v);
    if (x == -1 && PyErr_Occurred())
        c->failed = 1;
    return x;
}

static uint64_t get_u64(restore_ctx *c, const char *k)
{
    PyObject *v = item(c, k);
    if (!v)
        return 0;
    unsigned long long x = PyLong_AsUnsignedLongLong(v);
    if (x == (unsigned long long)-1 && PyErr_Occurred())
        c->failed = 1;
    return x;
}

static tread_str get_str(restore_ctx *c, const char *k)
{
    tread_str s = {NULL, 0};
    PyObject *v = item(c, k);
    Py_ssize_t n;
    if (v && !(s.ptr = PyUnicode_Check(v) ? PyUnicode_AsUTF8AndSize(v, &n) : NULL))
        c->failed = 1;
    else if (v)
        s.len = (size_t)n;
    return s;
}

/* ids from a tuple of ints into storage (n entries at most). */
static tread_ids get_ids(restore_ctx *c, const char *k, uint64_t *storage, size_t *used)
{
    tread_ids ids = {NULL, 0};
    PyObject *v = item(c, k);
    if (!v || !PyTuple_Check(v))
        return ids;
    ids.v = storage + *used;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(v); i++) {
        unsigned long long x = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(v, i));
        if (x == (unsigned long long)-1 && PyErr_Occurred())
            c->failed = 1;
        storage[(*used)++] = x;
        ids.n++;
    }
    return ids;
}

static Py_ssize_t tuple_len(PyObject *d, const char *k)
{
    PyObject *v = PyDict_GetItemString(d, k);
    return v && PyTuple_Check(v) ? PyTuple_GET_SIZE(v) : 0;
}

PyObject *tpy_event_restore(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *d;
    unsigned long flags;
    if (!PyArg_ParseTuple(args, "O!k:_event", &PyDict_Type, &d, &flags))
        return NULL;
    restore_ctx c = {d, 0};
    tread_event ev;
    memset(&ev, 0, sizeof ev);
    ev.flags = (uint32_t)flags;
    int k = name_index(item(&c, "kind"), kind_name, TREAD_EVENT_KIND_COUNT_);
    int f = name_index(item(&c, "format"), format_name, TREAD_FORMAT_COUNT_);
    if (k < 0 || f < 0) {
        PyErr_SetString(PyExc_ValueError, "_event: unknown kind or format");
        return NULL;
    }
    ev.kind = (tread_event_kind)k;
    ev.format = (tread_format)f;
    PyObject *ph = item(&c, "phase");
    if (ph && PyUnicode_Check(ph) && PyUnicode_GET_LENGTH(ph) == 1)
        ev.phase = (int)PyUnicode_READ_CHAR(ph, 0);
    ev.ts = get_i64(&c, "ts");
    ev.dur = get_i64(&c, "dur");
    ev.tts = get_i64(&c, "tts");
    ev.tdur = get_i64(&c, "tdur");
    ev.pid = get_i64(&c, "pid");
    ev.tid = get_i64(&c, "tid");
    ev.cpu = get_i64(&c, "cpu");
    ev.id_num = get_u64(&c, "id_num");
    ev.tidelta = get_i64(&c, "tidelta");
    ev.ticount = get_i64(&c, "ticount");
    ev.meta_num = get_i64(&c, "meta_num");
    ev.track_uuid = get_u64(&c, "track_uuid");
    ev.seq_id = (uint32_t)get_u64(&c, "seq_id");
    ev.raw_ts = get_i64(&c, "raw_ts");
    ev.clock_id = (uint32_t)get_u64(&c, "clock_id");
    ev.provider_id = (uint32_t)get_u64(&c, "provider_id");
    ev.offset = get_u64(&c, "offset");
    PyObject *value = item(&c, "value");
    if (value && PyLong_Check(value)) {
        ev.value_int = get_i64(&c, "value");
        ev.value = (double)ev.value_int;
    } else if (value) {
        ev.value = PyFloat_AsDouble(value);
        if (ev.value == -1.0 && PyErr_Occurred())
            c.failed = 1;
    }
    int m = name_index(item(&c, "meta"), meta_name, TREAD_META_COUNT_);
    ev.meta = m > 0 ? (tread_meta)m : TREAD_META_NONE;
    int tk = name_index(item(&c, "track_kind"), track_kind_name, TREAD_TRACK_COUNT_);
    ev.track_kind = tk > 0 ? (tread_track_kind)tk : TREAD_TRACK_NONE;
    int sc = name_index(item(&c, "scope"), scope_name, 4);
    ev.scope = sc > 0 ? (tread_scope)sc : TREAD_SCOPE_NONE;
#define GET_STR(field) ev.field = get_str(&c, #field);
    EV_STRINGS(GET_STR)
#undef GET_STR
    Py_ssize_t nids = tuple_len(d, "flow_ids") + tuple_len(d, "terminating_flow_ids");
    uint64_t *ids = PyMem_Malloc(((size_t)nids + 1) * sizeof *ids);
    if (!ids)
        return PyErr_NoMemory();
    size_t used = 0;
    ev.flow_ids = get_ids(&c, "flow_ids", ids, &used);
    ev.terminating_flow_ids = get_ids(&c, "terminating_flow_ids", ids, &used);
    PyObject *r = NULL;
    tpy_buf flat = {NULL, 0, 0};
    size_t args_len = 0, stack_len = 0;
    PyObject *a = item(&c, "args"), *st = item(&c, "stack"), *est = item(&c, "estack");
    if (!c.failed && (!a || tpy_args_from_py(&flat, a, 0) == 0) &&
        ((args_len = flat.len), !st || tpy_args_from_py(&flat, st, 0) == 0) &&
        ((stack_len = flat.len - args_len), !est || tpy_args_from_py(&flat, est, 0) == 0))
        r = event_alloc(&ev, a != NULL, &flat, args_len, stack_len,
                        flat.len - args_len - stack_len);
    else if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "_event: a field of the wrong type");
    tpy_buf_free(&flat);
    PyMem_Free(ids);
    return r;
}

static PyMethodDef event_methods[] = {
    {"to_dict", event_to_dict, METH_NOARGS,
     "to_dict($self, /)\n--\n\n"
     "A dict of the fields that are set (args included)."},
    {"__reduce__", event_reduce, METH_NOARGS,
     "__reduce__($self, /)\n--\n\n"
     "Pickling: (tread._tread._event, (to_dict(), flags))."},
    {NULL, NULL, 0, NULL}
};

PyTypeObject tpy_EventType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tread.Event",
    .tp_basicsize = offsetof(TreadEvent, blob),
    .tp_itemsize = 1,
    .tp_dealloc = event_dealloc,
    .tp_repr = event_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One trace event (fields of tread_event; see doc/python.md).",
    .tp_methods = event_methods,
    .tp_getset = event_getset,
};
