#!/bin/sh
# The bash completion (tools/tread.bash): commands, each command's options
# (every one its help lists), and the values of --format, --to, --kind and
# --fields, as bash would ask for them.
. "$(dirname "$0")/common.sh"
LC_ALL=C
export LC_ALL

if ! have bash; then
    echo "SKIP: bash not found"
    exit 77
fi
comp="$top_srcdir/tools/tread.bash"

# complete WORDS...: the candidates for the last word, one per line
complete_words() {
    bash --norc --noprofile -c '
        . "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
        COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        _tread tread "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@"
}

check "the script loads in bash" bash --norc -n "$comp"
complete_words tread "" | sort >"$tmp/c"
check "commands" test "$(tr '\n' ' ' <"$tmp/c")" = "cat convert help split stats "
complete_words tread st >"$tmp/c"
check "st -> stats" test "$(cat "$tmp/c")" = "stats"
complete_words tread --format "" | sort >"$tmp/c"
check "--format values" test "$(tr '\n' ' ' <"$tmp/c")" = "cpuprofile ftrace fxt json perfetto systrace tracedat "
complete_words tread convert --to p >"$tmp/c"
check "--to p -> perfetto" test "$(cat "$tmp/c")" = "perfetto"
complete_words tread cat --kind comp >"$tmp/c"
check "--kind comp -> complete" test "$(cat "$tmp/c")" = "complete"
complete_words tread cat --kind complete,slice_b >"$tmp/c"
check "--kind list: the last item" test "$(cat "$tmp/c")" = "complete,slice_begin"
complete_words tread cat --fields name,ts >"$tmp/c"
check "--fields list: the last item" test "$(cat "$tmp/c")" = "name,ts_ns"
complete_words tread help c | sort >"$tmp/c"
check "help c -> cat convert" test "$(tr '\n' ' ' <"$tmp/c")" = "cat convert "
complete_words tread -q stats --top 3 --j | sort >"$tmp/c"
check "the command is found past options and values" test "$(tr '\n' ' ' <"$tmp/c")" = "--jobs --json "

# every option of each command's help is offered after that command
for cmd in stats cat convert split; do
    "$TREAD" help $cmd | grep -oE '(^|[ ,])--?[a-z][a-z-]*' | sed 's/^[ ,]//' | sort -u >"$tmp/h"
    "$TREAD" --help | sed -n '/^Options of every command/,$p' |
        grep -oE '(^|[ ,])--?[a-z][a-z-]*' | sed 's/^[ ,]//' | sort -u >>"$tmp/h"
    complete_words tread $cmd - | sort -u >"$tmp/c"
    missing=$(sort -u "$tmp/h" | comm -23 - "$tmp/c" | tr '\n' ' ')
    check "$cmd: every option of its help is completed${missing:+ (missing: $missing)}" \
        test -z "$missing"
done

finish
