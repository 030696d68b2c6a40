#!/bin/sh
# tread stats on a small hand-written trace: event counts by kind, names,
# durations of X events and of B/E pairs, processes, threads, time range,
# in the text output and in --json.
. "$(dirname "$0")/common.sh"

small="$DATA/small.json"

expect_status 0 "stats (text)" "$TREAD" stats "$small"
cp "$tmp/out" "$tmp/text"
contains "$tmp/text" '^format: +json$' "text: format"
contains "$tmp/text" '^compression: +none$' "text: compression"
contains "$tmp/text" '^events: +15$' "text: 15 events"
contains "$tmp/text" '^records: +14$' "text: 14 records"
contains "$tmp/text" '^  metadata +2$' "text: 2 metadata"
contains "$tmp/text" '^  slice_begin +2$' "text: 2 slice_begin"
contains "$tmp/text" '^  slice_end +2$' "text: 2 slice_end"
contains "$tmp/text" '^  complete +2$' "text: 2 complete"
contains "$tmp/text" '^  instant +1$' "text: 1 instant"
contains "$tmp/text" '^  counter +2$' "text: 2 counter (one per series)"
contains "$tmp/text" '^  async_begin +1$' "text: 1 async_begin"
contains "$tmp/text" '^  flow_end +1$' "text: 1 flow_end"
contains "$tmp/text" '^processes: +2$' "text: 2 processes"
contains "$tmp/text" '^threads: +4$' "text: 4 threads"
contains "$tmp/text" '^time range: +10000 \.\. 210000 ns' "text: time range"
contains "$tmp/text" '^slices \(B/E\): +2 matched, 0 unmatched E, 0 unclosed B' "text: B/E matched"
contains "$tmp/text" '^warnings: +0$' "text: no warnings"
# Top by duration: outer (B/E, 40 us), work (X, 25.5 + 10 us), inner.
grep -A4 '^top 10 names by total duration' "$tmp/text" >"$tmp/bydur"
contains "$tmp/bydur" '40\.000 us +1  outer$' "text: outer 40 us from its B/E pair"
contains "$tmp/bydur" '35\.500 us +2  work$' "text: work 35.5 us from two X"
check "text: outer ranks first by duration" \
    test "$(sed -n 3p "$tmp/bydur" | awk '{print $NF}')" = outer
contains "$tmp/text" 'Browser' "text: process name from metadata"

expect_status 0 "stats --top 2" "$TREAD" stats --top 2 "$small"
check "--top 2 lists two names by count" \
    test "$(grep -A3 '^top 2 names by count' "$tmp/out" | grep -c '^  ')" -eq 3

expect_status 0 "stats --json" "$TREAD" stats --json "$small"
cp "$tmp/out" "$tmp/json"
check "--json is one line" test "$(wc -l <"$tmp/json")" -eq 1

if have python3; then
    check "--json: values" python3 - "$tmp/json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
def eq(key, got, want):
    if got != want:
        sys.exit("%s: got %r, want %r" % (key, got, want))
eq("format", s["format"], "json")
eq("compression", s["compression"], "none")
eq("events", s["events"], 15)
eq("records", s["records"], 14)
k = s["events_by_kind"]
for kind, n in [("metadata", 2), ("slice_begin", 2), ("slice_end", 2),
                ("complete", 2), ("instant", 1), ("counter", 2),
                ("async_begin", 1), ("async_end", 1), ("flow_begin", 1),
                ("flow_end", 1), ("sample", 0), ("unknown", 0)]:
    eq("events_by_kind." + kind, k[kind], n)
eq("sum of events_by_kind", sum(k.values()), s["events"])
eq("bytes_in", s["bytes_in"], s["bytes_decoded"])
eq("time_range", s["time_range"], {"min_ts_ns": 10000, "max_end_ns": 210000})
eq("processes", s["processes"], 2)
eq("threads", s["threads"], 4)
eq("names.distinct", s["names"]["distinct"], 9)
eq("names.capped", s["names"]["capped"], False)
eq("slices", s["slices"], {"matched": 2, "unmatched_end": 0,
                           "unclosed_begin": 0, "depth_overflow": 0,
                           "untracked": 0})
eq("warnings", s["warnings"], 0)
eq("error", s["error"], None)
byc = [(e["name"], e["count"]) for e in s["top_by_count"]]
eq("top_by_count[:4]", byc[:4], [("flow", 2), ("mem", 2), ("req", 2), ("work", 2)])
eq("top_by_count length", len(byc), 9)
byd = [(e["name"], e["total_dur_ns"]) for e in s["top_by_duration"]]
eq("top_by_duration", byd, [("outer", 40000), ("work", 35500), ("inner", 10000)])
procs = [(p["pid"], p["name"]) for p in s["top_processes"]]
eq("top_processes", procs, [(1, "Browser"), (2, None)])
PY
else
    contains "$tmp/json" '"events":15,' "--json: 15 events (grep)"
    contains "$tmp/json" '"complete":2,' "--json: 2 complete (grep)"
    contains "$tmp/json" '"counter":2,' "--json: 2 counter (grep)"
fi

expect_status 0 "stats --json --top 1" "$TREAD" stats --json --top 1 "$small"
if have python3; then
    check "--top 1 keeps one entry per list" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert len(s["top_by_count"]) == 1, s["top_by_count"]
assert len(s["top_by_duration"]) == 1 and s["top_by_duration"][0]["name"] == "outer"
assert len(s["top_processes"]) == 1
' "$tmp/out"
fi

# --single-thread: Perfetto compressed packets expanded on the reading
# thread; the same stats and events as with the decompression thread
expect_status 0 "convert to perfetto" "$TREAD" convert --to perfetto "$small" "$tmp/small.pftrace"
if have python3; then
    check "wrap the trace in compressed_packets" python3 -c '
import sys, zlib
def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7f
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)
def field(num, payload):
    return varint(num << 3 | 2) + varint(len(payload)) + payload
plain = open(sys.argv[1], "rb").read()
packet = field(50, zlib.compress(plain * 200))
open(sys.argv[2], "wb").write(field(1, packet))
' "$tmp/small.pftrace" "$tmp/zipped.pftrace"
    expect_status 0 "stats --json, decompression thread" "$TREAD" stats --json "$tmp/zipped.pftrace"
    cp "$tmp/out" "$tmp/threaded.json"
    contains "$tmp/out" '"compressed_packets_expanded":1[,}]' "the packet was expanded"
    expect_status 0 "stats --json --single-thread" "$TREAD" stats --json --single-thread "$tmp/zipped.pftrace"
    check "stats: --single-thread gives the same" cmp -s "$tmp/out" "$tmp/threaded.json"
    expect_status 0 "cat, decompression thread" "$TREAD" cat "$tmp/zipped.pftrace"
    cp "$tmp/out" "$tmp/threaded.ndjson"
    expect_status 0 "cat --single-thread" "$TREAD" cat --single-thread "$tmp/zipped.pftrace"
    check "cat: --single-thread gives the same" cmp -s "$tmp/out" "$tmp/threaded.ndjson"
    check "cat: 200 copies of the events" test "$(wc -l <"$tmp/out")" -ge 2000
fi

finish
