/*
 * tread: streaming reader for Chrome JSON, Perfetto and Fuchsia (FXT) traces.
 *
 * Usage, in the style of expat and yajl:
 *
 *   tread_parser *p = tread_parser_create(NULL);
 *   tread_set_callbacks(p, &callbacks, user_data);
 *   while ((n = read(fd, buf, sizeof buf)) > 0)
 *       if (tread_feed(p, buf, n) != TREAD_STATUS_OK) break;
 *   tread_finish(p);
 *   tread_parser_free(p);
 *
 * Every string handed to a callback points into the parser's buffers: it is
 * valid until the callback returns and carries an explicit length (trace
 * strings may contain NUL). Strings of events whose format is JSON (or
 * cpuprofile, read by the same decoder) are also NUL-terminated for
 * convenience; strings of the other formats
 * (Perfetto, FXT, ftrace text, also inside a container) point straight
 * into the trace's bytes and are not: always use the length.
 *
 * Copyright (c) 2026 the tread authors. MIT licensed, see COPYING.
 */
#ifndef TREAD_H
#define TREAD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define TREAD_API
#elif defined(__GNUC__)
#define TREAD_API __attribute__((visibility("default")))
#else
#define TREAD_API
#endif

#define TREAD_VERSION_MAJOR 0
#define TREAD_VERSION_MINOR 3
#define TREAD_VERSION_PATCH 0
#define TREAD_VERSION_STRING "0.3.0"

/* The library's version string, e.g. "0.3.0". */
TREAD_API const char *tread_version(void);

/* ------------------------------------------------------------------------ */
/* Formats and compression                                                  */

typedef enum tread_format {
    TREAD_FORMAT_UNKNOWN = 0, /* not sniffed yet (or nothing fed) */
    TREAD_FORMAT_JSON,        /* Chrome JSON Trace Event Format */
    TREAD_FORMAT_PERFETTO,    /* Perfetto protobuf (TracePacket stream) */
    TREAD_FORMAT_FXT,         /* Fuchsia trace format */
    TREAD_FORMAT_FTRACE,      /* Linux ftrace text ("# tracer:") */
    TREAD_FORMAT_SYSTRACE,    /* Android systrace HTML */
    TREAD_FORMAT_CPUPROFILE,  /* V8 .cpuprofile (DevTools, node --cpu-prof) */
    TREAD_FORMAT_TRACEDAT,    /* trace-cmd's binary trace.dat (v6, v7) */
    TREAD_FORMAT_COUNT_
} tread_format;

typedef enum tread_compression {
    TREAD_COMPRESSION_NONE = 0,
    TREAD_COMPRESSION_GZIP,
    TREAD_COMPRESSION_ZSTD,
    TREAD_COMPRESSION_COUNT_
} tread_compression;

/* Short lower-case names: "json", "perfetto", "fxt", "ftrace", "systrace",
 * "cpuprofile", "tracedat", "unknown"; "none", "gzip", "zstd". Never NULL. */
TREAD_API const char *tread_format_name(tread_format f);
TREAD_API const char *tread_compression_name(tread_compression c);

/* ------------------------------------------------------------------------ */
/* The event model                                                          */

typedef enum tread_event_kind {
    TREAD_EVENT_UNKNOWN = 0,     /* unknown phase/record: raw fields only */
    TREAD_EVENT_SLICE_BEGIN,     /* JSON B */
    TREAD_EVENT_SLICE_END,       /* JSON E */
    TREAD_EVENT_COMPLETE,        /* JSON X: ts + dur */
    TREAD_EVENT_INSTANT,         /* JSON i, I, R */
    TREAD_EVENT_COUNTER,         /* JSON C: one event per series */
    TREAD_EVENT_ASYNC_BEGIN,     /* JSON b, S */
    TREAD_EVENT_ASYNC_STEP,      /* JSON n, T, p */
    TREAD_EVENT_ASYNC_END,       /* JSON e, F */
    TREAD_EVENT_FLOW_BEGIN,      /* JSON s */
    TREAD_EVENT_FLOW_STEP,       /* JSON t */
    TREAD_EVENT_FLOW_END,        /* JSON f */
    TREAD_EVENT_SAMPLE,          /* JSON P, top-level samples[] */
    TREAD_EVENT_OBJECT_NEW,      /* JSON N */
    TREAD_EVENT_OBJECT_SNAPSHOT, /* JSON O */
    TREAD_EVENT_OBJECT_DELETE,   /* JSON D */
    TREAD_EVENT_METADATA,        /* JSON M, top-level keys; see tread_meta */
    TREAD_EVENT_CONTEXT_SWITCH,  /* ftrace sched_switch, Fuchsia 'k' */
    TREAD_EVENT_WAKEUP,          /* ftrace sched_waking/sched_wakeup */
    TREAD_EVENT_LOG,             /* Perfetto AndroidLog/LogMessage, FXT log */
    TREAD_EVENT_MEMORY_DUMP,     /* JSON V, v */
    TREAD_EVENT_CLOCK_SYNC,      /* JSON c, Perfetto ClockSnapshot */
    TREAD_EVENT_CONTEXT_ENTER,   /* JSON ( */
    TREAD_EVENT_CONTEXT_LEAVE,   /* JSON ) */
    TREAD_EVENT_ID_LINK,         /* JSON = */
    TREAD_EVENT_BLOB,            /* FXT blob / large blob */
    TREAD_EVENT_STACK_FRAME,     /* JSON stackFrames entry (a definition) */
    TREAD_EVENT_KIND_COUNT_
} tread_event_kind;

