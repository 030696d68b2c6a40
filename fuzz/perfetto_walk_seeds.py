#!/usr/bin/env python3
"""Writes the seeds of fuzz_perfetto_walk (fuzz/seeds/perfetto_walk/):
[type][max_depth][message bytes], type indexing the harness's list
(0 TracePacket, 2 TrackEvent, 3 DebugAnnotation, 4 FtraceEventBundle,
9 ProtoLogMessage). Field numbers from proto/*.proto.
Run from the repository root: python3 fuzz/perfetto_walk_seeds.py"""
import os
import struct

from pbwire import f64, fx64, ln, varint, vi


track_event = (vi(9, 1) + ln(23, b"slice") + ln(47, struct.pack("<QQ", 7, 2**64 - 1))
               + vi(12, 2**64 - 5) + ln(4, ln(10, b"k") + f64(5, 2.5)) + vi(9999, 42))
packet = vi(8, 1234) + ln(11, track_event) + vi(10, 3) + ln(3000, b"zz")
nested = vi(4, 1)
for _ in range(20):
    nested = ln(11, nested)
# FtraceEventBundle: cpu 1, event { timestamp 5, pid 7, print { buf } }
ftrace = vi(1, 1) + ln(2, vi(1, 5) + vi(2, 7) + ln(3, ln(2, b"B|1|x\n")))
# fields of the current schema (Perfetto v58): SystemInfo.system_ram_bytes
# (16), TracePacket.trace_provenance (124), a Chrome TrackEvent extension
# (1040 sequence_manager_task)
v58 = ln(45, vi(16, 8 << 30)) + ln(124, b"") + ln(11, vi(9, 5) + ln(1040, vi(1, 1)))
protolog = fx64(1, 9) + ln(3, varint(3) + varint(4)) + ln(4, struct.pack("<dd", 0.5, -1.0))
seeds = {
    "packet.bin": bytes([0, 63]) + packet,
    "track_event.bin": bytes([2, 63]) + track_event,
    "nested_annotations.bin": bytes([3, 10]) + nested,
    "ftrace_bundle.bin": bytes([4, 63]) + ftrace,
    "protolog_packed.bin": bytes([9, 63]) + protolog,
    "truncated.bin": bytes([0, 63]) + packet[:-3],
    "v58_fields.bin": bytes([0, 63]) + v58,
}
d = os.path.join("fuzz", "seeds", "perfetto_walk")
os.makedirs(d, exist_ok=True)
for name, data in sorted(seeds.items()):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
print("wrote %d seeds in %s" % (len(seeds), d))
