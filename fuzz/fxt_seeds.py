#!/usr/bin/env python3
"""Writes the fuzz_fxt seeds (fuzz/seeds/fxt/): small FXT archives built from
the Fuchsia trace format document, each a few hundred bytes to a few KiB.

    python3 fuzz/fxt_seeds.py [OUTDIR]
"""
import os
import struct
import sys


class W:
    def __init__(self):
        self.b = bytearray()

    def word(self, w):
        self.b += struct.pack("<Q", w & 0xFFFFFFFFFFFFFFFF)

    def stream(self, s):
        s = s.encode() if isinstance(s, str) else bytes(s)
        self.b += s + b"\0" * (-len(s) % 8)

    def begin(self, header):
        start = len(self.b)
        self.word(header)
        return start

    def end(self, start, large=False):
        words = (len(self.b) - start) // 8
        h = struct.unpack_from("<Q", self.b, start)[0]
        if large:
            h = (h & ~(0xFFFFFFFF << 4)) | (words << 4)
        else:
            h = (h & ~(0xFFF << 4)) | (words << 4)
        struct.pack_into("<Q", self.b, start, h)

    # records
    def magic(self):
        self.word(0x0016547846040010)

    def provider_info(self, pid, name):
        s = self.begin(0 | 1 << 16 | pid << 20 | len(name) << 52)
        self.stream(name)
        self.end(s)

    def provider_section(self, pid):
        self.end(self.begin(0 | 2 << 16 | pid << 20))

    def provider_event(self, pid, ev=0):
        self.end(self.begin(0 | 3 << 16 | pid << 20 | ev << 52))

    def init(self, tps, extra=()):
        s = self.begin(1)
        self.word(tps)
        for e in extra:
            self.word(e)
        self.end(s)

    def string(self, idx, text):
        s = self.begin(2 | idx << 16 | len(text) << 32)
        self.stream(text)
        self.end(s)

    def thread(self, idx, pid, tid):
        s = self.begin(3 | idx << 16)
        self.word(pid)
        self.word(tid)
        self.end(s)

    def arg(self, typ, name, hi=0, words=(), stream=None):
        s = self.begin(typ | (0x8000 | len(name)) << 16 | hi << 32)
        self.stream(name)
        if stream is not None:
            self.stream(stream)
        for w in words:
            self.word(w)
        self.end(s)

    def event(self, typ, ts, args=(), tref=1, cref=1, nref=2, extra=(), inline=None):
        s = self.begin(4 | typ << 16 | len(args) << 20 | tref << 24 | cref << 32 | nref << 48)
        self.word(ts)
        if tref == 0:
            self.word(10)
            self.word(11)
        for text in inline or ():
            self.stream(text)
        for a in args:
            self.arg(*a)
        for e in extra:
            self.word(e)
        self.end(s)


