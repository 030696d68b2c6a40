#!/bin/sh
# tread stats stays bounded: past 100000 distinct names the rest are
# counted as "(other)"; B slices nested deeper than 1024 are counted as
# overflow, and their E events do not steal another B's duration.
. "$(dirname "$0")/common.sh"

if ! have awk; then
    echo "awk not installed" >&2
    exit 77
fi

# 100010 distinct names, the first one twice.
awk 'BEGIN {
    printf "[\n{\"ph\":\"X\",\"name\":\"n0\",\"ts\":0,\"dur\":1,\"pid\":1,\"tid\":1}";
    for (i = 0; i < 100010; i++)
        printf ",\n{\"ph\":\"X\",\"name\":\"n%d\",\"ts\":%d,\"dur\":1,\"pid\":1,\"tid\":1}", i, i;
    printf "]\n";
}' >"$tmp/names.json"

expect_status 0 "stats, 100010 names" "$TREAD" stats --json --top 3 "$tmp/names.json"
contains "$tmp/out" '"names":\{"distinct":100000,"capped":true,"other_events":10\}' \
    "names capped at 100000, 10 events in (other)"
contains "$tmp/out" '"top_by_count":\[\{"name":"\(other\)","count":10,"total_dur_ns":10000,"other":true\},\{"name":"n0","count":2,' \
    "(other) ranks like a name; n0 counted twice"
expect_status 0 "stats text, 100010 names" "$TREAD" stats "$tmp/names.json"
contains "$tmp/out" '^names: +100000 distinct \(table full: 10 more events counted as \(other\)\)' \
    "text says the name table is full"

# 1100 nested B on one thread, then 1100 E, then one more E.
awk 'BEGIN {
    printf "[\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"t\"}}";
    for (i = 0; i < 1100; i++)
        printf ",\n{\"ph\":\"B\",\"name\":\"d%d\",\"ts\":%d,\"pid\":1,\"tid\":1}", i, i;
    for (i = 0; i < 1100; i++)
        printf ",\n{\"ph\":\"E\",\"ts\":%d,\"pid\":1,\"tid\":1}", 10000 + i;
    printf ",\n{\"ph\":\"E\",\"ts\":20000,\"pid\":1,\"tid\":1}]\n";
}' >"$tmp/deep.json"

expect_status 0 "stats, 1100 nested slices" "$TREAD" stats --json --top 1 "$tmp/deep.json"
contains "$tmp/out" '"slices":\{"matched":1024,"unmatched_end":1,"unclosed_begin":0,"depth_overflow":76,"untracked":0\}' \
    "depth capped at 1024"
# d0 is the outermost: B at 0 us, its E is the last of the 1100 (10000+1099).
contains "$tmp/out" '"top_by_duration":\[\{"name":"d0","count":1,"total_dur_ns":11099000\}' \
    "outermost slice gets the outermost E"

# --max-tracedat-meta-bytes: trace.dat's event formats (about 4 KiB in
# the fuzz seed) past 4096 are an error naming the flag; 1M reads it all,
# kallsyms included
dat="$top_srcdir/fuzz/seeds/tracedat/fn_v6.dat"
expect_status 1 "trace.dat past --max-tracedat-meta-bytes 4096" \
    "$TREAD" stats --max-tracedat-meta-bytes 4096 "$dat"
contains "$tmp/err" 'limit_memory .*max-tracedat-meta-bytes' "the error names the flag"
expect_status 0 "trace.dat under --max-tracedat-meta-bytes 1M" \
    "$TREAD" stats --max-tracedat-meta-bytes 1M "$dat"
contains "$tmp/out" 'kallsyms_symbols +4' "kallsyms read under the limit"

finish
