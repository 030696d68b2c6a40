/*
 * tread._frame(): the columns of tread.frame() (doc/python.md), built in C.
 *
 * The event callback writes each event that passes the filter into one
 * typed C array per column (int64 and a missing-value mask, float64,
 * categorical codes), with no Python object made per event and the
 * interpreter's lock released while the parser runs. The columns are
 * sorted once into groups (8-byte integers, 4-byte integers, strings,
 * the rest) that are filled by plain loops over field offsets, so that
 * most columns cost a load and a store per event, not a dispatch.
 * Strings are dictionary-encoded as they arrive (the codes of a
 * categorical, written at the width pandas will want), so a name
 * repeated a million times is stored once. Argument columns (args=[keys])
 * look up only those keys (tread_args_find: lazy encodings decode only
 * what they walk past) and keep a type tag and an 8-byte value per row.
 * At the end each array is handed to Python as a tread._Buffer (buffer
 * protocol, no copy) that numpy.frombuffer wraps; python/tread/_frame.py
 * makes the DataFrame.
 */
#include "py_module.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#define TPY_MREMAP 1
#endif

/* Events between pauses of the parser to check for Ctrl-C (the lock is
 * released while it runs, so signals are seen only then). */
#define PAUSE_EVERY (1u << 20)

/* Rows reserved at first: from the file's size at this many bytes an
 * event (fewer than any format takes: FXT ~30, Perfetto ~20, JSON ~150;
 * too many rows cost address space only), within these bounds. */
#define BYTES_PER_ROW_GUESS 16
#define MIN_ROWS 4096
#define MAX_FIRST_ROWS ((size_t)1 << 26)

/* An array that holds this many bytes asks for transparent huge pages
 * (given on request where the kernel's mode is madvise) for the rest of
 * its growth: a page fault per 2 MiB rather than per 4 KiB, which on
 * FXT's 2 M events of 11 columns is ~20% of the frame's CPU time. Not
 * before: the last huge page of an array can be mostly unwritten until
 * the end, when the tail is given back, so a small frame would be
 * resident in 2 MiB steps per array. */
#define HUGE_AFTER ((size_t)1 << 20)

/* ---- column memory (no lock needed) ----------------------------------- */

/* One array. On Linux a private anonymous mapping, grown with mremap:
 * the pages move without a copy, and pages not yet written are neither
 * resident nor zeroed. Elsewhere PyMem_RawRealloc. */
typedef struct mem {
    unsigned char *p;
    size_t cap;   /* bytes usable */
    int mapped;   /* p is a mapping of cap bytes (a multiple of the page) */
    int huge;     /* asked for huge pages */
} mem;

static int mem_reserve(mem *m, size_t bytes)
{
    if (bytes <= m->cap)
        return 0;
#ifdef TPY_MREMAP
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    if (bytes > SIZE_MAX - pg)
        return -1;
    size_t want = (bytes + pg - 1) / pg * pg;
    void *p = m->mapped ? mremap(m->p, m->cap, want, MREMAP_MAYMOVE)
                        : mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                               -1, 0);
    if (p == MAP_FAILED)
        return -1;
    m->mapped = 1;
#else
    size_t want = bytes;
    void *p = PyMem_RawRealloc(m->p, want);
    if (!p)
        return -1;
#endif
    m->p = p;
    m->cap = want;
    return 0;
}

/* Asks for huge pages once used bytes are written (the whole mapping:
 * a part would split it, and mremap does not move a split one). */
static void mem_huge(mem *m, size_t used)
{
#if defined(TPY_MREMAP) && defined(MADV_HUGEPAGE)
    if (m->mapped && !m->huge && used >= HUGE_AFTER) {
        madvise(m->p, m->cap, MADV_HUGEPAGE); /* a hint: failing is fine */
        m->huge = 1;
    }
#else
    (void)m;
    (void)used;
#endif
}

static void mem_release(unsigned char *p, size_t cap, int mapped)
{
#ifdef TPY_MREMAP
    if (mapped) {
        if (p)
            munmap(p, cap);
        return;
    }
#endif
    (void)cap;
    (void)mapped;
    PyMem_RawFree(p);
}

static void mem_free(mem *m)
{
    mem_release(m->p, m->cap, m->mapped);
    memset(m, 0, sizeof *m);
}

/* Gives back what lies past the first len bytes (address space; nothing
 * there was written). */
