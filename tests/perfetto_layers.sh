#!/bin/sh
# lib/perfetto in layers that only look down (doc/architecture.md,
# "lib/perfetto: layers"). Each file has a layer:
#   0 wire      pf_wire, pf_adler32, pf_clock, pf_args, pf_walk*: no decoder state
#   1 context   pf_context.h: the state the stages share
#   2 queue     pf_queue, and sequences: pf_sequence.c / pf_seq.h
#   3 time      pf_time; tracks: pf_tracks
#   4 handlers  pf_fast, pf_track_event, pf_chrome, pf_system, pf_ftrace,
#               pf_profile, pf_v8,
#               pf_expand
#   5 decoder   pf_decoder.c: framing, dispatch, delivery, pause
# and may only use its own layer or lower ones:
# - sources: every #include "perfetto/..." of a file names a header of its
#   layer or below, and only pf_decoder.c names the decoder's private state
#   (struct pf_dec, PRIV, pf_framer);
# - objects (when built): every symbol an object of lib/perfetto takes from
#   another one of lib/perfetto is defined in its layer or below; so no
#   handler calls up into pf_decoder.c.
# A file the table does not know fails the check: place it first.
# Usage: perfetto_layers.sh [SRCDIR [OBJDIR]] (default: $srcdir/lib/perfetto
# and ./lib/perfetto, as make check runs it).
SRC="${1:-${srcdir:-.}/lib/perfetto}"
OBJ="${2:-${top_builddir:-.}/lib/perfetto}"
fail=0

layer() { # file stem (pf_x for pf_x.c / pf_x.h / libtread_la-pf_x.o)
    case "$1" in
    pf_wire | pf_adler32 | pf_clock | pf_args | pf_walk | pf_walk_args | pf_walk_schema) echo 0 ;;
    pf_context) echo 1 ;;
    pf_queue | pf_sequence | pf_seq) echo 2 ;;
    pf_time | pf_tracks) echo 3 ;;
    pf_fast | pf_track_event | pf_chrome | pf_system | pf_ftrace | pf_profile | pf_v8 | pf_expand) echo 4 ;;
    pf_decoder) echo 5 ;;
    *) echo "" ;;
    esac
}

if [ ! -f "$SRC/pf_decoder.c" ]; then
    echo "no $SRC/pf_decoder.c"; exit 1
fi

# sources
for f in "$SRC"/pf_*.c "$SRC"/pf_*.h; do
    base=$(basename "$f"); stem=${base%.*}
    L=$(layer "$stem")
    if [ -z "$L" ]; then
        echo "FAIL $base: in no layer (add it to tests/perfetto_layers.sh)"; fail=1; continue
    fi
    for h in $(sed -n 's|^#include "perfetto/\(pf_[a-z0-9_]*\)\.h".*|\1|p' "$f"); do
        HL=$(layer "$h")
        if [ -z "$HL" ] || [ "$HL" -gt "$L" ]; then
            echo "FAIL $base (layer $L) includes $h.h (layer ${HL:-none}): a look up"; fail=1
        fi
    done
    if [ "$base" != pf_decoder.c ] && grep -En '\bpf_dec\b|\bPRIV\(|\bpf_framer\b' "$f"; then
        echo "FAIL $base names pf_decoder.c's private state"; fail=1
    fi
done

# objects: which file defines each global symbol, then who takes what
objs=$(ls "$OBJ"/libtread_la-pf_*.o 2>/dev/null || ls "$OBJ"/.libs/libtread_la-pf_*.o 2>/dev/null)
if [ -z "$objs" ] || ! command -v nm > /dev/null 2>&1; then
    echo "SKIP objects: none built in $OBJ (or no nm); sources checked"
else
    defs=$(mktemp "${TMPDIR:-/tmp}/pf_layers.XXXXXX") || exit 1
    trap 'rm -f "$defs"' EXIT
    for o in $objs; do
        stem=$(basename "$o" .o); stem=${stem#libtread_la-}
        nm --defined-only "$o" | awk -v f="$stem" '$2 ~ /^[TDBRC]$/ {print $3, f}'
    done > "$defs"
    for o in $objs; do
        stem=$(basename "$o" .o); stem=${stem#libtread_la-}
        L=$(layer "$stem")
        [ -n "$L" ] || { echo "FAIL $stem.o: in no layer"; fail=1; continue; }
        for sym in $(nm -u "$o" | awk '{print $2}'); do
            from=$(awk -v s="$sym" '$1 == s {print $2; exit}' "$defs")
            [ -n "$from" ] && [ "$from" != "$stem" ] || continue
            FL=$(layer "$from")
            if [ "$FL" -gt "$L" ] || [ "$from" = pf_decoder ]; then
                echo "FAIL $stem.o (layer $L) calls $sym in $from.o (layer $FL): a call up"; fail=1
            fi
        done
    done
fi
[ $fail = 0 ] && echo "ok lib/perfetto: every include and every call looks down"
exit $fail
