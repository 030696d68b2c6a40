#!/bin/sh
# tread split: pieces of at most --max-bytes that each stand alone
# (doc/convert.md): every piece parses alone, JSON pieces repeat the
# process/thread names, Perfetto pieces carry their interned names and
# track descriptors, and the pieces together hold the events of the input.
. "${top_srcdir:-.}/tests/cli/common.sh"

"$TREAD" split "$DATA/small.json" "$tmp/p" 2> "$tmp/err"
check "split without --max-bytes is a usage error" [ $? -eq 2 ]
"$TREAD" split --max-bytes 1K "$DATA/small.json" - 2> /dev/null
check "OUTPREFIX - is a usage error" [ $? -eq 2 ]

# a trace with names, 300 slices on 3 threads, a counter
python3 - "$tmp/t.json" <<'PY'
import json, sys
ev = [{"name": "process_name", "ph": "M", "pid": 7, "args": {"name": "proc"}}]
for t in (1, 2, 3):
    ev.append({"name": "thread_name", "ph": "M", "pid": 7, "tid": t,
               "args": {"name": "thread-%d" % t}})
for i in range(300):
    ev.append({"name": "slice%d" % (i % 17), "cat": "c%d" % (i % 5), "ph": "X",
               "ts": i * 10.5, "dur": 3, "pid": 7, "tid": 1 + i % 3,
               "args": {"i": i}})
    if i % 50 == 0:
        ev.append({"name": "ctr", "ph": "C", "ts": i * 10.5, "pid": 7,
                   "args": {"v": i}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
"$TREAD" cat -q "$tmp/t.json" | grep -v '"kind":"metadata"' > "$tmp/orig"

for to in json perfetto; do
    rm -f "$tmp"/p-*
    "$TREAD" split -q --to $to --max-bytes 4K "$tmp/t.json" "$tmp/p" > "$tmp/list"
    check "split --to $to succeeds" [ $? -eq 0 ]
    n=$(wc -l < "$tmp/list")
    check "split --to $to: several pieces ($n)" [ "$n" -gt 3 ]
    ok_size=1 ok_alone=1 ok_names=1
    : > "$tmp/all"
    while read -r piece; do
        size=$(wc -c < "$piece")
        [ "$size" -le 4096 ] || ok_size=0
        "$TREAD" cat "$piece" > "$tmp/one" 2> "$tmp/err" || ok_alone=0
        [ -s "$tmp/err" ] && ok_alone=0
        grep -q '"meta_str":"thread-2"' "$tmp/one" || ok_names=0
        grep -q '"meta_str":"proc"' "$tmp/one" || ok_names=0
        grep -v '"kind":"metadata"' "$tmp/one" >> "$tmp/all"
    done < "$tmp/list"
    check "split --to $to: every piece at most 4 KiB" [ $ok_size -eq 1 ]
    check "split --to $to: every piece reads alone, without a warning" [ $ok_alone -eq 1 ]
    check "split --to $to: every piece names the process and threads" [ $ok_names -eq 1 ]
    if [ $to = json ]; then
        check "split --to json: the pieces hold the events, in order" cmp -s "$tmp/orig" "$tmp/all"
    else
        sel='import sys,json
for l in sys.stdin:
    e = json.loads(l)
    args = e["args"] if e["kind"] != "counter" else None
    print(e["kind"], e["ts_ns"], e["dur_ns"], e["name"], e["cat"], e["pid"], args, e.get("value"))'
        python3 -c "$sel" < "$tmp/orig" > "$tmp/a"
        python3 -c "$sel" < "$tmp/all" > "$tmp/b"
        check "split --to perfetto: the pieces hold the events, in order" cmp -s "$tmp/a" "$tmp/b"
    fi
done

# a record larger than --max-bytes gets a piece of its own
rm -f "$tmp"/p-*
"$TREAD" split -q --to json --max-bytes 64 "$tmp/t.json" "$tmp/p" > "$tmp/list"
check "tiny --max-bytes: one record per piece" [ "$(wc -l < "$tmp/list")" -gt 300 ]

# Perfetto input stays Perfetto without --to
"$TREAD" convert -q --to perfetto "$tmp/t.json" "$tmp/t.pftrace"
rm -f "$tmp"/p-*
"$TREAD" split -q --max-bytes 8K "$tmp/t.pftrace" "$tmp/p" > "$tmp/list"
check "Perfetto input: Perfetto pieces" grep -q '\.pftrace$' "$tmp/list"
check "JSON input: JSON pieces" sh -c "'$TREAD' split -q --max-bytes 8K '$tmp/t.json' '$tmp/q' | grep -q '\.json$'"

[ "$failures" -eq 0 ]
