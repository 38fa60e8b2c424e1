#!/bin/bash
# bench/swarm.sh - the scheduler with thousands of connected nodes.
#
# Usage: bench/swarm.sh [--build DIR] [--out DIR] [--nodes "1000 10000"]
#                       [--auth "none munge"] [--quick]
#
# For each node count N: one hpcq-scheduler (started here, its own state
# folder) and bench/swarm, one process holding N real worker connections
# over TCP (node.hello, heartbeats every HEARTBEAT s at each node's own
# phase, jobs "run" for the seconds of their `sleep`, nothing executed).
# Measured, in this order:
#   1. connect: seconds until all N nodes are up;
#   2. idle: the scheduler's CPU (user + system, % of one core) over IDLE_S
#      seconds with nothing queued, and its resident memory (the swarm's
#      CPU and, with MUNGE, both munged daemons' beside it, here and in 3
#      and 5);
#   3. the same with JOBS held jobs queued (wire submissions, 16 at once);
#   4. start latency: LATN `sleep RUN_S` jobs submitted by qsub one at a
#      time, from just before qsub to the swarm receiving job.launch;
#   5. end to end: E2E jobs of `sleep RUN_S` as one array, from qsub until
#      the swarm has reported the last one finished: jobs/s overall, and
#      the swarm's best sustained rate (median of its per-second counts
#      while the array ran), with the scheduler's CPU;
#   6. the scheduling passes in 3 and 5 (the scheduler's own histogram,
#      hpcq_scheduling_pass_duration_seconds on /metrics): how many, their
#      mean, and the bucket bound the longest fell under;
#   7. heartbeats: answered late (over half the interval), missed (still
#      unanswered at the next), nodes the scheduler marked down.
# The held jobs stay queued through 4 and 5.  Writes OUT/swarm.tsv (run,
# metric, value; the run is N, or N/munge) and prints a table.  --quick:
# small sizes (make check).
# --auth: the scheduler's authentication, one run per word for each node
# count, taken in turn in the same run (default: none).
#   none:  auth = none; the swarm's nodes send no credentials.
#   munge: auth = munge, and the swarm runs with --munge: each node opens
#          its link with link.open and signs and checks every message as
#          hpcq-worker does.  Two munged daemons with one key, started here:
#          the scheduler's host's, and the nodes' (one for all the swarm's
#          nodes: on a real cluster each host has its own).  Their CPU is
#          measured beside the scheduler's (munged does the crypto).
#          Exits 3 if munged cannot be started.
# Stops what it started and removes its temporary folder on exit.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=""
out=""
quick=0
nodes_list=""
auths=none
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --nodes) nodes_list=$2; shift 2 ;;
    --auth) auths=$2; shift 2 ;;
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
for a in $auths; do
    case $a in none|munge) ;; *) echo "swarm.sh: invalid --auth '$a' (want none and/or munge, e.g. \"none munge\")" >&2; exit 2 ;; esac
