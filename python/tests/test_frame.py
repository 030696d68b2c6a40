"""tread.frame(): the same events as tread.open(), field by field, as
columns; argument columns; filters; errors; memory."""
import gc
import io
import math
import os
import subprocess
import sys

import pytest

import tread
from conftest import NODE_SAMPLE, corpus_file, trace, write

pd = pytest.importorskip("pandas", reason="tread.frame needs pandas (python3-pandas)")
np = pytest.importorskip("numpy", reason="tread.frame needs numpy (python3-numpy)")

# column -> tread.Event attribute
ATTR = {c: c for c in tread.COLUMNS}
ATTR["track"] = "track_uuid"

# the corpus files of every format the field-by-field test reads
CORPUS = ["json/node_small.json", "json/clang_sqlite3_fine.json.gz",
          "perfetto/sdk_small.pftrace", "perfetto/sdk_medium_zstd.pftrace",
          "fxt/gen_multi_provider.fxt", "fxt/gen_tricky.fxt",
          "ftrace/catapult/android_systrace.txt", "ftrace/catapult/trivial_systrace.html"]

MADE = trace(
    {"name": "process_name", "ph": "M", "pid": 7, "args": {"name": "renderer"}},
    {"name": "thread_name", "ph": "M", "pid": 7, "tid": 8, "args": {"name": "main"}},
    {"name": "work", "cat": "a,b", "ph": "X", "ts": 1.5, "dur": 2.25, "tts": 3,
     "pid": 7, "tid": 8, "args": {"n": 1, "f": 0.5, "s": "x", "t": True, "mix": 1,
                                  "d": {"x": [1, 2]}}},
    {"name": "work", "cat": "a,b", "ph": "X", "ts": 5, "dur": 1, "pid": 7, "tid": 9,
     "args": {"n": 2, "f": 3, "s": "y", "t": False, "mix": "one"}},
    {"name": "ctr", "ph": "C", "ts": 10, "pid": 7, "args": {"a": 3, "b": 2.5}},
    {"name": "fl", "ph": "s", "ts": 11, "pid": 7, "tid": 8, "id": "0x1f", "cat": "f"},
    {"name": "inst", "ph": "i", "s": "g", "ts": 12, "pid": "browser", "tid": 8},
    {"name": "caf\u00e9", "ph": "B", "ts": 13, "pid": 7, "tid": 8, "cname": "good"},
    {"name": "caf\u00e9", "ph": "E", "ts": 14, "pid": 7, "tid": 8},
    {"name": "big", "ph": "C", "ts": 15, "pid": 7, "args": {"v": 9007199254740993}},
)


def cell(v):
    """A frame cell as tread.Event gives the field: None when missing."""
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


def event_value(ev, col):
    v = getattr(ev, ATTR[col])
    if col == "value" and v is not None:
        return float(v)
    if col == "offset":
        return v
    if col == "flags":
        return v
    return v


def assert_frame_equals_open(path, **opts):
    df = tread.frame(path, columns=tread.COLUMNS, **opts)
    evs = list(tread.open(path, args=False, **opts))
    assert len(df) == len(evs)
    for col in tread.COLUMNS:
        got = [cell(v) for v in df[col].astype(object).tolist()]
        want = [event_value(ev, col) for ev in evs]
        assert got == want, col
    return df, evs


def test_made_input_field_by_field(tmp_path):
    path = write(tmp_path, "made.json", MADE)
    df, evs = assert_frame_equals_open(path)
    assert len(df) == 11
    # chunking: a file object read one byte at a time gives the same frame
    with open(path, "rb") as f:
        one = tread.frame(io.BufferedReader(io.BytesIO(f.read()), 1), columns=tread.COLUMNS,
                          chunk_size=1)
    pd.testing.assert_frame_equal(one, df)


@pytest.mark.parametrize("name", CORPUS)
def test_corpus_field_by_field(name):
    path = corpus_file(name)
    df, evs = assert_frame_equals_open(path, warnings="ignore")
    assert len(df) > 0
    st = tread.stats(path, warnings="ignore")
    assert df["kind"].value_counts().to_dict() == \
        {k: v for k, v in st["events_by_kind"].items()} | \
        {k: 0 for k in tread.KINDS if k not in st["events_by_kind"]}