/* Stable snake_case name of a kind ("slice_begin", ...); never NULL. */
TREAD_API const char *tread_event_kind_name(tread_event_kind k);

/* What a TREAD_EVENT_METADATA event sets. */
typedef enum tread_meta {
    TREAD_META_NONE = 0,              /* not a metadata event */
    TREAD_META_PROCESS_NAME,          /* str = name */
    TREAD_META_THREAD_NAME,           /* str = name */
    TREAD_META_PROCESS_SORT_INDEX,    /* num = sort_index */
    TREAD_META_THREAD_SORT_INDEX,     /* num = sort_index */
    TREAD_META_PROCESS_LABELS,        /* str = labels */
    TREAD_META_PROCESS_UPTIME_SECONDS,/* num = uptime */
    TREAD_META_NUM_CPUS,              /* num = number */
    TREAD_META_OTHER,                 /* any other M event: name + args */
    TREAD_META_TRACE,                 /* a top-level key of the trace file:
                                         name = key, args = {key: value} */
    TREAD_META_TRACK_DESCRIPTOR,      /* Perfetto TrackDescriptor: name and
                                         meta_str = track name, track_uuid /
                                         track_kind set, parent uuid in
                                         id_num (TREAD_HAS_ID_NUM) */
    TREAD_META_COUNT_
} tread_meta;

TREAD_API const char *tread_meta_name(tread_meta m);

/* Instant event scope (JSON "s"). */
typedef enum tread_scope {
    TREAD_SCOPE_NONE = 0, /* not given (thread scope by default) */
    TREAD_SCOPE_THREAD,
    TREAD_SCOPE_PROCESS,
    TREAD_SCOPE_GLOBAL
} tread_scope;

/* A string inside the parser's buffers: not owned, valid until the callback
 * returns. ptr is NULL when absent. For an event whose format is JSON or
 * cpuprofile ptr[len] is NUL; for the other formats it need not be (zero
 * copy): use len. */
typedef struct tread_str {
    const char *ptr;
    size_t len;
} tread_str;

/* How a tread_args holds its arguments. Every encoding is read through the
 * same iterator (tread_args_next); the lazy ones are decoded only when the
 * caller iterates, so an event whose args are never looked at costs nothing
 * for them. */
typedef enum tread_args_encoding {
    TREAD_ARGS_TOKENS = 0,  /* tread's own token stream (JSON args) */
    TREAD_ARGS_PERFETTO,    /* a TrackEvent's raw DebugAnnotation fields */
    TREAD_ARGS_FXT,         /* an FXT record's argument words */
    TREAD_ARGS_PROTO,       /* any protobuf message's bytes, read through
                               the Perfetto schema: ctx is its
                               tread_perfetto_msgtype (tread/perfetto.h);
                               fields by name, nested messages as dicts,
                               repeated fields as arrays (one per run of
                               consecutive elements), enums by name (a STRING), unknown fields
                               keyed by their number in decimal */
    TREAD_ARGS_FTRACE,      /* an ftrace text event's payload: key=value
                               fields (integers as INT, the rest STRING),
                               else the whole payload as one STRING "text"
                               (doc/formats/ftrace.md) */
    TREAD_ARGS_TRACEDAT,    /* a trace.dat event record's bytes read
                               through its format file: the event's own
                               fields (common_* left out) in the format's
                               order, integers as INT (UINT above
                               INT64_MAX), char arrays and __data_loc
                               strings as STRING, other arrays as BYTES
                               (doc/formats/tracedat.md) */
    TREAD_ARGS_ENCODING_COUNT_
} tread_args_encoding;

/* A sequence of typed arguments (see the args iterator below). Points into
 * the parser's buffers; valid until the callback returns. ctx is what a
 * lazy encoding needs to decode them (interned names, string tables). */
typedef struct tread_args {
    const unsigned char *data;
    size_t len;
    tread_args_encoding encoding;
    const void *ctx;
} tread_args;

/* A list of 64-bit ids (flow ids); points into the parser's buffers. */
typedef struct tread_ids {
    const uint64_t *v;
    size_t n;
} tread_ids;

