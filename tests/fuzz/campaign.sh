#!/bin/bash
# campaign.sh - run every libFuzzer target in turn, niced, and sum up.
#
#   tests/fuzz/campaign.sh [-t SECONDS] [-o RESULTS] [-b BUILDDIR] [TARGET...]
#
# Each target (default: all of tests/fuzz/targets.def) runs alone for
# SECONDS (default 3600) under nice -n 19, starting from the committed
# corpus (tests/fuzz/corpus/TARGET, read only) and the corpus it grew in
# RESULTS before, with tests/fuzz/dict/TARGET.dict when there is one.  A
# crash stops libFuzzer; the target is started again for the time left
# (at most 5 crashes per target), so one bug does not end its campaign.
#
# RESULTS (default ${TMPDIR:-/tmp}/hpcq-fuzz, never inside the repository)
# gets, per target: corpus/ (what libFuzzer added), crashes/ (reproducers:
# crash-*, leak-*, timeout-*, oom-*), log (libFuzzer's output) and
# summary (one line); summary.md collects the lines as a table for
# tests/fuzz/RESULTS.md.  The binaries are BUILDDIR/tests/fuzz/fuzz-TARGET
# (default: the tree this script is in), built by make fuzz if missing.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
secs=3600
out=${TMPDIR:-/tmp}/hpcq-fuzz
build=$src
while getopts "t:o:b:" opt; do
    case $opt in
    t) secs=$OPTARG ;;
    o) out=$OPTARG ;;
    b) build=$OPTARG ;;
    *) sed -n '2,20s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "campaign.sh: -t wants seconds" >&2; exit 2; }
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1
case $out/ in
"$src"/*) echo "campaign.sh: results go outside the repository, not $out" >&2; exit 2 ;;
esac
if [ $# -eq 0 ]; then
    set -- $(sed -n 's/^FUZZ (\([a-z_0-9]*\))$/\1/p' "$src/tests/fuzz/targets.def")
fi
for t in "$@"; do
    if [ ! -x "$build/tests/fuzz/fuzz-$t" ]; then
        make -C "$build" -s fuzz > /dev/null || { echo "campaign.sh: make fuzz failed" >&2; exit 1; }
        break
    fi
done

# The last status line libFuzzer printed: "#N DONE cov: C ft: F corp: K/S ..."
field() { sed -n "s/.* $1: \([0-9]*\).*/\1/p" | tail -1; }

run_target() {
    local t=$1 dir=$out/$1 left=$secs runs=0 start now execs=0 n
    local -a dict=()
    mkdir -p "$dir/corpus" "$dir/crashes"
    [ -f "$src/tests/fuzz/dict/$t.dict" ] && dict=("-dict=$src/tests/fuzz/dict/$t.dict")
    : > "$dir/log"
    start=$(date +%s)
    while [ "$left" -gt 0 ] && [ $runs -lt 6 ]; do
        runs=$((runs + 1))
        echo "== run $runs, $left s left ($(date -Is))" >> "$dir/log"
        nice -n 19 "$build/tests/fuzz/fuzz-$t" -max_total_time="$left" -print_final_stats=1 \
            -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$dir/crashes/" "${dict[@]}" \
            "$dir/corpus" "$src/tests/fuzz/corpus/$t" >> "$dir/log" 2>&1
        n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
        execs=$((execs + ${n:-0}))
        now=$(date +%s)
        left=$((secs - (now - start)))
    done
    local took=$(( $(date +%s) - start ))
    local cov ft corp crashes
    cov=$(grep -a "cov: " "$dir/log" | field cov)
    ft=$(grep -a "ft: " "$dir/log" | field ft)
    corp=$(grep -a "corp: " "$dir/log" | field corp)
    crashes=$(find "$dir/crashes" -type f | wc -l)
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$t" "$took" "$execs" \
        "$((execs / (took > 0 ? took : 1)))" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$crashes" \
        | tee "$dir/summary"
}

{
    echo "hpcq fuzz campaign: $secs s per target, $(date -Is), $(git -C "$src" describe --always --dirty 2>/dev/null)"
    echo
    echo "| target | seconds | execs | exec/s | cov | ft | corpus | crashes |"
    echo "|---|---|---|---|---|---|---|---|"
} > "$out/summary.md"
for t in "$@"; do
    run_target "$t" >> "$out/summary.md"
done
cat "$out/summary.md"
