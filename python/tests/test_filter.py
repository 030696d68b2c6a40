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
