#!/usr/bin/env python3
"""V8 CPU profiles in a Perfetto trace (Chrome's legacy Profile and
ProfileChunk TrackEvents), read independently of tread, for
tests/perfetto_v8.sh.

  perfetto_v8_oracle.py TRACE        what the trace holds
  tread cat TRACE | perfetto_v8_oracle.py --tread
                                     what tread delivered
  perfetto_v8_oracle.py --with-v8 FILE...
                                     the files that hold such records

Both print, in trace order, one line per stack frame defined and per
sample:
  frame <id> <parent or -> <function name>
  sample <ts or -> <pid> <tid> <frame id>
with frame ids "<pid>:0x<id>:<node>" (pid: the sequence's thread).

The reading follows the Perfetto protos and trace_processor's
TrackEventTokenizer: packets (field 1, compressed packets 50 inflated);
per sequence its interned event names (2) and debug annotation names (3),
valid from a SEQ_INCREMENTAL_STATE_CLEARED packet until data loss, packets
needing the state while it is not valid skipped; its thread from the last
ThreadDescriptor (44) or TrackDescriptor (60) thread with pid and tid read
while valid; a TrackEvent with a legacy_event of phase 'P' named Profile
or ProfileChunk and a debug annotation "data" with a legacy_json_value:
the JSON's startTime (us, CLOCK_MONOTONIC) starts the profile (pid, id)
at its trace clock value: itself when primary_trace_clock is MONOTONIC
(Chrome's), else its BOOTTIME value through the clock snapshots (the
latest naming both clocks at or before the value, else the earliest);
cpuProfile.nodes define
frames once per profile (parent: "parent", else an earlier node's
"children"); samples pair with timeDeltas (us) added to the running time.
Another trace clock, or one that changes, and it says it cannot check.
"""
import decimal
import gzip
import json
import os
import sys
import zlib

# the protobuf wire reader of the samples oracle beside this file
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perfetto_samples_oracle import fields  # noqa: E402


def s32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def name_of(entry):
    s = b""
    for f, w, v in fields(entry):
        if f == 2 and w == 2:
            s = v
    return s.decode("utf-8", "replace")


class Seq:
    def __init__(self):
        self.seen = False
        self.valid = False
        self.interned = {}
        self.thread = None


