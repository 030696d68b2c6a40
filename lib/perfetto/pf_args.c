/*
 * The lazy argument codec of Perfetto events (TREAD_ARGS_PERFETTO): walks
 * a TrackEvent's bytes when the caller iterates. pf_args.h says what comes
 * out; this file is how.
 *
 * Every open container is a protobuf message being walked: the iterator's
 * p is the cursor in it, and stack[] holds where each level's message ends.
 * A child container is (almost always) exactly the payload of the field the
 * parent's walk just stepped over, so when the child ends, p is where the
 * parent resumes: no cursor is saved per level. The two exceptions keep
 * theirs in state words: a NestedValue under a DebugAnnotation (the
 * container is a field inside the annotation) and an interned
 * SourceLocation (other memory); at most one of them is open at a time.
 * A NestedValue dict whose keys and values are not interleaved needs a key
 * cursor besides the value cursor p: it takes a second stack slot.
 *
 * A DebugAnnotation or NestedValue is read whole (its own fields, not its
 * children's) when its value is emitted: that picks the value and checks
 * the fields; a bad one fails the iteration there. The other messages are
 * checked as they are walked. Either way the cost is linear: each message's
 * fields are read a bounded number of times, and a skip reads nothing.
 */
#include "perfetto/pf_args.h"
#include "perfetto/pf_walk.h"
#include "perfetto/pf_wire.h"

#include <string.h>

/* DebugAnnotation fields */
enum {
    DA_NAME_IID = 1,
    DA_BOOL = 2,
    DA_UINT = 3,
    DA_INT = 4,
    DA_DOUBLE = 5,
    DA_STRING = 6,
    DA_POINTER = 7,
    DA_NESTED = 8,
    DA_LEGACY_JSON = 9,
    DA_NAME = 10,
    DA_DICT_ENTRIES = 11,
    DA_ARRAY_VALUES = 12,
    DA_PROTO_TYPE_NAME_IID = 13,
    DA_PROTO_VALUE = 14,
    DA_PROTO_TYPE_NAME = 16,
    DA_STRING_IID = 17
};

/* DebugAnnotation.NestedValue fields and types */
enum {
    NV_TYPE = 1,
    NV_DICT_KEYS = 2,
    NV_DICT_VALUES = 3,
    NV_ARRAY_VALUES = 4,
    NV_INT = 5,
    NV_DOUBLE = 6,
    NV_BOOL = 7,
    NV_STRING = 8,
    NV_TYPE_DICT = 1,
    NV_TYPE_ARRAY = 2
};

/* TrackEvent fields read here */
enum {
    TE_DEBUG_ANNOTATIONS = 4,
    TE_TASK_EXECUTION = 5,
    TE_LOG_MESSAGE = 21,
    TE_SOURCE_LOCATION = 33,
    TE_SOURCE_LOCATION_IID = 34,
    TE_CALLSTACK = 55,
    TE_CALLSTACK_IID = 56,
    TE_CALLSTACK_WEIGHT = 57
};

/* InternedData fields (tables) */
enum {
    IN_DEBUG_ANNOTATION_NAMES = 3,      /* DebugAnnotationName {iid, name=2} */
    IN_SOURCE_LOCATIONS = 4,            /* SourceLocation */
    IN_LOG_MESSAGE_BODY = 20,           /* LogMessageBody {iid, body=2} */
    IN_VALUE_TYPE_NAMES = 27,           /* DebugAnnotationValueTypeName {iid, name=2} */
    IN_STRING_VALUES = 29,              /* InternedString {iid, str=2} */
    IN_BUILD_IDS = 16,                  /* InternedString {iid, str=2} */
    IN_MAPPINGS = 19,                   /* Mapping {iid, build_id=2, ...} */
    IN_HISTOGRAM_NAMES = 25,            /* HistogramName {iid, name=2} */
    IN_UNSYMBOLIZED_LOCATIONS = 28      /* UnsymbolizedSourceLocation
                                           {iid, mapping_id=2, rel_pc=3} */
};

/* What a level's message is, 4 bits per level in state[0..1]. */
enum {
    PK_ANN_DICT = 1,     /* DebugAnnotation: its dict_entries */
    PK_ANN_ARRAY,        /* DebugAnnotation: its array_values */
    PK_NV_DICT,          /* NestedValue dict, keys interleaved with values */
    PK_NV_DICT_SPLIT,    /* NestedValue dict, keys apart: slots [end, key] */
    PK_NV_ARRAY,         /* NestedValue array */
    PK_PROTO,            /* DebugAnnotation: {"type", "value"} */
    PK_SRCLOC,           /* SourceLocation */
    PK_LOGMSG,           /* LogMessage */
    PK_TASKEXEC,         /* TaskExecution */
    PK_CALLSTACK,        /* TrackEvent.InlineCallstack: its frames */
    PK_FRAME,            /* InlineCallstack.Frame */
    /* a typed payload read through the schema (pf_walk.h), as
     * TREAD_ARGS_PROTO reads a message: slots [end, descriptor] */
    PK_SCHEMA,           /* a message: [end, its message descriptor] */
    PK_SCHEMA_PACKED,    /* a packed repeated scalar: [end, its field's] */
    PK_SCHEMA_RUN,       /* a run of an unpacked repeated field: [end,
                            its field's descriptor] */
    PK_UNSYM             /* an interned UnsymbolizedSourceLocation (the
                            last kind a nibble holds) */
};

/* The state words. */
enum {
    ST_KINDS = 0,        /* words 0, 1: kind of level L at nibble L-1 */
    ST_MISC = 2,         /* bits 0-7 stack slots used, 8-15 the level that
                            returns to ST_RET (0: none), 16-17 proto phase */
    ST_RET = 3,          /* where the ST_MISC level's parent resumes */
    ST_WORDS = 4
};

_Static_assert(sizeof(((tread_args_iter *)0)->state) >= ST_WORDS * sizeof(uint64_t),
               "tread_args_iter.state holds the Perfetto codec's words");
_Static_assert(TREAD_ARGS_ITER_MAX_NEST <= 32 && TREAD_ARGS_ITER_MAX_NEST < 256,
               "levels fit the kind nibbles and the slot count");

#define PF_MAX_LEVELS TREAD_ARGS_ITER_MAX_NEST

/* Results of the walking helpers. */
enum { R_BAD = -1, R_END = 0, R_ARG = 1 };

static const char pf_empty[] = "";

/* Typed TrackEvent payloads the decoder does not map to event fields, by
 * field number (from perfetto_fields.tsv): exposed as "<name>": value. */
enum { PF_PAYLOAD_MSG, PF_PAYLOAD_STR, PF_PAYLOAD_INT };

typedef struct pf_payload {
    uint32_t num;
    const char *name;
    int type;
} pf_payload;