def test_default_columns_and_dtypes(tmp_path):
    df = tread.frame(write(tmp_path, "m.json", MADE))
    assert tuple(df.columns) == tread.DEFAULT_COLUMNS == (
        "kind", "ts", "dur", "name", "cat", "pid", "tid", "track", "id", "value", "format")
    assert {c: str(t) for c, t in df.dtypes.items()} == {
        "kind": "category", "ts": "Int64", "dur": "Int64", "name": "category",
        "cat": "category", "pid": "Int64", "tid": "Int64", "track": "UInt64",
        "id": "category", "value": "float64", "format": "category"}
    assert list(df["kind"].cat.categories) == list(tread.KINDS)
    assert sorted(df["name"].cat.categories) == sorted(
        {"process_name", "thread_name", "work", "ctr", "fl", "inst", "caf\u00e9", "big"})
    # the codes are as narrow as pandas makes them: no copy by from_codes
    assert df["name"].cat.codes.dtype == np.int8
    assert df["ts"].tolist()[:4] == [pd.NA, pd.NA, 1500, 5000]
    assert df["pid"].tolist()[7] != 7  # a string pid gets a synthetic number


def test_columns_are_not_copied(tmp_path):
    # the frame's arrays are the C arrays: numpy views on tread._Buffer
    df = tread.frame(write(tmp_path, "m.json", MADE), columns=["ts", "value", "name"])

    def root(a):
        while isinstance(a, np.ndarray):
            a = a.base
        return a
    assert isinstance(root(df["value"].values), tread._tread._Buffer)
    assert isinstance(root(df["ts"].array._data), tread._tread._Buffer)
    assert isinstance(root(df["ts"].array._mask), tread._tread._Buffer)
    assert isinstance(root(df["name"].array.codes), tread._tread._Buffer)


def test_args_columns(tmp_path):
    path = write(tmp_path, "m.json", MADE)
    df = tread.frame(path, columns=["name"], args=["n", "f", "s", "t", "mix", "d.x.1", "d",
                                                   "v", "absent"])
    assert str(df["n"].dtype) == "Int64" and df["n"].tolist()[2:4] == [1, 2]
    assert df["f"].dtype == np.float64 and df["f"].tolist()[2:4] == [0.5, 3.0]
    assert str(df["s"].dtype) == "category" and df["s"].tolist()[2:4] == ["x", "y"]
    assert str(df["t"].dtype) == "boolean" and df["t"].tolist()[2:4] == [True, False]
    assert df["mix"].dtype == object and df["mix"].tolist()[2:4] == [1, "one"]
    assert df["d.x.1"].tolist()[2] == 2  # a flattened key, as tread_args_find has it
    assert df["d"].isna().all()          # a dict: not a scalar column
    assert df["v"].tolist()[-1] == 9007199254740993  # exact: Int64, not float
    assert df["absent"].isna().all() and len(df) == 11
    # each value is the one tread.open gives
    evs = list(tread.open(path))
    for key in ("n", "f", "s", "t", "mix", "v"):
        want = [ev.args.get(key) if ev.args else None for ev in evs]
        assert [cell(v) for v in df[key].astype(object).tolist()] == want, key
    typed = tread.frame(path, columns=["name"], args={"n": "float64", "s": None})
    assert typed["n"].dtype == np.float64 and str(typed["s"].dtype) == "category"
    with pytest.raises(ValueError):
        tread.frame(path, columns=["name"], args=["name"])
    with pytest.raises(TypeError):
        tread.frame(path, args="n")
    with pytest.raises(TypeError):
        tread.frame(path, columns="name")


def test_filters_are_those_of_open(tmp_path):
    path = write(tmp_path, "m.json", MADE)
    for opts in ({"kinds": {"complete", "counter"}}, {"name_prefix": "wo"},
                 {"cat_prefix": ["a", "f"]}, {"start": 5000, "end": 12000},
                 {"kinds": ["metadata"], "name_prefix": ["thread"]}):
        assert_frame_equals_open(path, **opts)
    assert len(tread.frame(path, kinds={"complete"})) == 2
    with pytest.raises(ValueError):
        tread.frame(path, kinds={"nonsense"})
    with pytest.raises(ValueError):
        tread.frame(path, columns=["nonsense"])
    with pytest.raises(TypeError):
        tread.frame(path, bogus=1)


