#!/bin/sh
# tread cat: NDJSON output, one line per event, with the documented keys,
# key order, value types and string escaping (doc/cli-ndjson.md).
. "$(dirname "$0")/common.sh"

small="$DATA/small.json"

expect_status 0 "cat" "$TREAD" cat "$small"
cp "$tmp/out" "$tmp/cat"
check "cat: 15 lines" test "$(wc -l <"$tmp/cat")" -eq 15
check "cat: nothing on stderr" test ! -s "$tmp/err"
contains "$tmp/cat" '^\{"kind":"metadata","ts_ns":' "cat: first line starts with kind"
contains "$tmp/cat" '^\{"kind":"slice_end","ts_ns":30000,"dur_ns":null,"pid":1,"tid":2,"name":null,"cat":null,"id":null,' \
    "cat: E event, null for absent leading keys"
contains "$tmp/cat" '"ctl":"a\\u0001b\\u001fc"' "cat: control characters as \\u00XX"
contains "$tmp/cat" '"s":"tab\\there \\"q\\" é ☃"' "cat: escapes and UTF-8 kept"
contains "$tmp/cat" '"big":12345678901234567890[,}]' "cat: big integer exact"
contains "$tmp/cat" '"exp":1\.5e3[,}]' "cat: number literal kept"

if have python3; then
    check "cat: valid NDJSON with the documented keys" \
        python3 "$(dirname "$0")/ndjson_check.py" "$tmp/cat" 15
    check "cat: values" python3 - "$tmp/cat" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
def eq(what, got, want):
    if got != want:
        sys.exit("%s: got %r, want %r" % (what, got, want))
eq("kinds", [e["kind"] for e in ev],
   ["metadata", "metadata", "slice_begin", "slice_begin", "slice_end",
    "slice_end", "complete", "complete", "instant", "counter", "counter",
    "async_begin", "async_end", "flow_begin", "flow_end"])
m = ev[0]
eq("meta", m.get("meta"), "process_name")
eq("meta_str", m.get("meta_str"), "Browser")
eq("ph", m.get("ph"), "M")
x = ev[6]
eq("X ts", x["ts_ns"], 100000)
eq("X dur", x["dur_ns"], 25500)
eq("X name/cat", (x["name"], x["cat"], x["pid"], x["tid"]), ("work", "c2", 1, 3))
a = x["args"]
eq("args.nested", a["nested"], {"a": [1, 2.5, "x", None, True], "b": {}})
eq("args.big", a["big"], 12345678901234567890)
eq("args.neg", a["neg"], -7)
eq("args.exp", a["exp"], 1500.0)
eq("args.s", a["s"], 'tab\there "q" \u00e9 \u2603')
eq("args.ctl", a["ctl"], "a\x01b\x1fc")
eq("args order", list(a), ["nested", "big", "neg", "exp", "s", "ctl"])
eq("X without args", ev[7]["args"], {})
eq("instant scope", ev[8].get("scope"), "global")
eq("counter series", [(e.get("series"), e.get("value")) for e in ev[9:11]],
   [("heap", 100), ("rss", 2.5)])
eq("async id", (ev[11]["id"], ev[12]["id"]), ("0x10", "0x10"))
eq("flow id", ev[13]["id"], "7")
eq("flow bp", ev[14].get("bp"), "e")
eq("absent optional keys are omitted", "tts_ns" in x or "cpu" in x, False)
PY
else
    check "cat: every line is an object ending in args" \
        test "$(grep -c '^{"kind":.*,"args":{.*}}$' "$tmp/cat")" -eq 15
fi

if have jq; then
    check "cat: jq reads it" sh -c "jq -c .kind '$tmp/cat' >'$tmp/kinds'"
    check "cat: jq sees 15 events" test "$(wc -l <"$tmp/kinds")" -eq 15
fi

# The optional keys, from a trace that has them all.
expect_status 0 "cat fields.json" "$TREAD" cat "$DATA/fields.json"
cp "$tmp/out" "$tmp/fields"
contains "$tmp/fields" '"stack":\["0x1","0x2"\],"estack":\["a"\]' "stack and estack as arrays"
contains "$tmp/fields" '"pid_str":"Browser","tid_str":"Main"' "string pid and tid keep their text"
contains "$tmp/fields" '"id":"0x5","ph":"b","id_scope":"sc","id2":"local"' "id2.local and scope"
contains "$tmp/fields" '"value":"Infinity"' "infinite counter value as a string"
contains "$tmp/fields" '"dup":1,"dup":2' "duplicate keys kept in order"
if have python3; then
    check "cat fields.json: valid NDJSON with the documented keys" \
        python3 "$(dirname "$0")/ndjson_check.py" "$tmp/fields" 14
    check "cat fields.json: values" python3 - "$tmp/fields" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
def eq(what, got, want):
    if got != want:
        sys.exit("%s: got %r, want %r" % (what, got, want))
x = ev[0]
eq("tts/tdur", (x["tts_ns"], x["tdur_ns"]), (2000, 1000))
eq("sf/esf/cname", (x["sf"], x["esf"], x["cname"]), ("3", "4", "good"))
eq("string pid is a number", isinstance(x["pid"], int), True)
eq("use_async_tts", ev[1].get("use_async_tts"), True)
eq("flow v2", (ev[2]["bind_id"], ev[2]["flow_in"], ev[2]["flow_out"]),
   ("0x9", True, True))
eq("meta_num", (ev[3]["meta"], ev[3]["meta_num"], ev[3]["tid"]),
   ("process_sort_index", -3, None))
eq("cpu", ev[4]["cpu"], 2)
eq("instant", (ev[5]["scope"], ev[5]["tidelta"], ev[5]["ticount"]),
   ("process", 5, 6))
eq("counter series", [e["series"] for e in ev[6:11]], ["v", "w", "z", "dup", "dup"])
eq("counter values", [e["value"] for e in ev[6:11]], ["Infinity", 0.1, 0.0, 1, 2])
eq("stack frames", [(e["kind"], e["id"], e["name"], e.get("parent")) for e in ev[11:13]],
   [("stack_frame", "3", "main", None), ("stack_frame", "4", "child", "3")])
eq("top-level key", (ev[13]["kind"], ev[13]["meta"], ev[13]["args"]),
   ("metadata", "trace", {"displayTimeUnit": "ns"}))
PY
fi

# A failed write is an error, not a silent truncation.
if [ -w /dev/full ]; then
    "$TREAD" cat "$small" >/dev/full 2>"$tmp/err"
    check "cat >/dev/full: exit 1" test $? -eq 1
    contains "$tmp/err" '^tread: error: cannot write to standard output' "cat >/dev/full: says why"
fi

# -q changes nothing when there are no warnings.
expect_status 0 "cat -q" "$TREAD" cat -q "$small"
check "cat -q: same output" cmp -s "$tmp/out" "$tmp/cat"

finish