static const pf_payload pf_payloads[] = {
    {24, "cc_scheduler_state", PF_PAYLOAD_MSG},
    {25, "chrome_user_event", PF_PAYLOAD_MSG},
    {26, "chrome_keyed_service", PF_PAYLOAD_MSG},
    {27, "chrome_legacy_ipc", PF_PAYLOAD_MSG},
    {28, "chrome_histogram_sample", PF_PAYLOAD_MSG},
    {29, "chrome_latency_info", PF_PAYLOAD_MSG},
    {32, "chrome_frame_reporter", PF_PAYLOAD_MSG},
    {35, "chrome_message_pump", PF_PAYLOAD_MSG},
    {38, "chrome_mojo_event_info", PF_PAYLOAD_MSG},
    {39, "chrome_application_state_info", PF_PAYLOAD_MSG},
    {40, "chrome_renderer_scheduler_state", PF_PAYLOAD_MSG},
    {41, "chrome_window_handle_event_info", PF_PAYLOAD_MSG},
    {43, "chrome_content_settings_event_info", PF_PAYLOAD_MSG},
    {49, "chrome_active_processes", PF_PAYLOAD_MSG},
    {50, "screenshot", PF_PAYLOAD_MSG},
    {1000, "chrome_app_state", PF_PAYLOAD_INT},
    {1001, "chrome_memory_pressure_notification", PF_PAYLOAD_MSG},
    {1002, "chrome_task_annotator", PF_PAYLOAD_MSG},
    {1003, "chrome_browser_context", PF_PAYLOAD_MSG},
    {1004, "chrome_profile_destroyer", PF_PAYLOAD_MSG},
    {1005, "chrome_task_posted_to_disabled_queue", PF_PAYLOAD_MSG},
    {1006, "chrome_raster_task", PF_PAYLOAD_MSG},
    {1007, "chrome_message_pump_for_ui", PF_PAYLOAD_MSG},
    {1008, "render_frame_impl_deletion", PF_PAYLOAD_MSG},
    {1009, "should_swap_browsing_instances_result", PF_PAYLOAD_MSG},
    {1010, "frame_tree_node_info", PF_PAYLOAD_MSG},
    {1011, "chrome_hashed_performance_mark", PF_PAYLOAD_MSG},
    {1012, "render_process_host", PF_PAYLOAD_MSG},
    {1013, "render_process_host_cleanup", PF_PAYLOAD_MSG},
    {1014, "render_process_host_listener_changed", PF_PAYLOAD_MSG},
    {1015, "child_process_launcher_priority", PF_PAYLOAD_MSG},
    {1016, "resource_bundle", PF_PAYLOAD_MSG},
    {1017, "chrome_web_app_bad_navigate", PF_PAYLOAD_MSG},
    {1018, "chrome_extension_id", PF_PAYLOAD_MSG},
    {1019, "site_instance", PF_PAYLOAD_MSG},
    {1020, "render_view_host", PF_PAYLOAD_MSG},
    {1021, "render_frame_proxy_host", PF_PAYLOAD_MSG},
    {1022, "android_view_dump", PF_PAYLOAD_MSG},
    {1023, "parkable_string_compress_in_background", PF_PAYLOAD_MSG},
    {1024, "parkable_string_unpark", PF_PAYLOAD_MSG},
    {1025, "chrome_sampling_profiler_sample_completed", PF_PAYLOAD_MSG},
    {1026, "send_begin_mainframe_to_commit_breakdown", PF_PAYLOAD_MSG},
    {1027, "global_render_frame_host_id", PF_PAYLOAD_MSG},
    {1028, "render_frame_host", PF_PAYLOAD_MSG},
    {1029, "thread_pool_task", PF_PAYLOAD_MSG},
    {1030, "back_forward_cache_can_store_document_result", PF_PAYLOAD_MSG},
    {1031, "renderer_main_thread_task_execution", PF_PAYLOAD_MSG},
    {1032, "event_latency", PF_PAYLOAD_MSG},
    {1033, "process_singleton", PF_PAYLOAD_MSG},
    {1034, "site_instance_group", PF_PAYLOAD_MSG},
    {1035, "browsing_context_state", PF_PAYLOAD_MSG},
    {1036, "device_thermal_state", PF_PAYLOAD_INT},
    {1037, "navigation", PF_PAYLOAD_MSG},
    {1038, "android_ipc", PF_PAYLOAD_MSG},
    {1039, "sql_diagnostics", PF_PAYLOAD_MSG},
    {1040, "sequence_manager_task", PF_PAYLOAD_MSG},
    {1041, "android_toolbar", PF_PAYLOAD_MSG},
    {1042, "active_processes", PF_PAYLOAD_MSG},
    {1043, "blink_task_scope", PF_PAYLOAD_MSG},
    {1044, "ukm_page_load_timing_update", PF_PAYLOAD_MSG},
    {1045, "high_entropy_api", PF_PAYLOAD_MSG},
    {1046, "tab_switch_measurement", PF_PAYLOAD_MSG},
    {1047, "scroll_deltas", PF_PAYLOAD_MSG},
    {1048, "win_render_audio_from_source", PF_PAYLOAD_MSG},
    {1049, "mac_auhal_stream", PF_PAYLOAD_MSG},
    {1050, "linux_alsa_output", PF_PAYLOAD_MSG},
    {1051, "linux_pulse_output", PF_PAYLOAD_MSG},
    {1052, "chrome_graphics_pipeline", PF_PAYLOAD_MSG},
    {1053, "chromeos_cras_unified", PF_PAYLOAD_MSG},
    {1054, "libunwindstack_unwinder", PF_PAYLOAD_MSG},
    {1055, "scroll_predictor_metrics", PF_PAYLOAD_MSG},
    {1056, "page_load", PF_PAYLOAD_MSG},
    {1057, "startup", PF_PAYLOAD_MSG},
    {1058, "web_content_interaction", PF_PAYLOAD_MSG},
    {1059, "event_forwarder", PF_PAYLOAD_MSG},
    {1060, "touch_disposition_gesture_filter", PF_PAYLOAD_MSG},
    {1061, "view_class_name", PF_PAYLOAD_MSG},
    {1062, "cc_scheduler_state", PF_PAYLOAD_MSG},
    {1063, "webview_startup", PF_PAYLOAD_MSG},
    {1064, "animation_frame_timing_info", PF_PAYLOAD_MSG},
    {1065, "animation_frame_script_timing_info", PF_PAYLOAD_MSG},
    {1066, "scroll_metrics", PF_PAYLOAD_MSG},
    {1067, "main_frame_pipeline", PF_PAYLOAD_MSG},
    {1068, "chrome_latency_info", PF_PAYLOAD_MSG},
    {1069, "event_timing", PF_PAYLOAD_MSG},
    {1070, "android_choreographer_frame_callback_data", PF_PAYLOAD_MSG},
    {1071, "current_task", PF_PAYLOAD_MSG},
    {1072, "web_exposed_isolation_info", PF_PAYLOAD_MSG},
    {1073, "url_info", PF_PAYLOAD_MSG},
    {1074, "begin_frame_id", PF_PAYLOAD_MSG},
    {1075, "frame_reporter", PF_PAYLOAD_MSG},
    {1076, "input_transfer_handler", PF_PAYLOAD_MSG},
    {1077, "response_info", PF_PAYLOAD_MSG},
    {1078, "scroll_jank_v4", PF_PAYLOAD_MSG},
    {1079, "memory_dump_provider", PF_PAYLOAD_MSG},
    {1080, "chrome_accessibility_win_notify_win_event", PF_PAYLOAD_MSG},
    {1081, "frame_interval_decider", PF_PAYLOAD_MSG},
    {1082, "begin_frame_args", PF_PAYLOAD_MSG},
    {1083, "mac_voucher_release", PF_PAYLOAD_MSG},
    {1084, "android_vsync_interval_decision", PF_PAYLOAD_MSG},
    {1085, "frame_deadline_decider", PF_PAYLOAD_MSG},
    {2001, "binder_service_name", PF_PAYLOAD_STR},
    {2002, "binder_interface_name", PF_PAYLOAD_STR},
    {2003, "apex_name", PF_PAYLOAD_STR},
    {2004, "message_queue", PF_PAYLOAD_MSG},
    {2005, "bitmap", PF_PAYLOAD_MSG},
    {2006, "job_scheduler_job", PF_PAYLOAD_MSG},
    {2007, "surfaceflinger_workload", PF_PAYLOAD_MSG},
    {2008, "broadcast_event", PF_PAYLOAD_MSG},
    {2009, "freezer_event", PF_PAYLOAD_MSG},
    {2010, "process_start_event", PF_PAYLOAD_MSG},
    {2011, "process_died_event", PF_PAYLOAD_MSG},
    {2012, "process_state_changed_event", PF_PAYLOAD_MSG},
    {2013, "binder_died_event", PF_PAYLOAD_MSG},
    {2014, "service_state_changed_event", PF_PAYLOAD_MSG},
    {2015, "provider_state_changed_event", PF_PAYLOAD_MSG},
    {2016, "fg_service_state_changed_event", PF_PAYLOAD_MSG},
    {2017, "capability_summary_event", PF_PAYLOAD_MSG},
    {2018, "capability_update_event", PF_PAYLOAD_MSG},
    {2019, "proc_state_summary_event", PF_PAYLOAD_MSG},
    {2020, "proc_state_update_event", PF_PAYLOAD_MSG},
    {2021, "self_broadcast_event", PF_PAYLOAD_MSG},
    {3000, "gpu_correlation", PF_PAYLOAD_MSG},
    {3001, "gpu_api", PF_PAYLOAD_INT},
    {9900, "string_extension_for_testing", PF_PAYLOAD_STR},
    {9901, "int_extension_for_testing", PF_PAYLOAD_INT},
    {9902, "omitted_extension_for_testing", PF_PAYLOAD_STR},
    {9903, "nested_message_extension_for_testing", PF_PAYLOAD_MSG},
    {9904, "uint_extension_for_testing", PF_PAYLOAD_INT},
    {9905, "string_extension_for_testing2", PF_PAYLOAD_STR},
};

