#!/bin/sh
# split_perfetto over every Perfetto corpus file (difftests included) at
# three piece sizes: tests/split/split_perfetto_corpus.c says what is checked.
. "${top_srcdir:-.}/tests/corpus/common.sh"
files=$(find "$CORPUS/perfetto" -type f ! -path '*/oracle/*' ! -name '*.md' ! -name '*.tsv' | sort)
[ -n "$files" ] || { echo "FAIL: no corpus files"; exit 1; }
out=$(printf '%s\n' $files | xargs -P 2 -n 50 "$top_builddir/tests/split/split_perfetto_corpus")
rc=$?
printf '%s\n' "$out" | grep -v '^ok' || true
echo "$(printf '%s\n' "$out" | grep -c '^ok') splits ok"
exit $rc
