#!/bin/sh
# Chunk-boundary and stop/resume equivalence over every FXT corpus file
# (blob pieces included: tests/common/event_dump.c hashes each blob).
. "${top_srcdir:-.}/tests/corpus/common.sh"
files=$(find "$CORPUS/fxt" -type f -name '*.fxt' | sort)
[ -n "$files" ] || { echo "FAIL: no FXT corpus files"; exit 1; }
chunk_check_all $files
