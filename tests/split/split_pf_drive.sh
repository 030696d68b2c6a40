#!/bin/sh
# End to end: split_perfetto through the real split_pieces into files
# (tests/split/split_pf_drive.c), on the small corpus traces: the pieces
# listed on standard output are the files written, in order; each reads
# back with `tread cat` without an error; split_pf_drive checks them
# against the whole file (split_pf_check.h).
. "${top_srcdir:-.}/tests/corpus/common.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
rc=0
for case in sdk_small.pftrace:2048 sdk_small.pftrace:65536 \
    repo_nested_tracks.perfetto-trace:2048 sdk_medium_deflate.pftrace:262144; do
    f=${case%%:*}
    max=${case##*:}
    in="$CORPUS/perfetto/$f"
    [ -f "$in" ] || { echo "FAIL: $in missing"; rc=1; continue; }
    {
        rm -f "$tmp"/p-*
        if ! "$top_builddir/tests/split/split_pf_drive" "$max" "$in" "$tmp/p" >"$tmp/list"; then
            echo "FAIL: $f at $max"; rc=1; continue
        fi
        ls "$tmp"/p-*.pftrace >"$tmp/files"
        if ! cmp -s "$tmp/list" "$tmp/files"; then
            echo "FAIL: $f at $max: the listing is not the files written"; rc=1
        fi
        while read -r piece; do
            "$top_builddir/tools/tread" cat -q "$piece" >/dev/null ||
                { echo "FAIL: tread cat $piece"; rc=1; }
        done <"$tmp/list"
        echo "ok $f at $max: $(wc -l <"$tmp/list") pieces"
    }
done
exit $rc
