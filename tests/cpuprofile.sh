#!/bin/sh
# V8 CPU profiles against an independent reading: every stack frame and
# every sample `tread cat` delivers (id, parent, name; time, frame, pid,
# tid) equals what tests/corpus/json_profile_oracle.py works out with
# Python's json module. The bundled node --cpu-prof recording always; the
# corpus traces that hold Profile/ProfileChunk events when ../shared is
# there (said when it is not).
top_srcdir="${top_srcdir:-.}"
top_builddir="${top_builddir:-.}"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
oracle="$top_srcdir/tests/corpus/json_profile_oracle.py"
files="$top_srcdir/tests/data/node_fib.cpuprofile"
CORPUS="${TREAD_CORPUS:-$top_srcdir/../shared/corpus}"
if [ -d "$CORPUS/json" ]; then
    for f in $(find "$CORPUS/json" -type f ! -name '*.md' | sort); do
        # the damaged generated files are not JSON Python reads whole
        case "$f" in *trunc*) continue ;; esac
        if gzip -cdf "$f" | grep -q '"ProfileChunk"\|"CpuProfile"'; then
            files="$files $f"
        fi
    done
else
    echo "note: corpus not found at $CORPUS: only the bundled profile is checked"
fi
fail=0
tmp=${TMPDIR:-/tmp}/tread_cpuprofile.$$
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
        echo "ok $f ($n samples, $(grep -c '^frame' "$tmp.want") frames)"
    else
        head -40 "$tmp.diff"
        echo "FAIL $f"
        fail=1
    fi
done
exit $fail
