#!/bin/bash
# bench/submit-storm.sh - submission throughput and group commit, side by side.
#
# Starts a one-worker cluster in a temp folder and submits held jobs (so
# nothing runs and only the submission path is measured):
#   1. sequentially, one qsub after another (each pays its own commit);
#   2. from PAR parallel submitters (commits are shared: group commit).
# Reports jobs/s for both, their ratio, and jobs per commit from the
# scheduler's counters (qstat -B -f); the same through the wire directly
# (bench/wire-storm.py: the daemon's capacity without qsub's process
# start-up) from 1 and PAR connections; then the cost of status queries
# (qstat, qstat -f -F json) with all those jobs in the queue.
#
# Usage: bench/submit-storm.sh [BUILDDIR] [JOBS] [PAR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/..}" && pwd)
jobs=${2:-1000}
par=${3:-16}
export PATH="$build/cli:$PATH"
dir=$(mktemp -d /tmp/hpcq-bench.XXXXXX)
trap 'hpcq-local stop "$dir/c" >/dev/null 2>&1; rm -rf "$dir"' EXIT
eval "$(hpcq-local start "$dir/c" --workers 1)"
cd "$dir"
echo "true" > job.sh

counter() { qstat -B -f | sed -n "s/^    $1 = //p"; }
now() { date +%s.%N; }

submit_n() {
    local i
    for i in $(seq 1 "$1"); do qsub -h job.sh > /dev/null; done
}

c0=$(counter hpcq_commits); j0=$(counter hpcq_jobs_submitted)
t0=$(now); submit_n "$jobs"; t1=$(now)
c1=$(counter hpcq_commits); j1=$(counter hpcq_jobs_submitted)
for k in $(seq 1 "$par"); do submit_n $((jobs / par)) & done; wait
t2=$(now)
c2=$(counter hpcq_commits); j2=$(counter hpcq_jobs_submitted)

seq_rate=$(echo "($j1 - $j0) / ($t1 - $t0)" | bc -l)
par_rate=$(echo "($j2 - $j1) / ($t2 - $t1)" | bc -l)
printf "sequential: %d jobs in %.2f s = %.0f jobs/s, %.2f jobs per commit\n" \
    $((j1 - j0)) "$(echo "$t1 - $t0" | bc -l)" "$seq_rate" \
    "$(echo "($j1 - $j0) / ($c1 - $c0)" | bc -l)"
printf "%d parallel: %d jobs in %.2f s = %.0f jobs/s, %.2f jobs per commit\n" "$par" \
    $((j2 - j1)) "$(echo "$t2 - $t1" | bc -l)" "$par_rate" \
    "$(echo "($j2 - $j1) / ($c2 - $c1)" | bc -l)"
printf "parallel / sequential throughput: %.2f\n" "$(echo "$par_rate / $seq_rate" | bc -l)"

# The daemon alone, without qsub's process start: one connection, then
# many, through the wire directly.
for conns in 1 "$par"; do
    c3=$(counter hpcq_commits); j3=$(counter hpcq_jobs_submitted)
    python3 "$here/wire-storm.py" "$HPCQ_SERVER" "$jobs" "$conns"
    c4=$(counter hpcq_commits); j4=$(counter hpcq_jobs_submitted)
    printf "   %.2f jobs per commit\n" "$(echo "($j4 - $j3) / ($c4 - $c3)" | bc -l)"
done

total=$(qstat | tail -n +3 | wc -l)
t3=$(now); for i in $(seq 1 20); do qstat > /dev/null; done; t4=$(now)
for i in $(seq 1 5); do qstat -f -F json > /dev/null; done; t5=$(now)
printf "qstat with %d jobs: %.1f ms; qstat -f -F json: %.1f ms\n" "$total" \
    "$(echo "($t4 - $t3) * 1000 / 20" | bc -l)" "$(echo "($t5 - $t4) * 1000 / 5" | bc -l)"