/* What kind of track an event is on (Perfetto TrackDescriptor, FXT async
 * and counter ids). */
typedef enum tread_track_kind {
    TREAD_TRACK_NONE = 0,   /* no track: the event is on (pid, tid) */
    TREAD_TRACK_THREAD,     /* a thread's track: pid/tid resolved */
    TREAD_TRACK_PROCESS,    /* a process-scoped track: pid resolved */
    TREAD_TRACK_ASYNC,      /* an async track (no thread) */
    TREAD_TRACK_COUNTER,    /* a counter track */
    TREAD_TRACK_GLOBAL,     /* a track with no process or thread */
    TREAD_TRACK_COUNT_
} tread_track_kind;

TREAD_API const char *tread_track_kind_name(tread_track_kind k);

/* Bits of tread_event.flags: which optional fields are present. */
#define TREAD_HAS_TS          (1u << 0)
#define TREAD_HAS_DUR         (1u << 1)
#define TREAD_HAS_TTS         (1u << 2)
#define TREAD_HAS_TDUR        (1u << 3)
#define TREAD_HAS_PID         (1u << 4)
#define TREAD_HAS_TID         (1u << 5)  /* else tid == pid */
#define TREAD_HAS_ID          (1u << 6)  /* id (or id2) present */
#define TREAD_ID_LOCAL        (1u << 7)  /* id2.local: process-local id */
#define TREAD_ID_GLOBAL       (1u << 8)  /* id2.global */
#define TREAD_HAS_VALUE       (1u << 9)  /* value (counter, sample weight) */
#define TREAD_HAS_CPU         (1u << 10)
#define TREAD_FLOW_IN         (1u << 11) /* flow_in: true */
#define TREAD_FLOW_OUT        (1u << 12) /* flow_out: true */
#define TREAD_BIND_ENCLOSING  (1u << 13) /* bp: "e" */
#define TREAD_USE_ASYNC_TTS   (1u << 14) /* use_async_tts: 1/true */
#define TREAD_HAS_TIDELTA     (1u << 15)
#define TREAD_HAS_TICOUNT     (1u << 16)
#define TREAD_PID_IS_STRING   (1u << 17) /* pid_str holds the text */
#define TREAD_TID_IS_STRING   (1u << 18) /* tid_str holds the text */
#define TREAD_HAS_ID_NUM      (1u << 19) /* id text parsed as a number */
#define TREAD_HAS_META_NUM    (1u << 20) /* meta_num is set */
#define TREAD_HAS_TRACK       (1u << 21) /* track_uuid / track_kind set */
#define TREAD_HAS_SEQ         (1u << 22) /* seq_id: Perfetto sequence */
#define TREAD_HAS_RAW_TS      (1u << 23) /* ts could not be converted to the
                                            trace clock: raw_ts in clock_id
                                            (TREAD_HAS_TS is then clear) */
#define TREAD_VALUE_IS_INT    (1u << 24) /* value_int is the value as written
                                            (an integer); value holds it as
                                            a double too */
#define TREAD_HAS_PROVIDER    (1u << 25) /* FXT provider_id/provider_name */
#define TREAD_NAME_UNRESOLVED (1u << 26) /* name refers to an interned /
                                            table string that was missing */
#define TREAD_CAT_UNRESOLVED  (1u << 27) /* likewise for cat */
#define TREAD_THREAD_UNRESOLVED (1u << 28) /* a thread reference was missing:
                                            pid/tid are absent */
#define TREAD_TRACK_UNRESOLVED (1u << 29) /* Perfetto: the event's track, or
                                            one of its ancestors, names a
                                            parent uuid no descriptor has
                                            defined (yet): the event is
                                            kept (trace_processor drops it,
                                            track_hierarchy_missing_uuid) */

/*
 * One event from any format. Fields a format does not have are zero/absent.
 * Times are int64 nanoseconds (JSON microseconds are converted exactly from
 * the number's text, rounding to the nearest nanosecond).
 */
