#!/bin/bash
# bench/swarm.sh - the scheduler with thousands of connected nodes.
#
# Usage: bench/swarm.sh [--build DIR] [--out DIR] [--nodes "1000 10000"] [--quick]
#
# For each node count N: one hpcq-scheduler (started here, its own state
# folder) and bench/swarm, one process holding N real worker connections
# over TCP (node.hello, heartbeats every HEARTBEAT s at each node's own
# phase, jobs "run" for the seconds of their `sleep`, nothing executed).
# Measured, in this order:
#   1. connect: seconds until all N nodes are up;
#   2. idle: the scheduler's CPU (user + system, % of one core) over IDLE_S
#      seconds with nothing queued, and its resident memory;
#   3. the same with JOBS held jobs queued (wire submissions, 16 at once);
#   4. start latency: LATN `sleep RUN_S` jobs submitted by qsub one at a
#      time, from just before qsub to the swarm receiving job.launch;
#   5. end to end: E2E jobs of `sleep RUN_S` as one array, from qsub until
#      the swarm has reported the last one finished: jobs/s overall, and
#      the swarm's best sustained rate (median of its per-second counts
#      while the array ran), with the scheduler's CPU;
#   6. heartbeats: answered late (over half the interval), missed (still
#      unanswered at the next), nodes the scheduler marked down.
# The held jobs stay queued through 4 and 5.  Writes OUT/swarm.tsv (nodes,
# metric, value) and prints a table.  --quick: small sizes (make check).
# Authentication is off (auth = none on the scheduler, and the table says
# so): the swarm speaks the worker protocol without MUNGE credentials, so
# what is measured is the scheduler, not munged (bench/auth-cost.sh
# measures what a credential costs).
# Stops what it started and removes its temporary folder on exit.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=""
out=""
quick=0
nodes_list=""
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --nodes) nodes_list=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "swarm.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
if [ $quick = 1 ]; then
    : "${JOBS:=500}" "${HEARTBEAT:=2}" "${IDLE_S:=3}" "${LATN:=3}" "${E2E:=200}"
    : "${nodes_list:=20}"
else
    : "${JOBS:=100000}" "${HEARTBEAT:=30}" "${IDLE_S:=30}" "${LATN:=20}" "${E2E:=100000}"
    : "${nodes_list:=1000 10000}"
fi
: "${NCPUS:=8}" "${RUN_S:=1}" "${E2E_TIMEOUT:=900}"

for b in "$build" "$here/.." /tmp/b; do
    [ -n "$b" ] && [ -x "$b/bench/swarm" ] && [ -x "$b/scheduler/hpcq-scheduler" ] \
        && { build=$(cd "$b" && pwd); break; }
