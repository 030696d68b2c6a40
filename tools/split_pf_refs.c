/* split_pf_refs.c: which interned entries a packet refers to (found with
 * the schema walk) and which of them its piece lacks. */
#include "split_pf_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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
    {P "ChromeMojoEventInfo", "mojo_interface_method_iid", 28},
    {P "UnsymbolizedSourceLocation", "mapping_id", 19},
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
    {P "StackSample", "primary_descriptor_iid", 50},
    {P "StackSample", "follower_descriptor_iids", 50},
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
            spf_nomem(s);
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
    const tread_perfetto_msgtype *t = s->walk_stack[d];
    struct spf_ref_cache *c =
        &s->ref_cache[((uintptr_t)t >> 4 ^ f->number * 2654435761u) & 255];
    if (c->type != t || c->num != f->number) {
        c->type = t;
        c->num = f->number;
        c->ns = ref_ns(t, f->name);
    }
    int ns = c->ns;
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
int spf_collect_refs(split_perfetto *s, const tread_perfetto_msgtype *t,
                     const unsigned char *p, size_t n)
{
    if (!t)
        return 0;
    s->walk_stack[0] = t;
    return tread_perfetto_walk(t, p, n, 0, walk_refs, s, NULL) < 0 ? -1 : 0;
}

/* The packets whose references were found, by their bytes after the
 * timestamp (a packet that starts with one: the SDK and Chrome write it
 * first), direct-mapped. Traces repeat their packets but for the time (a
 * slice ending on the same track): on chromium_startup 63% of the
 * packets are found here, which saves half the walk's instructions. */
#define REFS_MEMO_SLOTS 256 /* a power of two */
#define REFS_MEMO_KEY 160   /* longest key kept */
#define REFS_MEMO_REFS 8    /* most references kept */

struct spf_refs_memo {
    uint16_t klen;             /* 0: empty */
    uint8_t n_refs, n_unknown;
    ref refs[REFS_MEMO_REFS];
    unsigned char key[REFS_MEMO_KEY];
};

static size_t memo_slot(const unsigned char *k, size_t n)
{
    uint64_t h = n * 0x9e3779b97f4a7c15ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, k + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
    }
    if (i < n) {
        uint64_t w = 0;
        memcpy(&w, k + i, n - i);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
    }
    return (size_t)(h >> 56) & (REFS_MEMO_SLOTS - 1);
}

int spf_collect_packet_refs(split_perfetto *s, const unsigned char *p, size_t n)
{
    /* the key: what follows a first field that is the timestamp (field 8,
     * a varint of at most 10 bytes) */
    const unsigned char *k = NULL;
    size_t klen = 0, slot = 0;
    if (n > 1 && p[0] == 0x40) {
        rd r;
        uint64_t ts;
        rd_init(&r, p + 1, n - 1);
        if (rd_varint(&r, &ts) == 0 && (size_t)(r.end - r.p) <= REFS_MEMO_KEY) {
            k = r.p;
            klen = (size_t)(r.end - r.p);
            slot = memo_slot(k, klen);
        }
    }
    if (k && !s->refs_memo)
        s->refs_memo = calloc(REFS_MEMO_SLOTS, sizeof *s->refs_memo);
    if (k && s->refs_memo) {
        const struct spf_refs_memo *e = &s->refs_memo[slot];
        /* (klen + 1: an empty key is kept too) */
        if (e->klen == klen + 1 && memcmp(e->key, k, klen) == 0) {
            for (size_t i = 0; i < e->n_refs; i++)
                add_ref(s, e->refs[i].ns, e->refs[i].iid);
            s->st.unknown_refs += e->n_unknown;
            return 0;
        }
    }
    uint64_t unknown = s->st.unknown_refs;
    int rc = spf_collect_refs(s, s->t_packet, p, n);
    if (k && s->refs_memo && rc == 0 && s->n_refs <= REFS_MEMO_REFS &&
        s->st.unknown_refs - unknown <= REFS_MEMO_REFS && !s->failed) {
        struct spf_refs_memo *e = &s->refs_memo[slot];
        e->klen = (uint16_t)(klen + 1);
        e->n_refs = (uint8_t)s->n_refs;
        e->n_unknown = (uint8_t)(s->st.unknown_refs - unknown);
        if (s->n_refs) /* (s->refs is NULL until a first reference) */
            memcpy(e->refs, s->refs, s->n_refs * sizeof *s->refs);
        memcpy(e->key, k, klen);
    }
    return rc;
}