class Oracle:
    def __init__(self, out):
        self.out = out
        self.seqs = {}
        self.snaps = []      # (monotonic, boottime) pairs
        self.profiles = {}   # (pid, id) -> [running ns or None, {node: seen}, {node: parent}]
        self.records = 0
        self.trace_clock = None  # primary_trace_clock, when a snapshot names one
        self.other_trace_clock = False

    def to_trace(self, ns):
        if self.trace_clock == 3:
            return ns
        if not self.snaps:
            return None
        below = [s for s in self.snaps if s[0] <= ns]
        m, b = max(below) if below else min(self.snaps)
        return ns - m + b

    def packet(self, pk, level):
        fl = list(fields(pk))
        comp = [v for f, w, v in fl if f == 50 and w == 2]
        if comp and level == 0:
            for c in comp:
                for f, w, v in fields(zlib.decompress(c)):
                    if f == 1 and w == 2:
                        self.packet(v, 1)
            return
        sid = flags = ppd = 0
        first_flag = legacy_clear = False
        last = {}
        for f, w, v in fl:
            if w == 0:
                if f == 10:
                    sid = v & 0xFFFFFFFF
                elif f == 13:
                    flags = v & 0xFFFFFFFF
                elif f == 42:
                    ppd = v
                elif f == 87:
                    first_flag = v != 0
                elif f == 41:
                    legacy_clear = v != 0
            elif w == 2:
                last[f] = v
        seq = self.seqs.setdefault(sid, Seq())
        if ppd and seq.seen and not first_flag:
            seq.valid = False
        seq.seen = True
        if flags & 1 or legacy_clear:
            seq.valid = True
            seq.interned = {}
        if flags & 2 and not seq.valid:
            return
        if 6 in last:
            clocks, unit_ok = {}, True
            for f, w, v in fields(last[6]):
                if f == 1 and w == 2:
                    cid = ts = None
                    for cf, cw, cv in fields(v):
                        if cf == 1 and cw == 0:
                            cid = cv
                        elif cf == 2 and cw == 0:
                            ts = cv
                        elif cf in (3, 4):
                            unit_ok = False
                    clocks[cid] = ts
                elif f == 2 and w == 0:
                    if v not in (3, 6) or self.trace_clock not in (None, v):
                        self.other_trace_clock = True
                    self.trace_clock = v
            if unit_ok and 3 in clocks and 6 in clocks:
                self.snaps.append((clocks[3], clocks[6]))
        if 12 in last and seq.valid:
            for f, w, v in fields(last[12]):
                if f in (2, 3) and w == 2:
                    for ef, ew, ev in fields(v):
                        if ef == 1 and ew == 0:
                            seq.interned[(f, ev)] = v
        if 44 in last and seq.valid:
            th = dict((f, v) for f, w, v in fields(last[44]) if w == 0)
            seq.thread = (s32(th.get(1, 0)), th.get(2, 0))
        if 60 in last and seq.valid:
            for f, w, v in fields(last[60]):
                if f == 4 and w == 2:
                    th = dict((tf, tv) for tf, tw, tv in fields(v) if tw == 0)
                    if 1 in th and 2 in th:
                        seq.thread = (s32(th[1]), th[2])
        if 11 in last:
            self.track_event(seq, last[11])

    def track_event(self, seq, te):
        name, name_iid, legacy, typ, notes = None, None, None, 0, []
        for f, w, v in fields(te):
            if f == 23 and w == 2:
                name = v.decode("utf-8", "replace")
            elif f == 10 and w == 0:
                name_iid = v
            elif f == 6 and w == 2:
                legacy = v
            elif f == 9 and w == 0:
                typ = v
            elif f == 4 and w == 2:
                notes.append(v)
        if legacy is None or typ:
            return
        lg = dict((f, v) for f, w, v in fields(legacy) if w == 0)
        if lg.get(2) != ord("P"):
            return
        if name is None:
            iid = name_iid if name_iid is not None else lg.get(1)
            e = seq.interned.get((2, iid))
            name = name_of(e) if e is not None else ""
        if name not in ("Profile", "ProfileChunk"):
            return
        data = None
        for a in notes:
            an, aiid, val = None, None, None
            for f, w, v in fields(a):
                if f == 10 and w == 2:
                    an = v.decode("utf-8", "replace")
                elif f == 1 and w == 0:
                    aiid = v
                elif f == 9 and w == 2:
                    val = v
            if val is None:
                continue
            if an is None and aiid is not None:
                e = seq.interned.get((3, aiid))
                an = name_of(e) if e is not None else None
            if an == "data":
                data = val
                break
        if data is None:
            return
        try:
            d = json.loads(data, parse_float=decimal.Decimal)
        except ValueError:
            return
        self.records += 1
        pid, tid = seq.thread if seq.thread else (0, 0)
        pid_id = lg.get(6, lg.get(10, lg.get(11, 0)))
        prof = self.profiles.setdefault((pid, pid_id), [None, {}, {}])
        prefix = "%d:0x%x:" % (pid, pid_id)
        if not isinstance(d, dict):
            return
        if "startTime" in d:
            prof[0] = self.to_trace(int(decimal.Decimal(d["startTime"]) * 1000))
        cpu = d.get("cpuProfile") if isinstance(d.get("cpuProfile"), dict) else {}
        for node in cpu.get("nodes") or []:
            if not isinstance(node, dict) or not isinstance(node.get("id"), int):
                continue
            nid = node["id"]
            if nid in prof[1]:
                continue
            prof[1][nid] = True
            parent = node.get("parent") if isinstance(node.get("parent"), int) else None
            if parent is None:
                parent = prof[2].get(nid)
            else:
                prof[2][nid] = parent
            for c in node.get("children") or []:
                if isinstance(c, int) and c not in prof[2]:
                    prof[2][c] = nid
            cf = node.get("callFrame") if isinstance(node.get("callFrame"), dict) else {}
            fn = cf.get("functionName", "")
            self.out.append("frame %s%d %s %s" % (prefix, nid,
                            "-" if parent is None else "%s%d" % (prefix, parent),
                            fn if isinstance(fn, str) else ""))
        samples = cpu.get("samples") or []
        deltas = d.get("timeDeltas", cpu.get("timeDeltas")) or []
        for s, dt in zip(samples, deltas):
            if prof[0] is not None:
                prof[0] += int(decimal.Decimal(dt) * 1000)
            self.out.append("sample %s %d %d %s%d" % ("-" if prof[0] is None else prof[0],
                            pid, tid, prefix, s))


def read_trace(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    out = []
    o = Oracle(out)
    for f, w, v in fields(data):
        if f == 1 and w == 2:
            o.packet(v, 0)
    return o, out


def from_tread(lines):
    out = []
    for line in lines:
        e = json.loads(line)
        k = e.get("kind")
        if k == "stack_frame" and ":0x" in (e.get("id") or ""):
            out.append("frame %s %s %s" % (e["id"], e.get("parent") or "-", e.get("name") or ""))
        elif k == "sample" and ":0x" in (e.get("sf") or ""):
            ts = e.get("ts_ns")
            out.append("sample %s %d %d %s" % ("-" if ts is None else ts, e.get("pid") or 0,
                                               e.get("tid") or 0, e["sf"]))
    return out


def main(argv):
    if argv[1:2] == ["--tread"]:
        for line in from_tread(sys.stdin):
            print(line)
        return 0
    if argv[1:2] == ["--with-v8"]:
        for p in argv[2:]:
            try:
                o, _ = read_trace(p)
            except (ValueError, OSError, zlib.error, EOFError):
                continue
            if o.records and not o.other_trace_clock:
                print(p)
        return 0
    o, out = read_trace(argv[1])
    if o.other_trace_clock:
        print("cannot check: the trace clock is neither MONOTONIC nor BOOTTIME", file=sys.stderr)
        return 1
    for line in out:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
