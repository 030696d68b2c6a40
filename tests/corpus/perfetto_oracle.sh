#!/bin/sh
# tread against trace_processor v58.2 on the Perfetto corpus: slices,
# counters, threads and processes as tests/corpus/perfetto_oracle counts
# them, against ../shared/corpus/perfetto/oracle/<trace>.oracle.txt.
# Exact for the SDK traces (sdk_*), within 1% for chromium_startup. The
# trace bounds (first and last event time on the trace clock) must be
# exact everywhere: they check the clock conversion. The Android device
# trace (ftrace, process tree, system data sources): threads, processes
# and the trace end exact; slices, counters and the trace start differ for
# the reasons doc/formats/perfetto-oracle.md gives (data sources tread does
# not map, ftrace events before tracing started), so they are shown, and
# must stay within the bounds below.
# doc/formats/perfetto-oracle.md explains the counting and the differences.
. "${top_srcdir:-.}/tests/corpus/common.sh"
DIR="$CORPUS/perfetto"
PROG="$top_builddir/tests/corpus/perfetto_oracle"
[ -d "$DIR/oracle" ] || { echo "SKIP: no $DIR/oracle"; exit 77; }

# oracle_value FILE KEY: the value of "KEY" in the ## summary section
oracle_value() {
    sed -n '/^## summary/,/^## /p' "$1" | sed -n "s/^\"$2\",\(-*[0-9]*\)\$/\1/p"
}

fail=0
n=0
row() { printf '%-28s %-14s %14s %14s %8s  %s\n' "$@"; }
row trace count tread trace_proc diff result
for f in "$DIR"/sdk_*.pftrace "$DIR"/chromium_startup.pftrace \
    "$DIR"/android_device_93b86b70.pftrace.gz; do
    [ -f "$f" ] || continue
    name=$(basename "$f")
    oracle="$DIR/oracle/$name.oracle.txt"
    if [ ! -f "$oracle" ]; then
        echo "FAIL $name: no oracle file"
        fail=1
        continue
    fi
    out=$("$PROG" "$f")
    rc=$?
    if [ $rc -eq 77 ]; then
        echo "SKIP: tread has no Perfetto decoder yet"
        exit 77
    fi
    if [ $rc -ne 0 ]; then
        echo "FAIL $name: perfetto_oracle exited with $rc"
        fail=1
        continue
    fi
    n=$((n + 1))
    case "$name" in
    sdk_*) tol=0 ;;          # exact
    *) tol=1 ;;              # percent
    esac
    for key in slices counters threads processes trace_start_ts trace_end_ts; do
        if [ "$name" = android_device_93b86b70.pftrace.gz ]; then
            # the differences doc/formats/perfetto-oracle.md explains
            case $key in
            slices) tol=68 ;;     # percent: statsd atoms, network packets, ...
            counters) tol=35 ;;   # percent: entity residency, statsd atoms, ...
            *) tol=0 ;;
            esac
        fi
        got=$(printf '%s\n' "$out" | sed -n "s/^$key \(-*[0-9]*\)\$/\1/p")
        want=$(oracle_value "$oracle" "$key")
        if [ -z "$got" ] || [ -z "$want" ]; then
            row "$name" "$key" "${got:-?}" "${want:-?}" - FAIL
            fail=1
            continue
        fi
        d=$((got - want))
        ad=${d#-}
        t=$tol
        case $key in trace_*) t=0 ;; esac
        if [ "$key" = trace_start_ts ] && [ "$name" = android_device_93b86b70.pftrace.gz ] &&
            [ "$d" -le 0 ] && [ "$d" -ge -100000000 ]; then
            ad=0 # up to 100 ms earlier: ftrace events from before tracing started
        fi
        # within t percent: |got - want| * 100 <= t * want
        if [ $((ad * 100)) -le $((t * want)) ]; then
            res=ok
        else
            res=FAIL
            fail=1
        fi
        row "$name" "$key" "$got" "$want" "$d" "$res"
    done
    printf '%s\n' "$out" | sed -n "s/^# /    $name: /p"
done
[ "$n" -gt 0 ] || { echo "FAIL: no sdk_* or chromium_startup trace in $DIR"; exit 1; }
exit $fail
