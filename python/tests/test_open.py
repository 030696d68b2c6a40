"""tread.open(): events, fields, sources, chunking, warnings, freeing."""
import gc
import gzip
import io
import os
import warnings

import pytest

import tread
from conftest import NODE_SAMPLE, cli_stats, corpus_file, trace, write

FIELDS = trace(
    {"name": "M1", "ph": "M", "pid": 7, "tid": 8, "args": {"name": "renderer"}},
    {"name": "work", "cat": "a,b", "ph": "X", "ts": 1.5, "dur": 2.25, "tts": 3,
     "pid": 7, "tid": 8, "args": {"n": 1, "big": 18446744073709551615, "f": 0.5,
                                  "s": "caf\u00e9", "t": True, "z": None,
                                  "d": {"x": [1, "two", {"y": 3}]}}},
    {"name": "ctr", "ph": "C", "ts": 10, "pid": 7, "args": {"a": 3, "b": 2.5}},
    {"name": "fl", "ph": "s", "ts": 11, "pid": 7, "tid": 8, "id": "0x1f", "cat": "f"},
    {"name": "inst", "ph": "i", "s": "g", "ts": 12, "pid": 7, "tid": 8},
    {"name": "thread_name", "ph": "M", "pid": 7, "tid": 8, "args": {"name": "main"}},
)


def test_fields(tmp_path):
    path = write(tmp_path, "f.json", FIELDS)
    evs = list(tread.open(path))
    kinds = [e.kind for e in evs]
    assert kinds == ["metadata", "complete", "counter", "counter", "flow_begin",
                     "instant", "metadata"]
    x = evs[1]
    assert (x.ts, x.dur, x.end, x.tts) == (1500, 2250, 3750, 3000)
    assert (x.pid, x.tid, x.name, x.cat, x.phase) == (7, 8, "work", "a,b", "X")
    assert x.format == "json"
    assert x.args == {"n": 1, "big": 18446744073709551615, "f": 0.5, "s": "caf\u00e9",
                      "t": True, "z": None, "d": {"x": [1, "two", {"y": 3}]}}
    assert x.args is x.args  # built once
    assert x.value is None and x.meta is None and x.flow_ids == ()
    c1, c2 = evs[2], evs[3]
    assert (c1.series, c1.value, c2.series, c2.value) == ("a", 3, "b", 2.5)
    assert (c1.value_text, c2.value_text) == ("3", "2.5")
    assert (evs[4].id, evs[4].id_num) == ("0x1f", 31)
    assert evs[5].scope == "global"
    assert (evs[6].meta, evs[6].meta_str) == ("thread_name", "main")
    d = x.to_dict()
    assert d["name"] == "work" and d["args"]["n"] == 1 and "value" not in d
    assert "work" in repr(x) and "complete" in repr(x)
    with pytest.raises(AttributeError):
        x.name = "other"
    with pytest.raises(AttributeError):
        x.extra = 1


def test_kinds_constant():
    assert tread.KINDS[0] == "unknown" and "complete" in tread.KINDS
    assert "json" in tread.FORMATS and "perfetto" in tread.FORMATS
    assert tread.__version__.count(".") == 2


def test_sample_counts_match_cli():
    r = tread.open(NODE_SAMPLE)
    evs = list(r)
    st = r.stats()
    assert len(evs) == st["events"] == 987
    assert r.closed and r.format == "json"
    cli = cli_stats(NODE_SAMPLE)
    assert st["events_by_kind"] == cli["events_by_kind"]


def dicts(it):
    return [e.to_dict() for e in it]


def test_fileobj_and_chunking_give_the_same_events():
    with open(NODE_SAMPLE, "rb") as f:
        data = f.read()
    whole = dicts(tread.open(NODE_SAMPLE))
    assert dicts(tread.open(io.BytesIO(data))) == whole
    # one byte per read(): every chunk boundary, and pauses everywhere
    assert dicts(tread.open(io.BytesIO(data), chunk_size=1)) == whole
    assert dicts(tread.open(io.BytesIO(gzip.compress(data)), chunk_size=7)) == whole
    with open(NODE_SAMPLE, "rb") as f:
        assert dicts(tread.open(f)) == whole


def test_read_thread_option_gives_the_same_events(tmp_path):
    # a path is read ahead on a second thread by default (TREAD_OPT_READ_THREAD)
    whole = dicts(tread.open(NODE_SAMPLE, read_thread=False))
    assert dicts(tread.open(NODE_SAMPLE)) == whole
    assert dicts(tread.open(NODE_SAMPLE, read_thread=True)) == whole
    gz = tmp_path / "s.json.gz"
    with open(NODE_SAMPLE, "rb") as f:
        gz.write_bytes(gzip.compress(f.read()))
    assert dicts(tread.open(str(gz))) == whole
    assert tread.stats(str(gz), read_thread=False)["events"] == len(whole)


def test_pathlike_and_bytes_path(tmp_path):
    import pathlib
    n = len(list(tread.open(pathlib.Path(NODE_SAMPLE))))
    assert n == len(list(tread.open(os.fsencode(NODE_SAMPLE)))) == 987