def dbl(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


ALL_ARGS = [
    (0, "null"), (1, "i32", 0xFFFFFFFB), (2, "u32", 7), (3, "i64", 0, [2**64 - 5]),
    (4, "u64", 0, [2**63 + 1]), (5, "dbl", 0, [dbl(2.5)]), (6, "s", 0x8003, (), "abc"),
    (6, "idx", 3), (7, "ptr", 0, [0x1000]), (8, "koid", 0, [42]), (9, "yes", 1),
    (10, "blob", 3, (), b"x\0y"),
]


def preamble(w, pid=1, name="prov"):
    w.magic()
    w.provider_info(pid, name)
    w.init(1000000000)
    w.string(1, "cat")
    w.string(2, "name")
    w.string(3, "value")
    w.thread(1, 100, 101)


def all_records():
    w = W()
    preamble(w)
    for t in range(11):
        extra = [] if t in (0, 2, 3) else [1000 + t]
        w.event(t, 10 + t, args=ALL_ARGS[:3] if t == 1 else ALL_ARGS[t:t + 2], extra=extra)
    s = w.begin(5 | 2 << 16 | 20 << 32 | 1 << 48)
    w.stream(b"blob payload of 20 b")
    w.end(s)
    s = w.begin(6 | 0x8003 << 24 | 1 << 40)  # userspace object, inline process
    w.word(0xABC)
    w.word(100)
    w.stream("obj")
    w.arg(1, "n", 1)
    w.end(s)
    for kt, name, args in ((1, "proc", []), (2, "thr", [(8, "process", 0, [100])]), (4, "ch", [])):
        s = w.begin(7 | kt << 16 | (0x8000 | len(name)) << 24 | len(args) << 40)
        w.word(100 + kt)
        w.stream(name)
        for a in args:
            w.arg(*a)
        w.end(s)
    s = w.begin(8 | 1 << 16 | 3 << 24 | 1 << 28 | 5 << 44)  # legacy, in thread inline
    w.word(50)
    w.word(200)
    w.word(201)
    w.end(s)
    s = w.begin(8 | 1 << 16 | 2 << 20 | 2 << 36 | 1 << 60)
    w.word(51)
    w.word(101)
    w.word(201)
    w.arg(1, "incoming_weight", 4)
    w.end(s)
    s = w.begin(8 | 2 << 20 | 2 << 60)
    w.word(52)
    w.word(201)
    w.end(s)
    s = w.begin(8 | 3 << 60)  # fiber switch
    w.word(53)
    w.word(1)
    w.word(2)
    w.end(s)
    s = w.begin(9 | 11 << 16 | 1 << 32)
    w.word(54)
    w.stream("log message")
    w.end(s)
    w.provider_event(1)
    return w.b


def args_seed():
    w = W()
    preamble(w)
    w.event(0, 5, args=ALL_ARGS + [(15, "unknown", 0, [1])][:15 - len(ALL_ARGS)] + [(1, "last", 9)])
    w.event(1, 6, args=ALL_ARGS[:6], extra=[7])
    return w.b


def tables():
    w = W()
    w.magic()
    w.event(0, 1, tref=0, cref=0x8001, nref=0x8008, inline=["c", "12345678"])
    w.provider_info(1, "one")
    w.string(5, "first")
    w.thread(3, 1, 2)
    w.provider_info(0xFFFFFFFF, "two")
    w.string(5, "second")
    w.string(0, "ignored")
    w.thread(0, 9, 9)
    w.event(0, 2, tref=3, cref=0, nref=5)
    w.provider_section(1)
    w.event(0, 3, tref=3, cref=0, nref=5)
    w.string(5, "replaced")
    w.event(2, 4, tref=3, cref=0, nref=5)
    w.provider_info(1, "one again")
    w.event(3, 5, tref=3, cref=0, nref=5)
    w.provider_section(77)
    w.init(24000000)
    w.event(4, 2**64 - 1, tref=0, cref=0, nref=0, extra=[5])
    w.magic()
    w.provider_info(1, "concatenated")
    w.init(3)
    w.event(0, 3, tref=0, cref=0, nref=0)
    return w.b


def damaged():
    w = W()
    preamble(w)
    s = w.begin(4 | 1 << 20 | 1 << 24 | 1 << 32 | 2 << 48)  # argument overruns
    w.word(1)
    w.word(1 | 9 << 4)
    w.end(s)
    s = w.begin(4 | 1 << 20 | 1 << 24 | 1 << 32 | 2 << 48)  # argument of size 0
    w.word(1)
    w.word(1)
    w.end(s)
    s = w.begin(4 | 1 << 24 | 1 << 32 | 0x80C8 << 48)  # inline name past the end
    w.word(1)
    w.end(s)
    s = w.begin(2 | 4 << 16 | 0x7FFF << 32)  # string past the end
    w.word(0)
    w.end(s)
    w.event(0, 9, nref=999)  # unknown string
    w.event(0, 9, tref=9)  # unknown thread
    w.init(0)
    s = w.begin(15 | 1 << 40)  # large blob whose payload overruns
    w.word(0)
    w.word(1000)
    w.end(s, large=True)
    w.event(0, 10)
    w.word(4)  # size 0: fatal
    w.word(0)
    return w.b


def extensions():
    w = W()
    preamble(w)
    for t in range(10, 15):
        s = w.begin(t | 0xABCDEF << 32)
        w.word(0x0706050403020100)
        w.end(s)
    w.end(w.begin(0 | 5 << 16))
    w.end(w.begin(0 | 4 << 16 | 1 << 20))
    w.provider_event(1, 9)
    w.event(11, 1, extra=[1, 2])
    w.event(0, 2, extra=[2])  # legacy scope word
    s = w.begin(8 | 4 << 60)
    w.word(1)
    w.end(s)
    s = w.begin(15 | 1 << 36)  # large type 1
    w.word(0)
    w.end(s, large=True)
    s = w.begin(15 | 2 << 40)  # blob format 2
    w.word(0)
    w.end(s, large=True)
    w.init(1000000000, extra=(123, 456))
    w.event(0, 3, args=[(1, "n", 1)], extra=[0xFEEDFACE, 0xC0FFEE])
    return w.b


def large_blobs():
    w = W()
    preamble(w)
    payload = bytes((i * 7) & 255 for i in range(9000))
    s = w.begin(15 | 1 << 40)
    w.word(1 | 2 << 16)
    w.word(len(payload))
    w.stream(payload)
    w.end(s, large=True)
    s = w.begin(15)
    w.word(0x8003 | 0x8004 << 16 | 1 << 32 | 0 << 36)
    w.stream("cat")
    w.stream("name")
    w.word(77)
    w.word(1)
    w.word(2)
    w.arg(1, "k", 5)
    w.word(0)
    w.end(s, large=True)
    s = w.begin(5 | 2 << 16 | 4100 << 32 | 3 << 48)
    w.stream(payload[:4100])
    w.end(s)
    w.event(0, 99)
    return w.b


def truncated_large():
    b = large_blobs()
    return b[: len(b) // 2 + 3]


SEEDS = {
    "all_records.fxt": all_records,
    "args.fxt": args_seed,
    "tables.fxt": tables,
    "damaged.fxt": damaged,
    "extensions.fxt": extensions,
    "large_blobs.fxt": large_blobs,
    "truncated_large.fxt": truncated_large,
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "seeds", "fxt")
    os.makedirs(out, exist_ok=True)
    for name, make in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(make())


if __name__ == "__main__":
    main()
