#!/bin/sh
# trace-cmd report's own line formats: the events tread reads from
# `trace-cmd report` and `trace-cmd report -l` of a recording are those of
# the kernel's own text of the same recording (tests/ftrace_report_compare.py
# says how they are compared). First on the recording bundled in
# tests/data/ftrace/ (trace-cmd 3.1.6, kernel 6.18, made by
# tests/ftrace_report_record.sh), then on a fresh recording when this
# machine can trace (root, tracefs, trace-cmd), skipped otherwise or with
# TREAD_NO_TRACING=1 (it changes the kernel's global tracing state).
# Also: the warnings and context switches `tread stats` reports for it.
top_srcdir="${top_srcdir:-.}"
. "$top_srcdir/tests/cli/common.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
D="$top_srcdir/tests/data/ftrace"

compare() {
    if "$PY" "$top_srcdir/tests/ftrace_report_compare.py" "$TREAD" "$1/$2" "$1/$3" "$1/$4" >"$tmp/cmp" 2>&1; then
        pass "$5: report and report -l give the kernel text's events"
    else
        fail "$5: the events differ"
    fi
    sed 's/^/  | /' "$tmp/cmp"
}

compare "$D" tracecmd_kernel.txt.gz tracecmd_report.txt.gz tracecmd_report_l.txt.gz bundled
for f in tracecmd_report.txt.gz tracecmd_report_l.txt.gz; do
    expect_status 0 "stats $f" "$TREAD" stats "$D/$f"
    contains "$tmp/out" '^warnings: +0$' "$f: no warnings"
    contains "$tmp/out" '^  context_switch +174$' "$f: 174 context switches"
    contains "$tmp/out" 'report_payloads +289$' "$f: 289 payloads in the report's shapes"
    contains "$tmp/out" 'cpus +2$' "$f: cpus=2"
done
contains "$tmp/out" 'latency_lines +495$' "report -l: 495 latency lines"

if [ "${TREAD_NO_TRACING:-0}" = 1 ]; then
    echo "skip: live recording (TREAD_NO_TRACING=1)"
else
    mkdir "$tmp/live"
    "$top_srcdir/tests/ftrace_report_record.sh" "$tmp/live" >"$tmp/rec" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ]; then
        compare "$tmp/live" kernel.txt report.txt report_l.txt live
    else
        echo "skip: live recording: $(tail -1 "$tmp/rec") (exit $rc)"
    fi
fi
finish