static void mem_shrink(mem *m, size_t len)
{
#ifdef TPY_MREMAP
    if (m->mapped) {
        size_t pg = (size_t)sysconf(_SC_PAGESIZE);
        size_t keep = len ? (len + pg - 1) / pg * pg : pg;
        if (keep < m->cap && munmap(m->p + keep, m->cap - keep) == 0)
            m->cap = keep;
        return;
    }
#endif
    if (m->p && len < m->cap) {
        unsigned char *p = PyMem_RawRealloc(m->p, len ? len : 1);
        if (p) {
            m->p = p;
            m->cap = len ? len : 1;
        }
    }
}

/* ---- tread._Buffer: an array handed to numpy without a copy ----------- */

typedef struct TreadBuffer {
    PyObject_HEAD
    unsigned char *p;
    Py_ssize_t len;
    size_t cap;
    int mapped;
} TreadBuffer;

static int buffer_get(PyObject *self, Py_buffer *view, int flags)
{
    TreadBuffer *b = (TreadBuffer *)self;
    return PyBuffer_FillInfo(view, self, b->p ? b->p : (unsigned char *)"", b->len, 0, flags);
}

static void buffer_dealloc(PyObject *self)
{
    TreadBuffer *b = (TreadBuffer *)self;
    mem_release(b->p, b->cap, b->mapped);
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

/* Moves the first len bytes of m into a new tread._Buffer. */
static PyObject *buffer_take(mem *m, size_t len)
{
    TreadBuffer *b = PyObject_New(TreadBuffer, &tpy_BufferType);
    if (!b)
        return NULL;
    mem_shrink(m, len);
    b->p = m->p;
    b->len = (Py_ssize_t)len;
    b->cap = m->cap;
    b->mapped = m->mapped;
    memset(m, 0, sizeof *m);
    return (PyObject *)b;
}

/* ---- dictionary encoding of strings ----------------------------------- */

/* The distinct strings, each a record in one arena in the order of their
 * codes: [uint32 length][uint32 code][bytes]. A slot of the open-addressed
 * table holds the record's offset + 1 in its low 40 bits and the top 24
 * bits of the string's hash above them, so that a lookup reads one slot
 * and, when the hash bits match, one record: two cache lines for a table
 * of tens of thousands of names. */
#define SLOT_OFF_BITS 40
#define SLOT_OFF_MASK ((UINT64_C(1) << SLOT_OFF_BITS) - 1)
#define REC_HEAD 8

typedef struct strdict {
    uint64_t *slots;      /* 0: empty */
    size_t nslots;        /* power of two */
    unsigned char *arena;
    size_t arena_len, arena_cap;
    size_t n;             /* distinct strings: the next code */
    size_t last;          /* offset of the record found last (n > 0) */
} strdict;

/* Eight bytes at a time, the last eight (or fewer) read as overlapping
 * words rather than byte by byte: names are short, and this runs for
 * most strings of most events. */
static inline uint64_t hash_bytes(const unsigned char *p, size_t n)
{
    uint64_t h = (uint64_t)n * 0x9e3779b97f4a7c15ull, w;
    if (n > 8) {
        const unsigned char *last = p + n - 8;
        for (; p < last; p += 8) {
            memcpy(&w, p, 8);
            h = (h ^ w) * 0xff51afd7ed558ccdull;
            h ^= h >> 29;
        }
        memcpy(&w, last, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, p + n - 4, 4);
        w = (uint64_t)a << 32 | b;
    } else {
        w = n ? (uint64_t)p[0] << 16 | (uint64_t)p[n >> 1] << 8 | p[n - 1] : 0;
    }
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 32;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

/* memcmp(a, b, n) == 0 without a call: the strings are mostly short. */
static inline int bytes_eq(const unsigned char *a, const unsigned char *b, size_t n)
{
    uint64_t x, y;
    if (n >= 8) {
        const unsigned char *ae = a + n - 8, *be = b + n - 8;
        for (; a < ae; a += 8, b += 8) {
            memcpy(&x, a, 8);
            memcpy(&y, b, 8);
            if (x != y)
                return 0;
        }
        memcpy(&x, ae, 8);
        memcpy(&y, be, 8);
        return x == y;
    }
    if (n >= 4) {
        uint32_t a0, a1, b0, b1;
        memcpy(&a0, a, 4);
        memcpy(&a1, a + n - 4, 4);
        memcpy(&b0, b, 4);
        memcpy(&b1, b + n - 4, 4);
        return a0 == b0 && a1 == b1;
    }
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

/* The record at off is the string (p, len): its code, else -1. */
static inline int32_t record_code(const strdict *d, size_t off, const unsigned char *p,
                                  size_t len)
{
    const unsigned char *r = d->arena + off;
    uint32_t rlen;
    int32_t code;
    memcpy(&rlen, r, 4);
    if (rlen != len || !bytes_eq(r + REC_HEAD, p, len))
        return -1;
    memcpy(&code, r + 4, 4);
    return code;
}

static void strdict_free(strdict *d)
{
    PyMem_RawFree(d->slots);
    PyMem_RawFree(d->arena);
    memset(d, 0, sizeof *d);
}

static uint64_t slot_of(uint64_t h, size_t off)
{
    return (h & ~SLOT_OFF_MASK) | (uint64_t)(off + 1);
}

/* Doubles the table, rehashing the records in arena order. */
static int strdict_grow(strdict *d)
{
    size_t n = d->nslots ? d->nslots * 2 : 256;
    uint64_t *s = PyMem_RawCalloc(n, sizeof *s);
    if (!s)
        return -1;
    for (size_t off = 0; off < d->arena_len;) {
        uint32_t len;
        memcpy(&len, d->arena + off, 4);
        uint64_t h = hash_bytes(d->arena + off + REC_HEAD, len);
        size_t i = (size_t)h & (n - 1);
        while (s[i])
            i = (i + 1) & (n - 1);
        s[i] = slot_of(h, off);
        off += REC_HEAD + len;
    }
    PyMem_RawFree(d->slots);
    d->slots = s;
    d->nslots = n;
    return 0;
}

/* Adds the string (hash h) in the empty slot i. Its code, or -1. */
static int32_t strdict_add(strdict *d, size_t i, uint64_t h, const unsigned char *p, size_t len)
{
    size_t off = d->arena_len;
    if (d->n >= INT32_MAX - 1 || len > UINT32_MAX || off >= SLOT_OFF_MASK ||
        off > SIZE_MAX / 4 || len > SIZE_MAX / 4)
        return -1;
    if (off + REC_HEAD + len > d->arena_cap) {
        size_t cap = d->arena_cap ? d->arena_cap : 4096;
        while (cap < off + REC_HEAD + len)
            cap *= 2;
        unsigned char *a = PyMem_RawRealloc(d->arena, cap);
        if (!a)
            return -1;
        d->arena = a;
        d->arena_cap = cap;
    }
    uint32_t l32 = (uint32_t)len;
    int32_t code = (int32_t)d->n;
    memcpy(d->arena + off, &l32, 4);
    memcpy(d->arena + off + 4, &code, 4);
    if (len)
        memcpy(d->arena + off + REC_HEAD, p, len);
    d->arena_len = off + REC_HEAD + len;
    d->slots[i] = slot_of(h, off);
    d->last = off;
    /* at most half full: short probes */
    if (++d->n * 2 > d->nslots && strdict_grow(d) != 0)
        return -1;
    return code;
}

/* The code of the string, added when new; -1 when out of memory (or past
 * the codes an int32 holds). The string found last is tried first: the
 * categories of a trace come in runs. */
static int32_t strdict_find(strdict *d, const unsigned char *p, size_t len);

static inline int32_t strdict_code(strdict *d, const char *str, size_t len)
{
    const unsigned char *p = (const unsigned char *)(str ? str : "");
    int32_t code;
    if (d->n && (code = record_code(d, d->last, p, len)) >= 0)
        return code;
    return strdict_find(d, p, len);
}

/* strdict_code but the string found last. */
static int32_t strdict_find(strdict *d, const unsigned char *p, size_t len)
{
    int32_t code;
    if (!d->nslots && strdict_grow(d) != 0)
        return -1;
    uint64_t h = hash_bytes(p, len), tag = h & ~SLOT_OFF_MASK, s;
    size_t mask = d->nslots - 1, i = (size_t)h & mask;
    while ((s = d->slots[i]) != 0) {
        if ((s & ~SLOT_OFF_MASK) == tag &&
            (code = record_code(d, (size_t)(s & SLOT_OFF_MASK) - 1, p, len)) >= 0) {
            d->last = (size_t)(s & SLOT_OFF_MASK) - 1;
            return code;
        }
        i = (i + 1) & mask;
    }
    return strdict_add(d, i, h, p, len);
}

/* ---- the columns ------------------------------------------------------ */

enum ctype {
    C_I64N,    /* int64 + mask (True: missing) */
    C_U64N,    /* uint64 + mask */
    C_F64,     /* float64, NaN when missing */
    C_U64,     /* uint64, always present */
    C_CATFIX,  /* int8 codes into a fixed list of names, -1 missing */
    C_CATSTR   /* codes into the dictionary, -1 missing */
};

/* How the event callback fills a column: the first three by a loop over
 * field offsets, G_OTHER by a switch on the field. */
enum cgroup {
    G_I64,     /* an 8-byte integer field present when any flag of need is set */
    G_U32,     /* the same with a uint32_t field */
    G_STR,     /* a tread_str field, dictionary-encoded */
    G_OTHER,
    G_COUNT_
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
    enum cgroup group;
    size_t off;        /* G_I64, G_U32, G_STR: the field in tread_event */
    uint32_t need;     /* G_I64, G_U32 */
} colspec;

#define EV_SIZE(f) sizeof(((tread_event *)0)->f)
_Static_assert(EV_SIZE(ts) == 8 && EV_SIZE(track_uuid) == 8 && EV_SIZE(id_num) == 8 &&
                   EV_SIZE(pid) == 8 && EV_SIZE(cpu) == 8 && EV_SIZE(raw_ts) == 8 &&
                   EV_SIZE(seq_id) == 4 && EV_SIZE(clock_id) == 4 &&
                   EV_SIZE(provider_id) == 4,
               "the column groups read these fields at these widths");

#define INT8B(n, t, k, f, need) {n, t, k, G_I64, offsetof(tread_event, f), need}
#define INT4B(n, k, f, need) {n, C_U64N, k, G_U32, offsetof(tread_event, f), need}
#define STR(n, k, f) {n, C_CATSTR, k, G_STR, offsetof(tread_event, f), 0}
#define OTHER(n, t, k) {n, t, k, G_OTHER, 0, 0}

/* Every column tread.frame() can make; named as tread.Event's attributes
 * (but "track" for track_uuid). */
static const colspec specs[] = {
    OTHER("kind", C_CATFIX, K_KIND),
    OTHER("format", C_CATFIX, K_FORMAT),
    OTHER("meta", C_CATFIX, K_META),
    OTHER("track_kind", C_CATFIX, K_TRACK_KIND),
    OTHER("scope", C_CATFIX, K_SCOPE),
    INT8B("ts", C_I64N, K_TS, ts, TREAD_HAS_TS),
    INT8B("dur", C_I64N, K_DUR, dur, TREAD_HAS_DUR),
    OTHER("end", C_I64N, K_END),
    INT8B("tts", C_I64N, K_TTS, tts, TREAD_HAS_TTS),
    INT8B("tdur", C_I64N, K_TDUR, tdur, TREAD_HAS_TDUR),
    INT8B("pid", C_I64N, K_PID, pid, TREAD_HAS_PID),
    INT8B("tid", C_I64N, K_TID, tid, TREAD_HAS_TID | TREAD_HAS_PID),
    INT8B("cpu", C_I64N, K_CPU, cpu, TREAD_HAS_CPU),
    INT8B("meta_num", C_I64N, K_META_NUM, meta_num, TREAD_HAS_META_NUM),
    INT8B("raw_ts", C_I64N, K_RAW_TS, raw_ts, TREAD_HAS_RAW_TS),
    INT8B("tidelta", C_I64N, K_TIDELTA, tidelta, TREAD_HAS_TIDELTA),
    INT8B("ticount", C_I64N, K_TICOUNT, ticount, TREAD_HAS_TICOUNT),
    INT8B("track", C_U64N, K_TRACK, track_uuid, TREAD_HAS_TRACK),
    INT8B("id_num", C_U64N, K_ID_NUM, id_num, TREAD_HAS_ID_NUM),
    INT4B("seq_id", K_SEQ_ID, seq_id, TREAD_HAS_SEQ),
    INT4B("clock_id", K_CLOCK_ID, clock_id, TREAD_HAS_RAW_TS),
    INT4B("provider_id", K_PROVIDER_ID, provider_id, TREAD_HAS_PROVIDER),
    OTHER("value", C_F64, K_VALUE),
    OTHER("offset", C_U64, K_OFFSET),
    OTHER("flags", C_U64, K_FLAGS),
    STR("name", K_NAME, name),
    STR("cat", K_CAT, cat),
    STR("id", K_ID, id),
    STR("pid_str", K_PID_STR, pid_str),
    STR("tid_str", K_TID_STR, tid_str),
    STR("series", K_SERIES, series),
    STR("meta_str", K_META_STR, meta_str),
    STR("provider_name", K_PROVIDER_NAME, provider_name),
    STR("cname", K_CNAME, cname),
    STR("value_text", K_VALUE_TEXT, value_text),
    STR("id_scope", K_ID_SCOPE, id_scope),
    STR("bind_id", K_BIND_ID, bind_id),
    OTHER("phase", C_CATSTR, K_PHASE),
    STR("sf", K_SF, sf),
    STR("esf", K_ESF, esf),
    STR("parent", K_PARENT, parent),
};
#define N_SPECS (sizeof specs / sizeof specs[0])

static const char *const scope_names[] = {"thread", "process", "global"};

/* Codes are written at the width pandas gives a categorical with that
 * many categories (so that Categorical.from_codes does not copy them):
 * int8 below 127, int16 below 32767, else int32; a column is widened in
 * place when its dictionary grows past a bound. */
#define INT8_CATS 127
#define INT16_CATS 32767

static int code_width(size_t ncats)
{
    return ncats < INT8_CATS ? 1 : ncats < INT16_CATS ? 2 : 4;
}

static int32_t code_get(const unsigned char *p, int w, size_t i)
{
    if (w == 1)
        return (signed char)p[i];
    if (w == 2) {
        int16_t v;
        memcpy(&v, p + i * 2, 2);
        return v;
    }
    int32_t v;
    memcpy(&v, p + i * 4, 4);
    return v;
}

static void code_set(unsigned char *p, int w, size_t i, int32_t v)
{
    if (w == 1) {
        p[i] = (unsigned char)(signed char)v;
    } else if (w == 2) {
        int16_t s = (int16_t)v;
        memcpy(p + i * 2, &s, 2);
    } else {
        memcpy(p + i * 4, &v, 4);
    }
}

typedef struct column {
    const colspec *spec;
    mem data, mask;
    int width;         /* bytes per row of data */
    size_t wlimit;     /* C_CATSTR: categories that need a wider code */
    strdict dict;
} column;

/* An argument column: per row a tag and 8 bytes of value. */
enum { A_MISSING = 0, A_INT, A_UINT, A_DOUBLE, A_BOOL, A_STRING, A_OTHER };

typedef struct argcol {
    char *key;           /* UTF-8, owned (PyMem) */
    size_t key_len;
    mem tags, vals;
    strdict dict;
} argcol;

typedef struct framer {
    column *cols;              /* sorted by group */
    size_t ncols;
    size_t ngroup[G_COUNT_];   /* columns in each group, in cols order */
    argcol *acols;
    size_t nacols;
    size_t rows;
    size_t cap_rows;           /* every array has room for this many */
    size_t slow_row;           /* on_event calls grow() at this row */
    size_t first_rows;         /* the first reservation */
    tpy_options opt;
    PyThreadState *released;   /* non-NULL while the lock is released */
    int nomem, cb_failed;
    unsigned since_pause;
} framer;

static int has_mask(const column *c)
{
    return c->spec->type == C_I64N || c->spec->type == C_U64N;
}

static void put_i64n(column *c, size_t row, int present, int64_t v)
{
    ((int64_t *)(void *)c->data.p)[row] = present ? v : 0;
    c->mask.p[row] = (unsigned char)!present;
}

/* Widens the codes of rows [0, rows) in place, from the end (a wider
 * code never overwrites one not yet moved). */
static int widen_codes(column *c, size_t rows, size_t cap_rows)
{
    int w = c->width * 2;
    if (mem_reserve(&c->data, cap_rows * (size_t)w) != 0)
        return -1;
    for (size_t i = rows; i-- > 0;)
        code_set(c->data.p, w, i, code_get(c->data.p, c->width, i));
    c->width = w;
    c->wlimit = w == 2 ? INT16_CATS : SIZE_MAX;
    return 0;
}

/* Out of line: the string is new to the column's dictionary, or past a
 * width bound of its codes. */
static __attribute__((noinline)) int32_t put_str_slow(framer *f, column *c, size_t row,
                                                      const tread_str *s)
{
    int32_t code = strdict_find(&c->dict, (const unsigned char *)s->ptr, s->len);
    if (code < 0)
        return -1;
    while (c->dict.n >= c->wlimit)
        if (widen_codes(c, row, f->cap_rows) != 0)
            return -1;
    return code;
}

static inline int put_str(framer *f, column *c, size_t row, const tread_str *s)
{
    int32_t code = -1;
    /* the string found last again (categories come in runs), else the
     * dictionary */
    if (s->ptr && (!c->dict.n || (code = record_code(&c->dict, c->dict.last,
                                                     (const unsigned char *)s->ptr,
                                                     s->len)) < 0) &&
        (code = put_str_slow(f, c, row, s)) < 0)
        return -1;
    unsigned char *p = c->data.p;
    if (c->width == 1) {
        p[row] = (unsigned char)(signed char)code;
    } else if (c->width == 2) {
        int16_t v = (int16_t)code;
        memcpy(p + row * 2, &v, 2);
    } else {
        memcpy(p + row * 4, &code, 4);
    }
    return 0;
}

static void put_u64(column *c, size_t row, uint64_t v)
{
    ((uint64_t *)(void *)c->data.p)[row] = v;
}

static void put_code8(column *c, size_t row, int code)
{
    c->data.p[row] = (unsigned char)(signed char)code;
}

/* The columns of G_OTHER. */
static int put_other(framer *f, column *c, size_t row, const tread_event *ev)
{
    uint32_t fl = ev->flags;
    switch (c->spec->field) {
    case K_KIND:
        put_code8(c, row, (unsigned)ev->kind < TREAD_EVENT_KIND_COUNT_ ? (int)ev->kind : 0);
        break;
    case K_FORMAT:
        put_code8(c, row, (unsigned)ev->format < TREAD_FORMAT_COUNT_ ? (int)ev->format : 0);
        break;
    case K_META:
        put_code8(c, row, ev->kind == TREAD_EVENT_METADATA &&
                                  (unsigned)ev->meta < TREAD_META_COUNT_
                              ? (int)ev->meta : -1);
        break;
    case K_TRACK_KIND:
        put_code8(c, row, (fl & TREAD_HAS_TRACK) &&
                                  (unsigned)ev->track_kind < TREAD_TRACK_COUNT_
                              ? (int)ev->track_kind : -1);
        break;
    case K_SCOPE:
        put_code8(c, row, ev->scope >= TREAD_SCOPE_THREAD && ev->scope <= TREAD_SCOPE_GLOBAL
                              ? (int)ev->scope - 1 : -1);
        break;
    case K_END:
        put_i64n(c, row, (fl & TREAD_HAS_TS) != 0,
                 (int64_t)((uint64_t)ev->ts + (uint64_t)((fl & TREAD_HAS_DUR) ? ev->dur : 0)));
        break;
    case K_VALUE: {
        double v = (fl & TREAD_HAS_VALUE) ? ev->value : Py_NAN;
        uint64_t bits;
        memcpy(&bits, &v, 8);
        put_u64(c, row, bits);
        break;
    }
    case K_OFFSET:
        put_u64(c, row, ev->offset);
        break;
    case K_FLAGS:
        put_u64(c, row, fl);
        break;
    case K_PHASE: {
        char ch = (char)ev->phase;
        tread_str s = {ev->phase > 0 && ev->phase <= 127 ? &ch : NULL, 1};
        return put_str(f, c, row, &s);
    }
    default:
        break; /* the other fields are in the other groups */
    }
    return 0;
}

static int put_arg(argcol *a, size_t row, const tread_event *ev)
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
    a->tags.p[row] = tag;
    ((uint64_t *)(void *)a->vals.p)[row] = v;
    return 0;
}

/* The row at which an array of width bytes a row has HUGE_AFTER bytes. */
static size_t huge_row(const mem *m, size_t width)
{
    return m->huge || !m->mapped ? SIZE_MAX : (HUGE_AFTER + width - 1) / width;
}

/* At f->rows: asks the arrays that have grown large for huge pages, and
 * sets the next row at which this runs (the end of the reservation, or
 * an array's HUGE_AFTER). */
static void check_huge(framer *f)
{
    size_t row = f->rows, next = f->cap_rows;
    for (size_t i = 0; i < f->ncols; i++) {
        column *c = &f->cols[i];
        mem_huge(&c->data, row * (size_t)c->width);
        size_t r = huge_row(&c->data, (size_t)c->width);
        next = r > row && r < next ? r : next;
        if (has_mask(c)) {
            mem_huge(&c->mask, row);
            r = huge_row(&c->mask, 1);
            next = r > row && r < next ? r : next;
        }
    }
    for (size_t i = 0; i < f->nacols; i++) {
        argcol *a = &f->acols[i];
        mem_huge(&a->tags, row);
        mem_huge(&a->vals, row * 8);
        size_t r = huge_row(&a->tags, 1);
        next = r > row && r < next ? r : next;
        r = huge_row(&a->vals, 8);
        next = r > row && r < next ? r : next;
    }
    f->slow_row = next;
}

/* Room for rows in every array (the first time the guess from the
 * file's size, then twice as many each time), so that the per-event code
 * writes without checking. 0, or -1 when out of memory. */
static int reserve_to(framer *f, size_t rows)
{
    if (rows <= f->cap_rows || rows > SIZE_MAX / 8)
        return -1;
    for (size_t i = 0; i < f->ncols; i++) {
        column *c = &f->cols[i];
        if (mem_reserve(&c->data, rows * (size_t)c->width) != 0 ||
            (has_mask(c) && mem_reserve(&c->mask, rows) != 0))
            return -1;
    }
    for (size_t i = 0; i < f->nacols; i++)
        if (mem_reserve(&f->acols[i].tags, rows) != 0 ||
            mem_reserve(&f->acols[i].vals, rows * 8) != 0)
            return -1;
    f->cap_rows = rows;
    return 0;
}

static int reserve_rows(framer *f)
{
    if (f->cap_rows)
        return reserve_to(f, f->cap_rows * 2);
    /* the guess is address space only, but a strict overcommit policy
     * may refuse it: then start small */
    return reserve_to(f, f->first_rows) == 0 ? 0 : reserve_to(f, MIN_ROWS);
}

static int on_event(void *user, const tread_event *ev)
{
    framer *f = user;
    if (f->nomem || f->cb_failed)
        return 1;
    if (!tpy_filter_pass(&f->opt.filter, ev))
        return ++f->since_pause >= PAUSE_EVERY;
    size_t row = f->rows;
    if (row == f->slow_row) {
        if (row == f->cap_rows && reserve_rows(f) != 0)
            goto nomem;
        check_huge(f);
    }
    const unsigned char *e = (const unsigned char *)ev;
    uint32_t fl = ev->flags;
    column *c = f->cols, *end = c + f->ngroup[G_I64];
    for (; c < end; c++) {
        int64_t v;
        memcpy(&v, e + c->spec->off, 8);
        put_i64n(c, row, (fl & c->spec->need) != 0, v);
    }
    for (end += f->ngroup[G_U32]; c < end; c++) {
        uint32_t v;
        memcpy(&v, e + c->spec->off, 4);
        put_i64n(c, row, (fl & c->spec->need) != 0, v);
    }
    for (end += f->ngroup[G_STR]; c < end; c++)
        if (put_str(f, c, row, (const tread_str *)(const void *)(e + c->spec->off)) != 0)
            goto nomem;
    for (end += f->ngroup[G_OTHER]; c < end; c++)
        if (put_other(f, c, row, ev) != 0)
            goto nomem;
    for (size_t i = 0; i < f->nacols; i++)
        if (put_arg(&f->acols[i], row, ev) != 0)
            goto nomem;
    f->rows = row + 1;
    return ++f->since_pause >= PAUSE_EVERY;
nomem:
    /* the columns filled so far hold a partial row: all is dropped */
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
        mem_free(&f->cols[i].data);
        mem_free(&f->cols[i].mask);
        strdict_free(&f->cols[i].dict);
    }
    for (size_t i = 0; i < f->nacols; i++) {
        PyMem_Free(f->acols[i].key);
        mem_free(&f->acols[i].tags);
        mem_free(&f->acols[i].vals);
        strdict_free(&f->acols[i].dict);
    }
    PyMem_Free(f->cols);
    PyMem_Free(f->acols);
    tpy_options_free(&f->opt);
}

/* ---- results ---------------------------------------------------------- */

/* The dictionary's strings as a list, in code order (the arena's). Distinct
 * byte strings are distinct str unless malformed UTF-8 was replaced by
 * U+FFFD: only then is the list checked for duplicates, and *remap set
 * (PyMem; the caller frees it) to map each code to its code in the
 * returned list, so that the categories stay unique. */
static PyObject *categories(const strdict *d, int32_t **remap_out)
{
    PyObject *list = PyList_New((Py_ssize_t)d->n), *seen = NULL, *out = NULL;
    int32_t *remap = NULL;
    int replaced = 0;
    *remap_out = NULL;
    if (!list)
        return NULL;
    size_t off = 0;
    for (size_t c = 0; c < d->n; c++) {
        uint32_t len;
        memcpy(&len, d->arena + off, 4);
        const char *p = (const char *)d->arena + off + REC_HEAD;
        off += REC_HEAD + len;
        PyObject *s = PyUnicode_DecodeUTF8(p, (Py_ssize_t)len, NULL);
        if (!s && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
            PyErr_Clear();
            replaced = 1;
            s = tpy_str(p, len);
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
    Py_DECREF(seen);
    Py_DECREF(list);
    *remap_out = remap;
    return out;
fail:
    PyMem_Free(remap);
    Py_XDECREF(seen);
    Py_XDECREF(out);
    Py_DECREF(list);
    return NULL;
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

/* The categories of a string column; its codes mapped when categories()
 * merged some, and narrowed when fewer categories need fewer bytes. */
static PyObject *code_categories(column *c, size_t rows)
{
    int32_t *remap;
    PyObject *cats = categories(&c->dict, &remap);
    if (!cats || !remap)
        return cats;
    int w = code_width((size_t)PyList_GET_SIZE(cats));
    for (size_t i = 0; i < rows; i++) {
        int32_t v = code_get(c->data.p, c->width, i);
        code_set(c->data.p, w, i, v >= 0 ? remap[v] : v);
    }
    c->width = w;
    PyMem_Free(remap);
    return cats;
}

static PyObject *column_result(column *c, size_t rows)
{
    PyObject *data = NULL, *mask = NULL, *cats = NULL;
    const char *kind = "";
    switch (c->spec->type) {
    case C_I64N:
    case C_U64N:
        kind = c->spec->type == C_I64N ? "int" : "uint";
        mask = buffer_take(&c->mask, rows);
        break;
    case C_F64: kind = "float"; break;
    case C_U64: kind = "uint64"; break;
    case C_CATFIX:
        kind = "cat";
        cats = names_tuple(c->spec->field);
        break;
    case C_CATSTR:
        kind = "cat";
        cats = code_categories(c, rows);
        strdict_free(&c->dict);
        break;
    }
    data = buffer_take(&c->data, rows * (size_t)c->width);
    PyObject *r = NULL;
    if (data && has_mask(c) && mask)
        r = Py_BuildValue("(sOO)", kind, data, mask);
    else if (data && (c->spec->type == C_F64 || c->spec->type == C_U64))
        r = Py_BuildValue("(sO)", kind, data);
    else if (data && cats)
        r = Py_BuildValue("(sOOi)", kind, data, cats, c->width);
    Py_XDECREF(data);
    Py_XDECREF(mask);
    Py_XDECREF(cats);
    return r;
}

static PyObject *argcol_result(argcol *a, size_t rows)
{
    int32_t *remap;
    PyObject *cats = categories(&a->dict, &remap);
    if (cats && remap) {
        uint64_t *v = (uint64_t *)(void *)a->vals.p;
        for (size_t i = 0; i < rows; i++)
            if (a->tags.p[i] == A_STRING)
                v[i] = (uint64_t)remap[v[i]];
        PyMem_Free(remap);
    }
    PyObject *tags = cats ? buffer_take(&a->tags, rows) : NULL;
    PyObject *vals = tags ? buffer_take(&a->vals, rows * 8) : NULL;
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
        column *c = &f->cols[f->ncols++];
        c->spec = sp;
        c->width = sp->type == C_CATFIX || sp->type == C_CATSTR ? 1 : 8;
        c->wlimit = sp->type == C_CATSTR ? INT8_CATS : SIZE_MAX;
    }
    Py_DECREF(cols);
    /* by group, for the loops of on_event (the result is keyed by name) */
    size_t k = 0;
    for (int g = 0; g < G_COUNT_; g++)
        for (size_t i = k; i < f->ncols; i++)
            if (f->cols[i].spec->group == (enum cgroup)g) {
                column t = f->cols[i];
                memmove(&f->cols[k + 1], &f->cols[k], (i - k) * sizeof t);
                f->cols[k++] = t;
                f->ngroup[g]++;
            }
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

/* The rows to reserve at first: a guess from the size of a file. */
static size_t first_rows(const tpy_source *src)
{
    struct stat st;
    if (src->fd < 0 || fstat(src->fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
        return MIN_ROWS;
    uint64_t rows = (uint64_t)st.st_size / BYTES_PER_ROW_GUESS;
    return rows < MIN_ROWS ? MIN_ROWS : rows > MAX_FIRST_ROWS ? MAX_FIRST_ROWS : (size_t)rows;
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
    f.first_rows = first_rows(&src);
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
        PyObject *r = argcol_result(&f.acols[i], f.rows);
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
