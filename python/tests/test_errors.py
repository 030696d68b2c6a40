"""Errors: tread.Error subclasses with code, offset and message."""
import io

import pytest

import tread
from conftest import NODE_SAMPLE, trace, write

GOOD = {"name": "a", "ph": "X", "ts": 1, "dur": 1, "pid": 1, "tid": 1}


def test_syntax_error_after_the_events_before_it(tmp_path):
    text = trace(GOOD, GOOD, '{"name": "b", "ph": "X", "ts": }')
    path = write(tmp_path, "bad.json", text)
    got = []
    with pytest.raises(tread.ParseError) as ei:
        for ev in tread.open(path):
            got.append(ev.name)
    assert got == ["a", "a"]
    e = ei.value
    assert isinstance(e, tread.Error)
    assert e.code == "syntax"
    assert text.index("}", text.index('"ts": ')) - 2 <= e.offset <= len(text)
    assert str(e).startswith("syntax at byte %d: " % e.offset)
    assert e.message and e.message in str(e)


def test_error_offset_is_exact(tmp_path):
    # strict mode: a trailing comma is an error, at the comma
    text = '{"traceEvents":[' + '{"name":"a","ph":"X","ts":1,"pid":1},' * 3 + ']}'
    path = write(tmp_path, "b.json", text)
    assert len(list(tread.open(path, warnings="ignore"))) == 3
    with pytest.raises(tread.ParseError) as ei:
        list(tread.open(path, lenient=False))
    assert ei.value.offset == text.index(",]}")


def test_limit_error(tmp_path):
    deep = {"name": "a", "ph": "X", "ts": 1, "pid": 1, "args": {}}
    cur = deep["args"]
    for _ in range(20):
        cur["x"] = {}
        cur = cur["x"]
    path = write(tmp_path, "deep.json", trace(deep))
    assert len(list(tread.open(path))) == 1
    with pytest.raises(tread.LimitError) as ei:
        list(tread.open(path, max_depth=8))
    assert ei.value.code == "limit_depth"


def test_unknown_format():
    with pytest.raises(tread.FormatError) as ei:
        list(tread.open(io.BytesIO(b"\x01\x02\x03 this is no trace at all \xff" * 10)))
    assert ei.value.code == "unknown_format"


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        tread.open(str(tmp_path / "nope.json"))


def test_read_exception_propagates():
    class Broken:
        def read(self, n):
            raise OSError("disk on fire")
    with pytest.raises(OSError, match="disk on fire"):
        list(tread.open(Broken()))


def test_forced_wrong_format(tmp_path):
    path = write(tmp_path, "a.json", trace(GOOD, GOOD))
    with pytest.raises(tread.ParseError) as ei:
        list(tread.open(NODE_SAMPLE, format="perfetto"))
    assert ei.value.code == "syntax"
    r = tread.open(path, format="fxt", warnings="ignore")
    assert all(e.kind != "complete" for e in r)
    assert r.format == "fxt" and r.stats()["warnings"] > 0


def test_directory(tmp_path):
    with pytest.raises(IsADirectoryError):
        tread.open(str(tmp_path))


def test_reentry_from_a_warning_callback(tmp_path):
    path = write(tmp_path, "w.json", trace(GOOD, {"name": "q", "ph": "Q", "ts": 2, "pid": 1},
                                          GOOD))
    holder = {}

    def cb(kind, offset, msg):
        next(holder["r"])  # the parser is running: refused
    holder["r"] = tread.open(path, warnings=cb)
    with pytest.raises(RuntimeError, match="already running"):
        list(holder["r"])

    def close_cb(kind, offset, msg):
        holder["r"].close()
    holder["r"] = tread.open(path, warnings=close_cb)
    with pytest.raises(RuntimeError, match="already running"):
        list(holder["r"])
    holder.clear()


def test_tracedat_meta_limit():
    # the fuzz seed's event formats (about 4 KiB) past 4096 bytes: an error;
    # under 1 MiB: its function events named through kallsyms
    import os
    path = os.path.join(os.path.dirname(NODE_SAMPLE), "..", "..", "fuzz", "seeds", "tracedat",
                        "fn_v6.dat")
    with pytest.raises(tread.LimitError) as ei:
        list(tread.open(path, max_tracedat_meta_bytes=4096, warnings="ignore"))
    assert ei.value.code == "limit_memory"
    assert "max-tracedat-meta-bytes" in ei.value.message
    evs = list(tread.open(path, max_tracedat_meta_bytes=1 << 20, warnings="ignore"))
    assert [e.name for e in evs[:3]] == ["do_idle", "cpu_startup_entry", "late"]
    assert evs[0].args == {"parent": "cpu_startup_entry"}
    st = tread.stats(path, max_tracedat_meta_bytes=1 << 20, warnings="ignore")
    assert st["events"] == 14