def test_args_false():
    ev = next(e for e in tread.open(NODE_SAMPLE, args=False) if e.kind == "complete")
    assert ev.args is None and ev.name


def test_text_mode_file_is_refused(tmp_path):
    path = write(tmp_path, "t.json", FIELDS)
    with open(path, "r") as f:
        with pytest.raises(TypeError, match="binary mode"):
            list(tread.open(f))


def test_format_option(tmp_path):
    path = write(tmp_path, "f.json", FIELDS)
    assert len(list(tread.open(path, "json"))) == 7
    with pytest.raises(ValueError):
        tread.open(path, format="nope")
    with pytest.raises(TypeError):
        tread.open(path, bogus_option=1)
    with pytest.raises(ValueError, match="max_depth"):
        tread.open(path, max_depth=0)
    with pytest.raises(TypeError):
        tread.open(path, max_depth="deep")


def test_stop_in_the_middle_frees_the_parser():
    gc.collect()
    base = tread._live_parsers()
    r = tread.open(NODE_SAMPLE)
    assert tread._live_parsers() == base + 1
    for i, ev in enumerate(r):
        if i == 100:
            break
    assert not r.closed
    del r
    assert tread._live_parsers() == base
    for i, ev in enumerate(tread.open(NODE_SAMPLE)):
        if i == 10:
            break
    assert tread._live_parsers() == base
    with tread.open(NODE_SAMPLE) as r:
        first = next(r)
        assert first.kind
    assert r.closed and tread._live_parsers() == base
    assert list(r) == []
    # events already taken stay valid after the parser is gone
    assert first.to_dict()["name"] == first.name


def test_resume_after_break_continues_exactly():
    whole = dicts(tread.open(NODE_SAMPLE))
    r = tread.open(NODE_SAMPLE)
    part = []
    for ev in r:
        part.append(ev.to_dict())
        if len(part) == 300:
            break
    part += dicts(r)
    assert part == whole


BAD_PHASE = trace({"name": "a", "ph": "X", "ts": 1, "dur": 1, "pid": 1, "tid": 1},
                  {"name": "q", "ph": "Q", "ts": 2, "pid": 1, "tid": 1},
                  {"name": "b", "ph": "X", "ts": 3, "dur": 1, "pid": 1, "tid": 1})


