#!/bin/sh
# tread stats --jobs N: an FXT or JSON file read as N byte ranges on N
# threads must print exactly what one pass prints (report, warnings and
# errors on stderr, exit status), text (N = 2, 7) and --json (N = 3; the
# malformed files: text, N = 7), gzip'd JSON too (N = 2, 3, 7); other
# input, and compressed FXT, are read in one pass. Inputs: the FXT and JSON fuzz seeds (fxt made by
# fuzz/fxt_seeds.py), the JSON test data, and the FXT and uncompressed
# JSON corpus where ../shared is present.
. "$(dirname "$0")/common.sh"

files=$(ls "$top_srcdir"/fuzz/seeds/fxt/*.fxt "$top_srcdir"/fuzz/seeds/json/*.json "$DATA"/*.json)
corpus="${TREAD_CORPUS:-$top_srcdir/../shared/corpus}/fxt"
if [ -d "$corpus" ]; then
    files="$files $(ls "$corpus"/*.fxt "$corpus"/malformed/*.fxt)"
    files="$files $(find "$corpus/../json" -name '*.json' | sort)"
else
    echo "note: $corpus absent: the fuzz seeds only"
fi

same() { # same FILE JOBS OPTS...: -j 1 against -j each of JOBS
    f=$1
    jobs=$2
    shift 2
    "$TREAD" stats "$@" -j 1 "$f" >"$tmp/one.out" 2>"$tmp/one.err"
    one=$?
    for j in $jobs; do
        "$TREAD" stats "$@" -j "$j" "$f" >"$tmp/j.out" 2>"$tmp/j.err"
        got=$?
        if [ "$got" -ne "$one" ] || ! cmp -s "$tmp/one.out" "$tmp/j.out" ||
            ! cmp -s "$tmp/one.err" "$tmp/j.err"; then
            fail "$(basename "$f") $* -j $j differs from -j 1 (exit $got, $one)"
            diff "$tmp/one.out" "$tmp/j.out" | head -5 >&2
            diff "$tmp/one.err" "$tmp/j.err" | head -5 >&2
            return
        fi
    done
    pass "$(basename "$f") $*: -j $jobs as -j 1 (exit $one)"
}

n=0
for f in $files; do # (each run costs ~0.1 s of start-up under ASan)
    case $f in
    */malformed/* | */fuzz/seeds/json/* | "$DATA"/*) same "$f" 7 ;; # small: the errors and warnings
    *)
        same "$f" "2 7"
        same "$f" 3 --json
        ;;
    esac
    n=$((n + 1))
done
[ "$n" -ge 50 ] || fail "only $n FXT and JSON files"

# Warnings that quote a newline (an unknown phase "Q\nZ"): a range's held
# warnings are printed whole after the ranges before it (they were split at
# the newline, and lost the text after it, before session 19).
printf '%s\n' '[{"ph":"B","name":"a","ts":1,"pid":1,"tid":1},' \
    '{"ph":"Q\nZ","name":"x\ny","ts":2,"pid":1,"tid":1},' \
    '{"ph":"E","ts":3,"pid":1,"tid":1},' '{"ph":"\n","name":"b","ts":4,"pid":1,"tid":1}]' \
    >"$tmp/newlines.json"
same "$tmp/newlines.json" "2 3"
contains_nl=$(grep -c '^Z": delivered' "$tmp/j.err")
[ "$contains_nl" = 1 ] && pass "a held warning keeps the line after its newline" ||
    fail "a held warning lost the line after its newline"

# The ranges really are read as ranges (and the rest is not).
seed="$top_srcdir/fuzz/seeds/fxt/all_records.fxt"
TREAD_STATS_TRACE_RANGES=1 expect_status 0 "stats -j 7 on all_records.fxt" \
    "$TREAD" stats -j 7 "$seed"
contains "$tmp/err" '^tread: stats: 7 byte ranges' "-j 7: seven ranges"
TREAD_STATS_TRACE_RANGES=1 expect_status 0 "stats -j 2 on small.json" \
    "$TREAD" stats -j 2 "$DATA/small.json"
contains "$tmp/err" '^tread: stats: 2 byte ranges' "JSON: -j 2, two ranges"
TREAD_STATS_TRACE_RANGES=1 expect_status 0 "stats on all_records.fxt" "$TREAD" stats "$seed"
if grep -q 'byte ranges' "$tmp/err"; then
    fail "a small file read in ranges by default"
else
    pass "a small file: one pass by default"
fi

# Not FXT or JSON, or compressed FXT: one pass, the same report.
cpuprofile="$top_srcdir/fuzz/seeds/json/cpuprofile_small.cpuprofile"
TREAD_STATS_TRACE_RANGES=1 expect_status 0 "stats -j 2 on a .cpuprofile" \
    "$TREAD" stats -j 2 "$cpuprofile"
if grep -q 'byte ranges' "$tmp/err"; then fail ".cpuprofile read in ranges"; else pass ".cpuprofile: one pass"; fi
same "$cpuprofile" 2
if have gzip; then
    gzip -c "$seed" >"$tmp/seed.fxt.gz"
    TREAD_STATS_TRACE_RANGES=1 expect_status 0 "stats -j 2 on all_records.fxt.gz" \
        "$TREAD" stats -j 2 "$tmp/seed.fxt.gz"
    if grep -q 'byte ranges' "$tmp/err"; then fail ".fxt.gz read in ranges"; else pass ".fxt.gz: one pass"; fi
    same "$tmp/seed.fxt.gz" 2

    # gzip'd JSON is read in ranges, each inflating what comes before it
    # (cut where the gzip trailer says, which may be wrong: the ranges
    # cover the input wherever they are cut)
    gzip -c "$DATA/small.json" >"$tmp/small.json.gz"
    TREAD_STATS_TRACE_RANGES=1 expect_status 0 "stats -j 2 on small.json.gz" \
        "$TREAD" stats -j 2 "$tmp/small.json.gz"
    contains "$tmp/err" '^tread: stats: 2 byte ranges of [0-9]* bytes [(]decompressed[)]' ".json.gz: two ranges"
    m=0
    for f in $files; do
        case $f in *.json) ;; *) continue ;; esac
        gzip -c "$f" >"$tmp/one.json.gz"
        same "$tmp/one.json.gz" "2 3"
        m=$((m + 1))
    done
    [ "$m" -ge 40 ] || fail "only $m gzip'd JSON files"
    # 3,000 slices and counters on 3 threads, ~190 KB: the cuts below fall
    # inside records
    big="$tmp/big.json"
    awk 'BEGIN { printf "{\"traceEvents\":[";
        for (i = 0; i < 1000; i++)
            printf "%s{\"ph\":\"B\",\"name\":\"s%d\",\"ts\":%d,\"pid\":1,\"tid\":%d,\"args\":{\"i\":%d}},{\"ph\":\"E\",\"ts\":%d.5,\"pid\":1,\"tid\":%d},{\"ph\":\"C\",\"name\":\"c\",\"ts\":%d,\"pid\":1,\"args\":{\"v\":%d}}", (i ? "," : ""), i % 7, i, i % 3, i, i, i % 3, i, i * 3;
        printf "]}\n" }' >"$big"
    # two members (the trailer holds the second's size only)
    { gzip -c "$big"; printf ',' | gzip -c; gzip -c "$DATA/small.json"; } >"$tmp/members.json.gz"
    same "$tmp/members.json.gz" "2 3 7"
    # cut short (the last range alone reaches the cut), a damaged CRC (an
    # error every range meets), bytes after the last member
    gzip -c "$big" >"$tmp/whole.json.gz"
    size=$(wc -c <"$tmp/whole.json.gz")
    head -c $((size * 2 / 3)) "$tmp/whole.json.gz" >"$tmp/cut.json.gz"
    same "$tmp/cut.json.gz" "2 7"
    head -c $((size - 8)) "$tmp/whole.json.gz" >"$tmp/crc.json.gz"
    printf '\001\002\003\004' >>"$tmp/crc.json.gz"
    tail -c 4 "$tmp/whole.json.gz" >>"$tmp/crc.json.gz"
    same "$tmp/crc.json.gz" "2 7"
    { cat "$tmp/whole.json.gz"; printf 'garbage'; } >"$tmp/tail.json.gz"
    same "$tmp/tail.json.gz" "2 7"
fi

expect_status 2 "-j 0 refused" "$TREAD" stats -j 0 "$seed"
expect_status 2 "--jobs 65 refused" "$TREAD" stats --jobs 65 "$seed"
expect_status 2 "--jobs with cat refused" "$TREAD" cat --jobs 2 "$seed"
contains "$tmp/err" "applies only to 'tread stats'" "--jobs: stats only"
finish
