/* convert_perfetto: see convert_perfetto.h and doc/convert.md. Field
 * numbers from ../shared/spec/perfetto_fields.tsv (perfetto.protos.*). */
#include "convert_perfetto.h"
#include "convert_json.h"
#include "pos_index.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Trace, TracePacket */
enum { F_TRACE_PACKET = 1 };
enum {
    TP_TIMESTAMP = 8, TP_SEQ_ID = 10, TP_TRACK_EVENT = 11,
    TP_INTERNED_DATA = 12, TP_SEQUENCE_FLAGS = 13, TP_TRACK_DESCRIPTOR = 60
};
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2 };
/* InternedData, EventName / EventCategory */
enum { ID_EVENT_CATEGORIES = 1, ID_EVENT_NAMES = 2, IS_IID = 1, IS_NAME = 2 };
/* TrackDescriptor, ProcessDescriptor, ThreadDescriptor */
enum {
    TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT = 5,
    TD_COUNTER = 8
};
enum { PD_PID = 1, PD_NAME = 6 };
enum { THD_PID = 1, THD_TID = 2, THD_NAME = 5 };
/* TrackEvent */
enum {
    TE_CATEGORY_IIDS = 3, TE_DEBUG_ANNOTATIONS = 4, TE_LEGACY_EVENT = 6,
    TE_TYPE = 9, TE_NAME_IID = 10, TE_TRACK_UUID = 11,
    TE_THREAD_TIME_ABS_US = 17, TE_TI_ABS = 20, TE_CATEGORIES = 22,
    TE_NAME = 23, TE_COUNTER_VALUE = 30, TE_DOUBLE_COUNTER_VALUE = 44,
    TE_FLOW_IDS = 47, TE_TERMINATING_FLOW_IDS = 48, TE_CALLSTACK_IID = 56
};
enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4 };
/* TrackEvent.LegacyEvent */
enum {
    LE_PHASE = 2, LE_DURATION_US = 3, LE_THREAD_DURATION_US = 4,
    LE_UNSCOPED_ID = 6, LE_ID_SCOPE = 7, LE_BIND_ID = 8, LE_USE_ASYNC_TTS = 9,
    LE_LOCAL_ID = 10, LE_GLOBAL_ID = 11, LE_BIND_TO_ENCLOSING = 12,
    LE_FLOW_DIRECTION = 13, LE_INSTANT_EVENT_SCOPE = 14,
    LE_THREAD_INSTRUCTION_DELTA = 15, LE_TID_OVERRIDE = 19
};
/* DebugAnnotation */
enum {
    DA_BOOL = 2, DA_UINT = 3, DA_INT = 4, DA_DOUBLE = 5, DA_STRING = 6,
    DA_POINTER = 7, DA_NAME = 10, DA_DICT_ENTRIES = 11, DA_ARRAY_VALUES = 12
};

/* Nesting of args written; deeper containers are written empty (the JSON
 * decoder's default depth limit is the same). */
#define CONVERT_PF_MAX_ARG_DEPTH 256
/* Longer strings are written inline, never interned: the table stays small. */
#define INTERN_MAX_STRING 1024
/* Bytes of interned strings per table before interning starts over. */
#define INTERN_MAX_BYTES (8u << 20)

/* ------------------------------------------------------------------------ */
/* Interning: string -> iid (1-based), bounded                              */

typedef struct intern_slot {
    uint64_t h;
    uint32_t off, len; /* in arena */
    uint32_t iid;
    uint32_t gen;      /* the table's gen: in use; else empty */
} intern_slot;

/* Emptied by a new generation, not by clearing the slots: a table has
 * room for 2 x --max-interned strings (3 MiB at the default), and split
 * empties both at every piece, which with small pieces made clearing
 * them most of fuzz_convert's time (page faults under memset). */
struct cvp_intern {
    intern_slot *slots;
    uint32_t gen;      /* >= 1: calloc'ed slots are empty */
    size_t cap;        /* power of two, >= 2 * max */
    size_t count;
    char *arena;
    size_t arena_len, arena_cap;
};

static uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *s = p;
    uint64_t h = 1469598103934665603ull ^ seed;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static cvp_intern *intern_new(uint64_t max)
{
    cvp_intern *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->cap = 16;
    while (t->cap < 2 * max)
        t->cap *= 2;
    t->slots = calloc(t->cap, sizeof *t->slots);
    if (!t->slots) {
        free(t);
        return NULL;
    }
    t->gen = 1;
    return t;
}

static void intern_free(cvp_intern *t)
{
    if (!t)
        return;
    free(t->slots);
    free(t->arena);
    free(t);
}

