#!/bin/sh
# The bundled sample (recorded with node --trace-events-enabled; see
# tests/data/README): golden counts and the chunk-boundary/resume check.
# Runs on a bare clone, without ../shared.
top_srcdir="${top_srcdir:-.}"
top_builddir="${top_builddir:-.}"
sample="$top_srcdir/tests/data/node_sample.json"
"$top_builddir/tests/corpus/corpus_counts" "$sample" | diff -u "$sample.expected" - || exit 1
exec "$top_builddir/tests/corpus/chunk_check" "$sample"