/* ------------------------------------------------------------------------ */
/* Iterator state                                                           */

static int kind_at(const tread_args_iter *it, int level)
{
    unsigned i = (unsigned)(level - 1);
    return (int)((it->state[ST_KINDS + i / 16] >> (4 * (i % 16))) & 15);
}

static void set_kind(tread_args_iter *it, int level, int kind)
{
    unsigned i = (unsigned)(level - 1), sh = 4 * (i % 16);
    uint64_t *w = &it->state[ST_KINDS + i / 16];
    *w = (*w & ~((uint64_t)15 << sh)) | ((uint64_t)kind << sh);
}

static unsigned slots_used(const tread_args_iter *it) { return (unsigned)(it->state[ST_MISC] & 0xff); }
static unsigned ret_level(const tread_args_iter *it) { return (unsigned)((it->state[ST_MISC] >> 8) & 0xff); }
static unsigned proto_phase(const tread_args_iter *it) { return (unsigned)((it->state[ST_MISC] >> 16) & 3); }

static void set_misc(tread_args_iter *it, unsigned slots, unsigned retl, unsigned phase)
{
    it->state[ST_MISC] = (uint64_t)slots | (uint64_t)retl << 8 | (uint64_t)phase << 16;
}

static int kind_is_array(int kind)
{
    return kind == PK_ANN_ARRAY || kind == PK_NV_ARRAY || kind == PK_CALLSTACK ||
           kind == PK_SCHEMA_PACKED || kind == PK_SCHEMA_RUN;
}

/* Levels that take a second stack slot (the level's end is the first). */
static int two_slots(int kind)
{
    return kind == PK_NV_DICT_SPLIT || (kind >= PK_SCHEMA && kind <= PK_SCHEMA_RUN);
}

/* Where the innermost level's message ends. */
static const unsigned char *level_end(const tread_args_iter *it)
{
    unsigned s = slots_used(it);
    return two_slots(kind_at(it, it->depth)) ? it->stack[s - 2] : it->stack[s - 1];
}

/* The low bit of a PK_SCHEMA level's descriptor slot: its message's
 * iids of pf_refs stay iids (descriptors are pointer-aligned). */
#define REFS_OFF ((uintptr_t)1)

/* A schema level's descriptor (its second slot). */
static const void *level_desc(const tread_args_iter *it)
{
    return (const void *)((uintptr_t)it->stack[slots_used(it) - 1] & ~REFS_OFF);
}

static int level_refs_off(const tread_args_iter *it)
{
    return ((uintptr_t)it->stack[slots_used(it) - 1] & REFS_OFF) != 0;
}

static int refs_off(const void *desc, const unsigned char *start, const unsigned char *end);

/* Opens a level over the message [start, end) and moves p to its start.
 * ret: where the parent resumes when the level ends, or NULL when that is
 * end (the message is the payload of the field the parent just passed).
 * 0 when the levels or slots are used up: the caller emits bytes. */
static int push_desc(tread_args_iter *it, int kind, const unsigned char *start,
                     const unsigned char *end, const unsigned char *ret, const void *desc)
{
    unsigned s = slots_used(it), need = two_slots(kind) ? 2 : 1;
    unsigned retl = ret_level(it);
    if (it->depth >= PF_MAX_LEVELS || s + need > PF_MAX_LEVELS || (ret && retl))
        return 0;
    it->stack[s++] = end;
    if (kind == PK_NV_DICT_SPLIT)
        it->stack[s++] = start; /* the key cursor */
    else if (two_slots(kind))
        it->stack[s++] = (const unsigned char *)desc;
    it->depth++;
    set_kind(it, it->depth, kind);
    if (ret) {
        retl = (unsigned)it->depth;
        it->state[ST_RET] = (uint64_t)(uintptr_t)ret;
    }
    set_misc(it, s, retl, 0);
    it->p = start;
    return 1;
}

static int push(tread_args_iter *it, int kind, const unsigned char *start,
                const unsigned char *end, const unsigned char *ret)
{
    return push_desc(it, kind, start, end, ret, NULL);
}

/* Closes the innermost level: p goes where its parent resumes. */
static void pop(tread_args_iter *it)
{
    unsigned s = slots_used(it), retl = ret_level(it);
    unsigned n = two_slots(kind_at(it, it->depth)) ? 2 : 1;
    it->p = it->stack[s - n];
    if (retl == (unsigned)it->depth) {
        it->p = (const unsigned char *)(uintptr_t)it->state[ST_RET];
        retl = 0;
    }
    it->depth--;
    set_misc(it, s - n, retl, 0);
}

