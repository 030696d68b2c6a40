#!/usr/bin/env python3
"""Parity: the reflective walk (perfetto_walk_dump output) against
`protoc --decode=perfetto.protos.Trace` of the same bytes.

usage: perfetto_walk_parity.py WALK_DUMP PROTOC_TEXT [MAX_PACKETS]

The normalisation of the two text forms (doc/formats/perfetto.md):
- the walk's steps become protoc's text format: `name: value` and
  `name { ... }`, two spaces per level; values are already written as
  protoc writes them (perfetto_walk_dump.c);
- in each message, known fields are ordered by field number (protoc prints
  them so; the walk reports wire order), keeping the order of the
  elements of a repeated field; a non-repeated field seen more than once
  keeps its last value, and a non-repeated message field seen more than
  once is merged (protobuf's parse rules, which protoc applies);
- unknown fields, and enum numbers the enum lacks (protobuf keeps those
  as unknown too), come after the known ones in wire order, each as
  `NUMBER: ?` on both sides: protoc guesses at an unknown length-delimited
  field's contents (a nested message or a string) and prints fixed-width
  ones in hex, the walk reports them raw; only their presence, number and
  order are compared.
Prints the number of packets compared; on a difference, the first
differing packet of each side with the first differing line, exit 1.
"""
import re
import sys

UNKNOWN_LINE = re.compile(r"^(\s*)(\d+): ")
UNKNOWN_OPEN = re.compile(r"^(\s*)(\d+) \{$")


class Node:
    __slots__ = ("entries",)

    def __init__(self):
        self.entries = []  # (number, name, repeated, kind, value|Node)


def read_walk(path):
    """Yields each top-level entry of the walk: (number, name, repeated,
    kind, value|Node), a packet at a time."""
    stack = []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for ln in f:
            depth, kind, num, rep, name, value = ln.rstrip("\n").split("\t", 5)
            if kind == "B":
                n = Node()
                e = (int(num), name, rep == "1", "M", n)
                if stack:
                    stack[-1].entries.append(e)
                else:
                    top = e
                stack.append(n)
                continue
            if kind == "E":
                stack.pop()
                if not stack:
                    yield top
                continue
            e = ((int(num), name, rep == "1", "F", value) if kind == "F"
                 else (int(num), name, False, "U", None))
            if stack:
                stack[-1].entries.append(e)
            else:
                yield e


def normalise(node):
    """Known entries by number (stable), last-wins / merged singular
    fields, then unknown entries in wire order."""
    known, unknown = [], []
    single = {}
    for e in node.entries:
        num, name, rep, kind, val = e
        if kind == "U":
            unknown.append(e)
        elif rep:
            known.append(e)
        elif num in single:
            i = single[num]
            if kind == "M" and known[i][3] == "M":
                known[i][4].entries.extend(val.entries)
            else:
                known[i] = e
        else:
            single[num] = len(known)
            known.append(e)
    known.sort(key=lambda e: e[0])
    node.entries = known + unknown
    for e in node.entries:
        if e[3] == "M":
            normalise(e[4])


def emit(node, ind, out):
    pad = "  " * ind
    for num, name, rep, kind, val in node.entries:
        if kind == "U":
            out.append("%s%d: ?" % (pad, num))
        elif kind == "M":
            out.append("%s%s {" % (pad, name))
            emit(val, ind + 1, out)
            out.append(pad + "}")
        else:
            out.append("%s%s: %s" % (pad, name, val))


def packets_of_walk(path):
    for e in read_walk(path):   # Trace.packet, in order
        if e[3] == "M":
            normalise(e[4])
            out = []
            emit(e[4], 1, out)
            yield out
        else:
            yield ["%d: ?" % e[0]]


def packets_of_protoc(path):
    cur, skip_depth = None, None
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for ln in f:
            ln = ln.rstrip("\n")
            if skip_depth is not None:
                if ln == skip_depth + "}":
                    cur.append(skip_depth + "%s: ?" % skip_num)
                    skip_depth = None
                continue
            if ln == "packet {":
                cur = []
                continue
            if ln == "}":
                yield cur
                cur = None
                continue
            if ln.lstrip(" ")[:1].isdigit():
                m = UNKNOWN_OPEN.match(ln)
                if m:
                    skip_depth, skip_num = m.group(1), m.group(2)
                    continue
                m = UNKNOWN_LINE.match(ln)
                if m:
                    ln = "%s%s: ?" % (m.group(1), m.group(2))
            cur.append(ln)


def main():
    walk = packets_of_walk(sys.argv[1])
    ref = packets_of_protoc(sys.argv[2])
    n, most = 0, int(sys.argv[3]) if len(sys.argv) > 3 else -1
    while n != most:
        a = next(walk, None)
        b = next(ref, None)
        if a is None and b is None:
            break
        if a != b:
            print("packet %d differs" % n)
            a, b = a or [], b or []
            for i in range(max(len(a), len(b))):
                x = a[i] if i < len(a) else "<end>"
                y = b[i] if i < len(b) else "<end>"
                if x != y:
                    print("  line %d: walk   %r\n  line %d: protoc %r" % (i, x, i, y))
                    break
            return 1
        n += 1
    print("%d packets: the walk equals protoc --decode (normalised)" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
