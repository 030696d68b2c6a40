#!/bin/sh
# V8 CPU profiles in Perfetto traces (Chrome's legacy Profile and
# ProfileChunk TrackEvents) against an independent reading: every stack
# frame (id, parent, function name) and sample (time, pid, tid, frame)
# `tread cat` delivers for them equals, in order, what
# tests/corpus/perfetto_v8_oracle.py reads from the protobuf and the JSON
# inside it. The project's own Chrome recording always
# (tests/data/chrome_v8_profile.pftrace.gz, tests/data/README); every
# corpus trace holding such records when ../shared is there (said when it
# is not). And split pieces of that recording, checked against it.
top_srcdir="${top_srcdir:-.}"
top_builddir="${top_builddir:-.}"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
oracle="$top_srcdir/tests/corpus/perfetto_v8_oracle.py"
files="$top_srcdir/tests/data/chrome_v8_profile.pftrace.gz"
CORPUS="${TREAD_CORPUS:-$top_srcdir/../shared/corpus}"
if [ -d "$CORPUS/perfetto" ]; then
    # the traces whose oracle finds records (one process reads them all)
    files="$files $(find "$CORPUS/perfetto" -type f \( -name '*.pb' -o -name '*.pftrace*' \
                       -o -name '*.perfetto-trace' \) | sort |
                   xargs python3 "$oracle" --with-v8)"
else
    echo "note: corpus not found at $CORPUS: only the project's recording is checked"
fi
fail=0
tmp=${TMPDIR:-/tmp}/tread_pfv8.$$
trap 'rm -f "$tmp".*' EXIT
for f in $files; do
    python3 "$oracle" "$f" >"$tmp.want" || { echo "FAIL $f: the oracle failed"; fail=1; continue; }
    "$top_builddir/tools/tread" -q cat "$f" 2>/dev/null | python3 "$oracle" --tread >"$tmp.got" ||
        { echo "FAIL $f: tread cat failed"; fail=1; continue; }
    n=$(grep -c '^sample' "$tmp.want")
    fr=$(grep -c '^frame' "$tmp.want")
    if [ "$n" -eq 0 ] || [ "$fr" -eq 0 ]; then
        echo "FAIL $f: no frames or samples expected: the test would prove nothing"
        fail=1
    elif diff -u "$tmp.want" "$tmp.got" >"$tmp.diff"; then
        echo "ok $f ($fr frames, $n samples)"
    else
        head -40 "$tmp.diff"
        echo "FAIL $f"
        fail=1
    fi
done
# split: the bundled recording (trace clock MONOTONIC, as Chrome's) at
# two piece sizes, every piece checked by split_pf_verify; the running
# times are restated, so nothing is counted as lost
if command -v gzip >/dev/null 2>&1; then
    gzip -dc "$top_srcdir/tests/data/chrome_v8_profile.pftrace.gz" >"$tmp.pf"
    for size in 20000 100000; do
        if ! "$top_builddir/tests/split/split_pf_drive" $size "$tmp.pf" "$tmp.piece" \
                >"$tmp.split" 2>&1; then
            tail -20 "$tmp.split"; echo "FAIL split at $size"; fail=1
        elif grep -q "V8 profile records" "$tmp.split"; then
            grep "V8 profile records" "$tmp.split"; echo "FAIL split at $size: counted"; fail=1
        else
            echo "ok split at $size ($(grep -c piece "$tmp.split") pieces)"
        fi
        rm -f "$tmp".piece-*
    done
fi
exit $fail