/* ------------------------------------------------------------------------ */
/* Values                                                                   */

static tread_str lit(const char *s)
{
    tread_str t = {s, strlen(s)};
    return t;
}

static tread_str bytes_str(const unsigned char *p, size_t n)
{
    tread_str t = {(const char *)p, n};
    return t;
}

/* uint64 values: TREAD_ARG_INT when they fit, as tread.h asks. */
static void set_u64(tread_arg *out, uint64_t v)
{
    if (v <= (uint64_t)INT64_MAX) {
        out->type = TREAD_ARG_INT;
        out->v.i = (int64_t)v;
    } else {
        out->type = TREAD_ARG_UINT;
        out->v.u = v;
    }
}

static void set_str(tread_arg *out, tread_arg_type type, const unsigned char *p, size_t n)
{
    out->type = type;
    out->v.s = bytes_str(p, n);
}

/* The next field of the innermost message, advancing p past it. */
static int next_field(tread_args_iter *it, const unsigned char *end, pf_field *f)
{
    pf_reader r;
    r.p = it->p;
    r.end = end;
    int rc = pf_next(&r, f);
    if (rc != PF_OK)
        return rc == PF_END ? R_END : R_BAD;
    it->p = r.p;
    return R_ARG;
}

/* An interned message of the event's sequence; 0 when the iid is unknown. */
static int lookup(const tread_args_iter *it, uint32_t table, uint64_t iid,
                  const unsigned char **msg, size_t *len)
{
    const pf_args_ctx *c = it->ctx;
    *msg = NULL;
    *len = 0;
    if (!c || !c->lookup || !c->lookup(c->seq, table, iid, msg, len))
        return 0;
    if (!*msg) {
        if (*len)
            return 0;
        *msg = (const unsigned char *)pf_empty; /* never arithmetic on NULL */
    }
    return 1;
}

/* The last string field num of a message ("" when absent): R_ARG or R_BAD. */
static int msg_string(const unsigned char *m, size_t len, uint32_t num, tread_str *s)
{
    pf_reader r;
    pf_field f;
    int rc;
    *s = lit(pf_empty);
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.num != num)
            continue;
        if (f.wire != PF_WIRE_LEN)
            return R_BAD;
        *s = bytes_str(f.data, f.len);
    }
    return rc == PF_END ? R_ARG : R_BAD;
}

/* The string field num of interned entry iid of table: R_ARG, R_END for
 * an unknown iid, R_BAD. */
static int interned_string(const tread_args_iter *it, uint32_t table, uint64_t iid,
                           uint32_t num, tread_str *s)
{
    const unsigned char *m;
    size_t n;
    if (!lookup(it, table, iid, &m, &n))
        return R_END;
    return msg_string(m, n, num, s);
}

/* An interned string as *out's value (TREAD_ARG_NULL for an unknown iid). */
static int emit_interned_string(tread_args_iter *it, uint32_t table, uint64_t iid,
                                uint32_t num, tread_arg *out)
{
    tread_str s;
    int rc = interned_string(it, table, iid, num, &s);
    if (rc == R_BAD)
        return R_BAD;
    if (rc == R_ARG) {
        out->type = TREAD_ARG_STRING;
        out->v.s = s;
    } else {
        out->type = TREAD_ARG_NULL;
    }
    return R_ARG;
}

/* The key of an annotation whose interned name is unknown: a constant, so
 * that it stays valid as long as every other string (until the callback
 * returns); formatting the iid would need memory that lives that long. */
static const char pf_unknown_key[] = "<unknown iid>";

/* Opens a container over [start, end) as *out's value, or gives its bytes
 * when the iterator is full. */
static int open_container(tread_args_iter *it, int kind, const unsigned char *start,
                          const unsigned char *end, const unsigned char *ret, tread_arg *out)
{
    if (!push(it, kind, start, end, ret)) {
        set_str(out, TREAD_ARG_BYTES, start, (size_t)(end - start));
        return R_ARG;
    }
    out->type = kind_is_array(kind) ? TREAD_ARG_ARRAY_BEGIN : TREAD_ARG_DICT_BEGIN;
    return R_ARG;
}

/* A schema level over [start, end) as *out's value (its bytes when the
 * iterator is full). */
static int open_schema(tread_args_iter *it, int kind, const unsigned char *start,
                       const unsigned char *end, const void *desc, tread_arg *out)
{
    if (kind == PK_SCHEMA && refs_off(desc, start, end))
        desc = (const void *)((uintptr_t)desc | REFS_OFF);
    if (!push_desc(it, kind, start, end, NULL, desc)) {
        set_str(out, TREAD_ARG_BYTES, start, (size_t)(end - start));
        return R_ARG;
    }
    out->type = kind_is_array(kind) ? TREAD_ARG_ARRAY_BEGIN : TREAD_ARG_DICT_BEGIN;
    return R_ARG;
}

/* Field f of message md (read; the next field at it->p, the message
 * ending at end), whose first byte is at start, as *out's value (key
 * set by the caller): a value, a message as a dict, a repeated field's
 * run or packed payload as an array. R_END when the schema does not know
 * it (the caller decides). */
static int emit_schema_field(tread_args_iter *it, const ProtobufCMessageDescriptor *md,
                             const pf_field *f, const unsigned char *start,
                             const unsigned char *end, tread_arg *out)
{
    const ProtobufCFieldDescriptor *fd;
    int how = pf_walk_classify(md, f, &fd);
    if (how == PF_WALK_UNKNOWN)
        return R_END;
    if ((how == PF_WALK_VALUE || how == PF_WALK_MESSAGE) &&
        fd->label == PROTOBUF_C_LABEL_REPEATED) {
        const unsigned char *q = pf_walk_run_end(md, f, how, it->p, end);
        return open_schema(it, PK_SCHEMA_RUN, start, q, fd, out);
    }
    if (how == PF_WALK_VALUE) {
        pf_walk_arg_value(fd, f->v, f->data, f->len, out);
        return R_ARG;
    }
    if (how == PF_WALK_MESSAGE)
        return open_schema(it, PK_SCHEMA, f->data, f->data + f->len, fd->descriptor, out);
    return open_schema(it, PK_SCHEMA_PACKED, f->data, f->data + f->len, fd, out);
}

/* An interned SourceLocation as *out's value: a dict, or TREAD_ARG_NULL. */
static int emit_interned_srcloc(tread_args_iter *it, uint64_t iid, tread_arg *out)
{
    const unsigned char *m;
    size_t n;
    if (!lookup(it, IN_SOURCE_LOCATIONS, iid, &m, &n)) {
        out->type = TREAD_ARG_NULL;
        return R_ARG;
    }
    return open_container(it, PK_SRCLOC, m, m + n, it->p, out);
}

