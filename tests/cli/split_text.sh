#!/bin/sh
# tread split of ftrace text and systrace containers (doc/convert.md):
# ftrace text splits into ftrace text pieces, its header then whole lines
# copied byte for byte; a container's ftrace blocks likewise, its other
# events into JSON pieces. The pieces read one after another give the
# events of the whole, every field, in order (repeated header facts
# aside); sizes, straddling and oversize lines, CRLF, no final newline,
# lines the decoder skips, lines too long to hold, the total guard.
. "${top_srcdir:-.}/tests/cli/common.sh"

# events of FILE (or of the pieces listed in FILE.list), offsets dropped,
# repeated num_cpus facts dropped
events() {
    python3 -c '
import json, sys
seen = None
for l in sys.stdin:
    e = json.loads(l)
    e.pop("offset", None)
    if e.get("kind") == "metadata" and e.get("name") == "num_cpus":
        if e == seen:
            continue
        seen = e
    print(json.dumps(e, sort_keys=True))'
}
whole() { "$TREAD" cat -q "$1" | events; }
pieces() { while read -r p; do "$TREAD" cat -q "$p"; done < "$1" | events; }
# split_ok NAME FILE MAXBYTES: the pieces' events equal the file's, every
# piece within MAXBYTES unless it holds one line (with the header)
split_ok() {
    rm -f "$tmp"/p-*
    "$TREAD" split -q --max-bytes "$3" "$2" "$tmp/p" > "$tmp/list" 2> "$tmp/err"
    check "$1: split exits 0" [ $? -eq 0 ]
    whole "$2" > "$tmp/a"
    pieces "$tmp/list" > "$tmp/b"
    check "$1: the pieces give the events of the whole, in order" cmp -s "$tmp/a" "$tmp/b"
    over=0 max=$(echo "$3" | sed 's/K$/*1024/')
    max=$(($max))
    while read -r p; do
        if [ "$(wc -c < "$p")" -gt "$max" ]; then
            # oversize: the piece holds one line after its header
            n=$(grep -vc '^#\|^cpus=\|^version = \|^$' "$p")
            [ "$n" -le 1 ] || over=1
        fi
    done < "$tmp/list"
    check "$1: every piece within --max-bytes unless it holds one line" [ $over -eq 0 ]
}

# --- kernel trace layout: header, events of every kind, bad lines ------
python3 - "$tmp/k.txt" <<'PY'
import sys
hdr = ("# tracer: nop\n#\n# entries-in-buffer/entries-written: 400/400   #P:4\n#\n"
       "#           TASK-PID     CPU#  ||||  TIMESTAMP  FUNCTION\n"
       "#              | |         |   ||||     |         |\n")
