#!/bin/sh
# Chunk-boundary and stop/resume equivalence over every container file of
# the ftrace corpus (systrace HTML, ctrace, JSON with systemTraceEvents).
. "${top_srcdir:-.}/tests/corpus/common.sh"
F="$CORPUS/ftrace"
files=$(cd "$F" && ls catapult/*.html trappy/*.html generated/*.html generated/*.ctrace \
        catapult/compressed_atrace_data.txt generated/gen_systemTraceEvents.json 2>/dev/null |
        sed "s|^|$F/|")
[ -n "$files" ] || { echo "FAIL: no container files in $F"; exit 1; }
exec "$top_builddir/tests/corpus/chunk_check" $files
