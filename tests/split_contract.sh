#!/bin/sh
# The split contract on the corpus (doc/convert.md, "tread split"; issue
# 24 point 3). For every file of ../shared/corpus (every format, Perfetto
# difftests included) at three piece sizes (SIZES), tests/split_check.py
# checks that the pieces, read one after another, give exactly the events
# of the whole (the file itself for a split into its own format, FXT,
# Perfetto, and ftrace text: ftrace files and the systrace containers'
# text blocks; the whole `tread convert --to json` for a split through the
# JSON conversion), every field, in order, after dropping duplicate
# metadata; that every piece is within --max-bytes unless it holds one
# record; and that the total is within the default --max-total-bytes.
# JSON stack frames (every corpus JSON file with stackFrames): the pieces'
# distinct definitions equal the whole conversion's, each piece holds the
# frames its events use with their parents and repeats nothing else, and
# the references a piece lacks are the count split prints (split_check.py).
# For convert, both directions: the events the conversion holds plus the
# loss summary printed on standard error equal the input's events, by kind.
# Files over $SAMPLE_BYTES are sampled (their first $SAMPLE_BYTES bytes; a
# cut trace ends with a warning on both sides).
# Skips (exit 77), saying so, when ../shared/corpus is absent.
top_srcdir="${top_srcdir:-.}"
top_builddir="${top_builddir:-.}"
CORPUS="${TREAD_CORPUS:-$top_srcdir/../shared/corpus}"
SAMPLE_BYTES=${SAMPLE_BYTES:-200000}
SIZES=${SIZES:-"1K 16K 256K"}
if [ ! -d "$CORPUS" ]; then
    echo "SKIP: corpus not found at $CORPUS (../shared is absent; set TREAD_CORPUS)"
    exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 not found (the checker is tests/split_check.py)"
    exit 77
fi
TREAD="$top_builddir/tools/tread"
if [ -x "$top_builddir/tools/.libs/tread" ] && [ -d "$top_builddir/lib/.libs" ]; then
    LD_LIBRARY_PATH="$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
    TREAD="$top_builddir/tools/.libs/tread"
fi
CAT="$top_builddir/tests/split_cat"
[ -x "$top_builddir/tests/.libs/split_cat" ] && CAT="$top_builddir/tests/.libs/split_cat"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tread-split.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

for dir in json perfetto fxt ftrace; do
    [ -d "$CORPUS/$dir" ] || continue
    find "$CORPUS/$dir" -type f ! -name '*.md' ! -name '*.tsv' \
        ! -name 'manifest*' ! -name '*.oracle*' ! -path '*/oracle/*' \
        ! -name 'README*' ! -name 'SOURCES*' | sort
done > "$tmp/files"

# one_file I FILE: converts and splits FILE, its check cases in $tmp/I.cases
one_file() {
    i=$1 f=$2 in=$2
    : > "$tmp/$i.cases"
    if [ "$(wc -c < "$f")" -gt "$SAMPLE_BYTES" ]; then
        head -c "$SAMPLE_BYTES" "$f" > "$tmp/$i.in"
        in=$tmp/$i.in
    fi
    echo "$in" | "$CAT" > "$tmp/$i.orig" 2> /dev/null
    # convert, both ways: the events kept and the losses said (even with -q)
    for to in json perfetto; do
        "$TREAD" convert -q --to $to "$in" "$tmp/$i.conv.$to" 2> "$tmp/$i.err.$to"
        echo "$tmp/$i.conv.$to" | "$CAT" > "$tmp/$i.cat.$to" 2> /dev/null
        echo "convert $to $f $tmp/$i.orig $tmp/$i.cat.$to $tmp/$i.err.$to" >> "$tmp/$i.cases"
    done
    # the three sizes, but no two that give one piece (most files are small)
    bytes=$(wc -c < "$in")
    first=1
    for sz in $SIZES; do
        n=$(( $(echo "$sz" | sed 's/K$/*1024/; s/M$/*1048576/') ))
        [ $first -eq 1 ] || [ "$n" -lt "$bytes" ] || continue
        first=0
        mkdir "$tmp/$i.$sz"
        "$TREAD" split -q --max-bytes "$sz" "$in" "$tmp/$i.$sz/p" > "$tmp/$i.$sz.list" 2> "$tmp/$i.$sz.err"
        rc=$?
        [ -s "$tmp/$i.$sz.list" ] || continue
        "$CAT" < "$tmp/$i.$sz.list" > "$tmp/$i.$sz.cat" 2> /dev/null
        case $(head -n 1 "$tmp/$i.$sz.list") in
        *.json) ref=$tmp/$i.cat.json ;;   # through the JSON conversion
        *) ref=$tmp/$i.orig ;;            # its own format
        esac
        echo "split $sz $f $ref $tmp/$i.$sz.cat $tmp/$i.$sz.list $tmp/$i.orig $rc $tmp/$i.$sz.err" >> "$tmp/$i.cases"
    done
    rm -f "$tmp/$i.in" "$tmp/$i.conv.json" "$tmp/$i.conv.perfetto"
}

# on $JOBS (2) lanes, file k on lane k mod JOBS: run alone at the end of
# `make check`, one lane left a core idle for most of CI's longest test
JOBS=${JOBS:-2}
i=$(wc -l < "$tmp/files")
lane=0
while [ $lane -lt "$JOBS" ]; do
    awk -v j="$JOBS" -v l=$lane '(NR - 1) % j == l { print NR, $0 }' "$tmp/files" |
        while read -r k f; do one_file "$k" "$f"; done &
    lane=$((lane + 1))
done
wait
sampled=0 k=0
: > "$tmp/cases"
while read -r f; do
    k=$((k + 1))
    [ "$(wc -c < "$f")" -le "$SAMPLE_BYTES" ] || sampled=$((sampled + 1))
    cat "$tmp/$k.cases" >> "$tmp/cases"
done < "$tmp/files"

echo "$i corpus files, $sampled sampled (first $SAMPLE_BYTES bytes), piece sizes $SIZES"
python3 "$top_srcdir/tests/split_check.py" --jobs "$JOBS" --cases "$tmp/cases" > "$tmp/report"
rc=$?
grep -v '^ok' "$tmp/report" | head -60
echo "$(grep -c '^ok' "$tmp/report") checks pass, $(grep -c '^FAIL' "$tmp/report") fail"
exit $rc
