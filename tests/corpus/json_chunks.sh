#!/bin/sh
# Chunk-boundary and stop/resume equivalence over every JSON corpus file.
. "${top_srcdir:-.}/tests/corpus/common.sh"
files=$(find "$CORPUS/json" -type f ! -name '*.md' | sort)
[ -n "$files" ] || { echo "FAIL: no corpus files"; exit 1; }
chunk_check_all $files
