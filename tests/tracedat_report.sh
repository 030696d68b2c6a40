#!/bin/sh
# trace.dat against trace-cmd report: records the kernel with tracefs and
# `trace-cmd extract` (v7, zstd: this trace-cmd's default), converts it to
# v6 and to uncompressed v7 with `trace-cmd convert`, and checks for each
# file that tread's events equal those of the ftrace text decoder on
# `trace-cmd report -t` of it (tests/tracedat_compare.py); that a v6 file
# fed as a stream gives the same multiset, each CPU's events in order, one
# CPU after another; that a v7 stream is refused with its reason. Two
# recordings: sched/irq/task/power events with trace_marker writes (atrace
# and plain text) in a 64 KiB buffer per CPU, sched_switch with a 1 MiB
# buffer, and (where an instance can be made) sched_switch in the top
# buffer with irq and sched_wakeup in an instance. Skips (77), saying why, without root, tracefs or
# trace-cmd, or when recording fails (a container may forbid it).
# TREAD_NO_TRACING=1 skips it (it changes the kernel's global tracing
# state).
set -u
top_srcdir="${top_srcdir:-.}"
. "$top_srcdir/tests/cli/common.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
T=/sys/kernel/tracing
[ "${TREAD_NO_TRACING:-0}" = 1 ] && { echo "SKIP: TREAD_NO_TRACING=1"; exit 77; }
command -v trace-cmd >/dev/null 2>&1 || { echo "SKIP: no trace-cmd"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }
[ -w "$T/set_event" ] || mount -t tracefs nodev "$T" 2>/dev/null
[ -w "$T/set_event" ] || { echo "SKIP: no writable tracefs at $T"; exit 77; }
if command -v flock >/dev/null 2>&1; then
    exec 9>"${TMPDIR:-/tmp}/tread-ftrace-report.lock"
    flock -w 300 9 || { echo "SKIP: tracefs busy (lock held)"; exit 77; }
fi
out=$(mktemp -d) || exit 77
trap 'echo 0 >"$T/tracing_on"; echo 0 >"$T/events/enable" 2>/dev/null; rm -rf "$out"' EXIT

# record EVENTS KB NAME: the ring buffer filled through tracefs, written by
# trace-cmd extract (which needs none of the function tracer's controls)
record() {
    echo 0 >"$T/tracing_on"
    echo 0 >"$T/events/enable"
    : >"$T/trace"
    echo "$2" >"$T/buffer_size_kb" || return 1
    for e in $1; do echo 1 >"$T/events/$e/enable" || return 1; done
    echo 1 >"$T/tracing_on"
    for name in "rs:main Q:Reg" "io worker"; do
        sh -c 'printf "%s" "$1" >/proc/$$/comm; sleep 0.01; /bin/true' sh "$name" &
    done
    if [ -w "$T/trace_marker" ]; then
        printf 'B|4242|tread slice\n' >"$T/trace_marker"
        printf 'C|4242|tread counter|17\n' >"$T/trace_marker"
        printf 'E|4242\n' >"$T/trace_marker"
        printf 'plain text mark\n' >"$T/trace_marker"
    fi
    wait
    sleep 0.05
    echo 0 >"$T/tracing_on"
    echo 0 >"$T/events/enable"
    (cd "$out" && trace-cmd extract -o "$3.dat" >"$3.log" 2>&1) || { cat "$out/$3.log"; return 1; }
    [ -s "$out/$3.dat" ]
}