/* The NestedValue m[0, len) as *out's value. ret as for push. */
static int emit_nested(tread_args_iter *it, const unsigned char *m, size_t len,
                       const unsigned char *ret, tread_arg *out)
{
    pf_reader r;
    pf_field f;
    int rc, split = 0, has_b = 0, has_i = 0, has_d = 0, has_s = 0;
    uint64_t type = 0, nkeys = 0, nvals = 0, b = 0, i = 0, d = 0;
    tread_str s = {pf_empty, 0};

    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        int want = -1;
        switch (f.num) {
        case NV_TYPE: want = PF_WIRE_VARINT; type = f.v; break;
        case NV_DICT_KEYS: want = PF_WIRE_LEN; nkeys++; break;
        case NV_DICT_VALUES:
            want = PF_WIRE_LEN;
            /* interleaved: the i-th value comes right after the i-th key */
            if (++nvals != nkeys)
                split = 1;
            break;
        case NV_ARRAY_VALUES: want = PF_WIRE_LEN; break;
        case NV_INT: want = PF_WIRE_VARINT; has_i = 1; i = f.v; break;
        case NV_DOUBLE: want = PF_WIRE_FIXED64; has_d = 1; d = f.v; break;
        case NV_BOOL: want = PF_WIRE_VARINT; has_b = 1; b = f.v; break;
        case NV_STRING: want = PF_WIRE_LEN; has_s = 1; s = bytes_str(f.data, f.len); break;
        default: break;
        }
        if (want >= 0 && f.wire != want)
            return R_BAD;
    }
    if (rc != PF_END)
        return R_BAD;

    if (type == NV_TYPE_DICT)
        return open_container(it, split ? PK_NV_DICT_SPLIT : PK_NV_DICT, m, m + len, ret, out);
    if (type == NV_TYPE_ARRAY)
        return open_container(it, PK_NV_ARRAY, m, m + len, ret, out);
    /* a leaf: the order of preference of Perfetto's trace processor */
    if (has_b) {
        out->type = TREAD_ARG_BOOL;
        out->v.b = b != 0;
    } else if (has_i) {
        out->type = TREAD_ARG_INT;
        out->v.i = (int64_t)i;
    } else if (has_d) {
        out->type = TREAD_ARG_DOUBLE;
        out->v.d = pf_double(d);
    } else if (has_s) {
        out->type = TREAD_ARG_STRING;
        out->v.s = s;
    } else {
        out->type = TREAD_ARG_NULL;
    }
    return R_ARG;
}

/* The DebugAnnotation m[0, len), the payload of the field just passed:
 * its key (when keyed) and value into *out. */
static int emit_annotation(tread_args_iter *it, const unsigned char *m, size_t len, int keyed,
                           tread_arg *out)
{
    pf_reader r;
    pf_field f, val;
    int rc, has_val = 0, has_dict = 0, has_array = 0, has_proto = 0, name_kind = 0;
    uint64_t name_iid = 0;
    tread_str name = {pf_empty, 0};

    memset(&val, 0, sizeof val);
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        int want = -1;
        switch (f.num) {
        case DA_NAME_IID:
            want = PF_WIRE_VARINT;
            name_kind = 2;
            name_iid = f.v;
            break;
        case DA_NAME:
            want = PF_WIRE_LEN;
            name_kind = 1;
            name = bytes_str(f.data, f.len);
            break;
        case DA_BOOL: case DA_UINT: case DA_INT: case DA_POINTER: case DA_STRING_IID:
            want = PF_WIRE_VARINT;
            break;
        case DA_DOUBLE:
            want = PF_WIRE_FIXED64;
            break;
        case DA_STRING: case DA_NESTED: case DA_LEGACY_JSON:
            want = PF_WIRE_LEN;
            break;
        case DA_DICT_ENTRIES: want = PF_WIRE_LEN; has_dict = 1; break;
        case DA_ARRAY_VALUES: want = PF_WIRE_LEN; has_array = 1; break;
        case DA_PROTO_VALUE: want = PF_WIRE_LEN; has_proto = 1; break;
        case DA_PROTO_TYPE_NAME: want = PF_WIRE_LEN; break;
        case DA_PROTO_TYPE_NAME_IID: want = PF_WIRE_VARINT; break;
        default: break;
        }
        if (want >= 0 && f.wire != want)
            return R_BAD;
        switch (f.num) {
        case DA_BOOL: case DA_UINT: case DA_INT: case DA_POINTER: case DA_STRING_IID:
        case DA_DOUBLE: case DA_STRING: case DA_NESTED: case DA_LEGACY_JSON:
            val = f; /* the value oneof: the last one wins */
            has_val = 1;
            break;
        default:
            break;
        }
    }
    if (rc != PF_END)
        return R_BAD;

    if (keyed) {
        if (name_kind == 2) {
            rc = interned_string(it, IN_DEBUG_ANNOTATION_NAMES, name_iid, 2, &name);
            if (rc == R_BAD)
                return R_BAD;
            if (rc == R_END)
                name = lit(pf_unknown_key);
        }
        out->key = name;
    }

    if (has_val) {
        switch (val.num) {
        case DA_BOOL: out->type = TREAD_ARG_BOOL; out->v.b = val.v != 0; break;
        case DA_UINT: set_u64(out, val.v); break;
        case DA_INT: out->type = TREAD_ARG_INT; out->v.i = (int64_t)val.v; break;
        case DA_POINTER: out->type = TREAD_ARG_POINTER; out->v.u = val.v; break;
        case DA_DOUBLE: out->type = TREAD_ARG_DOUBLE; out->v.d = pf_double(val.v); break;
        case DA_STRING:
        case DA_LEGACY_JSON: set_str(out, TREAD_ARG_STRING, val.data, val.len); break;
        case DA_STRING_IID:
            return emit_interned_string(it, IN_STRING_VALUES, val.v, 2, out);
        default: /* DA_NESTED: a field inside the annotation */
            return emit_nested(it, val.data, val.len, it->p, out);
        }
        return R_ARG;
    }
    if (has_dict)
        return open_container(it, PK_ANN_DICT, m, m + len, NULL, out);
    if (has_array)
        return open_container(it, PK_ANN_ARRAY, m, m + len, NULL, out);
    if (has_proto)
        return open_container(it, PK_PROTO, m, m + len, NULL, out);
    out->type = TREAD_ARG_NULL;
    return R_ARG;
}

/* ------------------------------------------------------------------------ */
/* Walking the levels                                                       */

/* Messages whose fields map one to one onto dict entries. */
enum { FM_STR, FM_INT, FM_SRCLOC_IID, FM_BODY_IID };

typedef struct pf_fmap {
    uint32_t num;
    const char *key;
    int type;
} pf_fmap;

static const pf_fmap fm_srcloc[] = {
    {2, "file_name", FM_STR}, {3, "function_name", FM_STR}, {4, "line_number", FM_INT},
};
static const pf_fmap fm_frame[] = {
    {1, "function_name", FM_STR}, {2, "source_file", FM_STR}, {3, "line_number", FM_INT},
};
static const pf_fmap fm_logmsg[] = {
    {1, "source_location", FM_SRCLOC_IID}, {2, "body", FM_BODY_IID}, {3, "prio", FM_INT},
};
static const pf_fmap fm_taskexec[] = {
    {1, "posted_from", FM_SRCLOC_IID},
};

#define FMAP(a) (a), sizeof(a) / sizeof((a)[0])

