"""Shared helpers of the Python module's tests (run by python/run_pytest,
which points PYTHONPATH at the module as built)."""
import json
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP_SRCDIR = os.path.dirname(os.path.dirname(HERE))
NODE_SAMPLE = os.path.join(TOP_SRCDIR, "tests", "data", "node_sample.json")
SHARED = os.environ.get("TREAD_SHARED", os.path.join(TOP_SRCDIR, "..", "shared"))
CORPUS = os.path.join(SHARED, "corpus")
TREAD_CLI = os.environ.get("TREAD_CLI", "")


def write(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode())
    return str(p)


def trace(*events, tail="]}"):
    """A JSON object-form trace from event dicts (or raw JSON text)."""
    parts = [e if isinstance(e, str) else json.dumps(e) for e in events]
    return '{"traceEvents":[' + ",".join(parts) + tail


def cli_stats(path, *args):
    """`tread stats --json PATH` as a dict (None without the CLI)."""
    if not TREAD_CLI or not os.access(TREAD_CLI, os.X_OK):
        pytest.skip("tools/tread is not built (TREAD_CLI)")
    r = subprocess.run([TREAD_CLI, "stats", "--json", *args, path],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    return json.loads(r.stdout)


def corpus_file(*names):
    """The first corpus file that exists, or skip (saying so)."""
    for n in names:
        p = os.path.join(CORPUS, n)
        if os.path.isfile(p):
            return p
    pytest.skip("corpus file %s not found: %s is absent" % (names[0], CORPUS))
