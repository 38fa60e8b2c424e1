#!/bin/bash
# bench/restart.sh - kill -9 restart at a deep queue, two builds side by
# side in one run (issue 15 part 6), with the scheduler's memory there.
#
# Usage: bench/restart.sh OLD_BUILD NEW_BUILD [JOBS] [REPS]
#
# NEW_BUILD's scheduler is filled with JOBS held jobs (wire submissions,
# 16 connections, bench/wire-storm.py) and stopped; OLD_BUILD gets a copy
# of the same database.  Then, REPS rounds, each build in turn: start the
# scheduler on its copy and time, from the start, until
#   - qstat -B answers (the server is serving),
#   - qstat lists every job (the table, read from the job records),
#   - qstat -f of the newest job answers (a job's whole record: its parsed
#     request);
# then its resident memory, the job count it reports, and kill -9.  Prints
# the medians (min-max) and NEW's ratio (OLD / NEW, >1: NEW is better).
# Authentication is off (auth = none): what is timed is the scheduler.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
old=$(cd "$1" && pwd); new=$(cd "$2" && pwd)
JOBS=${3:-100000}; REPS=${4:-3}
tmp=$(mktemp -d /tmp/hpcq-restart.XXXXXX)
pid=""
cleanup() {
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
say() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }

conf() {  # conf DIR
    mkdir -p "$1"
    cat > "$1/scheduler.conf" <<CONF
state_dir = $1
socket = $1/hpcq.sock
listen = 127.0.0.1:0
auth = none
CONF
    [ "$(id -u)" -eq 0 ] && echo "acl_roots = root" >> "$1/scheduler.conf"
}
start() {  # start BUILD DIR: sets pid
    "$1/scheduler/hpcq-scheduler" --config "$2/scheduler.conf" --log-file "$2/scheduler.log" \
        > "$2/scheduler.out" 2>&1 &
    pid=$!
}
since() { echo "$EPOCHREALTIME - $1" | bc -l; }
until_ok() {  # until_ok T0 CMD...: seconds from T0 until CMD succeeds (120 s at most)
    local t0=$1; shift
    while [ "$(echo "$EPOCHREALTIME - $t0 < 120" | bc)" = 1 ]; do
        "$@" > /dev/null 2>&1 && { since "$t0"; return 0; }
        kill -0 "$pid" 2>/dev/null || { echo nan; return 1; }
        sleep 0.002
    done
    echo nan
}
rows_listed() { [ "$("$b/cli/qstat" 2>/dev/null | grep -c ' H ')" -ge "$nrows" ]; }

conf "$tmp/new"
start "$new" "$tmp/new"
for ((k = 0; k < 600; k++)); do [ -S "$tmp/new/hpcq.sock" ] && break; sleep 0.05; done
say "filling $JOBS held jobs"
python3 "$here/wire-storm.py" "$tmp/new/hpcq.sock" "$JOBS" 16 >&2 || exit 1
kill -TERM "$pid"; wait "$pid"; pid=""
conf "$tmp/old"
cp "$tmp/new"/hpcq.sqlite* "$tmp/old/"
last=$(sqlite3 "$tmp/new/hpcq.sqlite" "SELECT max(seq) FROM jobs")
nrows=$(sqlite3 "$tmp/new/hpcq.sqlite" "SELECT count(*) FROM jobs")

: > "$tmp/r.tsv"
for ((r = 0; r < REPS; r++)); do
    for which in old new; do
        b=${!which}; d=$tmp/$which
        export HPCQ_SERVER=unix:$d/hpcq.sock
        rm -f "$d/hpcq.sock"
        t0=$EPOCHREALTIME
        start "$b" "$d"
        a=$(until_ok "$t0" "$b/cli/qstat" -B)
        t=$(until_ok "$t0" rows_listed)
        f=$(until_ok "$t0" "$b/cli/qstat" -f "$last")
        rss=$(awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status")
        printf '%s\t%s\t%s\t%s\t%s\n' "$which" "$a" "$t" "$f" "$rss" >> "$tmp/r.tsv"
        say "$which: serving $a s, table $t s, qstat -f $f s, $rss MiB"
        kill -KILL "$pid"; wait "$pid" 2>/dev/null; pid=""
    done
done

med() {  # med WHICH COLUMN
    awk -F'\t' -v w="$1" -v c="$2" '$1 == w { print $c }' "$tmp/r.tsv" | sort -g \
        | awk '{ v[NR] = $1 } END { printf "%.2f (%.2f-%.2f)", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
medv() { awk -F'\t' -v w="$1" -v c="$2" '$1 == w { print $c }' "$tmp/r.tsv" | sort -g \
             | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { echo "$(medv old "$1") / $(medv new "$1")" | bc -l | awk '{ printf "%.2f", $1 }'; }
echo "# $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $nrows held jobs, $REPS rounds; $(date -u +%F)"
echo "# old: $(git -C "$old" describe --always 2>/dev/null || echo "$old"); new: $(git -C "$new" describe --always 2>/dev/null || echo "$new")"
echo "| after kill -9, from the start until | old | new | old ÷ new |"
echo "| --- | ---: | ---: | ---: |"
echo "| qstat -B answers (s) | $(med old 2) | $(med new 2) | $(ratio 2) |"
echo "| qstat lists every job (s) | $(med old 3) | $(med new 3) | $(ratio 3) |"
echo "| qstat -f of the newest job (s) | $(med old 4) | $(med new 4) | $(ratio 4) |"
echo "| resident memory then (MiB) | $(med old 5) | $(med new 5) | $(ratio 5) |"
