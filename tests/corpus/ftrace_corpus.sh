#!/bin/sh
# Every ftrace text file of ../shared/corpus/ftrace (plain and gzip; the
# containers are H4's systrace tests) against its reviewed golden in
# tests/corpus/ftrace/ (format, events by kind, atrace phases, warnings,
# format counters), then the goldens against manifest.json
# (ftrace_manifest.py; every difference is explained there and in
# doc/formats/ftrace.md).
# To review a change: TREAD_UPDATE_GOLDEN=1 make check TESTS=tests/corpus/ftrace_corpus.sh
. "${top_srcdir:-.}/tests/corpus/common.sh"
rels=$(cat "$top_srcdir/tests/corpus/ftrace/FILES")
bin=$(cd "$top_builddir" && pwd)/tests/corpus/ftrace_counts
out=$(cd "$CORPUS/ftrace" && "$bin" $rels) || { echo "FAIL: ftrace_counts failed"; exit 1; }
fail=0
for rel in $rels; do
    golden="$top_srcdir/tests/corpus/ftrace/$rel.expected"
    got=$(printf '%s\n' "$out" | awk -v f="$rel" '/^== /{on = ($2 == f); next} on')
    if [ -n "$TREAD_UPDATE_GOLDEN" ]; then
        mkdir -p "$(dirname "$golden")"
        printf '%s\n' "$got" > "$golden"
        continue
    fi
    if [ ! -f "$golden" ]; then
        echo "FAIL $rel: no golden file $golden"
        fail=1
    elif printf '%s\n' "$got" | diff -u "$golden" -; then
        echo "ok $rel"
    else
        echo "FAIL $rel"
        fail=1
    fi
done
if command -v python3 >/dev/null 2>&1; then
    python3 "$top_srcdir/tests/corpus/ftrace_manifest.py" "$CORPUS/ftrace/manifest.json" \
        "$top_srcdir/tests/corpus/ftrace" $rels || fail=1
else
    echo "note: python3 absent, manifest comparison skipped"
fi
exit $fail
