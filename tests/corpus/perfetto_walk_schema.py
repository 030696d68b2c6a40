#!/usr/bin/env python3
"""Checks `protoc --decode=perfetto.protos.Trace` output (proto/*.proto)
for unknown fields: each one must be a field the tables
(perfetto_fields.tsv) have but the schema leaves out on purpose (newer
than the reference), or a field of a message the tables list without
fields (statsd Atom: its fields live in Android's atoms.proto, outside the
tables). Anything else means the schema misses or mistypes a field.

usage: perfetto_walk_schema.py PROTO_DIR FIELDS_TSV DECODED_TEXT...
Prints one line per unknown (message, field number) with its count and
verdict; exits 1 if any is not allowed. Python 3 stdlib only.
"""
import collections
import os
import re
import sys

FIELD = re.compile(r"^\s*(?:optional |repeated |required )?(\.?[\w.]+) (\w+) = (\d+)")
ENUMS = set()
OPEN = re.compile(r"^\s*(message|enum|oneof) (\w+) \{$")


def read_schema(proto_dir):
    """{message full name: {field name: type full name or scalar}}"""
    msgs = {}
    for fn in sorted(os.listdir(proto_dir)):
        if not fn.endswith(".proto"):
            continue
        pkg = ""
        stack = []  # (kind, name)
        with open(os.path.join(proto_dir, fn), encoding="utf-8") as f:
            for ln in f:
                ln = ln.rstrip("\n")
                m = re.match(r"^package ([\w.]+);", ln)
                if m:
                    pkg = m.group(1)
                    continue
                m = OPEN.match(ln)
                if m:
                    stack.append((m.group(1), m.group(2)))
                    if m.group(1) == "message":
                        msgs[full(pkg, stack)] = {}
                        msgs[full(pkg, stack) + "#"] = {}
                    elif m.group(1) == "enum":
                        ENUMS.add(full(pkg, stack[:-1]) + "." + m.group(2))
                    continue
                if ln.strip() == "}":
                    stack.pop()
                    continue
                if stack and stack[-1][0] in ("message", "oneof"):
                    m = FIELD.match(ln)
                    if m:
                        mstack = stack if stack[-1][0] == "message" else stack[:-1]
                        msgs[full(pkg, mstack)][m.group(2)] = m.group(1).lstrip(".")
                        msgs[full(pkg, mstack) + "#"][m.group(2)] = (
                            m.group(1).lstrip("."), int(m.group(3)))
    return msgs


def schema_numbers(msg, schema):
    """{field number: "enum FULLNAME" or type} of a schema message."""
    return {num: ("enum " + t if t in ENUMS else t)
            for _, (t, num) in schema.get(msg + "#", {}).items()}


def full(pkg, stack):
    return ".".join([pkg] + [n for k, n in stack if k == "message"])


def read_tables(path):
    nums = collections.defaultdict(dict)  # message -> {number: field name}
    declared = set()
    with open(path, encoding="utf-8") as f:
        next(f)
        for ln in f:
            c = ln.rstrip("\n").split("\t")
            declared.add(c[0])
            if c[1]:
                nums[c[0]].setdefault(int(c[2]), c[1])
    return nums, declared


def main():
    proto_dir, tsv, texts = sys.argv[1], sys.argv[2], sys.argv[3:]
    schema = read_schema(proto_dir)
    tab, declared = read_tables(tsv)
    unknown = collections.Counter()
    for path in texts:
        stack = ["perfetto.protos.Trace"]
        with open(path, encoding="utf-8", errors="replace") as f:
            for ln in f:
                s = ln.strip()
                if s == "}":
                    stack.pop()
                    continue
                # only openings and unknown fields matter; a string value
                # ends with its closing quote, never with " {"
                is_open = s.endswith(" {")
                if not is_open and not s[:1].isdigit():
                    continue
                name, cur = (s[:-2] if is_open else s.split(":", 1)[0]), stack[-1]
                if name.isdigit():
                    if cur is not None:
                        unknown[(cur, int(name))] += 1
                    if is_open:
                        stack.append(None)
                elif is_open:
                    stack.append(schema[cur][name] if cur is not None else None)
    bad = 0
    by_number = {}
    for (msg, num), n in sorted(unknown.items()):
        rel = msg.split(".", 2)[2] if msg.startswith("perfetto.protos.") else msg
        moved = [m for m in tab if m != msg and m.endswith("." + rel)
                 and num in tab[m]]
        if msg not in by_number:
            by_number[msg] = schema_numbers(msg, schema)
        if num in tab.get(msg, {}) and tab[msg][num] not in schema.get(msg, {}):
            verdict = "ok: newer than the reference (%s)" % tab[msg][num]
        elif moved and tab[moved[0]][num] not in schema.get(msg, {}):
            verdict = "ok: newer than the reference (%s.%s, where the message moved)" % (
                moved[0], tab[moved[0]][num])
        elif msg in declared and not tab.get(msg):
            verdict = "ok: the tables list %s without fields" % msg
        elif by_number[msg].get(num, "").startswith("enum "):
            verdict = "ok: a value outside %s (proto2 keeps it unknown)" % by_number[msg][num][5:]
        elif msg in tab and num not in tab[msg] and num not in by_number[msg]:
            verdict = "ok: not in the tables either (beyond the facts we have)"
        else:
            verdict = "NOT ALLOWED"
            bad += 1
        print("%s %d: %d x, %s" % (msg, num, n, verdict))
    print("%d unknown (message, field) pairs, %d not allowed" % (len(unknown), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
