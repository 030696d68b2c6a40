/* Stable names of the public enums (used by the CLI's output schemas). */
#include <tread.h>

#define NAME_OF(table, i) \
    ((unsigned)(i) < sizeof(table) / sizeof((table)[0]) && (table)[i] ? (table)[i] : "unknown")

const char *tread_version(void) { return TREAD_VERSION_STRING; }

const char *tread_format_name(tread_format f)
{
    static const char *const n[] = {"unknown", "json", "perfetto", "fxt", "ftrace", "systrace",
                                      "cpuprofile", "tracedat"};
    return NAME_OF(n, f);
}

const char *tread_compression_name(tread_compression c)
{
    static const char *const n[] = {"none", "gzip", "zstd"};
    return NAME_OF(n, c);
}

const char *tread_event_kind_name(tread_event_kind k)
{
    static const char *const n[TREAD_EVENT_KIND_COUNT_] = {
        [TREAD_EVENT_UNKNOWN] = "unknown",
        [TREAD_EVENT_SLICE_BEGIN] = "slice_begin",
        [TREAD_EVENT_SLICE_END] = "slice_end",
        [TREAD_EVENT_COMPLETE] = "complete",
        [TREAD_EVENT_INSTANT] = "instant",
        [TREAD_EVENT_COUNTER] = "counter",
        [TREAD_EVENT_ASYNC_BEGIN] = "async_begin",
        [TREAD_EVENT_ASYNC_STEP] = "async_step",
        [TREAD_EVENT_ASYNC_END] = "async_end",
        [TREAD_EVENT_FLOW_BEGIN] = "flow_begin",
        [TREAD_EVENT_FLOW_STEP] = "flow_step",
        [TREAD_EVENT_FLOW_END] = "flow_end",
        [TREAD_EVENT_SAMPLE] = "sample",
        [TREAD_EVENT_OBJECT_NEW] = "object_new",
        [TREAD_EVENT_OBJECT_SNAPSHOT] = "object_snapshot",
        [TREAD_EVENT_OBJECT_DELETE] = "object_delete",
        [TREAD_EVENT_METADATA] = "metadata",
        [TREAD_EVENT_CONTEXT_SWITCH] = "context_switch",
        [TREAD_EVENT_WAKEUP] = "wakeup",
        [TREAD_EVENT_LOG] = "log",
        [TREAD_EVENT_MEMORY_DUMP] = "memory_dump",
        [TREAD_EVENT_CLOCK_SYNC] = "clock_sync",
        [TREAD_EVENT_CONTEXT_ENTER] = "context_enter",
        [TREAD_EVENT_CONTEXT_LEAVE] = "context_leave",
        [TREAD_EVENT_ID_LINK] = "id_link",
        [TREAD_EVENT_BLOB] = "blob",
        [TREAD_EVENT_STACK_FRAME] = "stack_frame",
    };
    return NAME_OF(n, k);
}

const char *tread_meta_name(tread_meta m)
{
    static const char *const n[TREAD_META_COUNT_] = {
        [TREAD_META_NONE] = "none",
        [TREAD_META_PROCESS_NAME] = "process_name",
        [TREAD_META_THREAD_NAME] = "thread_name",
        [TREAD_META_PROCESS_SORT_INDEX] = "process_sort_index",
        [TREAD_META_THREAD_SORT_INDEX] = "thread_sort_index",
        [TREAD_META_PROCESS_LABELS] = "process_labels",
        [TREAD_META_PROCESS_UPTIME_SECONDS] = "process_uptime_seconds",
        [TREAD_META_NUM_CPUS] = "num_cpus",
        [TREAD_META_OTHER] = "other",
        [TREAD_META_TRACE] = "trace",
        [TREAD_META_TRACK_DESCRIPTOR] = "track_descriptor",
    };
    return NAME_OF(n, m);
}

const char *tread_track_kind_name(tread_track_kind k)
{
    static const char *const n[TREAD_TRACK_COUNT_] = {
        [TREAD_TRACK_NONE] = "none",
        [TREAD_TRACK_THREAD] = "thread",
        [TREAD_TRACK_PROCESS] = "process",
        [TREAD_TRACK_ASYNC] = "async",
        [TREAD_TRACK_COUNTER] = "counter",
        [TREAD_TRACK_GLOBAL] = "global",
    };
    return NAME_OF(n, k);
}

const char *tread_arg_type_name(tread_arg_type t)
{
    static const char *const n[] = {
        "null", "bool", "int", "uint", "double", "string", "pointer", "koid",
        "bytes", "dict_begin", "dict_end", "array_begin", "array_end"};
    return NAME_OF(n, t);
}

const char *tread_error_name(tread_error e)
{
    static const char *const n[TREAD_ERROR_COUNT_] = {
        [TREAD_ERROR_NONE] = "none",
        [TREAD_ERROR_NOMEM] = "nomem",
        [TREAD_ERROR_MISUSE] = "misuse",
        [TREAD_ERROR_IO] = "io",
        [TREAD_ERROR_DECOMPRESS] = "decompress",
        [TREAD_ERROR_UNKNOWN_FORMAT] = "unknown_format",
        [TREAD_ERROR_UNSUPPORTED] = "unsupported",
        [TREAD_ERROR_SYNTAX] = "syntax",
        [TREAD_ERROR_LIMIT_DEPTH] = "limit_depth",
        [TREAD_ERROR_LIMIT_EVENT] = "limit_event",
        [TREAD_ERROR_LIMIT_STRING] = "limit_string",
        [TREAD_ERROR_LIMIT_MEMORY] = "limit_memory",
    };
    return NAME_OF(n, e);
}

const char *tread_warning_name(tread_warning_kind k)
{
    static const char *const n[TREAD_WARN_KIND_COUNT_] = {
        [TREAD_WARN_UNKNOWN_PHASE] = "unknown_phase",
        [TREAD_WARN_TRUNCATED_EVENT] = "truncated_event",
        [TREAD_WARN_MISSING_END] = "missing_end",
        [TREAD_WARN_EMPTY_EVENT] = "empty_event",
        [TREAD_WARN_BAD_FIELD] = "bad_field",
        [TREAD_WARN_NUMBER_RANGE] = "number_range",
        [TREAD_WARN_NONSTANDARD_JSON] = "nonstandard_json",
        [TREAD_WARN_BAD_COUNTER_VALUE] = "bad_counter_value",
        [TREAD_WARN_TRAILING_DATA] = "trailing_data",
        [TREAD_WARN_NOT_AN_EVENT] = "not_an_event",
        [TREAD_WARN_COMPRESSED_TRUNCATED] = "compressed_truncated",
        [TREAD_WARN_BAD_RECORD] = "bad_record",
        [TREAD_WARN_UNKNOWN_RECORD] = "unknown_record",
        [TREAD_WARN_UNRESOLVED_REF] = "unresolved_ref",
        [TREAD_WARN_DATA_LOSS] = "data_loss",
        [TREAD_WARN_DROPPED_PACKET] = "dropped_packet",
        [TREAD_WARN_CLOCK] = "clock",
        [TREAD_WARN_LIMIT] = "limit",
        [TREAD_WARN_FORMAT_MISMATCH] = "format_mismatch",
    };
    return NAME_OF(n, k);
}
