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
};

#ifdef __cplusplus
}
#endif
#endif /* TREAD_PERFETTO_H */
