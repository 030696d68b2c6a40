"""Checks that a file is NDJSON as doc/cli-ndjson.md describes it.

Usage: python3 ndjson_check.py FILE [EXPECTED_LINES]
Every line must be one JSON object whose keys start with the fixed
leading keys, in order, and end with "args" (an object); optional keys
must come from the documented list, in the documented order.
"""
import json
import sys

LEADING = ["kind", "ts_ns", "dur_ns", "pid", "tid", "name", "cat", "id"]
OPTIONAL = ["ph", "tts_ns", "tdur_ns", "scope", "id_scope", "id2", "bind_id",
            "flow_in", "flow_out", "bp", "cname", "sf", "esf", "stack",
            "estack", "series", "value", "meta", "meta_str", "meta_num",
            "cpu", "parent", "pid_str", "tid_str", "use_async_tts",
            "tidelta", "ticount"]


def keys_in_order(pairs):
    return [k for k, _ in pairs]


def main():
    path = sys.argv[1]
    want = int(sys.argv[2]) if len(sys.argv) > 2 else None
    n = 0
    with open(path, "rb") as f:
        data = f.read()
    if data and not data.endswith(b"\n"):
        sys.exit("output does not end with a newline")
    for lineno, raw in enumerate(data.split(b"\n")[:-1], 1):
        n += 1
        line = raw.decode("utf-8")  # must be valid UTF-8
        try:
            keys = json.loads(line, object_pairs_hook=keys_in_order)
            obj = json.loads(line)
        except ValueError as e:
            sys.exit("line %d: not JSON (%s): %s" % (lineno, e, line[:200]))
        if not isinstance(obj, dict):
            sys.exit("line %d: not an object" % lineno)
        if keys[:len(LEADING)] != LEADING:
            sys.exit("line %d: leading keys %r" % (lineno, keys[:len(LEADING)]))
        if keys[-1] != "args" or not isinstance(obj["args"], dict):
            sys.exit("line %d: does not end with an args object" % lineno)
        middle = keys[len(LEADING):-1]
        pos = [OPTIONAL.index(k) if k in OPTIONAL else -1 for k in middle]
        if -1 in pos or pos != sorted(pos) or len(set(pos)) != len(pos):
            sys.exit("line %d: optional keys %r not in documented order"
                     % (lineno, middle))
        for k in ("ts_ns", "dur_ns", "pid", "tid"):
            if obj[k] is not None and not isinstance(obj[k], int):
                sys.exit("line %d: %s is not an integer or null" % (lineno, k))
        for k in ("name", "cat", "id"):
            if obj[k] is not None and not isinstance(obj[k], str):
                sys.exit("line %d: %s is not a string or null" % (lineno, k))
    if want is not None and n != want:
        sys.exit("%d lines, expected %d" % (n, want))


main()