record "sched irq task power" 64 a || { echo "SKIP: recording failed"; exit 77; }
record "sched/sched_switch" 1024 b || { echo "SKIP: recording failed"; exit 77; }
# a buffer of 8 KiB per CPU under a busy workload: pages are overwritten,
# and the lost-events flags must give the report's counts
record_busy() {
    echo 0 >"$T/tracing_on"; echo 0 >"$T/events/enable"; : >"$T/trace"
    echo 8 >"$T/buffer_size_kb" || return 1
    echo 1 >"$T/events/sched/enable"
    echo 1 >"$T/tracing_on"
    i=0
    while [ $i -lt 200 ]; do /bin/true; i=$((i + 1)); done
    echo 0 >"$T/tracing_on"; echo 0 >"$T/events/enable"
    (cd "$out" && trace-cmd extract -o d.dat >d.log 2>&1) && [ -s "$out/d.dat" ]
}
record_busy || { echo "SKIP: recording failed"; exit 77; }
# an instance beside the top buffer: trace-cmd report and tread both merge
# the buffers by time
I=$T/instances/tread_tracedat_test
runs="a b d"
if mkdir "$I" 2>/dev/null; then
    echo 0 >"$T/tracing_on"
    : >"$T/trace"
    echo 1 >"$T/events/sched/sched_switch/enable"
    echo 1 >"$I/events/irq/enable"
    echo 1 >"$I/events/sched/sched_wakeup/enable"
    echo 1 >"$I/tracing_on"
    echo 1 >"$T/tracing_on"
    sh -c 'sleep 0.02; /bin/true'
    echo 0 >"$T/tracing_on"
    echo 0 >"$I/tracing_on"
    echo 0 >"$T/events/enable"
    if (cd "$out" && trace-cmd extract -a -t -o c.dat >c.log 2>&1); then
        runs="a b c d"
    fi
    rmdir "$I" 2>/dev/null
fi

fail=0
for r in $runs; do
    trace-cmd convert -i "$out/$r.dat" --file-version 6 -o "$out/${r}6.dat" >/dev/null 2>&1 || fail=1
    trace-cmd convert -i "$out/$r.dat" --file-version 7 --compression none \
        -o "$out/${r}7.dat" >/dev/null 2>&1 || fail=1
    for f in "$r.dat" "${r}6.dat" "${r}7.dat"; do
        trace-cmd report -t "$out/$f" >"$out/$f.txt" 2>/dev/null || { echo "report failed: $f"; fail=1; continue; }
        "$PY" "$top_srcdir/tests/tracedat_compare.py" "$TREAD" "$out/$f" "$out/$f.txt" || fail=1
    done
    # v6 as a stream: the same events, CPU after CPU, each CPU in order
    # (an instance's data is read from a file only: a stream says so)
    if [ "$r" = c ]; then
        cat "$out/${r}6.dat" | "$TREAD" stats - >/dev/null 2>"$out/err"
        grep -q "v6 instance buffer(s) not read" "$out/err" || { cat "$out/err"; fail=1; }
        continue
    fi
    cat "$out/${r}6.dat" | "$TREAD" cat -q - >"$out/stream.ndjson" || fail=1
    "$TREAD" cat -q "$out/${r}6.dat" >"$out/file.ndjson" || fail=1
    "$PY" - "$out/stream.ndjson" "$out/file.ndjson" <<'PYEOF' || fail=1
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])]
f = [json.loads(l) for l in open(sys.argv[2])]
canon = lambda evs: sorted(json.dumps(e, sort_keys=True) for e in evs)
ok = canon(s) == canon(f) and len(s) > 0
cpus, last = [], {}
for e in s:
    c = e["cpu"]
    if e["kind"] == "counter":
        continue  # cpu_frequency/idle: the cpu is the one measured
    if not cpus or cpus[-1] != c:
        if c in cpus:
            print("stream: cpu", c, "comes back"); ok = False; break
        cpus.append(c)
    if e["ts_ns"] < last.get(c, 0):
        print("stream: cpu", c, "goes back in time"); ok = False
    last[c] = e["ts_ns"]
print("stream:", len(s), "events, cpus in order", cpus[:8])
sys.exit(0 if ok else 1)
PYEOF
    # v7 as a stream: refused, with the reason
    if cat "$out/${r}7.dat" | "$TREAD" cat -q - >/dev/null 2>"$out/err"; then
        echo "v7 stream accepted"; fail=1
    fi
    grep -q "BUFFER option" "$out/err" || { cat "$out/err"; fail=1; }
done
# the busy recording lost events, and tread counted them
"$TREAD" stats "$out/d.dat" 2>&1 | grep -q "data_loss.*cpu [0-9]* lost" ||
    { echo "no data loss in the 8 KiB recording"; fail=1; }
exit $fail
