/*
 * tread/json.h: the raw, format-level view of Chrome JSON traces.
 *
 * The json_raw callback (tread_callbacks.json_raw) receives every JSON
 * object tread reads as a record, before the tread_events made from it;
 * tread_event.raw points to the same structure for JSON events.
 */
#ifndef TREAD_JSON_H
#define TREAD_JSON_H

#include <tread.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where in the trace file a JSON record stands. */
typedef enum tread_json_section {
    TREAD_JSON_TRACE_EVENTS = 0, /* traceEvents[] or the top-level array */
    TREAD_JSON_SAMPLES,          /* top-level samples[] */
    TREAD_JSON_STACK_FRAMES,     /* a value of the stackFrames dict */
    TREAD_JSON_SYSTEM_EVENTS,    /* systemTraceEvents.events[] (Fuchsia) */
    TREAD_JSON_TOP_LEVEL,        /* any other top-level key's value */
    TREAD_JSON_PROFILE_NODES     /* an element of a .cpuprofile's nodes[]
                                    (TREAD_FORMAT_CPUPROFILE) */
} tread_json_section;

struct tread_json_raw {
    tread_json_section section;
    uint64_t offset;    /* byte offset of the record's first byte: its '{'
                           (TOP_LEVEL: the value's first byte; for a
                           string with escapes, a byte inside it) */
    uint64_t length;    /* bytes from offset through the record's end */
    tread_str key;      /* stackFrames: the frame id; TOP_LEVEL: the key */
    /* Every member of the object in input order, unknown keys and
     * duplicates included (for TOP_LEVEL: one member, key: value). */
    tread_args fields;
};

#ifdef __cplusplus
}
#endif
#endif /* TREAD_JSON_H */