def test_warnings_module(tmp_path):
    path = write(tmp_path, "w.json", BAD_PHASE)
    with pytest.warns(tread.TreadWarning, match="unknown_phase at byte"):
        evs = list(tread.open(path))
    assert [e.kind for e in evs] == ["complete", "unknown", "complete"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(tread.TreadWarning):
            list(tread.open(path))
        assert len(list(tread.open(path, warnings="ignore"))) == 3


def test_warnings_callback(tmp_path):
    path = write(tmp_path, "w.json", BAD_PHASE)
    got = []
    r = tread.open(path, warnings=lambda kind, offset, msg: got.append((kind, offset, msg)))
    assert len(list(r)) == 3
    assert len(got) == 1 and got[0][0] == "unknown_phase"
    assert got[0][1] == BAD_PHASE.index('{"name": "q"')
    assert r.stats()["warnings_by_kind"]["unknown_phase"] == 1

    def boom(*a):
        raise KeyError("from callback")
    with pytest.raises(KeyError):
        list(tread.open(path, warnings=boom))
    with pytest.raises(TypeError):
        tread.open(path, warnings=42)


def test_max_warnings(tmp_path):
    evs = [{"name": "q", "ph": "Q", "ts": i, "pid": 1} for i in range(50)]
    path = write(tmp_path, "w.json", trace(*evs))
    got = []
    r = tread.open(path, warnings=lambda *a: got.append(a), max_warnings=5)
    assert len(list(r)) == 50
    assert len(got) == 5 and r.stats()["warnings"] == 50
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        list(tread.open(path))
    assert len(w) == 20  # the default for the warnings module


def test_perfetto_and_fxt():
    pf = corpus_file("perfetto/sdk_small.pftrace")
    r = tread.open(pf)
    evs = list(r)
    assert r.format == "perfetto" and len(evs) == cli_stats(pf)["events"]
    assert any(e.track_uuid is not None and e.track_kind for e in evs)
    assert any(e.seq_id is not None for e in evs)
    assert all(isinstance(e.args, dict) for e in evs)
    fx = corpus_file("fxt/gen_all_types.fxt")
    r = tread.open(fx, warnings="ignore")
    evs = list(r)
    assert r.format == "fxt" and len(evs) == cli_stats(fx)["events"]
    assert any(e.provider_id is not None for e in evs)
    assert any(e.args for e in evs)


def test_fxt_byte_ranges():
    """Two ranges, cut anywhere, give the whole trace's events between
    them; ftrace text refuses a range."""
    path = os.path.join(os.path.dirname(NODE_SAMPLE), "..", "..", "fuzz", "seeds", "fxt",
                        "all_records.fxt")

    def events(**kw):
        return [(e.kind, e.name, e.ts, e.tid) for e in tread.open(path, warnings="ignore", **kw)]

    whole = events()
    assert len(whole) > 20
    size = os.path.getsize(path)
    for cut in range(0, size + 16, 40):
        assert events(range_end=cut) + events(range_begin=cut) == whole
    ftrace = os.path.join(os.path.dirname(NODE_SAMPLE), "..", "..", "fuzz", "seeds", "ftrace")
    text = sorted(os.path.join(ftrace, f) for f in os.listdir(ftrace) if f.endswith(".txt"))[0]
    with pytest.raises(tread.Error, match="RANGE"):
        list(tread.open(text, range_begin=10))
    with pytest.raises(ValueError, match="range_end"):
        tread.open(path, range_end=-5)


def test_json_byte_ranges():
    """Chrome JSON: two or three ranges, cut anywhere, give the whole
    trace's events (and warnings) between them, in order."""
    def events(**kw):
        return [(e.kind, e.name, e.ts, e.tid, e.offset)
                for e in tread.open(NODE_SAMPLE, warnings="ignore", **kw)]

    whole = events()
    assert len(whole) > 500
    size = os.path.getsize(NODE_SAMPLE)
    for cut in list(range(0, size + 16, 997)) + [size - 1, size]:
        assert events(range_end=cut) + events(range_begin=cut) == whole
    third = size // 3
    assert events(range_end=third) + events(range_begin=third, range_end=2 * third) + \
        events(range_begin=2 * third) == whole


def test_v8_profiles(tmp_path):
    """Profile/ProfileChunk events expand into frames and timed samples, a
    .cpuprofile is a format of its own (doc/formats/json.md 8.1,
    doc/formats/cpuprofile.md)."""
    path = write(tmp_path, "p.json", trace(
        {"ph": "P", "name": "Profile", "id": "0x1", "pid": 7, "tid": 8, "ts": 1,
         "args": {"data": {"startTime": 100}}},
        {"ph": "P", "name": "ProfileChunk", "id": "0x1", "pid": 7, "tid": 9, "ts": 2,
         "args": {"data": {"cpuProfile": {
             "nodes": [{"id": 1, "callFrame": {"functionName": "(root)"}},
                       {"id": 2, "parent": 1, "callFrame": {"functionName": "f",
                                                            "url": "a.js", "lineNumber": 3}}],
             "samples": [2, 1]}, "timeDeltas": [5, 7]}}},
    ))
    evs = list(tread.open(path))
    assert [e.kind for e in evs] == ["metadata", "stack_frame", "stack_frame", "sample", "sample"]
    assert [(e.id, e.parent, e.name) for e in evs[1:3]] == [
        ("7:0x1:1", None, "(root)"), ("7:0x1:2", "7:0x1:1", "f")]
    assert evs[2].cat == "a.js" and evs[2].args["lineNumber"] == 3
    assert [(e.ts, e.sf, e.pid, e.tid) for e in evs[3:]] == [
        (105000, "7:0x1:2", 7, 9), (112000, "7:0x1:1", 7, 9)]
    prof = os.path.join(os.path.dirname(NODE_SAMPLE), "node_fib.cpuprofile")
    evs = list(tread.open(prof))
    assert {e.format for e in evs} == {"cpuprofile"}
    assert "cpuprofile" in tread.FORMATS
    samples = [e for e in evs if e.kind == "sample"]
    frames = {e.id for e in evs if e.kind == "stack_frame"}
    assert len(samples) == 302 and len(frames) == 58
    assert all(s.sf in frames for s in samples)
    assert [s.ts for s in samples] == sorted(s.ts for s in samples)
    # the option reaches the library: 16 entries, then counted warnings
    st = tread.stats(prof, warnings="ignore", max_profile_nodes=16)
    assert st["warnings_by_kind"].get("limit", 0) > 0
    assert tread.stats(prof, warnings="ignore")["warnings"] == 0


def test_perfetto_schema_args():
    """Protobuf repeated fields come as lists (a StackSample's frames: a
    dict kept only the first, its keys repeating), its interned references
    resolved; typed Chrome payloads as dicts by field name."""
    ss = corpus_file("perfetto/difftests/parser_profiling__stack_sample.pb")
    samples = [e for e in tread.open(ss, warnings="ignore") if e.kind == "sample"]
    assert len(samples) == 4
    frames = samples[0].args["callstack"]["frames"]
    assert [f["function_name"] for f in frames] == ["main", "foo"]
    assert samples[0].args["primary_descriptor"] == {"name": "wall-time",
                                                     "unit": "UNIT_NANOSECONDS"}
    assert samples[0].cat == "python.wall"
    ta = corpus_file("perfetto/difftests/parser_track_event__track_event_typed_args.pb")
    args = [e.args for e in tread.open(ta, warnings="ignore") if "chrome_latency_info" in e.args]
    assert args and args[0]["chrome_latency_info"]["trace_id"] == 7
    assert args[0]["int_extension_for_testing"] == [42, 1337]
