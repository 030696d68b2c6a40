#!/bin/sh
# Every FXT file of ../shared/corpus/fxt against its reviewed golden file in
# tests/corpus/fxt/ (format, events by kind, warnings by kind, error), as
# tread_parse_path reads it (sniffed). The goldens were reviewed against the
# manifest's record counts (fxt_manifest.sh) and doc/formats/fxt.md. All
# files are read by one process (fxt_records --counts).
# To review a change: TREAD_UPDATE_GOLDEN=1 make check TESTS=tests/corpus/fxt_corpus.sh
. "${top_srcdir:-.}/tests/corpus/common.sh"
rels=$(cd "$CORPUS/fxt" && find . -type f -name '*.fxt' | sed 's#^\./##' | sort)
[ -n "$rels" ] || { echo "FAIL: no FXT corpus files in $CORPUS/fxt"; exit 1; }
bin=$(cd "$top_builddir" && pwd)/tests/corpus/fxt_records
out=$(cd "$CORPUS/fxt" && "$bin" --counts $rels) ||
    { echo "FAIL: fxt_records failed"; exit 1; }
fail=0
for rel in $rels; do
    golden="$top_srcdir/tests/corpus/fxt/$rel.expected"
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
exit $fail
