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
# libisal-dev has only libisal.so) cannot be linked into a fully static
# program. Then libtread.a is linked statically and the rest as each
# package allows: what is proved is the same, that --static --libs names
# every library libtread.a needs.
shared_only=
for l in $(tr ' ' '\n' <"$tmp/static" | sed -n 's/^-l//p'); do
    [ "$l" = tread ] && continue
    a=$("$cc" -print-file-name="lib$l.a")
    [ "$a" = "lib$l.a" ] && shared_only="$shared_only lib$l"
done
if [ -z "$shared_only" ]; then
    # shellcheck disable=SC2046
    check "a static program links with pkg-config --static --cflags --libs" \
        "$cc" -static "$tmp/prog.c" -o "$tmp/prog" $(cat "$tmp/cflags" "$tmp/static")
    check "it is static" sh -c "! ldd '$tmp/prog' >/dev/null 2>&1 || ldd '$tmp/prog' 2>&1 | grep -q 'not a dynamic'"
else
    echo "note: no static archive of$shared_only (its package ships only a shared library): libtread.a is linked statically, that library dynamically"
    # -ltread from libtread.a, the other libraries as they are installed.
    sed 's/\(^\| \)-ltread\( \|$\)/\1-Wl,-Bstatic -ltread -Wl,-Bdynamic\2/' "$tmp/static" >"$tmp/static2"
    # shellcheck disable=SC2046
    check "a program links libtread.a with pkg-config --static --cflags --libs" \
        "$cc" "$tmp/prog.c" -o "$tmp/prog" $(cat "$tmp/cflags" "$tmp/static2")
    check "it holds libtread itself (no libtread.so needed)" sh -c "! ldd '$tmp/prog' | grep -q libtread"
fi
expect_status 0 "the program reads a trace" "$tmp/prog" "$DATA/small.json"
check "... all its events" test "$(cat "$tmp/out")" = "15 events"

finish
