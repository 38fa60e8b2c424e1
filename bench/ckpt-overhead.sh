#!/bin/bash
# bench/ckpt-overhead.sh - what checkpointing at the Young/Daly interval
# costs a long hpcq-md run (the target: under 2% of its run time).
#
#   [REPS=3] [CELLS=16x16x16] [STEPS=6000] [MTBI=1800] bench/ckpt-overhead.sh BUILDDIR
#
# A one-worker hpcq-local cluster whose node class has mtbi_prior = MTBI
# seconds (1800: a class interrupted every half hour on average, far
# flakier than any spot market, so that a run of minutes sees several
# checkpoints; the overhead at Young/Daly grows as sqrt(C / 2M), so a
# realistic M gives less).  The same hpcq-md run (one core, CELLS unit
# cells, STEPS steps) is submitted with -c n and with -c auto, in turn,
# REPS times (which goes first alternates, so a drift in the machine's
# load falls on both alike).  For each auto run: the checkpoints the scheduler asked for
# and recorded, their median cost (seconds from its signal to the report),
# the interval it chose, and two measures of the overhead:
#   direct     the sum of the checkpoint costs over the run's loop time
#              (what the run spent writing checkpoints, as the scheduler
#              measured it: signal delivery and the report included);
#   side by side  the auto run's loop time over the -c n run's beside it,
#              less 1 (noisy on a shared machine: read with the other), and
#              over all reps the median of each.
# Prints a Markdown table.
set -eu
B=$(cd "${1:?usage: ckpt-overhead.sh BUILDDIR}" && pwd)
REPS=${REPS:-3}
CELLS=${CELLS:-16x16x16}
STEPS=${STEPS:-6000}
MTBI=${MTBI:-1800}
export PATH=$B/cli:$B/scheduler:$B/worker:$PATH
W=$(mktemp -d /tmp/ckpt-bench.XXXXXX)
trap 'hpcq-local stop "$W/c" >/dev/null 2>&1; rm -rf "$W"' EXIT
cd "$W"

eval "$(hpcq-local start "$W/c" --workers 1 --cpus-per-worker 1 \
    --sched-config mtbi_prior=$MTBI --sched-config checkpoint_min_interval=5 \
    --sched-config checkpoint_max_interval=3600)"
db() { sqlite3 -batch -noheader "$W/c/hpcq.sqlite" "$@"; }
state() { qstat -f -1 -x "$1" | sed -n 's/^    job_state = //p'; }

# run MODE: submit the run with -c MODE, wait for it; prints its id.
run() {
    local id interval=""
    id=$(echo "$B/apps/md/hpcq-md --cpu --cells $CELLS --steps $STEPS --thermo 0" |
         qsub -c "$1" -N "md-$1") || exit 1
    while [ "$(state $id)" != F ]; do
        # The interval in force, as qstat -f shows it while the job runs.
        i=$(qstat -f -1 "$id" 2>/dev/null | sed -n 's/^    checkpoint.interval = //p')
        [ -n "$i" ] && interval=$i
        sleep 1
    done
    echo "$interval" >"interval.${id%%.*}"
    echo "$id"
}

# The loop time hpcq-md reports for job $1.
loop_time() { sed -n 's/^Loop time of \([0-9.]*\) .*/\1/p' "$W/md-$2.o${1%%.*}"; }

echo "| run | loop time (s) | checkpoints | median cost (s) | Young/Daly interval | overhead, direct | overhead, side by side |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for rep in $(seq "$REPS"); do
    if [ $((rep % 2)) = 1 ]; then n=$(run n); a=$(run auto); else a=$(run auto); n=$(run n); fi
    tn=$(loop_time "$n" n)
    ta=$(loop_time "$a" auto)
    k=$(db "SELECT count(*) FROM checkpoints WHERE job_seq = ${a%%.*}")
    sum=$(db "SELECT coalesce (sum (duration), 0) FROM checkpoints WHERE job_seq = ${a%%.*}")
    med=$(qstat -f -1 -x "$a" | sed -n 's/^    checkpoint.cost = //p')
    echo "$tn $ta $sum" >>"$W/all"
    python3 - "$rep" "$tn" "$ta" "$k" "$sum" "${med:-0}" "$(cat "interval.${a%%.*}")" <<'PY'
import sys
rep, tn, ta, k, s, med, interval = sys.argv[1:]
tn, ta, s = float(tn), float(ta), float(s)
print("| %s: -c n / -c auto | %.1f / %.1f | %s | %s | %s | %.2f%% | %+.2f%% |"
      % (rep, tn, ta, k, med, interval, 100 * s / ta, 100 * (ta / tn - 1)))
PY
done
python3 - "$W/all" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
tn = statistics.median(r[0] for r in rows)
ta = statistics.median(r[1] for r in rows)
direct = statistics.median(100 * r[2] / r[1] for r in rows)
print("| median of %d | %.1f / %.1f | | | | %.2f%% | %+.2f%% |"
      % (len(rows), tn, ta, direct, 100 * (ta / tn - 1)))
PY
