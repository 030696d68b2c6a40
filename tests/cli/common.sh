# Shared setup for the tests/cli/*.sh scripts (sourced, not run).
# Exit codes follow the automake test protocol: 0 pass, 1 fail, 77 skip.

top_builddir="${top_builddir:-.}"
srcdir="${srcdir:-.}"
top_srcdir="${top_srcdir:-$srcdir}"

TREAD="$top_builddir/tools/tread"
DATA="$top_srcdir/tests/cli/data"

if [ ! -x "$TREAD" ]; then
    echo "tread binary not found at $TREAD" >&2
    exit 99
fi
# tools/tread is libtool's wrapper script, which costs ~65 ms a run (the
# binary ~15 ms) and some scripts run it hundreds of times: where the
# uninstalled binary and library are where libtool puts them on ELF
# systems, run the binary as the wrapper would.
if [ -x "$top_builddir/tools/.libs/tread" ] && [ -d "$top_builddir/lib/.libs" ]; then
    LD_LIBRARY_PATH="$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
    TREAD="$top_builddir/tools/.libs/tread"
fi
if [ ! -r "$DATA/small.json" ]; then
    echo "test data not found in $DATA" >&2
    exit 99
fi

# The source tree may be read-only (make distcheck): scratch files go here.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tread-cli.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

pass() {
    echo "ok: $*"
}

# check DESCRIPTION COMMAND...: the command must succeed.
check() {
    desc=$1
    shift
    if "$@"; then pass "$desc"; else fail "$desc"; fi
}

# expect_status WANT DESCRIPTION COMMAND...: runs the command (output to
# $tmp/out and $tmp/err) and compares its exit status.
expect_status() {
    want=$1
    desc=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -eq "$want" ]; then
        pass "$desc (exit $got)"
    else
        fail "$desc: exit $got, expected $want"
        sed 's/^/  stderr: /' "$tmp/err" >&2
    fi
}

# contains FILE REGEX DESCRIPTION
contains() {
    if grep -E -q -e "$2" "$1"; then
        pass "$3"
    else
        fail "$3: /$2/ not found in $(basename "$1")"
        sed 's/^/  | /' "$1" | head -20 >&2
    fi
}

have() {
    command -v "$1" >/dev/null 2>&1
}

finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$failures check(s) failed" >&2
        exit 1
    fi
    exit 0
}
