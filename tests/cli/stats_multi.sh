#!/bin/sh
# tread stats on several files: a report per file, in order, each the same
# as the file's own, then a total that adds them up; --json an array.
. "$(dirname "$0")/common.sh"

small="$DATA/small.json"
node="$top_srcdir/tests/data/node_sample.json"
printf '[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1},{"ph":"X" x}]' >"$tmp/late.json"
: >"$tmp/empty.json"

expect_status 0 "two files" "$TREAD" stats "$small" "$node"
cp "$tmp/out" "$tmp/two.txt"
"$TREAD" stats "$small" >"$tmp/a.txt" 2>/dev/null
"$TREAD" stats "$node" >"$tmp/b.txt" 2>/dev/null
{ cat "$tmp/a.txt"; echo; cat "$tmp/b.txt"; echo; } >"$tmp/ab.txt"
head -c "$(wc -c <"$tmp/ab.txt")" "$tmp/two.txt" >"$tmp/head.txt"
check "text: each file's report, as alone, in order" cmp -s "$tmp/ab.txt" "$tmp/head.txt"
contains "$tmp/two.txt" '^total: +2 files, 0 with an error$' "text: a total"
ev_a=$(sed -n 's/^events: *//p' "$tmp/a.txt")
ev_b=$(sed -n 's/^events: *//p' "$tmp/b.txt")
contains "$tmp/two.txt" "^events: +$((ev_a + ev_b))\$" "text: the total adds the events up"

expect_status 1 "files with errors" "$TREAD" stats --json "$small" "$tmp/empty.json" "$node" "$tmp/late.json" "$tmp/missing.json"
cp "$tmp/out" "$tmp/multi.json"
for f in "$small" "$node" "$tmp/late.json"; do
    "$TREAD" stats --json "$f" >"$tmp/one_$(basename "$f").json" 2>/dev/null
done
check "--json: an array of each file's object and a total" python3 - "$tmp" "$tmp/multi.json" <<'PY'
import json, sys, os
tmp, path = sys.argv[1], sys.argv[2]
arr = json.load(open(path))
assert isinstance(arr, list) and len(arr) == 6, len(arr)
files = [o.get("file") for o in arr[:-1]]
assert [os.path.basename(f) for f in files] == ["small.json", "empty.json", "node_sample.json",
                                                "late.json", "missing.json"], files
for i, name in ((0, "small.json"), (2, "node_sample.json"), (3, "late.json")):
    assert arr[i] == json.load(open(os.path.join(tmp, "one_" + name + ".json"))), name
assert sorted(arr[1]) == ["error", "file"] and sorted(arr[4]) == ["error", "file"]
assert arr[3]["partial"] is True
total = arr[-1]["total"]
reports = [arr[0], arr[2], arr[3]]
assert total["files"] == 5 and total["failed"] == 3, total
for k in ("bytes_in", "bytes_decoded", "records", "events", "warnings"):
    assert total[k] == sum(r[k] for r in reports), k
for k in total["events_by_kind"]:
    assert total["events_by_kind"][k] == sum(r["events_by_kind"][k] for r in reports), k
for k in total["warnings_by_kind"]:
    assert total["warnings_by_kind"][k] == sum(r["warnings_by_kind"][k] for r in reports), k
PY
contains "$tmp/err" "cannot open .*missing.json" "the missing file is named"
# one file: one object, as always
expect_status 0 "one file --json: an object" "$TREAD" stats --json "$small"
check "one file: not an array" test "$(head -c 1 "$tmp/out")" = "{"

# standard input among files
expect_status 0 "a file and standard input" sh -c "'$TREAD' stats --json '$small' - <'$node'"
check "- is read among the files" python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))
assert a[1]["file"] == "-" and a[1]["events"] > 100 and a[2]["total"]["files"] == 2
' "$tmp/out"

finish
