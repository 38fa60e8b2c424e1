#!/bin/bash
# bench/spot-elastic.sh BUILDDIR [ROUNDS]: how long an elastic cloud node
# takes from the scheduler's resume to its first job started, with
# hpcq-local's own provider (a local worker started by power-resume).
#
# A cluster of no powered node and one cloud node (suspend_time 1 s); each
# round submits one job to the powered-off cluster and times, from the
# scheduler's log (millisecond stamps):
#   submit -> resume     the plan noticing the waiting job (it runs every
#                        0.5 s) and starting resume_program;
#   resume -> hello      the provider starting the worker until it
#                        registers (what a cloud's boot would be);
#   hello -> started     the scheduling pass and the launch;
#   resume -> started    the figure bench/RESULTS.md reports;
# then waits for the node to be suspended again.  Prints one line per
# round and the medians.
set -eu
B=$(cd "${1:?usage: spot-elastic.sh BUILDDIR [ROUNDS]}" && pwd)
ROUNDS=${2:-10}
export PATH=$B/cli:$B/scheduler:$B/worker:$PATH
D=$(mktemp -d /tmp/hpcq-elastic.XXXXXX)
cd $D     # the jobs' output files go here
trap 'hpcq-local stop $D/c >/dev/null 2>&1; rm -rf $D' EXIT

eval "$(hpcq-local start $D/c --workers 0 --cloud 1 --cpus-per-worker 2 \
        --sched-config suspend_time=1 --sched-config resume_timeout=30)"
LOG=$D/c/scheduler.log

# Milliseconds of a log line's stamp (2026-11-30T23:19:08.719 ...).
ms() { python3 -c "import datetime,sys; s=sys.argv[1]; d=datetime.datetime.strptime(s[:23], '%Y-%m-%dT%H:%M:%S.%f'); print(int(d.timestamp()*1000))" "$1"; }
nth() { grep "$1" $LOG | sed -n "${2}p"; }
state() { pbsnodes -F json node1 | python3 -c "import json,sys; print(json.load(sys.stdin)['nodes'][0]['state'])"; }

printf "%5s %14s %14s %16s %16s\n" round submit_resume resume_hello hello_started resume_started
: >$D/rows
for r in $(seq $ROUNDS); do
    until [ "$(state)" = cloud ]; do sleep 0.1; done
    t0=$(date +%s%3N)
    j=$(echo true | qsub)
    until grep -q "job $j (.*) starts on" $LOG; do sleep 0.05; done
    resume=$(ms "$(nth "resuming 1 node" $r)")
    hello=$(ms "$(nth "node node1 up" $r)")
    started=$(ms "$(grep "job $j (.*) starts on" $LOG)")
    printf "%5d %14d %14d %16d %16d\n" $r $((resume - t0)) $((hello - resume)) \
        $((started - hello)) $((started - resume)) | tee -a $D/rows
    until [ "$(qstat -f -x $j | sed -n 's/^ *job_state = //p')" = F ]; do sleep 0.05; done
done
python3 - $D/rows <<'EOF'
import statistics, sys
rows = [list(map(int, l.split())) for l in open(sys.argv[1])]
med = [statistics.median(c) for c in list(zip(*rows))[1:]]
print("median (ms): submit->resume %d, resume->hello %d, hello->started %d, "
      "resume->started %d" % tuple(med))
EOF
