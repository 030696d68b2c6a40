#!/usr/bin/env python3
"""The normalisation of `tread convert` round trips (doc/convert.md).

Usage: convert_norm.py LIST
LIST has one line per round trip: DIRECTION ORIGINAL.ndjson CONVERTED.ndjson
[NAME],
where DIRECTION is json or perfetto and the files are `tread cat` of the
original trace and of its conversion. Each side is reduced to what the
direction carries (doc/convert.md, "What a round trip keeps"); the two must
then be equal: the same events in the same order, and the same process and
thread names. Prints one line per round trip; exits 1 if any differs.
"""
import json
import sys

# Fields no conversion keeps: where the event came from, not what it is.
ALWAYS_DROP = ("ph", "seq", "track_uuid", "track_kind", "provider_id",
               "provider", "unresolved", "raw_ts", "clock_id", "value_int",
               "cpu", "pid_str", "tid_str", "value_text")
# Kinds that have no record in JSON / Perfetto output and become instants.
AS_INSTANT = ("context_switch", "wakeup", "log")
NAME_METAS = ("process_name", "thread_name", "track_descriptor")


def us_round(ns):
    if ns is None:
        return None
    us = (ns + 500) // 1000 if ns >= 0 else -((-(ns + 1) + 501) // 1000)
    return us * 1000


def norm_id(v):
    """Ids as unsigned 64-bit numbers when they are numbers (a negative
    atrace id is the same 64 bits)."""
    if v is None:
        return None
    try:
        return int(v, 0) & 0xFFFFFFFFFFFFFFFF
    except (TypeError, ValueError):
        return v


DEEP = 32  # TREAD_ARGS_ITER_MAX_NEST: deeper Perfetto args come as bytes


def args_pf(v, depth=0):
    """Perfetto debug annotations: an empty dict or array is a bare name
    (null); values nested deeper than the lazy iterator follows are cut."""
    if depth > DEEP:
        return "<deep>"
    if isinstance(v, dict):
        if not v:
            return None
        return {k: args_pf(x, depth + 1) for k, x in v.items()}
    if isinstance(v, list):
        if not v:
            return None
        return [args_pf(x, depth + 1) for x in v]
    if isinstance(v, float) and v.is_integer():
        return int(v)  # 2.0 written as a double comes back as 2
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2**63:
        return int(float(v))  # a double's digits, however they were written
    return v


def counter_track_name(name, series):
    if not series or series == "value" or series == name or not name:
        return name or series
    return name + " " + series


def names_of(ev, names):
    """Process and thread names: from name metadata or named tracks."""
    meta = ev.get("meta")
    pid, tid = ev.get("pid"), ev.get("tid")
    if tid is None:
        tid = pid
    if meta == "process_name" or (meta == "track_descriptor" and
                                  ev.get("track_kind") == "process"):
        if ev.get("meta_str") is not None and pid is not None:
            names[("p", pid)] = ev["meta_str"]
    elif meta == "thread_name" or (meta == "track_descriptor" and
                                   ev.get("track_kind") == "thread"):
        if ev.get("meta_str") is not None and pid is not None:
            names[("t", pid, tid)] = ev["meta_str"]


STACK_MAX_DEPTH = 1024  # CVP_STACK_MAX_DEPTH, the reader's PF_PROF_MAX_DEPTH


def mapping_cat(c):
    """A frame's category as a Perfetto mapping path reads back: "/"
    before it (one leading "/" is the writer's), a leading "//" made "/"."""
    if c is None:
        return None
    c = "/" + (c[1:] if c.startswith("/") else c)
    return c[1:] if c.startswith("//") else c


def stack_of(sf, frames, side):
    """The frames an sf names, leaf first, as the definitions met so far
    give them (the writer's rule: parents while they are defined, at most
    STACK_MAX_DEPTH): [name, category] each; None when sf names none."""
    if not sf or sf not in frames:
        return None
    out = []
    while sf in frames and len(out) < STACK_MAX_DEPTH:
        name, cat, parent = frames[sf]
        out.append([name, mapping_cat(cat) if side == "orig" else cat])
        if not parent:
            break
        sf = parent
    return out


