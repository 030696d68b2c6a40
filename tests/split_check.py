#!/usr/bin/env python3
"""Checks one split against the split contract (doc/convert.md), for
tests/split_contract.sh.

  split_check.py [--jobs N] --cases CASES

(--jobs: N processes; the report keeps the cases' order.) Each line of CASES is one check:
  split SIZE FILE REF_CAT PIECES_CAT PIECE_LIST ORIG_CAT STATUS STDERR
  convert TO FILE ORIG_CAT CONV_CAT STDERR
*_CAT: tests/split_cat output (REF: the whole file, or for a converting
split the whole conversion; ORIG: the input, for its decoded size).

REF_CAT, PIECES_CAT: tests/split_cat output for the reference (the whole
file, or for a converting split the whole conversion) and for the pieces
in order. Checks, printing one FAIL line per broken promise:
- the pieces, read one after another, give exactly the events of the
  reference, every field, in order, after dropping duplicate metadata (a
  metadata or clock_sync event equal to the one in force for its key,
  compared without its time and sequence, which a fact restated at a
  piece's start does not keep);
- every piece is at most MAX_BYTES, unless what it holds beyond repeated
  definitions is one record (the events of one input offset);
- the total is within the default --max-total-bytes: 4 x the decoded
  input + 1 MiB + 64 KiB per piece (tools/split_pieces.h);
- tread split exits 0 when the input reads without an error;
- stack frames (JSON pieces: each piece's top-level stackFrames): the
  distinct definitions of the pieces are those of the reference; no piece
  holds one definition twice; a piece holds a frame only when its events use it (sf,
  esf), it is the parent of one it holds, or no earlier piece held it; a
  frame's parent is in its piece unless no piece up to it holds it
  (defined later); and the references a piece's events make to frames it
  lacks, counted per piece and id, are the count split prints
  ("N stack frame references are not in the piece that uses them");
- convert: the conversion's events plus the loss summary (STDERR, "left
  out N KIND events") equal the input's, kind by kind (context switches,
  wakeups and logs become instants; Perfetto metadata aside: descriptors
  are made for pids and tids and names merged into them).
"""
import json
import os
import re
import sys

# What a metadata fact is about; the sequence a restated descriptor is
# written on is not part of the fact.
KEYS = ("kind", "meta", "name", "pid", "tid", "provider_id", "track_uuid")


def read(path):
    """[(piece, offset, text)] from split_cat output, and the decoded size."""
    out = []
    decoded = 0
    status = 0
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            if line.startswith("#"):
                if line.startswith("# decoded "):
                    decoded += int(line.split()[2])
                elif line.startswith("# status "):
                    status |= int(line.split()[2])
                continue
            head, _, body = line.partition("\t")
            piece, offset = head.split()
            out.append((int(piece), int(offset), body.rstrip("\n")))
    read.status = status
    return out, decoded


FACT_PREFIXES = ('{"kind":"metadata"', '{"kind":"clock_sync"')
NOT_FACT = ("ts_ns", "raw_ts", "clock_id", "seq")


def fact(text):
    """A metadata event's key (what it is about) and value (what it
    says), as JSON texts."""
    e = json.loads(text)
    k = json.dumps([e.get(x) for x in KEYS], sort_keys=True)
    # a fact restated at a piece's start is written without (or at
    # another) time, on its own sequence: compared without them
    v = json.dumps({x: y for x, y in e.items() if x not in NOT_FACT}, sort_keys=True)
    return k, v


def dedupe(events, facts):
    """The events without duplicate metadata: [(piece, offset, text)].
    facts: fact() by text, shared by the whole's and the pieces' events
    (most texts are in both: parsing them was most of this check's time)."""
    force = {}
    out = []
    for piece, offset, text in events:
        if text.startswith(FACT_PREFIXES):
            kv = facts.get(text)
            if kv is None:
                kv = facts[text] = fact(text)
            k, v = kv
            if force.get(k) == v:
                continue
            force[k] = v
        out.append((piece, offset, text))
    return out


