#!/usr/bin/env python3
"""CPU samples of a Perfetto trace, read independently of tread, for
tests/perfetto_samples.sh.

  perfetto_samples_oracle.py TRACE      what the trace holds
  tread cat TRACE | perfetto_samples_oracle.py --tread
                                        what tread delivered
  perfetto_samples_oracle.py --with-samples FILE...
                                        the files that hold samples (one
                                        process for a whole corpus)

Both print one line per sample, in trace order:
  sample <ts> <pid> <tid> <frame>;<frame>;...   (root first)
a frame being name@mapping+rel_pc (rel_pc in hex). The ts of a PerfSample
is its packet's, which goes through the clocks: printed as "-" (the clock
conversion has its own tests); a StreamingProfilePacket sample's is the
sequence's running legacy time in ns. pid/tid "-" when absent.

The reading follows the Perfetto protos (perfetto_reference.txt): packets
of field 1; per sequence (trusted_packet_sequence_id) its interned data,
valid from a SEQ_INCREMENTAL_STATE_CLEARED packet (or the legacy
incremental_state_cleared) until data loss (previous_packet_dropped on
other than its first packet), packets needing the state while it is not
valid being skipped; InternedData callstacks (7, frame_ids bottom first),
frames (6), function_names (5), mappings (19: build_id 16, path
components 17, each prefixed with "/", a leading "//" made "/");
PerfSample (66) a sample unless kernel_records_lost > 0 or a
producer_event; StreamingProfilePacket (54) callstack_iid[i] with
timestamp_delta_us[i], every delta moving the sequence's legacy time that
ThreadDescriptor.reference_timestamp_us sets and TrackEvent
timestamp_delta_us / timestamp_absolute_us move; compressed packets (50,
zlib) read inside.
"""
import gzip
import json
import sys
import zlib


def varint(b, i):
    r = s = 0
    while True:
        if i >= len(b):
            raise ValueError("varint past the end")
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i
        if s >= 70:
            raise ValueError("varint too long")


def fields(b):
    i, n = 0, len(b)
    while i < n:
        k, i = varint(b, i)
        f, w = k >> 3, k & 7
        if w == 0:
            v, i = varint(b, i)
            yield f, w, v
        elif w == 1:
            if i + 8 > n:
                raise ValueError("fixed64 past the end")
            yield f, w, int.from_bytes(b[i:i + 8], "little")
            i += 8
        elif w == 5:
            if i + 4 > n:
                raise ValueError("fixed32 past the end")
            yield f, w, int.from_bytes(b[i:i + 4], "little")
            i += 4
        elif w == 2:
            ln, i = varint(b, i)
            if i + ln > n:
                raise ValueError("length past the end")
            yield f, w, b[i:i + ln]
            i += ln
        else:
            raise ValueError("wire type %d" % w)


def repeated(msg, num):
    """The values of repeated varint field num, packed or not."""
    out = []
    for f, w, v in fields(msg):
        if f != num:
            continue
        if w == 0:
            out.append(v)
        elif w == 2:
            j = 0
            while j < len(v):
                x, j = varint(v, j)
                out.append(x)
    return out


def s64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


class Seq:
    def __init__(self):
        self.seen = False
        self.valid = False
        self.interned = {}
        self.ts_us = 0
        self.thread = None


def frame_text(seq, iid):
    t = seq.interned
    fr = t.get((6, iid))
    if fr is None:
        return "@+"
    name, path, pc = "", "", None
    for f, w, v in fields(fr):
        if f == 2 and w == 0:
            e = t.get((5, v))
            name = string_of(e) if e is not None else ""
        elif f == 3 and w == 0:
            m = t.get((19, v))
            if m is not None:
                comps = []
                for mf, mw, mv in fields(m):
                    if mf == 7:
                        if mw == 0:
                            ids = [mv]
                        else:
                            ids = []
                            j = 0
                            while j < len(mv):
                                x, j = varint(mv, j)
                                ids.append(x)
                        for p in ids:
                            e = t.get((17, p))
                            if e is not None:
                                comps.append(string_of(e))
                if comps:
                    path = "".join("/" + c for c in comps)
                    if path.startswith("//"):
                        path = path[1:]
        elif f == 4 and w == 0:
            pc = v
    return "%s@%s+%s" % (name, path, "" if pc is None else "%x" % pc)


def string_of(entry):
    s = b""
    for f, w, v in fields(entry):
        if f == 2 and w == 2:
            s = v
    return s.decode("utf-8", "replace")


def stack(seq, cs_iid):
    cs = seq.interned.get((7, cs_iid))
    if cs is None:
        return ""
    ids = repeated(cs, 2)
    return ";".join(frame_text(seq, i) for i in ids[-1024:])


