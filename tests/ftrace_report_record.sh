#!/bin/sh
# Records one trace with trace-cmd and writes three texts of it:
#   OUTDIR/kernel.txt    the kernel's own text (/sys/kernel/tracing/trace)
#   OUTDIR/report.txt    trace-cmd report
#   OUTDIR/report_l.txt  trace-cmd report -l (the latency columns)
# The ring buffer is filled with `trace-cmd start`, read non-destructively
# from the trace file, then taken with `trace-cmd extract`, so the three
# texts hold the same events. The workload renames short-lived shells to
# comms with blanks, colons, brackets (what trace-cmd's comm:pid shapes
# must survive) and forks and exits. Needs root, tracefs and trace-cmd;
# exits 77 when tracing cannot be used. Where the kernel forbids the
# function tracer's controls (/proc/sys/kernel/ftrace_enabled,
# set_ftrace_*; seen in a VM), trace-cmd is run in a private mount
# namespace with writable dummies over them: only sched and task events
# are recorded, which need neither.
#   ftrace_report_record.sh OUTDIR
set -u
out=$1
T=/sys/kernel/tracing
command -v trace-cmd >/dev/null 2>&1 || { echo "no trace-cmd"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "not root"; exit 77; }
[ -w "$T/set_event" ] || mount -t tracefs nodev "$T" 2>/dev/null
[ -w "$T/set_event" ] || { echo "no writable tracefs at $T"; exit 77; }
# tracefs is one per machine: parallel test runs take turns
if command -v flock >/dev/null 2>&1; then
    exec 9>"${TMPDIR:-/tmp}/tread-ftrace-report.lock"
    flock -w 300 9 || { echo "tracefs busy (lock held)"; exit 77; }
fi
dummies=$(mktemp -d) || exit 77
trap 'rm -rf "$dummies"' EXIT
echo 1 >"$dummies/ftrace_enabled"
for f in set_ftrace_filter set_ftrace_notrace set_ftrace_pid set_ftrace_notrace_pid; do
    : >"$dummies/$f"
done
tc() {
    if [ "${TC_NS:-0}" = 1 ]; then
        unshare -m sh -c '
            d=$1; shift
            mount --bind "$d/ftrace_enabled" /proc/sys/kernel/ftrace_enabled || exit 1
            for f in set_ftrace_filter set_ftrace_notrace set_ftrace_pid set_ftrace_notrace_pid; do
                [ -e "/sys/kernel/tracing/$f" ] && { mount --bind "$d/$f" "/sys/kernel/tracing/$f" || exit 1; }
            done
            exec trace-cmd "$@"' sh "$dummies" "$@"
    else
        trace-cmd "$@"
    fi
}
EV="-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking
    -e sched:sched_wakeup_new -e sched:sched_process_fork
    -e sched:sched_process_exit -e sched:sched_process_free
    -e task:task_newtask -e task:task_rename"
# shellcheck disable=SC2086
if ! tc start $EV -b 1024 >"$out/start.log" 2>&1; then
    TC_NS=1
    tc reset >/dev/null 2>&1
    # shellcheck disable=SC2086
    tc start $EV -b 1024 >"$out/start.log" 2>&1 || { cat "$out/start.log"; tc reset >/dev/null 2>&1; exit 77; }
fi
for name in "rs:main Q:Reg" "kworker/2:1" "io worker" "x:1 [2] S"; do
    sh -c 'printf "%s" "$1" >/proc/$$/comm; sleep 0.01; /bin/true; sleep 0.005' sh "$name" &
done
wait
tc stop >/dev/null 2>&1
cat "$T/trace" >"$out/kernel.txt"
tc extract -o "$out/rec.dat" >/dev/null 2>&1
tc reset >/dev/null 2>&1
trace-cmd report "$out/rec.dat" >"$out/report.txt" 2>/dev/null &&
    trace-cmd report -l "$out/rec.dat" >"$out/report_l.txt" 2>/dev/null || exit 1
rm -f "$out/rec.dat" "$out/start.log"
