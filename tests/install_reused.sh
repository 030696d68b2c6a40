#!/bin/sh
# Install from a build tree that was configured before, for another prefix
# (issue: "libtool: cannot install 'python/_tread.la' to a directory not
# ending in ..."): configure BUILD for PREFIX_A, install, configure it
# again for PREFIX_B (and --enable-python), install again. Both installs
# must hold the whole set of files, and what is installed under B must
# point at B: the library's and the module's run paths, tread.pc's prefix,
# the module's documentation path, and a program and `import tread` that
# use only B.
#
# Not a `make check` test: it configures the tree it is given again. CI
# (.ci/run) runs it in its gcc build after distcheck; by hand:
#
#     tests/install_reused.sh BUILD_DIR [CONFIGURE_ARGS...]
#
# Exit 0: both installs are right; 1: a check failed; 77: skipped (no
# python3 with Python.h and pytest, so no module to install).
set -u
build=${1:?usage: install_reused.sh BUILD_DIR [CONFIGURE_ARGS...]}
shift
build=$(cd "$build" && pwd) || exit 1
[ -x "$build/config.status" ] || { echo "$build: not a configured build tree"; exit 1; }
srcdir=$(sed -n "s/^ac_pwd='\(.*\)'$/\1/p" "$build/config.status")
confdir=$(sed -n "s/^srcdir='\(.*\)'$/\1/p" "$build/config.status" | head -n 1)
case $confdir in /*) configure=$confdir/configure ;; *) configure=$srcdir/$confdir/configure ;; esac
[ -x "$configure" ] || { echo "cannot find configure (from $build/config.status)"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tread-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# install_to P ARGS...: configure the tree for prefix P, install, and
# check what was installed.
install_to() {
    p=$1; shift
    echo "== configure --prefix=$p $*"
    (cd "$build" && "$configure" --prefix="$p" "$@" >"$tmp/configure.log" 2>&1) ||
        { tail -n 20 "$tmp/configure.log"; bad "configure --prefix=$p"; return; }
    if ! grep -q 'S\["ENABLE_PYTHON_TRUE"\]=""' "$build/config.status"; then
        echo "SKIP: configure did not enable the Python module (python3-dev, python3-pytest)"
        exit 77
    fi
    echo "== make install"
    (cd "$build" && make -j"${JOBS:-2}" install >"$tmp/install.log" 2>&1) ||
        { tail -n 20 "$tmp/install.log"; bad "make install into $p"; return; }
    # The files every install holds.
    for f in bin/tread include/tread.h lib/pkgconfig/tread.pc share/doc/tread/python.md \
             share/man/man1/tread.1 share/man/man3/tread.3; do
        [ -e "$p/$f" ] || bad "$p/$f is not installed"
    done
    ls "$p"/lib/libtread.so* >/dev/null 2>&1 || bad "$p/lib/libtread.so is not installed"
    pkg=$(find "$p/lib" -path '*-packages/tread' -type d | head -n 1)
    if [ -z "$pkg" ]; then
        bad "no tread package under $p/lib"
        return
    fi
    for f in __init__.py _frame.py dask.py _tread.pyi py.typed; do
        [ -e "$pkg/$f" ] || bad "$pkg/$f is not installed"
    done
    mod=$(ls "$pkg"/_tread*.so 2>/dev/null | head -n 1)
    [ -n "$mod" ] || { bad "$pkg/_tread.so is not installed"; return; }
    # Run paths: an install for B must not load A's library.
    for obj in "$p/bin/tread" "$mod"; do
        rp=$(readelf -d "$obj" 2>/dev/null | sed -n 's/.*R\(UN\)\{0,1\}PATH.*\[\(.*\)\]/\2/p')
        case ":$rp:" in
            *":$p/lib:"*) ;;
            *) bad "$obj: run path '$rp' does not name $p/lib" ;;
        esac
        case $rp in *"$other"*) bad "$obj: run path '$rp' names the other prefix $other" ;; esac
    done
    grep -qx "prefix=$p" "$p/lib/pkgconfig/tread.pc" || bad "$p/lib/pkgconfig/tread.pc: prefix is not $p"
    # The module, from this prefix alone: its docstring names the
    # python.md installed here.
    py=$(sed -n 's/^S\["PYTHON"\]="\(.*\)"$/\1/p' "$build/config.status" | head -n 1)
    [ -n "$py" ] || py=/usr/bin/python3
    out=$(cd "$tmp" && PYTHONPATH="$(dirname "$pkg")" "$py" -c '
import sys, tread, tread._tread as t
print(tread.__file__)
print(t.__file__)
print(t.__doc__)' 2>&1) || { echo "$out"; bad "import tread from $p"; return; }
    case $out in *"$p/"*"$p/"*) ;; *) echo "$out"; bad "import tread did not load from $p" ;; esac
    case $out in *"$p/share/doc/tread/python.md"*) ;;
        *) bad "the module's docstring does not name $p/share/doc/tread/python.md" ;; esac
    # tread itself runs from this prefix.
    "$p/bin/tread" --version >/dev/null 2>&1 || bad "$p/bin/tread --version"
}

other=$tmp/b
install_to "$tmp/a" "$@"
other=$tmp/a
install_to "$tmp/b" --enable-python "$@"
# The tree is configured for a temporary prefix now: leave it configured
# as it was given (its default prefix), so that later steps see no change.
(cd "$build" && "$configure" "$@" >"$tmp/configure.log" 2>&1) || bad "configure again"
[ $fail -eq 0 ] && echo "install in a reused tree: both installs right"
exit $fail