static void intern_reset(cvp_intern *t)
{
    if (++t->gen == 0) { /* after 2^32 - 1 resets */
        memset(t->slots, 0, t->cap * sizeof *t->slots);
        t->gen = 1;
    }
    t->count = 0;
    t->arena_len = 0;
}

static int intern_has_room(const cvp_intern *t, uint64_t max, size_t len)
{
    return t->count + 1 <= max && t->arena_len + len <= INTERN_MAX_BYTES;
}

/* The iid of s (*is_new when just added); 0 when out of memory. The caller
 * made sure there is room. */
static uint32_t intern(cvp_intern *t, const char *s, size_t len, int *is_new)
{
    uint64_t h = hash_bytes(s, len, 0);
    size_t mask = t->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        intern_slot *sl = &t->slots[i];
        if (sl->gen != t->gen) {
            if (len > t->arena_cap - t->arena_len) {
                size_t cap = t->arena_cap ? t->arena_cap : 4096;
                while (cap - t->arena_len < len)
                    cap *= 2;
                char *a = realloc(t->arena, cap);
                if (!a)
                    return 0;
                t->arena = a;
                t->arena_cap = cap;
            }
            if (len)
                memcpy(t->arena + t->arena_len, s, len);
            sl->h = h;
            sl->off = (uint32_t)t->arena_len;
            sl->len = (uint32_t)len;
            sl->iid = (uint32_t)++t->count;
            sl->gen = t->gen;
            t->arena_len += len;
            *is_new = 1;
            return sl->iid;
        }
        if (sl->h == h && sl->len == len &&
            (len == 0 || memcmp(t->arena + sl->off, s, len) == 0)) {
            *is_new = 0;
            return sl->iid;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Tracks                                                                   */

typedef struct cvp_track {
    uint64_t uuid, parent;
    tread_track_kind kind;
    int64_t pid, tid;
    char *name;              /* malloc'd, NUL-terminated; NULL: none */
    size_t name_len;
    uint32_t described;      /* the epoch its descriptor was last written in */
} cvp_track;

struct cvp_tracks {
    cvp_track *v;
    size_t n, cap_v, max;
    pos_index index;         /* mix64(uuid) -> position in v */
};

static cvp_tracks *tracks_new(uint64_t max)
{
    cvp_tracks *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->max = (size_t)max;
    pos_index_init(&t->index);
    return t;
}

static void tracks_free(cvp_tracks *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].name);
    free(t->v);
    pos_index_free(&t->index);
    free(t);
}

static cvp_track *track_find(cvp_tracks *t, uint64_t uuid)
{
    size_t it = 0, pos;
    while (pos_index_next(&t->index, mix64(uuid), &it, &pos))
        if (t->v[pos].uuid == uuid)
            return &t->v[pos];
    return NULL;
}

/* A new track (not in the table yet): NULL when full or out of memory. */
static cvp_track *track_add(convert_perfetto *w, uint64_t uuid,
                            tread_track_kind kind, int64_t pid, int64_t tid)
{
    cvp_tracks *t = w->tracks;
    if (t->n >= t->max) {
        snprintf(w->error, sizeof w->error,
                 "more than %zu tracks (threads, processes, counters): "
                 "the converter's track limit", t->max);
        return NULL;
    }
    if (t->n == t->cap_v) {
        size_t cap = t->cap_v ? t->cap_v * 2 : 64;
        cvp_track *v = realloc(t->v, cap * sizeof *v);
        if (!v)
            goto nomem;
        t->v = v;
        t->cap_v = cap;
    }
    if (pos_index_add(&t->index, mix64(uuid), t->n) != 0)
        goto nomem;
    cvp_track *tr = &t->v[t->n];
    memset(tr, 0, sizeof *tr);
    tr->uuid = uuid;
    tr->kind = kind;
    tr->pid = pid;
    tr->tid = tid;
    t->n++;
    return tr;
nomem:
    snprintf(w->error, sizeof w->error, "out of memory");
    return NULL;
}

