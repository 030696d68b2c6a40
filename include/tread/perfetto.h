/*
 * tread/perfetto.h: the raw, format-level view of Perfetto protobuf traces.
 *
 * The perfetto_packet callback (tread_callbacks.perfetto_packet) receives
 * every TracePacket, the packets inside compressed_packets and
 * zstd_compressed_packets included (the compressed container itself is not
 * delivered), before the tread_events made from it; tread_event.raw points
 * to the same structure for Perfetto events. doc/formats/perfetto.md.
 */
#ifndef TREAD_PERFETTO_H
#define TREAD_PERFETTO_H

#include <tread.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bits of tread_perfetto_packet.state. */
#define TREAD_PF_STATE_VALID      (1u << 0) /* the sequence's incremental state
                                               is valid (after this packet's
                                               own clear / data loss) */
#define TREAD_PF_STATE_CLEARED    (1u << 1) /* this packet cleared it */
#define TREAD_PF_STATE_DROPPED    (1u << 2) /* this packet needs incremental
                                               state that is invalid: no
                                               events are made from it */
#define TREAD_PF_STATE_DATA_LOSS  (1u << 3) /* previous_packet_dropped counted
                                               as data loss on this packet */
#define TREAD_PF_STATE_FIRST      (1u << 4) /* first packet of its sequence */
#define TREAD_PF_STATE_COMPRESSED (1u << 5) /* came out of a compressed packet */
#define TREAD_PF_STATE_HAS_TS     (1u << 6) /* timestamp field present */
#define TREAD_PF_STATE_TS_RAW     (1u << 7) /* ...but not convertible: ts is the
                                               raw value on clock_id */
