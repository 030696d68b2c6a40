#!/bin/sh
# "-" reads standard input, plain or compressed, from a pipe or a file.
. "$(dirname "$0")/common.sh"

small="$DATA/small.json"
"$TREAD" cat "$small" >"$tmp/file.ndjson" || fail "cat of the file"

expect_status 0 "cat - (redirected file)" "$TREAD" cat - <"$small"
check "cat -: same as the file" cmp -s "$tmp/out" "$tmp/file.ndjson"

cat "$small" | "$TREAD" cat - >"$tmp/pipe.ndjson" 2>"$tmp/err"
check "cat - (pipe): exit 0" test $? -eq 0
check "cat - (pipe): same as the file" cmp -s "$tmp/pipe.ndjson" "$tmp/file.ndjson"

cat "$small" | "$TREAD" stats --json - >"$tmp/stats.json" 2>"$tmp/err"
check "stats - (pipe): exit 0" test $? -eq 0
contains "$tmp/stats.json" '"file":"-",' "stats -: file is -"
contains "$tmp/stats.json" '"events":15,' "stats -: 15 events"

if have gzip; then
    gzip -c <"$small" | "$TREAD" cat - >"$tmp/gz.ndjson" 2>"$tmp/err"
    check "cat - (gzip pipe): exit 0" test $? -eq 0
    check "cat - (gzip pipe): same as the file" cmp -s "$tmp/gz.ndjson" "$tmp/file.ndjson"
fi

# Empty standard input is not a trace.
expect_status 1 "cat - (empty input)" "$TREAD" cat - </dev/null
contains "$tmp/err" '^tread: error: ' "empty input: error message"

finish