done

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
sched_pid=""; swarm_pid=""; munged_pids=""
cleanup() {
    local p
    for p in $swarm_pid $sched_pid $munged_pids; do
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
load() { cut -d' ' -f1 /proc/loadavg; }
# CPU seconds of the processes whose cpu_s is wanted in a window: the
# scheduler, the swarm, and with MUNGE the two munged daemons.
cpu_snap() {
    local p
    for p in "$sched_pid" "${swarm_pid:-}" ${munged_sched:-} ${munged_nodes:-}; do
        [ -n "$p" ] && cpu_s "$p" || echo 0
    done | tr '\n' ' '
}
# record_cpu RUN PREFIX SNAP0 SNAP1 T0 T1: each one's % of a core between.
record_cpu() {
    local run=$1 pre=$2 i=0 name
    local -a a=($3) b=($4)
    for name in cpu_pct swarm_cpu_pct munged_sched_cpu_pct munged_nodes_cpu_pct; do
        if [ "$i" -lt 2 ] || [ "$mode" = munge ]; then
            record "$run" "${pre}_$name" "$(echo "(${b[$i]} - ${a[$i]}) * 100 / ($6 - $5)" | bc -l)"
        fi
        i=$((i + 1))
    done
}
# cpu_window RUN PREFIX S: every process's CPU over S seconds.
cpu_window() {
    local s0 s1 t0 t1
    s0=$(cpu_snap); t0=$EPOCHREALTIME
    sleep "$3"
    s1=$(cpu_snap); t1=$EPOCHREALTIME
    record_cpu "$1" "$2" "$s0" "$s1" "$t0" "$t1"
}
# The pass histogram's lines (name{le} value) from /metrics, into FILE.
pass_snap() {
    curl -s --max-time 30 "http://$http/metrics" |
        awk '/^hpcq_scheduling_pass_duration_seconds_(bucket|sum|count)/ { print $1, $2 }' > "$1"
}
# record_pass RUN PREFIX FILE0 FILE1: passes between two snapshots, their
# mean (ms) and the smallest bucket bound holding all of them (ms).
record_pass() {
    local f
    f=$(awk 'FNR == NR { a[$1] = $2; next } { b[$1] = $2 }
        END {
            n = b["hpcq_scheduling_pass_duration_seconds_count"] - a["hpcq_scheduling_pass_duration_seconds_count"]
            s = b["hpcq_scheduling_pass_duration_seconds_sum"] - a["hpcq_scheduling_pass_duration_seconds_sum"]
            max = "inf"; best = -1
            for (k in b) if (match(k, /le="[0-9.e+-]+"/)) {
                le = substr(k, RSTART + 4, RLENGTH - 5) + 0
                if (b[k] - a[k] >= n && (best < 0 || le < best)) best = le
            }
            if (best >= 0) max = best * 1000
            printf "%d %s %s\n", n, (n > 0 ? s * 1000 / n : "nan"), (n > 0 ? max : "nan")
        }' "$3" "$4")
    set -- "$1" "$2" $f
    record "$1" "${2}_passes" "$3"
    record "$1" "${2}_pass_mean_ms" "$4"
    record "$1" "${2}_pass_max_under_ms" "$5"
}
# metric RUN NAME: a recorded figure.
metric() { awk -F'\t' -v r="$1" -v m="$2" '$1 == r && $2 == m { v = $3 } END { printf "%.2f", v }' "$tsv"; }

# MUNGE: one key, two munged daemons (the scheduler's host's and the
# nodes'), as hpcq-local's start_munged runs one.
munged_sched=""; munged_nodes=""
start_munged() {
    local m=$tmp/munge-$1
    mkdir -p "$m" && chmod 711 "$m" || return 1
    munged --force --socket="$m/munge.sock" --key-file="$tmp/munge.key" \
        --pid-file="$m/munged.pid" --log-file="$m/munged.log" \
        --seed-file="$m/munged.seed" </dev/null >>"$m/munged.out" 2>&1 || return 1
    wait_until 10 0.05 test -S "$m/munge.sock" -a -s "$m/munged.pid" || return 1
    cat "$m/munged.pid"
}
if [[ " $auths " == *" munge "* ]]; then
    if ! command -v munged >/dev/null || ! command -v mungekey >/dev/null; then
        echo "swarm.sh: munged not found (install munge), cannot run --auth munge" >&2; exit 3
    fi
    mungekey --create --keyfile="$tmp/munge.key" 2>"$tmp/mungekey.err" &&
        munged_sched=$(start_munged sched) && munged_pids=$munged_sched &&
        munged_nodes=$(start_munged nodes) && munged_pids="$munged_pids $munged_nodes" ||
        { echo "swarm.sh: munged did not start: $(tail -2 "$tmp"/munge-*/munged.log "$tmp/mungekey.err" 2>/dev/null | tr '\n' ' ')" >&2; exit 3; }
fi
# The swarm's last counter of NAME (its per-second report lines).
swarm_counter() { grep '^t=' "$dir/swarm.out" | tail -1 | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# run_nodes N MODE: one scheduler with auth = MODE, a swarm of N nodes.
run_nodes() {
    local n=$1 port t0 t1 k ids s0 s1 lat run authconf="" swarm_auth=()
    mode=$2
    run=$n
    [ "$mode" = munge ] && run=$n/munge
    dir=$tmp/n$n-$mode
    mkdir -p "$dir"
    if [ "$mode" = munge ]; then
        authconf="munge_socket = $tmp/munge-sched/munge.sock"
        swarm_auth=(--munge --munge-socket "$tmp/munge-nodes/munge.sock")
    fi
    say "=== $n nodes ($NCPUS cores each, heartbeats every $HEARTBEAT s), auth = $mode"
    cat > "$dir/scheduler.conf" <<CONF
state_dir = $dir
socket = $dir/hpcq.sock
listen = 127.0.0.1:0
node_timeout = $(( HEARTBEAT * 3 ))
sched_interval_ms = 1000
metrics_listen = 127.0.0.1:0
sched_policy = easy
auth = $mode
$authconf
max_array_size = $(( E2E > 10000 ? E2E : 10000 ))
CONF
    # Root's jobs run only where PBS's acl_roots allows them (as hpcq-local).
    [ "$(id -u)" -eq 0 ] && echo "acl_roots = root" >> "$dir/scheduler.conf"
    "$build/scheduler/hpcq-scheduler" --config "$dir/scheduler.conf" \
        --log-file "$dir/scheduler.log" >"$dir/scheduler.out" 2>&1 &
    sched_pid=$!
    wait_until 30 0.05 test -s "$dir/scheduler.address" || { say "scheduler did not start"; return 1; }
    port=$(sed -n 's/^tcp=127.0.0.1://p' "$dir/scheduler.address")
    http=$(sed -n 's/^http=//p' "$dir/scheduler.address")
    export HPCQ_SERVER=unix:$dir/hpcq.sock
    record "$run" rss_mib_empty "$(rss_mib "$sched_pid")"

    t0=$EPOCHREALTIME
    "$build/bench/swarm" --server "127.0.0.1:$port" --nodes "$n" --ncpus "$NCPUS" \
        --mem $(( 64 << 30 )) --heartbeat "$HEARTBEAT" --run-ms $(( RUN_S * 1000 )) \
        --launch-log "$dir/launch.log" "${swarm_auth[@]}" > "$dir/swarm.out" 2>"$dir/swarm.err" &
    swarm_pid=$!
    if ! wait_until 600 0.1 grep -q '^ready' "$dir/swarm.out"; then
        say "the swarm did not come up: $(tail -2 "$dir/swarm.err")"; return 1
    fi
    t1=$EPOCHREALTIME
    record "$run" connect_s "$(echo "$t1 - $t0" | bc -l)"
    say "$n nodes up in $(echo "$t1 - $t0" | bc -l | cut -c1-5) s"

    sleep 2     # the hellos' commits and the first pass settle
    cpu_window "$run" idle "$IDLE_S"
    record "$run" idle_load "$(load)"
    record "$run" rss_mib_idle "$(rss_mib "$sched_pid")"
    say "idle: $(metric "$run" idle_cpu_pct) % of a core"

    say "queueing $JOBS held jobs"
    t0=$EPOCHREALTIME
    STORM_SCRIPT="sleep $RUN_S" python3 "$here/wire-storm.py" "$dir/hpcq.sock" "$JOBS" 16 \
        > "$dir/fill.out" || { say "fill failed"; return 1; }
    t1=$EPOCHREALTIME
    record "$run" fill_jobs_per_s "$(echo "$JOBS / ($t1 - $t0)" | bc -l)"
    sleep 2
    pass_snap "$dir/pass0"
    cpu_window "$run" queued "$IDLE_S"
    pass_snap "$dir/pass1"
    record_pass "$run" queued "$dir/pass0" "$dir/pass1"
    record "$run" queued_load "$(load)"
    record "$run" rss_mib_queued "$(rss_mib "$sched_pid")"
    say "with $JOBS queued: $(metric "$run" queued_cpu_pct) % of a core, $(rss_mib "$sched_pid") MiB"

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
    record "$run" latency_median_ms "$(sort -g "$dir/lat" | awk '{ v[NR] = $1 } END { print NR ? (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) : "nan" }')"
    record "$run" latency_max_ms "$(sort -g "$dir/lat" | tail -1)"

    say "end to end: $E2E jobs of sleep $RUN_S as one array"
    local before after
    # The latency jobs first end, so that only the array's are counted.
    wait_until 60 0.2 eval '[ "$(swarm_counter running)" = 0 ]' \
        || say "latency jobs still running: $(swarm_counter running)"
    before=$(swarm_counter finished)
    pass_snap "$dir/pass0"
    s0=$(cpu_snap)
    t0=$EPOCHREALTIME
    id=$(echo "sleep $RUN_S" | "$build/cli/qsub" -J "1-$E2E" -o /dev/null -e /dev/null) \
        || { say "array refused"; return 1; }
    if ! wait_until "$E2E_TIMEOUT" 0.2 eval '[ $(( $(swarm_counter finished) - before )) -ge '"$E2E"' ]'; then
        say "end to end did not finish: $(( $(swarm_counter finished) - before )) of $E2E"
    fi
    t1=$EPOCHREALTIME
    s1=$(cpu_snap)
    after=$(swarm_counter finished)
    record "$run" e2e_finished "$(( after - before ))"
    record "$run" e2e_jobs_per_s "$(echo "($after - $before) / ($t1 - $t0)" | bc -l)"
    record_cpu "$run" e2e "$s0" "$s1" "$t0" "$t1"
    pass_snap "$dir/pass1"
    record_pass "$run" e2e "$dir/pass0" "$dir/pass1"
    record "$run" e2e_load "$(load)"
    # The swarm's per-second finish rate while the array ran, its busy part.
    record "$run" e2e_sustained_per_s "$(awk -v b="$before" '/^t=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        if (v["finished"] > b && v["finish_per_s"] > 0) print v["finish_per_s"] }' "$dir/swarm.out" \
        | sort -g | awk '{ x[NR] = $1 } END { print NR ? x[int((NR + 1) / 2)] : "nan" }')"
    record "$run" rss_mib_after "$(rss_mib "$sched_pid")"
    say "end to end: $(metric "$run" e2e_jobs_per_s) jobs/s"

    kill -TERM "$swarm_pid"; wait "$swarm_pid" 2>/dev/null; swarm_pid=""
    grep '^summary' "$dir/swarm.out" | tr ' ' '\n' | sed -n 's/=/\t/p' | while IFS=$'\t' read -r key val; do
        case $key in
        hb_*|heartbeats|answered|links_lost|reconnects|refused|auth_refused|creds_*|auth_ms_per_cred)
            record "$run" "swarm_$key" "$val" ;;
        esac
    done
    record "$run" nodes_marked_down "$(grep -c 'is down' "$dir/scheduler.log")"
    kill -TERM "$sched_pid"; wait "$sched_pid" 2>/dev/null; sched_pid=""
    record "$run" sched_refused "$(grep -c 'refused' "$dir/scheduler.log")"
    [ -n "${KEEP:-}" ] || rm -rf "$dir/hpcq.sqlite"*
}

t_start=$(date +%s)
runs=""
for n in $nodes_list; do
    for a in $auths; do
        run_nodes "$n" "$a" || say "$n nodes, auth = $a: incomplete"
        if [ "$a" = munge ]; then runs="$runs $n/munge"; else runs="$runs $n"; fi
    done
done
{
    echo "# machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); hpcq: $(git -C "$here" describe --always --dirty 2>/dev/null || echo ?)"
    for a in $auths; do
        case $a in
        none) echo "# authentication: none (auth = none: the swarm's nodes send no MUNGE credentials)" ;;
        munge) echo "# authentication: munge (auth = munge, columns N/munge: every node opens its link with link.open and signs and checks every message; munged $(munged --version 2>&1 | awk '{ print $1 }' | sed 's/^munge-//'), one for the scheduler, one for the nodes, one key)" ;;
        esac
    done
    echo "# params: JOBS=$JOBS HEARTBEAT=$HEARTBEAT IDLE_S=$IDLE_S LATN=$LATN E2E=$E2E NCPUS=$NCPUS RUN_S=$RUN_S; $(( $(date +%s) - t_start )) s"
    printf '| measure |'; for r in $runs; do printf ' %s |' "$(echo "$r" | sed 's|/munge| nodes, MUNGE|; t; s|$| nodes|')"; done; echo
    printf '| --- |'; for r in $runs; do printf ' ---: |'; done; echo
    cut -f2 "$tsv" | awk '!seen[$0]++' | while read -r m; do
        printf '| %s |' "$m"
        for r in $runs; do
            printf ' %s |' "$(awk -F'\t' -v r="$r" -v m="$m" '$1 == r && $2 == m { v = $3 } END { if (v == "") print "-"; else if (v ~ /^[0-9.]+$/ && v + 0 != int(v + 0)) printf "%.2f", v; else print v }' "$tsv")"
        done
        echo
    done
} > "$out/swarm.md"
cat "$out/swarm.md"
