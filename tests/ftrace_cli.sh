#!/bin/sh
# tread cat and tread stats on ftrace text built here: the events (context
# switch, wakeup, atrace slice and counter, cpu counters, thread names), the
# payload args, and the ftrace counters (lines, lost events by cpu, lines
# not understood) in stats.
top_srcdir="${top_srcdir:-.}"
. "$top_srcdir/tests/cli/common.sh"

in="$tmp/trace.txt"
printf '%s\n' \
  '# tracer: nop' \
  '#' \
  '          <idle>-0       (-------) [001] d..2. 10.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=io worker next_pid=42 next_prio=120' \
  '       io worker-42      (     40) [001] d..2. 10.000002: sched_waking: comm=kw pid=43 prio=120 target_cpu=000' \
  '       io worker-42      (     40) [001] ..... 10.000003: tracing_mark_write: B|40|draw' \
  '       io worker-42      (     40) [001] ..... 10.000004: tracing_mark_write: C|40|depth|7' \
  '       io worker-42      (     40) [001] ..... 10.000005: tracing_mark_write: E|40' \
  '          <idle>-0       (-------) [000] d..2. 10.000006: cpu_frequency: state=1800000 cpu_id=3' \
  '            bash-51      (     50) [000] ..... 10.000007: task_rename: pid=51 oldcomm=bash newcomm=ls oom_score_adj=0' \
  'CPU:1 [LOST 17 EVENTS]' \
  'not an ftrace line' >"$in"

expect_status 0 "cat" "$TREAD" cat -q "$in"
cp "$tmp/out" "$tmp/cat"
contains "$tmp/cat" '"kind":"context_switch".*"tid":0,"name":"sched_switch".*"cpu":1,"args":\{"prev_comm":"swapper/1","prev_pid":0' "cat: context switch with its args"
contains "$tmp/cat" '"next_comm":"io worker","next_pid":42' "cat: a comm with a space"
contains "$tmp/cat" '"kind":"wakeup".*"tid":43' "cat: wakeup of the woken thread"
contains "$tmp/cat" '"kind":"slice_begin".*"pid":40,"tid":42,"name":"draw"' "cat: atrace B"
contains "$tmp/cat" '"kind":"counter".*"name":"depth"' "cat: atrace C"
contains "$tmp/cat" '"kind":"counter".*"name":"cpufreq".*"cpu":3' "cat: cpufreq on cpu 3"
contains "$tmp/cat" '"kind":"metadata".*"tid":51' "cat: thread name"
n=$(wc -l <"$tmp/cat")
[ "$n" -eq 7 ] && pass "cat: 7 events" || fail "cat: $n events, expected 7"

expect_status 0 "stats" "$TREAD" stats -q "$in"
cp "$tmp/out" "$tmp/stats"
contains "$tmp/stats" '^format: +ftrace$' "stats: format"
contains "$tmp/stats" '^events: +7$' "stats: 7 events"
contains "$tmp/stats" '^  context_switch +1$' "stats: context switch"
contains "$tmp/stats" 'lines +11$' "stats: lines"
contains "$tmp/stats" 'lost_events\.cpu1 +17$' "stats: lost events by cpu"
contains "$tmp/stats" 'lines_not_understood +1$' "stats: lines not understood"
contains "$tmp/stats" '^warnings: +2$' "stats: 2 warnings"

finish
