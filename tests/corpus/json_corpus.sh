#!/bin/sh
# Every file of ../shared/corpus/json against its reviewed golden file in
# tests/corpus/json/ (events by kind, warnings by kind). The goldens were
# checked against tests/corpus/json_oracle.py, an independent reading.
# To review a change: TREAD_UPDATE_GOLDEN=1 make check TESTS=tests/corpus/json_corpus.sh
. "${top_srcdir:-.}/tests/corpus/common.sh"
fail=0
n=0
for f in $(cd "$CORPUS/json" && find . -type f | sort); do
    rel=${f#./}
    case "$rel" in *.md) continue ;; esac
    golden="$top_srcdir/tests/corpus/json/$rel.expected"
    got=$("$top_builddir/tests/corpus/corpus_counts" "$CORPUS/json/$rel") || { echo "FAIL $rel: runner failed"; fail=1; continue; }
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
[ "$n" -gt 0 ] || { echo "FAIL: no corpus files found in $CORPUS/json"; exit 1; }
exit $fail
