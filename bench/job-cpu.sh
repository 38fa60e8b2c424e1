#!/bin/bash
# bench/job-cpu.sh - CPU time per job of each daemon, two builds in one run.
#
# Usage: bench/job-cpu.sh --a DIR --b DIR [--jobs N] [--reps R]
#
# Wall-clock rates on a shared machine move with whatever else runs; the
# CPU time a daemon spends per job does not (much).  Starts one cluster
# from each build tree (hpcq-local, one worker of 2 cores, MUNGE as by
# default), then R rounds, A then B each round: perf stat counts the
# task-clock of the scheduler and of the worker (its own threads, and
# with its children up to their exec and the jobs themselves) while N
# /bin/true jobs are submitted and run to the end.  Prints a Markdown
# table of milliseconds per job (median over the rounds) and B / A
# (< 1: B spends less).  Needs perf.
set -uo pipefail
a="" b="" JOBS=300 REPS=3
while [ $# -gt 0 ]; do
    case $1 in
    --a) a=$2; shift 2 ;;
    --b) b=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "job-cpu.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -n "$a" ] && [ -n "$b" ] || { echo "job-cpu.sh: give --a DIR and --b DIR" >&2; exit 2; }
command -v perf > /dev/null || { echo "job-cpu.sh: needs perf" >&2; exit 2; }
declare -A build
build[A]=$(cd "$a" && pwd) build[B]=$(cd "$b" && pwd)
tmp=$(mktemp -d /tmp/hpcq-job-cpu.XXXXXX)
trap 'for m in A B; do "${build[$m]}/cli/hpcq-local" stop "$tmp/$m" >/dev/null 2>&1; done; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
echo true > job.sh
for m in A B; do
    "${build[$m]}/cli/hpcq-local" start "$tmp/$m" --workers 1 --cpus-per-worker 2 \
        --server-name "$m" > /dev/null || { echo "job-cpu.sh: cannot start cluster $m" >&2; exit 1; }
done
on() {
    local m=$1 cmd=$2; shift 2
    HPCQ_SERVER=unix:$tmp/$m/hpcq.sock HPCQ_MUNGE_SOCKET=$tmp/$m/munge/munge.sock \
        "${build[$m]}/cli/$cmd" "$@"
}
unfinished() { on "$1" qstat 2>/dev/null | awk 'NR > 2 && $5 != "H"' | grep -c . ; }
msecs() { awk '/task-clock/ { gsub(",", "", $1); print $1 }' "$1"; }

round() {  # round M: one row per daemon into results.tsv
    local m=$1 s w p1 p2 p3
    s=$(cat "$tmp/$m/scheduler.pid") w=$(cat "$tmp/$m/worker1.pid")
    perf stat -e task-clock -p "$s" -o "$tmp/s.$m" & p1=$!
    perf stat -e task-clock -p "$w" -o "$tmp/w.$m" & p2=$!
    perf stat --no-inherit -e task-clock -p "$w" -o "$tmp/wn.$m" & p3=$!
    sleep 0.5
    for _ in $(seq 1 "$JOBS"); do on "$m" qsub -o /dev/null -e /dev/null job.sh > /dev/null || return 1; done
    while [ "$(unfinished "$m")" != 0 ]; do sleep 0.01; done
    sleep 0.5 # the last ends' bookkeeping
    kill -INT $p1 $p2 $p3; wait $p1 $p2 $p3
    printf '%s\tscheduler\t%s\n' "$m" "$(msecs "$tmp/s.$m")" >> results.tsv
    printf '%s\tworker\t%s\n' "$m" "$(msecs "$tmp/wn.$m")" >> results.tsv
    printf '%s\tworker_children\t%s\n' "$m" "$(msecs "$tmp/w.$m")" >> results.tsv
}
: > results.tsv
for r in $(seq 1 "$REPS"); do
    for m in A B; do
        echo "round $r: $m" >&2
        round "$m" || exit 1
    done
done
python3 - results.tsv "$JOBS" "$a" "$b" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m, k, v = line.split("\t")
    rows.setdefault(k, {}).setdefault(m, []).append(float(v) / int(sys.argv[2]))
names = [("scheduler", "scheduler, ms of CPU per job"),
         ("worker", "worker's own threads, ms per job"),
         ("worker_children", "worker with its children (fork to exec, and the jobs), ms per job")]
print("| measure | A (%s) | B (%s) | B / A |" % (sys.argv[3], sys.argv[4]))
print("| --- | ---: | ---: | ---: |")
for k, label in names:
    va, vb = statistics.median(rows[k]["A"]), statistics.median(rows[k]["B"])
    print("| %s | %.3f | %.3f | %.2f |" % (label, va, vb, vb / va))
PY
