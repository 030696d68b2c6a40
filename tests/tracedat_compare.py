#!/usr/bin/env python3
"""The events tread reads from a trace.dat are the events it reads from
`trace-cmd report -t` of the same file (the ftrace text decoder), event for
event as multisets: kind, ts, cpu, pid, tid, the name (a generic event's
"system:" prefix dropped: the report prints the bare name), cat, scope,
id, the instance buffer's name (provider), and every argument both sides
give as an integer (the report's other
values are printed through print fmt; clone_flags, printed in hex, is
left out). trace_marker writes are compared as what the report's text
makes of them: trace-cmd report prints a print event as "ip: text", which
the text decoder cannot read as atrace, so a trace.dat atrace event
(cat "atrace") is compared as the generic instant "print" on its cpu at
its time, the thread left out (an atrace counter has none).

  tracedat_compare.py TREAD DAT REPORT_TEXT

Also checks the order (reading the file, timestamps never go back) and the
lost events: tread's lost_events.cpuN counters equal the report's
"CPU:N [M EVENTS DROPPED]" lines, and the ftrace text decoder's counters
on the report (it reads those lines as data_loss), and that the text
decoder understood every line of the report.
Prints what differs and exits 1 when anything does."""
import collections
import json
import re
import subprocess
import sys


def cat(tread, path, stdin=None):
    r = subprocess.run([tread, "cat", "-q", path], capture_output=True, text=True,
                       stdin=stdin)
    if r.returncode != 0:
        sys.exit(f"{path}: tread cat failed: {r.stderr}")
    return [json.loads(l) for l in r.stdout.splitlines()]


def key(e, ints):
    if e.get("cat") == "atrace" or (e["name"] == "print" and e["kind"] == "instant"):
        return json.dumps(["print", e["ts_ns"], e.get("cpu")])
    name = e["name"] or ""
    if ":" in name and e["kind"] == "instant" and e.get("cat") == "ftrace":
        name = name.split(":", 1)[1]
    args = e.get("args") or {}
    a = tuple(sorted((k, v) for k, v in args.items()
                     if k in ints.get(name, ()) and k != "clone_flags" and isinstance(v, int)))
    return json.dumps([e["kind"], e["ts_ns"], e.get("cpu"), e.get("pid"), e.get("tid"), name,
                       e.get("cat"), e.get("scope"), e.get("id"), e.get("value"),
                       e.get("meta_str") if "meta_str" in e else None, e.get("provider"), a])


def main():
    tread, dat, rep = sys.argv[1:4]
    bin_evs = cat(tread, dat)
    txt_evs = [e for e in cat(tread, rep) if e.get("meta") != "num_cpus"]
    # the integer args both sides have, by event name
    ints = collections.defaultdict(set)
    tk = collections.defaultdict(set)
    for e in txt_evs:
        for k, v in (e.get("args") or {}).items():
            if isinstance(v, int):
                tk[e["name"] or ""].add(k)
    for e in bin_evs:
        n = (e["name"] or "").split(":", 1)[-1]
        for k, v in (e.get("args") or {}).items():
            if isinstance(v, int) and k in tk.get(n, ()):
                ints[n].add(k)
    got = collections.Counter(key(e, ints) for e in bin_evs)
    want = collections.Counter(key(e, ints) for e in txt_evs)
    bad = 0
    if got != want:
        bad = 1
        print(f"{dat}: {sum(got.values())} events, the report's {sum(want.values())}")
        for k, n in list((got - want).items())[:5]:
            print("  only in trace.dat:", n, k)
        for k, n in list((want - got).items())[:5]:
            print("  only in the report:", n, k)
    last = None
    for e in bin_evs:
        if last is not None and e["ts_ns"] < last:
            print(f"{dat}: the merge went back in time at {e}")
            bad = 1
            break
        last = e["ts_ns"]
    st = json.loads(subprocess.run([tread, "stats", "--json", dat], capture_output=True,
                                   text=True).stdout)
    lost = {k: v for k, v in st["format_counters"].items() if k.startswith("lost_events.cpu")}
    want_lost = collections.Counter()
    for m in re.finditer(r"^CPU:(\d+) \[(\d+) EVENTS DROPPED\]", open(rep).read(), re.M):
        want_lost[f"lost_events.cpu{int(m.group(1))}"] += int(m.group(2))
    if lost != dict(want_lost):
        print(f"{dat}: lost events {lost}, the report's {dict(want_lost)}")
        bad = 1
    # the ftrace text decoder reads the same lines as counted data_loss
    st_txt = json.loads(subprocess.run([tread, "stats", "--json", rep], capture_output=True,
                                       text=True).stdout)
    lost_txt = {k: v for k, v in st_txt["format_counters"].items()
                if k.startswith("lost_events.cpu")}
    if lost_txt != lost:
        print(f"{dat}: lost events {lost}, the text decoder's on the report {lost_txt}")
        bad = 1
    if st_txt["format_counters"].get("lines_not_understood", 0):
        print(f"{dat}: the text decoder did not understand "
              f"{st_txt['format_counters']['lines_not_understood']} lines of the report")
        bad = 1
    if not bin_evs:
        print(f"{dat}: no events")
        bad = 1
    print(f"{dat}: {len(bin_evs)} events compared, {sum(map(len, ints.values()))} integer args "
          f"by name, lost {dict(want_lost)}")
    sys.exit(bad)


main()
