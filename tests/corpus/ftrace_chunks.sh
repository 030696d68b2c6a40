#!/bin/sh
# Chunk-boundary and stop/resume equivalence over every ftrace text file of
# the corpus (fed whole, in chunks down to 1 byte, with a stop after every
# event).
. "${top_srcdir:-.}/tests/corpus/common.sh"
files=$(sed "s#^#$CORPUS/ftrace/#" "$top_srcdir/tests/corpus/ftrace/FILES")
exec "$top_builddir/tests/corpus/chunk_check" $files