#define TREAD_PF_STATE_CLOCK_FIXED (1u << 8) /* a timestamp has been converted
                                               (this packet's or an earlier
                                               one's): trace_clock_id can no
                                               longer change */
#define TREAD_PF_STATE_CLOCK_BAD  (1u << 9) /* this packet's clock_snapshot was
                                               ignored whole (not valid, or at
                                               odds with earlier snapshots) */

struct tread_perfetto_packet {
    const unsigned char *data; /* the TracePacket message bytes */
    size_t len;
    uint32_t seq_id;           /* trusted_packet_sequence_id (0 if absent) */
    uint32_t clock_id;         /* the packet's timestamp clock */
    int64_t ts;                /* trace-clock ns (TREAD_PF_STATE_HAS_TS) */
    uint32_t sequence_flags;   /* TracePacket.sequence_flags as written */
    uint32_t state;            /* TREAD_PF_STATE_* */
    uint64_t offset;           /* byte offset of the packet's field in the
                                  decompressed input (inside a compressed
                                  packet: that packet's offset) */
    uint32_t trace_clock_id;   /* the trace clock once this packet is read
                                  (primary_trace_clock, else BOOTTIME 6) */
};

/* ------------------------------------------------------------------------ */
/* The schema and the reflective walk                                       */
/*
 * libtread carries the Perfetto schema (proto/, compiled by protoc-c) and
 * walks any message's bytes with it: every field is reported by name,
 * number and type with its value, read zero-copy from the bytes (strings
 * and bytes point into them). doc/formats/perfetto.md, "The schema and the
 * reflective walk".
 */

/* A message type of the schema (opaque; lives as long as the library). */
typedef struct tread_perfetto_msgtype tread_perfetto_msgtype;

/* The message type named by its full name ("perfetto.protos.TracePacket",
 * "perfetto.protos.FtraceEvent"), or NULL when the schema has none. */
TREAD_API const tread_perfetto_msgtype *
tread_perfetto_msgtype_find(const char *full_name);

/* Its full name ("perfetto.protos.TracePacket"). */
TREAD_API const char *
tread_perfetto_msgtype_name(const tread_perfetto_msgtype *t);

/* The protobuf type of a field, as declared in the schema. */
typedef enum tread_perfetto_type {
    TREAD_PF_TYPE_UNKNOWN = 0, /* a field the schema does not declare (or
                                  whose wire type does not match it) */
    TREAD_PF_TYPE_INT32, TREAD_PF_TYPE_SINT32, TREAD_PF_TYPE_SFIXED32,
    TREAD_PF_TYPE_INT64, TREAD_PF_TYPE_SINT64, TREAD_PF_TYPE_SFIXED64,
    TREAD_PF_TYPE_UINT32, TREAD_PF_TYPE_FIXED32,
    TREAD_PF_TYPE_UINT64, TREAD_PF_TYPE_FIXED64,
    TREAD_PF_TYPE_FLOAT, TREAD_PF_TYPE_DOUBLE,
    TREAD_PF_TYPE_BOOL, TREAD_PF_TYPE_ENUM,
    TREAD_PF_TYPE_STRING, TREAD_PF_TYPE_BYTES,
    TREAD_PF_TYPE_MESSAGE
} tread_perfetto_type;

/* Its name as in a .proto file ("sint32", "enum", "message", "unknown"). */
TREAD_API const char *tread_perfetto_type_name(tread_perfetto_type t);

/* What one step of the walk reports. */
typedef enum tread_perfetto_step {
    TREAD_PF_FIELD = 1,     /* a value (one element of a repeated field) */
    TREAD_PF_MESSAGE_BEGIN, /* a nested message is entered... */
    TREAD_PF_MESSAGE_END,   /* ...and left */
    TREAD_PF_UNKNOWN        /* a field the schema does not know: raw value */
} tread_perfetto_step;

typedef struct tread_perfetto_field {
    tread_perfetto_step step;
    const char *name;        /* field name; NULL for TREAD_PF_UNKNOWN */
    uint32_t number;         /* field number */
    tread_perfetto_type type;
    int wire_type;           /* 0 varint, 1 fixed64, 2 length, 5 fixed32 */
    int depth;               /* 0 for the walked message's own fields */
    int repeated;            /* declared repeated */
    int packed;              /* an element of a packed run */
    /* TREAD_PF_FIELD: signed types in v.i, unsigned in v.u, float and
     * double in v.d, bool in v.b, enum in v.i with enum_name (NULL when
     * the number is not one of the enum's values). TREAD_PF_UNKNOWN:
     * varint and fixed values in v.u. */
    union {
        int64_t i;
        uint64_t u;
        double d;
        int b;
    } v;
    const char *enum_name;
    /* string/bytes value, an unknown length-delimited field's payload, a
     * MESSAGE_BEGIN's message bytes (not NUL-terminated) */
    const unsigned char *data;
    size_t len;
    const tread_perfetto_msgtype *msgtype; /* MESSAGE_BEGIN/END: its type */
    uint64_t offset;         /* of the field's tag in the walked bytes */
} tread_perfetto_field;

/* Return 0 to go on; TREAD_PF_WALK_SKIP from a MESSAGE_BEGIN to not enter
 * it (no END follows); any other value stops the walk, which returns it. */
#define TREAD_PF_WALK_SKIP 1
typedef int (*tread_perfetto_walk_cb)(void *user, const tread_perfetto_field *f);

/* Deepest message nesting walked by default, and the most allowed. */
#define TREAD_PF_WALK_DEFAULT_MAX_DEPTH 64
#define TREAD_PF_WALK_MAX_DEPTH_LIMIT 256

/* Why a walk failed (tread_perfetto_walk returns the negated value). */
typedef enum tread_perfetto_walk_error {
    TREAD_PF_WALK_OK = 0,
    TREAD_PF_WALK_MALFORMED = 1, /* bytes are not a valid protobuf message */
    TREAD_PF_WALK_TOO_DEEP = 2,  /* nesting beyond max_depth */
    TREAD_PF_WALK_MISUSE = 3     /* NULL type/callback, bad max_depth */
} tread_perfetto_walk_error;

typedef struct tread_perfetto_walk_result {
    tread_perfetto_walk_error error;
    uint64_t offset;         /* where the error is, in the walked bytes */
    const char *message;     /* what is wrong (static text) */
} tread_perfetto_walk_result;

/* Walks data[0, len) as a message of type t, calling cb for every field in
 * wire order (nested messages entered depth-first, packed repeated fields
 * element by element). max_depth: deepest nesting entered (0 = the
 * default); a message nested deeper is an error. Returns 0 when the walk
 * finished, the callback's value when it stopped the walk, or
 * -TREAD_PF_WALK_* with *res (may be NULL) saying where and why. Never
 * allocates. */
TREAD_API int tread_perfetto_walk(const tread_perfetto_msgtype *t,
                                  const void *data, size_t len, int max_depth,
                                  tread_perfetto_walk_cb cb, void *user,
                                  tread_perfetto_walk_result *res);

/* The same for a delivered packet (perfetto_packet callback, ev->raw). */
TREAD_API int tread_perfetto_walk_packet(const struct tread_perfetto_packet *pk,
                                         int max_depth,
                                         tread_perfetto_walk_cb cb, void *user,
                                         tread_perfetto_walk_result *res);

/* The packet's (or any message's) fields as a tread_args of encoding
 * TREAD_ARGS_PROTO, for tread_args_next / tread_args_find. */
TREAD_API tread_args tread_perfetto_args(const tread_perfetto_msgtype *t,
                                         const void *data, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* TREAD_PERFETTO_H */
