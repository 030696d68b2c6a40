"""tread.stats(): the same dict as `tread stats --json`."""
import io
import os

import pytest

import tread
from conftest import NODE_SAMPLE, cli_stats, corpus_file, trace, write


def test_sample_equals_cli():
    assert tread.stats(NODE_SAMPLE) == cli_stats(NODE_SAMPLE)
    assert tread.stats(NODE_SAMPLE, top=3) == cli_stats(NODE_SAMPLE, "--top", "3")
    assert len(tread.stats(NODE_SAMPLE, top=3)["top_by_count"]) == 3


def test_fileobj():
    with open(NODE_SAMPLE, "rb") as f:
        s = tread.stats(f)
    cli = cli_stats(NODE_SAMPLE)
    s.pop("file")
    cli.pop("file")
    assert s == cli


@pytest.mark.parametrize("name", [
    "json/clang_sqlite3.json", "perfetto/sdk_medium_zstd.pftrace",
    "perfetto/chromium_startup.pftrace", "fxt/gen_multi_provider.fxt",
    "fxt/real_janestreet_tracing_demo_2024.fxt"])
def test_corpus_equals_cli(name):
    path = corpus_file(name)
    assert tread.stats(path, warnings="ignore") == cli_stats(path)


def test_collector_thread_gives_the_same_stats(tmp_path):
    # by default the statistics are gathered on a thread of their own;
    # read_thread=False gathers them in place
    big = write(tmp_path, "big.json", trace(*[
        {"name": "n%d" % (i % 97), "ph": "BE"[i % 2], "ts": i, "pid": 1 + i % 3,
         "tid": i % 7} for i in range(60000)]))
    for path in (NODE_SAMPLE, big):
        assert tread.stats(path) == tread.stats(path, read_thread=False)
    with open(big, "rb") as f:
        assert tread.stats(f)["events"] == 60000


@pytest.mark.parametrize("name", [
    "perfetto/sdk_medium_deflate.pftrace", "perfetto/chromium_startup.pftrace"])
def test_corpus_collector_thread(name):
    path = corpus_file(name)
    assert tread.stats(path, warnings="ignore") == \
        tread.stats(path, warnings="ignore", read_thread=False)


def test_error_carries_the_stats(tmp_path):
    good = {"name": "a", "ph": "X", "ts": 1, "dur": 1, "pid": 1, "tid": 1}
    path = write(tmp_path, "bad.json", trace(good, '{"name": }'))
    with pytest.raises(tread.ParseError) as ei:
        tread.stats(path)
    s = ei.value.stats
    assert s["events"] == 1 and s["error"]["name"] == "syntax"
    assert s["error"]["offset"] == ei.value.offset
    assert s == cli_stats(path)


def test_options():
    with pytest.raises(TypeError):
        tread.stats(NODE_SAMPLE, kinds=["complete"])  # open() only
    with pytest.raises(FileNotFoundError):
        tread.stats(os.path.join(os.path.dirname(NODE_SAMPLE), "missing.json"))
    with pytest.raises(tread.FormatError):
        tread.stats(io.BytesIO(b"\x00\x01\x02garbage" * 100))