static int walk_map(tread_args_iter *it, const unsigned char *end, const pf_fmap *map,
                    size_t n, tread_arg *out)
{
    pf_field f;
    int rc;
    while ((rc = next_field(it, end, &f)) == R_ARG) {
        for (size_t i = 0; i < n; i++) {
            if (map[i].num != f.num)
                continue;
            int want = map[i].type == FM_STR ? PF_WIRE_LEN : PF_WIRE_VARINT;
            if (f.wire != want)
                return R_BAD;
            out->key = lit(map[i].key);
            switch (map[i].type) {
            case FM_STR: set_str(out, TREAD_ARG_STRING, f.data, f.len); return R_ARG;
            case FM_INT: out->type = TREAD_ARG_INT; out->v.i = (int64_t)f.v; return R_ARG;
            case FM_SRCLOC_IID: return emit_interned_srcloc(it, f.v, out);
            default: return emit_interned_string(it, IN_LOG_MESSAGE_BODY, f.v, 2, out);
            }
        }
    }
    return rc;
}

static const pf_payload *find_payload(uint32_t num)
{
    size_t lo = 0, hi = sizeof pf_payloads / sizeof pf_payloads[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pf_payloads[mid].num == num)
            return &pf_payloads[mid];
        if (pf_payloads[mid].num < num)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The TrackEvent itself: the implicit root dict. */
static int walk_top(tread_args_iter *it, const unsigned char *end, tread_arg *out)
{
    pf_field f;
    int rc;
    const ProtobufCMessageDescriptor *te_desc = NULL;
    for (;;) {
        const unsigned char *fstart = it->p;
        if ((rc = next_field(it, end, &f)) != R_ARG)
            break;
        int kind = 0;
        const char *key = NULL;
        switch (f.num) {
        case TE_DEBUG_ANNOTATIONS:
            if (f.wire != PF_WIRE_LEN)
                return R_BAD;
            return emit_annotation(it, f.data, f.len, 1, out);
        case TE_SOURCE_LOCATION: kind = PK_SRCLOC; key = "source_location"; break;
        case TE_LOG_MESSAGE: kind = PK_LOGMSG; key = "log_message"; break;
        case TE_TASK_EXECUTION: kind = PK_TASKEXEC; key = "task_execution"; break;
        case TE_CALLSTACK: kind = PK_CALLSTACK; key = "callstack"; break;
        case TE_SOURCE_LOCATION_IID:
            if (f.wire != PF_WIRE_VARINT)
                return R_BAD;
            out->key = lit("source_location");
            return emit_interned_srcloc(it, f.v, out);
        case TE_CALLSTACK_IID:
            continue; /* the event's sf (pf_profile.c), as name_iid is its name */
        case TE_CALLSTACK_WEIGHT:
            if (f.wire != PF_WIRE_FIXED64)
                return R_BAD;
            out->key = lit("callstack_weight");
            out->type = TREAD_ARG_DOUBLE;
            out->v.d = pf_double(f.v);
            return R_ARG;
        default: {
            const pf_payload *pl = find_payload(f.num);
            if (!pl)
                continue; /* an event field, or one Perfetto does not define */
            out->key = lit(pl->name);
            /* through the schema: a message as a dict of its fields, a
             * repeated field as an array (a wire type the schema does not
             * expect: as before, by the table) */
            if (!te_desc)
                te_desc = (const ProtobufCMessageDescriptor *)(const void *)
                    tread_perfetto_msgtype_find("perfetto.protos.TrackEvent");
            int src = te_desc ? emit_schema_field(it, te_desc, &f, fstart, end, out) : R_END;
            if (src != R_END)
                return src;
            if (f.wire == PF_WIRE_LEN) {
                set_str(out, pl->type == PF_PAYLOAD_STR ? TREAD_ARG_STRING : TREAD_ARG_BYTES,
                        f.data, f.len); /* an int type here is a packed list */
                return R_ARG;
            }
            if (pl->type != PF_PAYLOAD_INT || f.wire != PF_WIRE_VARINT)
                return R_BAD;
            out->type = TREAD_ARG_INT;
            out->v.i = (int64_t)f.v;
            return R_ARG;
        }
        }
        if (f.wire != PF_WIRE_LEN)
            return R_BAD;
        out->key = lit(key);
        return open_container(it, kind, f.data, f.data + f.len, NULL, out);
    }
    return rc;
}

/* DebugAnnotation dict_entries (keyed) or array_values. */
static int walk_ann(tread_args_iter *it, const unsigned char *end, uint32_t num, int keyed,
                    tread_arg *out)
{
    pf_field f;
    int rc;
    while ((rc = next_field(it, end, &f)) == R_ARG) {
        if (f.num != num)
            continue;
        if (f.wire != PF_WIRE_LEN)
            return R_BAD;
        return emit_annotation(it, f.data, f.len, keyed, out);
    }
    return rc;
}

static int walk_nv_array(tread_args_iter *it, const unsigned char *end, tread_arg *out)
{
    pf_field f;
    int rc;
    while ((rc = next_field(it, end, &f)) == R_ARG) {
        if (f.num != NV_ARRAY_VALUES)
            continue;
        if (f.wire != PF_WIRE_LEN)
            return R_BAD;
        return emit_nested(it, f.data, f.len, NULL, out);
    }
    return rc;
}

/* Interleaved keys: each value takes the key read last (pairs never span
 * calls, so nothing is kept between them). */
static int walk_nv_dict(tread_args_iter *it, const unsigned char *end, tread_arg *out)
{
    pf_field f;
    int rc, have_key = 0;
    tread_str key = {pf_empty, 0};
    while ((rc = next_field(it, end, &f)) == R_ARG) {
        if (f.num != NV_DICT_KEYS && f.num != NV_DICT_VALUES)
            continue;
        if (f.wire != PF_WIRE_LEN)
            return R_BAD;
        if (f.num == NV_DICT_KEYS) {
            key = bytes_str(f.data, f.len);
            have_key = 1;
        } else if (have_key) {
            out->key = key;
            return emit_nested(it, f.data, f.len, NULL, out);
        }
    }
    return rc;
}

/* Keys apart from values: p walks the values, the slot above the level's
 * end the keys; the i-th value takes the i-th key. */
static int walk_nv_dict_split(tread_args_iter *it, const unsigned char *end, tread_arg *out)
{
    pf_field f, kf;
    pf_reader kr;
    int rc;
    while ((rc = next_field(it, end, &f)) == R_ARG && f.num != NV_DICT_VALUES)
        ;
    if (rc != R_ARG)
        return rc;
    unsigned s = slots_used(it);
    kr.p = it->stack[s - 1];
    kr.end = end;
    while ((rc = pf_next(&kr, &kf)) == PF_OK && kf.num != NV_DICT_KEYS)
        ;
    if (rc == PF_BAD || f.wire != PF_WIRE_LEN || (rc == PF_OK && kf.wire != PF_WIRE_LEN))
        return R_BAD;
    if (rc == PF_END)
        return R_END; /* more values than keys: the rest are dropped */
    it->stack[s - 1] = kr.p;
    out->key = bytes_str(kf.data, kf.len);
    return emit_nested(it, f.data, f.len, NULL, out);
}

static int walk_callstack(tread_args_iter *it, const unsigned char *end, tread_arg *out)
{
    pf_field f;
    int rc;
    while ((rc = next_field(it, end, &f)) == R_ARG) {
        if (f.num != 1)
            continue;
        if (f.wire != PF_WIRE_LEN)
            return R_BAD;
        return open_container(it, PK_FRAME, f.data, f.data + f.len, NULL, out);
    }
    return rc;
}

/* The schema's message a proto_value's type names (".perfetto.protos.X",
 * as Chrome writes it, or without the dot), or NULL. */
static const void *proto_value_desc(const tread_args_iter *it, const pf_field *type)
{
    tread_str name;
    if (type->num == DA_PROTO_TYPE_NAME)
        name = bytes_str(type->data, type->len);
    else if (interned_string(it, IN_VALUE_TYPE_NAMES, type->v, 2, &name) != R_ARG)
        return NULL;
    char buf[256];
    const char *p = name.ptr;
    size_t n = name.len;
    if (n && p[0] == '.')
        p++, n--;
    if (!n || n >= sizeof buf)
        return NULL;
    memcpy(buf, p, n);
    buf[n] = 0;
    return tread_perfetto_msgtype_find(buf);
}

/* {"type": name, "value": ...} of a proto_value annotation; p stays at
 * the annotation's start, the phase says which entry is next. The value is
 * a dict of its fields when the schema has the type (as a typed payload
 * is read), else its bytes. */
static int walk_proto(tread_args_iter *it, const unsigned char *end, tread_arg *out)
{
    pf_reader r;
    pf_field f, type, value;
    int rc, has_type = 0, has_value = 0;
    unsigned phase = proto_phase(it);

    memset(&type, 0, sizeof type);
    memset(&value, 0, sizeof value);
    pf_reader_init(&r, it->p, (size_t)(end - it->p));
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.num == DA_PROTO_TYPE_NAME || f.num == DA_PROTO_TYPE_NAME_IID) {
            type = f;
            has_type = 1;
        } else if (f.num == DA_PROTO_VALUE) {
            value = f;
            has_value = 1;
        }
    }
    if (rc != PF_END)
        return R_BAD;
    if (phase == 0 && has_type) {
        set_misc(it, slots_used(it), ret_level(it), 1);
        out->key = lit("type");
        if (type.num == DA_PROTO_TYPE_NAME) {
            set_str(out, TREAD_ARG_STRING, type.data, type.len);
            return R_ARG;
        }
        return emit_interned_string(it, IN_VALUE_TYPE_NAMES, type.v, 2, out);
    }
    if (phase <= 1 && has_value) {
        set_misc(it, slots_used(it), ret_level(it), 2);
        out->key = lit("value");
        const void *desc = has_type ? proto_value_desc(it, &type) : NULL;
        /* the level returns to the annotation's end (ret), so the proto
         * level, whose phase a child resets, finds nothing more */
        if (desc && refs_off(desc, value.data, value.data + value.len))
            desc = (const void *)((uintptr_t)desc | REFS_OFF);
        if (desc && push_desc(it, PK_SCHEMA, value.data, value.data + value.len, end, desc)) {
            out->type = TREAD_ARG_DICT_BEGIN;
            return R_ARG;
        }
        set_str(out, TREAD_ARG_BYTES, value.data, value.len);
        return R_ARG;
    }
    return R_END;
}

