#!/bin/bash
# bench/array-submit.sh - submitting big job arrays, two builds side by
# side in one run (issue 15 part 1).
#
# Usage: bench/array-submit.sh OLD_BUILD NEW_BUILD [REPS]
#
# One scheduler of each build (auth = none, max_array_size = 1000000),
# alternately: REPS held 10,000-task arrays (qsub -h -J 0-9999), each
# timed from before qsub until it printed the id (the reply follows the
# commit), tasks/s; then one held 1,000,000-task array, seconds (or the
# refusal); the database rows and resident memory after.  Prints the
# medians (min-max) and OLD ÷ NEW time (>1: NEW is faster).
set -uo pipefail
old=$(cd "$1" && pwd); new=$(cd "$2" && pwd)
REPS=${3:-5}
tmp=$(mktemp -d /tmp/hpcq-arrays.XXXXXX)
pids=""
cleanup() {
    local p
    for p in $pids; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

declare -A pid maxsize
start() {  # start WHICH MAX_ARRAY_SIZE: 0 if it is serving
    local d=$tmp/$1 b=${!1}
    mkdir -p "$d"
    printf 'state_dir = %s\nsocket = %s/hpcq.sock\nlisten = 127.0.0.1:0\nauth = none\nmax_array_size = %s\n' \
        "$d" "$d" "$2" > "$d/scheduler.conf"
    [ "$(id -u)" -eq 0 ] && echo "acl_roots = root" >> "$d/scheduler.conf"
    "$b/scheduler/hpcq-scheduler" --config "$d/scheduler.conf" --log-file "$d/scheduler.log" \
        > "$d/scheduler.out" 2>&1 &
    pid[$1]=$!; pids="$pids $!"; maxsize[$1]=$2
    for ((k = 0; k < 600; k++)); do
        kill -0 "${pid[$1]}" 2>/dev/null || return 1
        [ -S "$d/hpcq.sock" ] && return 0
        sleep 0.05
    done
    return 1
}
# A build whose arrays stop short of 1,000,000 refuses the setting: it
# runs with its own largest, 100,000.
for which in old new; do
    start $which 1000000 || start $which 100000 || { echo "$which: no scheduler" >&2; exit 1; }
done
printf '#!/bin/sh\ntrue\n' > "$tmp/job.sh"

submit() {  # submit WHICH RANGE: seconds, or "refused"
    local b=${!1} t0
    t0=$EPOCHREALTIME
    if HPCQ_SERVER=unix:$tmp/$1/hpcq.sock "$b/cli/qsub" -h -J "$2" -o /dev/null -e /dev/null \
           "$tmp/job.sh" > /dev/null 2> "$tmp/err"; then
        echo "$EPOCHREALTIME - $t0" | bc -l
    else
        echo refused
    fi
}
: > "$tmp/r.tsv"
for ((r = 0; r < REPS; r++)); do
    for which in old new; do
        printf '%s\t%s\n' "$which" "$(submit $which 0-9999)" >> "$tmp/r.tsv"
    done
done
declare -A big
for which in old new; do
    big[$which]=$(submit $which 0-999999)
    [ "${big[$which]}" = refused ] && big[$which]="refused: $(head -1 "$tmp/err")"
done
med() { awk -F'\t' -v w="$1" '$1 == w { print 10000 / $2 }' "$tmp/r.tsv" | sort -g \
            | awk '{ v[NR] = $1 } END { printf "%.0f (%.0f-%.0f)", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
medv() { awk -F'\t' -v w="$1" '$1 == w { print $2 }' "$tmp/r.tsv" | sort -g \
             | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
rows() { sqlite3 "$tmp/$1/hpcq.sqlite" "SELECT count(*) FROM jobs"; }
rss() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/${pid[$1]}/status"; }
fmt() { case $1 in refused*) echo "$1" ;; *) printf '%.3f' "$1" ;; esac; }
echo "# $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $REPS rounds; $(date -u +%F)"
echo "# old: $(git -C "$old" describe --always 2>/dev/null || echo "$old"); new: $(git -C "$new" describe --always 2>/dev/null || echo "$new")"
echo "| measure | old | new | old ÷ new (time) |"
echo "| --- | ---: | ---: | ---: |"
echo "| 10,000-task array, tasks/s | $(med old) | $(med new) | $(echo "$(medv old) / $(medv new)" | bc -l | awk '{ printf "%.1f", $1 }') |"
echo "| max_array_size accepted | ${maxsize[old]} | ${maxsize[new]} | |"
echo "| 1,000,000-task array (s) | $(fmt "${big[old]}") | $(fmt "${big[new]}") | |"
echo "| rows in the database after | $(rows old) | $(rows new) | |"
echo "| resident memory after (MiB) | $(rss old) | $(rss new) | |"