typedef struct tread_event {
    tread_event_kind kind;
    tread_format format;
    uint32_t flags;          /* TREAD_HAS_* bits */
    int phase;               /* JSON: the "ph" character (0 if absent) */

    int64_t ts;              /* ns; valid with TREAD_HAS_TS */
    int64_t dur;             /* ns; valid with TREAD_HAS_DUR */
    int64_t tts;             /* thread clock ns; TREAD_HAS_TTS */
    int64_t tdur;            /* thread clock duration ns; TREAD_HAS_TDUR */

    int64_t pid;             /* numeric id; synthetic for string pids */
    int64_t tid;             /* == pid when absent */
    tread_str pid_str;       /* original text of a string pid */
    tread_str tid_str;       /* original text of a string tid */
    int64_t cpu;             /* TREAD_HAS_CPU */

    tread_str name;
    tread_str cat;
    tread_str id;            /* id / id2.local / id2.global, as text */
    uint64_t id_num;         /* id parsed ("0x1f" or "31"), TREAD_HAS_ID_NUM */
    tread_str id_scope;      /* "scope" */
    tread_str bind_id;       /* flow v2 binding id */
    tread_str cname;         /* colour name */
    tread_scope scope;       /* instant scope "s" */

    tread_str sf, esf;       /* stack frame ids (text) */
    tread_args stack;        /* "stack" array (may be empty) */
    tread_args estack;       /* "estack" array (may be empty) */
    tread_str parent;        /* STACK_FRAME: parent frame id */

    int64_t tidelta;         /* TREAD_HAS_TIDELTA */
    int64_t ticount;         /* TREAD_HAS_TICOUNT */

    /* COUNTER: series name, value; SAMPLE (samples[]): weight. */
    tread_str series;
    double value;            /* TREAD_HAS_VALUE */
    tread_str value_text;    /* the value's literal text, when it had one */

    /* METADATA */
    tread_meta meta;
    tread_str meta_str;      /* name / labels */
    int64_t meta_num;        /* sort_index / uptime / num_cpus;
                                TREAD_HAS_META_NUM */

    tread_args args;         /* the event's arguments */

    /* Tracks, sequences, flows (Perfetto; FXT where it has them). */
    uint64_t track_uuid;     /* TREAD_HAS_TRACK */
    tread_track_kind track_kind;
    uint32_t seq_id;         /* TREAD_HAS_SEQ: trusted_packet_sequence_id */
    int64_t raw_ts;          /* TREAD_HAS_RAW_TS: timestamp as written... */
    uint32_t clock_id;       /* ...in this clock */
    tread_ids flow_ids;      /* flows this event continues or starts */
    tread_ids terminating_flow_ids; /* flows this event ends */
    int64_t value_int;       /* TREAD_VALUE_IS_INT */

    /* FXT: the provider that wrote the record (TREAD_HAS_PROVIDER). */
    uint32_t provider_id;
    tread_str provider_name;

    uint64_t offset;         /* byte offset of the raw record in the
                                decompressed input */
    const void *raw;         /* the raw record: a tread_json_raw * for JSON
                                (include/tread/json.h), a
                                tread_perfetto_packet * for Perfetto
                                (include/tread/perfetto.h), a
                                tread_fxt_record * for FXT
                                (include/tread/fxt.h) */
} tread_event;

/* ------------------------------------------------------------------------ */
/* Typed arguments                                                          */

typedef enum tread_arg_type {
    TREAD_ARG_NULL = 0,
    TREAD_ARG_BOOL,
    TREAD_ARG_INT,        /* v.i */
    TREAD_ARG_UINT,       /* v.u: an integer above INT64_MAX */
    TREAD_ARG_DOUBLE,     /* v.d: also integers beyond 64 bits, NaN, inf */
    TREAD_ARG_STRING,     /* v.s */
    TREAD_ARG_POINTER,    /* v.u */
    TREAD_ARG_KOID,       /* v.u */
    TREAD_ARG_BYTES,      /* v.s */
    TREAD_ARG_DICT_BEGIN,
    TREAD_ARG_DICT_END,
    TREAD_ARG_ARRAY_BEGIN,
    TREAD_ARG_ARRAY_END
} tread_arg_type;

TREAD_API const char *tread_arg_type_name(tread_arg_type t);

typedef struct tread_arg {
    tread_arg_type type;
    tread_str key;      /* key in the enclosing dict; ptr NULL in arrays
                           and on *_END markers */
    int depth;          /* 0 for top-level args; +1 inside each dict/array */
    union {
        int b;
        int64_t i;
        uint64_t u;
        double d;
        tread_str s;
    } v;
    tread_str text;     /* JSON numbers: the literal text as written */
} tread_arg;

/* Deepest nesting the iterator follows in a lazy encoding; deeper values
 * come out as TREAD_ARG_BYTES holding their raw encoding. */
#define TREAD_ARGS_ITER_MAX_NEST 32

/* Iterator over a tread_args; treat the fields as private. */
typedef struct tread_args_iter {
    const unsigned char *p, *end;
    int depth;
    int encoding;
    uint64_t array_bits; /* which of the 64 innermost levels are arrays */
    const void *ctx;
    /* lazy encodings: where each enclosing container ends, and a few words
     * of decoder state */
    const unsigned char *stack[TREAD_ARGS_ITER_MAX_NEST];
    uint64_t state[4];
    int failed;          /* malformed data ended the iteration early */
} tread_args_iter;

TREAD_API void tread_args_iter_init(tread_args_iter *it, const tread_args *a);

