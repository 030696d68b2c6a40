"""tread.dask.read_traces(): partitions per file and per byte range, names
joined per file, the file column, errors; on a LocalCluster of 2 worker
processes the counts by kind and by name equal `tread stats` summed over
the files."""
import collections
import gzip
import json
import os
import subprocess
import sys

import pytest

import tread
from conftest import CORPUS, NODE_SAMPLE, TREAD_CLI, cli_stats, corpus_file, trace, write

pd = pytest.importorskip("pandas", reason="tread.dask needs pandas (python3-pandas)")
dask = pytest.importorskip("dask.dataframe", reason="tread.dask needs dask (python3-dask)")
import tread.dask as td  # noqa: E402

# corpus traces of every format (and compressions) for the cluster test
EVERY_FORMAT = ["json/node_small.json", "json/clang_sqlite3_fine.json.gz",
                "perfetto/sdk_small.pftrace", "perfetto/sdk_medium_zstd.pftrace",
                "fxt/gen_multi_provider.fxt", "fxt/real_janestreet_tracing_demo_2024.fxt",
                "ftrace/catapult/android_systrace.txt", "ftrace/catapult/trivial_systrace.html"]


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip(
        "distributed", reason="the cluster tests need python3-distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def stats_counts(paths):
    """Events by kind, and by name (as tread stats counts names: not the
    slice_end half of a B/E pair), summed over `tread stats --json`."""
    kinds, names = collections.Counter(), collections.Counter()
    for p in paths:
        st = cli_stats(p, "--top", "1000000")
        assert not st["names"]["capped"]
        kinds.update(st["events_by_kind"])
        names.update({t["name"]: t["count"] for t in st["top_by_count"]})
    return {k: v for k, v in kinds.items() if v}, dict(names)


def dask_counts(ddf):
    kinds = ddf["kind"].value_counts().compute()
    named = ddf[(ddf["kind"] != "slice_end") & ddf["name"].notnull()]
    names = named["name"].astype(object).value_counts().compute()
    return ({k: int(v) for k, v in kinds.items() if v},
            {k: int(v) for k, v in names.items() if v})


def same(a, b):
    """Two columns hold the same values (missing ones included)."""
    a, b = a.reset_index(drop=True), b.reset_index(drop=True)
    if isinstance(a.dtype, pd.CategoricalDtype):
        a, b = a.astype(object), b.astype(object)
    assert str(a.dtype) == str(b.dtype) and a.equals(b)


def made_traces(tmp_path, n=3):
    paths = []
    for f in range(n):
        evs = [{"name": "process_name", "ph": "M", "pid": 10 + f,
                "args": {"name": "rank%d" % f}},
               {"name": "thread_name", "ph": "M", "pid": 10 + f, "tid": 1,
                "args": {"name": "main"}}]
        evs += [{"name": "op%d" % (i % 4), "cat": "kernel" if i % 4 < 2 else "cpu_op",
                 "ph": "X", "ts": i * 10 - i % 3 * 4, "dur": 5 + f * i % 17,
                 "pid": 10 + f, "tid": 1 + i % 2, "args": {"step": i}} for i in range(50 + f)]
        evs += [{"name": "B%d" % f, "ph": "B", "ts": 1000, "pid": 10 + f, "tid": 1},
                {"ph": "E", "ts": 1010, "pid": 10 + f, "tid": 1}]
        paths.append(write(tmp_path, "t%d.json" % f, trace(*evs)))
    return paths


def test_made_traces_partitions_names_file(tmp_path):
    paths = made_traces(tmp_path)
    ddf = td.read_traces(str(tmp_path / "t*.json"), args=["step"])
    assert ddf.npartitions == 3
    df = ddf.compute(scheduler="sync")
    assert list(df.columns) == list(tread.DEFAULT_COLUMNS) + \
        ["step", "process_name", "thread_name", "file"]
    assert list(df["file"].cat.categories) == paths
    for f, p in enumerate(paths):
        part = df[df["file"] == p]
        whole = tread.frame(p, args=["step"])
        assert len(part) == len(whole)
        for col in tread.DEFAULT_COLUMNS:
            same(part[col], whole[col])
        # argument columns are object unless args gives their dtypes
        same(part["step"], whole["step"].astype(object))
        assert set(part["process_name"].dropna()) == {"rank%d" % f}
        rows = part[part["tid"] == 1]
        assert set(rows["thread_name"].astype(object)) == {"main"}
        assert part[part["tid"] == 2]["thread_name"].isna().all()
    assert dask_counts(ddf) == stats_counts(paths)
    # names joined even when pid and tid are not among the columns
    slim = td.read_traces(paths, columns=["name"]).compute(scheduler="sync")
    assert list(slim.columns) == ["name", "process_name", "thread_name", "file"]
    assert slim["process_name"].astype(object).tolist() == \
        df["process_name"].astype(object).tolist()
    assert slim["thread_name"].astype(object).tolist() == \
        df["thread_name"].astype(object).tolist()
    slim = td.read_traces(paths, columns=["name"], kinds={"complete"}).compute(
        scheduler="sync")
    assert slim["process_name"].notna().all()
    # a filter that drops the metadata: the names come from a pass of their own
    only = td.read_traces(paths, kinds={"complete"}).compute(scheduler="sync")
    assert (only["kind"] == "complete").all() and only["process_name"].notna().all()
    assert only.groupby("file", observed=True)["process_name"].first().tolist() == \
        ["rank0", "rank1", "rank2"]


def test_split_pieces(tmp_path):
    if not TREAD_CLI or not os.access(TREAD_CLI, os.X_OK):
        pytest.skip("tools/tread is not built (TREAD_CLI)")
    out = subprocess.run([TREAD_CLI, "split", "--max-bytes", "40K", NODE_SAMPLE,
                          str(tmp_path / "piece")], stdout=subprocess.PIPE, check=True)
    pieces = out.stdout.decode().split()
    assert len(pieces) > 2
    df = td.read_traces(pieces).compute(scheduler="sync")
    whole = tread.frame(NODE_SAMPLE)
    # pieces repeat the process and thread metadata; the rest is each event once
    events = df[df["kind"] != "metadata"]
    want = whole[whole["kind"] != "metadata"]
    key = ["kind", "ts", "dur", "name", "pid", "tid"]
    assert sorted(map(tuple, events[key].astype(object).values.tolist()), key=repr) == \
        sorted(map(tuple, want[key].astype(object).values.tolist()), key=repr)
    assert events["process_name"].notna().any()


def test_bad_file_raises_with_file_and_offset(tmp_path, client):
    paths = made_traces(tmp_path, 2)
    good = {"name": "a", "ph": "X", "ts": 1, "dur": 1, "pid": 1, "tid": 1}
    bad = write(tmp_path, "t1bad.json", trace(good, '{"name": }'))
    with pytest.raises(tread.ParseError) as want:
        list(tread.open(bad))
    ddf = td.read_traces([paths[0], bad, paths[1]])
    with pytest.raises(tread.Error) as ei:
        ddf.compute()  # on the cluster: the error is pickled back
    e = ei.value
    assert isinstance(e, tread.ParseError) and e.file == bad and bad in str(e)
    assert (e.code, e.offset) == ("syntax", want.value.offset)
    # the other partitions are all there, read on their own
    for i, p in ((0, paths[0]), (2, paths[1])):
        part = ddf.get_partition(i).compute()
        assert len(part) == len(tread.frame(p)) and set(part["file"]) == {p}


def test_cluster_counts_equal_stats(client, tmp_path):
    paths = [corpus_file(n) for n in EVERY_FORMAT]
    ddf = td.read_traces(paths, warnings="ignore")
    assert ddf.npartitions == len(paths)
    assert dask_counts(ddf) == stats_counts(paths)
    # made traces too: not only the corpus
    made = made_traces(tmp_path)
    assert dask_counts(td.read_traces(made)) == stats_counts(made)


def test_byte_ranges_give_the_same_frame(client):
    path = corpus_file("fxt/gen_stress.fxt")
    size = os.path.getsize(path)
    ranged = td.read_traces(path, partition_bytes=size // 5 + 1, warnings="ignore",
                            args=["arg0"])
    assert ranged.npartitions == 5
    whole = td.read_traces(path, warnings="ignore", args=["arg0"])
    assert whole.npartitions == 1
    a = ranged.compute().reset_index(drop=True)
    b = whole.compute().reset_index(drop=True)
    assert len(a) == len(b) == 248010 and list(a.columns) == list(b.columns)
    for col in a.columns:
        same(a[col], b[col])
    c = tread.frame(path, warnings="ignore", args=["arg0"])
    for col in tread.DEFAULT_COLUMNS + ("arg0",):
        same(a[col], c[col])
    assert td.ranges(path, size // 5 + 1) == [(i * (size // 5 + 1), (i + 1) * (size // 5 + 1))
                                               for i in range(4)] + \
        [(4 * (size // 5 + 1), None)]


def test_json_byte_ranges_give_the_same_frame(tmp_path):
    """A large uncompressed JSON file: one partition per range, the same
    rows as one pass."""
    size = os.path.getsize(NODE_SAMPLE)
    ranged = td.read_traces(NODE_SAMPLE, partition_bytes=size // 4 + 1, warnings="ignore")
    assert ranged.npartitions == 4
    a = ranged.compute().reset_index(drop=True)
    b = td.read_traces(NODE_SAMPLE, warnings="ignore").compute()
    b = b.reset_index(drop=True)
    assert len(a) == len(b) > 500 and list(a.columns) == list(b.columns)
    for col in a.columns:
        same(a[col], b[col])
    # JSON in gzip: ranges of what it holds, each partition inflating from
    # the start; the same rows again
    gz = tmp_path / "n.json.gz"
    with open(NODE_SAMPLE, "rb") as f, gzip.open(gz, "wb") as g:
        g.write(f.read())
    assert td.ranges(str(gz), size // 3 + 1) == [(0, size // 3 + 1),
                                                  (size // 3 + 1, 2 * (size // 3 + 1)),
                                                  (2 * (size // 3 + 1), None)]
    assert td.ranges(str(gz), size) == [(None, None)]
    zipped = td.read_traces(str(gz), partition_bytes=size // 3 + 1, warnings="ignore")
    assert zipped.npartitions == 3
    c = zipped.compute().reset_index(drop=True)
    assert len(c) == len(b)
    for col in a.columns:
        if col != "file":
            same(c[col], b[col])
    # zstd, a damaged gzip, or FXT in gzip: whole
    zs = tmp_path / "n.json.zst"
    zs.write_bytes(b"\x28\xb5\x2f\xfd" + b"\0" * 5000)
    assert td.ranges(str(zs), 1000) == [(None, None)]
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(gz.read_bytes()[:2] + b"\0" * 5000)
    assert td.ranges(str(bad), 1000) == [(None, None)]
    fxz = tmp_path / "s.fxt.gz"
    with gzip.open(fxz, "wb") as g:
        g.write(td._FXT_MAGIC + b"\0" * 70000)
    assert td.ranges(str(fxz), 1000) == [(None, None)]
    # a .cpuprofile (an object without traceEvents): whole
    prof = write(tmp_path, "p.cpuprofile", json.dumps(
        {"nodes": [{"id": 1, "callFrame": {"functionName": "(root)"}}], "startTime": 0,
         "endTime": 10, "samples": [1] * 400, "timeDeltas": [1] * 400}))
    assert td.ranges(prof, 100) == [(None, None)]
    assert len(td.ranges(prof, 100, fmt="json")) > 1  # said to be JSON: believed


def test_ranges_only_for_plain_fxt_and_json(tmp_path):
    assert len(td.ranges(NODE_SAMPLE, 1000)) > 100
    assert td.ranges(NODE_SAMPLE, 1000, fmt="fxt") == [(None, None)]
    assert td.ranges(corpus_file("fxt/gen_stress.fxt"), 1 << 30) == [(None, None)]
    with pytest.raises(FileNotFoundError):
        td.read_traces(str(tmp_path / "none*.json"))


def test_examples(tmp_path):
    examples = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "examples")
    paths = made_traces(tmp_path)

    def run(name, *args):
        return subprocess.run([sys.executable, "-W", "ignore", os.path.join(examples, name),
                               *args], stdout=subprocess.PIPE, check=True,
                              env=os.environ).stdout.decode().splitlines()
    # the top slices across a directory: the same totals as tread.stats's
    total = collections.Counter()
    for p in paths:
        for t in tread.stats(p, top=100)["top_by_duration"]:
            total[t["name"]] += t["total_dur_ns"]
    want = ["%12.3f ms  %s" % (ns / 1e6, n) for n, ns in total.most_common(10)]
    assert sorted(run("top_slices_dir.py", str(tmp_path))) == sorted(want)
    # per-rank busy time: the union of each rank's kernels, by hand
    lines = run("rank_busy.py", str(tmp_path / "t*.json"))
    busy = {}
    for f, p in enumerate(paths):
        spans = sorted((e.ts, e.end) for e in tread.open(p, kinds={"complete"})
                       if e.cat == "kernel")
        merged, end = 0, None
        for s, e in spans:
            if end is None or s > end:
                merged += e - s
                end = e
            elif e > end:
                merged += e - end
                end = e
        busy[os.path.basename(p)] = merged
    assert lines == ["%-12s %12.3f ms" % (r, ns / 1e6) for r, ns in sorted(busy.items())]