static const tread_perfetto_msgtype *entry_type(const split_perfetto *s, uint32_t ns)
{
    switch (ns) {
    case 6: return s->t_frame;
    case 7: return s->t_callstack;
    case 19: return s->t_mapping;
    case 21: return s->t_symbols;
    case 28: return s->t_unsym;
    case 32: return s->t_v8fn;
    case 51: return s->t_asyncdesc;
    default: return NULL;
    }
}

/* The interned entries the packet defines itself (it interns them before
 * its own references are resolved). */
void spf_collect_own(split_perfetto *s, const unsigned char *p, size_t n)
{
    rd r;
    fld f;
    rd_init(&r, p, n);
    while (rd_next(&r, &f) > 0) {
        if (f.wire != 2)
            continue;
        uint64_t iid;
        if (!rd_entry_iid(f.data, f.len, &iid))
            continue; /* the decoder skips it: an earlier entry stands */
        if (s->n_own < sizeof s->own / sizeof s->own[0]) {
            s->own[s->n_own].ns = f.num;
            s->own[s->n_own].iid = iid;
            s->n_own++;
        } else {
            s->own_overflow = 1;
        }
    }
}

int spf_is_own(const split_perfetto *s, uint32_t ns, uint64_t iid)
{
    if (s->own_overflow)
        return 0; /* an entry given again is harmless */
    for (size_t i = 0; i < s->n_own; i++)
        if (s->own[i].iid == iid && (ns == 0 || s->own[i].ns == ns))
            return 1;
    return 0;
}

/* The references of the entry (ns, iid) the packet interns itself: what
 * it refers to may be an earlier packet's (an UnsymbolizedSourceLocation
 * of Chrome's names the mapping interned with the first one; a frame, its
 * mapping). The last definition in the packet is the one the decoder
 * keeps. */
static void own_refs(split_perfetto *s, uint32_t ns, uint64_t iid)
{
    const tread_perfetto_msgtype *t = entry_type(s, ns);
    if (!t || !s->own_msg)
        return;
    const unsigned char *m = NULL;
    size_t n = 0;
    rd r;
    fld f;
    uint64_t v;
    rd_init(&r, s->own_msg, s->own_len);
    while (rd_next(&r, &f) > 0)
        if (f.num == ns && f.wire == 2 && rd_entry_iid(f.data, f.len, &v) && v == iid)
            m = f.data, n = f.len;
    if (m)
        (void)spf_collect_refs(s, t, m, n);
}

/* Appends to tmp the InternedData fields of the entries referenced (and
 * what they reference) that the piece lacks; all = the piece has none of
 * the sequence's entries. Marks them held by the piece. */
void spf_missing_entries(split_perfetto *s, seqst *q, int all, int every)
{
    if (every) { /* the packet's references are not all known: all entries */
        for (size_t i = 0; i < q->tab_size; i++) {
            entry *e = &q->tab[i];
            if (!e->ns || (!all && e->piece == s->piece) || spf_is_own(s, e->ns, e->iid))
                continue;
            e->piece = s->piece;
            if (buf_lenfield(&s->tmp, e->ns, q->arena.p + e->off, e->len)) {
                spf_nomem(s);
                return;
            }
        }
        return;
    }
    for (size_t i = 0; i < s->n_refs; i++) { /* n_refs grows: transitive */
        ref r = s->refs[i];
        for (size_t k = 0; k < (r.ns ? 1 : q->n_ns); k++) {
            uint32_t ns = r.ns ? r.ns : q->ns[k];
            if (spf_is_own(s, ns, r.iid)) {
                own_refs(s, ns, r.iid);
                continue;
            }
            entry *e = spf_entry_find(q, ns, r.iid);
            if (!e || (!all && e->piece == s->piece))
                continue;
            e->piece = s->piece;
            if (buf_lenfield(&s->tmp, ns, q->arena.p + e->off, e->len)) {
                spf_nomem(s);
                return;
            }
            const tread_perfetto_msgtype *t = entry_type(s, ns);
            if (t) {
                /* the walk may move q->arena: no pointer into it is kept */
                (void)spf_collect_refs(s, t, q->arena.p + e->off, e->len);
            }
        }
    }
}
