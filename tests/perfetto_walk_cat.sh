#!/bin/sh
# tread cat --packets: one JSON object per packet through the reflective
# walk (fields by number, repeated ones as arrays, unknown ones by number);
# a packet with malformed nested bytes is a counted warning, not a line;
# non-Perfetto input is an error; --packets elsewhere a usage error. With
# the corpus: every line of sdk_small is JSON and there is one per packet.
TREAD="${top_builddir:-.}/tools/tread"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tread_cat_packets.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
fail=0
check() { # name expected actual
    if [ "$2" != "$3" ]; then
        printf 'FAIL %s\n  expected: %s\n  got:      %s\n' "$1" "$2" "$3"; fail=1
    else
        echo "ok $1"
    fi
}
# {timestamp: 1234, trusted_packet_sequence_id: 3, 15: 1}, {16: 255}
printf '\012\007\100\322\011\120\003\170\001\012\004\200\001\377\001' > "$TMP/a.pftrace"
check "two packets" '{"timestamp":1234,"trusted_packet_sequence_id":3,"15":1}
{"16":255}' "$("$TREAD" cat --packets "$TMP/a.pftrace")"
# a clock snapshot: repeated messages as an array, an enum by name
printf '\012\020\062\016\012\004\010\006\020\005\012\004\010\001\020\007\020\006' > "$TMP/b.pftrace"
check "nested, repeated, enum" '{"clock_snapshot":{"clocks":[{"clock_id":6,"timestamp":5},{"clock_id":1,"timestamp":7}],"primary_trace_clock":"BUILTIN_CLOCK_BOOTTIME"}}' \
    "$("$TREAD" cat --packets "$TMP/b.pftrace")"
# fields Perfetto v58 writes, known since proto/ follows the current schema
# (they were "16" and "124" before): SystemInfo.system_ram_bytes (16),
# TracePacket.trace_provenance (124)
printf '\012\006\352\002\003\200\001\010\012\003\342\007\000' > "$TMP/v58.pftrace"
check "v58 fields by name" '{"system_info":{"system_ram_bytes":8}}
{"trace_provenance":{}}' "$("$TREAD" cat --packets "$TMP/v58.pftrace")"
# trace_config (33) holding a cut varint, then a good packet
printf '\012\005\212\002\002\010\200\012\002\100\001' > "$TMP/c.pftrace"
out=$("$TREAD" cat --packets "$TMP/c.pftrace" 2> "$TMP/c.err"); rc=$?
check "malformed nested: good packet printed" '{"timestamp":1}' "$out"
check "malformed nested: exit 0" 0 $rc
check "malformed nested: warning" 1 "$(grep -c 'bad_record at byte 0: packet not printed: its byte 3' "$TMP/c.err")"
echo '[{"ph":"i","name":"x","ts":1,"pid":1,"tid":1}]' > "$TMP/d.json"
"$TREAD" cat --packets "$TMP/d.json" > /dev/null 2>&1
check "JSON input: exit 1" 1 $?
"$TREAD" stats --packets "$TMP/d.json" > /dev/null 2>&1
check "stats --packets: exit 2" 2 $?

CORPUS="${TREAD_CORPUS:-${top_srcdir:-.}/../shared/corpus}"
if [ -f "$CORPUS/perfetto/sdk_small.pftrace" ] && command -v python3 > /dev/null 2>&1; then
    "$TREAD" cat --packets "$CORPUS/perfetto/sdk_small.pftrace" > "$TMP/s.ndjson" || fail=1
    check "sdk_small: 198 JSON lines" 198 "$(python3 -c '
import json, sys
n = 0
for ln in open(sys.argv[1]):
    json.loads(ln); n += 1
print(n)' "$TMP/s.ndjson")"
    # every event of every Perfetto corpus file: a JSON object whose
    # objects repeat no key (the schema args gave an unpacked repeated
    # field's elements each under the field's key: StackSample frames,
    # PerfSample follower counts; so did the TrackEvent codec a repeated
    # typed payload, TrackEvent.int_extension_for_testing)
    find "$CORPUS/perfetto" -type f | sort | while read -r f; do
        "$TREAD" cat "$f" 2> /dev/null
    done > "$TMP/all.ndjson"
    check "corpus events: no repeated key" "ok" "$(python3 -c '
import json, sys
def hook(pairs):
    seen = set()
    for k, _ in pairs:
        if k in seen:
            raise ValueError("repeated key %r" % k)
        seen.add(k)
    return dict(pairs)
n = bad = 0
for i, ln in enumerate(open(sys.argv[1], encoding="utf-8")):
    n += 1
    try:
        json.loads(ln, object_pairs_hook=hook)
    except ValueError as e:
        bad += 1
        if bad <= 3:
            print("line %d: %s" % (i + 1, e))
print("ok" if n > 500000 and not bad else "%d of %d lines" % (bad, n))' "$TMP/all.ndjson")"
else
    echo "corpus or python3 absent: the sdk_small part is skipped"
fi
exit $fail
