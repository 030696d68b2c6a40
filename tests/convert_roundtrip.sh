#!/bin/sh
# Round trips of `tread convert` over the corpus (doc/convert.md): for every
# JSON, Perfetto, FXT and ftrace corpus file and both directions, `tread cat`
# of the conversion equals `tread cat` of the original after the documented
# normalisation (tests/convert_norm.py). Also: every Perfetto output decodes
# with protoc against proto/ when both are there.
# Files over $SAMPLE_BYTES are sampled: their first $SAMPLE_BYTES bytes are
# converted (a cut trace ends with a warning; both sides see the same cut).
# Skips (exit 77), saying so, when ../shared/corpus is absent.
top_srcdir="${top_srcdir:-.}"
top_builddir="${top_builddir:-.}"
CORPUS="${TREAD_CORPUS:-$top_srcdir/../shared/corpus}"
SAMPLE_BYTES=${SAMPLE_BYTES:-500000}
if [ ! -d "$CORPUS" ]; then
    echo "SKIP: corpus not found at $CORPUS (../shared is absent; set TREAD_CORPUS)"
    exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 not found (the normaliser is tests/convert_norm.py)"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tread-convert.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

PROTOC_DECODE=
if command -v protoc >/dev/null 2>&1 && [ -r "$top_srcdir/proto/perfetto_trace.proto" ]; then
    PROTOC_DECODE=yes
else
    echo "note: no protoc or no proto/perfetto_trace.proto: the protoc --decode check is skipped"
fi

list="$tmp/list"
for dir in json perfetto fxt ftrace; do
    [ -d "$CORPUS/$dir" ] || continue
    # every trace: not the READMEs, manifests, oracles and sources lists
    find "$CORPUS/$dir" -type f ! -name '*.md' ! -name '*.tsv' \
        ! -name 'manifest*' ! -name '*.oracle*' ! -path '*/oracle/*' \
        ! -name 'README*' ! -name 'SOURCES*' | sort
done > "$tmp/files"
"$top_builddir/tests/convert_roundtrip" "$tmp" "$SAMPLE_BYTES" < "$tmp/files" > "$tmp/done" || exit 99
n=$(wc -l < "$tmp/files")
unsupported=$(grep -c ' unsupported$' "$tmp/done")
sampled=0
: > "$list"
while read -r i f rest; do
    [ -z "$rest" ] || continue
    [ "$(wc -c < "$f")" -gt "$SAMPLE_BYTES" ] && sampled=$((sampled + 1))
    for to in json perfetto; do
        ahead=
        [ -e "$tmp/$i.$to.ahead" ] && ahead=" ahead"
        echo "$to $tmp/$i.orig $tmp/$i.$to.cat $f$ahead" >> "$list"
    done
done < "$tmp/done"

# protoc is slow to load the schema: a sample of the outputs, the first
# $PROTOC_SAMPLE of each corpus directory
PROTOC_SAMPLE=${PROTOC_SAMPLE:-3}
decode_fail=0 decoded=0
if [ -n "$PROTOC_DECODE" ]; then
    for dir in json perfetto fxt ftrace; do
        grep " $CORPUS/$dir/" "$tmp/done" | grep -v ' unsupported$' |
            head -n "$PROTOC_SAMPLE" > "$tmp/sample_$dir"
        while read -r i f; do
            decoded=$((decoded + 1))
            if ! protoc --proto_path="$top_srcdir/proto" \
                    --decode=perfetto.protos.Trace perfetto_trace.proto \
                    < "$tmp/$i.perfetto" > "$tmp/decoded" 2> "$tmp/protoc"; then
                decode_fail=$((decode_fail + 1))
                echo "FAIL protoc --decode: $f: $(head -c 300 "$tmp/protoc")"
            fi
        done < "$tmp/sample_$dir"
    done
    echo "protoc --decode=perfetto.protos.Trace: $decoded outputs, $decode_fail failed"
fi

echo "$n corpus files, $sampled sampled (first $SAMPLE_BYTES bytes), $unsupported skipped (format not supported yet)"
python3 "$top_srcdir/tests/convert_norm.py" "$list" > "$tmp/report"
rc=$?
grep -v '^ok' "$tmp/report" | head -60
echo "$(grep -c '^ok' "$tmp/report") round trips equal, $(grep -c '^FAIL' "$tmp/report") differ"
[ "$decode_fail" -eq 0 ] || rc=1
exit $rc
