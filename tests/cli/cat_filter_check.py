"""tread cat's filters, --limit and --fields as properties against the whole
output: `tread cat FILTERS FILE` must print exactly the lines of `tread cat
FILE` that the filter's rules (tread(1)) keep, in order, byte for byte;
--limit N the first N of those; --fields LIST each kept line's keys, in
LIST's order (end_ns = ts_ns + dur_ns). Run by cat_filter.sh:

    cat_filter_check.py TREAD FILE
"""
import fnmatch
import json
import subprocess
import sys

TREAD, PATH = sys.argv[1], sys.argv[2]


def cat(*args):
    r = subprocess.run([TREAD, "cat", "-q", *args, PATH], stdout=subprocess.PIPE, check=False)
    if r.returncode != 0:
        raise SystemExit(f"tread cat {' '.join(args)}: exit {r.returncode}")
    return r.stdout.decode().splitlines()


ALL = cat()
EVENTS = [json.loads(line) for line in ALL]
assert len(EVENTS) > 100, len(EVENTS)


def match(pattern, text):
    text = text or ""
    if any(c in pattern for c in "*?["):
        return fnmatch.fnmatchcase(text, pattern)
    return text.startswith(pattern)


def overlaps(e, start, end):
    ts = e["ts_ns"]
    if ts is None:
        return True
    if end is not None and ts >= end:
        return False
    stop = ts + e["dur_ns"] if e["dur_ns"] is not None and e["dur_ns"] > 0 else ts
    return start is None or stop >= start


def tid_of(e):
    return e["tid"] if e["tid"] is not None else e["pid"]


failures = 0
checks = 0


def expect(args, keep, what):
    global failures, checks
    checks += 1
    want = [line for line, e in zip(ALL, EVENTS) if keep(e)]
    got = cat(*args)
    if got != want:
        failures += 1
        print(f"FAIL: {what}: tread cat {' '.join(args)}: {len(got)} lines, "
              f"expected {len(want)}", file=sys.stderr)
    else:
        print(f"ok: {what} ({len(got)} of {len(ALL)} events)")
    return want


