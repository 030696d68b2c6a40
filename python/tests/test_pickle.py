"""tread.Event pickles (through to_dict() and its flags) and comes back
equal field by field: for multiprocessing and Dask."""
import copy
import pickle

import pytest

import tread
from conftest import NODE_SAMPLE, corpus_file, trace, write
from test_open import FIELDS

ATTRS = [a for a in dir(tread.Event) if not a.startswith("_") and a != "to_dict"]


def assert_same(a, b):
    for attr in ATTRS:
        assert getattr(a, attr) == getattr(b, attr), attr
    assert a.to_dict() == b.to_dict() and repr(a) == repr(b)


@pytest.mark.parametrize("proto", range(pickle.HIGHEST_PROTOCOL + 1))
def test_made_events_round_trip(tmp_path, proto):
    path = write(tmp_path, "f.json", FIELDS)
    evs = list(tread.open(path))
    back = pickle.loads(pickle.dumps(evs, protocol=proto))
    assert len(back) == len(evs) == 7
    for a, b in zip(evs, back):
        assert type(b) is tread.Event
        assert_same(a, b)
    assert back[1].args["d"] == {"x": [1, "two", {"y": 3}]}


def test_no_args_and_flags(tmp_path):
    path = write(tmp_path, "g.json", trace(
        {"name": "a", "ph": "X", "ts": 1, "dur": 2, "pid": "p", "tid": "t",
         "bp": "e", "id2": {"local": "0x5"}, "args": {}},
        {"name": "s", "ph": "B", "ts": 3, "pid": 1, "tid": 2, "stack": ["a", 1],
         "args": {"big": 18446744073709551615, "neg": -5, "b": b"x".decode()}}))
    for args in (True, False):
        for a in tread.open(path, args=args):
            b = copy.deepcopy(a)
            assert_same(a, b)
            assert b.flags == a.flags  # the bits to_dict() leaves out come back too
            assert (b.args is None) == (not args)


@pytest.mark.parametrize("name", [None, "perfetto/sdk_small.pftrace",
                                  "fxt/gen_multi_provider.fxt",
                                  "ftrace/catapult/android_systrace.txt"])
def test_corpus_round_trip(name):
    path = NODE_SAMPLE if name is None else corpus_file(name)
    evs = list(tread.open(path, warnings="ignore"))
    for a, b in zip(evs, pickle.loads(pickle.dumps(evs))):
        assert_same(a, b)


def test_restore_rejects_bad_fields():
    with pytest.raises(ValueError):
        tread._tread._event({"kind": "nonsense", "format": "json"}, 0)
    with pytest.raises((TypeError, ValueError)):
        tread._tread._event({"kind": "complete", "format": "json", "ts": "x"}, 1)
    with pytest.raises(TypeError):
        tread._tread._event({"kind": "complete", "format": "json", "args": {"k": object()}}, 0)