/* 1 if the name changed (or -1: out of memory). */
static int track_set_name(cvp_track *tr, const char *s, size_t len)
{
    if (tr->name && tr->name_len == len && memcmp(tr->name, s, len) == 0)
        return 0;
    char *n = malloc(len + 1);
    if (!n)
        return -1;
    memcpy(n, s, len);
    n[len] = '\0';
    free(tr->name);
    tr->name = n;
    tr->name_len = len;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Packets                                                                  */

static void frame_packet(convert_perfetto *w, const pb_buf *pkt)
{
    pb_varint_raw(&w->out, (F_TRACE_PACKET << 3) | 2);
    pb_varint_raw(&w->out, pkt->len);
    pb_raw(&w->out, pkt->data, pkt->len);
    if (pkt->failed)
        w->out.failed = 1;
}

static int emit_descriptor(convert_perfetto *w, cvp_track *tr)
{
    tr->described = w->epoch;
    pb_buf *b = &w->tmp;
    pb_clear(b);
    pb_uint(b, TP_SEQ_ID, CONVERT_PF_SEQUENCE_ID);
    size_t td = pb_begin(b, TP_TRACK_DESCRIPTOR);
    pb_uint(b, TD_UUID, tr->uuid);
    if (tr->parent)
        pb_uint(b, TD_PARENT, tr->parent);
    if (tr->kind == TREAD_TRACK_THREAD) {
        size_t m = pb_begin(b, TD_THREAD);
        pb_int(b, THD_PID, (int32_t)tr->pid);
        pb_int(b, THD_TID, tr->tid);
        if (tr->name)
            pb_bytes(b, THD_NAME, tr->name, tr->name_len);
        pb_end(b, m);
    } else if (tr->kind == TREAD_TRACK_PROCESS) {
        size_t m = pb_begin(b, TD_PROCESS);
        pb_int(b, PD_PID, (int32_t)tr->pid);
        if (tr->name)
            pb_bytes(b, PD_NAME, tr->name, tr->name_len);
        pb_end(b, m);
    } else {
        if (tr->name)
            pb_bytes(b, TD_NAME, tr->name, tr->name_len);
        if (tr->kind == TREAD_TRACK_COUNTER)
            pb_end(b, pb_begin(b, TD_COUNTER));
    }
    pb_end(b, td);
    frame_packet(w, b);
    if (w->out.failed) {
        snprintf(w->error, sizeof w->error, "out of memory");
        return -1;
    }
    return 0;
}

/* Describes a known track (and its parents) again in a new epoch. */
static int ensure_described(convert_perfetto *w, cvp_track *tr)
{
    for (int depth = 0; tr && tr->described != w->epoch && depth < 16; depth++) {
        uint64_t parent = tr->parent;
        if (parent) { /* parents first: descriptors are read in order */
            cvp_track *p = track_find(w->tracks, parent);
            if (p && p->described != w->epoch && p != tr) {
                /* describe the chain from the top down, at most 16 deep */
                cvp_track *chain[16];
                int n = 0;
                for (cvp_track *q = p; q && q->described != w->epoch && n < 16;
                     q = q->parent ? track_find(w->tracks, q->parent) : NULL) {
                    int seen = 0;
                    for (int i = 0; i < n; i++)
                        seen |= chain[i] == q;
                    if (seen || q == tr)
                        break;
                    chain[n++] = q;
                }
                while (n > 0)
                    if (emit_descriptor(w, chain[--n]) != 0)
                        return -1;
            }
        }
        if (emit_descriptor(w, tr) != 0)
            return -1;
    }
    return 0;
}

static uint64_t uuid_process(int64_t pid)
{
    return mix64((uint64_t)pid ^ 0x70726f6365737300ull) | 1;
}

static uint64_t uuid_thread(int64_t pid, int64_t tid)
{
    return mix64(mix64((uint64_t)pid) ^ (uint64_t)tid ^ 0x7468726561640000ull) | 1;
}

/* The process track of pid, created (and described) when new. */
static cvp_track *process_track(convert_perfetto *w, int64_t pid)
{
    uint64_t uuid = uuid_process(pid);
    cvp_track *tr = track_find(w->tracks, uuid);
    if (tr)
        return ensure_described(w, tr) == 0 ? tr : NULL;
    tr = track_add(w, uuid, TREAD_TRACK_PROCESS, pid, pid);
    if (!tr || emit_descriptor(w, tr) != 0)
        return NULL;
    return tr;
}

static cvp_track *thread_track(convert_perfetto *w, int64_t pid, int64_t tid)
{
    uint64_t uuid = uuid_thread(pid, tid);
    cvp_track *tr = track_find(w->tracks, uuid);
    if (!process_track(w, pid)) /* its process (name) first */
        return NULL;
    if (tr) /* process_track may have moved the table */
        tr = track_find(w->tracks, uuid);
    if (tr)
        return ensure_described(w, tr) == 0 ? tr : NULL;
    tr = track_add(w, uuid, TREAD_TRACK_THREAD, pid, tid);
    if (!tr || emit_descriptor(w, tr) != 0)
        return NULL;
    return tr;
}

/* The counter track's name: "name series", or the name alone when the
 * series is the JSON default "value" (doc/convert.md). */
static size_t counter_track_name(const tread_event *ev, char *buf, size_t cap,
                                 const char **out)
{
    tread_str n = ev->name, s = ev->series;
    if (!s.ptr || s.len == 0 || (s.len == 5 && memcmp(s.ptr, "value", 5) == 0) ||
        (n.ptr && n.len == s.len && memcmp(n.ptr, s.ptr, s.len) == 0) ||
        !n.ptr || n.len == 0) {
        const tread_str *one = n.ptr && n.len ? &n : &s;
        *out = one->ptr ? one->ptr : "";
        return one->ptr ? one->len : 0;
    }
    if (n.len + 1 + s.len > cap) {
        *out = n.ptr;
        return n.len;
    }
    memcpy(buf, n.ptr, n.len);
    buf[n.len] = ' ';
    memcpy(buf + n.len + 1, s.ptr, s.len);
    *out = buf;
    return n.len + 1 + s.len;
}

static cvp_track *counter_track(convert_perfetto *w, const tread_event *ev)
{
    char buf[512];
    const char *name;
    size_t len = counter_track_name(ev, buf, sizeof buf, &name);
    int has_pid = (ev->flags & TREAD_HAS_PID) != 0;
    uint64_t uuid = hash_bytes(name, len, mix64(has_pid ? (uint64_t)ev->pid : 0x636f756e74ull)) | 1;
    cvp_track *tr = track_find(w->tracks, uuid);
    if (tr)
        return ensure_described(w, tr) == 0 ? tr : NULL;
    uint64_t parent = 0;
    if (has_pid) {
        cvp_track *proc = process_track(w, ev->pid);
        if (!proc)
            return NULL;
        parent = proc->uuid; /* track_add may move the table */
    }
    tr = track_add(w, uuid, TREAD_TRACK_COUNTER, ev->pid, ev->pid);
    if (!tr)
        return NULL;
    tr->parent = parent;
    if (track_set_name(tr, name, len) < 0) {
        snprintf(w->error, sizeof w->error, "out of memory");
        return NULL;
    }
    if (emit_descriptor(w, tr) != 0)
        return NULL;
    return tr;
}

/* The event's own track (Perfetto input), created from the event when its
 * descriptor was not seen. */
static cvp_track *known_track(convert_perfetto *w, const tread_event *ev)
{
    cvp_track *tr = track_find(w->tracks, ev->track_uuid);
    if (tr)
        return ensure_described(w, tr) == 0 ? tr : NULL;
    tr = track_add(w, ev->track_uuid, ev->track_kind, ev->pid,
                   (ev->flags & TREAD_HAS_TID) ? ev->tid : ev->pid);
    if (!tr)
        return NULL;
    if ((tr->kind == TREAD_TRACK_THREAD || tr->kind == TREAD_TRACK_PROCESS) &&
        !(ev->flags & TREAD_HAS_PID))
        tr->kind = TREAD_TRACK_GLOBAL;
    if (tr->kind == TREAD_TRACK_COUNTER && ev->series.ptr &&
        track_set_name(tr, ev->series.ptr, ev->series.len) < 0) {
        snprintf(w->error, sizeof w->error, "out of memory");
        return NULL;
    }
    if (emit_descriptor(w, tr) != 0)
        return NULL;
    return tr;
}

/* The process and thread names in force for the event's pid and (pid,
 * tid), which process_name and thread_name put on the converter's own
 * process and thread tracks: described in this piece when they are not
 * yet, as a JSON piece restates its events' names (doc/convert.md,
 * "Metadata once, where needed"). The event's own track need not lead to
 * them: fuzz_convert found a counter on a track whose parent, the input's
 * process track, had no name, the name being on the converter's track,
 * so its piece showed the pid unnamed. */
static int restate_names(convert_perfetto *w, const tread_event *ev)
{
    cvp_track *p = track_find(w->tracks, uuid_process(ev->pid));
    if (p && p->name && p->described != w->epoch && ensure_described(w, p) != 0)
        return -1;
    if (ev->flags & TREAD_HAS_TID) {
        cvp_track *t = track_find(w->tracks, uuid_thread(ev->pid, ev->tid));
        if (t && t->name && t->described != w->epoch && ensure_described(w, t) != 0)
            return -1;
    }
    return 0;
}

/* Metadata that names a track: updates it and describes it again. */
static int name_track(convert_perfetto *w, const tread_event *ev)
{
    cvp_track *tr = NULL;
    int64_t tid = (ev->flags & TREAD_HAS_TID) ? ev->tid : ev->pid;
    if (ev->meta == TREAD_META_PROCESS_NAME)
        tr = process_track(w, ev->pid);
    else if (ev->meta == TREAD_META_THREAD_NAME)
        tr = thread_track(w, ev->pid, tid);
    else { /* TREAD_META_TRACK_DESCRIPTOR */
        tr = track_find(w->tracks, ev->track_uuid);
        if (!tr) {
            tr = track_add(w, ev->track_uuid, ev->track_kind, ev->pid, tid);
            if (!tr)
                return -1;
            if ((tr->kind == TREAD_TRACK_THREAD || tr->kind == TREAD_TRACK_PROCESS) &&
                !(ev->flags & TREAD_HAS_PID))
                tr->kind = TREAD_TRACK_GLOBAL;
            if (ev->flags & TREAD_HAS_ID_NUM)
                tr->parent = ev->id_num;
            if (ev->meta_str.ptr &&
                track_set_name(tr, ev->meta_str.ptr, ev->meta_str.len) < 0)
                goto nomem;
            return emit_descriptor(w, tr);
        }
        /* a descriptor known but not in this piece (also the retry of
         * this very event after a piece restart, whose first encoding
         * added the track): the event is the descriptor, so the piece
         * gets it */
        if (tr->described != w->epoch) {
            if (ev->meta_str.ptr && track_set_name(tr, ev->meta_str.ptr, ev->meta_str.len) < 0)
                goto nomem;
            return ensure_described(w, tr);
        }
    }
    if (!tr)
        return -1;
    if (!ev->meta_str.ptr)
        return 0;
    int changed = track_set_name(tr, ev->meta_str.ptr, ev->meta_str.len);
    if (changed < 0)
        goto nomem;
    return changed ? emit_descriptor(w, tr) : 0;
nomem:
    snprintf(w->error, sizeof w->error, "out of memory");
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Events                                                                   */

int convert_perfetto_wanted(const tread_event *ev)
{
    switch (ev->kind) {
    case TREAD_EVENT_METADATA:
        switch (ev->meta) {
        case TREAD_META_PROCESS_NAME:
        case TREAD_META_THREAD_NAME:
            return (ev->flags & TREAD_HAS_PID) != 0;
        case TREAD_META_TRACK_DESCRIPTOR:
            return (ev->flags & TREAD_HAS_TRACK) != 0;
        case TREAD_META_OTHER:
            return 1; /* a legacy 'M' event with its name and args */
        default:
            return 0; /* sort indexes, labels, top-level keys: doc/convert.md */
        }
    case TREAD_EVENT_COUNTER:
        return (ev->flags & TREAD_HAS_VALUE) != 0;
    case TREAD_EVENT_STACK_FRAME:
    case TREAD_EVENT_BLOB:
    case TREAD_EVENT_CLOCK_SYNC:
        return 0;
    case TREAD_EVENT_UNKNOWN:
        return ev->phase > ' ' && ev->phase < 127;
    default:
        return 1;
    }
}

static int is_metadata_track_event(const tread_event *ev)
{
    return ev->kind == TREAD_EVENT_METADATA && ev->meta != TREAD_META_OTHER;
}

/* A numeric id ("0x1f", "31"): 1 and *out, else 0. */
static int parse_id(tread_str s, uint64_t *out)
{
    char tmp[32];
    if (!s.ptr || s.len == 0 || s.len >= sizeof tmp)
        return 0;
    memcpy(tmp, s.ptr, s.len);
    tmp[s.len] = '\0';
    if (tmp[0] == '-' || tmp[0] == '+' || tmp[0] == ' ')
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(tmp, &end, 0);
    if (*end != '\0' || errno != 0)
        return 0;
    *out = v;
    return 1;
}

static int64_t ns_to_us(int64_t ns)
{
    /* to the nearest microsecond, halves away from zero */
    return ns >= 0 ? (ns + 500) / 1000 : -((-(ns + 1) + 501) / 1000);
}

/* A DebugAnnotation string_value holding bytes in base64 (RFC 4648). */
static void base64_string(pb_buf *b, const unsigned char *p, size_t n)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t m = pb_begin(b, DA_STRING);
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        char q[4] = {tab[v >> 18], tab[(v >> 12) & 63],
                     i + 1 < n ? tab[(v >> 6) & 63] : '=',
                     i + 2 < n ? tab[v & 63] : '='};
        pb_raw(b, q, 4);
    }
    pb_end(b, m);
}