/* Stores the next argument in *out. Returns 1, or 0 at the end. Its
 * strings are valid while the event is (until the callback returns),
 * except a key made up by the iterator (TREAD_ARGS_PROTO's unknown fields
 * are keyed by their number), valid until the next call on the iterator:
 * copy it to keep it. */
TREAD_API int tread_args_next(tread_args_iter *it, tread_arg *out);

/* Skips the rest of the dict/array whose *_BEGIN was just returned. */
TREAD_API void tread_args_skip(tread_args_iter *it);

/* 1 when the iteration ended early because the (lazily decoded) argument
 * data was malformed; what came before was delivered. */
TREAD_API int tread_args_iter_failed(const tread_args_iter *it);

/* Finds an argument by flattened key: "data.frame", "stack.2" (array index).
 * On success stores it in *out (for dicts/arrays, the *_BEGIN marker) and
 * returns 1; returns 0 if absent. Duplicate keys: the first wins. */
TREAD_API int tread_args_find(const tread_args *a, const char *key,
                              size_t key_len, tread_arg *out);

/* ------------------------------------------------------------------------ */
/* Errors and warnings                                                      */

typedef enum tread_error {
    TREAD_ERROR_NONE = 0,
    TREAD_ERROR_NOMEM,          /* allocation failed */
    TREAD_ERROR_MISUSE,         /* API called in the wrong state */
    TREAD_ERROR_IO,             /* read failed (tread_parse_fd/_path) */
    TREAD_ERROR_DECOMPRESS,     /* corrupt gzip/zstd stream */
    TREAD_ERROR_UNKNOWN_FORMAT, /* not a trace format tread knows */
    TREAD_ERROR_UNSUPPORTED,    /* recognised, decoder not available yet */
    TREAD_ERROR_SYNTAX,         /* malformed input that cannot be skipped */
    TREAD_ERROR_LIMIT_DEPTH,    /* nesting deeper than TREAD_OPT_MAX_DEPTH */
    TREAD_ERROR_LIMIT_EVENT,    /* record larger than TREAD_OPT_MAX_EVENT_BYTES */
    TREAD_ERROR_LIMIT_STRING,   /* string longer than TREAD_OPT_MAX_STRING_BYTES */
    TREAD_ERROR_LIMIT_MEMORY,   /* a memory bound was reached: a decompression
                                   bomb (TREAD_OPT_MAX_DECOMPRESSED_BYTES),
                                   interned data (TREAD_OPT_MAX_INTERNED_BYTES) */
    TREAD_ERROR_COUNT_
} tread_error;

TREAD_API const char *tread_error_name(tread_error e);

typedef enum tread_warning_kind {
    TREAD_WARN_UNKNOWN_PHASE = 0,  /* event kept as TREAD_EVENT_UNKNOWN */
    TREAD_WARN_TRUNCATED_EVENT,    /* event cut off at end of input: dropped */
    TREAD_WARN_MISSING_END,        /* input ended without closing ] or } */
    TREAD_WARN_EMPTY_EVENT,        /* {} in traceEvents: skipped */
    TREAD_WARN_BAD_FIELD,          /* a known field with an unusable value:
                                      the field is ignored */
    TREAD_WARN_NUMBER_RANGE,       /* a time out of int64 ns range: ignored */
    TREAD_WARN_NONSTANDARD_JSON,   /* NaN/Infinity/trailing comma/BOM
                                      accepted (lenient mode); // and block
                                      comments are accepted silently */
    TREAD_WARN_BAD_COUNTER_VALUE,  /* non-numeric counter series: skipped */
    TREAD_WARN_TRAILING_DATA,      /* bytes after the end of the trace */
    TREAD_WARN_NOT_AN_EVENT,       /* a non-object in an event array: skipped */
    TREAD_WARN_COMPRESSED_TRUNCATED, /* gzip/zstd stream cut short: what
                                      arrived was decoded */
    TREAD_WARN_BAD_RECORD,         /* a binary record, packet, argument or
                                      field overruns its bounds or does not
                                      decode: skipped by its size */
    TREAD_WARN_UNKNOWN_RECORD,     /* a record/packet type tread does not
                                      know: skipped by its size */
    TREAD_WARN_UNRESOLVED_REF,     /* an interned id, string or thread
                                      reference that was never defined: the
                                      event is kept, marked unresolved */
    TREAD_WARN_DATA_LOSS,          /* the producer lost data (Perfetto
                                      previous_packet_dropped, ftrace LOST
                                      EVENTS) */
    TREAD_WARN_DROPPED_PACKET,     /* a packet needing incremental state on
                                      a sequence whose state is invalid:
                                      dropped */
    TREAD_WARN_CLOCK,              /* a timestamp that could not be moved
                                      onto the trace clock: raw value kept */
    TREAD_WARN_LIMIT,              /* a table bound was reached (V8 profile
                                      nodes, TREAD_OPT_MAX_PROFILE_NODES):
                                      what did not fit is delivered less
                                      resolved */
    TREAD_WARN_FORMAT_MISMATCH,    /* TREAD_OPT_FORMAT forced a format the
                                      sniffer does not see in the input:
                                      the message says what it saw */
    TREAD_WARN_KIND_COUNT_
} tread_warning_kind;

