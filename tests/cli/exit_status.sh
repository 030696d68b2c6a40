#!/bin/sh
# Exit status of every error class (tread(1) EXIT STATUS: 0 success, 1 input
# error, 2 usage error, 3 warnings under --strict), and standard output on
# a fatal error: empty when the input fails before its first event
# (--json: one object holding the error alone), a report marked PARTIAL
# when it fails after some.
. "$(dirname "$0")/common.sh"

small="$DATA/small.json"

# --- inputs that fail before any event ------------------------------------
: >"$tmp/empty.json"
: | gzip -c >"$tmp/empty.gz" 2>/dev/null || : >"$tmp/empty.gz"
: >"$tmp/zero.gz"
printf '\211PNG\r\n\032\n\000\000\000\rIHDR\000\000\000\001\000\000\000\001\010\006\000\000\000' >"$tmp/image.png"
# binary noise, the same every run (random bytes could look like a trace)
i=0
while [ $i -lt 100 ]; do
    printf '\377\023\344\201\007\376\233\042\310\015\377\321\060\212\005\374\177\350\003\222\311\036\373\004\226\270\377\011\345\200'
    i=$((i + 1))
done >"$tmp/random.bin"
printf '[{"ph":"X",,}]' >"$tmp/early_syntax.json"
mkdir "$tmp/dir"

for input in "$tmp/empty.json" "$tmp/zero.gz" "$tmp/empty.gz" "$tmp/image.png" \
             "$tmp/random.bin" "$tmp/early_syntax.json" "$tmp/dir" "$tmp/missing.json"; do
    name=$(basename "$input")
    for cmd in stats cat; do
        expect_status 1 "$cmd $name" "$TREAD" $cmd "$input"
        check "$cmd $name: stdout empty" test ! -s "$tmp/out"
        contains "$tmp/err" '^tread: error: ' "$cmd $name: error on stderr"
    done
    expect_status 1 "stats --json $name" "$TREAD" stats --json "$input"
    check "stats --json $name: one object, the file and the error only" \
        python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
o = json.loads(lines[0])
assert sorted(o) == ["error", "file"], o
assert sorted(o["error"]) == ["message", "name", "offset"], o
assert o["file"] == sys.argv[2], o
' "$tmp/out" "$input"
done
expect_status 1 "stats - (empty standard input)" "$TREAD" stats - </dev/null
check "empty standard input: stdout empty" test ! -s "$tmp/out"

# --- a fatal error after some events: a partial report --------------------
{
    printf '[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1},\n'
    printf '{"ph":"X","name":"b","ts":3,"dur":2,"pid":1,"tid":1},\n{"ph":"X" x}]'
} >"$tmp/late_syntax.json"
bad=$(grep -bo 'x}' "$tmp/late_syntax.json" | cut -d: -f1)
expect_status 1 "stats, error after 2 events" "$TREAD" stats "$tmp/late_syntax.json"
contains "$tmp/out" "^PARTIAL: +reading stopped at an error at byte $bad:" "partial report says so, with the offset"
contains "$tmp/out" "covers the input before it only" "partial report: what it covers"
contains "$tmp/out" '^events: +2$' "partial report: the events before the error"
contains "$tmp/err" "^tread: error: syntax at byte $bad: " "the offending byte (not the one before)"
expect_status 1 "stats --json, error after 2 events" "$TREAD" stats --json "$tmp/late_syntax.json"
check "--json: partial true, error at the offending byte" python3 -c '
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert o["partial"] is True and o["events"] == 2, o
assert o["error"]["offset"] == int(sys.argv[2]), o["error"]
' "$tmp/out" "$bad"
expect_status 0 "stats --json, whole" "$TREAD" stats --json "$small"
contains "$tmp/out" '"partial":false,' "--json: partial false when whole"

# --- warnings, and --strict ------------------------------------------------
printf '[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1},{"ph":"X","na' >"$tmp/cut.json"
for cmd in stats cat; do
    expect_status 0 "$cmd: warnings without --strict" "$TREAD" $cmd "$tmp/cut.json"
    expect_status 3 "$cmd: warnings with --strict" "$TREAD" $cmd --strict "$tmp/cut.json"
    contains "$tmp/err" '^tread: error: --strict: the input had 2 warnings \(exit status 3\)$' \
        "$cmd --strict: says why"
    check "$cmd --strict: the output is still complete" test -s "$tmp/out"
    expect_status 0 "$cmd --strict, no warnings" "$TREAD" $cmd --strict "$small"
