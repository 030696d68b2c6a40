#!/usr/bin/env python3
"""The ftrace goldens (tests/corpus/ftrace/*.expected) against the corpus
manifest (../shared/corpus/ftrace/manifest.json): what the manifest's
per-name and per-atrace-phase counts predict tread delivers, kind by kind.
Every difference must be listed in KNOWN with its reason (also in
doc/formats/ftrace.md, "Corpus"); an unexplained one fails.

usage: ftrace_manifest.py MANIFEST GOLDEN_DIR REL...
"""
import json
import sys

# (file, what) -> why, for a difference between the manifest's prediction
# and tread. None today: the manifest's unparsed and latency-format lines
# are predicted as lines not understood (perfetto/bad_print.systrace: the 2
# continuation lines of a print payload with newlines;
# generated/gen_latency_format.txt: latency-format lines, which neither
# importer reads).
KNOWN = {}


def predict(entry):
    """Events by kind that the manifest's counts predict."""
    ev, at, lines, odd = {}, {}, {}, {}
    for b in entry.get("blocks", []):
        for k, v in b.get("oddities", {}).items():
            odd[k] = odd.get(k, 0) + v
        for k, v in b.get("events", {}).items():
            ev[k] = ev.get(k, 0) + v
        for k, v in b.get("atrace", {}).items():
            at[k] = at.get(k, 0) + v
        for k, v in b.get("line_kinds", {}).items():
            lines[k] = lines.get(k, 0) + v
    total = sum(ev.values())
    k = {}
    k["context_switch"] = ev.get("sched_switch", 0)
    k["wakeup"] = sum(ev.get(n, 0) for n in ("sched_wakeup", "sched_waking", "sched_wakeup_new"))
    k["counter"] = ev.get("cpu_frequency", 0) + ev.get("cpu_idle", 0) + at.get("C", 0)
    k["slice_begin"] = at.get("B", 0)
    k["slice_end"] = at.get("E", 0)
    k["async_begin"] = at.get("S", 0) + at.get("G", 0)
    k["async_end"] = at.get("F", 0) + at.get("H", 0)
    k["clock_sync"] = at.get("clock_sync", 0)
    k["metadata"] = ev.get("task_newtask", 0) + ev.get("task_rename", 0)
    k["instant"] = total - sum(k.values())
    # trace-cmd report's cpus=N header: one num_cpus metadata event (not an
    # event line); its CPU N is empty lines: the empty_cpus counter
    k["metadata"] += odd.get("trace-cmd report header line ('cpus=N')", 0)
    empty = odd.get("trace-cmd report header line ('CPU N is empty')", 0)
    not_understood = lines.get("unparsed", 0) + lines.get("latency-format line", 0)
    return {n: v for n, v in k.items() if v}, total, not_understood, empty


def read_golden(path):
    kinds, counters, events = {}, {}, 0
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "kind":
                kinds[w[1]] = int(w[2])
            elif w[0] == "counter":
                counters[w[1]] = int(w[2])
            elif w[0] == "events":
                events = int(w[1])
    return kinds, counters, events


def main():
    manifest = {e["file"]: e for e in json.load(open(sys.argv[1]))}
    gdir = sys.argv[2]
    fail = 0
    for rel in sys.argv[3:]:
        want, total, nu, empty = predict(manifest[rel])
        kinds, counters, events = read_golden("%s/%s.expected" % (gdir, rel))
        diffs = []
        for kind in sorted(set(want) | set(kinds)):
            if want.get(kind, 0) != kinds.get(kind, 0):
                diffs.append(("kind " + kind, want.get(kind, 0), kinds.get(kind, 0)))
        if counters.get("event_lines", 0) != total:
            diffs.append(("event_lines", total, counters.get("event_lines", 0)))
        if counters.get("empty_cpus", 0) != empty:
            diffs.append(("empty_cpus", empty, counters.get("empty_cpus", 0)))
        if counters.get("lines_not_understood", 0) != nu:
            diffs.append(("lines_not_understood", nu, counters.get("lines_not_understood", 0)))
        bad = [d for d in diffs if (rel, d[0]) not in KNOWN]
        for what, w, g in diffs:
            tag = "explained" if (rel, what) in KNOWN else "UNEXPLAINED"
            print("%s %s: %s manifest %d, tread %d" % (tag, rel, what, w, g))
        if bad:
            fail = 1
        else:
            print("ok manifest %s" % rel)
    return fail


if __name__ == "__main__":
    sys.exit(main())
