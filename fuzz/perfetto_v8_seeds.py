#!/usr/bin/env python3
"""Writes the V8 profile seed of fuzz_perfetto, fuzz_split_perfetto and
fuzz_convert (fuzz/seeds/perfetto/v8_profile.pftrace and its copies):
Chrome's legacy Profile / ProfileChunk TrackEvents (phase 'P', the profile
as JSON in a "data" debug annotation's legacy_json_value), named inline
and interned, a chunk before its Profile, one whose data is not JSON,
under a MONOTONIC -> BOOTTIME clock snapshot (lib/perfetto/pf_v8.c).
Run from the repository root: python3 fuzz/perfetto_v8_seeds.py"""
import os

from pbwire import ln, vi


def packet(body, seq, ts=None, flags=0):
    return ln(1, vi(10, seq) + (vi(8, ts) if ts is not None else b"") +
              (vi(13, flags) if flags else b"") + body)


def thread_seq(seq, tid):
    desc = ln(60, vi(1, 100 + tid) + ln(4, vi(1, 7) + vi(2, tid)))
    interned = ln(12, ln(3, vi(1, 1) + ln(2, "data")) + ln(2, vi(1, 1) + ln(2, "ProfileChunk")))
    return packet(desc + interned, seq, flags=1)


def record(seq, name, ts_us, data, pid_id=1, by_iid=False):
    te = ln(22, "v8")
    te += vi(10, 1) if by_iid else ln(23, name)
    te += ln(6, vi(2, ord("P")) + vi(6, pid_id))
    te += ln(4, (vi(1, 1) if by_iid else ln(10, "data")) + ln(9, data))
    return packet(ln(11, te), seq, ts=ts_us * 1000 + 600000000, flags=2)


def main():
    snap = packet(ln(6, ln(1, vi(1, 6) + vi(2, 1000000000)) + ln(1, vi(1, 3) + vi(2, 400000000))), 9)
    chunk = ('{"cpuProfile":{"nodes":[{"callFrame":{"functionName":"(root)"},"id":1,'
             '"children":[2]},{"callFrame":{"functionName":"f \\"x\\"","url":"a.js",'
             '"lineNumber":3},"id":2},{"callFrame":{"functionName":"g"},"id":3,"parent":2}],'
             '"samples":[2,3,3,1]},"timeDeltas":[5,10,2.5,100],"lines":[1,2,2,0]}')
    out = snap + thread_seq(1, 8) + thread_seq(2, 9)
    out += record(2, "ProfileChunk", 5900, chunk, pid_id=2, by_iid=True)  # before its Profile
    out += record(1, "Profile", 5000, '{"startTime":5000,"source":"Internal"}')
    out += record(1, "Profile", 5000, '{"startTime":5100}', pid_id=2)
    out += record(2, "ProfileChunk", 6000, chunk, by_iid=True)
    out += record(2, "ProfileChunk", 6100, '{"cpuProfile":{"nodes":[}')  # not JSON
    out += record(2, "ProfileChunk", 6200, '{"cpuProfile":{"samples":[3,9]},"timeDeltas":[1,1]}')
    for d, name in (("perfetto", "v8_profile.pftrace"),
                    ("split_perfetto", "v8_profile.pftrace"),
                    ("convert", "perfetto_v8_profile.to_json")):
        path = os.path.join("fuzz", "seeds", d)
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, name), "wb") as f:
            f.write(out)


if __name__ == "__main__":
    main()
