#!/bin/sh
# Every file of ../shared/corpus/perfetto (the 400 difftests included)
# against its reviewed golden file in tests/corpus/perfetto/: format,
# compression, events by kind, warnings by kind, error. None may crash.
# The counts of the named traces were checked against trace_processor's
# (oracle/*.oracle.txt, doc/formats/perfetto.md "Cross-checks").
# To review a change: TREAD_UPDATE_GOLDEN=1 make check TESTS=tests/corpus/perfetto_corpus.sh
. "${top_srcdir:-.}/tests/corpus/common.sh"
fail=0
n=0
for f in $(cd "$CORPUS/perfetto" && find . -type f ! -path './oracle/*' ! -name '*.md' ! -name '*.tsv' | sort); do
    rel=${f#./}
    golden="$top_srcdir/tests/corpus/perfetto/$rel.expected"
    got=$("$top_builddir/tests/corpus/corpus_counts" "$CORPUS/perfetto/$rel")
    rc=$?
    # 0: parsed; 1: an input error, which the golden records; else a crash
    if [ $rc -gt 1 ]; then
        echo "FAIL $rel: runner exited with $rc"
        fail=1
        continue
    fi
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
    if printf '%s\n' "$got" | diff -u "$golden" - >/dev/null; then
        :
    else
        printf '%s\n' "$got" | diff -u "$golden" -
        echo "FAIL $rel"
        fail=1
    fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no corpus files found in $CORPUS/perfetto"; exit 1; }
echo "$n files checked"
exit $fail
