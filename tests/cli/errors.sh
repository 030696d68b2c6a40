#!/bin/sh
# Damaged input: a syntax error stops with exit 1 and an error naming the
# byte offset; a truncated trace gives warnings but exit 0.
. "$(dirname "$0")/common.sh"

expect_status 1 "cat malformed" "$TREAD" cat "$DATA/malformed.json"
contains "$tmp/err" '^tread: error: [a-z_]+ at byte [0-9]+: ' "malformed: error with byte offset"
check "malformed: events before the error are written" \
    test "$(grep -c '"name":"ok"' "$tmp/out")" -eq 1
check "malformed: the bad event is not" test "$(grep -c '"name":"bad"' "$tmp/out")" -eq 0

expect_status 1 "stats malformed" "$TREAD" stats --json "$DATA/malformed.json"
contains "$tmp/err" '^tread: error: [a-z_]+ at byte [0-9]+: ' "stats malformed: error with byte offset"
contains "$tmp/out" '"error":\{"name":"[a-z_]+","offset":[0-9]+,"message":' "stats --json: error object"

expect_status 1 "malformed with -q" "$TREAD" cat -q "$DATA/malformed.json"
contains "$tmp/err" '^tread: error: ' "-q does not hide errors"

expect_status 0 "cat truncated" "$TREAD" cat "$DATA/truncated.json"
check "truncated: the complete events" test "$(wc -l <"$tmp/out")" -eq 2
contains "$tmp/err" '^tread: warning: [a-z_]+ at byte [0-9]+: ' "truncated: warning with byte offset"
contains "$tmp/err" '^tread: warning: truncated_event at byte ' "truncated: truncated_event warning"
check "truncated: no error" test "$(grep -c '^tread: error' "$tmp/err")" -eq 0

expect_status 0 "cat -q truncated" "$TREAD" cat -q "$DATA/truncated.json"
check "-q: no warnings" test ! -s "$tmp/err"

expect_status 0 "stats truncated" "$TREAD" stats --json -q "$DATA/truncated.json"
contains "$tmp/out" '"truncated_event":[1-9]' "stats: truncated_event counted"
contains "$tmp/out" '"error":null' "stats: no error"

# More warnings than are printed: a cap and a summary line.
{
    printf '[\n'
    i=0
    while [ $i -lt 30 ]; do
        printf '{"ph":"?","name":"u%d","ts":%d,"pid":1,"tid":1},\n' $i $i
        i=$((i + 1))
    done
    printf '{"ph":"X","name":"last","ts":99,"dur":1,"pid":1,"tid":1}]\n'
} >"$tmp/unknown.json"
expect_status 0 "30 unknown phases" "$TREAD" cat "$tmp/unknown.json"
check "warnings printed are capped at 20" \
    test "$(grep -c '^tread: warning: unknown_phase at byte' "$tmp/err")" -eq 20
contains "$tmp/err" '^tread: 30 warnings in total, 20 shown$' "warning summary"

# --strict turns lenient JSON into an error.
printf '[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1},]\n' >"$tmp/comma.json"
expect_status 0 "trailing comma, lenient" "$TREAD" cat -q "$tmp/comma.json"
expect_status 1 "trailing comma, --strict" "$TREAD" cat --strict "$tmp/comma.json"
contains "$tmp/err" '^tread: error: [a-z_]+ at byte [0-9]+' "--strict: error with offset"

# Limits reach the parser.
expect_status 1 "--max-depth 2" "$TREAD" cat --max-depth 2 "$DATA/small.json"
contains "$tmp/err" '^tread: error: [a-z_]+ at byte [0-9]+' "--max-depth: error with offset"
expect_status 1 "--max-string-bytes 16" "$TREAD" cat --max-string-bytes 16 "$DATA/small.json"
contains "$tmp/err" '^tread: error: [a-z_]+ at byte [0-9]+' "--max-string-bytes: error with offset"
# A value the library refuses is a usage error.
expect_status 2 "--max-string-bytes 1" "$TREAD" cat --max-string-bytes 1 "$DATA/small.json"
contains "$tmp/err" 'invalid value 1 for --max-string-bytes' "refused value named"
expect_status 1 "--max-event-bytes 64" "$TREAD" cat --max-event-bytes 64 "$DATA/small.json"
expect_status 0 "generous limits" "$TREAD" cat --max-depth 64 --max-string-bytes 1M \
    --max-event-bytes 1M "$DATA/small.json"

finish