done
expect_status 3 "--strict -q still fails" "$TREAD" cat --strict -q "$tmp/cut.json"

# A truncated gzip stream: a warning; --strict makes it count.
if have gzip; then
    i=0
    while [ $i -lt 200 ]; do
        printf '{"ph":"X","name":"n%d","ts":%d,"dur":1,"pid":1,"tid":1},\n' $i $i
        i=$((i + 1))
    done | { printf '['; cat; printf '{"ph":"X","name":"end","ts":0}]'; } | gzip -c >"$tmp/full.gz"
    size=$(wc -c <"$tmp/full.gz")
    head -c $((size / 2)) "$tmp/full.gz" >"$tmp/half.gz"
    expect_status 0 "truncated gzip" "$TREAD" stats -q "$tmp/half.gz"
    expect_status 3 "truncated gzip, --strict" "$TREAD" stats --strict "$tmp/half.gz"
    contains "$tmp/err" '^tread: warning: compressed_truncated ' "truncated gzip: its warning"
fi

# A forced --format the sniffer disagrees with: a warning naming what it saw.
expect_status 0 "--format fxt on JSON" "$TREAD" stats --format fxt "$small"
contains "$tmp/err" '^tread: warning: format_mismatch at byte 0: format forced to fxt, but the input looks like json$' \
    "forced format: what the sniffer saw"
expect_status 3 "--format fxt on JSON, --strict" "$TREAD" stats --strict -q --format fxt "$small"
expect_status 0 "--format json on JSON: no warning" "$TREAD" stats --format json "$small"
check "agreeing --format: no warning" test ! -s "$tmp/err"

# An input error wins over warnings.
printf '[{"ph":"?","name":"u","ts":1},{"ph":"X" x}]' >"$tmp/warn_then_error.json"
expect_status 1 "warnings then an error, --strict" "$TREAD" cat --strict "$tmp/warn_then_error.json"

# --- limits name the flag ---------------------------------------------------
expect_status 1 "--max-event-bytes 64" "$TREAD" cat --max-event-bytes 64 "$small"
contains "$tmp/err" '^tread: error: limit_event at byte [0-9]+: .*\(--max-event-bytes\)' \
    "limit error names --max-event-bytes"
check "limit error: no TREAD_OPT_ name" test "$(grep -c TREAD_OPT_ "$tmp/err")" -eq 0
expect_status 1 "--max-depth 2" "$TREAD" stats --json --max-depth 2 "$small"
contains "$tmp/err" '\(--max-depth\)' "limit error names --max-depth"
contains "$tmp/out" '"message":"[^"]*\(--max-depth\)' "--json error names --max-depth"

# --- usage errors: 2, nothing read, nothing on stdout ------------------------
for args in "" "frobnicate $small" "stats" "cat --json $small" "stats --kind complete $small" \
            "cat --kind nosuchkind $small" "cat --start 1.5parsecs $small" \
            "cat --fields name,nosuch $small" "cat --start 2s --end 1s $small" \
            "cat --packets --name a $small" "convert $small" "split --to json $small p" \
            "help nosuchcommand" "stats - -"; do
    expect_status 2 "usage: tread $args" "$TREAD" $args
    check "usage: tread $args: stdout empty" test ! -s "$tmp/out"
    contains "$tmp/err" "^Try 'tread (help [a-z]+|--help)'\.$" "usage: tread $args: where to look"
done

# --- a write error: 1 ---------------------------------------------------------
if [ -w /dev/full ]; then
    "$TREAD" cat "$small" >/dev/full 2>"$tmp/err"
    check "cat to a full disk: exit 1" test $? -eq 1
    contains "$tmp/err" '^tread: error: cannot write to standard output' "write error named"
    "$TREAD" stats "$small" >/dev/full 2>"$tmp/err"
    check "stats to a full disk: exit 1" test $? -eq 1
fi

finish