def test_empty_and_errors(tmp_path):
    empty = tread.frame(io.BytesIO(b"[]"), format="json")
    assert len(empty) == 0 and tuple(empty.columns) == tread.DEFAULT_COLUMNS
    good = {"name": "a", "ph": "X", "ts": 1, "dur": 1, "pid": 1, "tid": 1}
    bad = write(tmp_path, "bad.json", trace(good, '{"name": }'))
    with pytest.raises(tread.ParseError) as ei:
        tread.frame(bad)
    e = ei.value
    assert e.file == bad and bad in str(e) and e.code == "syntax"
    with pytest.raises(tread.ParseError) as ej:
        list(tread.open(bad))
    assert e.offset == ej.value.offset
    with pytest.raises(FileNotFoundError):
        tread.frame(str(tmp_path / "missing.json"))
    assert tread._live_parsers() == 0


def test_warnings_reach_python(tmp_path):
    # a warning is handed to the warnings module with the lock taken back
    path = write(tmp_path, "w.json", trace({"name": "a", "ph": "X", "ts": 1, "dur": 1,
                                            "pid": 1, "tid": 1},
                                           {"name": "b", "ph": "?", "ts": 2, "pid": 1}))
    seen = []
    df = tread.frame(path, warnings=lambda *w: seen.append(w))
    want = []
    list(tread.open(path, warnings=lambda *w: want.append(w)))
    assert want and seen == want
    assert len(df) == len(list(tread.open(path, warnings="ignore")))
    with pytest.raises(ZeroDivisionError):
        tread.frame(path, warnings=lambda *w: 1 / 0)
    with pytest.warns(tread.TreadWarning):
        tread.frame(path)
    assert tread._live_parsers() == 0


def test_without_pandas_import_error(tmp_path):
    # the module imports without pandas; frame() then says what to install
    code = ("import sys; sys.modules['pandas'] = None; import tread\n"
            "assert list(tread.open(sys.argv[1]))\n"
            "try:\n    tread.frame(sys.argv[1])\nexcept ImportError as e:\n"
            "    print('ImportError', e)\n")
    out = subprocess.run([sys.executable, "-c", code, NODE_SAMPLE], stdout=subprocess.PIPE,
                         check=True, env=os.environ).stdout.decode()
    assert out.startswith("ImportError") and "python3-pandas" in out


# VmHWM: getrusage's ru_maxrss would count the forked copy of pytest
BIG_SCRIPT = r"""
import sys, tread, pandas
def hwm():
    with open("/proc/self/status") as f:
        return [int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:")][0]
base = hwm()
df = tread.frame(sys.argv[1])
peak = hwm()
print(len(df), base, peak, int(df.memory_usage(deep=True).sum()))
"""


def test_memory_is_the_frame_and_a_bounded_parser(tmp_path):
    # peak RSS grown by the frame stays within 2x the frame's own memory
    events = [{"name": "n%d" % (i % 50), "cat": "c%d" % (i % 5), "ph": "X", "ts": i,
               "dur": 3, "pid": 1 + i % 4, "tid": i % 16, "args": {"k": i}}
              for i in range(400000)]
    path = write(tmp_path, "big.json", trace(*events))
    out = subprocess.run([sys.executable, "-c", BIG_SCRIPT, path], stdout=subprocess.PIPE,
                         check=True, env=os.environ).stdout.split()
    rows, base, peak, frame_bytes = map(int, out)
    assert rows == 400000
    assert peak - base <= 2 * frame_bytes, (peak - base, frame_bytes)


def test_malformed_utf8_categories_stay_unique():
    # two byte strings that decode to the same str: one category, the
    # codes of the second mapped to it
    data = (b'[{"name":"a\xff","ph":"i","ts":1,"pid":1},'
            b'{"name":"a\xfe","ph":"i","ts":2,"pid":1},{"name":"b","ph":"i","ts":3,"pid":1}]')
    df = tread.frame(io.BytesIO(data), warnings="ignore")
    want = [ev.name for ev in tread.open(io.BytesIO(data), warnings="ignore")]
    assert df["name"].tolist() == want == ["a\ufffd", "a\ufffd", "b"]
    assert list(df["name"].cat.categories) == ["a\ufffd", "b"]


def codes_of(df, col):
    return df[col].array.codes


