#!/bin/sh
# The containers of ../shared/corpus/ftrace (systrace HTML, ctrace, JSON
# with a systemTraceEvents string):
#  1. what tread reads from each against its reviewed golden file in
#     tests/corpus/systrace/ (events by kind, warnings by kind);
#  2. each container that wraps a plain text file of the corpus (README.md,
#     "generated/" and the catapult ctrace) gives the same events by kind as
#     that text file read alone: the container adds nothing, loses nothing;
#  3. the event lines manifest.json counts in each container's blocks all
#     become events (one per line; atrace clock_sync lines included), for
#     the blocks whose lines each give exactly one event (sched_switch,
#     sched_wakeup*, atrace B/E/C/S/F/I/N, the old "0:" marker name).
# To review a change: TREAD_UPDATE_GOLDEN=1 make check TESTS=tests/corpus/systrace_corpus.sh
. "${top_srcdir:-.}/tests/corpus/common.sh"
F="$CORPUS/ftrace"
counts="$top_builddir/tests/corpus/corpus_counts"
fail=0
n=0
files=$(cd "$F" && ls catapult/*.html trappy/*.html generated/*.html generated/*.ctrace \
        catapult/compressed_atrace_data.txt generated/gen_systemTraceEvents.json 2>/dev/null)
for rel in $files; do
    golden="$top_srcdir/tests/corpus/systrace/$rel.expected"
    got=$("$counts" "$F/$rel") || { echo "FAIL $rel: runner failed"; fail=1; continue; }
    n=$((n + 1))
    if [ -n "$TREAD_UPDATE_GOLDEN" ]; then
        mkdir -p "$(dirname "$golden")"
        printf '%s\n' "$got" > "$golden"
        continue
    fi
    if [ ! -f "$golden" ]; then
        echo "FAIL $rel: no golden file $golden"
        fail=1
    elif printf '%s\n' "$got" | diff -u "$golden" - ; then
        echo "ok $rel"
    else
        echo "FAIL $rel"
        fail=1
    fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no container files found in $F"; exit 1; }

# 2. container == the text it wraps (events by kind)
kinds() { "$counts" "$1" | grep '^kind '; }
same() { # container text [extra kinds the container adds]
    a=$(kinds "$F/$1")
    b=$( (kinds "$F/$2"; [ -n "$3" ] && printf '%s\n' "$3") | awk '{c[$2]+=$3} END {for (k in c) print "kind", k, c[k]}' | sort)
    a=$(printf '%s\n' "$a" | sort)
    if [ "$a" = "$b" ]; then
        echo "ok $1 = $2"
    else
        echo "FAIL $1 != $2"; printf '%s\n--\n%s\n' "$a" "$b"; fail=1
    fi
}
same generated/gen_nop_notgid_noirq.ctrace generated/gen_nop_notgid_noirq.txt
same catapult/compressed_atrace_data.txt catapult/decompressed_atrace_data.txt
same generated/gen_trace2html_viewer_data.html generated/gen_small_tgid_irq.txt
# the JSON wrapper adds its own: traceEvents M and X, and the "metadata" key
same generated/gen_systemTraceEvents.json generated/gen_small_tgid_irq.txt \
    "kind metadata 2
kind complete 1"

# 3. manifest event lines = events, where each line gives one event
if command -v python3 >/dev/null 2>&1; then
    for rel in catapult/android_systrace.html catapult/counter_tracks.html \
               catapult/trivial_systrace.html; do
        want=$(python3 -c "
import json, sys
m = {e['file']: e for e in json.load(open(sys.argv[1]))}
print(sum(b['line_kinds'].get('event', 0) for b in m[sys.argv[2]]['blocks']))" "$F/manifest.json" "$rel")
        got=$("$counts" "$F/$rel" | sed -n 's/^events //p')
        if [ "$want" = "$got" ]; then
            echo "ok $rel: $got events = manifest event lines"
        else
            echo "FAIL $rel: $got events, manifest counts $want event lines"; fail=1
        fi
    done
fi
exit $fail