def size_of(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * mult[s[-1]] if s[-1] in mult else int(s)


FRAME_PREFIX = '{"kind":"stack_frame"'
UNRESOLVED_RE = re.compile(r"^tread: warning: (\d+) stack frame references are not in")


def check_frames(ref, got, err, fails):
    """The stack frame promises (see the module's text); removes the frames
    from ref and got, which are compared in order apart from them."""
    ref_frames = {t for _, _, t in ref if t.startswith(FRAME_PREFIX)}
    by_piece = {}
    for piece, _, t in got:
        by_piece.setdefault(piece, []).append(t)
    got_frames = set()
    held_before = set()
    missing = 0
    for piece in sorted(by_piece):
        texts = by_piece[piece]
        frames = [json.loads(t) for t in texts if t.startswith(FRAME_PREFIX)]
        defs = [t for t in texts if t.startswith(FRAME_PREFIX)]
        if len(defs) != len(set(defs)):
            fails.append("piece %d holds a stack frame twice" % piece)
        here = {f["id"]: f for f in frames}
        used = set()
        for t in texts:
            if t.startswith(FRAME_PREFIX):
                continue
            e = json.loads(t)
            for k in ("sf", "esf"):
                if e.get(k) is not None:
                    used.add(e[k])
        missing += len([u for u in used if u not in here])
        parents = {f.get("parent") for f in frames if f.get("parent") is not None}
        for f in frames:
            if f["id"] not in used and f["id"] not in parents and f["id"] in held_before:
                fails.append("piece %d repeats stack frame %s, which it does not use"
                             % (piece, f["id"]))
            p = f.get("parent")
            if p is not None and p not in here and p in held_before:
                fails.append("piece %d: stack frame %s without its parent %s"
                             % (piece, f["id"], p))
        held_before |= set(here)
        got_frames |= {t for t in texts if t.startswith(FRAME_PREFIX)}
    if got_frames != ref_frames:
        fails.append("stack frames: %d distinct in the pieces, %d in the whole, %d in "
                     "common" % (len(got_frames), len(ref_frames),
                                 len(got_frames & ref_frames)))
    said = 0
    for line in open(err, encoding="utf-8", errors="replace") if err else ():
        m = UNRESOLVED_RE.match(line)
        if m:
            said += int(m.group(1))
    if said != missing:
        fails.append("%d stack frame references are not in their piece, split said %d"
                     % (missing, said))
    return ([x for x in ref if not x[2].startswith(FRAME_PREFIX)],
            [x for x in got if not x[2].startswith(FRAME_PREFIX)], len(ref_frames))


def check_split(name, max_bytes, ref_cat, pieces_cat, piece_list, orig_cat, rc, err=None):
    pieces = [l.strip() for l in open(piece_list) if l.strip()]
    ref, _ = read(ref_cat)
    got, _ = read(pieces_cat)
    _, decoded = read(orig_cat)
    input_error = read.status
    facts = {}
    ref, got = dedupe(ref, facts), dedupe(got, facts)
    fails = []
    ref, got, n_frames = check_frames(ref, got, err, fails)
    if rc != 0 and not input_error:
        fails.append("tread split exited %d on an input that reads cleanly" % rc)
    a = [t for _, _, t in ref]
    b = [t for _, _, t in got]
    if a != b:
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                fails.append("events differ at event %d:\n  whole: %s\n  piece: %s"
                             % (i, x[:300], y[:300]))
                break
        else:
            fails.append("%d events whole, %d in the pieces" % (len(a), len(b)))
    offsets = {}
    for piece, offset, _ in got:
        offsets.setdefault(piece, set()).add(offset)
    total = 0
    for i, p in enumerate(pieces):
        size = os.path.getsize(p)
        total += size
        if size > max_bytes and len(offsets.get(i, ())) > 1:
            fails.append("%s: %d bytes > %d with %d records"
                         % (p, size, max_bytes, len(offsets[i])))
    bound = 4 * decoded + (1 << 20) + 65536 * len(pieces)
    if total > bound:
        fails.append("total %d bytes > %d" % (total, bound))
    head = "%s at %d: %d events, %d stack frames, %d pieces, %d bytes (%.2f of the decoded " \
        "input)" % (name, max_bytes, len(a), n_frames, len(pieces), total,
                    total / decoded if decoded else 0)
    return head, fails


KIND_RE = re.compile(r'^\{"kind":"([a-z_]+)"')
LOSS_RE = re.compile(r"^tread: left out (\d+) ([a-z_]+) events: ")
# What each kind becomes (doc/convert.md): kinds without a phase become
# instants in both directions.
AS_INSTANT = ("context_switch", "wakeup", "log")


def kinds(events):
    c = {}
    for _, _, text in events:
        k = KIND_RE.match(text).group(1)
        c[k] = c.get(k, 0) + 1
    return c


def check_convert(name, to, orig_cat, conv_cat, err):
    orig, _ = read(orig_cat)
    conv, _ = read(conv_cat)
    lost = {}
    for line in open(err, encoding="utf-8", errors="replace"):
        m = LOSS_RE.match(line)
        if m:
            lost[m.group(2)] = lost.get(m.group(2), 0) + int(m.group(1))
    o, c = kinds(orig), kinds(conv)
    want = {}
    for k, n in o.items():
        t = "instant" if k in AS_INSTANT else k
        want[t] = want.get(t, 0) + n - lost.get(k, 0)
    fails = []
    for k in sorted(set(want) | set(c)):
        if k == "metadata" and to == "perfetto":
            continue  # descriptors are made for pids and tids, names merged
        if k == "stack_frame" and to == "perfetto":
            # frames are written in the callstacks that use them (the
            # unused counted); the reader names them by content, so two
            # definitions of one callsite read back as one
            if c.get(k, 0) > want.get(k, 0) or (c.get(k, 0) == 0) != (want.get(k, 0) == 0):
                fails.append("stack_frame: input - lost = %d, the conversion holds %d"
                             % (want.get(k, 0), c.get(k, 0)))
            continue
        if want.get(k, 0) != c.get(k, 0):
            fails.append("%s: input %d - lost %d = %d, the conversion holds %d"
                         % (k, sum(n for kk, n in o.items() if kk == k or
                                   (k == "instant" and kk in AS_INSTANT)),
                            lost.get(k, 0), want.get(k, 0), c.get(k, 0)))
    head = "convert --to %s %s: %d events, %d lost" % (to, name, len(orig),
                                                     sum(lost.values()))
    return head, fails


def check_case(line):
    f = line.split()
    if f[0] == "split":
        return check_split(f[2], size_of(f[1]), f[3], f[4], f[5], f[6],
                           int(f[7]), f[8] if len(f) > 8 else None)
    return check_convert(f[2], f[1], f[3], f[4], f[5])


def main():
    args = sys.argv[1:]
    jobs = 1
    if len(args) >= 2 and args[0] == "--jobs":
        jobs = max(1, int(args[1]))
        args = args[2:]
    if len(args) != 2 or args[0] != "--cases":
        print(__doc__)
        return 2
    with open(args[1]) as f:
        lines = [l for l in f if l.strip()]
    rc = 0
    if jobs > 1:
        # the cases are independent: JOBS processes, the report in order
        import multiprocessing
        with multiprocessing.Pool(jobs) as pool:
            results = pool.map(check_case, lines, chunksize=4)
    else:
        results = map(check_case, lines)
    for head, fails in results:
        if fails:
            rc = 1
            print("FAIL " + head)
            for x in fails:
                print("  " + x)
        else:
            print("ok " + head)
    return rc


if __name__ == "__main__":
    sys.exit(main())
