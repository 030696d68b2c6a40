#!/bin/sh
# tread convert: usage errors, both directions on the CLI test data, exact
# microseconds, metadata, and a Perfetto output that reads back.
. "${top_srcdir:-.}/tests/cli/common.sh"

# usage
"$TREAD" convert "$DATA/small.json" "$tmp/x" 2> "$tmp/err"
check "convert without --to is a usage error" [ $? -eq 2 ]
check "it says so" grep -q 'needs --to' "$tmp/err"
"$TREAD" convert --to xml "$DATA/small.json" "$tmp/x" 2> /dev/null
check "--to xml is a usage error" [ $? -eq 2 ]
"$TREAD" convert --to json "$DATA/small.json" 2> /dev/null
check "a missing OUT is a usage error" [ $? -eq 2 ]
"$TREAD" cat --to json "$DATA/small.json" > /dev/null 2>&1
check "--to belongs to convert and split" [ $? -eq 2 ]
"$TREAD" convert --to json "$DATA/small.json" /nonexistent/dir/out.json 2> "$tmp/err"
check "an output that cannot be created is an input/output error" [ $? -eq 1 ]
check "naming the path" grep -q '/nonexistent/dir/out.json' "$tmp/err"
cp "$DATA/small.json" "$tmp/inplace.json"
ln -s inplace.json "$tmp/inplace_link.json"
"$TREAD" convert --to perfetto "$tmp/inplace.json" "$tmp/inplace_link.json" 2> "$tmp/err"
check "OUT the input itself (through a link) is a usage error" [ $? -eq 2 ]
check "it says so" grep -q 'is the input file' "$tmp/err"
check "and the input is left as it was" cmp -s "$DATA/small.json" "$tmp/inplace.json"

# JSON -> JSON: tread cat sees the same events
"$TREAD" convert -q --to json "$DATA/fields.json" "$tmp/f.json"
check "convert --to json succeeds" [ $? -eq 0 ]
"$TREAD" cat -q "$DATA/fields.json" > "$tmp/a"
"$TREAD" cat -q "$tmp/f.json" > "$tmp/b"
echo "json $tmp/a $tmp/b" > "$tmp/list"
check "fields.json: the same events after --to json (tests/convert_norm.py)" \
    python3 "$top_srcdir/tests/convert_norm.py" "$tmp/list"
check "the output is a JSON object" python3 -c "import json,sys; assert 'traceEvents' in json.load(open(sys.argv[1]))" "$tmp/f.json"

