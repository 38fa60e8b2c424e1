#!/bin/bash
# bench/history-memory.sh - the scheduler's memory after a million jobs:
# bounded by its active jobs and the history window, not by every job run.
#
# bench/job-flood plays a worker that "runs" every job it is sent at once
# and a user who keeps ACTIVE jobs submitted and not yet finished, until
# TOTAL have finished, through the real scheduler (database, lifecycle,
# accounting log, history).  It prints the scheduler's resident memory
# (VmRSS, and the peak VmHWM) as it goes.  Three runs, one after another:
#
#   window  job_history_duration = 01:00:00 with the scheduler's wall
#           clock running SPEED times as fast (libfaketime; its monotonic
#           clock, which timers and heartbeats use, is left alone), so that
#           an hour of history passes every 3600/SPEED seconds and a
#           million jobs outlive their window as on a real cluster over
#           days;
#   none    job_history_enable = false: finished jobs leave memory at once,
#           what the active jobs alone take;
#   all     job_history_duration = 10 years: nothing leaves memory (what
#           the window saves; KEEP_ALL jobs only, it grows without bound).
#
# Usage: bench/history-memory.sh [BUILDDIR] [TOTAL] [ACTIVE] [SPEED] [KEEP_ALL] [NONE]
#        (defaults 1000000 1000 600 200000 TOTAL; NONE: the jobs of the
#        "none" run, whose memory is flat once ACTIVE are in)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/..}" && pwd)
total=${2:-1000000}
active=${3:-1000}
speed=${4:-600}
keep_all=${5:-200000}
none=${6:-$total}
faketime=$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | head -1)
[ -n "$faketime" ] || { echo "needs libfaketime (Debian: libfaketime)" >&2; exit 2; }
export PATH="$build/cli:$PATH"
dir=$(mktemp -d /tmp/hpcq-histmem.XXXXXX)
trap 'hpcq-local stop "$dir/c" >/dev/null 2>&1; rm -rf "$dir"' EXIT

run() {
    local name=$1 jobs=$2; shift 2
    hpcq-local stop "$dir/c" >/dev/null 2>&1 || true
    rm -rf "$dir/c"
    # --auth none: job-flood's worker sends no MUNGE credential.
    eval "$(hpcq-local start "$dir/c" --workers 1 --cpus-per-worker 1 --auth none \
            --sched-config node_timeout=86400 "$@")"
    pbsnodes -o -C "bench: jobs go to job-flood's node" node1
    local pid tcp
    pid=$(sed -n 's/^pid=//p' "$dir/c/state/scheduler.address")
    tcp=$(sed -n 's/^tcp=//p' "$dir/c/state/scheduler.address")
    echo "== $name: $jobs jobs, $active active ($*)"
    "$build/bench/job-flood" run "$dir/c/hpcq.sock" "$tcp" "$jobs" "$active" "$pid" 60
    # Let the last window pass and the purge run, then look again.
    sleep $(( 3600 / speed + 15 ))
    printf "after the window: rss %d MiB, jobs in memory %s, jobs in the database %s\n" \
        $(( $(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$pid/status) / 1024 )) \
        "$(curl -sf "http://$(sed -n 's/^http=//p' "$dir/c/state/scheduler.address")/metrics" |
           sed -n 's/^hpcq_jobs_in_memory //p')" \
        "$(sqlite3 "$dir/c/state/hpcq.sqlite" "SELECT count(*) FROM jobs")"
}

# The scheduler under libfaketime: wall clock SPEED times as fast.
cat > "$dir/sched" <<EOF
#!/bin/sh
LD_PRELOAD=$faketime FAKETIME="+0 x$speed" DONT_FAKE_MONOTONIC=1 \
    exec "$build/scheduler/hpcq-scheduler" "\$@"
EOF
chmod +x "$dir/sched"

HPCQ_SCHEDULER_BIN=$dir/sched run window "$total" --sched-config job_history_duration=01:00:00
run none "$none" --sched-config job_history_enable=false
run all "$keep_all" --sched-config job_history_duration=87600:00:00
