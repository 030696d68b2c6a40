#!/bin/sh
# Every FXT corpus file against ../shared/corpus/fxt/manifest.json: records
# by type, subtype and argument type, providers, and each file's expected
# warnings and error (tests/corpus/fxt_manifest.py).
. "${top_srcdir:-.}/tests/corpus/common.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
exec python3 "$top_srcdir/tests/corpus/fxt_manifest.py" \
    "$top_builddir/tests/corpus/fxt_records" "$CORPUS/fxt"
