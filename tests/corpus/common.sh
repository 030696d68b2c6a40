# Shared by the corpus tests: where the corpus is, or skip (exit 77).
top_srcdir="${top_srcdir:-.}"
top_builddir="${top_builddir:-.}"
CORPUS="${TREAD_CORPUS:-$top_srcdir/../shared/corpus}"
if [ ! -d "$CORPUS" ]; then
    echo "SKIP: corpus not found at $CORPUS (../shared is absent; set TREAD_CORPUS)"
    exit 77
fi
