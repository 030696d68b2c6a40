#!/bin/sh
# tread.pc: --cflags names only tread's own headers (yajl's -I is
# private), and `pkg-config --static --libs tread` links a static program
# that reads a trace. Run against the tread.pc just made, its directories
# pointed at the build tree.
. "$(dirname "$0")/common.sh"

cc=${CC:-cc}
pc="$top_builddir/tread.pc"
if ! have pkg-config || ! have "$cc"; then
    echo "SKIP: pkg-config or a C compiler ($cc) not found"
    exit 77
fi
if [ ! -r "$top_builddir/lib/.libs/libtread.a" ]; then
    echo "SKIP: lib/.libs/libtread.a not built (--disable-static?)"
    exit 77
fi
pcdir=$(cd "$(dirname "$pc")" && pwd)
incdir=$(cd "$top_srcdir/include" && pwd)
libdir=$(cd "$top_builddir/lib/.libs" && pwd)
pkgc() {
    PKG_CONFIG_PATH="$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" pkg-config \
        --define-variable=libdir="$libdir" --define-variable=includedir="$incdir" "$@" tread
}

check "tread.pc is valid" pkgc --exists
pkgc --cflags >"$tmp/cflags"
check "--cflags: no yajl include directory" test "$(grep -c yajl "$tmp/cflags")" -eq 0
pkgc --libs >"$tmp/libs"
check "--libs: -ltread only (the rest is private)" test "$(tr ' ' '\n' <"$tmp/libs" | grep -c '^-l')" -eq 1
pkgc --static --libs >"$tmp/static"
for l in -ltread -lz -lzstd -lprotobuf-c; do
    check "--static --libs has $l" grep -q -- "$l\( \|\$\)" "$tmp/static"
done
check "--static --libs has yajl" grep -qE -- '-lyajl(_s)?( |$)' "$tmp/static"

cat >"$tmp/prog.c" <<'C'
#include <stdio.h>
#include <tread.h>
static int on_event(void *user, const tread_event *ev) { (void)ev; ++*(long *)user; return 0; }
int main(int argc, char **argv)
{
    long n = 0;
    tread_callbacks cb = {.event = on_event};
    tread_parser *p = tread_parser_create(NULL);
    tread_set_callbacks(p, &cb, &n);
    int ok = argc == 2 && tread_parse_path(p, argv[1]) == TREAD_STATUS_OK;
    printf("%ld events\n", n);
    tread_parser_free(p);
    return ok ? 0 : 1;
}
C
if [ "${enable_sanitizers:-no}" = yes ]; then
    echo "SKIP (static part): sanitizer build (no static sanitizer runtime to link)"
    finish
fi
printf 'int main(void) { return 0; }\n' >"$tmp/hello.c"
if ! "$cc" -static "$tmp/hello.c" -o "$tmp/hello" 2>/dev/null; then
    echo "SKIP (static part): $cc cannot link a static program here (no static C library)"
    finish
fi
# A private library whose package ships no static archive (Debian's
# libisal-dev has only libisal.so) cannot be linked statically at all.
for l in $(tr ' ' '\n' <"$tmp/static" | sed -n 's/^-l//p'); do
    [ "$l" = tread ] && continue
    a=$("$cc" -print-file-name="lib$l.a")
    if [ "$a" = "lib$l.a" ]; then
        echo "SKIP (static part): lib$l.a is not installed (its package ships only a shared library)"
        finish
    fi
done
# shellcheck disable=SC2046
check "a static program links with pkg-config --static --cflags --libs" \
    "$cc" -static "$tmp/prog.c" -o "$tmp/prog" $(cat "$tmp/cflags" "$tmp/static")
check "it is static" sh -c "! ldd '$tmp/prog' >/dev/null 2>&1 || ldd '$tmp/prog' 2>&1 | grep -q 'not a dynamic'"
expect_status 0 "the static program reads a trace" "$tmp/prog" "$DATA/small.json"
check "... all its events" test "$(cat "$tmp/out")" = "15 events"

finish
