#!/bin/sh
# Every file of ../shared/corpus/perfetto (the 400 difftests included)
# against its reviewed golden file in tests/corpus/perfetto/: format,
# compression, events by kind, warnings by kind, error, and the non-zero
# Perfetto format counters. None may crash. The counts of the named traces
# were checked against trace_processor's (oracle/*.oracle.txt; see
# doc/formats/perfetto.md, "Cross-checks").
# To review a change: TREAD_UPDATE_GOLDEN=1 make check TESTS=tests/corpus/perfetto_corpus.sh
. "${top_srcdir:-.}/tests/corpus/common.sh"
files=$(cd "$CORPUS/perfetto" && find . -type f ! -path './oracle/*' ! -name '*.md' ! -name '*.tsv' | sed 's|^\./||' | sort)
[ -n "$files" ] || { echo "FAIL: no corpus files found in $CORPUS/perfetto"; exit 1; }
golden="$top_srcdir/tests/corpus/perfetto"
if [ -n "$TREAD_UPDATE_GOLDEN" ]; then
    for f in $files; do mkdir -p "$golden/$(dirname "$f")"; done
    exec "$top_builddir/tests/corpus/perfetto_corpus" --update "$golden" "$CORPUS/perfetto" $files
fi
exec "$top_builddir/tests/corpus/perfetto_corpus" "$golden" "$CORPUS/perfetto" $files
