#!/bin/sh
# The progress line on a terminal (run under script(1), which gives tread a
# pseudo-terminal): on standard input, the MiB read and the rate, once the
# read has taken half a second; none with --no-progress, none when standard
# error is not a terminal; erased at the end.
. "$(dirname "$0")/common.sh"

if ! have script || ! script -qec true /dev/null >/dev/null 2>&1; then
    echo "SKIP: script(1) cannot run a command on a pseudo-terminal here"
    exit 77
fi
if ! have python3; then
    echo "SKIP: python3 not found"
    exit 77
fi

# A producer that writes events for about 1.5 s: the parse waits on the
# pipe, so the line has time to show.
cat >"$tmp/slow.py" <<'PY'
import sys, time
out = sys.stdout
out.write('[')
for burst in range(15):
    out.write(''.join('{"ph":"X","name":"n%d","ts":%d,"dur":1,"pid":1,"tid":1},' % (i, i)
                      for i in range(burst * 20000, (burst + 1) * 20000)))
    out.flush()
    time.sleep(0.1)
out.write('{"ph":"X","name":"end","ts":0}]')
PY

run_tty() {
    # $1: extra options; the typescript (what the terminal got) to $tmp/tty
    script -qec "python3 '$tmp/slow.py' | '$TREAD' stats $1 - >'$tmp/report' 2>/dev/tty" \
        "$tmp/tty" >/dev/null 2>&1
}

run_tty ""
check "stdin on a tty: the report is written" grep -q '^events: *300001$' "$tmp/report"
# the line looks like "\r12.3 MiB read, 4.5 MiB/s\033[K"
check "stdin on a tty: bytes read and the rate are shown" \
    grep -aqE '[0-9]+\.[0-9] MiB read, [0-9]+\.[0-9] MiB/s' "$tmp/tty"
check "stdin on a tty: the line is erased at the end" grep -aq "$(printf '\r\033\\[K')" "$tmp/tty"

run_tty "--no-progress"
check "--no-progress: no line" test "$(grep -ac 'MiB read' "$tmp/tty")" -eq 0

python3 "$tmp/slow.py" | "$TREAD" stats - >"$tmp/report" 2>"$tmp/err"
check "stderr not a terminal: no line" test "$(grep -c 'MiB' "$tmp/err")" -eq 0

finish
