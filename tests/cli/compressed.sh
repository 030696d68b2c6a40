#!/bin/sh
# Compressed input (gzip, zstd, made here from the plain trace) gives the
# same events as the plain file, and stats names the compression.
. "$(dirname "$0")/common.sh"

small="$DATA/small.json"
"$TREAD" cat "$small" >"$tmp/plain.ndjson" || fail "cat of the plain trace"

tested=0
for tool in gzip zstd; do
    if ! have "$tool"; then
        echo "skip: $tool not installed"
        continue
    fi
    tested=$((tested + 1))
    "$tool" -c <"$small" >"$tmp/small.json.$tool" 2>/dev/null ||
        { fail "$tool could not compress"; continue; }

    expect_status 0 "cat $tool" "$TREAD" cat "$tmp/small.json.$tool"
    check "cat $tool: same as plain" cmp -s "$tmp/out" "$tmp/plain.ndjson"

    expect_status 0 "stats --json $tool" "$TREAD" stats --json "$tmp/small.json.$tool"
    contains "$tmp/out" "\"compression\":\"$tool\"" "stats: compression $tool"
    contains "$tmp/out" '"events":15,' "stats $tool: 15 events"
    insize=$(wc -c <"$tmp/small.json.$tool" | tr -d ' ')
    plainsize=$(wc -c <"$small" | tr -d ' ')
    contains "$tmp/out" "\"bytes_in\":$insize," "stats $tool: bytes_in is the compressed size"
    contains "$tmp/out" "\"bytes_decoded\":$plainsize," "stats $tool: bytes_decoded is the plain size"

    expect_status 0 "cat --single-thread $tool" "$TREAD" cat --single-thread "$tmp/small.json.$tool"
    check "cat --single-thread $tool: same as plain" cmp -s "$tmp/out" "$tmp/plain.ndjson"

    expect_status 0 "stats $tool (text)" "$TREAD" stats "$tmp/small.json.$tool"
    contains "$tmp/out" "^compression: +$tool\$" "stats text: compression $tool"
done

if [ "$tested" -eq 0 ]; then
    echo "neither gzip nor zstd installed" >&2
    exit 77
fi
finish
