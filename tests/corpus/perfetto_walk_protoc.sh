#!/bin/sh
# The schema (proto/*.proto) and the reflective walk against protoc:
# 1. `protoc --decode=perfetto.protos.Trace` decodes every trace of the
#    Perfetto corpus (the .gz gunzipped, the 400 difftests concatenated:
#    a Trace is a stream of packets) and every unknown field it shows is
#    one the tables have but the reference has not (newer), or otherwise
#    accounted for (perfetto_walk_schema.py says how);
# 2. parity: the walk of the same bytes (perfetto_walk_dump) equals
#    protoc's text after the normalisation of perfetto_walk_parity.py, on
#    every packet of the small traces and the difftests and on the first
#    3000 packets of the Android trace (chromium_startup and sdk_medium
#    were checked whole once, ~400k packets: too slow for every make
#    check; TREAD_WALK_PARITY_ALL=1 checks every packet of every trace).
. "${top_srcdir:-.}/tests/corpus/common.sh"
command -v protoc >/dev/null 2>&1 || { echo "SKIP: protoc not found (Debian: protobuf-compiler)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
SPEC="$CORPUS/../spec"
[ -f "$SPEC/perfetto_fields.tsv" ] || { echo "SKIP: $SPEC/perfetto_fields.tsv not found"; exit 77; }
PF="$CORPUS/perfetto"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tread_walk.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
DUMP="$top_builddir/tests/corpus/perfetto_walk_dump"
PROTOS=$(ls "$top_srcdir"/proto/*.proto)
fail=0
texts=
for f in "$PF"/*.pftrace "$PF"/*.pb "$PF"/*.perfetto-trace "$PF"/*.pftrace.gz difftests; do
    b=$(basename "$f")
    case $f in
    *.gz) b=${b%.gz}; gzip -dc "$f" > "$TMP/$b" || exit 1; in="$TMP/$b" ;;
    difftests) cat "$PF"/difftests/*.pb > "$TMP/$b"; in="$TMP/$b" ;;
    *) in=$f ;;
    esac
    if ! protoc --decode=perfetto.protos.Trace -I "$top_srcdir/proto" $PROTOS \
            < "$in" > "$TMP/$b.txt" 2> "$TMP/$b.err"; then
        echo "FAIL: protoc --decode of $b:"; head -5 "$TMP/$b.err"; fail=1; continue
    fi
    texts="$texts $TMP/$b.txt"
    most=
    case $b in
    chromium_startup.pftrace|sdk_medium.pftrace) [ -n "$TREAD_WALK_PARITY_ALL" ] || continue ;;
    android_device_*) [ -n "$TREAD_WALK_PARITY_ALL" ] || most=3000 ;;
    esac
    if ! "$DUMP" "$in" > "$TMP/$b.walk"; then
        echo "FAIL: the walk of $b"; fail=1; continue
    fi
    printf '%s: ' "$b"
    python3 "$top_srcdir/tests/corpus/perfetto_walk_parity.py" "$TMP/$b.walk" "$TMP/$b.txt" $most || fail=1
    rm -f "$TMP/$b.walk"
done
echo "unknown fields in protoc --decode:"
python3 "$top_srcdir/tests/corpus/perfetto_walk_schema.py" "$top_srcdir/proto" \
    "$SPEC/perfetto_fields.tsv" $texts > "$TMP/unknown.txt" || fail=1
grep -v "ok: the tables list perfetto.protos.Atom" "$TMP/unknown.txt"
exit $fail
