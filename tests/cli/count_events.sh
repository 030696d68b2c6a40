#!/bin/sh
# bench/count_events -j N (bench/README.md): the ranges' counts add up to
# one pass's, on JSON (array and object forms), gzip'd JSON and FXT; and a
# gzip'd JSON file is cut by what it holds (its trailer's size), as tread
# stats cuts it, not by its compressed size.
. "${top_srcdir:-.}/tests/cli/common.sh"

CE="$top_builddir/bench/count_events"
[ -x "$top_builddir/bench/.libs/count_events" ] && CE="$top_builddir/bench/.libs/count_events"
[ -x "$CE" ] || { echo "SKIP: bench/count_events not built"; exit 77; }

# a JSON trace of 3000 events with brackets and escapes in its strings
python3 - "$tmp/t.json" "$tmp/o.json" <<'PY'
import json, sys
ev = [{"name": "e%d [\"{x}\"]" % i, "ph": "X", "ts": i, "dur": 1, "pid": 1 + i % 3,
       "tid": i % 7, "args": {"s": "]}\\" * (i % 4)}} for i in range(3000)]
open(sys.argv[1], "w").write(json.dumps(ev))
open(sys.argv[2], "w").write(json.dumps({"traceEvents": ev, "otherData": {"a": "[{"}}))
PY
gzip -9 -c "$tmp/t.json" > "$tmp/t.json.gz"
fxt="$top_srcdir/fuzz/seeds/fxt/all_records.fxt"

for f in "$tmp/t.json" "$tmp/o.json" "$tmp/t.json.gz" "$fxt"; do
    name=$(basename "$f")
    "$CE" "$f" > "$tmp/one" 2> "$tmp/err"
    check "$name: one pass" [ $? -eq 0 ]
    for j in 2 3 7; do
        "$CE" -j $j "$f" > "$tmp/many" 2> "$tmp/err"
        check "$name: -j $j exits 0" [ $? -eq 0 ]
        check "$name: -j $j counts what one pass counts" cmp -s "$tmp/one" "$tmp/many"
    done
done

held=$(wc -c < "$tmp/t.json")
"$CE" -j 2 --ranges "$tmp/t.json.gz" > /dev/null 2> "$tmp/err"
contains "$tmp/err" "^count_events: 2 byte ranges of $held bytes \\(decompressed\\): 0 [0-9]+\$" \
    "gzip'd JSON: cut by the $held bytes it holds"
cut=$(sed -n 's/.*: 0 \([0-9]*\)$/\1/p' "$tmp/err")
check "gzip'd JSON: the first range is the longer (it inflates less)" \
    [ "${cut:-0}" -gt $((held / 2)) ] && [ "${cut:-0}" -lt "$held" ]
"$CE" -j 3 --ranges "$tmp/t.json" > /dev/null 2> "$tmp/err"
contains "$tmp/err" "^count_events: 3 byte ranges of $(wc -c < "$tmp/t.json") bytes: 0 [0-9]+ [0-9]+\$" \
    "plain JSON: cut by its size"
expect_status 2 "-j 2 on a pipe refused" sh -c "cat '$tmp/t.json' | '$CE' -j 2 /dev/stdin"
contains "$tmp/err" "needs a regular file" "-j on a pipe: says why"

finish
