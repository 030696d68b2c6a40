"""The filter pushed down to C: the same events as filtering in Python."""
import pytest

import tread
from conftest import NODE_SAMPLE


@pytest.fixture(scope="module")
def everything():
    return list(tread.open(NODE_SAMPLE))


def names(evs):
    return [(e.kind, e.name, e.ts, e.offset) for e in evs]


def test_kinds(everything):
    got = list(tread.open(NODE_SAMPLE, kinds={"complete", "instant"}))
    want = [e for e in everything if e.kind in ("complete", "instant")]
    assert names(got) == names(want) and len(got) == 233


def test_name_prefix(everything):
    got = list(tread.open(NODE_SAMPLE, name_prefix="FS"))
    want = [e for e in everything if (e.name or "").startswith("FS")]
    assert names(got) == names(want) and got
    got = list(tread.open(NODE_SAMPLE, name_prefix=("open", "close")))
    want = [e for e in everything if (e.name or "").startswith(("open", "close"))]
    assert names(got) == names(want) and got


def test_cat_prefix_and_kinds_together(everything):
    got = list(tread.open(NODE_SAMPLE, cat_prefix="node,node.fs", kinds=["async_end"]))
    want = [e for e in everything if (e.cat or "").startswith("node,node.fs")
            and e.kind == "async_end"]
    assert names(got) == names(want) and got


def test_time_window(everything):
    timed = sorted(e.ts for e in everything if e.ts is not None)
    start, end = timed[len(timed) // 3], timed[2 * len(timed) // 3]
    got = list(tread.open(NODE_SAMPLE, start=start, end=end))

    def keep(e):
        if e.ts is None:
            return True
        return e.ts < end and e.ts + max(e.dur or 0, 0) >= start
    want = [e for e in everything if keep(e)]
    assert names(got) == names(want)
    assert 0 < len(got) < len(everything)
    only_start = list(tread.open(NODE_SAMPLE, start=start))
    assert names(only_start) == names([e for e in everything if e.ts is None or
                                       e.ts + max(e.dur or 0, 0) >= start])


def test_bad_filter_values():
    with pytest.raises(ValueError, match="unknown kind"):
        tread.open(NODE_SAMPLE, kinds=["complet"])
    with pytest.raises(TypeError):
        tread.open(NODE_SAMPLE, kinds="complete")
    with pytest.raises(TypeError):
        tread.open(NODE_SAMPLE, name_prefix=5)
    with pytest.raises(TypeError):
        tread.open(NODE_SAMPLE, start=1.5)
    with pytest.raises(ValueError):
        tread.open(NODE_SAMPLE, name_prefix=())


def test_rejected_events_make_no_objects():
    # every event rejected: the stats count them all, none reaches Python
    r = tread.open(NODE_SAMPLE, name_prefix="no event has this name")
    assert list(r) == []
    assert r.stats()["events"] == 987


# ---- the CLI's filter: name/cat patterns, pid, tid, times with units -------
# One filter in C (tools/event_filter.c) serves `tread cat` and tread.open:
# the same keywords must keep exactly the events the CLI's flags keep.

def cli_cat(*args):
    import json
    import subprocess
    from conftest import TREAD_CLI
    if not TREAD_CLI:
        pytest.skip("TREAD_CLI not set (run through python/run_pytest)")
    out = subprocess.run([TREAD_CLI, "cat", "-q", *args, NODE_SAMPLE], check=True,
                         stdout=subprocess.PIPE).stdout.decode().splitlines()
    return [(json.loads(line)["kind"], json.loads(line)["name"], json.loads(line)["ts_ns"])
            for line in out]


def triples(evs):
    return [(e.kind, e.name, e.ts) for e in evs]


@pytest.mark.parametrize("kw,flags", [
    ({"name": "V8.*"}, ["--name", "V8.*"]),
    ({"name": ["V8.Deserialize*", "Env"]}, ["--name", "V8.Deserialize*", "--name", "Env"]),
    ({"name": "[!V]*"}, ["--name", "[!V]*"]),
    ({"cat": "node,*"}, ["--cat", "node,*"]),
    ({"cat": "v8"}, ["--cat", "v8"]),
    ({"kinds": {"complete"}, "name": "?8*"}, ["--kind", "complete", "--name", "?8*"]),
])
def test_patterns_as_the_cli(kw, flags):
    assert triples(tread.open(NODE_SAMPLE, **kw)) == cli_cat(*flags)


def test_name_glob_against_fnmatch(everything):
    import fnmatch
    for pat in ("V8.*", "*Isolate", "[A-M]*", "?8.*Context", "no[", "*"):
        want = [e for e in everything
                if (fnmatch.fnmatchcase(e.name or "", pat) if any(c in pat for c in "*?[")
                    else (e.name or "").startswith(pat))]
        assert names(tread.open(NODE_SAMPLE, name=pat)) == names(want), pat


def test_name_prefix_stays_a_prefix(everything):
    # name_prefix never globs: "*" is a character to match
    assert list(tread.open(NODE_SAMPLE, name_prefix="*")) == []
    assert names(tread.open(NODE_SAMPLE, name_prefix="V8.")) == \
        names(e for e in everything if (e.name or "").startswith("V8."))


def test_pid_tid(everything):
    pids = sorted({e.pid for e in everything if e.pid is not None})
    tids = sorted({e.tid for e in everything if e.tid is not None})
    assert len(tids) > 1
    for t in tids:
        assert names(tread.open(NODE_SAMPLE, tid=t)) == \
            names(e for e in everything if e.tid == t)
    assert names(tread.open(NODE_SAMPLE, tid=tids[:2])) == \
        names(e for e in everything if e.tid in tids[:2])
    assert names(tread.open(NODE_SAMPLE, pid=pids[0])) == \
        names(e for e in everything if e.pid == pids[0])
    assert list(tread.open(NODE_SAMPLE, pid=-12345)) == []
    assert triples(tread.open(NODE_SAMPLE, tid=tids[1])) == cli_cat("--tid", str(tids[1]))
    with pytest.raises(TypeError):
        tread.open(NODE_SAMPLE, pid="1")
    with pytest.raises(TypeError):
        tread.open(NODE_SAMPLE, tid=[1, "x"])
    with pytest.raises(ValueError):
        tread.open(NODE_SAMPLE, pid=[])


def test_times_with_units(everything):
    ts = sorted(e.ts for e in everything if e.ts is not None)
    mid = ts[len(ts) // 2] // 1000 * 1000  # a whole us
    for text in (f"{mid}", f"{mid}ns", f"{mid // 1000}us", f"{mid / 1e6:.3f}ms"):
        assert names(tread.open(NODE_SAMPLE, start=text)) == \
            names(tread.open(NODE_SAMPLE, start=mid)), text
    assert names(tread.open(NODE_SAMPLE, end="1.5s")) == \
        names(tread.open(NODE_SAMPLE, end=1500000000))
    assert triples(tread.open(NODE_SAMPLE, start=f"{mid // 1000}us")) == \
        cli_cat("--start", f"{mid // 1000}us")
    for bad in ("1.5parsecs", "abc", "1.", "", "0.0000000001s"):
        with pytest.raises(ValueError):
            tread.open(NODE_SAMPLE, start=bad)
    with pytest.raises(TypeError):
        tread.open(NODE_SAMPLE, end=1.5)
