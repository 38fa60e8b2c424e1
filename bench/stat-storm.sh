#!/bin/bash
# bench/stat-storm.sh - small queries and heartbeats under big answers
# (issue 15 §4).
#
# Usage: bench/stat-storm.sh [--jobs N] [--seconds S] [--readers R] [BUILD...]
#
# For each BUILD (a built hpcq tree; default: this one), one after the
# other: a cluster of 2 workers (heartbeat every 1 s, node_timeout 2 s),
# N held jobs (arrays of 10,000 subjobs) and one running job.  First, with
# nothing else going on, one client asks for that one job (`qstat ID`, a
# new connection each time) for S seconds; then again while R clients each
# read `qstat -f -t` of all N jobs over and over.  Prints per build: p50,
# p99 and max of the small query, idle and under load, the big reads done,
# and the nodes marked down (a node is marked down when the loop went
# node_timeout without serving its heartbeats; a small-query max under 1 s
# means no heartbeat waited longer than its interval).  Targets: p99 under
# 20 ms and no node down.  Give main's tree as a second BUILD to compare
# side by side in one run (the machine is shared: compare ratios).
# cpu% and wait% are the scheduler's time on a core and waiting in the
# run queue for one (% of the loaded window), from /proc/PID/schedstat.
# The readers run at nice 10: each is a qstat parsing some 150 MB of JSON
# at full speed, and on a small machine four of them would otherwise take
# the CPU from the scheduler and the small query, which would then measure
# the machine, not the scheduler's loop.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
njobs=100000 seconds=30 readers=4
builds=()
while [ $# -gt 0 ]; do
    case $1 in
    --jobs) njobs=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --readers) readers=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "stat-storm.sh: unknown option $1" >&2; exit 2 ;;
    *) builds+=("$(cd "$1" && pwd)"); shift ;;
    esac
done
[ ${#builds[@]} -gt 0 ] || builds=("$src")
tmp=$(mktemp -d /tmp/hpcq-stat-storm.XXXXXX)
cluster=""
cleanup() {
    [ -n "$cluster" ] && "$cluster_bin/hpcq-local" stop "$cluster" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT

# reader END: qstat -f -t in full until END (epoch seconds); prints the count.
reader() {
    local k=0
    while [ "$(date +%s)" -lt "$1" ]; do
        nice -n 10 "$cluster_bin/qstat" -f -t > /dev/null || break
        k=$((k + 1))
    done
    echo $k
}

# schedstat PID: the scheduler's time on a CPU and waiting for one, ns
# (/proc/PID/schedstat; the kernel's run-queue accounting): under load
# they say whether a slow answer was the loop working or waiting its turn.
schedstat() { cut -d' ' -f1,2 "/proc/$1/schedstat"; }

printf "%-40s %8s %8s %8s | %8s %8s %8s %6s %5s %6s %6s\n" build "idle p50" p99 max \
    "load p50" p99 max reads down "cpu%" "wait%"
for b in "${builds[@]}"; do
    cluster_bin=$b/cli
    cluster=$tmp/c$RANDOM
    export PATH=$b/cli:$PATH
    line=$("$cluster_bin/hpcq-local" start "$cluster" --workers 2 --cpus-per-worker 1 \
               --node-timeout 2 --sched-config max_array_size=10000) || exit 1
    eval "$line"
    run=$(echo "sleep 3600" | qsub -N runner)
    for k in $(seq 1 $((njobs / 10000))); do
        echo true | qsub -h -J 1-10000 > /dev/null || exit 1
    done
    idle=$(python3 "$src/tests/conn-load.py" latency "$HPCQ_SERVER" "$run" "$seconds")
    spid=$(cat "$cluster/scheduler.pid")
    read -r run0 wait0 < <(schedstat "$spid"); w0=$EPOCHREALTIME
    end=$(( $(date +%s) + seconds ))
    for r in $(seq 1 "$readers"); do reader "$end" > "$tmp/reads.$r" & done
    sleep 1
    load=$(python3 "$src/tests/conn-load.py" latency "$HPCQ_SERVER" "$run" $((seconds - 2)))
    wait
    read -r run1 wait1 < <(schedstat "$spid"); w1=$EPOCHREALTIME
    cpu=$(echo "($run1 - $run0) / 10000000 / ($w1 - $w0)" | bc -l)
    rq=$(echo "($wait1 - $wait0) / 10000000 / ($w1 - $w0)" | bc -l)
    reads=$(cat "$tmp"/reads.* | paste -sd+ | bc)
    log=$cluster/scheduler.log
    down=$(grep -c "is down" "$log")
    set -- $idle
    ip50=$4 ip99=$6 imax=$8
    set -- $load
    printf "%-40s %8s %8s %8s | %8s %8s %8s %6s %5s %6.1f %6.1f\n" "$b" "$ip50" "$ip99" "$imax" \
        "$4" "$6" "$8" "$reads" "$down" "$cpu" "$rq"
    "$cluster_bin/hpcq-local" stop "$cluster" >/dev/null 2>&1
    cluster=""
    rm -f "$tmp"/reads.*
done
