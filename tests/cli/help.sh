#!/bin/sh
# Help: each command has its own (usage, options, an example), `tread help
# CMD` is `tread CMD --help`, and the help texts, tread(1) and the bash
# completion name the same options.
. "$(dirname "$0")/common.sh"
LC_ALL=C
export LC_ALL

man="$top_srcdir/doc/tread.1"
comp="$top_srcdir/tools/tread.bash"

for cmd in stats cat convert split; do
    expect_status 0 "$cmd --help" "$TREAD" $cmd --help
    cp "$tmp/out" "$tmp/$cmd.help"
    contains "$tmp/$cmd.help" "^Usage: tread $cmd " "$cmd --help: its own usage line"
    contains "$tmp/$cmd.help" '^Example:' "$cmd --help: an example"
    contains "$tmp/$cmd.help" "^  tread $cmd " "$cmd --help: the example runs $cmd"
    check "$cmd --help is not the global help" test "$(grep -c '^Commands:' "$tmp/$cmd.help")" -eq 0
    expect_status 0 "help $cmd" "$TREAD" help $cmd
    check "help $cmd = $cmd --help" cmp -s "$tmp/out" "$tmp/$cmd.help"
    expect_status 0 "-h after $cmd and a file" "$TREAD" $cmd "$DATA/small.json" -h
    check "$cmd FILE -h = $cmd --help" cmp -s "$tmp/out" "$tmp/$cmd.help"
done
expect_status 0 "help" "$TREAD" help
cp "$tmp/out" "$tmp/global.help"
expect_status 0 "--help" "$TREAD" --help
check "help = --help" cmp -s "$tmp/out" "$tmp/global.help"
expect_status 0 "help help" "$TREAD" help help
contains "$tmp/out" '^Usage: tread help \[COMMAND\]' "help help"
expect_status 2 "help with an unknown command" "$TREAD" help frob
contains "$tmp/err" "no help for 'frob'" "help frob: says why"

# The global help names every format the library reads (not only JSON).
for f in json perfetto fxt ftrace systrace; do
    contains "$tmp/global.help" "$f" "--help names the format $f"
done
contains "$tmp/global.help" 'Perfetto protobuf, Fuchsia FXT' "--help: the formats in words"
contains "$tmp/global.help" '3 warnings under' "--help: exit status 3"

# Every option in a help text is in tread(1) and in the completion, and
# every option tread(1) documents is in a help text.
cat "$tmp"/*.help | grep -oE '(^|[ ,])--?[a-z][a-z-]*' | sed 's/^[ ,]//' | sort -u >"$tmp/help.opts"
sed -n '/^\.SH OPTIONS/,/^\.SH JSON/p' "$man" | grep -E '^\.(B|BI|BR) \\-' |
    grep -oE '\\-\\-[a-z][a-z\\-]*|(^| )\\-[a-z]( |$)' | sed 's/\\//g; s/ //g' |
    sort -u >"$tmp/man.opts"
check "some options found in the help" test "$(wc -l <"$tmp/help.opts")" -gt 25
while read -r o; do
    roff=$(printf '%s' "$o" | sed 's/-/\\-/g')
    check "help option $o is in tread(1)" grep -qF -- "$roff" "$man"
    check "help option $o is in the bash completion" grep -qE -- "(^|[ \"|])$o([ \"|)]|$)" "$comp"
done <"$tmp/help.opts"
while read -r o; do
    check "tread(1) option $o is in a help text" grep -qx -- "$o" "$tmp/help.opts"
done <"$tmp/man.opts"

# tread(1), tread(3) and tread.pc name the formats alike.
contains "$man" 'Perfetto protobuf' "tread(1): Perfetto"
check "tread(3) NAME does not say ftrace and systrace are only recognised" \
    test "$(sed -n '/^\.SH NAME/,/^\.SH SYNOPSIS/p' "$top_srcdir/doc/tread.3" | grep -c recognised)" -eq 0
for f in Perfetto FXT ftrace systrace; do
    contains "$top_srcdir/tread.pc.in" "$f" "tread.pc Description names $f"
    check "tread(3) NAME names $f" sh -c "sed -n '/^\.SH NAME/,/^\.SH SYNOPSIS/p' '$top_srcdir/doc/tread.3' | grep -q '$f'"
done

finish
