/*
 * Lazy arguments of Perfetto events (TREAD_ARGS_PERFETTO): a TrackEvent's
 * debug annotations (and the typed fields exposed as args) are not decoded
 * when the event is emitted; tread_args points at the TrackEvent message
 * bytes and the codec in pf_args.c decodes them when the caller iterates.
 *
 * What the iterator yields, in the order of the TrackEvent's fields (the
 * TrackEvent is the implicit root dict):
 *
 *   debug_annotations  one arg each, keyed by name or interned name_iid.
 *       An unknown name_iid gives the key "<unknown iid>"; no name at all
 *       gives "".
 *       Values: bool, uint (TREAD_ARG_INT up to INT64_MAX, above it
 *       TREAD_ARG_UINT), int, double, string, string_value_iid (interned
 *       string; unknown iid: TREAD_ARG_NULL), pointer (TREAD_ARG_POINTER),
 *       legacy_json_value (the JSON text as a string), nested_value (dict,
 *       array or scalar), dict_entries (a dict), array_values (an array;
 *       names inside are ignored), proto_value (a dict {"type": the
 *       proto_type_name or interned proto_type_name_iid, absent when
 *       neither is set and NULL for an unknown iid; "value": the message
 *       as a dict of its fields when the schema has the type (Chrome's
 *       ".perfetto.protos.RenderFrameHost"), read as typed payloads are,
 *       else its bytes}), no value: TREAD_ARG_NULL. Several value fields of the
 *       oneof: the last on the wire wins (protobuf's rule); then
 *       dict_entries, array_values, proto_value, in that order.
 *   NestedValue  DICT pairs the i-th dict_key with the i-th dict_value
 *       (extra keys or values are dropped); ARRAY; otherwise its scalar:
 *       bool_value, int_value, double_value, string_value in that order of
 *       preference, or TREAD_ARG_NULL.
 *   source_location / source_location_iid  "source_location": {file_name,
 *       function_name, line_number} (proto field names; an unknown iid
 *       gives TREAD_ARG_NULL).
 *   log_message  "log_message": {source_location: {...}, body: the
 *       interned LogMessageBody, prio: int}.
 *   task_execution  "task_execution": {posted_from: {...}}.
 *   callstack  "callstack": [{function_name, source_file, line_number}...]
 *       (also the event's sf); callstack_weight as a double. callstack_iid
 *       is not an arg: it is the event's sf, as name_iid is its name.
 *   typed payloads  every other TrackEvent field Perfetto defines that the
 *       decoder does not map to event fields (chrome_*, screenshot, the
 *       Chrome, Android and GPU extensions): "<field name>": read through
 *       the schema (pf_walk.h) as TREAD_ARGS_PROTO reads a message: a dict
 *       of the fields the schema knows, by name (nested messages as dicts,
 *       enums by value name, repeated fields as one array per run or
 *       packed payload; fields the schema does not know are left out),
 *       or the value for the scalar ones (an enum by name). A wire type
 *       the schema does not expect: the message bytes (TREAD_ARG_BYTES),
 *       or the varint of a scalar one. The iids in them that name
 *       interned data (pf_refs in pf_args.c: source locations, histogram
 *       names, the mojo method's UnsymbolizedSourceLocation) come out as
 *       what they name; an unknown iid stays the field it is.
 *
 * Fields the decoder maps to event fields (name, categories, type, track,
 * times, counters, flows, legacy_event, correlation ids) and unknown field
 * numbers are not args.
 *
 * Containers nest up to TREAD_ARGS_ITER_MAX_NEST levels; a deeper one
 * comes out as TREAD_ARG_BYTES holding its message. A NestedValue dict
 * whose keys and values are not interleaved (Perfetto writes them
 * interleaved), and a level of a typed payload (its end and descriptor),
 * take two of the iterator's stack slots.
 *
 * Malformed data (a field that does not decode, a known field with the
 * wrong wire type, an interned message that does not decode) ends the
 * iteration: the iterator closes the containers still open (their *_END
 * markers), then ends with tread_args_iter_failed() == 1. Nothing is read
 * outside the event's bytes and the interned messages.
 *
 * Keys and strings point into the event's bytes or the interned messages
 * (zero copy, not NUL-terminated, valid during the event callback).
 */
#ifndef TREAD_PERFETTO_PF_ARGS_H
#define TREAD_PERFETTO_PF_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include "core/decoder.h"

/* What the codec needs from the event's sequence: interned entries. The
 * decoder keeps each interned entry as the bytes of its whole message
 * (EventName, DebugAnnotationName, InternedString, ...), keyed by the
 * InternedData field number and the iid; lookup returns them, or 0 when
 * the iid is unknown. The ctx lives as long as the event callback. */
typedef struct pf_args_ctx {
    int (*lookup)(const void *seq, uint32_t interned_field, uint64_t iid,
                  const unsigned char **msg, size_t *len);
    const void *seq;
} pf_args_ctx;

extern const tread_args_codec tread__perfetto_args_codec;

#endif