def test_codes_widen_in_place_as_the_dictionary_grows(tmp_path):
    # 40000 distinct names: their codes are written as int8, widened in
    # place to int16 at 127 names and to int32 at 32767; names seen before
    # each widening come back later, so a code moved wrongly shows. ids:
    # 200 distinct (int16); cats: 3 (int8).
    events = [{"name": "n%d" % i, "cat": "c%d" % (i % 3), "id": "0x%x" % (i % 200),
               "ph": "n", "ts": i, "pid": 1} for i in range(40000)]
    events += [{"name": "n%d" % (i * 7919 % 40000), "cat": "c1", "ph": "i", "ts": 40000 + i,
                "pid": 2} for i in range(2000)]
    path = write(tmp_path, "wide.json", trace(*events))
    df, evs = assert_frame_equals_open(path)
    assert codes_of(df, "name").dtype == np.int32
    assert codes_of(df, "id").dtype == np.int16
    assert codes_of(df, "cat").dtype == np.int8
    # the same from a file object: no size to guess the rows from, so the
    # arrays start small and grow (moved, not copied) several times
    with open(path, "rb") as f:
        data = f.read()
    small = tread.frame(io.BytesIO(data), columns=tread.COLUMNS, chunk_size=4096)
    pd.testing.assert_frame_equal(small, df)


def test_malformed_utf8_merged_codes_are_narrowed():
    # 128 byte strings that all decode to "a\ufffd", and 100 others: the
    # dictionary holds 228 (int16 codes), the categories 101, so the codes
    # are mapped and narrowed back to int8 (what from_codes keeps as is)
    evs = [b'{"name":"a%s","ph":"i","ts":%d,"pid":1,"args":{"s":"a%s"}}' %
           (bytes([0x80 + k]), k, bytes([0x80 + k])) for k in range(128)]
    evs += [b'{"name":"n%d","ph":"i","ts":%d,"pid":1,"args":{"s":"n%d"}}' % (k, 200 + k, k)
            for k in range(100)]
    evs.append(evs[5])
    data = b"[" + b",".join(evs) + b"]"
    df = tread.frame(io.BytesIO(data), columns=tread.COLUMNS, args=["s"], warnings="ignore")
    want = list(tread.open(io.BytesIO(data), warnings="ignore"))
    assert df["name"].tolist() == [ev.name for ev in want]
    assert df["s"].tolist() == [ev.args["s"] for ev in want]
    cats = list(df["name"].cat.categories)
    assert len(cats) == len(set(cats)) == 101 and cats[0] == "a\ufffd"
    assert codes_of(df, "name").dtype == np.int8
    assert len(set(df["s"].cat.categories)) == 101


def test_fxt_string_indices_redefined():
    # gen_stress.fxt registers more than 41k strings in one provider, so
    # its string-table indices wrap and are redefined: the same table slot
    # (same address) holds other bytes later. Every name and category
    # must still be the one tread.open gives.
    path = corpus_file("fxt/gen_stress.fxt")
    cols = ["kind", "name", "cat", "ts", "pid", "tid"]
    df = tread.frame(path, columns=cols, warnings="ignore")
    evs = list(tread.open(path, args=False, warnings="ignore"))
    assert len(df) == len(evs) > 200000
    assert df["name"].cat.categories.size > 32767  # int32 codes
    for col in cols:
        got = [cell(v) for v in df[col].astype(object).tolist()]
        assert got == [event_value(ev, col) for ev in evs], col


RLIMIT_SCRIPT = r"""
import resource, sys, tread
from tread import _tread
def vmsize():
    with open("/proc/self/status") as f:
        return [int(l.split()[1]) * 1024 for l in f if l.startswith("VmSize:")][0]
lim = vmsize() + (400 << 20)
resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
print(_tread._frame(sys.argv[1], tread.COLUMNS, ())["rows"])
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc (Linux)")
def test_first_reservation_refused_starts_small(tmp_path):
    # the rows reserved at first are guessed from the file's size (64 MiB:
    # ~4 M rows, ~800 MiB of address space for every column); where the
    # address space is limited (RLIMIT_AS, a strict overcommit policy)
    # the guess is refused and the frame starts small instead of failing
    evs = ",".join('{"name":"a%d","ph":"X","ts":%d,"dur":1,"pid":1,"tid":1}' % (i, i)
                   for i in range(10))
    path = tmp_path / "padded.json"
    with open(path, "w") as f:
        f.write("[" + evs)
        f.write(" " * (64 << 20))
        f.write("]")
    out = subprocess.run([sys.executable, "-c", RLIMIT_SCRIPT, str(path)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ)
    assert out.returncode == 0, out.stderr.decode()[-500:]
    assert int(out.stdout) == 10
