# Shared by the corpus tests: where the corpus is, or skip (exit 77).
top_srcdir="${top_srcdir:-.}"
top_builddir="${top_builddir:-.}"
CORPUS="${TREAD_CORPUS:-$top_srcdir/../shared/corpus}"
if [ ! -d "$CORPUS" ]; then
    echo "SKIP: corpus not found at $CORPUS (../shared is absent; set TREAD_CORPUS)"
    exit 77
fi

# chunk_check_all FILES...: tests/corpus/chunk_check over the files, the
# biggest first, on $CHUNK_JOBS (2) processes taking $CHUNK_BATCH (1) files
# at a time: run as one process, the JSON chunk test was the long pole of
# CI's `make -j2 check` (163 s under ASan, the other job idle at the end).
# Status 0, or xargs' 123 when a file failed.
chunk_check_all() {
    for f in "$@"; do
        printf '%s %s\n' "$(wc -c <"$f" 2>/dev/null || echo 0)" "$f"
    done | sort -rn | cut -d' ' -f2- |
        xargs -P "${CHUNK_JOBS:-2}" -n "${CHUNK_BATCH:-1}" "$top_builddir/tests/corpus/chunk_check"
}