/* The iids inside typed payloads that name interned data, resolved as
 * trace_processor resolves them (its TrackEventParser's parsing
 * overrides), under the key of what they name. */
enum { REF_SRCLOC, REF_STRING, REF_UNSYM };

typedef struct pf_ref {
    const char *msg;  /* the message's full name */
    uint32_t num;     /* the iid's field */
    const char *key;  /* what comes out in its place */
    int how;
} pf_ref;

static const pf_ref pf_refs[] = {
    {"perfetto.protos.BeginFrameArgs", 9, "source_location", REF_SRCLOC},
    {"perfetto.protos.BeginFrameArgsV2", 9, "source_location", REF_SRCLOC},
    {"perfetto.protos.ChromeMemoryPressureNotification", 2, "creation_location", REF_SRCLOC},
    {"perfetto.protos.ChromeMessagePump", 2, "io_handler_location", REF_SRCLOC},
    {"perfetto.protos.ChromeTaskPostedToDisabledQueue", 4, "source_location", REF_SRCLOC},
    {"perfetto.protos.ChromeHistogramSample", 4, "name", REF_STRING},
    {"perfetto.protos.ChromeMojoEventInfo", 4, "mojo_interface_method", REF_UNSYM},
};

/* Whether the message [start, end) of type desc keeps its iids: a
 * ChromeHistogramSample with a name of its own (trace_processor takes
 * that name and leaves name_iid; two "name" keys would repeat one). */
static int refs_off(const void *desc, const unsigned char *start, const unsigned char *end)
{
    const ProtobufCMessageDescriptor *md = desc;
    if (strcmp(md->name, "perfetto.protos.ChromeHistogramSample") != 0)
        return 0;
    pf_reader r;
    pf_field f;
    pf_reader_init(&r, start, (size_t)(end - start));
    while (pf_next(&r, &f) == PF_OK)
        if (f.num == 2)
            return 1;
    return 0;
}

/* Field f of md resolved as *out (key and value), when it is one of
 * pf_refs and its iid is known: R_ARG (or R_BAD); else R_END, and the
 * caller gives the field as it is (trace_processor's fallback too). */
static int emit_ref(tread_args_iter *it, const ProtobufCMessageDescriptor *md,
                    const pf_field *f, tread_arg *out)
{
    if (f->wire != PF_WIRE_VARINT || level_refs_off(it))
        return R_END;
    const pf_ref *r = NULL;
    for (size_t i = 0; !r && i < sizeof pf_refs / sizeof pf_refs[0]; i++)
        if (pf_refs[i].num == f->num && strcmp(pf_refs[i].msg, md->name) == 0)
            r = &pf_refs[i];
    if (!r)
        return R_END;
    const unsigned char *m;
    size_t n;
    if (r->how == REF_STRING) {
        tread_str s;
        int rc = interned_string(it, IN_HISTOGRAM_NAMES, f->v, 2, &s);
        if (rc == R_ARG) {
            out->key = lit(r->key);
            out->type = TREAD_ARG_STRING;
            out->v.s = s;
        }
        return rc;
    }
    /* (a level over an interned message returns to the event's bytes, and
     * one such level may be open at a time: inside a proto_value, whose
     * level is one, or with the levels used up, the iid stays) */
    if (ret_level(it) || it->depth >= PF_MAX_LEVELS || slots_used(it) >= PF_MAX_LEVELS ||
        !lookup(it, r->how == REF_SRCLOC ? IN_SOURCE_LOCATIONS : IN_UNSYMBOLIZED_LOCATIONS,
                f->v, &m, &n))
        return R_END;
    out->key = lit(r->key);
    return open_container(it, r->how == REF_SRCLOC ? PK_SRCLOC : PK_UNSYM, m, m + n, it->p,
                          out);
}