TREAD_API const char *tread_warning_name(tread_warning_kind k);

typedef struct tread_warning {
    tread_warning_kind kind;
    uint64_t offset;        /* byte offset in the decompressed input */
    const char *message;    /* human-readable, NUL-terminated; valid until
                               the callback returns */
} tread_warning;

/* ------------------------------------------------------------------------ */
/* Allocation, options, callbacks                                           */

/* Allocator hooks, as yajl has. All three must be set. */
typedef struct tread_allocator {
    void *(*malloc_fn)(void *ctx, size_t size);
    void *(*realloc_fn)(void *ctx, void *ptr, size_t size);
    void (*free_fn)(void *ctx, void *ptr);
    void *ctx;
} tread_allocator;

typedef enum tread_option {
    TREAD_OPT_FORMAT = 1,          /* force a tread_format (default: sniff) */
    TREAD_OPT_MAX_DEPTH,           /* JSON nesting, default 256 */
    TREAD_OPT_MAX_EVENT_BYTES,     /* one record, default 64 MiB */
    TREAD_OPT_MAX_STRING_BYTES,    /* one string, default 32 MiB */
    TREAD_OPT_LENIENT,             /* 1 (default): accept NaN, Infinity,
                                      trailing commas, a BOM; 0: strict */
    TREAD_OPT_DECOMPRESS,          /* 1 (default): gunzip/unzstd input */
    TREAD_OPT_MAX_WARNINGS_REPORTED, /* warnings passed to the callback,
                                       default unlimited (-1); all are
                                       counted in the stats regardless */
    TREAD_OPT_ZSTD_WINDOW_LOG_MAX, /* largest zstd window accepted, as a
                                      power of two: default 27 (128 MiB),
                                      range 10..31; bounds memory */
    TREAD_OPT_JSON_FAST_PATH,      /* 1 (default): plain JSON event records
                                      are read by tread's own strict
                                      scanner, the rest by yajl; 0: yajl
                                      reads everything. Events, warnings
                                      and errors are the same either way */
    TREAD_OPT_MAX_DECOMPRESSED_BYTES, /* what one compressed packet
                                      (Perfetto compressed_packets) may
                                      expand to, default 512 MiB; more is
                                      TREAD_ERROR_LIMIT_MEMORY */
    TREAD_OPT_MAX_INTERNED_BYTES,  /* interned data held per parser
                                      (Perfetto sequences, FXT string
                                      tables), default 256 MiB; more is
                                      TREAD_ERROR_LIMIT_MEMORY */
    TREAD_OPT_MAX_LINE_BYTES,      /* one line of a text format (ftrace),
                                      default 1 MiB, at least 256; a longer
                                      line is skipped with a counted
                                      TREAD_WARN_BAD_RECORD */
    TREAD_OPT_PERFETTO_FAST_PATH,  /* 1 (default): common TrackEvent
                                      packets are read by a specialised
                                      reader, the rest by the general one;
                                      0: the general reader reads every
                                      packet. Events, warnings, errors
                                      and the packets the perfetto_packet
                                      hook sees are the same either way */
    TREAD_OPT_DECOMPRESS_THREAD,   /* gzip/zstd input and Perfetto
                                      compressed packets expanded on a
                                      second thread, beside decoding:
                                      -1 (default) when the parser uses the
                                      default allocator, 1 also with
                                      tread_allocator hooks (which must
                                      then be thread-safe: the thread
                                      allocates through them), 0 never.
                                      A side waiting for the other spins
                                      up to 200 us before it sleeps, and
                                      spins less often after spins that
                                      ran out (a loaded machine).
                                      Events, warnings and errors are the
                                      same either way */
    TREAD_OPT_RANGE_BEGIN,         /* the byte range [BEGIN, END) of the
                                      decompressed input whose records are
                                      reported: BEGIN default 0, */
    TREAD_OPT_RANGE_END,           /* END default -1 (the end of input).
                                      FXT and JSON; see "Byte ranges" below */
    TREAD_OPT_READ_THREAD,         /* 1 (default): tread_parse_fd and
                                      tread_parse_path read a regular file
                                      ahead on a second thread, beside the
                                      decoding (pipes, terminals and
                                      sockets are always read inline); 0:
                                      the calling thread reads. The thread
                                      only calls read(2), never the
                                      allocator or a callback. Events,
                                      warnings and errors are the same
                                      either way; the fd's offset after an
                                      error or a stop is not specified */
    TREAD_OPT_MAX_PROFILE_NODES,   /* V8 CPU profiles (JSON Profile /
                                      ProfileChunk / CpuProfile events,
                                      .cpuprofile files): profiles and
                                      nodes remembered per parser, default
                                      1048576 (32 bytes each, twice that
                                      in table slack), at least 16. Past
                                      it a counted TREAD_WARN_LIMIT: nodes
                                      are not remembered (a frame may come
                                      again, a parent from a children list
                                      is lost) and a new profile's records
                                      are delivered unexpanded. Also the
                                      callsites of Perfetto CPU samples
                                      remembered (16 bytes each); past it
                                      they are not defined */
    TREAD_OPT_INFLATE,             /* what inflates gzip input and Perfetto
                                      compressed packets: -1 (default) the
                                      fastest built in, isa-l when tread
                                      was built with it (configure
                                      --with-isal), else zlib; 0 zlib;
                                      1 isa-l (tread_config fails when
                                      not built with it). For tests and
                                      comparison: events and warnings of
                                      intact data are the same either way;
                                      see tread(3) for damaged data */
    TREAD_OPT_MAX_TRACEDAT_META_BYTES /* trace.dat: the largest metadata
                                      item held (a format file, kallsyms,
                                      printk formats, saved cmdlines, a v7
                                      section or data chunk expanded) and
                                      the total of the event format tables,
                                      default 64 MiB, at least 4096; more
                                      is TREAD_ERROR_LIMIT_MEMORY */
} tread_option;