out = [hdr]
for i in range(400):
    ts = "%d.%06d" % (100 + i // 1000, i % 1000 * 7)
    k = i % 7
    if k == 0:
        out.append("          bash-%d   [001] d..2  %s: sched_switch: prev_comm=bash prev_pid=%d prev_prio=120 prev_state=S ==> next_comm=sh next_pid=%d next_prio=120\n" % (10 + i, ts, 10 + i, 20 + i))
    elif k == 1:
        out.append("          bash-%d   [002] d..2  %s: sched_wakeup: comm=sh pid=%d prio=120 target_cpu=003\n" % (10 + i, ts, 20 + i))
    elif k == 2:
        out.append("   surfaceflinger-598   [004] ....  %s: tracing_mark_write: B|598|frame %d\n" % (ts, i))
    elif k == 3:
        out.append("   surfaceflinger-598   [004] ....  %s: tracing_mark_write: E|598\n" % ts)
    elif k == 4:
        out.append("          <idle>-0     [000] d..2  %s: cpu_idle: state=%d cpu_id=0\n" % (ts, i))
    elif k == 5:
        out.append("a continuation line the decoder does not understand %d\n" % i)
    else:
        out.append("          bash-%d   [003] ....  %s: task_rename: pid=%d oldcomm=a newcomm=b%d oom_score_adj=0\n" % (10 + i, ts, 10 + i, i))
open(sys.argv[1], "w").write("".join(out))
PY
for sz in 256 1K 4K; do
    split_ok "kernel layout at $sz" "$tmp/k.txt" $sz
done
rm -f "$tmp"/p-*
"$TREAD" split -q --max-bytes 1K "$tmp/k.txt" "$tmp/p" > "$tmp/list"
check "ftrace input: ftrace text pieces (.txt)" grep -q '\.txt$' "$tmp/list"
check "ftrace input: no JSON piece" sh -c "! grep -q '\.json$' '$tmp/list'"
ok=1
while read -r p; do [ "$(head -n 6 "$p")" = "$(head -n 6 "$tmp/k.txt")" ] || ok=0; done < "$tmp/list"
check "every piece starts with the input's header lines" [ $ok -eq 1 ]
# the lines after the headers, concatenated, are the input's lines
while read -r p; do tail -n +7 "$p"; done < "$tmp/list" > "$tmp/body"
tail -n +7 "$tmp/k.txt" > "$tmp/kbody"
check "the pieces' lines are the input's, byte for byte, in order" cmp -s "$tmp/kbody" "$tmp/body"
check "the lines the decoder skips are copied too" [ "$(grep -c 'continuation line' "$tmp/body")" -eq 57 ]

# --- a line straddling the limit goes whole into the next piece ---------
python3 - "$tmp/s.txt" <<'PY'
import sys
l = lambda i, pad: "          bash-1   [000] ....  1.%06d: print: %s\n" % (i, "y" * pad)
# header 14 bytes, then lines of 100 bytes: the third ends past 256
open(sys.argv[1], "w").write("# tracer: nop\n" + "".join(l(i, 100 - len(l(i, 0))) for i in range(9)))
PY
rm -f "$tmp"/p-*
"$TREAD" split -q --max-bytes 256 "$tmp/s.txt" "$tmp/p" > "$tmp/list"
check "straddling line: 2 lines a piece (14 + 2 x 100 <= 256 < 14 + 3 x 100)" \
    [ "$(wc -l < "$tmp/list")" -eq 5 ] && [ "$(wc -c < "$tmp/p-00000.txt")" -eq 214 ]
split_ok "straddling lines" "$tmp/s.txt" 256

# --- one line longer than --max-bytes: a piece of its own, a warning ----
python3 - "$tmp/l.txt" <<'PY'
import sys
l = lambda i, p: "          bash-1   [000] ....  1.%06d: print: %s\n" % (i, p)
open(sys.argv[1], "w").write("# tracer: nop\n" + l(1, "a") + l(2, "z" * 2000) + l(3, "b"))
PY
rm -f "$tmp"/p-*
"$TREAD" split -q --max-bytes 256 "$tmp/l.txt" "$tmp/p" > "$tmp/list" 2> "$tmp/err"
check "a line over --max-bytes: a warning even with -q" grep -q "1 pieces are larger than --max-bytes" "$tmp/err"
check "a line over --max-bytes: its own piece" [ "$(wc -l < "$tmp/list")" -eq 3 ]
split_ok "oversize line" "$tmp/l.txt" 256

# --- CRLF and no final newline: copied as they are ----------------------
printf '# tracer: nop\r\n#\r\n' > "$tmp/c.txt"
i=0
while [ $i -lt 30 ]; do
    printf '          bash-%d   [000] ....  2.%06d: sched_wakeup: comm=sh pid=%d prio=120 target_cpu=001\r\n' $i $i $i >> "$tmp/c.txt"
    i=$((i + 1))
done
printf '          bash-99   [000] ....  3.000000: sched_wakeup: comm=sh pid=99 prio=120 target_cpu=001' >> "$tmp/c.txt"
split_ok "CRLF, no final newline" "$tmp/c.txt" 512
while read -r p; do tail -n +3 "$p"; done < "$tmp/list" > "$tmp/body"
tail -n +3 "$tmp/c.txt" > "$tmp/cbody"
check "CRLF, no final newline: byte for byte" cmp -s "$tmp/cbody" "$tmp/body"
check "no final newline: the last piece ends without one" \
    [ "$(tail -c 1 "$(tail -n 1 "$tmp/list")" | od -An -c | tr -d ' ')" = "1" ]

# --- trace-cmd report: version, CPU N is empty, cpus=N in every piece ---
python3 - "$tmp/r.txt" <<'PY'
import sys
out = ["version = 6\n", "CPU 1 is empty\n", "cpus=4\n"]
for i in range(60):
    out.append("          bash-%d  [000]  5.%06d: sched_waking:         comm=sh pid=%d prio=120 target_cpu=002\n" % (i, i, i))
open(sys.argv[1], "w").write("".join(out))
PY
split_ok "trace-cmd report" "$tmp/r.txt" 1K
ok=1
while read -r p; do [ "$(head -n 3 "$p")" = "$(head -n 3 "$tmp/r.txt")" ] || ok=0; done < "$tmp/list"
check "trace-cmd report: every piece starts with version, CPU empty, cpus=4" [ $ok -eq 1 ]

# --- no header (trace_pipe): a piece whose first line would not read as
# ftrace starts with '# tracer' ------------------------------------------
python3 - "$tmp/n.txt" <<'PY'
import sys
ev = lambda i: "  bash-%d [000] ....  7.%06d: sched_waking: comm=x pid=%d prio=120 target_cpu=000 %s\n" % (i, i, i, "x" * 150)
open(sys.argv[1], "w").write("".join(ev(i) + "junk that is no ftrace line %d\n" % i for i in range(10)))
PY
rm -f "$tmp"/p-*
"$TREAD" split --max-bytes 256 "$tmp/n.txt" "$tmp/p" > "$tmp/list" 2> "$tmp/err"
check "no header: pieces that start with junk get '# tracer', said" grep -q "pieces start with a '# tracer' line" "$tmp/err"
ok=1
while read -r p; do "$TREAD" stats --json "$p" 2>/dev/null | grep -q '"format": *"ftrace"' || ok=0; done < "$tmp/list"
check "no header: every piece reads as ftrace" [ $ok -eq 1 ]
split_ok "no header" "$tmp/n.txt" 256

# --- a ctrace marker ("TRACE:" then a line starting with a zlib header)
# among the lines: a piece starting near it must still read as ftrace
# (fuzz_convert's finding: the sniffer took such a piece of a trace-cmd
# report text for ctrace). Short headers and lines put the marker in the
# sniffer's first 128 bytes of some piece at every piece size below. ----
python3 - "$tmp/m.txt" "$tmp/mb.txt" <<'PY'
import sys
ev = lambda i: "  bash-%d [000]  5.%06d: sched_waking: comm=sh pid=%d\n" % (i, i, i)
body = "".join(ev(i) + ("TRACE:\nx^ not zlib %d\n" % i if i % 3 == 2 else "") for i in range(40))
open(sys.argv[1], "w").write("version = 6\ncpus=4\n" + body)
open(sys.argv[2], "w").write(body)
PY
for f in m mb; do
    for sz in 256 300 400 512; do
        rm -f "$tmp"/p-*
        "$TREAD" split -q --max-bytes $sz "$tmp/$f.txt" "$tmp/p" > "$tmp/list" 2> "$tmp/err"
        ok=1
        while read -r p; do "$TREAD" stats --json "$p" 2>/dev/null | grep -q '"format": *"ftrace"' || ok=0; done < "$tmp/list"
        check "ctrace marker in the lines ($f, $sz): every piece reads as ftrace" [ $ok -eq 1 ]
        split_ok "ctrace marker in the lines ($f, $sz)" "$tmp/$f.txt" $sz
    done
done
rm -f "$tmp"/p-*
"$TREAD" split -q --max-bytes 300 "$tmp/m.txt" "$tmp/p" > "$tmp/list"
ok=1
while read -r p; do [ "$(head -n 1 "$p")" = "version = 6" ] || ok=0; done < "$tmp/list"
check "ctrace marker: a trace-cmd report text's pieces need no '# tracer' line" [ $ok -eq 1 ]

# --- a line longer than --max-line-bytes: counted as a loss, --strict ---
python3 - "$tmp/t.txt" <<'PY'
import sys
l = lambda i, p: "          bash-1   [000] ....  1.%06d: print: %s\n" % (i, p)
open(sys.argv[1], "w").write("# tracer: nop\n" + l(1, "a") + l(2, "z" * 5000) + l(3, "b"))
PY
rm -f "$tmp"/p-*
"$TREAD" split -q --max-line-bytes 1024 --max-bytes 1K "$tmp/t.txt" "$tmp/p" > "$tmp/list" 2> "$tmp/err"
check "a line too long to hold: counted even with -q" grep -q "left out 1 ftrace lines: longer than --max-line-bytes" "$tmp/err"
"$TREAD" split -q --strict --max-line-bytes 1024 --max-bytes 1K "$tmp/t.txt" "$tmp/p" > /dev/null 2> "$tmp/err"
check "a line too long to hold: --strict fails (3: the decoder's warning)" [ $? -eq 3 ]

# --- the total guard ----------------------------------------------------
rm -f "$tmp"/p-*
"$TREAD" split -q --max-bytes 1K --max-total-bytes 5K "$tmp/k.txt" "$tmp/p" > "$tmp/list" 2> "$tmp/err"
check "--max-total-bytes: exit 1" [ $? -eq 1 ]
check "--max-total-bytes: says so" grep -q "would pass --max-total-bytes (5120 bytes)" "$tmp/err"
check "--max-total-bytes: what is left is within it" [ "$(cat $(cat "$tmp/list") | wc -c)" -le 5120 ]

# --- systrace HTML: ftrace blocks into ftrace pieces, a JSON block and a
# process dump into JSON pieces -----------------------------------------
python3 - "$tmp/h.html" "$tmp/k.txt" <<'PY'
import sys, json
ft = open(sys.argv[2]).read()
js = json.dumps({"traceEvents": [{"ph": "X", "name": "s%d" % i, "ts": i, "dur": 1,
                                  "pid": 598, "tid": 598} for i in range(40)]})
dump = ("PROCESS DUMP\nUSER PID PPID VSZ RSS WCHAN ADDR S NAME COMM\n"
        "root 598 1 10 20 0 0 S surfaceflinger surfaceflinger\n"
        "USER PID TID CMD\nroot 598 598 surfaceflinger\n")
html = ("<!DOCTYPE html>\n<html>\n<head></head><body>\n"
        '<script class="trace-data" type="application/text">\n' + dump + "</script>\n"
        '<script class="trace-data" type="application/text">\n' + ft + "</script>\n"
        '<script class="trace-data" type="application/text">\n' + js + "\n</script>\n"
        "</body>\n</html>\n")
open(sys.argv[1], "w").write(html)
PY
rm -f "$tmp"/p-*
"$TREAD" split -q --max-bytes 2K "$tmp/h.html" "$tmp/p" > "$tmp/list" 2> "$tmp/err"
check "systrace HTML: split exits 0" [ $? -eq 0 ]
check "systrace HTML: ftrace pieces" grep -q '\.txt$' "$tmp/list"
check "systrace HTML: JSON pieces for the JSON block and the dump" grep -q '\.json$' "$tmp/list"
grep '\.txt$' "$tmp/list" > "$tmp/tlist"
pieces "$tmp/tlist" > "$tmp/b"
check "systrace HTML: the same ftrace events as the text alone" sh -c "'$TREAD' cat -q '$tmp/k.txt' | python3 -c '
import json, sys
for l in sys.stdin:
    e = json.loads(l); e.pop(\"offset\", None); print(json.dumps(e, sort_keys=True))' | cmp -s - '$tmp/b'"
grep '\.json$' "$tmp/list" > "$tmp/jlist"
while read -r p; do "$TREAD" cat -q "$p"; done < "$tmp/jlist" > "$tmp/j"
check "systrace HTML: one numbering for both kinds of pieces (no two share a number)" \
    [ "$(sed 's/.*-//; s/\..*//' "$tmp/list" | sort -u | wc -l)" -eq "$(wc -l < "$tmp/list")" ]
check "systrace HTML: the JSON block's 40 slices are in the JSON pieces" [ "$(grep -c '"kind":"complete"' "$tmp/j")" -eq 40 ]
check "systrace HTML: the process dump's names are in the JSON pieces" \
    sh -c "grep -q '\"meta_str\":\"surfaceflinger\"' '$tmp/j' && grep '\"kind\":\"metadata\"' '$tmp/j' | grep -q '\"tid\":598'"

# an oversize line in a container with JSON pieces too: still said
python3 - "$tmp/o.html" "$tmp/l.txt" <<'PY'
import sys, json
js = json.dumps({"traceEvents": [{"ph": "X", "name": "s", "ts": 1, "dur": 1, "pid": 1, "tid": 1}]})
open(sys.argv[1], "w").write('<!DOCTYPE html>\n<html><body>\n<script class="trace-data" type="application/text">\n'
    + js + '\n</script>\n<script class="trace-data" type="application/text">\n'
    + open(sys.argv[2]).read() + '</script>\n</body></html>\n')
PY
rm -f "$tmp"/p-*
"$TREAD" split -q --max-bytes 256 "$tmp/o.html" "$tmp/p" > "$tmp/list" 2> "$tmp/err"
check "systrace HTML with JSON pieces: an oversize text line is said" grep -q "1 pieces are larger than --max-bytes" "$tmp/err"
check "systrace HTML whose first block is JSON: its text still in .txt pieces" grep -q '\.txt$' "$tmp/list"

# --- compressed containers: ctrace and base64+zlib blocks, inflated -----
python3 - "$tmp/x.ctrace" "$tmp/z.html" "$tmp/k.txt" <<'PY'
import sys, zlib, base64
ft = open(sys.argv[3], "rb").read()
open(sys.argv[1], "wb").write(b"capturing trace... done\nTRACE:\n" + zlib.compress(ft))
b64 = base64.b64encode(zlib.compress(ft)).decode()
open(sys.argv[2], "w").write('<!DOCTYPE html>\n<html><body>\n<script class="trace-data" type="application/text">\n'
                            + "\n".join(b64[i:i + 76] for i in range(0, len(b64), 76)) + "\n</script>\n</body></html>\n")
PY
for f in x.ctrace z.html; do
    for sz in 256 2K; do
        split_ok "$f at $sz" "$tmp/$f" $sz
    done
    rm -f "$tmp"/p-*
    "$TREAD" split -q --max-bytes 2K "$tmp/$f" "$tmp/p" > "$tmp/list"
    while read -r p; do tail -n +7 "$p"; done < "$tmp/list" > "$tmp/body"
    check "$f: the inflated text's lines, byte for byte" cmp -s "$tmp/kbody" "$tmp/body"
done

# --- --to json keeps converting -----------------------------------------
rm -f "$tmp"/p-*
"$TREAD" split -q --to json --max-bytes 4K "$tmp/k.txt" "$tmp/p" > "$tmp/list"
check "--to json: JSON pieces" sh -c "grep -q '\.json$' '$tmp/list' && ! grep -q '\.txt$' '$tmp/list'"

[ "$failures" -eq 0 ]