static void write_args(pb_buf *b, const tread_args *a)
{
    size_t marks[CONVERT_PF_MAX_ARG_DEPTH];
    unsigned char is_array[CONVERT_PF_MAX_ARG_DEPTH];
    int depth = 0;
    tread_args_iter it;
    tread_arg arg;
    if (!a->data || a->len == 0)
        return;
    tread_args_iter_init(&it, a);
    while (tread_args_next(&it, &arg)) {
        if (arg.type == TREAD_ARG_DICT_END || arg.type == TREAD_ARG_ARRAY_END) {
            if (depth > 0)
                pb_end(b, marks[--depth]);
            continue;
        }
        uint32_t field = depth == 0 ? TE_DEBUG_ANNOTATIONS
                         : is_array[depth - 1] ? DA_ARRAY_VALUES : DA_DICT_ENTRIES;
        size_t m = pb_begin(b, field);
        if (depth == 0 || !is_array[depth - 1])
            pb_bytes(b, DA_NAME, arg.key.ptr ? arg.key.ptr : "",
                     arg.key.ptr ? arg.key.len : 0);
        switch (arg.type) {
        case TREAD_ARG_BOOL: pb_uint(b, DA_BOOL, arg.v.b != 0); break;
        case TREAD_ARG_INT: pb_int(b, DA_INT, arg.v.i); break;
        case TREAD_ARG_UINT:
        case TREAD_ARG_KOID: pb_uint(b, DA_UINT, arg.v.u); break;
        case TREAD_ARG_DOUBLE: pb_double(b, DA_DOUBLE, arg.v.d); break;
        case TREAD_ARG_POINTER: pb_uint(b, DA_POINTER, arg.v.u); break;
        case TREAD_ARG_STRING:
            pb_bytes(b, DA_STRING, arg.v.s.ptr ? arg.v.s.ptr : "",
                     arg.v.s.ptr ? arg.v.s.len : 0);
            break;
        case TREAD_ARG_BYTES: /* as `tread cat` shows them: base64 */
            base64_string(b, (const unsigned char *)arg.v.s.ptr,
                          arg.v.s.ptr ? arg.v.s.len : 0);
            break;
        case TREAD_ARG_DICT_BEGIN:
        case TREAD_ARG_ARRAY_BEGIN:
            if (depth < CONVERT_PF_MAX_ARG_DEPTH) {
                marks[depth] = m;
                is_array[depth] = arg.type == TREAD_ARG_ARRAY_BEGIN;
                depth++;
                continue;
            }
            tread_args_skip(&it);
            break;
        default: /* null: an annotation with a name and no value */
            break;
        }
        pb_end(b, m);
    }
    while (depth > 0)
        pb_end(b, marks[--depth]);
}

