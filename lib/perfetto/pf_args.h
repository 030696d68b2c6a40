/*
 * Lazy arguments of Perfetto events (TREAD_ARGS_PERFETTO): a TrackEvent's
 * debug annotations (and the typed fields exposed as args) are not decoded
 * when the event is emitted; tread_args points at the TrackEvent message
 * bytes and the codec in pf_args.c decodes them when the caller iterates.
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