done
[ -n "$build" ] || { echo "swarm.sh: no build with bench/swarm found (--build DIR)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/hpcq-swarm.XXXXXX)
[ -n "$out" ] || { if [ $quick = 1 ]; then out=$tmp/out; else out=$here/run-out; fi; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
tsv=$out/swarm.tsv
: > "$tsv"
sched_pid=""; swarm_pid=""
cleanup() {
    local p
    for p in $swarm_pid $sched_pid; do
        kill -TERM "$p" 2>/dev/null
        for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    if [ -n "${KEEP:-}" ]; then echo "swarm.sh: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }
record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$tsv"; }
wait_until() {
    local deadline=$(( $(date +%s) + $1 )) iv=$2; shift 2
    until "$@"; do
        [ "$(date +%s)" -ge "$deadline" ] && return 1
        sleep "$iv"
    done
}
# CPU seconds (user + system) the process has used.
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$1/stat"; }
rss_mib() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
# The scheduler's CPU over S seconds, as % of one core.
cpu_pct() {
    local c0 c1 t0 t1
    c0=$(cpu_s "$sched_pid"); t0=$EPOCHREALTIME
    sleep "$1"
    c1=$(cpu_s "$sched_pid"); t1=$EPOCHREALTIME
    echo "($c1 - $c0) * 100 / ($t1 - $t0)" | bc -l
}
load() { cut -d' ' -f1 /proc/loadavg; }
# The swarm's last counter of NAME (its per-second report lines).
swarm_counter() { grep '^t=' "$dir/swarm.out" | tail -1 | tr ' ' '\n' | sed -n "s/^$1=//p"; }

run_nodes() {
    local n=$1 port t0 t1 k ids c0 c1 lat
    dir=$tmp/n$n
    mkdir -p "$dir"
    say "=== $n nodes ($NCPUS cores each, heartbeats every $HEARTBEAT s)"
    cat > "$dir/scheduler.conf" <<CONF
state_dir = $dir
socket = $dir/hpcq.sock
listen = 127.0.0.1:0
node_timeout = $(( HEARTBEAT * 3 ))
sched_interval_ms = 1000
sched_policy = easy
auth = none
max_array_size = $(( E2E > 10000 ? E2E : 10000 ))
CONF
    # Root's jobs run only where PBS's acl_roots allows them (as hpcq-local).
    [ "$(id -u)" -eq 0 ] && echo "acl_roots = root" >> "$dir/scheduler.conf"
    "$build/scheduler/hpcq-scheduler" --config "$dir/scheduler.conf" \
        --log-file "$dir/scheduler.log" >"$dir/scheduler.out" 2>&1 &
    sched_pid=$!
    wait_until 30 0.05 test -s "$dir/scheduler.address" || { say "scheduler did not start"; return 1; }
    port=$(sed -n 's/^tcp=127.0.0.1://p' "$dir/scheduler.address")
    export HPCQ_SERVER=unix:$dir/hpcq.sock
    record "$n" rss_mib_empty "$(rss_mib "$sched_pid")"

    t0=$EPOCHREALTIME
    "$build/bench/swarm" --server "127.0.0.1:$port" --nodes "$n" --ncpus "$NCPUS" \
        --mem $(( 64 << 30 )) --heartbeat "$HEARTBEAT" --run-ms $(( RUN_S * 1000 )) \
        --launch-log "$dir/launch.log" > "$dir/swarm.out" 2>"$dir/swarm.err" &
    swarm_pid=$!
    if ! wait_until 600 0.1 grep -q '^ready' "$dir/swarm.out"; then
        say "the swarm did not come up: $(tail -2 "$dir/swarm.err")"; return 1
    fi
    t1=$EPOCHREALTIME
    record "$n" connect_s "$(echo "$t1 - $t0" | bc -l)"
    say "$n nodes up in $(echo "$t1 - $t0" | bc -l | cut -c1-5) s"

    sleep 2     # the hellos' commits and the first pass settle
    record "$n" idle_cpu_pct "$(cpu_pct "$IDLE_S")"
    record "$n" idle_load "$(load)"
    record "$n" rss_mib_idle "$(rss_mib "$sched_pid")"
    say "idle: $(awk -F'\t' -v n="$n" '$1 == n && $2 == "idle_cpu_pct" { printf "%.2f", $3 }' "$tsv") % of a core"

    say "queueing $JOBS held jobs"
    t0=$EPOCHREALTIME
    STORM_SCRIPT="sleep $RUN_S" python3 "$here/wire-storm.py" "$dir/hpcq.sock" "$JOBS" 16 \
        > "$dir/fill.out" || { say "fill failed"; return 1; }
    t1=$EPOCHREALTIME
    record "$n" fill_jobs_per_s "$(echo "$JOBS / ($t1 - $t0)" | bc -l)"
    sleep 2
    record "$n" queued_cpu_pct "$(cpu_pct "$IDLE_S")"
    record "$n" queued_load "$(load)"
    record "$n" rss_mib_queued "$(rss_mib "$sched_pid")"
    say "with $JOBS queued: $(awk -F'\t' -v n="$n" '$1 == n && $2 == "queued_cpu_pct" { printf "%.2f", $3 }' "$tsv") % of a core, $(rss_mib "$sched_pid") MiB"

    : > "$dir/lat"
    for k in $(seq 1 "$LATN"); do
        t0=$EPOCHREALTIME
        id=$(echo "sleep $RUN_S" | "$build/cli/qsub" -o /dev/null -e /dev/null) || continue
        if wait_until 30 0.002 grep -q "^$id " "$dir/launch.log"; then
            lat=$(awk -v id="$id" -v t0="$t0" '$1 == id { printf "%.3f", ($2 - t0) * 1000 }' "$dir/launch.log")
            echo "$lat" >> "$dir/lat"
        fi
        sleep "$RUN_S"
    done
    record "$n" latency_median_ms "$(sort -g "$dir/lat" | awk '{ v[NR] = $1 } END { print NR ? (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) : "nan" }')"
    record "$n" latency_max_ms "$(sort -g "$dir/lat" | tail -1)"

    say "end to end: $E2E jobs of sleep $RUN_S as one array"
    local before after
    # The latency jobs first end, so that only the array's are counted.
    wait_until 60 0.2 eval '[ "$(swarm_counter running)" = 0 ]' \
        || say "latency jobs still running: $(swarm_counter running)"
    before=$(swarm_counter finished)
    c0=$(cpu_s "$sched_pid")
    t0=$EPOCHREALTIME
    id=$(echo "sleep $RUN_S" | "$build/cli/qsub" -J "1-$E2E" -o /dev/null -e /dev/null) \
        || { say "array refused"; return 1; }
    if ! wait_until "$E2E_TIMEOUT" 0.2 eval '[ $(( $(swarm_counter finished) - before )) -ge '"$E2E"' ]'; then
        say "end to end did not finish: $(( $(swarm_counter finished) - before )) of $E2E"
    fi
    t1=$EPOCHREALTIME
    c1=$(cpu_s "$sched_pid")
    after=$(swarm_counter finished)
    record "$n" e2e_finished "$(( after - before ))"
    record "$n" e2e_jobs_per_s "$(echo "($after - $before) / ($t1 - $t0)" | bc -l)"
    record "$n" e2e_cpu_pct "$(echo "($c1 - $c0) * 100 / ($t1 - $t0)" | bc -l)"
    record "$n" e2e_load "$(load)"
    # The swarm's per-second finish rate while the array ran, its busy part.
    record "$n" e2e_sustained_per_s "$(awk -v b="$before" '/^t=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        if (v["finished"] > b && v["finish_per_s"] > 0) print v["finish_per_s"] }' "$dir/swarm.out" \
        | sort -g | awk '{ x[NR] = $1 } END { print NR ? x[int((NR + 1) / 2)] : "nan" }')"
    record "$n" rss_mib_after "$(rss_mib "$sched_pid")"
    say "end to end: $(awk -F'\t' -v n="$n" '$1 == n && $2 == "e2e_jobs_per_s" { printf "%.0f", $3 }' "$tsv") jobs/s"

    kill -TERM "$swarm_pid"; wait "$swarm_pid" 2>/dev/null; swarm_pid=""
    grep '^summary' "$dir/swarm.out" | tr ' ' '\n' | sed -n 's/=/\t/p' | while IFS=$'\t' read -r key val; do
        case $key in hb_*|heartbeats|answered|links_lost|reconnects|refused) record "$n" "swarm_$key" "$val" ;; esac
    done
    record "$n" nodes_marked_down "$(grep -c 'is down' "$dir/scheduler.log")"
    kill -TERM "$sched_pid"; wait "$sched_pid" 2>/dev/null; sched_pid=""
    [ -n "${KEEP:-}" ] || rm -rf "$dir/hpcq.sqlite"*
}

t_start=$(date +%s)
for n in $nodes_list; do
    run_nodes "$n" || say "$n nodes: incomplete"
done
{
    echo "# machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); hpcq: $(git -C "$here" describe --always --dirty 2>/dev/null || echo ?)"
    echo "# authentication: none (auth = none: the swarm's nodes send no MUNGE credentials)"
    echo "# params: JOBS=$JOBS HEARTBEAT=$HEARTBEAT IDLE_S=$IDLE_S LATN=$LATN E2E=$E2E NCPUS=$NCPUS RUN_S=$RUN_S; $(( $(date +%s) - t_start )) s"
    printf '| measure |'; for n in $nodes_list; do printf ' %s nodes |' "$n"; done; echo
    printf '| --- |'; for n in $nodes_list; do printf ' ---: |'; done; echo
    cut -f2 "$tsv" | awk '!seen[$0]++' | while read -r m; do
        printf '| %s |' "$m"
        for n in $nodes_list; do
            printf ' %s |' "$(awk -F'\t' -v n="$n" -v m="$m" '$1 == n && $2 == m { v = $3 } END { if (v == "") print "-"; else if (v ~ /^[0-9.]+$/ && v + 0 != int(v + 0)) printf "%.2f", v; else print v }' "$tsv")"
        done
        echo
    done
} > "$out/swarm.md"
cat "$out/swarm.md"
