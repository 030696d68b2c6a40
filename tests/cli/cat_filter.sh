#!/bin/sh
# tread cat's filters, --limit and --fields, checked as properties of the
# whole output (cat_filter_check.py) on a real trace (Node.js) and a made
# one with every kind of name, category, pid and time.
. "$(dirname "$0")/common.sh"

if ! have python3; then
    echo "SKIP: python3 not found"
    exit 77
fi
check "node trace" python3 "$top_srcdir/tests/cli/cat_filter_check.py" "$TREAD" \
    "$top_srcdir/tests/data/node_sample.json"

python3 - "$tmp/made.json" <<'PY'
import json, sys
ev = []
kinds = "XBEiCbensM"
for i in range(600):
    ph = kinds[i % len(kinds)]
    e = {"ph": ph, "name": ["alpha", "Beta.run", "gamma[1]", "v8.GC", "Ω-utf8"][i % 5],
         "cat": ["a", "a,b", "disabled-by-default-x", ""][i % 4],
         "ts": (i * 997) % 5000 / 3, "pid": i % 3 + 1}
    if i % 7:
        e["tid"] = i % 5 + 10
    if ph == "X":
        e["dur"] = i % 13 * 0.5
    if ph == "M":
        e = {"ph": "M", "name": "thread_name", "pid": 1, "tid": 10, "args": {"name": "t"}}
    if ph in "bne":
        e["id"] = i % 4
    ev.append(e)
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
check "made trace" python3 "$top_srcdir/tests/cli/cat_filter_check.py" "$TREAD" "$tmp/made.json"

# --limit stops the read: a trace whose end is broken still exits 0.
{ printf '[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1},'
  printf '{"ph":"X","name":"b","ts":2,"dur":1,"pid":1,"tid":1},{"ph":"X" x}]'; } >"$tmp/badend.json"
expect_status 0 "--limit 1 before a syntax error" "$TREAD" cat --limit 1 "$tmp/badend.json"
check "--limit 1: one line" test "$(wc -l <"$tmp/out")" -eq 1
expect_status 1 "without --limit the error is reached" "$TREAD" cat "$tmp/badend.json"

finish