typedef struct tread_json_raw tread_json_raw;
typedef struct tread_perfetto_packet tread_perfetto_packet; /* tread/perfetto.h */
typedef struct tread_fxt_record tread_fxt_record;           /* tread/fxt.h */
typedef struct tread_ftrace_line tread_ftrace_line;         /* tread/ftrace.h */

/* A piece of a blob (FXT blob and large blob records): large payloads are
 * never buffered whole, they arrive in pieces of at most a few KiB, in
 * order, each with the total size. */
typedef struct tread_blob {
    tread_str name;          /* blob name (may be unresolved: empty) */
    uint64_t total_size;     /* payload bytes in the whole blob */
    uint64_t piece_offset;   /* where this piece starts in the payload */
    const unsigned char *data;
    size_t len;              /* this piece's bytes */
    int last;                /* 1 on the final piece */
    uint32_t blob_type;      /* format-specific type (FXT blob type) */
    uint64_t offset;         /* byte offset of the record in the input */
    const void *raw;         /* format-specific: a tread_fxt_record * */
} tread_blob;

/* Callbacks. Any may be NULL. A non-zero return stops the parse at the
 * next event boundary (event: right after it; warning/json_raw: at the end
 * of the current record), or at the end of the current call if that comes
 * first. The call (tread_feed, tread_finish, tread_resume, tread_parse_*)
 * then returns TREAD_STATUS_PAUSED, exactly when a callback asked to stop
 * during it, and tread_resume continues exactly where it stopped. */
typedef struct tread_callbacks {
    int (*event)(void *user, const tread_event *ev);
    int (*warning)(void *user, const tread_warning *w);
    /* Raw hook: every JSON object of traceEvents/samples/stackFrames/
     * systemTraceEvents, before the events made from it. */
    int (*json_raw)(void *user, const tread_json_raw *raw);
    /* Blob payloads, piece by piece (see tread_blob). */
    int (*blob)(void *user, const tread_blob *b);
    /* Raw hook: every Perfetto TracePacket (compressed ones expanded),
     * before the events made from it. */
    int (*perfetto_packet)(void *user, const tread_perfetto_packet *pkt);
    /* Raw hook: every FXT record, before the events made from it. */
    int (*fxt_record)(void *user, const tread_fxt_record *rec);
    /* Raw hook: every line of ftrace text (top-level or in a container),
     * before the event made from it. A stop asked for on a line that
     * gives no event waits for the next event. */
    int (*ftrace_line)(void *user, const tread_ftrace_line *line);
} tread_callbacks;

typedef enum tread_status {
    TREAD_STATUS_OK = 0,
    TREAD_STATUS_PAUSED = 1, /* a callback asked to stop; see tread_resume */
    TREAD_STATUS_ERROR = -1  /* see tread_get_error */
} tread_status;

typedef struct tread_parser tread_parser;

/* Creates a parser. alloc may be NULL (malloc/realloc/free). Returns NULL
 * when out of memory. */
TREAD_API tread_parser *tread_parser_create(const tread_allocator *alloc);
TREAD_API void tread_parser_free(tread_parser *p);

/* Sets an option. Only before the first byte is fed. Returns 0, or -1 for
 * an unknown option, a value out of range, or a parse already started. */
