#!/bin/sh
# Chunk-boundary and stop/resume equivalence over every Perfetto corpus
# file, difftests included (chunk_check bounds the work on big files:
# 4096/509-byte chunks and a stop every 97 events above 15000 events).
. "${top_srcdir:-.}/tests/corpus/common.sh"
files=$(find "$CORPUS/perfetto" -type f ! -path '*/oracle/*' ! -name '*.md' ! -name '*.tsv' | sort)
[ -n "$files" ] || { echo "FAIL: no corpus files"; exit 1; }
out=$(CHUNK_BATCH=16 chunk_check_all $files)
rc=$?
printf '%s\n' "$out" | grep -v '^ok' || true
echo "$(printf '%s\n' "$out" | grep -c '^ok') files ok"
exit $rc
