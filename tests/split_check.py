#!/usr/bin/env python3
"""Checks one split against the split contract (doc/convert.md), for
tests/split_contract.sh.

  split_check.py REF_CAT PIECES_CAT PIECE_LIST MAX_BYTES DECODED_BYTES

REF_CAT, PIECES_CAT: tests/split_cat output for the reference (the whole
file, or for a converting split the whole conversion) and for the pieces
in order. Checks, printing one FAIL line per broken promise:
- the pieces, read one after another, give exactly the events of the
  reference, every field, in order, after dropping duplicate metadata (a
  metadata or clock_sync event equal to the one in force for its key);
- every piece is at most MAX_BYTES, unless what it holds beyond repeated
  definitions is one record (the events of one input offset);
- the total is within the default --max-total-bytes: 4 x DECODED_BYTES
  + 1 MiB + 4 KiB per piece (tools/split_pieces.h).
"""
import json
import os
import sys

KEYS = ("kind", "meta", "name", "pid", "tid", "provider_id", "track_uuid", "seq")


def read(path):
    """[(piece, offset, event dict)] from split_cat output."""
    out = []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            head, _, body = line.partition("\t")
            piece, offset = head.split()
            out.append((int(piece), int(offset), json.loads(body)))
    return out


def dedupe(events):
    """The events without duplicate metadata: [(piece, offset, text)]."""
    force = {}
    out = []
    for piece, offset, e in events:
        text = json.dumps(e, sort_keys=True)
        if e.get("kind") in ("metadata", "clock_sync"):
            k = tuple(json.dumps(e.get(x), sort_keys=True) for x in KEYS)
            if force.get(k) == text:
                continue
            force[k] = text
        out.append((piece, offset, text))
    return out


def main():
    ref_cat, pieces_cat, piece_list, max_bytes, decoded = sys.argv[1:6]
    max_bytes, decoded = int(max_bytes), int(decoded)
    pieces = [l.strip() for l in open(piece_list) if l.strip()]
    ref = dedupe(read(ref_cat))
    got = dedupe(read(pieces_cat))
    ok = True
    a = [t for _, _, t in ref]
    b = [t for _, _, t in got]
    if a != b:
        ok = False
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                print("FAIL events differ at event %d:\n  whole: %s\n  piece: %s"
                      % (i, x[:300], y[:300]))
                break
        else:
            print("FAIL %d events whole, %d in the pieces" % (len(a), len(b)))
    offsets = {}
    for piece, offset, _ in got:
        offsets.setdefault(piece, set()).add(offset)
    total = 0
    for i, p in enumerate(pieces):
        size = os.path.getsize(p)
        total += size
        if size > max_bytes and len(offsets.get(i, ())) > 1:
            ok = False
            print("FAIL %s: %d bytes > %d with %d records" % (p, size, max_bytes,
                                                           len(offsets[i])))
    bound = 4 * decoded + (1 << 20) + 4096 * len(pieces)
    if total > bound:
        ok = False
        print("FAIL total %d bytes > %d" % (total, bound))
    print("%s %d events, %d pieces, %d bytes (%.2f of the input)"
          % ("ok" if ok else "FAIL", len(a), len(pieces), total,
             total / decoded if decoded else 0))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