names = sorted({e["name"] for e in EVENTS if e["name"]})
cats = sorted({e["cat"] for e in EVENTS if e["cat"]})
kinds = sorted({e["kind"] for e in EVENTS})
pids = sorted({e["pid"] for e in EVENTS if e["pid"] is not None})
tids = sorted({tid_of(e) for e in EVENTS if tid_of(e) is not None})
times = sorted(e["ts_ns"] for e in EVENTS if e["ts_ns"] is not None)
mid = times[len(times) // 2]
quarter = times[len(times) // 4]

expect(["--kind", kinds[0]], lambda e: e["kind"] == kinds[0], "one kind")
expect(["--kind", ",".join(kinds[:2])], lambda e: e["kind"] in kinds[:2], "two kinds, one flag")
expect(["--kind", kinds[0], "--kind", kinds[-1]], lambda e: e["kind"] in (kinds[0], kinds[-1]),
       "two kinds, two flags")
prefix = names[len(names) // 2][:3]
expect(["--name", prefix], lambda e: (e["name"] or "").startswith(prefix), "name prefix")
expect(["--name", "*" + names[0][-2:]], lambda e: match("*" + names[0][-2:], e["name"]),
       "name glob *suffix")
expect(["--name", "?" + names[0][1:3] + "*"], lambda e: match("?" + names[0][1:3] + "*", e["name"]),
       "name glob ?..*")
expect(["--name", "[A-M]*"], lambda e: match("[A-M]*", e["name"]), "name glob [set]")
expect(["--name", "[!A-M]*"], lambda e: match("[!A-M]*", e["name"]), "name glob [!set]")
expect(["--name", names[0], "--name", names[-1]],
       lambda e: match(names[0], e["name"]) or match(names[-1], e["name"]), "two names")
expect(["--cat", cats[0]], lambda e: (e["cat"] or "").startswith(cats[0]), "cat prefix")
expect(["--cat", "*,*"], lambda e: match("*,*", e["cat"]), "cat glob")
expect(["--pid", str(pids[0])], lambda e: e["pid"] == pids[0], "pid")
expect(["--pid", ",".join(map(str, pids[:2])) + ",-5"], lambda e: e["pid"] in pids[:2] + [-5],
       "pid list")
expect(["--tid", str(tids[-1])], lambda e: tid_of(e) == tids[-1] and
       (e["pid"] is not None or e["tid"] is not None), "tid")
expect(["--start", str(mid)], lambda e: overlaps(e, mid, None), "start (ns)")
expect(["--end", str(mid)], lambda e: overlaps(e, None, mid), "end (ns)")
expect(["--start", str(quarter), "--end", str(mid)], lambda e: overlaps(e, quarter, mid), "window")
# units: the same window written in us, ms, s (exact decimals)
for unit, div in (("us", 10**3), ("ms", 10**6), ("s", 10**9)):
    a, b = quarter - quarter % div, mid - mid % div
    if b <= a:
        continue
    expect(["--start", f"{a // div}{unit}", "--end", f"{b // div}{unit}"],
           lambda e, a=a, b=b: overlaps(e, a, b), f"window in {unit}")
    # the same start as a decimal of the next unit up, when it is one
    if unit != "s" and a % (div * 1000) != a:
        big = {"us": "ms", "ms": "s"}[unit]
        whole, frac = divmod(a, div * 1000)
        text = f"{whole}.{frac // div:03d}{big}"
        expect(["--start", text], lambda e, a=a: overlaps(e, a, None), f"start as {text}")
half_ms = 1500000
expect(["--end", "1.5ms"], lambda e: overlaps(e, None, half_ms), "1.5ms")
expect(["--kind", "complete", "--name", prefix, "--pid", str(pids[0]), "--start", str(quarter)],
       lambda e: e["kind"] == "complete" and (e["name"] or "").startswith(prefix) and
       e["pid"] == pids[0] and overlaps(e, quarter, None), "all together")
nothing = expect(["--name", "no such name at all"], lambda e: False, "a filter that keeps nothing")

# --limit: the first N kept
checks += 1
kept = [line for line, e in zip(ALL, EVENTS) if e["kind"] == "complete"]
got = cat("--kind", "complete", "--limit", "7")
if got != kept[:7]:
    failures += 1
    print("FAIL: --limit 7 is not the first 7 kept events", file=sys.stderr)
else:
    print("ok: --limit 7")
checks += 1
if cat("--limit", str(len(ALL) + 5)) != ALL:
    failures += 1
    print("FAIL: --limit past the end", file=sys.stderr)
else:
    print("ok: --limit past the end")

# --fields: the listed keys of each event, in order
FIELDS = ["name", "ts_ns", "kind", "dur_ns", "end_ns", "pid", "tid", "cat", "id", "ph",
          "tts_ns", "tdur_ns", "cpu", "series", "value", "meta", "meta_str", "args", "format"]
checks += 1
lines = cat("--fields", ",".join(FIELDS))
got = [json.loads(line) for line in lines]
bad = 0
for e, g, line in zip(EVENTS, got, lines):
    if list(g) != FIELDS:  # dicts keep the order of the line's keys
        bad += 1
        continue
    for k in FIELDS:
        if k == "end_ns":
            want = e["ts_ns"] + e["dur_ns"] if e["ts_ns"] is not None and e["dur_ns"] is not None \
                and e["dur_ns"] >= 0 else None
        elif k == "format":
            want = "json"
        else:
            want = e.get(k)
        if g[k] != want:
            bad += 1
            print(f"  {k}: {g[k]!r} != {want!r}", file=sys.stderr)
            break
if bad or len(got) != len(EVENTS):
    failures += 1
    print(f"FAIL: --fields: {bad} events differ", file=sys.stderr)
else:
    print(f"ok: --fields ({len(FIELDS)} keys, {len(got)} events)")

print(f"{checks} checks, {failures} failed")
sys.exit(1 if failures else 0)