/* An interned UnsymbolizedSourceLocation: "rel_pc", and its mapping's
 * "build_id" (a STRING when its bytes are printable, as Chrome writes
 * them, else BYTES). The mapping's path is not given: its components
 * would have to be joined, and a lazy iterator has no memory for that. */
static int walk_unsym(tread_args_iter *it, const unsigned char *end, tread_arg *out)
{
    pf_field f;
    int rc;
    while ((rc = next_field(it, end, &f)) == R_ARG) {
        if (f.num != 2 && f.num != 3)
            continue;
        if (f.wire != PF_WIRE_VARINT)
            return R_BAD;
        if (f.num == 3) {
            out->key = lit("rel_pc");
            set_u64(out, f.v);
            return R_ARG;
        }
        const unsigned char *m;
        size_t n;
        if (!lookup(it, IN_MAPPINGS, f.v, &m, &n))
            continue; /* an unknown mapping: no build id */
        pf_reader r;
        pf_field g;
        int mrc, has = 0;
        uint64_t bid = 0;
        pf_reader_init(&r, m, n);
        while ((mrc = pf_next(&r, &g)) == PF_OK)
            if (g.num == 2) {
                if (g.wire != PF_WIRE_VARINT)
                    return R_BAD;
                bid = g.v, has = 1;
            }
        if (mrc != PF_END)
            return R_BAD;
        tread_str s;
        int src = has ? interned_string(it, IN_BUILD_IDS, bid, 2, &s) : R_END;
        if (src == R_BAD)
            return R_BAD;
        if (src == R_END)
            continue;
        int printable = 1;
        for (size_t i = 0; i < s.len && printable; i++)
            printable = (unsigned char)s.ptr[i] >= 0x20 && (unsigned char)s.ptr[i] < 0x7f;
        out->key = lit("build_id");
        out->type = printable ? TREAD_ARG_STRING : TREAD_ARG_BYTES;
        out->v.s = s;
        return R_ARG;
    }
    return rc;
}

/* A typed payload's message through the schema: each field the schema
 * knows, keyed by name (fields it does not know are left out: a key here
 * is a name), the iids of pf_refs resolved. */
static int walk_schema(tread_args_iter *it, const unsigned char *end, tread_arg *out)
{
    const ProtobufCMessageDescriptor *md = level_desc(it);
    for (;;) {
        const unsigned char *start = it->p;
        pf_field f;
        int rc = next_field(it, end, &f);
        if (rc != R_ARG)
            return rc;
        const ProtobufCFieldDescriptor *fd;
        if (pf_walk_classify(md, &f, &fd) == PF_WALK_UNKNOWN)
            continue;
        if (fd->type == PROTOBUF_C_TYPE_UINT64 && (rc = emit_ref(it, md, &f, out)) != R_END)
            return rc;
        out->key = lit(fd->name);
        return emit_schema_field(it, md, &f, start, end, out);
    }
}

static int walk_schema_packed(tread_args_iter *it, const unsigned char *end, tread_arg *out)
{
    const ProtobufCFieldDescriptor *fd = level_desc(it);
    uint64_t raw;
    if (it->p >= end)
        return R_END;
    if (pf_walk_packed_next(fd->type, &it->p, end, &raw) != PF_OK)
        return R_BAD;
    pf_walk_arg_value(fd, raw, NULL, 0, out);
    return R_ARG;
}

/* An element of a run (pf_walk_run_end framed and classified them all). */
static int walk_schema_run(tread_args_iter *it, const unsigned char *end, tread_arg *out)
{
    const ProtobufCFieldDescriptor *fd = level_desc(it);
    pf_field f;
    int rc = next_field(it, end, &f);
    if (rc != R_ARG)
        return rc;
    if (fd->type == PROTOBUF_C_TYPE_MESSAGE)
        return open_schema(it, PK_SCHEMA, f.data, f.data + f.len, fd->descriptor, out);
    pf_walk_arg_value(fd, f.v, f.data, f.len, out);
    return R_ARG;
}

/* ------------------------------------------------------------------------ */
/* The codec                                                                */

/* After malformed data: the open containers' *_END markers, then the end. */
static int close_one(tread_args_iter *it, tread_arg *out)
{
    memset(out, 0, sizeof *out);
    if (it->depth <= 0) {
        it->p = NULL;
        return 0;
    }
    int arr = kind_is_array(kind_at(it, it->depth));
    it->depth--;
    out->type = arr ? TREAD_ARG_ARRAY_END : TREAD_ARG_DICT_END;
    out->depth = it->depth;
    return 1;
}

static int pf_args_next(tread_args_iter *it, tread_arg *out)
{
    if (it->failed)
        return close_one(it, out);
    memset(out, 0, sizeof *out);
    out->depth = it->depth;
    int kind = it->depth ? kind_at(it, it->depth) : 0;
    const unsigned char *end = it->depth ? level_end(it) : it->end;
    int rc;
    switch (kind) {
    case PK_ANN_DICT: rc = walk_ann(it, end, DA_DICT_ENTRIES, 1, out); break;
    case PK_ANN_ARRAY: rc = walk_ann(it, end, DA_ARRAY_VALUES, 0, out); break;
    case PK_NV_DICT: rc = walk_nv_dict(it, end, out); break;
    case PK_NV_DICT_SPLIT: rc = walk_nv_dict_split(it, end, out); break;
    case PK_NV_ARRAY: rc = walk_nv_array(it, end, out); break;
    case PK_PROTO: rc = walk_proto(it, end, out); break;
    case PK_SRCLOC: rc = walk_map(it, end, FMAP(fm_srcloc), out); break;
    case PK_LOGMSG: rc = walk_map(it, end, FMAP(fm_logmsg), out); break;
    case PK_TASKEXEC: rc = walk_map(it, end, FMAP(fm_taskexec), out); break;
    case PK_CALLSTACK: rc = walk_callstack(it, end, out); break;
    case PK_FRAME: rc = walk_map(it, end, FMAP(fm_frame), out); break;
    case PK_SCHEMA: rc = walk_schema(it, end, out); break;
    case PK_SCHEMA_PACKED: rc = walk_schema_packed(it, end, out); break;
    case PK_SCHEMA_RUN: rc = walk_schema_run(it, end, out); break;
    case PK_UNSYM: rc = walk_unsym(it, end, out); break;
    default: rc = walk_top(it, end, out); break;
    }
    if (rc == R_ARG)
        return 1;
    if (rc == R_BAD) {
        it->failed = 1;
        return close_one(it, out);
    }
    if (it->depth == 0) {
        it->p = it->end;
        return 0;
    }
    pop(it);
    memset(out, 0, sizeof *out);
    out->type = kind_is_array(kind) ? TREAD_ARG_ARRAY_END : TREAD_ARG_DICT_END;
    out->depth = it->depth;
    return 1;
}

/* Leaves the container whose *_BEGIN was just returned, without reading
 * what is left of it. */
static void pf_args_skip(tread_args_iter *it)
{
    if (it->depth <= 0)
        return;
    if (it->failed) {
        it->depth--; /* closing: one *_END less to give */
        return;
    }
    pop(it);
}

const tread_args_codec tread__perfetto_args_codec = {
    .init = NULL,
    .next = pf_args_next,
    .skip = pf_args_skip,
};
