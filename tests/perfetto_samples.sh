#!/bin/sh
# Perfetto CPU samples against an independent reading: every sample `tread
# cat` delivers (time of a streaming sample, pid, tid, and its stack,
# resolved through the stack frames: name, mapping, rel_pc, root first)
# equals what tests/corpus/perfetto_samples_oracle.py reads from the
# protobuf. The project's own sample trace always (fuzz/seeds, made by the
# project); every corpus trace holding perf_sample or
# streaming_profile_packet when ../shared is there (said when it is not).
top_srcdir="${top_srcdir:-.}"
top_builddir="${top_builddir:-.}"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
oracle="$top_srcdir/tests/corpus/perfetto_samples_oracle.py"
files="$top_srcdir/fuzz/seeds/perfetto/cpu_samples.pftrace"
CORPUS="${TREAD_CORPUS:-$top_srcdir/../shared/corpus}"
if [ -d "$CORPUS/perfetto" ]; then
    # the traces whose oracle finds samples (one process reads them all)
    files="$files $(find "$CORPUS/perfetto" -type f \( -name '*.pb' -o -name '*.pftrace*' \
                       -o -name '*.perfetto-trace' \) | sort |
                   xargs python3 "$oracle" --with-samples)"
else
    echo "note: corpus not found at $CORPUS: only the project's sample trace is checked"
fi
fail=0
tmp=${TMPDIR:-/tmp}/tread_pfsamples.$$
trap 'rm -f "$tmp".*' EXIT
for f in $files; do
    python3 "$oracle" "$f" >"$tmp.want" || { echo "FAIL $f: the oracle failed"; fail=1; continue; }
    "$top_builddir/tools/tread" -q cat "$f" 2>/dev/null | python3 "$oracle" --tread >"$tmp.got" ||
        { echo "FAIL $f: tread cat failed"; fail=1; continue; }
    n=$(grep -c '^sample' "$tmp.want")
    if [ "$n" -eq 0 ]; then
        echo "FAIL $f: no samples expected: the test would prove nothing"
        fail=1
    elif diff -u "$tmp.want" "$tmp.got" >"$tmp.diff"; then
        echo "ok $f ($n samples)"
    else
        head -40 "$tmp.diff"
        echo "FAIL $f"
        fail=1
    fi
done
exit $fail
