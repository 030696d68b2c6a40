"""Bounded memory: a 1 GiB generated JSON trace, read through a file object
that makes it lazily (tests/bigtrace.py), in a fresh interpreter so that
its peak RSS is the reader's alone."""
import json
import os
import subprocess
import sys

import tread
from bigtrace import BigTrace

HERE = os.path.dirname(os.path.abspath(__file__))
GIB = 1 << 30
# Peak RSS allowed: the interpreter (~10 MiB), the module, one input
# chunk, one batch of events and the parser's bounded buffers.
RSS_BOUND_MIB = 48

# VmHWM, not getrusage's ru_maxrss: that one keeps the high-water mark of
# the process before exec, i.e. of the forked copy of pytest (which may
# have imported pandas: tens of MiB).
HWM = r"""
def hwm_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
"""

SCRIPT = HWM + r"""
import json, resource, sys
sys.path.insert(0, %(here)r)
import tread
from bigtrace import BigTrace
src = BigTrace(%(size)d)
n = rare = 0
kept = []
r = tread.open(src, name_prefix=("rare", "last"), chunk_size=1 << 20)
for ev in r:
    n += 1
    rare += ev.name == "rare"
    if n %% 97 == 0:
        kept.append(ev.args["i"])  # args built for some
print(json.dumps({"n": n, "rare": rare, "events": r.stats()["events"],
                  "expected": src.total_events, "blocks": src.n_blocks,
                  "size": src.size, "read": src.bytes_read,
                  "maxrss_kib": hwm_kib()}))
"""


def test_one_gib_with_bounded_rss():
    out = subprocess.run([sys.executable, "-c", SCRIPT % {"here": HERE, "size": GIB}],
                         stdout=subprocess.PIPE, check=True, env=os.environ).stdout
    r = json.loads(out)
    assert r["size"] >= GIB - (2 << 20)
    assert r["read"] == r["size"]
    assert r["events"] == r["expected"]        # every event was parsed
    assert r["rare"] == r["blocks"] and r["n"] == r["blocks"] + 1
    assert r["maxrss_kib"] < RSS_BOUND_MIB * 1024, r


def test_stop_in_the_middle_of_a_big_trace():
    base = tread._live_parsers()
    src = BigTrace(GIB)
    seen = 0
    for ev in tread.open(src, chunk_size=1 << 20):
        seen += 1
        if seen == 5000:
            break
    assert tread._live_parsers() == base
    # only what the first batches needed was read, not the gigabyte
    assert src.bytes_read < 16 << 20
