#!/usr/bin/env python3
"""Writes the seeds of fuzz_systrace (fuzz/seeds/systrace/) and the
container seeds of fuzz_pipeline (fuzz/seeds/pipeline/): small systrace
HTML files in every layout tread reads, ctrace, and a JSON trace with a
systemTraceEvents string. Run from the source tree: python3 fuzz/systrace_seeds.py"""
import base64
import gzip
import json
import os
import zlib

FTRACE = (
    "# tracer: nop\n#\n"
    "#           TASK-PID    CPU#  |||||  TIMESTAMP  FUNCTION\n"
    "          <idle>-0     [000] d..2.   100.000001: sched_switch: prev_comm=swapper/0 "
    "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=foo next_pid=12 next_prio=120\n"
    "             foo-12    [000] .....   100.000002: tracing_mark_write: B|12|work\n"
    "             foo-12    [000] .....   100.000003: tracing_mark_write: C|12|n|5\n"
    "             foo-12    [000] .....   100.000004: tracing_mark_write: E|12\n"
    "             foo-12    [001] d.h2.   100.000005: sched_wakeup: comm=bar pid=13 prio=120 target_cpu=001\n")
JSON = '{"traceEvents":[{"ph":"X","name":"j","ts":5,"dur":1,"pid":1,"tid":2}]}'
# catapult's android_process_data_agent and android_cgroup_agent blocks
PDUMP = (
    "PROCESS DUMP\n"
    "USER           PID  PPID     VSZ    RSS WCHAN            PC S NAME               COMMAND\n"
    "root             1     0 10782796  9868 do_epoll_wait     0 S init               init\n"
    "u0_a123       1234   610 14702072 180412 do_epoll_wait    0 S com.example.app    com.example.app\n"
    "USER           PID   TID CMD\n"
    "root             1     1 init\n"
    "u0_a123       1234  1242 hwuiTask 1\n"
    "USER     PID   PPID  VSIZE  RSS     WCHAN    PC         NAME\n"
    "root      1     0     8904   788   ffffffff 00000000 S /init\n")
CGROUP = ("CGROUP DUMP\n#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpuset\t3\t6\t1\n"
          "# cgroup task attachment\n/foreground (root=3) : 1234 1240\n")


def html(blocks, doctype="<!DOCTYPE html>"):
    return (doctype + "\n<html><head><script>var v = 1 < 2;</script></head><body>\n"
            "<!-- BEGIN TRACE -->\n" + "".join(blocks) + "<!-- END TRACE -->\n</body></html>\n")


def trace_data(text):
    return '  <script class="trace-data" type="application/text">\n' + text + '  </script>\n'


def b64(data):
    s = base64.b64encode(data).decode()
    return "\n".join(s[i:i + 76] for i in range(0, len(s), 76)) + "\n"


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


gz = gzip.compress(FTRACE.encode(), mtime=0)
seeds = {
    "trace_data.html": html([trace_data(FTRACE), trace_data(JSON + "\n")]),
    "trace_data_zlib_b64.html": html([trace_data(b64(zlib.compress(FTRACE.encode())))]),
    "viewer_data.html": html(['<script id="viewer-data" type="text/plain">\n' + b64(gz) + "</script>\n"],
                             "<!doctype html>"),
    "linux_perf_data.html": html(["  <script>\n  'use strict';\n  var linuxPerfData = \"\\\n" +
                                  "".join(l + "\\n\\\n" for l in FTRACE.splitlines()) + "\";\n  </script>\n"]),
    "truncated.html": html([trace_data(FTRACE)])[:-60],
    "process_dump.html": html([trace_data(FTRACE), trace_data(PDUMP), trace_data(CGROUP),
                               trace_data("# tracer: \n" + CGROUP), trace_data("%% unknown %%\nmore\n")]),
    "trace.ctrace": b"capturing trace... done\nTRACE:\n" + zlib.compress(FTRACE.encode()) + b"junk",
    "systemTraceEvents.json": json.dumps({"traceEvents": [{"ph": "M", "name": "process_name", "pid": 12,
                                                           "args": {"name": "p\u00e9"}}],
                                          "systemTraceEvents": FTRACE + "             foo-12    [000] .....   "
                                          "100.000006: tracing_mark_write: B|12|caf\u00e9\n"},
                                         ensure_ascii=True),
}
for name, data in seeds.items():
    write(os.path.join("fuzz/seeds/systrace", name), data)
for name in ("trace_data.html", "viewer_data.html", "trace.ctrace", "systemTraceEvents.json"):
    write(os.path.join("fuzz/seeds/pipeline", "container_" + name), seeds[name])
