#!/usr/bin/env python3
"""The events tread reads from `trace-cmd report` (plain or -l) of a
recording are the events it reads from the kernel's own text of the SAME
recording: compared as multisets of whole events (kind, ts, cpu, pid, tid,
name, cat, every arg), after one documented normalisation: trace-cmd
3.1.6's sched plugin prints prev_state with the 2.6 kernel's letters
("SDTtZXxW" by bit) and drops the preemption '+', so the kernel's letters
are mapped to those.

  ftrace_report_compare.py TREAD KERNEL_TEXT REPORT_TEXT [REPORT_TEXT...]

Prints what differs and exits 1 when anything does."""
import collections
import json
import subprocess
import sys

KERNEL = "SDTtXZPI"   # bit i of prev_state in the kernel's text (4.14+)
PLUGIN = "SDTtZXxW"   # bit i as libtraceevent's sched plugin prints it


def plugin_state(s):
    bits = 0
    for part in s.rstrip("+").split("|"):
        if part in ("R", ""):
            continue
        bits |= 1 << KERNEL.index(part)
    out = [PLUGIN[i] for i in range(8) if bits & (1 << i)]
    return "|".join(out) if out else "R"


def events(tread, path, kernel):
    out = subprocess.run([tread, "cat", "-q", path], check=True,
                         capture_output=True, text=True).stdout
    evs = []
    meta = 0
    for line in out.splitlines():
        e = json.loads(line)
        if e.get("meta") == "num_cpus":
            meta += 1  # the report's cpus=N header: the kernel text has none
            continue
        e.pop("offset", None)
        if kernel and e["name"] == "sched_switch" and "prev_state" in e["args"]:
            e["args"]["prev_state"] = plugin_state(e["args"]["prev_state"])
        evs.append(json.dumps(e, sort_keys=True))
    return collections.Counter(evs), meta


def main():
    tread, kernel_txt = sys.argv[1], sys.argv[2]
    want, _ = events(tread, kernel_txt, True)
    bad = 0
    for rep in sys.argv[3:]:
        got, meta = events(tread, rep, False)
        if meta != 1:
            print(f"{rep}: {meta} num_cpus events, expected 1")
            bad = 1
        if got != want:
            bad = 1
            print(f"{rep}: {sum(got.values())} events, kernel text {sum(want.values())}")
            for e, n in list((want - got).items())[:5]:
                print("  only in the kernel text:", n, e)
            for e, n in list((got - want).items())[:5]:
                print("  only in the report:", n, e)
        else:
            kinds = collections.Counter(json.loads(e)["kind"] for e in got.elements())
            print(f"{rep}: the same {sum(got.values())} events ({dict(kinds)})")
    return bad


if __name__ == "__main__":
    sys.exit(main())
