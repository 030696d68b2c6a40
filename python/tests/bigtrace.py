"""A large Chrome JSON trace made lazily, block by block, as a binary file
object: nothing is written to disk and memory holds one block.

Every block holds EVENTS_PER_BLOCK complete events of about 1 KiB (an args
string pads them); one of them is named "rare", the rest "common"."""
import json

EVENTS_PER_BLOCK = 1024
PAD = "x" * 900


def make_block(index):
    evs = []
    for i in range(EVENTS_PER_BLOCK):
        ts = (index * EVENTS_PER_BLOCK + i) * 10
        evs.append(json.dumps({"name": "rare" if i == 7 else "common", "cat": "bench",
                               "ph": "X", "ts": ts, "dur": 5, "pid": 1, "tid": 1 + i % 4,
                               "args": {"i": i, "pad": PAD}}, separators=(",", ":")))
    return (",".join(evs) + ",").encode()


class BigTrace:
    """read(n) over '{"traceEvents":[' + block * n_blocks + final event + ']}'."""

    def __init__(self, total_bytes):
        self.block = make_block(0)
        self.n_blocks = max(1, total_bytes // len(self.block))
        self.head = b'{"traceEvents":['
        self.tail = b'{"name":"last","ph":"i","ts":0,"pid":1,"tid":1}]}'
        self.parts_left = self.n_blocks
        self.stage = 0
        self.bytes_read = 0

    @property
    def total_events(self):
        return self.n_blocks * EVENTS_PER_BLOCK + 1

    @property
    def size(self):
        return len(self.head) + self.n_blocks * len(self.block) + len(self.tail)

    def read(self, n=-1):
        if self.stage == 0:
            self.stage = 1
            out = self.head
        elif self.stage == 1:
            self.parts_left -= 1
            if self.parts_left == 0:
                self.stage = 2
            out = self.block  # the same bytes object: no copy per block
        elif self.stage == 2:
            self.stage = 3
            out = self.tail
        else:
            out = b""
        self.bytes_read += len(out)
        return out