/* Interns s into t: writes the iid into the track event later. Returns the
 * iid, 0 when the string is written inline instead. */
static uint32_t intern_str(cvp_intern *t, tread_str s,
                           int *is_new)
{
    *is_new = 0;
    if (s.len > INTERN_MAX_STRING)
        return 0;
    return intern(t, s.ptr ? s.ptr : "", s.len, is_new);
}

int convert_perfetto_frame(convert_perfetto *w, const tread_event *ev)
{
    if (!w->stacks && !(w->stacks = cvp_stacks_new((size_t)w->max_frame_bytes)))
        goto nomem;
    int rc = cvp_stacks_define(w->stacks, ev);
    if (rc >= 0)
        return rc;
nomem:
    snprintf(w->error, sizeof w->error, "out of memory");
    return -1;
}

/* Empties every interning table; the next packet clears the sequence's
 * incremental state. */
static void interning_reset(convert_perfetto *w)
{
    intern_reset(w->names);
    intern_reset(w->cats);
    if (w->stacks)
        cvp_stacks_reset(w->stacks);
    w->need_clear = 1;
}

int convert_perfetto_event(convert_perfetto *w, const tread_event *ev)
{
    uint32_t f = ev->flags;
    if (is_metadata_track_event(ev))
        return name_track(w, ev) == 0 ? 0 : -1;

    /* the track, described first when new */
    cvp_track *tr = NULL;
    /* Perfetto input keeps its tracks; FXT's async and counter ids are no
     * Perfetto tracks (they stay in the event's ids) */
    int own_track = (f & TREAD_HAS_TRACK) && ev->track_kind != TREAD_TRACK_NONE &&
                    ev->format == TREAD_FORMAT_PERFETTO;
    if (ev->kind == TREAD_EVENT_COUNTER &&
        !(own_track && ev->track_kind == TREAD_TRACK_COUNTER))
        tr = counter_track(w, ev);
    else if (own_track)
        tr = known_track(w, ev);
    else if (f & TREAD_HAS_PID)
        tr = thread_track(w, ev->pid, (f & TREAD_HAS_TID) ? ev->tid : ev->pid);
    if (!tr && w->error[0])
        return -1;
    if ((f & TREAD_HAS_PID) && restate_names(w, ev) != 0)
        return -1;

    /* the stack the event names (its sf), held when it came */
    size_t chain = 0;
    w->last_sf_missing = 0;
    if (ev->sf.ptr && ev->sf.len) {
        chain = w->stacks ? cvp_stacks_resolve(w->stacks, ev->sf) : 0;
        w->last_sf_missing = chain == 0;
    }

    /* interning: start over when a table is full */
    size_t nlen = ev->name.ptr ? ev->name.len : 0, clen = ev->cat.ptr ? ev->cat.len : 0;
    if (!intern_has_room(w->names, w->max_interned, nlen) ||
        !intern_has_room(w->cats, w->max_interned, clen) ||
        (chain && cvp_stacks_interned(w->stacks) + cvp_stacks_new_entries(w->stacks) >
                      w->max_interned)) {
        interning_reset(w);
        w->intern_resets++;
    }
    pb_clear(&w->idata);
    uint64_t cs_iid = chain ? cvp_stacks_write(w->stacks, &w->idata) : 0;
    int name_new = 0, cat_new = 0;
    uint32_t name_iid = 0, cat_iid = 0;
    if (ev->name.ptr)
        name_iid = intern_str(w->names, ev->name, &name_new);
    if (ev->cat.ptr)
        cat_iid = intern_str(w->cats, ev->cat, &cat_new);
    if ((ev->name.ptr && nlen <= INTERN_MAX_STRING && !name_iid) ||
        (ev->cat.ptr && clen <= INTERN_MAX_STRING && !cat_iid)) {
        snprintf(w->error, sizeof w->error, "out of memory");
        return -1;
    }

    pb_buf *b = &w->pkt;
    pb_clear(b);
    if ((f & TREAD_HAS_TS) && ev->ts >= 0)
        pb_uint(b, TP_TIMESTAMP, (uint64_t)ev->ts);
    else if (f & TREAD_HAS_TS)
        w->lossy_ts++;
    pb_uint(b, TP_SEQ_ID, CONVERT_PF_SEQUENCE_ID);
    pb_uint(b, TP_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE |
                                  (w->need_clear ? SEQ_INCREMENTAL_STATE_CLEARED : 0));
    w->need_clear = 0;
    if (name_new || cat_new || w->idata.len) {
        size_t m = pb_begin(b, TP_INTERNED_DATA);
        if (cat_new) {
            size_t e = pb_begin(b, ID_EVENT_CATEGORIES);
            pb_uint(b, IS_IID, cat_iid);
            pb_bytes(b, IS_NAME, ev->cat.ptr, ev->cat.len);
            pb_end(b, e);
        }
        if (name_new) {
            size_t e = pb_begin(b, ID_EVENT_NAMES);
            pb_uint(b, IS_IID, name_iid);
            pb_bytes(b, IS_NAME, ev->name.ptr, ev->name.len);
            pb_end(b, e);
        }
        pb_raw(b, w->idata.data, w->idata.len);
        if (w->idata.failed)
            b->failed = 1;
        pb_end(b, m);
    }

    size_t te = pb_begin(b, TP_TRACK_EVENT);
    int type = 0;
    char ph = 0;
    switch (ev->kind) {
    case TREAD_EVENT_SLICE_BEGIN: type = TYPE_SLICE_BEGIN; break;
    case TREAD_EVENT_SLICE_END: type = TYPE_SLICE_END; break;
    case TREAD_EVENT_INSTANT: type = TYPE_INSTANT; break;
    case TREAD_EVENT_COUNTER: type = TYPE_COUNTER; break;
    case TREAD_EVENT_CONTEXT_SWITCH:
    case TREAD_EVENT_WAKEUP:
    case TREAD_EVENT_LOG:
        type = TYPE_INSTANT; /* no TrackEvent counterpart: doc/convert.md */
        break;
    default:
        ph = convert_phase_of(ev);
        if (!ph)
            type = TYPE_INSTANT;
        break;
    }
    if (type)
        pb_uint(b, TE_TYPE, (uint64_t)type);
    if (name_iid)
        pb_uint(b, TE_NAME_IID, name_iid);
    else if (ev->name.ptr)
        pb_bytes(b, TE_NAME, ev->name.ptr, ev->name.len);
    if (cat_iid)
        pb_uint(b, TE_CATEGORY_IIDS, cat_iid);
    else if (ev->cat.ptr)
        pb_bytes(b, TE_CATEGORIES, ev->cat.ptr, ev->cat.len);
    if (tr)
        pb_uint(b, TE_TRACK_UUID, tr->uuid);
    if (f & TREAD_HAS_TTS)
        pb_int(b, TE_THREAD_TIME_ABS_US, ns_to_us(ev->tts));
    if (f & TREAD_HAS_TICOUNT)
        pb_int(b, TE_TI_ABS, ev->ticount);
    if (ev->kind == TREAD_EVENT_COUNTER) {
        if (f & TREAD_VALUE_IS_INT)
            pb_int(b, TE_COUNTER_VALUE, ev->value_int);
        else
            pb_double(b, TE_DOUBLE_COUNTER_VALUE, ev->value);
    } else {
        write_args(b, &ev->args);
    }
    for (size_t i = 0; i < ev->flow_ids.n; i++)
        pb_fixed64(b, TE_FLOW_IDS, ev->flow_ids.v[i]);
    for (size_t i = 0; i < ev->terminating_flow_ids.n; i++)
        pb_fixed64(b, TE_TERMINATING_FLOW_IDS, ev->terminating_flow_ids.v[i]);
    if (cs_iid)
        pb_uint(b, TE_CALLSTACK_IID, cs_iid);

    /* the legacy event: phase and the Chrome fields TrackEvent lacks */
    size_t le = pb_begin(b, TE_LEGACY_EVENT);
    size_t le_empty = b->len;
    if (ph)
        pb_int(b, LE_PHASE, ph);
    if (f & TREAD_HAS_DUR)
        pb_int(b, LE_DURATION_US, ns_to_us(ev->dur));
    if (f & TREAD_HAS_TDUR)
        pb_int(b, LE_THREAD_DURATION_US, ns_to_us(ev->tdur));
    uint64_t id;
    int has_id = (f & TREAD_HAS_ID_NUM) ? (id = ev->id_num, 1) : parse_id(ev->id, &id);
    if (has_id)
        pb_uint(b, (f & TREAD_ID_LOCAL) ? LE_LOCAL_ID
                   : (f & TREAD_ID_GLOBAL) ? LE_GLOBAL_ID : LE_UNSCOPED_ID, id);
    else if (ev->id.ptr)
        w->lossy_ids++;
    if (ev->id_scope.ptr)
        pb_bytes(b, LE_ID_SCOPE, ev->id_scope.ptr, ev->id_scope.len);
    uint64_t bind;
    if (parse_id(ev->bind_id, &bind))
        pb_uint(b, LE_BIND_ID, bind);
    if (f & TREAD_USE_ASYNC_TTS)
        pb_uint(b, LE_USE_ASYNC_TTS, 1);
    if (f & TREAD_BIND_ENCLOSING)
        pb_uint(b, LE_BIND_TO_ENCLOSING, 1);
    if (f & (TREAD_FLOW_IN | TREAD_FLOW_OUT))
        pb_uint(b, LE_FLOW_DIRECTION, ((f & TREAD_FLOW_IN) ? 1u : 0u) |
                                      ((f & TREAD_FLOW_OUT) ? 2u : 0u));
    switch (ev->scope) {
    case TREAD_SCOPE_GLOBAL: pb_uint(b, LE_INSTANT_EVENT_SCOPE, 1); break;
    case TREAD_SCOPE_PROCESS: pb_uint(b, LE_INSTANT_EVENT_SCOPE, 2); break;
    case TREAD_SCOPE_THREAD: pb_uint(b, LE_INSTANT_EVENT_SCOPE, 3); break;
    default: break;
    }
    if (f & TREAD_HAS_TIDELTA)
        pb_int(b, LE_THREAD_INSTRUCTION_DELTA, ev->tidelta);
    if (!tr && (f & TREAD_HAS_TID) && !(f & TREAD_HAS_PID))
        pb_int(b, LE_TID_OVERRIDE, (int32_t)ev->tid); /* a thread, no process */
    if (b->len == le_empty && !b->failed)
        b->len = le - 1; /* empty: drop it, with its one-byte tag */
    else
        pb_end(b, le);
    pb_end(b, te);
    frame_packet(w, b);
    if (w->out.failed) {
        snprintf(w->error, sizeof w->error,
                 "out of memory (or a packet over %u bytes)", PB_MAX_NESTED_BYTES);
        return -1;
    }
    return 0;
}

int convert_perfetto_restart(convert_perfetto *w)
{
    interning_reset(w);
    w->epoch++;
    return 0;
}

int convert_perfetto_init(convert_perfetto *w, uint64_t max_interned,
                          uint64_t max_tracks)
{
    memset(w, 0, sizeof *w);
    pb_init(&w->out);
    pb_init(&w->pkt);
    pb_init(&w->tmp);
    pb_init(&w->idata);
    w->max_interned = max_interned;
    w->need_clear = 1;
    w->epoch = 1;
    w->names = intern_new(max_interned);
    w->cats = intern_new(max_interned);
    w->tracks = tracks_new(max_tracks);
    if (!w->names || !w->cats || !w->tracks) {
        convert_perfetto_free(w);
        return -1;
    }
    return 0;
}

void convert_perfetto_free(convert_perfetto *w)
{
    intern_free(w->names);
    intern_free(w->cats);
    tracks_free(w->tracks);
    cvp_stacks_free(w->stacks);
    w->stacks = NULL;
    pb_free(&w->idata);
    pb_free(&w->out);
    pb_free(&w->pkt);
    pb_free(&w->tmp);
    w->names = w->cats = NULL;
    w->tracks = NULL;
}