TREAD_API int tread_config(tread_parser *p, tread_option opt, int64_t value);

TREAD_API void tread_set_callbacks(tread_parser *p, const tread_callbacks *cb,
                                   void *user);

/* ------------------------------------------------------------------------ */
/* Parsing                                                                  */

/* Pushes len bytes (any chunking, down to one byte at a time). */
TREAD_API tread_status tread_feed(tread_parser *p, const void *data,
                                  size_t len);

/* Ends the input: flushes what is pending and reports damaged endings. */
TREAD_API tread_status tread_finish(tread_parser *p);

/* After TREAD_STATUS_PAUSED: continues with the input that was fed but not
 * yet parsed (and, for tread_parse_fd/_path, the rest of the file; for a
 * pause inside tread_finish, the end of input). Returns like tread_feed. */
TREAD_API tread_status tread_resume(tread_parser *p);

/* Convenience: reads fd to its end with large reads, feeding and finishing.
 * The fd is not closed. On TREAD_STATUS_PAUSED, tread_resume goes on. */
TREAD_API tread_status tread_parse_fd(tread_parser *p, int fd);

/* Same for a path ("-" is standard input). */
TREAD_API tread_status tread_parse_path(tread_parser *p, const char *path);

/* 0 once more input would be ignored or refused: after an error, after
 * tread_finish, or past the end of the byte range (TREAD_OPT_RANGE_END),
 * so that a caller feeding from a file may stop reading; 1 otherwise
 * (also while paused: tread_resume goes on). */
TREAD_API int tread_wants_input(const tread_parser *p);

/* Byte ranges (TREAD_OPT_RANGE_BEGIN, TREAD_OPT_RANGE_END), for reading
 * one trace on several threads: N parsers, each given one of N ranges
 * that cover the input end to end, each fed the input from its start,
 * between them report every record once, and each reports the records
 * that begin in its range in input order. A parser reads the records
 * before BEGIN only for the state they carry (FXT: string, thread,
 * provider and initialization records; JSON: records outside arrays of
 * records, and V8 profile records), skipping the rest (FXT by size, JSON
 * with a structural scanner), and
 * reports nothing of them: no events, raw records, blobs or warnings, and
 * its stats and format counters count from BEGIN on (bytes_in and
 * bytes_decoded excepted). Once a record begins at or after END it stops:
 * tread_feed takes and ignores the rest of the input, tread_parse_fd and
 * tread_parse_path read no further, and tread_finish reports nothing of
 * the record that was cut. An error before BEGIN is still an error.
 * FXT and JSON (not .cpuprofile) only: with a range, another format
 * fails with TREAD_ERROR_UNSUPPORTED once it is recognised. The JSON
 * scanner does not check syntax, so the ranges after one that fails are
 * not to be used: the first that fails has the whole's error. */

/* The error after TREAD_STATUS_ERROR: code, message, byte offset in the
 * decompressed input (for TREAD_ERROR_DECOMPRESS and TREAD_ERROR_IO, in the
 * raw input). */
TREAD_API tread_error tread_get_error(const tread_parser *p);
TREAD_API const char *tread_get_error_message(const tread_parser *p);
TREAD_API uint64_t tread_get_error_offset(const tread_parser *p);

/* ------------------------------------------------------------------------ */
/* Statistics                                                               */

typedef struct tread_stats {
    uint64_t bytes_in;        /* bytes fed (possibly compressed) */
    uint64_t bytes_decoded;   /* bytes after decompression */
    tread_format format;
    tread_compression compression;
    uint64_t events;          /* events delivered, all kinds */
    uint64_t events_by_kind[TREAD_EVENT_KIND_COUNT_];
    uint64_t warnings;
    uint64_t warnings_by_kind[TREAD_WARN_KIND_COUNT_];
    uint64_t records;         /* raw records read: JSON objects, Perfetto
                                 packets, FXT records */
    uint64_t fast_records;    /* of which read by a fast path: JSON
                                 records (TREAD_OPT_JSON_FAST_PATH),
                                 Perfetto packets
                                 (TREAD_OPT_PERFETTO_FAST_PATH) */
} tread_stats;

TREAD_API void tread_get_stats(const tread_parser *p, tread_stats *out);

/* Format-specific counters (Perfetto packets, sequences, data loss by
 * cause; FXT records by type, table misses; ...), as stable snake_case
 * names with values. Stores up to max of them in out and returns how many
 * there are in all (call with max 0 to size the array). Names and values
 * are valid until the parser is freed or fed again. */
typedef struct tread_counter {
    const char *name;
    uint64_t value;
} tread_counter;

TREAD_API size_t tread_get_format_counters(const tread_parser *p,
                                           tread_counter *out, size_t max);

#ifdef __cplusplus
}
#endif
#endif /* TREAD_H */
