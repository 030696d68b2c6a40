#!/bin/sh
# The C example in the README, compiled as written against the library
# just built: a usage line without an argument (not an empty "error at
# byte 0: "), its counts on a trace, and a named error on a broken one.
. "$(dirname "$0")/common.sh"

cc=${CC:-cc}
if ! have "$cc"; then
    echo "SKIP: no C compiler ($cc)"
    exit 77
fi
if [ ! -r "$top_builddir/lib/.libs/libtread.so" ]; then
    echo "SKIP: lib/.libs/libtread.so not built (static-only build?)"
    exit 77
fi
sed -n '/^A program that counts slices per thread:/,/^Build it with/p' "$top_srcdir/README" |
    sed -n 's/^    //p' >"$tmp/count.c"
check "the example is found in the README" grep -q 'tread_parse_path' "$tmp/count.c"
# with the build's flags (a sanitizer build's library needs its runtime)
# shellcheck disable=SC2086
check "the example compiles" "$cc" -std=c11 -Wall -Wextra -Werror $TREAD_TEST_CFLAGS \
    -I"$top_srcdir/include" "$tmp/count.c" -o "$tmp/count" $TREAD_TEST_LDFLAGS \
    -L"$top_builddir/lib/.libs" -ltread
LD_LIBRARY_PATH="$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH

expect_status 2 "no argument" "$tmp/count"
contains "$tmp/err" '^usage: .*count TRACE$' "no argument: a usage line"
expect_status 0 "a trace" "$tmp/count" "$DATA/small.json"
contains "$tmp/out" '^tid [0-9]+: [0-9]+ slices$' "a trace: counts per thread"
printf '[{"ph":"X","name":"a","ts":1,"pid":1,"tid":1},{"ph":"X" x}]' >"$tmp/bad.json"
expect_status 1 "a broken trace" "$tmp/count" "$tmp/bad.json"
contains "$tmp/err" 'bad.json: syntax at byte 56: invalid JSON: .+' "a broken trace: the error, its byte and a message"
expect_status 1 "a missing file" "$tmp/count" "$tmp/missing.json"
contains "$tmp/err" 'missing.json: io at byte 0: .+' "a missing file: a message"

finish