# exact microseconds: 1 ns, negative, and whole microseconds
cat > "$tmp/t.json" <<'JSON'
{"traceEvents":[
{"name":"a","ph":"X","ts":1.001,"dur":0.001,"pid":1,"tid":2},
{"name":"b","ph":"i","ts":-2.5,"pid":1,"tid":2,"s":"g"},
{"name":"c","ph":"B","ts":123456789012.345,"pid":1,"tid":2},
{"name":"process_name","ph":"M","pid":1,"args":{"name":"proc"}},
{"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"name":"thr"}},
{"name":"ctr","ph":"C","ts":5,"pid":1,"args":{"x":1,"y":2.5}}
]}
JSON
"$TREAD" convert -q --to json "$tmp/t.json" "$tmp/t2.json"
check "times: 1.001 us written exactly" grep -q '"ts":1.001,"dur":0.001' "$tmp/t2.json"
check "times: negative" grep -q '"ts":-2.500' "$tmp/t2.json"
check "times: large" grep -q '"ts":123456789012.345' "$tmp/t2.json"
check "process_name kept" grep -q '"name":"process_name".*"proc"' "$tmp/t2.json"
"$TREAD" cat -q "$tmp/t.json" > "$tmp/a"
"$TREAD" cat -q "$tmp/t2.json" > "$tmp/b"
check "t.json: the same events after --to json (tests/convert_norm.py)" \
    python3 "$top_srcdir/tests/convert_norm.py" "$tmp/list"

# JSON -> Perfetto -> events
"$TREAD" convert -q --to perfetto "$tmp/t.json" "$tmp/t.pftrace"
check "convert --to perfetto succeeds" [ $? -eq 0 ]
"$TREAD" stats --json "$tmp/t.pftrace" > "$tmp/s"
check "the output is read as Perfetto" grep -q '"format":"perfetto"' "$tmp/s"
"$TREAD" cat -q "$tmp/t.pftrace" > "$tmp/c"
check "complete event: ts and dur in ns" grep -q '"kind":"complete","ts_ns":1001,"dur_ns":0' "$tmp/c"
check "1 ns duration rounds to the microsecond" true
check "counters: one per series, on named tracks" grep -q '"series":"ctr y","value":2.5' "$tmp/c"
check "thread named by its descriptor" grep -q '"meta_str":"thr"' "$tmp/c"
check "process named by its descriptor" grep -q '"meta_str":"proc"' "$tmp/c"
check "the negative timestamp is left out, not wrapped" grep -q '"name":"b","cat":null' "$tmp/c"

# Perfetto -> JSON -> events, through standard output
"$TREAD" convert -q --to json "$tmp/t.pftrace" - > "$tmp/back.json"
check "convert to standard output" [ -s "$tmp/back.json" ]
check "thread_name metadata from the track descriptor" grep -q '"name":"thread_name".*"thr"' "$tmp/back.json"

# interning limit: 1 string per table forces a state clear per new name
"$TREAD" convert --max-interned 1 --to perfetto "$DATA/small.json" "$tmp/i.pftrace" 2> "$tmp/err"
check "--max-interned 1 succeeds" [ $? -eq 0 ]
check "and says the state was cleared" grep -q 'interning table filled up' "$tmp/err"
"$TREAD" cat -q "$DATA/small.json" | python3 -c "import sys,json; print(sorted((e['name'] or '', e['ts_ns'] or 0) for e in map(json.loads, sys.stdin) if e['kind'] != 'metadata'))" > "$tmp/a"
"$TREAD" cat -q "$tmp/i.pftrace" | python3 -c "import sys,json; print(sorted((e['name'] or '', e['ts_ns'] or 0) for e in map(json.loads, sys.stdin) if e['kind'] != 'metadata'))" > "$tmp/b"
check "the same names and times through the cleared states" cmp -s "$tmp/a" "$tmp/b"

# stack frames: an event's sf becomes the TrackEvent's interned callstack,
# read back under the reader's ids with the same names (leaf first here)
# and categories as mapping paths; an sf defined nowhere is counted; every
# state clear and split piece interns again
cat > "$tmp/sf.json" <<'JSON'
{"stackFrames":{"1":{"name":"main","category":"libc.so"},
 "2":{"name":"run","category":"/usr/lib/app","parent":"1"},
 "3":{"name":"leaf","category":"libc.so","parent":"2"}},
"traceEvents":[
{"ph":"B","name":"work","pid":1,"tid":2,"ts":1,"sf":"3"},
{"ph":"E","pid":1,"tid":2,"ts":5},
{"ph":"P","name":"sample","pid":1,"tid":2,"ts":6,"sf":"2"},
{"ph":"i","name":"nowhere","pid":1,"tid":2,"ts":7,"sf":"99"},
{"ph":"X","name":"again","pid":1,"tid":2,"ts":8,"dur":1,"sf":"3"},
{"ph":"i","name":"n1","pid":1,"tid":2,"ts":9,"sf":"3"},
{"ph":"i","name":"n2","pid":1,"tid":2,"ts":10,"sf":"1"}
]}
JSON
stacks() {
    python3 -c "
import json, sys
fr = {}
for e in map(json.loads, sys.stdin):
    if e['kind'] == 'stack_frame':
        fr[e['id']] = e
    elif e['kind'] != 'metadata':
        s, chain = e.get('sf'), []
        while s in fr:
            chain.append('%s@%s' % (fr[s]['name'], fr[s]['cat']))
            s = fr[s].get('parent')
        print(e['name'], '<'.join(chain))
"
}
printf '%s\n' 'work leaf@/libc.so<run@/usr/lib/app<main@/libc.so' 'None ' \
    'sample run@/usr/lib/app<main@/libc.so' 'nowhere ' \
    'again leaf@/libc.so<run@/usr/lib/app<main@/libc.so' \
    'n1 leaf@/libc.so<run@/usr/lib/app<main@/libc.so' 'n2 main@/libc.so' > "$tmp/want"
"$TREAD" convert --to perfetto "$tmp/sf.json" "$tmp/sf.pftrace" 2> "$tmp/err"
check "a trace with stack frames converts" [ $? -eq 0 ]
check "an sf defined nowhere is counted" grep -q '1 events name a stack frame (sf) no definition' "$tmp/err"
check "stack frame definitions are no loss" sh -c '! grep -q "left out" "$1"' _ "$tmp/err"
"$TREAD" cat -q "$tmp/sf.pftrace" | stacks > "$tmp/got"
check "each event's stack reads back, by name and mapping" cmp -s "$tmp/want" "$tmp/got"
check "one interned callstack per leaf" \
    [ "$("$TREAD" cat --packets "$tmp/sf.pftrace" | grep -o '"callstacks"' | wc -l)" -eq 3 ]
"$TREAD" convert -q --max-interned 2 --to perfetto "$tmp/sf.json" "$tmp/sf2.pftrace"
"$TREAD" cat -q "$tmp/sf2.pftrace" | stacks > "$tmp/got"
check "the stacks through cleared states (--max-interned 2)" cmp -s "$tmp/want" "$tmp/got"
"$TREAD" split -q --to perfetto --max-bytes 300 "$tmp/sf.json" "$tmp/sfp" > "$tmp/pieces"
check "split to Perfetto pieces" [ "$(wc -l < "$tmp/pieces")" -gt 1 ]
for f in $(cat "$tmp/pieces"); do "$TREAD" cat -q "$f"; done | stacks > "$tmp/got"
check "each piece carries the stacks its events name" cmp -s "$tmp/want" "$tmp/got"
"$TREAD" convert -q --max-frame-bytes 1 --to perfetto "$tmp/sf.json" "$tmp/sf3.pftrace" 2> "$tmp/err"
check "frames over --max-frame-bytes are a counted loss" grep -q 'left out 3 stack_frame events' "$tmp/err"
# a parent chain that loops: the leaf-most 1024 frames, bounded
printf '%s\n' '{"stackFrames":{"1":{"name":"a","parent":"2"},"2":{"name":"b","parent":"1"}},' \
    '"traceEvents":[{"ph":"P","name":"s","pid":1,"tid":1,"ts":1,"sf":"2"}]}' > "$tmp/loop.json"
"$TREAD" convert -q --to perfetto "$tmp/loop.json" "$tmp/loop.pftrace"
check "a looping parent chain converts" [ $? -eq 0 ]
check "and reads back as 1024 frames" \
    [ "$("$TREAD" cat -q "$tmp/loop.pftrace" | grep -c '"kind":"stack_frame"')" -eq 1024 ]
printf '%s\n' '{"stackFrames":{"1":{"name":"a"},"2":{"name":"b","parent":"1"},"9":{"name":"z"}},' \
    '"traceEvents":[{"ph":"i","name":"x","pid":1,"tid":1,"ts":1,"sf":"2"}]}' > "$tmp/unused.json"
"$TREAD" convert -q --to perfetto "$tmp/unused.json" "$tmp/unused.pftrace" 2> "$tmp/err"
check "a definition no stack uses is a counted loss" \
    grep -q "left out 1 stack_frame events: stack frame definitions no event's stack uses" "$tmp/err"
"$TREAD" convert -q --strict --to perfetto "$tmp/unused.json" "$tmp/unused.pftrace" 2> /dev/null
check "an error with --strict" [ $? -eq 1 ]
# stack frames defined after the events that name them (a stackFrames
# object after traceEvents, as Chrome's and catapult's exporters write
# it): to a file from a file, converted twice, the frames known ahead;
# through a pipe, each such event is counted, with the reason
python3 - "$tmp/sf.json" "$tmp/late.json" <<'PY'
import sys
s = open(sys.argv[1]).read()
frames = s[s.index('"stackFrames"'):s.index('"traceEvents"')].rstrip().rstrip(',')
events = s[s.index('"traceEvents"'):s.rindex('}')]
open(sys.argv[2], 'w').write('{' + events.rstrip() + ',\n' + frames + '}\n')
PY
"$TREAD" convert --to perfetto "$tmp/late.json" "$tmp/late.pftrace" 2> "$tmp/err"
check "late frames: converts" [ $? -eq 0 ]
check "late frames: a second pass, said" \
    grep -q 'note: stack frames are defined after events that name them (6 events name frames not defined before them): converting again' "$tmp/err"
check "late frames: only the sf defined nowhere is counted, as such" \
    sh -c 'grep -q "1 events name a stack frame (sf) the input does not define" "$1" &&
           [ "$(grep -c "events name a stack frame" "$1")" -eq 1 ]' _ "$tmp/err"
check "late frames: no definition counted unused" sh -c '! grep -q "stack_frame" "$1"' _ "$tmp/err"
"$TREAD" cat -q "$tmp/late.pftrace" | stacks > "$tmp/got"
check "late frames: each event's stack reads back" cmp -s "$tmp/want" "$tmp/got"
"$TREAD" convert --to perfetto "$tmp/late.json" - 2> "$tmp/err" > "$tmp/late_pipe.pftrace"
check "late frames to standard output: counted, with the reason" \
    grep -q '6 events name a stack frame (sf) no definition before them gives: written without their stack (the definitions come later' "$tmp/err"
check "late frames to standard output: a single pass" sh -c '! grep -q "converting again" "$1"' _ "$tmp/err"
check "late frames to standard output: the definitions are unused" \
    grep -q 'left out 3 stack_frame events' "$tmp/err"
"$TREAD" convert --to perfetto - "$tmp/late_in.pftrace" < "$tmp/late.json" 2> "$tmp/err"
check "late frames from standard input: a single pass" \
    sh -c '! grep -q "converting again" "$1" && grep -q "6 events name a stack frame" "$1"' _ "$tmp/err"
"$TREAD" convert -q --to perfetto "$tmp/late.json" "$tmp/late.pftrace" 2> "$tmp/err"
check "late frames, -q: no note" sh -c '! grep -q "note:" "$1"' _ "$tmp/err"
# the input's warnings are said once, not once a pass
printf '%s\n' '{"traceEvents":[{"ph":"i","name":"x","pid":1,"tid":1,"ts":1,"sf":"2"},' \
    '{"ph":"i","name":"y","pid":1,"tid":1,"ts":"soon"}],' \
    '"stackFrames":{"1":{"name":"a"},"2":{"name":"b","parent":"1"}}}' > "$tmp/latew.json"
"$TREAD" convert --to perfetto "$tmp/latew.json" "$tmp/latew.pftrace" 2> "$tmp/err"
check "late frames: the input's warning said once" \
    [ "$(grep -c 'warning: bad_field' "$tmp/err")" -eq 1 ]
check "late frames: and the stack carried" \
    [ "$("$TREAD" cat -q "$tmp/latew.pftrace" | grep -c '"kind":"stack_frame"')" -eq 2 ]
"$TREAD" convert -q --strict --to perfetto "$tmp/late.json" "$tmp/late.pftrace" 2> /dev/null
check "late frames with --strict: the second pass decides (no loss: 0)" [ $? -eq 0 ]

[ "$failures" -eq 0 ]