def keep(direction, ev, side, frames=None):
    """The event as the direction carries it, or None when it is dropped."""
    kind = ev["kind"]
    meta = ev.get("meta")
    if meta in NAME_METAS:
        return None
    if kind in ("stack_frame", "blob"):
        return None
    if kind == "clock_sync" and (direction == "perfetto" or ev.get("ph") != "c"):
        return None
    if kind == "unknown" and not ev.get("ph"):
        return None
    if meta == "trace":
        return None
    if (direction == "json" and kind == "counter" and
            ev.get("value") in ("NaN", "Infinity", "-Infinity")):
        return None  # JSON has no such numbers
    if direction == "perfetto" and kind == "metadata" and meta != "other":
        return None
    e = dict(ev)
    if "value_int" in e:  # exact where the double is not
        e["value"] = e["value_int"]
    if isinstance(e.get("value"), float) and e["value"].is_integer():
        e["value"] = int(e["value"])
    for k in ALWAYS_DROP:
        e.pop(k, None)
    if e.get("tid") is None:
        e["tid"] = e.get("pid")
    e["id"] = norm_id(e.get("id"))
    if side == "orig" and kind in AS_INSTANT:
        e["kind"] = "instant"
        e.pop("value", None)  # a log's priority: instants have no value
        if direction == "json":
            if e.get("name") is None:
                e["name"] = kind
            if e.get("cat") is None:
                e["cat"] = "tread." + kind
    if kind == "sample":
        e.pop("value", None)  # samples[] weights: not carried
    if direction == "json":
        e.pop("flow_ids", None)  # Perfetto flows: JSON has no such field
        e.pop("terminating_flow_ids", None)
        if kind == "counter" and e.get("series") is None:
            e["series"] = "value"
    if direction == "perfetto":
        for k in ("dur_ns", "tts_ns", "tdur_ns"):
            if k in e:
                e[k] = us_round(e[k])
        for k in ("cname", "esf", "stack", "estack", "parent"):
            e.pop(k, None)
        # an sf is written as the callstack of the frames defined before
        # its event, read back under other ids: compared by content
        stack = stack_of(e.pop("sf", None), frames or {}, side)
        if stack is not None:
            e["sf"] = stack
        if not isinstance(e["id"], int):
            e["id"] = None
            e.pop("id2", None)
        if "bind_id" in e and not isinstance(norm_id(e["bind_id"]), int):
            e.pop("bind_id")
        elif "bind_id" in e:
            e["bind_id"] = norm_id(e["bind_id"])
        for k in ("pid", "tid"):  # ProcessDescriptor.pid is an int32
            if isinstance(e.get(k), int) and not -2**31 <= e[k] < 2**31:
                if k == "pid" or e.get("pid") is not None:
                    e[k] = (e[k] + 2**31) % 2**32 - 2**31
        if e.get("ts_ns") is not None and e["ts_ns"] < 0:
            e["ts_ns"] = None
        e["args"] = args_pf(e.get("args")) or {}
        if kind == "counter":
            if side == "orig":
                series = counter_track_name(e.get("name"), e.get("series"))
                e.pop("series", None)
                if series:
                    e["series"] = series
                    if e.get("name") is None:
                        e["name"] = series
            e["tid"] = e.get("pid")  # counter tracks belong to processes
            e["args"] = {}
    if kind == "counter" and direction == "json":
        e["args"] = {}
    return e


# Events compared per round trip: the first ones of a large file (the test's
# time budget); both sides stop at the same event, order being kept.
MAX_EVENTS = 4000


def final_frames(path):
    """Every stack frame definition of the whole file, the last of each id:
    what a second conversion knows ahead of the events (cmd_convert.c)."""
    frames = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if '"stack_frame"' not in line:
                continue
            ev = json.loads(line)
            if ev["kind"] == "stack_frame" and ev.get("id") is not None:
                frames[ev["id"]] = (ev.get("name"), ev.get("cat"), ev.get("parent"))
    return frames


def load(path, direction, side, ahead=False):
    events, names = [], {}
    # converted twice, the frames known ahead: an sf names the frames of
    # the whole input until its own definitions come, then those in force
    frames = final_frames(path) if ahead else {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if len(events) >= MAX_EVENTS:
                break
            ev = json.loads(line)
            names_of(ev, names)
            if ev["kind"] == "stack_frame" and ev.get("id") is not None:
                frames[ev["id"]] = (ev.get("name"), ev.get("cat"), ev.get("parent"))
            e = keep(direction, ev, side, frames)
            if e is not None:
                events.append(json.dumps(e, sort_keys=True))
    return events, names


def int32_names(names):
    """ProcessDescriptor/ThreadDescriptor pids are int32."""
    w = lambda v: (v + 2**31) % 2**32 - 2**31 if isinstance(v, int) else v
    return {(k[0],) + tuple(w(x) for x in k[1:2]) + k[2:]: n
            for k, n in names.items()}


def compare(direction, orig, conv, ahead=False):
    a, an = load(orig, direction, "orig", ahead)
    b, bn = load(conv, direction, "conv")
    if direction == "perfetto":
        an, bn = int32_names(an), int32_names(bn)
    if a != b:
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return "event %d differs:\n  original:  %s\n  converted: %s" % (i, x, y)
        return "%d events in the original, %d in the conversion" % (len(a), len(b))
    if an != bn:
        diff = sorted(set(an.items()) ^ set(bn.items()), key=str)[:4]
        return "process/thread names differ: %s" % (diff,)
    return None


def main():
    bad = 0
    with open(sys.argv[1]) as f:
        for line in f:
            parts = line.split()
            direction, orig, conv = parts[:3]
            label = parts[3] if len(parts) > 3 else orig
            ahead = len(parts) > 4 and parts[4] == "ahead"
            why = compare(direction, orig, conv, ahead)
            if why:
                bad += 1
                print("FAIL %s %s: %s" % (direction, label, why))
            else:
                print("ok   %s %s" % (direction, label))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
