#!/bin/sh
# tread split: pieces of at most --max-bytes that each stand alone
# (doc/convert.md): every piece parses alone, JSON pieces repeat the
# process/thread names, Perfetto pieces carry their interned names and
# track descriptors, and the pieces together hold the events of the input.
. "${top_srcdir:-.}/tests/cli/common.sh"

"$TREAD" split "$DATA/small.json" "$tmp/p" 2> "$tmp/err"
check "split without --max-bytes is a usage error" [ $? -eq 2 ]
"$TREAD" split --max-bytes 1K "$DATA/small.json" - 2> /dev/null
check "OUTPREFIX - is a usage error" [ $? -eq 2 ]

# a trace with names, 300 slices on 3 threads, a counter
python3 - "$tmp/t.json" <<'PY'
import json, sys
ev = [{"name": "process_name", "ph": "M", "pid": 7, "args": {"name": "proc"}}]
for t in (1, 2, 3):
    ev.append({"name": "thread_name", "ph": "M", "pid": 7, "tid": t,
               "args": {"name": "thread-%d" % t}})
for i in range(300):
    ev.append({"name": "slice%d" % (i % 17), "cat": "c%d" % (i % 5), "ph": "X",
               "ts": i * 10.5, "dur": 3, "pid": 7, "tid": 1 + i % 3,
               "args": {"i": i}})
    if i % 50 == 0:
        ev.append({"name": "ctr", "ph": "C", "ts": i * 10.5, "pid": 7,
                   "args": {"v": i}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
"$TREAD" cat -q "$tmp/t.json" | grep -v '"kind":"metadata"' > "$tmp/orig"

for to in json perfetto; do
    rm -f "$tmp"/p-*
    "$TREAD" split -q --to $to --max-bytes 4K "$tmp/t.json" "$tmp/p" > "$tmp/list"
    check "split --to $to succeeds" [ $? -eq 0 ]
    n=$(wc -l < "$tmp/list")
    check "split --to $to: several pieces ($n)" [ "$n" -gt 3 ]
    ok_size=1 ok_alone=1 ok_names=1
    : > "$tmp/all"
    while read -r piece; do
        size=$(wc -c < "$piece")
        [ "$size" -le 4096 ] || ok_size=0
        "$TREAD" cat "$piece" > "$tmp/one" 2> "$tmp/err" || ok_alone=0
        [ -s "$tmp/err" ] && ok_alone=0
        grep -q '"meta_str":"thread-2"' "$tmp/one" || ok_names=0
        grep -q '"meta_str":"proc"' "$tmp/one" || ok_names=0
        grep -v '"kind":"metadata"' "$tmp/one" >> "$tmp/all"
    done < "$tmp/list"
    check "split --to $to: every piece at most 4 KiB" [ $ok_size -eq 1 ]
    check "split --to $to: every piece reads alone, without a warning" [ $ok_alone -eq 1 ]
    check "split --to $to: every piece names the process and threads" [ $ok_names -eq 1 ]
    if [ $to = json ]; then
        check "split --to json: the pieces hold the events, in order" cmp -s "$tmp/orig" "$tmp/all"
    else
        sel='import sys,json
for l in sys.stdin:
    e = json.loads(l)
    args = e["args"] if e["kind"] != "counter" else None
    print(e["kind"], e["ts_ns"], e["dur_ns"], e["name"], e["cat"], e["pid"], args, e.get("value"))'
        python3 -c "$sel" < "$tmp/orig" > "$tmp/a"
        python3 -c "$sel" < "$tmp/all" > "$tmp/b"
        check "split --to perfetto: the pieces hold the events, in order" cmp -s "$tmp/a" "$tmp/b"
    fi
done

# a record larger than --max-bytes gets a piece of its own
rm -f "$tmp"/p-*
"$TREAD" split -q --to json --max-bytes 256 "$tmp/t.json" "$tmp/p" > "$tmp/list"
check "--max-bytes 256: about one record per piece" [ "$(wc -l < "$tmp/list")" -gt 150 ]

# Perfetto input stays Perfetto without --to
"$TREAD" convert -q --to perfetto "$tmp/t.json" "$tmp/t.pftrace"
rm -f "$tmp"/p-*
"$TREAD" split -q --max-bytes 8K "$tmp/t.pftrace" "$tmp/p" > "$tmp/list"
check "Perfetto input: Perfetto pieces" grep -q '\.pftrace$' "$tmp/list"
check "JSON input: JSON pieces" sh -c "'$TREAD' split -q --max-bytes 8K '$tmp/t.json' '$tmp/q' | grep -q '\.json$'"

# the issue's reproduction: 300 thread names between 200 events give a
# handful of pieces, each within --max-bytes, names not repeated
python3 -c 'import json,sys;X=lambda i:{"ph":"X","name":"a","ts":i,"dur":1,"pid":1,"tid":1};json.dump({"traceEvents":[X(i) for i in range(100)]+[{"ph":"M","name":"thread_name","pid":1,"tid":100+t,"args":{"name":"worker-thread-%d"%t}} for t in range(300)]+[X(i) for i in range(100)]},open(sys.argv[1],"w"))' "$tmp/m.json"
rm -f "$tmp"/p-*
"$TREAD" split -q --max-bytes 8K "$tmp/m.json" "$tmp/p" > "$tmp/list"
n=$(wc -l < "$tmp/list")
check "metadata between events: a handful of pieces ($n)" [ "$n" -ge 4 ] && [ "$n" -le 6 ]
ok_size=1
while read -r piece; do [ "$(wc -c < "$piece")" -le 8192 ] || ok_size=0; done < "$tmp/list"
check "metadata between events: every piece within 8 KiB" [ $ok_size -eq 1 ]
total=$(cat $(cat "$tmp/list") | wc -c)
check "metadata between events: the pieces total less than the input ($total)" [ "$total" -le "$(wc -c < "$tmp/m.json")" ]
check "metadata between events: each thread name once" \
    [ "$(cat $(cat "$tmp/list") | grep -c '"worker-thread-')" -eq 300 ]

# duplicate metadata is no new fact: 3000 identical process names
python3 -c 'import json,sys;X=lambda i:{"ph":"X","name":"a","ts":i,"dur":1,"pid":1,"tid":1};M={"ph":"M","name":"process_name","pid":1,"args":{"name":"p"}};json.dump({"traceEvents":[e for i in range(3000) for e in (M,X(i))]},open(sys.argv[1],"w"))' "$tmp/d.json"
rm -f "$tmp"/p-*
"$TREAD" split --max-bytes 64K "$tmp/d.json" "$tmp/p" > "$tmp/list" 2> "$tmp/err"
check "duplicate names: split succeeds" [ $? -eq 0 ]
check "duplicate names: the duplicates are counted" grep -q 'left out 2999 metadata events: metadata that repeats' "$tmp/err"
check "duplicate names: one name per piece" \
    [ "$(cat $(cat "$tmp/list") | grep -c '"process_name"')" -eq "$(wc -l < "$tmp/list")" ]
"$TREAD" split -q --strict --max-bytes 64K "$tmp/d.json" "$tmp/p" > /dev/null 2> "$tmp/err"
check "duplicate names: --strict makes the loss an error" [ $? -eq 1 ]
check "duplicate names: -q still reports the loss" grep -q 'left out 2999' "$tmp/err"

# a repeat at another time is merged; one with another field is a fact of
# its own (fuzz_convert: a thread name with a "cat", then without, lost the
# second)
printf '%s\n' '{"traceEvents":[' \
    '{"ph":"M","name":"thread_name","cat":"a","pid":1,"tid":2,"args":{"name":"io"}},' \
    '{"ph":"M","name":"thread_name","ts":5,"pid":1,"tid":2,"args":{"name":"io"}},' \
    '{"ph":"M","name":"thread_name","ts":9,"pid":1,"tid":2,"args":{"name":"io"}},' \
    '{"ph":"X","name":"a","ts":10,"dur":1,"pid":1,"tid":2}]}' > "$tmp/r.json"
rm -f "$tmp"/p-*
"$TREAD" split --max-bytes 64K "$tmp/r.json" "$tmp/p" > "$tmp/list" 2> "$tmp/err"
check "repeated names: split succeeds" [ $? -eq 0 ]
check "repeated names: the one at another time only is counted" \
    grep -q 'left out 1 metadata events: metadata that repeats' "$tmp/err"
check "repeated names: the one with a cat and the one without are both kept" \
    [ "$(grep -c '"thread_name"' "$tmp/p-00000.json")" -eq 2 ]

# bad output: one error naming the path, nothing else
"$TREAD" split -q --max-bytes 8K "$tmp/m.json" "$tmp/nodir/p" > "$tmp/out" 2> "$tmp/err"
check "unwritable OUTPREFIX: exit 1" [ $? -eq 1 ]
check "unwritable OUTPREFIX: one line of error" [ "$(wc -l < "$tmp/err")" -eq 1 ]
check "unwritable OUTPREFIX: it names the path" grep -q "cannot create '$tmp/nodir/p-00000.json'" "$tmp/err"
"$TREAD" convert -q --to json "$tmp/m.json" "$tmp/nodir/x.json" 2> "$tmp/err"
check "unwritable OUT: one line of error" [ "$(wc -l < "$tmp/err")" -eq 1 ]
check "unwritable OUT: it names the path" grep -q "cannot create '$tmp/nodir/x.json'" "$tmp/err"
"$TREAD" split --max-bytes 255 "$tmp/m.json" "$tmp/p" 2> "$tmp/err"
check "--max-bytes below 256: usage error" [ $? -eq 2 ]
check "--max-bytes below 256: says the minimum" grep -q 'at least 256' "$tmp/err"

# a file size limit (RLIMIT_FSIZE, SIGXFSZ ignored) mid-way through the
# second piece: one error saying which pieces are complete, partial removed
rm -f "$tmp"/p-*
(ulimit -f 6 && trap '' XFSZ && exec "$TREAD" split -q --max-bytes 8K "$tmp/d.json" "$tmp/p") \
    > "$tmp/list" 2> "$tmp/err"
check "file size limit: exit 1" [ $? -eq 1 ]
check "file size limit: one line of error" [ "$(wc -l < "$tmp/err")" -eq 1 ]
check "file size limit: no piece complete, said" grep -q "cannot write '$tmp/p-00000.json'.*no piece is complete; the partial piece was removed" "$tmp/err"
check "file size limit: the partial piece is removed" [ ! -e "$tmp/p-00000.json" ]
# a full disk after two pieces (a small tmpfs, where mounting is allowed)
mkdir "$tmp/mnt"
if mount -t tmpfs -o size=20k tmpfs "$tmp/mnt" 2> /dev/null; then
    "$TREAD" split -q --max-bytes 8K "$tmp/m.json" "$tmp/mnt/p" > "$tmp/list" 2> "$tmp/err"
    rc=$?
    ls "$tmp/mnt" > "$tmp/left"
    umount "$tmp/mnt"
    check "full disk: exit 1" [ $rc -eq 1 ]
    check "full disk: one line of error" [ "$(wc -l < "$tmp/err")" -eq 1 ]
    check "full disk: says which pieces are complete" grep -q "No space left on device; $tmp/mnt/p-00000.json to $tmp/mnt/p-00001.json are complete (2 pieces); the partial piece was removed" "$tmp/err"
    check "full disk: the complete pieces are listed, the partial one removed" \
        [ "$(cat "$tmp/list")" = "$(printf '%s\n' "$tmp/mnt/p-00000.json" "$tmp/mnt/p-00001.json")" ] && [ "$(wc -l < "$tmp/left")" -eq 2 ]
else
    echo "skip: full disk (cannot mount a tmpfs here; the file size limit above covers the error path)"
fi
# a standard output that fills
if [ -w /dev/full ]; then
    "$TREAD" convert -q --to json "$tmp/m.json" - > /dev/full 2> "$tmp/err"
    check "convert to a full standard output: exit 1" [ $? -eq 1 ]
    check "convert to a full standard output: one error" [ "$(wc -l < "$tmp/err")" -eq 1 ]
    check "convert to a full standard output: says so" grep -q "cannot write '-': No space left on device" "$tmp/err"
fi

# FXT splits into FXT: records copied, each piece starts with the magic
# record and carries the provider, initialization, strings, thread and
# kernel objects its records use (a string table entry changes half-way)
python3 - "$tmp/t.fxt" <<'PY'
import struct, sys
w = []
def rec(words):
    w.extend(words)
def pad(b):
    b += b"\0" * (-len(b) % 8)
    return [struct.unpack("<Q", b[i:i + 8])[0] for i in range(0, len(b), 8)]
def string(idx, text):
    t = pad(text.encode())
    rec([2 | (1 + len(t)) << 4 | idx << 16 | len(text.encode()) << 32] + t)
rec([0x0016547846040010])
name = pad(b"prov")
rec([0 | (1 + len(name)) << 4 | 1 << 16 | 7 << 20 | 4 << 52] + name)
rec([1 | 2 << 4, 1000000000])
string(1, "cat")
for i in range(2, 20):
    string(i, "name%d" % i)
string(21, "proc")
string(22, "thr")
string(23, "process")
rec([3 | 3 << 4 | 1 << 16, 10, 11])
rec([7 | 2 << 4 | 1 << 16 | 21 << 24, 10])
rec([7 | 4 << 4 | 2 << 16 | 22 << 24 | 1 << 40, 11, 8 | 2 << 4 | 23 << 16, 10])
for i in range(200):
    if i == 100:
        string(5, "renamed")
        string(22, "thr-renamed")
    rec([4 | 2 << 4 | 0 << 16 | 1 << 24 | 1 << 32 | (2 + i % 18) << 48, 1000 * i])
open(sys.argv[1], "wb").write(b"".join(struct.pack("<Q", x) for x in w))
PY
rm -f "$tmp"/p-*
"$TREAD" split -q --max-bytes 512 "$tmp/t.fxt" "$tmp/p" > "$tmp/list"
check "FXT: split succeeds" [ $? -eq 0 ]
check "FXT: FXT pieces" grep -q '\.fxt$' "$tmp/list"
n=$(wc -l < "$tmp/list")
check "FXT: several pieces ($n)" [ "$n" -gt 5 ]
ok_size=1 ok_alone=1 ok_magic=1
: > "$tmp/all"
while read -r piece; do
    [ "$(wc -c < "$piece")" -le 512 ] || ok_size=0
    [ "$(head -c 8 "$piece" | od -An -tx1 | tr -d ' \n')" = 1000044678541600 ] || ok_magic=0
    "$TREAD" cat "$piece" >> "$tmp/all" 2> "$tmp/err" || ok_alone=0
    [ -s "$tmp/err" ] && ok_alone=0
done < "$tmp/list"
check "FXT: every piece at most 512 bytes" [ $ok_size -eq 1 ]
check "FXT: every piece starts with the magic record" [ $ok_magic -eq 1 ]
check "FXT: every piece reads alone, without a warning" [ $ok_alone -eq 1 ]
"$TREAD" cat -q "$tmp/t.fxt" > "$tmp/whole"
dedupe='import sys, json
force = {}
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["kind"] in ("metadata", "clock_sync"):
        k = (e["kind"], e.get("meta"), e["name"], e["pid"], e["tid"])
        if force.get(k) == l:
            continue
        force[k] = l
    sys.stdout.write(l)'
python3 -c "$dedupe" "$tmp/whole" > "$tmp/a"
python3 -c "$dedupe" "$tmp/all" > "$tmp/b"
check "FXT: the pieces give the events of the whole, every field, in order" cmp -s "$tmp/a" "$tmp/b"
check "FXT: the renamed string is in force after the change" grep -q '"name":"renamed"' "$tmp/b"
check "FXT: the thread's name in force in each piece" \
    [ "$(grep -c '"meta_str":"thr' "$tmp/all")" -ge "$n" ]
check "FXT: the whole has events" [ "$(wc -l < "$tmp/a")" -gt 200 ]
"$TREAD" split -q --to json --max-bytes 4K "$tmp/t.fxt" "$tmp/j" > "$tmp/list"
check "FXT --to json: JSON pieces" grep -q '\.json$' "$tmp/list"

# JSON stackFrames: a piece carries, once each, the frames its events use
# (sf, esf) and those defined while it is open, each with its parent chain,
# in its own top-level stackFrames;
# frames defined after the events that use them are counted; past
# --max-frame-bytes, definitions are a counted loss (an error with --strict)
python3 - "$tmp/sf.json" <<'PY'
import json, sys
frames = {"1": {"name": "main", "category": "app"}}
for i in range(2, 60):
    frames[str(i)] = {"name": "f%d" % i, "category": "app", "parent": str(i // 2)}
ev = [{"ph": "X", "name": "e%d" % i, "ts": i, "dur": 1, "pid": 1, "tid": 1,
       "sf": str(2 + i % 58), "args": {}} for i in range(400)]
ev.append({"ph": "X", "name": "late", "ts": 500, "dur": 1, "pid": 1, "tid": 1,
           "sf": "99", "args": {}})
ev.append({"ph": "X", "name": "nowhere", "ts": 501, "dur": 1, "pid": 1, "tid": 1,
           "sf": "404", "args": {}})
# frames first, then the events, then one frame more, used before it (in
# the same piece: carried), and a frame defined nowhere (counted)
open(sys.argv[1], "w").write('{"stackFrames":' + json.dumps(frames) +
                             ',"traceEvents":' + json.dumps(ev) +
                             ',"samples":[],"stackFrames":{"99":{"name":"late","parent":"3"}}}')
PY
rm -f "$tmp"/p-*
"$TREAD" split --max-bytes 2K "$tmp/sf.json" "$tmp/p" > "$tmp/list" 2> "$tmp/err"
check "stackFrames: split succeeds" [ $? -eq 0 ]
check "stackFrames: the use of a frame defined nowhere is counted" \
    grep -q "^tread: warning: 1 stack frame references are not in the piece" "$tmp/err"
python3 - "$tmp/list" > "$tmp/sfcheck" <<'PY'
import json, sys
pieces = [l.strip() for l in open(sys.argv[1]) if l.strip()]
defined, seen = {}, set()
bad = []
for p in pieces:
    d = json.load(open(p))
    fr = d.get("stackFrames", {})
    used = {e["sf"] for e in d["traceEvents"] if "sf" in e}
    need = set()
    for u in used | (set(fr) - seen): # its events' frames, those first here
        while u is not None and u not in need and (u in fr or u in defined):
            need.add(u)
            u = (fr.get(u) or defined.get(u)).get("parent")
    for k, v in fr.items():
        if k not in need and k in seen:
            bad.append("%s repeats frame %s it does not use" % (p, k))
        if v.get("parent") and v["parent"] not in fr:
            bad.append("%s: frame %s without its parent" % (p, k))
    for u in used:
        if u not in fr and u != "404":
            bad.append("%s lacks frame %s" % (p, u))
    defined.update(fr)
    seen |= set(fr)
print("pieces %d frames %d" % (len(pieces), len(defined)))
print("\n".join(bad))
PY
check "stackFrames: several pieces, every frame carried" grep -q "^pieces [0-9][0-9]* frames 60$" "$tmp/sfcheck"
check "stackFrames: each piece has its frames and their parents, nothing else repeated" \
    [ "$(wc -l < "$tmp/sfcheck")" -eq 2 ] && [ -z "$(sed -n 2p "$tmp/sfcheck")" ]
"$TREAD" convert -q --to json "$tmp/sf.json" "$tmp/sf.out.json" 2> "$tmp/err"
check "stackFrames: convert --to json keeps all 60, without a loss" \
    [ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["stackFrames"]))' "$tmp/sf.out.json")" = 60 ]
check "stackFrames: convert --to json says no loss of them" [ ! -s "$tmp/err" ]
rm -f "$tmp"/p-*
"$TREAD" split -q --max-bytes 2K --max-frame-bytes 1K "$tmp/sf.json" "$tmp/p" > "$tmp/list" 2> "$tmp/err"
check "--max-frame-bytes: exit 0" [ $? -eq 0 ]
check "--max-frame-bytes: the definitions past it are a counted loss, even with -q" \
    grep -q "^tread: left out [0-9]* stack_frame events: stack frame definitions beyond --max-frame-bytes" "$tmp/err"
"$TREAD" split -q --strict --max-bytes 2K --max-frame-bytes 1K "$tmp/sf.json" "$tmp/p" > /dev/null 2>&1
check "--max-frame-bytes with --strict: exit 1" [ $? -eq 1 ]
"$TREAD" cat --max-frame-bytes 1K "$tmp/sf.json" > /dev/null 2>&1
check "--max-frame-bytes on cat: a usage error" [ $? -eq 2 ]

# Perfetto TYPE_STATE: a state event ends the state open on its track; a
# piece whose track's state began in an earlier piece lacks that end: a
# loss said even with -q, an error with --strict
python3 - "$tmp/state.pftrace" <<'PY'
import sys
def varint(v):
    b = b""
    while True:
        b += bytes([(v & 0x7f) | (0x80 if v > 0x7f else 0)])
        v >>= 7
        if not v:
            return b
def field(n, w, v):
    return varint(n << 3 | w) + (varint(v) if w == 0 else varint(len(v)) + v)
def packet(body):
    return field(1, 2, field(10, 0, 1) + body)
out = packet(field(60, 2, field(1, 0, 5) + field(2, 2, b"states")))
for i in range(200):
    te = field(9, 0, 5) + field(11, 0, 5) + field(23, 2, b"state-%d" % (i % 3))
    out += packet(field(8, 0, 1000 + i) + field(11, 2, te))
open(sys.argv[1], "wb").write(out)
PY
"$TREAD" cat -q "$tmp/state.pftrace" | grep -c '"kind":"slice_end"' > "$tmp/ends.whole"
rm -f "$tmp"/p-*
"$TREAD" split -q --max-bytes 1K "$tmp/state.pftrace" "$tmp/p" > "$tmp/list" 2> "$tmp/err"
check "TYPE_STATE: split succeeds" [ $? -eq 0 ]
n=$(wc -l < "$tmp/list")
ends=0
while read -r piece; do
    ends=$((ends + $("$TREAD" cat -q "$piece" | grep -c '"kind":"slice_end"')))
done < "$tmp/list"
lost=$(sed -n 's/^tread: left out \([0-9]*\) slice_end events: the implicit end of a TYPE_STATE state.*/\1/p' "$tmp/err")
check "TYPE_STATE: several pieces ($n), each losing one end, said ($lost)" \
    [ "$n" -gt 3 ] && [ "$lost" = $((n - 1)) ]
check "TYPE_STATE: the pieces' ends plus those said are the whole's" \
    [ $((ends + lost)) -eq "$(cat "$tmp/ends.whole")" ]
"$TREAD" split -q --strict --max-bytes 1K "$tmp/state.pftrace" "$tmp/p" > /dev/null 2>&1
check "TYPE_STATE: with --strict, an error" [ $? -eq 1 ]

# a large record whose header declares 3.8 MB, cut by the end of a
# 298-byte input (fuzz_convert found the pieces padding it out to its
# declared size): the pieces stop where the input does
python3 - "$tmp/cut.fxt" <<'PY'
import sys
open(sys.argv[1], "wb").write(bytes.fromhex(
    "1000044678541600200011000000400070726f76000000002100000000001000"
    "044678541600201011000000400070726f7673000000210000000000000000ca"
    "9a3b000000002200010003000000636174000000000000000000000000000000"
    "000000000000706f72745f706179ffffffffffffffffffff917d000000000000"
    "0000000022000200040000006e616d650000000000000000ca9a3b0000000022"
    "00010003000000636174000000000022000200040000006e616d650000000022"
    "0003000500000076616c7565000000656163652e2ed625767d094ba1731dc868"
    "276bfb0000003a5486649ad5e0d410d3b9073ffc12b57ffa91d0f3744f667472"
    "6163652e7265706f72745f706179ffffffffffffffffffff917df199877ab343"
    "08bd43e6fb816f1c4600"))
PY
rm -f "$tmp"/p-*
"$TREAD" split -q --max-bytes 256 "$tmp/cut.fxt" "$tmp/p" > "$tmp/list" 2> "$tmp/err"
check "FXT cut large record: split succeeds" [ $? -eq 0 ]
total=$(cat $(cat "$tmp/list") | wc -c)
check "FXT cut large record: pieces ($total bytes) within the input plus a header per piece" \
    [ "$total" -le $(( $(wc -c < "$tmp/cut.fxt") + 8 * $(wc -l < "$tmp/list") + 64 )) ]

# records the decoder skips define nothing: a string record whose text
# runs past its end, a thread record without room for its koids and a
# provider info record whose name runs past its end, each after the entry
# in force and followed by events that use it, each case with entries of
# its own (fuzz_convert found a piece restating such a string record in
# place of the one in force, so the piece's events lost their name)
python3 - "$tmp/skip.fxt" <<'PY'
import struct, sys
def text(b):
    return struct.unpack("<Q", b.ljust(8, b"\0"))[0]
w = [0x0016547846040010]
w += [0 | 2 << 4 | 1 << 16 | 1 << 20 | 3 << 52, text(b"one")]
w += [1 | 2 << 4, 1000000000]
for idx, name in ((5, b"first"), (6, b"second"), (7, b"third")):
    w += [2 | 2 << 4 | idx << 16 | len(name) << 32, text(name)]
for idx in (3, 4, 5):
    w += [3 | 3 << 4 | idx << 16, 1, idx]
ts = 0
def events(n, thread, name):
    global ts
    for _ in range(n):
        ts += 1
        w.extend([4 | 2 << 4 | thread << 24 | name << 48, ts])
events(30, 3, 5)
w += [2 | 2 << 4 | 5 << 16 | 100 << 32, text(b"past end")]  # string 5
events(30, 4, 5)
w += [3 | 2 << 4 | 3 << 16, 9]                                # thread 3
events(30, 3, 6)
w += [0 | 2 << 4 | 1 << 16 | 1 << 20 | 200 << 52, text(b"too long")]
events(30, 5, 7)
open(sys.argv[1], "wb").write(b"".join(struct.pack("<Q", x) for x in w))
PY
rm -f "$tmp"/p-*
"$TREAD" split -q --max-bytes 256 "$tmp/skip.fxt" "$tmp/p" > "$tmp/list" 2> "$tmp/err"
check "FXT skipped records: split succeeds" [ $? -eq 0 ]
n=$(wc -l < "$tmp/list")
check "FXT skipped records: several pieces ($n)" [ "$n" -gt 8 ]
facts='"kind":"\(metadata\|clock_sync\)"'
"$TREAD" cat -q "$tmp/skip.fxt" | grep -v "$facts" > "$tmp/a"
check "FXT skipped records: the whole's 120 events resolve, on provider one" \
    [ "$(grep -v unresolved "$tmp/a" | grep -c '"provider":"one"')" -eq 120 ]
: > "$tmp/b"
while read -r piece; do
    "$TREAD" cat -q "$piece" | grep -v "$facts" >> "$tmp/b"
done < "$tmp/list"
for c in "no skipped:first:3" "skipped string:first:4" "skipped thread:second:3" \
         "skipped provider:third:5"; do
    name=${c#*:}; tid=${name#*:}; name=${name%:*}
    check "FXT ${c%%:*} record: the pieces' $name events on thread $tid resolve" \
        [ "$(grep -v unresolved "$tmp/b" |
             grep -c "\"tid\":$tid,\"name\":\"$name\",.*\"provider\":\"one\"")" -eq 30 ]
done
check "FXT skipped records: the pieces give the events of the whole, every field, in order" \
    cmp -s "$tmp/a" "$tmp/b"

# --max-total-bytes: a breach is a clear error, not a full disk
rm -f "$tmp"/p-*
"$TREAD" split -q --max-bytes 1K --max-total-bytes 5K "$tmp/m.json" "$tmp/p" > "$tmp/list" 2> "$tmp/err"
check "--max-total-bytes: exit 1" [ $? -eq 1 ]
check "--max-total-bytes: says so" grep -q "would pass --max-total-bytes (5120 bytes)" "$tmp/err"
check "--max-total-bytes: what is left is within it" [ "$(cat $(cat "$tmp/list") | wc -c)" -le 5120 ]

[ "$failures" -eq 0 ]
