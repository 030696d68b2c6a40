#!/bin/sh
# tread's command line: --help, --version, and the exit codes for usage
# errors (2) and unreadable input (1).
. "$(dirname "$0")/common.sh"

expect_status 0 "--help" "$TREAD" --help
contains "$tmp/out" '^Usage: tread ' "--help prints usage on stdout"
contains "$tmp/out" 'stats' "--help lists stats"
contains "$tmp/out" 'cat' "--help lists cat"
check "--help writes nothing on stderr" test ! -s "$tmp/err"

expect_status 0 "-h" "$TREAD" -h
contains "$tmp/out" '^Usage: tread ' "-h prints usage"

expect_status 0 "--help after a command" "$TREAD" stats --help
contains "$tmp/out" '^Usage: tread ' "stats --help prints usage"

expect_status 0 "--version" "$TREAD" --version
contains "$tmp/out" '^tread [0-9]+\.[0-9]+\.[0-9]+' "--version format"
check "--version is one line" test "$(wc -l <"$tmp/out")" -eq 1

expect_status 2 "no arguments" "$TREAD"
contains "$tmp/err" 'missing command' "no arguments: says why"
check "usage error writes nothing on stdout" test ! -s "$tmp/out"

expect_status 2 "unknown option" "$TREAD" --no-such-option stats "$DATA/small.json"
contains "$tmp/err" "unknown option '--no-such-option'" "unknown option named"

expect_status 2 "unknown short option" "$TREAD" -Z cat "$DATA/small.json"
expect_status 2 "unknown command" "$TREAD" frobnicate "$DATA/small.json"
contains "$tmp/err" "unknown command 'frobnicate'" "unknown command named"

expect_status 2 "missing file argument (stats)" "$TREAD" stats
contains "$tmp/err" 'missing FILE' "missing file: says why"
expect_status 2 "missing file argument (cat)" "$TREAD" cat
expect_status 2 "extra argument" "$TREAD" cat "$DATA/small.json" extra

expect_status 2 "--top without a value" "$TREAD" stats "$DATA/small.json" --top
expect_status 2 "--top not a number" "$TREAD" stats --top abc "$DATA/small.json"
expect_status 2 "--top negative" "$TREAD" stats --top=-3 "$DATA/small.json"
expect_status 2 "--format unknown" "$TREAD" cat --format xml "$DATA/small.json"
expect_status 2 "--max-depth not a number" "$TREAD" cat --max-depth 1x "$DATA/small.json"
expect_status 2 "--json with cat" "$TREAD" cat --json "$DATA/small.json"

expect_status 1 "nonexistent file" "$TREAD" stats "$tmp/does-not-exist.json"
contains "$tmp/err" "^tread: error: .*does-not-exist\.json" "nonexistent file named"
check "nonexistent file: no report on stdout" test ! -s "$tmp/out"
expect_status 1 "nonexistent file (cat)" "$TREAD" cat "$tmp/does-not-exist.json"
expect_status 1 "a directory" "$TREAD" cat "$tmp"

# Options are accepted before and after the command and the file.
expect_status 0 "options anywhere" "$TREAD" -q stats "$DATA/small.json" --top=3 --json
expect_status 0 "-- ends options" "$TREAD" cat -- "$DATA/small.json"

finish
