#!/bin/bash
# bench/metrics-scrape.sh - what scraping /metrics every second costs the
# scheduler with a deep queue.
#
# A one-core cluster runs one long job; JOBS jobs wait behind it (queued,
# not held: every scheduling pass looks at all of them, as on a busy
# cluster).  Then PERIOD-second phases, alternating: the scheduler alone,
# and the scheduler scraped once a second (curl, as Prometheus would).
# For each phase the scheduler's CPU time (utime + stime, /proc/PID/stat);
# the scrape's cost is the difference, as a share of one core and of the
# scheduler's own CPU.  Also each scrape's wall time (curl) and the time
# the scheduler says it took to make the answer (hpcq_metrics_render_seconds).
# Each round scrapes twice: /metrics (the counts the scheduler keeps as
# jobs change) and /metrics?recount=1 (the jobs counted anew on every
# scrape, as before), side by side on the same queue.
#
# Usage: bench/metrics-scrape.sh [BUILDDIR] [JOBS] [PERIOD] [ROUNDS]
#        (defaults 100000 60 2)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/..}" && pwd)
jobs=${2:-100000}
period=${3:-60}
rounds=${4:-2}
export PATH="$build/cli:$PATH"
dir=$(mktemp -d /tmp/hpcq-scrape.XXXXXX)
trap 'hpcq-local stop "$dir/c" >/dev/null 2>&1; rm -rf "$dir"' EXIT
eval "$(hpcq-local start "$dir/c" --workers 1 --cpus-per-worker 1)"
pid=$(sed -n 's/^pid=//p' "$dir/c/state/scheduler.address")
http=$(sed -n 's/^http=//p' "$dir/c/state/scheduler.address")
ticks=$(getconf CLK_TCK)

cpu() { awk -v t="$ticks" '{ printf "%.3f", ($14 + $15) / t }' /proc/$pid/stat; }

# Scrape $1 once a second for a period; print its cost against idle ($2).
scrape() {
    : > "$dir/curl"; : > "$dir/render"
    c2=$(cpu); t2=$(date +%s.%N)
    for i in $(seq 1 "$period"); do
        s=$(date +%s.%N)
        curl -s -o "$dir/m" -w "%{time_total}\n" "http://$http/$1" >> "$dir/curl"
        sed -n 's/^hpcq_metrics_render_seconds //p' "$dir/m" >> "$dir/render"
        left=$(echo "1 - ($(date +%s.%N) - $s)" | bc -l)
        [ "$(echo "$left > 0" | bc)" = 1 ] && sleep "$left"
    done
    c3=$(cpu); t3=$(date +%s.%N)
    busy=$(echo "($c3 - $c2) / ($t3 - $t2)" | bc -l)
    extra=$(echo "$busy - $2" | bc -l)
    printf "round %d, /%s: scheduler CPU alone %.2f%% of a core, scraped %.2f%%: the scrape costs %.2f%% of a core, %.1f%% of the scheduler's CPU\n" \
        "$r" "$1" "$(echo "100 * $2" | bc -l)" "$(echo "100 * $busy" | bc -l)" \
        "$(echo "100 * $extra" | bc -l)" "$(echo "100 * $extra / $busy" | bc -l)"
    printf "         scrape: %s bytes; curl median %.1f ms, max %.1f ms; making the answer median %.3f ms\n" \
        "$(wc -c < "$dir/m")" \
        "$(sort -n "$dir/curl" | awk '{ a[NR] = $1 } END { print 1000 * a[int((NR + 1) / 2)] }')" \
        "$(sort -n "$dir/curl" | tail -1 | awk '{ print 1000 * $1 }')" \
        "$(sort -n "$dir/render" | awk '{ a[NR] = $1 } END { print 1000 * a[int((NR + 1) / 2)] }')"
}

echo "sleep 100000" | qsub > /dev/null
"$build/bench/job-flood" submit "$dir/c/hpcq.sock" "$jobs"
echo "queue: $(qstat -B -f | sed -n 's/^    state_count = //p')"
sleep 5     # the submissions' passes settle

for r in $(seq 1 "$rounds"); do
    c0=$(cpu); t0=$(date +%s.%N)
    sleep "$period"
    c1=$(cpu); t1=$(date +%s.%N)
    idle=$(echo "($c1 - $c0) / ($t1 - $t0)" | bc -l)
    for path in metrics 'metrics?recount=1'; do
        scrape "$path" "$idle"
    done
done
