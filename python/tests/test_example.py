"""The README's example (python/examples/top_slices.py): the same top
slices by total duration as tread.stats() finds, for every format."""
import os
import subprocess
import sys

import pytest

import tread
from conftest import NODE_SAMPLE, corpus_file

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "examples", "top_slices.py")


def run_example(path):
    out = subprocess.run([sys.executable, "-W", "ignore", EXAMPLE, path],
                         stdout=subprocess.PIPE, check=True, env=os.environ).stdout
    return out.decode().splitlines()


@pytest.mark.parametrize("name", [None, "perfetto/sdk_small.pftrace",
                                  "fxt/gen_multi_provider.fxt"])
def test_top_slices_agree_with_stats(name):
    path = NODE_SAMPLE if name is None else corpus_file(name)
    lines = run_example(path)
    top = tread.stats(path, top=10, warnings="ignore")["top_by_duration"]
    want = ["%12.3f ms  %s" % (t["total_dur_ns"] / 1e6, t["name"]) for t in top]
    assert lines and sorted(lines) == sorted(want[:len(lines)])
