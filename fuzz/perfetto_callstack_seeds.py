#!/usr/bin/env python3
"""Writes the callstack seed of fuzz_perfetto, fuzz_split_perfetto and
fuzz_convert (fuzz/seeds/perfetto/callstacks.pftrace and its copies):
TrackEvents with an interned callstack (callstack_iid) and an inline one
(callstack), a TrackEvent and a PerfSample in one packet, StackSamples
with inline and interned task and execution contexts, a context iid never
interned; counter descriptors by iid and a sequence's
stack_sample_defaults, resolved into the samples' args
(lib/perfetto/pf_profile.c).
Run from the repository root: python3 fuzz/perfetto_callstack_seeds.py"""
import os

from pbwire import ln, vi


def packet(body, seq=1, ts=None, flags=2):
    return ln(1, vi(10, seq) + (vi(8, ts) if ts is not None else b"") +
              (vi(13, flags) if flags else b"") + body)


def istr(field, iid, s):
    return ln(field, vi(1, iid) + ln(2, s))


def interned():
    out = istr(5, 1, "main") + istr(5, 2, "work") + istr(5, 3, "leaf")
    out += istr(17, 1, "bin") + istr(17, 2, "demo") + istr(16, 1, b"\x01\xab")
    out += ln(19, vi(1, 1) + vi(2, 1) + vi(7, 1) + vi(7, 2))
    for iid in (1, 2, 3):
        out += ln(6, vi(1, iid) + vi(2, iid) + vi(3, 1) + vi(4, 16 * iid))
    out += ln(7, vi(1, 1) + ln(2, bytes([1, 2, 3])))
    out += ln(7, vi(1, 2) + ln(2, bytes([1, 2])))
    out += ln(48, vi(1, 5) + vi(2, 200) + vi(3, 201))
    out += ln(49, vi(1, 6) + vi(2, 4) + vi(3, 2))
    return ln(12, out)


def inline(*frames):
    out = b""
    for fn, src, line in frames:
        f = ln(1, fn)
        if src:
            f += ln(2, src)
        if line:
            f += vi(3, line)
        out += ln(1, f)
    return out


def track_event(name, typ, cs_iid=None, inl=None):
    te = vi(9, typ) + ln(23, name) + vi(11, 1001)
    if cs_iid is not None:
        te += vi(56, cs_iid)
    if inl is not None:
        te += ln(55, inl)
    return ln(11, te)


def main():
    desc = ln(60, vi(1, 1001) + ln(4, vi(1, 42) + vi(2, 4242)))
    out = packet(desc + interned(), ts=1, flags=1)
    inl = inline(("InlineMain", "main.cc", 10), ("InlineLeaf", "leaf.cc", 42))
    out += packet(track_event("interned", 1, cs_iid=1), ts=10)
    out += packet(track_event("interned", 2, cs_iid=2), ts=20)
    out += packet(track_event("inline", 3, inl=inl), ts=30)
    out += packet(track_event("unknown iid", 3, cs_iid=9), ts=40)
    perf = ln(66, vi(1, 0) + vi(2, 42) + vi(3, 4242) + vi(4, 2) + vi(6, 5))
    out += packet(track_event("with a sample", 3, inl=inl) + perf, ts=50)
    ss = ln(1, vi(2, 42) + vi(3, 4242)) + ln(3, vi(2, 1)) + vi(6, 1) + vi(11, 7)
    out += packet(ln(135, ss), ts=60)
    ss = vi(2, 5) + vi(4, 6) + ln(5, inl)
    out += packet(ln(135, ss), ts=70)
    out += packet(ln(135, vi(2, 77) + vi(11, 1)), ts=80)
    # counter descriptors (InternedData 50) and stack_sample_defaults
    cd = ln(50, vi(1, 1) + ln(2, "cycles") + vi(3, 2))
    cd += ln(50, vi(1, 2) + ln(2, "instructions") + vi(3, 3))
    dflt = ln(59, ln(100, ln(1, "python.wall") + ln(2, ln(2, "wall-time") + vi(3, 1)) +
                  ln(3, ln(2, "faults") + vi(3, 5))))
    out += packet(ln(12, cd) + dflt, ts=85)
    out += packet(ln(135, vi(2, 5) + vi(4, 6) + vi(10, 1) + ln(13, bytes([2, 9])) +
                  vi(11, 3) + ln(14, bytes([4, 5]))), ts=90)
    out += packet(ln(135, vi(11, 4)), ts=100)
    out += packet(ln(135, ln(9, ln(2, "own")) + vi(13, 1) + vi(13, 2) + vi(11, 5)), ts=110)
    for d, name in (("perfetto", "callstacks.pftrace"),
                    ("split_perfetto", "callstacks.pftrace"),
                    ("convert", "perfetto_callstacks.to_json")):
        path = os.path.join("fuzz", "seeds", d)
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, name), "wb") as f:
            f.write(out)


if __name__ == "__main__":
    main()
