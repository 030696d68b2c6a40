/* split_perfetto: see split_perfetto.h and doc/convert.md ("Perfetto pieces").
 *
 * The state a piece's decoder needs is the state the whole file's decoder
 * has at the same packet. This file keeps a copy of the part that packets
 * refer to (per sequence: validity, TracePacketDefaults, interned entries,
 * sequence-scoped clocks, incremental counter values, a legacy
 * ThreadDescriptor; globally: track descriptors, the latest clock
 * snapshots, trace-level packets), stamps each item with the piece that
 * holds it, and before a packet writes what it needs and the piece lacks.
 * A sequence's state in a piece is "in sync" from its first packet in the
 * piece on: from then the copied packets change both decoders alike. */
#include "split_perfetto.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* TracePacket fields */
enum {
    F_CLOCK_SNAPSHOT = 6,
    F_TIMESTAMP = 8,
    F_SEQ_ID = 10,
    F_TRACK_EVENT = 11,
    F_INTERNED = 12,
    F_FLAGS = 13,
    F_LEGACY_CLEAR = 41,
    F_THREAD_DESC = 44,
    F_CLOCK_ID = 58,
    F_DEFAULTS = 59,
    F_TRACK_DESC = 60
};
#define SEQ_CLEARED 1u

/* Payloads that are the trace's, not a sequence's, and make no event:
 * repeated in every piece. */
static int trace_level(uint32_t f)
{
    switch (f) {
    case 33:  /* trace_config */
    case 45:  /* system_info */
    case 72:  /* extension_descriptor (the schema of extensions) */
    case 89:  /* trace_uuid */
    case 124: /* trace_provenance */
    case 126: /* trace_attributes */
        return 1;
    default:
        return 0;
    }
}

/* ---- bytes ------------------------------------------------------------ */

typedef struct buf {
    unsigned char *p;
    size_t len, cap;
} buf;

static int buf_reserve(buf *b, size_t n)
{
    if (n <= b->cap - b->len)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < n) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2;
    }
    unsigned char *p = realloc(b->p, cap);
    if (!p)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