def read_trace(data, out):
    seqs = {}

    def packet(pk, level):
        fl = list(fields(pk))
        comp = [v for f, w, v in fl if f == 50 and w == 2]
        if comp:
            if level == 0:
                inner = zlib.decompress(comp[-1])
                for f, w, v in fields(inner):
                    if f == 1 and w == 2:
                        try:
                            packet(v, 1)
                        except ValueError:
                            pass
            return
        sid = 0
        flags = 0
        ppd = 0
        first_flag = False
        legacy_clear = False
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
        s = seqs.setdefault(sid, Seq())
        first = not s.seen
        s.seen = True
        if ppd and not first and not first_flag:
            s.valid = False
        if flags & 1 or legacy_clear:
            s.interned = {}
            s.valid = True
        if flags & 2 and not s.valid:
            return
        if 12 in last and s.valid:
            for f, w, v in fields(last[12]):
                if w != 2:
                    continue
                iid = None
                try:
                    for ef, ew, ev in fields(v):
                        if ef == 1 and ew == 0:
                            iid = ev
                except ValueError:
                    continue
                if iid is not None:
                    s.interned[(f, iid)] = v
        if 44 in last:
            td = {f: v for f, w, v in fields(last[44]) if w == 0}
            s.thread = (s64(td.get(1, 0)) if 1 in td else 0, s64(td.get(2, 0)))
            if 6 in td:
                s.ts_us = s64(td[6])
        if 11 in last:
            try:
                te = list(fields(last[11]))
            except ValueError:
                te = None
            if te is not None:
                d = [v for f, w, v in te if f == 1 and w == 0]
                a = [v for f, w, v in te if f == 16 and w == 0]
                if d:
                    s.ts_us = s64((s.ts_us + d[-1]) & ((1 << 64) - 1))
                elif a:
                    s.ts_us = s64(a[-1])
        if 54 in last:
            m = last[54]
            cs = repeated(m, 1)
            dt = repeated(m, 2)
            for i, delta in enumerate(dt):
                s.ts_us = s64((s.ts_us + delta) & ((1 << 64) - 1))
                if i < len(cs):
                    ts = s.ts_us * 1000
                    ts = str(ts) if -(1 << 63) <= ts < (1 << 63) else "-"
                    pid, tid = (s.thread if s.thread else ("-", "-"))
                    out.append("sample %s %s %s %s" % (ts, pid, tid, stack(s, cs[i])))
        if 66 in last:
            m = last[66]
            v = {}
            producer = False
            for f, w, x in fields(m):
                if w == 0:
                    v[f] = x
                elif f == 19:
                    producer = True
            if v.get(17, 0) > 0 or producer:
                return
            pid = v[2] if 2 in v else "-"
            tid = v[3] if 3 in v else pid
            st = stack(s, v[4]) if 4 in v else ""
            out.append("sample - %s %s %s" % (pid, tid, st))

    for f, w, v in fields(data):
        if f == 1 and w == 2:
            try:
                packet(v, 0)
            except ValueError:
                pass


def from_tread(lines):
    frames = {}
    samples = []
    for line in lines:
        e = json.loads(line)
        if e["kind"] == "stack_frame":
            pc = e.get("args", {}).get("rel_pc")
            frames[e["id"]] = ("%s@%s+%s" % (e.get("name") or "", e.get("cat") or "",
                                              "" if pc is None else "%x" % pc),
                               e.get("parent"))
        elif e["kind"] == "sample":
            samples.append(e)
    out = []
    for e in samples:
        chain = []
        f = e.get("sf")
        while f is not None:
            text, f = frames[f]
            chain.append(text)
        chain.reverse()
        perf = bool(e.get("args"))  # a PerfSample's message; a streaming sample has none
        ts = "-" if perf or e.get("ts_ns") is None else str(e["ts_ns"])
        pid = e.get("pid")
        tid = e.get("tid")
        out.append("sample %s %s %s %s" % (ts, "-" if pid is None else pid,
                                           "-" if tid is None else tid, ";".join(chain)))
    return out


def load(path):
    with open(path, "rb") as fp:
        data = fp.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data


def main():
    if sys.argv[1:2] == ["--with-samples"]:
        for path in sys.argv[2:]:
            out = []
            try:
                read_trace(load(path), out)
            except (ValueError, OSError, EOFError, zlib.error):
                pass
            if out:
                print(path)
        return
    if sys.argv[1:] == ["--tread"]:
        out = from_tread(sys.stdin)
    else:
        out = []
        read_trace(load(sys.argv[1]), out)
    for line in out:
        print(line)


if __name__ == "__main__":
    main()
