#!/bin/sh
# Every file of ../shared/corpus/fxt against its reviewed golden file in
# tests/corpus/fxt/ (format, events by kind, warnings by kind, error), as
# tread_parse_path reads it (sniffed). The goldens were reviewed against the
# manifest's record counts (fxt_manifest.sh) and doc/formats/fxt.md.
# To review a change: TREAD_UPDATE_GOLDEN=1 make check TESTS=tests/corpus/fxt_corpus.sh
. "${top_srcdir:-.}/tests/corpus/common.sh"
fail=0
n=0
for f in $(cd "$CORPUS/fxt" && find . -type f | sort); do
    rel=${f#./}
    case "$rel" in *.fxt) ;; *) continue ;; esac
    golden="$top_srcdir/tests/corpus/fxt/$rel.expected"
    got=$("$top_builddir/tests/corpus/corpus_counts" "$CORPUS/fxt/$rel") || { echo "FAIL $rel: runner failed"; fail=1; continue; }
    n=$((n + 1))
    if [ -n "$TREAD_UPDATE_GOLDEN" ]; then
        mkdir -p "$(dirname "$golden")"
        printf '%s\n' "$got" > "$golden"
        continue
    fi
    if [ ! -f "$golden" ]; then
        echo "FAIL $rel: no golden file $golden"
        fail=1
        continue
    fi
    if printf '%s\n' "$got" | diff -u "$golden" - ; then
        echo "ok $rel"
    else
        echo "FAIL $rel"
        fail=1
    fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no corpus files found in $CORPUS/fxt"; exit 1; }
exit $fail