static int buf_put(buf *b, const void *p, size_t n)
{
    if (buf_reserve(b, n))
        return -1;
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

static int buf_varint(buf *b, uint64_t v)
{
    unsigned char t[10];
    size_t n = 0;
    do {
        t[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return buf_put(b, t, n);
}

static int buf_tag(buf *b, uint32_t field, int wire)
{
    return buf_varint(b, ((uint64_t)field << 3) | (uint64_t)wire);
}

static int buf_lenfield(buf *b, uint32_t field, const void *p, size_t n)
{
    return buf_tag(b, field, 2) || buf_varint(b, n) || buf_put(b, p, n);
}

static size_t varint_size(uint64_t v)
{
    size_t n = 1;
    while (v > 0x7f) {
        v >>= 7;
        n++;
    }
    return n;
}

/* ---- reading ---------------------------------------------------------- */

typedef struct rd {
    const unsigned char *p, *end;
} rd;

typedef struct fld {
    uint32_t num;
    int wire;
    uint64_t v;                /* varint, fixed */
    const unsigned char *data; /* length-delimited */
    size_t len;
    const unsigned char *start; /* the field's tag */
} fld;

static int rd_varint(rd *r, uint64_t *v)
{
    uint64_t x = 0;
    for (int s = 0; s < 64; s += 7) {
        if (r->p >= r->end)
            return -1;
        unsigned char c = *r->p++;
        x |= (uint64_t)(c & 0x7f) << s;
        if (!(c & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* 1: a field; 0: the end; -1: malformed (groups are malformed here: the
 * messages read by this file have none). */
static int rd_next(rd *r, fld *f)
{
    if (r->p >= r->end)
        return 0;
    f->start = r->p;
    uint64_t tag;
    if (rd_varint(r, &tag) || (tag >> 3) == 0 || (tag >> 3) > UINT32_MAX)
        return -1;
    f->num = (uint32_t)(tag >> 3);
    f->wire = (int)(tag & 7);
    f->data = NULL;
    f->len = 0;
    switch (f->wire) {
    case 0: return rd_varint(r, &f->v) ? -1 : 1;
    case 1:
        if (r->end - r->p < 8)
            return -1;
        f->v = 0;
        for (int i = 7; i >= 0; i--)
            f->v = (f->v << 8) | r->p[i];
        r->p += 8;
        return 1;
    case 5:
        if (r->end - r->p < 4)
            return -1;
        f->v = (uint64_t)r->p[0] | (uint64_t)r->p[1] << 8 | (uint64_t)r->p[2] << 16 |
               (uint64_t)r->p[3] << 24;
        r->p += 4;
        return 1;
    case 2: {
        uint64_t n;
        if (rd_varint(r, &n) || n > (uint64_t)(r->end - r->p))
            return -1;
        f->data = r->p;
        f->len = (size_t)n;
        r->p += n;
        return 1;
    }
    default: return -1;
    }
}

static void rd_init(rd *r, const unsigned char *p, size_t n)
{
    r->p = p;
    r->end = p + n;
}

/* ---- state ------------------------------------------------------------ */

typedef struct entry {         /* an interned entry of a sequence */
    uint64_t iid;
    uint32_t ns;               /* InternedData field; 0: empty slot */
    uint32_t len;
    size_t off;                /* in the sequence's arena */
    uint64_t piece;            /* the piece holding it (number + 1) */
} entry;

typedef struct seq_clock {     /* a sequence-scoped clock */
    uint32_t id;
    int incremental;
    uint64_t unit;
    int64_t base;              /* its value in the last snapshot */
    int64_t running;           /* incremental: the current value */
    buf snap;                  /* the last ClockSnapshot naming it */
} seq_clock;

typedef struct counter {       /* an incremental counter track's value */
    uint64_t uuid;
    int64_t ival;
    double dval;
    uint64_t piece;            /* the piece whose decoder has the value */
} counter;

typedef struct seqst {
    uint32_t id;
    int used;
    int valid;                 /* the whole file's state after its last packet */
    uint64_t piece;            /* in sync in this piece (number + 1) */
    buf defaults;
    int has_defaults;
    buf arena;
    entry *tab;
    size_t tab_size, tab_used;
    uint32_t ns[48];           /* namespaces present (for unknown references) */
    size_t n_ns;
    seq_clock *clk;            /* SPLIT_PF_MAX_SEQ_CLOCKS, made at the first */
    size_t n_clk;
    counter *ctr;
    size_t n_ctr;
    buf thread;                /* the last legacy ThreadDescriptor */
    uint64_t held;             /* bytes charged to SPLIT_PF_MAX_STATE_BYTES */
} seqst;

typedef struct track {
    uint64_t uuid;             /* 0: empty slot */
    uint64_t parent;
    int incremental;
    uint32_t seq;
    size_t off, len;           /* the TrackDescriptor, in tracks_arena */
    uint64_t piece;
    int parent_known;          /* its parent was described before it last was */
} track;

typedef struct saved {         /* a trace-level packet or global snapshot */
    uint32_t field, seq;
    buf msg;
} saved;

typedef struct ref {
    uint32_t ns;               /* 0: any namespace (unknown reference) */
    uint64_t iid;
} ref;

struct split_perfetto {
    split_pieces *sp;
    split_perfetto_stats st;
    char err[512];
    int failed;
    uint64_t piece;            /* current piece number + 1; 0: none open */
    uint64_t piece_originals;  /* input packets in the current piece */

    seqst *seqs;               /* open addressing on the id */
    size_t seq_size, seq_used;
    track *tracks;
    size_t track_size, track_used;
    buf tracks_arena;
    uint64_t held;             /* state bytes held, all sequences and tracks */

    saved trace_pk[SPLIT_PF_MAX_TRACE_PACKETS];
    size_t n_trace;
    size_t trace_bytes;
    saved snaps[SPLIT_PF_CLOCK_SNAPSHOTS]; /* ring, oldest first from snap_head */
    size_t n_snaps, snap_head;

    /* the packet held until its events are seen */
    int have;
    tread_perfetto_packet pk;
    buf cur;
    uint64_t used_tracks[SPLIT_PF_MAX_PACKET_TRACKS];
    size_t n_used;
    uint64_t own_track;        /* the TrackDescriptor the packet holds */
    int own_desc_seen;         /* its event: seen, and with a pid (the */
    int own_desc_pid;          /* decoder found its parent's) */

    /* scratch */
    buf out;                   /* state packets for the packet being written */
    buf tmp, tmp2;
    ref *refs;
    size_t n_refs, refs_cap;
    ref own[256];              /* entries the packet interns itself */
    size_t n_own;
    int own_overflow;
    const tread_perfetto_msgtype *walk_stack[TREAD_PF_WALK_DEFAULT_MAX_DEPTH + 2];
    const tread_perfetto_msgtype *t_packet, *t_frame, *t_callstack, *t_mapping,
        *t_symbols, *t_v8fn, *t_asyncdesc;
};

static int fail(split_perfetto *s, const char *msg)
{
    if (!s->failed)
        snprintf(s->err, sizeof s->err, "%s", msg);
    s->failed = 1;
    return -1;
}

static int nomem(split_perfetto *s)
{
    return fail(s, "split: out of memory");
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* ---- sequences -------------------------------------------------------- */

static seqst *seq_find(split_perfetto *s, uint32_t id, int create)
{
    if (s->seq_size) {
        size_t m = s->seq_size - 1, i = (size_t)mix(id) & m;
        for (; s->seqs[i].used; i = (i + 1) & m)
            if (s->seqs[i].id == id)
                return &s->seqs[i];
    }
    if (!create)
        return NULL;
    if (s->seq_used >= SPLIT_PF_MAX_SEQUENCES) {
        s->st.seq_not_kept++;
        return NULL;
    }
    if ((s->seq_used + 1) * 2 > s->seq_size) {
        size_t nsz = s->seq_size ? s->seq_size * 2 : 16;
        seqst *n = calloc(nsz, sizeof *n);
        if (!n) {
            nomem(s);
            return NULL;
        }
        for (size_t j = 0; j < s->seq_size; j++) {
            if (!s->seqs[j].used)
                continue;
            size_t k = (size_t)mix(s->seqs[j].id) & (nsz - 1);
            while (n[k].used)
                k = (k + 1) & (nsz - 1);
            n[k] = s->seqs[j];
        }
        free(s->seqs);
        s->seqs = n;
        s->seq_size = nsz;
    }
    size_t m = s->seq_size - 1, i = (size_t)mix(id) & m;
    while (s->seqs[i].used)
        i = (i + 1) & m;
    seqst *q = &s->seqs[i];
    memset(q, 0, sizeof *q);
    q->id = id;
    q->used = 1;
    s->seq_used++;
    return q;
}

/* Charges n bytes of state; 0, or 1 when over the limit (counted). */
static int charge(split_perfetto *s, seqst *q, size_t n)
{
    if (s->held + n > SPLIT_PF_MAX_STATE_BYTES) {
        s->st.state_not_kept++;
        return 1;
    }
    s->held += n;
    if (q)
        q->held += n;
    return 0;
}

/* The incremental state cleared: interned entries, defaults, counters. */
static void seq_clear(split_perfetto *s, seqst *q)
{
    s->held -= q->held;
    q->held = 0;
    free(q->tab);
    q->tab = NULL;
    q->tab_size = q->tab_used = 0;
    q->arena.len = 0;
    q->n_ns = 0;
    q->defaults.len = 0;
    q->has_defaults = 0;
    q->n_ctr = 0;
}

static entry *entry_find(const seqst *q, uint32_t ns, uint64_t iid)
{
    if (!q->tab_size)
        return NULL;
    size_t m = q->tab_size - 1, i = (size_t)mix(iid * 131 + ns) & m;
    for (; q->tab[i].ns; i = (i + 1) & m)
        if (q->tab[i].ns == ns && q->tab[i].iid == iid)
            return &q->tab[i];
    return NULL;
}

static int entry_put(split_perfetto *s, seqst *q, uint32_t ns, uint64_t iid,
                     const unsigned char *msg, size_t len)
{
    if (len > UINT32_MAX || charge(s, q, len + sizeof(entry)))
        return 0;
    entry *e = entry_find(q, ns, iid);
    if (!e) {
        if ((q->tab_used + 1) * 2 > q->tab_size) {
            size_t nsz = q->tab_size ? q->tab_size * 2 : 64;
            entry *n = calloc(nsz, sizeof *n);
            if (!n)
                return nomem(s);
            for (size_t j = 0; j < q->tab_size; j++) {
                if (!q->tab[j].ns)
                    continue;
                size_t k = (size_t)mix(q->tab[j].iid * 131 + q->tab[j].ns) & (nsz - 1);
                while (n[k].ns)
                    k = (k + 1) & (nsz - 1);
                n[k] = q->tab[j];
            }
            free(q->tab);
            q->tab = n;
            q->tab_size = nsz;
        }
        size_t m = q->tab_size - 1, i = (size_t)mix(iid * 131 + ns) & m;
        while (q->tab[i].ns)
            i = (i + 1) & m;
        e = &q->tab[i];
        e->ns = ns;
        e->iid = iid;
        q->tab_used++;
        size_t k = 0;
        while (k < q->n_ns && q->ns[k] != ns)
            k++;
        if (k == q->n_ns && q->n_ns < sizeof q->ns / sizeof q->ns[0])
            q->ns[q->n_ns++] = ns;
    }
    e->off = q->arena.len;
    e->len = (uint32_t)len;
    e->piece = s->piece;
    return buf_put(&q->arena, msg, len) ? nomem(s) : 0;
}

/* ---- tracks ----------------------------------------------------------- */

static track *track_find(split_perfetto *s, uint64_t uuid)
{
    if (!s->track_size || !uuid)
        return NULL;
    size_t m = s->track_size - 1, i = (size_t)mix(uuid) & m;
    for (; s->tracks[i].uuid; i = (i + 1) & m)
        if (s->tracks[i].uuid == uuid)
            return &s->tracks[i];
    return NULL;
}

static int track_put(split_perfetto *s, uint32_t seq, const unsigned char *msg, size_t len)
{
    /* whether the whole file's decoder resolved its parent: its event has
     * the parent's pid (else, whether the parent was described) */
    int resolved = -1;
    if (s->own_desc_seen)
        resolved = s->own_desc_pid;
    rd r;
    fld f;
    int rc;
    uint64_t uuid = 0, parent = 0;
    int incr = 0;
    rd_init(&r, msg, len);
    while ((rc = rd_next(&r, &f)) > 0) {
        if (f.num == 1 && f.wire == 0)
            uuid = f.v;
        else if (f.num == 5 && f.wire == 0)
            parent = f.v;
        else if (f.num == 8 && f.wire == 2) {
            rd c;
            fld g;
            rd_init(&c, f.data, f.len);
            while (rd_next(&c, &g) > 0)
                if (g.num == 5 && g.wire == 0)
                    incr = g.v != 0;
        }
    }
    if (rc < 0 || !uuid)
        return 0; /* the decoder warns; nothing to repeat */
    track *t = track_find(s, uuid);
    if (!t) {
        if (s->track_used >= SPLIT_PF_MAX_TRACKS) {
            s->st.tracks_not_kept++;
            return 0;
        }
        if ((s->track_used + 1) * 2 > s->track_size) {
            size_t nsz = s->track_size ? s->track_size * 2 : 64;
            track *n = calloc(nsz, sizeof *n);
            if (!n)
                return nomem(s);
            for (size_t j = 0; j < s->track_size; j++) {
                if (!s->tracks[j].uuid)
                    continue;
                size_t k = (size_t)mix(s->tracks[j].uuid) & (nsz - 1);
                while (n[k].uuid)
                    k = (k + 1) & (nsz - 1);
                n[k] = s->tracks[j];
            }
            free(s->tracks);
            s->tracks = n;
            s->track_size = nsz;
        }
        size_t m = s->track_size - 1, i = (size_t)mix(uuid) & m;
        while (s->tracks[i].uuid)
            i = (i + 1) & m;
        t = &s->tracks[i];
        t->uuid = uuid;
        s->track_used++;
    } else if (t->len == len && memcmp(s->tracks_arena.p + t->off, msg, len) == 0) {
        t->parent_known = resolved >= 0 ? resolved : track_find(s, parent) != NULL;
        t->seq = seq;
        t->piece = s->piece;
        return 0;
    }
    t->parent_known = resolved >= 0 ? resolved : track_find(s, parent) != NULL;
    t->parent = parent;
    t->incremental = incr;
    t->seq = seq;
    t->piece = s->piece;
    if (t->len >= len) { /* in place: a renamed track does not grow the arena */
        memcpy(s->tracks_arena.p + t->off, msg, len);
        t->len = len;
        return 0;
    }
    if (charge(s, NULL, len)) {
        t->len = 0; /* its old bytes are stale: not repeated */
        return 0;
    }
    t->off = s->tracks_arena.len;
    t->len = len;
    return buf_put(&s->tracks_arena, msg, len) ? nomem(s) : 0;
}

/* ---- interned references ---------------------------------------------- */

/* Fields that refer to interned entries, and the InternedData field (the
 * namespace) they refer to. A field named *_iid or *_iids not listed here
 * is an unknown reference: every namespace's entry of that iid is taken. */
typedef struct ref_field {
    const char *type, *field;
    uint32_t ns;
} ref_field;

#define P "perfetto.protos."
static const ref_field ref_fields[] = {
    {P "TrackEvent", "name_iid", 2},
    {P "TrackEvent", "category_iids", 1},
    {P "TrackEvent", "source_location_iid", 4},
    {P "TrackEvent", "correlation_id_str_iid", 43},
    {P "TrackEvent", "callstack_iid", 7},
    {P "TrackEvent.LegacyEvent", "name_iid", 2},
    {P "DebugAnnotation", "name_iid", 3},
    {P "DebugAnnotation", "string_value_iid", 29},
    {P "DebugAnnotation", "proto_type_name_iid", 27},
    {P "LogMessage", "source_location_iid", 4},
    {P "LogMessage", "body_iid", 20},
    {P "TaskExecution", "posted_from_iid", 4},
    {P "ChromeHistogramSample", "name_iid", 25},
    {P "ChromeMessagePump", "io_handler_location_iid", 4},
    {P "ChromeTaskPostedToDisabledQueue", "source_location_iid", 4},
    {P "ChromeMemoryPressureNotification", "creation_location_iid", 4},
    {P "BeginFrameArgs", "source_location_iid", 4},
    {P "BeginFrameArgsV2", "source_location_iid", 4},
    {P "PerfSample", "callstack_iid", 7},
    {P "StreamingProfilePacket", "callstack_iid", 7},
    {P "StackWalkEtwEvent", "callstack_iid", 7},
    {P "Callstack", "frame_ids", 6},
    {P "Frame", "function_name_id", 5},
    {P "Frame", "mapping_id", 19},
    {P "Frame", "source_path_iid", 18},
    {P "Mapping", "build_id", 16},
    {P "Mapping", "path_string_ids", 17},
    {P "ProfiledFrameSymbols", "frame_iid", 6},
    {P "ProfiledFrameSymbols", "function_name_id", 5},
    {P "ProfiledFrameSymbols", "file_name_id", 18},
    {P "InternedV8JsFunction", "v8_js_function_name_iid", 31},
    {P "InternedV8JsFunction", "v8_js_script_iid", 33},
    {P "V8JsCode", "v8_isolate_iid", 35},
    {P "V8JsCode", "v8_js_function_iid", 32},
    {P "V8InternalCode", "v8_isolate_iid", 35},
    {P "V8RegExpCode", "v8_isolate_iid", 35},
    {P "V8WasmCode", "v8_isolate_iid", 35},
    {P "V8WasmCode", "v8_wasm_script_iid", 34},
    {P "V8CodeMove", "isolate_iid", 35},
    {P "GpuCounterEvent", "counter_descriptor_iid", 47},
    {P "StackSample", "task_context_iid", 48},
    {P "StackSample", "execution_context_iid", 49},
    {P "StackSample", "callstack_iid", 7},
    {P "StackSample", "primary_descriptor_iid", 51},
    {P "StackSample", "follower_descriptor_iids", 51},
    {P "StackSample.AsyncContextDescriptor", "parent_iid", 51},
    {P "NetworkPacketBundle", "iid", 30},
    {"android.net.connectivity.tracing.NetworkPacketBundle", "iid", 30},
    {P "ProtoLogMessage", "str_param_iids", 36},
    {P "ProtoLogMessage", "stacktrace_iid", 37},
    {"com.android.internal.ProtoLogMessage", "str_param_iids", 36},
    {"com.android.internal.ProtoLogMessage", "stacktrace_iid", 37},
    {P "ViewCapture", "package_name_iid", 38},
    {P "ViewCapture", "window_name_iid", 39},
    {P "ViewCapture.View", "view_id_iid", 40},
    {P "ViewCapture.View", "class_name_iid", 41},
    {"com.android.internal.ViewCapture", "package_name_iid", 38},
    {"com.android.internal.ViewCapture", "window_name_iid", 39},
    {"com.android.internal.ViewCapture.View", "view_id_iid", 40},
    {"com.android.internal.ViewCapture.View", "class_name_iid", 41},
    {"com.android.internal.ViewCapture.View", "content_description_iid", 45},
    {"com.android.internal.ViewCapture.View", "text_iid", 46},
    {"com.android.internal.AndroidJobSchedulerJob", "job_name_iid", 44},
};
#undef P

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && memcmp(s + a - b, suf, b) == 0;
}

/* The namespace a field refers to: >0, 0 for an unknown reference, -1
 * for a field that refers to none. */
static int ref_ns(const tread_perfetto_msgtype *t, const char *field)
{
    const char *tn = t ? tread_perfetto_msgtype_name(t) : "";
    for (size_t i = 0; i < sizeof ref_fields / sizeof ref_fields[0]; i++)
        if (strcmp(ref_fields[i].field, field) == 0 && strcmp(ref_fields[i].type, tn) == 0)
            return (int)ref_fields[i].ns;
    if (ends_with(field, "_iid") || ends_with(field, "_iids"))
        return 0;
    return -1;
}

static void add_ref(split_perfetto *s, uint32_t ns, uint64_t iid)
{
    for (size_t i = 0; i < s->n_refs; i++)
        if (s->refs[i].ns == ns && s->refs[i].iid == iid)
            return;
    if (s->n_refs >= SPLIT_PF_MAX_REFS) {
        s->st.refs_not_kept++;
        return;
    }
    if (s->n_refs == s->refs_cap) {
        size_t n = s->refs_cap ? s->refs_cap * 2 : 64;
        ref *r = realloc(s->refs, n * sizeof *r);
        if (!r) {
            nomem(s);
            return;
        }
        s->refs = r;
        s->refs_cap = n;
    }
    s->refs[s->n_refs].ns = ns;
    s->refs[s->n_refs].iid = iid;
    s->n_refs++;
}

/* The walk: every reference of the message to interned entries. */
static int walk_refs(void *user, const tread_perfetto_field *f)
{
    split_perfetto *s = user;
    int d = f->depth;
    if (d < 0 || d > TREAD_PF_WALK_DEFAULT_MAX_DEPTH)
        return 0;
    if (f->step == TREAD_PF_MESSAGE_BEGIN) {
        /* definitions, not references; and the bulky payloads that refer
         * to nothing interned on the sequence */
        if (d == 0 && s->walk_stack[0] == s->t_packet &&
            (f->number == F_INTERNED || f->number == F_DEFAULTS || f->number == 1 /* ftrace */ ||
             f->number == F_CLOCK_SNAPSHOT || f->number == F_TRACK_DESC))
            return TREAD_PF_WALK_SKIP;
        s->walk_stack[d + 1] = f->msgtype;
        return 0;
    }
    if (f->step != TREAD_PF_FIELD || !f->name)
        return 0;
    if (f->type == TREAD_PF_TYPE_STRING || f->type == TREAD_PF_TYPE_BYTES ||
        f->type == TREAD_PF_TYPE_DOUBLE || f->type == TREAD_PF_TYPE_FLOAT)
        return 0;
    int ns = ref_ns(s->walk_stack[d], f->name);
    if (ns < 0)
        return 0;
    if (ns == 0)
        s->st.unknown_refs++;
    add_ref(s, (uint32_t)ns, f->v.u);
    return 0;
}

/* 0, or -1 when the message does not walk to its end (malformed, or
 * nested too deep): the decoder, which reads fields one by one, may still
 * have read references after the point where the walk stopped. */
static int collect_refs(split_perfetto *s, const tread_perfetto_msgtype *t,
                        const unsigned char *p, size_t n)
{
    if (!t)
        return 0;
    s->walk_stack[0] = t;
    return tread_perfetto_walk(t, p, n, 0, walk_refs, s, NULL) < 0 ? -1 : 0;
}

static const tread_perfetto_msgtype *entry_type(const split_perfetto *s, uint32_t ns)
{
    switch (ns) {
    case 6: return s->t_frame;
    case 7: return s->t_callstack;
    case 19: return s->t_mapping;
    case 21: return s->t_symbols;
    case 32: return s->t_v8fn;
    case 51: return s->t_asyncdesc;
    default: return NULL;
    }
}

/* The interned entries the packet defines itself (it interns them before
 * its own references are resolved). */
static void collect_own(split_perfetto *s, const unsigned char *p, size_t n)
{
    rd r;
    fld f;
    rd_init(&r, p, n);
    while (rd_next(&r, &f) > 0) {
        if (f.wire != 2)
            continue;
        rd e;
        fld g;
        rd_init(&e, f.data, f.len);
        while (rd_next(&e, &g) > 0) {
            if (g.num != 1 || g.wire != 0)
                continue;
            if (s->n_own < sizeof s->own / sizeof s->own[0]) {
                s->own[s->n_own].ns = f.num;
                s->own[s->n_own].iid = g.v;
                s->n_own++;
            } else {
                s->own_overflow = 1;
            }
        }
    }
}

static int is_own(const split_perfetto *s, uint32_t ns, uint64_t iid)
{
    if (s->own_overflow)
        return 0; /* an entry given again is harmless */
    for (size_t i = 0; i < s->n_own; i++)
        if (s->own[i].iid == iid && (ns == 0 || s->own[i].ns == ns))
            return 1;
    return 0;
}

/* Appends to tmp the InternedData fields of the entries referenced (and
 * what they reference) that the piece lacks; all = the piece has none of
 * the sequence's entries. Marks them held by the piece. */
static void missing_entries(split_perfetto *s, seqst *q, int all, int every)
{
    if (every) { /* the packet's references are not all known: all entries */
        for (size_t i = 0; i < q->tab_size; i++) {
            entry *e = &q->tab[i];
            if (!e->ns || (!all && e->piece == s->piece) || is_own(s, e->ns, e->iid))
                continue;
            e->piece = s->piece;
            if (buf_lenfield(&s->tmp, e->ns, q->arena.p + e->off, e->len)) {
                nomem(s);
                return;
            }
        }
        return;
    }
    for (size_t i = 0; i < s->n_refs; i++) { /* n_refs grows: transitive */
        ref r = s->refs[i];
        for (size_t k = 0; k < (r.ns ? 1 : q->n_ns); k++) {
            uint32_t ns = r.ns ? r.ns : q->ns[k];
            if (is_own(s, ns, r.iid))
                continue;
            entry *e = entry_find(q, ns, r.iid);
            if (!e || (!all && e->piece == s->piece))
                continue;
            e->piece = s->piece;
            if (buf_lenfield(&s->tmp, ns, q->arena.p + e->off, e->len)) {
                nomem(s);
                return;
            }
            const tread_perfetto_msgtype *t = entry_type(s, ns);
            if (t) {
                /* the walk may move q->arena: no pointer into it is kept */
                (void)collect_refs(s, t, q->arena.p + e->off, e->len);
            }
        }
    }
}

/* ---- clocks ----------------------------------------------------------- */

static seq_clock *seq_clock_get(split_perfetto *s, seqst *q, uint32_t id, int create)
{
    for (size_t i = 0; i < q->n_clk; i++)
        if (q->clk[i].id == id)
            return &q->clk[i];
    if (!create)
        return NULL;
    if (q->n_clk >= SPLIT_PF_MAX_SEQ_CLOCKS) {
        s->st.clocks_not_kept++;
        return NULL;
    }
    if (!q->clk) {
        q->clk = calloc(SPLIT_PF_MAX_SEQ_CLOCKS, sizeof *q->clk);
        if (!q->clk) {
            nomem(s);
            return NULL;
        }
    }
    seq_clock *c = &q->clk[q->n_clk++];
    memset(c, 0, sizeof *c);
    c->id = id;
    c->unit = 1;
    return c;
}

static int seq_scoped(uint64_t id)
{
    return id >= 64 && id <= 127;
}

/* A ClockSnapshot seen on q (not dropped): kept as the global snapshots
 * in force, or as q's, its incremental clocks reset to their values. */
static int note_snapshot(split_perfetto *s, seqst *q, uint32_t seq, const unsigned char *m,
                         size_t n)
{
    rd r, c;
    fld f, g;
    int scoped = 0;
    rd_init(&r, m, n);
    while (rd_next(&r, &f) > 0) {
        if (f.num != 1 || f.wire != 2)
            continue;
        uint64_t id = 0, ts = 0, unit = 1;
        int incr = 0;
        rd_init(&c, f.data, f.len);
        while (rd_next(&c, &g) > 0) {
            if (g.wire != 0)
                continue;
            if (g.num == 1)
                id = g.v;
            else if (g.num == 2)
                ts = g.v;
            else if (g.num == 3)
                incr = g.v != 0;
            else if (g.num == 4)
                unit = g.v ? g.v : 1;
        }
        if (!seq_scoped(id) || !q)
            continue;
        scoped = 1;
        seq_clock *k = seq_clock_get(s, q, (uint32_t)id, 1);
        if (!k)
            continue;
        k->incremental = incr;
        k->unit = unit;
        k->base = (int64_t)ts;
        k->running = (int64_t)ts;
        k->snap.len = 0;
        if (buf_put(&k->snap, m, n))
            return nomem(s);
    }
    if (scoped)
        return 0;
    /* a global snapshot: the latest SPLIT_PF_CLOCK_SNAPSHOTS are kept */
    saved *sv;
    if (s->n_snaps < SPLIT_PF_CLOCK_SNAPSHOTS) {
        sv = &s->snaps[(s->snap_head + s->n_snaps++) % SPLIT_PF_CLOCK_SNAPSHOTS];
    } else {
        sv = &s->snaps[s->snap_head];
        s->snap_head = (s->snap_head + 1) % SPLIT_PF_CLOCK_SNAPSHOTS;
    }
    sv->seq = seq;
    sv->msg.len = 0;
    return buf_put(&sv->msg, m, n) ? nomem(s) : 0;
}

/* q's snapshot again, with each incremental clock moved to its running
 * value (and the other clocks of the snapshot moved as far, so the
 * conversion stays the same), as packets appended to out. */
static int put_packet_begin(buf *out, size_t *mark)
{
    /* Trace.packet with a 5-byte length patched by put_packet_end */
    static const unsigned char hdr[6] = {0x0a, 0x80, 0x80, 0x80, 0x80, 0x00};
    *mark = out->len;
    return buf_put(out, hdr, sizeof hdr);
}

static void put_packet_end(buf *out, size_t mark)
{
    size_t n = out->len - mark - 6;
    unsigned char *p = out->p + mark + 1;
    for (int i = 0; i < 5; i++) {
        p[i] = (unsigned char)((n & 0x7f) | (i < 4 ? 0x80 : 0));
        n >>= 7;
    }
}

static int seq_snapshots(split_perfetto *s, seqst *q, buf *out)
{
    size_t mark;
    /* each clock's last snapshot, once */
    for (size_t i = 0; i < q->n_clk; i++) {
        buf *b = &q->clk[i].snap;
        int dup = 0;
        for (size_t j = 0; j < i && !dup; j++)
            dup = q->clk[j].snap.len == b->len && memcmp(q->clk[j].snap.p, b->p, b->len) == 0;
        if (dup || !b->len)
            continue;
        if (put_packet_begin(out, &mark) || buf_tag(out, F_SEQ_ID, 0) ||
            buf_varint(out, q->id) || buf_lenfield(out, F_CLOCK_SNAPSHOT, b->p, b->len))
            return nomem(s);
        put_packet_end(out, mark);
    }
    for (size_t i = 0; i < q->n_clk; i++) {
        seq_clock *k = &q->clk[i];
        if (!k->incremental || k->running == k->base || !k->snap.len)
            continue;
        /* (running - base) in ns: how far every clock of the snapshot moves */
        __int128 shift = (__int128)(k->running - k->base) * (__int128)k->unit;
        s->tmp2.len = 0;
        rd r, c;
        fld f, g;
        rd_init(&r, k->snap.p, k->snap.len);
        while (rd_next(&r, &f) > 0) {
            if (f.num != 1 || f.wire != 2) {
                if (f.num == 2 && f.wire == 0) /* primary_trace_clock: as it was */
                    buf_tag(&s->tmp2, 2, 0), buf_varint(&s->tmp2, f.v);
                continue;
            }
            uint64_t id = 0, ts = 0, unit = 1;
            int incr = 0;
            rd_init(&c, f.data, f.len);
            while (rd_next(&c, &g) > 0) {
                if (g.wire != 0)
                    continue;
                if (g.num == 1)
                    id = g.v;
                else if (g.num == 2)
                    ts = g.v;
                else if (g.num == 3)
                    incr = g.v != 0;
                else if (g.num == 4)
                    unit = g.v ? g.v : 1;
            }
            if (seq_scoped(id) && id != k->id)
                continue; /* another sequence clock: its own packet */
            int64_t v;
            if (id == k->id) {
                v = k->running;
            } else {
                if (shift % (__int128)unit)
                    s->st.clock_shift_inexact++;
                v = (int64_t)((__int128)(int64_t)ts + shift / (__int128)unit);
            }
            s->tmp.len = 0;
            buf_tag(&s->tmp, 1, 0), buf_varint(&s->tmp, id);
            buf_tag(&s->tmp, 2, 0), buf_varint(&s->tmp, (uint64_t)v);
            if (incr)
                buf_tag(&s->tmp, 3, 0), buf_varint(&s->tmp, 1);
            if (unit != 1)
                buf_tag(&s->tmp, 4, 0), buf_varint(&s->tmp, unit);
            if (buf_lenfield(&s->tmp2, 1, s->tmp.p, s->tmp.len))
                return nomem(s);
        }
        if (put_packet_begin(out, &mark) || buf_tag(out, F_SEQ_ID, 0) ||
            buf_varint(out, q->id) || buf_lenfield(out, F_CLOCK_SNAPSHOT, s->tmp2.p, s->tmp2.len))
            return nomem(s);
        put_packet_end(out, mark);
    }
    return 0;
}

/* ---- incremental counters --------------------------------------------- */

static counter *counter_get(split_perfetto *s, seqst *q, uint64_t uuid)
{
    for (size_t i = 0; i < q->n_ctr; i++)
        if (q->ctr[i].uuid == uuid)
            return &q->ctr[i];
    if (q->n_ctr >= SPLIT_PF_MAX_COUNTERS) {
        s->st.counters_not_kept++;
        return NULL;
    }
    if (!q->ctr) {
        q->ctr = calloc(SPLIT_PF_MAX_COUNTERS, sizeof *q->ctr);
        if (!q->ctr) {
            nomem(s);
            return NULL;
        }
    }
    counter *c = &q->ctr[q->n_ctr++];
    memset(c, 0, sizeof *c);
    c->uuid = uuid;
    c->piece = s->piece; /* a new value starts at 0 in both decoders */
    return c;
}

/* The counter values of a TrackEvent: the main one (counter_value or
 * double_counter_value, on its track) and the extra ones (on the event's
 * or the defaults' extra track uuids, in order), each with the running
 * value of its track when that track is incremental. */
#define TE_MAX_VALUES 64 /* the decoder's PF_MAX_EXTRA_COUNTERS */
typedef struct te_value {
    int is_double;
    int64_t iv;
    double dv;
    counter *ctr;              /* the incremental track's value, or NULL */
} te_value;

typedef struct te_counter {
    int has_main;
    te_value main;
    te_value xi[TE_MAX_VALUES], xd[TE_MAX_VALUES]; /* extra int / double values */
    size_t n_xi, n_xd;
} te_counter;

/* A repeated uint64/int64 field, packed or not, appended to v[*n]. */
static void read_repeated(const fld *f, uint64_t *v, size_t *n, int fixed)
{
    if (f->wire != 2) {
        if (*n < TE_MAX_VALUES)
            v[(*n)++] = f->v;
        return;
    }
    rd p;
    rd_init(&p, f->data, f->len);
    while (p.p < p.end && *n < TE_MAX_VALUES) {
        uint64_t x = 0;
        if (fixed) {
            if (p.end - p.p < 8)
                return;
            for (int i = 7; i >= 0; i--)
                x = (x << 8) | p.p[i];
            p.p += 8;
        } else if (rd_varint(&p, &x)) {
            return;
        }
        v[(*n)++] = x;
    }
}

static counter *incremental(split_perfetto *s, seqst *q, uint64_t uuid)
{
    track *t = track_find(s, uuid);
    return t && t->incremental ? counter_get(s, q, uuid) : NULL;
}

static void read_counter(split_perfetto *s, seqst *q, const unsigned char *te, size_t n,
                         te_counter *tc)
{
    rd r;
    fld f;
    uint64_t xi[TE_MAX_VALUES], xd[TE_MAX_VALUES], ui[TE_MAX_VALUES], ud[TE_MAX_VALUES];
    size_t n_ui = 0, n_ud = 0;
    int has_ui = 0, has_ud = 0, has_uuid = 0;
    uint64_t uuid = 0;
    memset(tc, 0, sizeof *tc);
    rd_init(&r, te, n);
    while (rd_next(&r, &f) > 0) {
        if (f.num == 30 && f.wire == 0) {
            tc->has_main = 1, tc->main.is_double = 0, tc->main.iv = (int64_t)f.v;
        } else if (f.num == 44 && f.wire == 1) {
            tc->has_main = 1, tc->main.is_double = 1;
            memcpy(&tc->main.dv, &f.v, sizeof tc->main.dv);
        } else if (f.num == 11 && f.wire == 0) {
            has_uuid = 1, uuid = f.v;
        } else if (f.num == 12) {
            read_repeated(&f, xi, &tc->n_xi, 0);
        } else if (f.num == 46) {
            read_repeated(&f, xd, &tc->n_xd, f.wire == 2);
        } else if (f.num == 31) {
            has_ui = 1;
            read_repeated(&f, ui, &n_ui, 0);
        } else if (f.num == 45) {
            has_ud = 1;
            read_repeated(&f, ud, &n_ud, 0);
        }
    }
    if (q->has_defaults) {
        /* TracePacketDefaults.track_event_defaults */
        rd d, e;
        fld g, h;
        rd_init(&d, q->defaults.p, q->defaults.len);
        while (rd_next(&d, &g) > 0) {
            if (g.num != 11 || g.wire != 2)
                continue;
            rd_init(&e, g.data, g.len);
            while (rd_next(&e, &h) > 0) {
                if (h.num == 11 && h.wire == 0 && !has_uuid)
                    has_uuid = 1, uuid = h.v;
                else if (h.num == 31 && !has_ui)
                    read_repeated(&h, ui, &n_ui, 0);
                else if (h.num == 45 && !has_ud)
                    read_repeated(&h, ud, &n_ud, 0);
            }
        }
    }
    if (tc->has_main && has_uuid)
        tc->main.ctr = incremental(s, q, uuid);
    for (size_t i = 0; i < tc->n_xi; i++) {
        tc->xi[i].iv = (int64_t)xi[i];
        tc->xi[i].ctr = i < n_ui ? incremental(s, q, ui[i]) : NULL;
    }
    for (size_t i = 0; i < tc->n_xd; i++) {
        tc->xd[i].is_double = 1;
        memcpy(&tc->xd[i].dv, &xd[i], sizeof(double));
        tc->xd[i].ctr = i < n_ud ? incremental(s, q, ud[i]) : NULL;
    }
}

/* The value to write for v in the current piece: the running value plus
 * v when the piece's decoder lacks the running value (1), else v (0). */
static int piece_value(const split_perfetto *s, const te_value *v, te_value *out)
{
    *out = *v;
    const counter *c = v->ctr;
    if (!c || c->piece == s->piece || (v->is_double ? c->dval == 0 : c->ival == 0))
        return 0;
    if (v->is_double)
        out->dv = c->dval + v->dv;
    else
        out->iv = (int64_t)((uint64_t)c->ival + (uint64_t)v->iv);
    return 1;
}

static void advance(split_perfetto *s, te_value *v)
{
    if (!v->ctr)
        return;
    v->ctr->ival = (int64_t)((uint64_t)v->ctr->ival + (uint64_t)v->iv);
    v->ctr->dval += v->dv;
    v->ctr->piece = s->piece;
}

static int put_double(buf *b, double d)
{
    uint64_t bits;
    unsigned char t[8];
    memcpy(&bits, &d, sizeof bits);
    for (int i = 0; i < 8; i++)
        t[i] = (unsigned char)(bits >> (8 * i));
    return buf_put(b, t, 8);
}

/* A copy of the packet with its TrackEvent's counter values as the piece
 * needs them, into out; 0 when none needs rewriting (out untouched). */
static int rewrite_counters(split_perfetto *s, const unsigned char *p, size_t n,
                            const te_counter *tc, buf *out)
{
    te_value m, xi[TE_MAX_VALUES], xd[TE_MAX_VALUES];
    int any = tc->has_main && piece_value(s, &tc->main, &m);
    for (size_t i = 0; i < tc->n_xi; i++)
        any |= piece_value(s, &tc->xi[i], &xi[i]);
    for (size_t i = 0; i < tc->n_xd; i++)
        any |= piece_value(s, &tc->xd[i], &xd[i]);
    if (!any)
        return 0;
    rd r, e;
    fld f, g;
    rd_init(&r, p, n);
    out->len = 0;
    while (rd_next(&r, &f) > 0) {
        if (f.num != F_TRACK_EVENT || f.wire != 2) {
            if (buf_put(out, f.start, (size_t)(r.p - f.start)))
                return nomem(s);
            continue;
        }
        s->tmp2.len = 0;
        rd_init(&e, f.data, f.len);
        while (rd_next(&e, &g) > 0)
            if (!((g.num == 30 && g.wire == 0) || (g.num == 44 && g.wire == 1) || g.num == 12 ||
                  g.num == 46) &&
                buf_put(&s->tmp2, g.start, (size_t)(e.p - g.start)))
                return nomem(s);
        buf *t = &s->tmp2;
        if (tc->has_main && m.is_double && (buf_tag(t, 44, 1) || put_double(t, m.dv)))
            return nomem(s);
        if (tc->has_main && !m.is_double && (buf_tag(t, 30, 0) || buf_varint(t, (uint64_t)m.iv)))
            return nomem(s);
        if (tc->n_xi) {
            size_t len = 0;
            for (size_t i = 0; i < tc->n_xi; i++)
                len += varint_size((uint64_t)xi[i].iv);
            if (buf_tag(t, 12, 2) || buf_varint(t, len))
                return nomem(s);
            for (size_t i = 0; i < tc->n_xi; i++)
                if (buf_varint(t, (uint64_t)xi[i].iv))
                    return nomem(s);
        }
        if (tc->n_xd) {
            if (buf_tag(t, 46, 2) || buf_varint(t, 8 * tc->n_xd))
                return nomem(s);
            for (size_t i = 0; i < tc->n_xd; i++)
                if (put_double(t, xd[i].dv))
                    return nomem(s);
        }
        if (buf_lenfield(out, F_TRACK_EVENT, s->tmp2.p, s->tmp2.len))
            return nomem(s);
    }
    return 1;
}

/* ---- trace-level packets ---------------------------------------------- */

static int note_trace_packet(split_perfetto *s, uint32_t field, uint32_t seq,
                             const unsigned char *m, size_t n)
{
    for (size_t i = 0; i < s->n_trace; i++)
        if (s->trace_pk[i].field == field && s->trace_pk[i].msg.len == n &&
            memcmp(s->trace_pk[i].msg.p, m, n) == 0)
            return 0;
    if (n > SPLIT_PF_MAX_TRACE_PACKET_BYTES || s->n_trace >= SPLIT_PF_MAX_TRACE_PACKETS ||
        s->trace_bytes + n > SPLIT_PF_MAX_TRACE_BYTES) {
        s->st.trace_not_kept++;
        return 0;
    }
    saved *sv = &s->trace_pk[s->n_trace++];
    sv->field = field;
    sv->seq = seq;
    sv->msg.len = 0;
    s->trace_bytes += n;
    return buf_put(&sv->msg, m, n) ? nomem(s) : 0;
}

/* ---- pieces ----------------------------------------------------------- */

static int pieces_fail(split_perfetto *s)
{
    const char *e = split_pieces_error(s->sp);
    return fail(s, e && *e ? e : "split: cannot write a piece");
}

/* A saved message as a packet {seq, field: msg}. */
static int put_saved(buf *out, const saved *sv)
{
    size_t mark;
    if (put_packet_begin(out, &mark))
        return -1;
    if (sv->seq && (buf_tag(out, F_SEQ_ID, 0) || buf_varint(out, sv->seq)))
        return -1;
    if (buf_lenfield(out, sv->field, sv->msg.p, sv->msg.len))
        return -1;
    put_packet_end(out, mark);
    return 0;
}

/* What every piece starts with: the global clock snapshots in force, then
 * the trace-level packets. */
static int piece_header(split_perfetto *s, buf *out)
{
    for (size_t i = 0; i < s->n_snaps; i++) {
        saved *sv = &s->snaps[(s->snap_head + i) % SPLIT_PF_CLOCK_SNAPSHOTS];
        sv->field = F_CLOCK_SNAPSHOT;
        if (put_saved(out, sv))
            return nomem(s);
    }
    for (size_t i = 0; i < s->n_trace; i++)
        if (put_saved(out, &s->trace_pk[i]))
            return nomem(s);
    return 0;
}

/* Track t's descriptor, if the piece lacks it, with its parents: in the
 * order the whole file had them when t was last described (a track
 * described before its parent has no pid from it, there and here). */
static int put_track(split_perfetto *s, track *t, int depth)
{
    if (!t || t->piece == s->piece || depth >= SPLIT_PF_MAX_PARENT_DEPTH)
        return 0;
    t->piece = s->piece; /* (also ends a cycle) */
    track *parent = track_find(s, t->parent);
    if (t->parent_known && put_track(s, parent, depth + 1))
        return -1;
    if (t->len) {
        buf *out = &s->out;
        size_t mark;
        if (put_packet_begin(out, &mark) ||
            (t->seq && (buf_tag(out, F_SEQ_ID, 0) || buf_varint(out, t->seq))) ||
            buf_lenfield(out, F_TRACK_DESC, s->tracks_arena.p + t->off, t->len))
            return nomem(s);
        put_packet_end(out, mark);
    }
    return t->parent_known ? 0 : put_track(s, parent, depth + 1);
}

/* The state packets the held packet needs in the current piece, into
 * s->out (s->piece must be the piece they are for). Marks what they give
 * as held by the piece. */
static int needs(split_perfetto *s, seqst *qv, seqst *q, const unsigned char *interned,
                 size_t interned_len, int clears)
{
    buf *out = &s->out;
    int fresh = q && q->piece != s->piece;
    /* the sequence's thread and clocks (not incremental state: given
     * whatever the state's validity) */
    if (fresh) {
        if (q->thread.len) {
            size_t mark;
            if (put_packet_begin(out, &mark) || buf_tag(out, F_SEQ_ID, 0) ||
                buf_varint(out, q->id) ||
                buf_lenfield(out, F_THREAD_DESC, q->thread.p, q->thread.len))
                return nomem(s);
            put_packet_end(out, mark);
        }
        if (seq_snapshots(s, q, out))
            return -1;
        /* defaults outlive data loss: an invalid sequence has them too */
        if (!qv && q->has_defaults) {
            size_t mark;
            if (put_packet_begin(out, &mark) || buf_tag(out, F_SEQ_ID, 0) ||
                buf_varint(out, q->id) ||
                buf_lenfield(out, F_DEFAULTS, q->defaults.p, q->defaults.len))
                return nomem(s);
            put_packet_end(out, mark);
        }
    }
    /* its incremental state: cleared, with the defaults and the interned
     * entries referenced, when the whole file's is valid (a packet that
     * clears it itself needs none) */
    s->n_refs = 0;
    s->n_own = 0;
    s->own_overflow = 0;
    if (qv && !clears) {
        int every = collect_refs(s, s->t_packet, s->cur.p, s->cur.len) < 0;
        s->st.unwalkable_packets += (uint64_t)every;
        if (interned)
            collect_own(s, interned, interned_len);
        s->tmp.len = 0;
        if (fresh)
            for (size_t i = 0; i < qv->tab_size; i++)
                if (qv->tab[i].ns)
                    qv->tab[i].piece = 0; /* the piece's sequence starts empty */
        missing_entries(s, qv, fresh, every);
        if (s->failed)
            return -1;
        if (fresh || s->tmp.len) {
            size_t mark;
            if (put_packet_begin(out, &mark) || buf_tag(out, F_SEQ_ID, 0) ||
                buf_varint(out, qv->id))
                return nomem(s);
            if (fresh && (buf_tag(out, F_FLAGS, 0) || buf_varint(out, SEQ_CLEARED)))
                return nomem(s);
            if (fresh && qv->has_defaults &&
                buf_lenfield(out, F_DEFAULTS, qv->defaults.p, qv->defaults.len))
                return nomem(s);
            if (s->tmp.len && buf_lenfield(out, F_INTERNED, s->tmp.p, s->tmp.len))
                return nomem(s);
            put_packet_end(out, mark);
        }
    }
    /* the tracks its events are on, and their parents */
    for (size_t i = 0; i < s->n_used; i++)
        if (s->used_tracks[i] != s->own_track && /* (the packet describes it) */
            put_track(s, track_find(s, s->used_tracks[i]), 0))
            return -1;
    return 0;
}

static int begin_piece(split_perfetto *s)
{
    if (split_pieces_begin(s->sp))
        return pieces_fail(s);
    s->piece++;
    s->piece_originals = 0;
    s->out.len = 0;
    if (piece_header(s, &s->out))
        return -1;
    if (s->out.len && split_pieces_write(s->sp, s->out.p, s->out.len))
        return pieces_fail(s);
    s->st.state_bytes += s->out.len;
    s->out.len = 0;
    return 0;
}

/* ---- one packet ------------------------------------------------------- */

static int frame_size(size_t n)
{
    return (int)(1 + varint_size(n));
}

/* Writes the packet held, after what it needs; then moves the copy of the
 * state on as the whole file's decoder did. */
static int write_held(split_perfetto *s)
{
    const tread_perfetto_packet *pk = &s->pk;
    const unsigned char *p = s->cur.p;
    size_t n = s->cur.len;
    rd r;
    fld f;
    int has_seq_field = 0, has_ts = 0;
    uint64_t ts = 0;
    const unsigned char *interned = NULL, *defaults = NULL, *snap = NULL, *tdesc = NULL;
    const unsigned char *thdesc = NULL, *te = NULL, *tl = NULL;
    size_t interned_len = 0, defaults_len = 0, snap_len = 0, tdesc_len = 0, thdesc_len = 0;
    size_t te_len = 0, tl_len = 0;
    int has_defaults = 0;
    uint32_t tl_field = 0;
    rd_init(&r, p, n);
    /* (a field that does not decode ends the reading: the decoder did not
     * deliver such a packet, so this is never short of what it read) */
    while (rd_next(&r, &f) > 0) {
        if (f.wire == 0) {
            if (f.num == F_SEQ_ID)
                has_seq_field = 1;
            else if (f.num == F_TIMESTAMP)
                has_ts = 1, ts = f.v;
            continue;
        }
        if (f.wire != 2)
            continue;
        switch (f.num) {
        case F_INTERNED: interned = f.data, interned_len = f.len; break;
        case F_DEFAULTS: has_defaults = 1, defaults = f.data, defaults_len = f.len; break;
        case F_CLOCK_SNAPSHOT: snap = f.data, snap_len = f.len; break;
        case F_TRACK_DESC: tdesc = f.data, tdesc_len = f.len; break;
        case F_THREAD_DESC: thdesc = f.data, thdesc_len = f.len; break;
        case F_TRACK_EVENT: te = f.data, te_len = f.len; break;
        default:
            if (trace_level(f.num))
                tl = f.data, tl_len = f.len, tl_field = f.num;
            break;
        }
    }
    int clears = (pk->state & TREAD_PF_STATE_CLEARED) != 0;
    int dropped = (pk->state & TREAD_PF_STATE_DROPPED) != 0;
    int valid_after = (pk->state & TREAD_PF_STATE_VALID) != 0;

    seqst *q = seq_find(s, pk->seq_id, 1);
    if (s->failed)
        return -1;
    int valid_before = q && q->valid;
    /* what happens before the packet's content: its clear, its defaults */
    if (q && clears)
        seq_clear(s, q);
    if (q && has_defaults) {
        q->defaults.len = 0;
        if (charge(s, q, defaults_len) == 0) {
            if (buf_put(&q->defaults, defaults, defaults_len))
                return nomem(s);
            q->has_defaults = 1;
        } else {
            q->has_defaults = 0;
        }
    }
    /* the track it describes needs its parents */
    s->own_track = 0;
    if (tdesc) {
        rd t;
        fld g;
        uint64_t parent = 0;
        rd_init(&t, tdesc, tdesc_len);
        while (rd_next(&t, &g) > 0) {
            if (g.num == 1 && g.wire == 0)
                s->own_track = g.v;
            else if (g.num == 5 && g.wire == 0)
                parent = g.v;
        }
        int have = 0;
        for (size_t i = 0; i < s->n_used; i++)
            have |= s->used_tracks[i] == parent;
        /* (only when the whole file's decoder had it: else the piece must
         * not have it either) */
        int resolved = s->own_desc_seen ? s->own_desc_pid : track_find(s, parent) != NULL;
        if (parent && !have && resolved && s->n_used < SPLIT_PF_MAX_PACKET_TRACKS)
            s->used_tracks[s->n_used++] = parent;
    }
    /* its incremental counter value */
    te_counter tc;
    memset(&tc, 0, sizeof tc);
    if (q && te && !dropped) {
        read_counter(s, q, te, te_len, &tc);
        if (s->failed)
            return -1;
    }

    for (;;) {
        if (!s->piece || !split_pieces_is_open(s->sp)) {
            if (begin_piece(s))
                return -1;
        }
        s->out.len = 0;
        if (needs(s, valid_before ? q : NULL, q, interned, interned_len, clears))
            return -1;
        const unsigned char *body = p;
        size_t body_len = n;
        int rewritten = rewrite_counters(s, p, n, &tc, &s->tmp);
        if (rewritten < 0)
            return -1;
        if (rewritten) {
            body = s->tmp.p;
            body_len = s->tmp.len;
        }
        size_t seq_extra = 0;
        if (pk->seq_id && !has_seq_field)
            seq_extra = 1 + varint_size(pk->seq_id);
        uint64_t total = s->out.len + frame_size(body_len + seq_extra) + body_len + seq_extra;
        if (s->piece_originals && split_pieces_size(s->sp) + total > split_pieces_max(s->sp)) {
            if (split_pieces_end(s->sp))
                return pieces_fail(s);
            continue;
        }
        if (!s->piece_originals && split_pieces_size(s->sp) + total > split_pieces_max(s->sp))
            split_pieces_oversize(s->sp);
        if (s->out.len && split_pieces_write(s->sp, s->out.p, s->out.len))
            return pieces_fail(s);
        s->st.state_bytes += s->out.len;
        for (size_t i = 0; i < s->out.len;) { /* count the state packets */
            rd c;
            uint64_t len;
            rd_init(&c, s->out.p + i + 1, s->out.len - i - 1);
            if (rd_varint(&c, &len))
                break;
            i = (size_t)(c.p - s->out.p) + (size_t)len;
            s->st.state_packets++;
        }
        unsigned char hdr[16];
        buf h = {hdr, 0, sizeof hdr};
        buf_tag(&h, 1, 2);
        buf_varint(&h, body_len + seq_extra);
        if (split_pieces_write(s->sp, hdr, h.len) || split_pieces_write(s->sp, body, body_len))
            return pieces_fail(s);
        if (seq_extra) {
            unsigned char t[8];
            buf b = {t, 0, sizeof t};
            buf_tag(&b, F_SEQ_ID, 0);
            buf_varint(&b, pk->seq_id);
            if (split_pieces_write(s->sp, t, b.len))
                return pieces_fail(s);
            s->st.seq_added++;
        }
        s->st.counters_rewritten += (uint64_t)rewritten;
        s->piece_originals++;
        s->st.packets++;
        break;
    }

    /* the whole file's decoder after the packet */
    if (tc.has_main)
        advance(s, &tc.main);
    for (size_t i = 0; i < tc.n_xi; i++)
        advance(s, &tc.xi[i]);
    for (size_t i = 0; i < tc.n_xd; i++)
        advance(s, &tc.xd[i]);
    if (!q)
        return 0;
    q->valid = valid_after;
    q->piece = s->piece;
    if (!dropped && interned && valid_after) {
        rd e;
        fld g, h;
        rd_init(&r, interned, interned_len);
        while (rd_next(&r, &f) > 0) {
            if (f.wire != 2)
                continue;
            rd_init(&e, f.data, f.len);
            while (rd_next(&e, &g) > 0)
                if (g.num == 1 && g.wire == 0 &&
                    entry_put(s, q, f.num, g.v, f.data, f.len))
                    return -1;
            (void)h;
        }
    }
    if (!dropped && snap && note_snapshot(s, q, pk->seq_id, snap, snap_len))
        return -1;
    if (!dropped && has_ts && seq_scoped(pk->clock_id)) {
        seq_clock *k = seq_clock_get(s, q, pk->clock_id, 0);
        if (k && k->incremental)
            k->running = (int64_t)((uint64_t)k->running + ts);
    }
    if (!dropped && thdesc) {
        q->thread.len = 0;
        if (buf_put(&q->thread, thdesc, thdesc_len))
            return nomem(s);
    }
    if (!dropped && tdesc && track_put(s, pk->seq_id, tdesc, tdesc_len))
        return -1;
    if (tl && note_trace_packet(s, tl_field, pk->seq_id, tl, tl_len))
        return -1;
    return 0;
}

/* ---- the interface ---------------------------------------------------- */

split_perfetto *split_perfetto_new(split_pieces *sp)
{
    split_perfetto *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->sp = sp;
    s->t_packet = tread_perfetto_msgtype_find("perfetto.protos.TracePacket");
    s->t_frame = tread_perfetto_msgtype_find("perfetto.protos.Frame");
    s->t_callstack = tread_perfetto_msgtype_find("perfetto.protos.Callstack");
    s->t_mapping = tread_perfetto_msgtype_find("perfetto.protos.Mapping");
    s->t_symbols = tread_perfetto_msgtype_find("perfetto.protos.ProfiledFrameSymbols");
    s->t_v8fn = tread_perfetto_msgtype_find("perfetto.protos.InternedV8JsFunction");
    s->t_asyncdesc =
        tread_perfetto_msgtype_find("perfetto.protos.StackSample.AsyncContextDescriptor");
    return s;
}

int split_perfetto_packet(split_perfetto *s, const tread_perfetto_packet *pk)
{
    if (s->failed)
        return -1;
    if (s->have && write_held(s))
        return -1;
    s->pk = *pk;
    s->pk.data = NULL;
    s->cur.len = 0;
    if (buf_put(&s->cur, pk->data, pk->len))
        return nomem(s);
    s->n_used = 0;
    s->own_desc_seen = s->own_desc_pid = 0;
    s->have = 1;
    return 0;
}

int split_perfetto_event(split_perfetto *s, const tread_event *ev)
{
    if (s->failed)
        return -1;
    s->st.events++;
    if (ev->kind == TREAD_EVENT_METADATA && ev->meta == TREAD_META_TRACK_DESCRIPTOR &&
        !s->own_desc_seen) {
        s->own_desc_seen = 1;
        s->own_desc_pid = (ev->flags & TREAD_HAS_PID) != 0;
    }
    if (!(ev->flags & TREAD_HAS_TRACK) || !ev->track_uuid || !s->have)
        return 0;
    for (size_t i = 0; i < s->n_used; i++)
        if (s->used_tracks[i] == ev->track_uuid)
            return 0;
    if (s->n_used >= SPLIT_PF_MAX_PACKET_TRACKS) {
        s->st.tracks_of_packet_not_kept++;
        return 0;
    }
    s->used_tracks[s->n_used++] = ev->track_uuid;
    return 0;
}

int split_perfetto_finish(split_perfetto *s)
{
    if (s->failed)
        return -1;
    if (s->have) {
        s->have = 0;
        if (write_held(s))
            return -1;
    }
    if (split_pieces_is_open(s->sp) && split_pieces_end(s->sp))
        return pieces_fail(s);
    return 0;
}

const char *split_perfetto_error(const split_perfetto *s)
{
    return s->failed ? s->err : "";
}

const split_perfetto_stats *split_perfetto_get_stats(const split_perfetto *s)
{
    return &s->st;
}

void split_perfetto_print_warnings(const split_perfetto *s, FILE *f)
{
    const split_perfetto_stats *t = &s->st;
    struct {
        uint64_t n;
        const char *what;
    } w[] = {
        {t->seq_not_kept, "packets of sequences beyond SPLIT_PF_MAX_SEQUENCES: copied without "
                          "their state"},
        {t->state_not_kept, "interned entries or descriptors beyond SPLIT_PF_MAX_STATE_BYTES: "
                            "not repeated in later pieces"},
        {t->tracks_not_kept, "track descriptors beyond SPLIT_PF_MAX_TRACKS: not repeated"},
        {t->trace_not_kept, "trace-level packets beyond SPLIT_PF_MAX_TRACE_PACKETS, "
                            "SPLIT_PF_MAX_TRACE_BYTES or SPLIT_PF_MAX_TRACE_PACKET_BYTES: only in "
                            "their own piece"},
        {t->refs_not_kept, "interned references beyond SPLIT_PF_MAX_REFS in one packet"},
        {t->tracks_of_packet_not_kept, "tracks beyond SPLIT_PF_MAX_PACKET_TRACKS in one packet"},
        {t->unknown_refs, "references to interned data of an unknown kind: every kind's entry "
                          "of that iid repeated"},
        {t->unwalkable_packets, "packets whose references could not all be read (malformed): "
                                "every interned entry of their sequence repeated"},
        {t->counters_not_kept, "incremental counters beyond SPLIT_PF_MAX_COUNTERS on a sequence"},
        {t->clocks_not_kept, "sequence clocks beyond SPLIT_PF_MAX_SEQ_CLOCKS"},
        {t->clock_shift_inexact, "clock snapshots moved by an amount their unit does not "
                                 "divide"},
    };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (w[i].n)
            fprintf(f, "tread: split: %" PRIu64 " %s\n", w[i].n, w[i].what);
}

void split_perfetto_free(split_perfetto *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->seq_size; i++) {
        seqst *q = &s->seqs[i];
        if (!q->used)
            continue;
        free(q->defaults.p);
        free(q->arena.p);
        free(q->tab);
        for (size_t k = 0; k < q->n_clk; k++)
            free(q->clk[k].snap.p);
        free(q->clk);
        free(q->ctr);
        free(q->thread.p);
    }
    free(s->seqs);
    free(s->tracks);
    free(s->tracks_arena.p);
    for (size_t i = 0; i < SPLIT_PF_MAX_TRACE_PACKETS; i++)
        free(s->trace_pk[i].msg.p);
    for (size_t i = 0; i < SPLIT_PF_CLOCK_SNAPSHOTS; i++)
        free(s->snaps[i].msg.p);
    free(s->cur.p);
    free(s->out.p);
    free(s->tmp.p);
    free(s->tmp2.p);
    free(s->refs);
    free(s);
}
