#!/bin/bash
# bench/spot-reclaim.sh BUILDDIR [ROUNDS] [POLL]: how long a spot reclaim
# notice takes to become the job running on another node, the worst case
# of ROUNDS, and what the polling costs.
#
# Two spot nodes whose workers poll an AWS-format notice (instance-action,
# IMDSv2) every POLL seconds (default: the worker's own notice_interval
# default, 1 s; AWS advises 5) from
# tests/spot-metadata.py on 127.0.0.1.  Each round runs a job (-c s: a
# checkpoint when its node is reclaimed) that answers its checkpoint
# signal with hpcq-ckpt done, publishes AWS's two-minute notice, and
# times, with millisecond stamps:
#   publish -> scheduler   the worker's next poll, its node.notice
#                          ("reclaim notice for node" in the scheduler log);
#   scheduler -> started   drain, the checkpoint signal, the job's report,
#                          the requeue (its copy killed), the new attempt
#                          placed and launched on the other node
#                          ("restarts at once on" / "starts on");
#   publish -> started     the figure bench/RESULTS.md reports;
# then the provider takes the node (its worker stopped) and it boots again.
# First, 30 s with nothing planned measure the cost of polling: each
# worker's CPU time (from /proc) and its requests a minute to the
# metadata service (its request log).
# A job that reports no checkpoint leaves at the notice's end less a margin
# (a quarter of it, 1 to 10 s).
set -eu
B=$(cd "${1:?usage: spot-reclaim.sh BUILDDIR [ROUNDS] [POLL]}" && pwd)
ROUNDS=${2:-10}
POLL=${3:-}
S=$(cd "$(dirname "$0")/.." && pwd)
export PATH=$B/cli:$B/scheduler:$B/worker:$PATH
D=$(mktemp -d /tmp/hpcq-reclaim.XXXXXX)
cd $D     # the jobs' output files go here
mkdir $D/meta
python3 $S/tests/spot-metadata.py $D/meta &
META_PID=$!
trap 'hpcq-local stop $D/c >/dev/null 2>&1; kill $META_PID; rm -rf $D' EXIT
until [ -s $D/meta/port ]; do sleep 0.05; done
PORT=$(cat $D/meta/port)
conf=()
for i in 1 2; do
    conf+=(--labels $i=spot --worker-conf $i "notice_provider = aws"
           --worker-conf $i "notice_url = http://127.0.0.1:$PORT/node$i/latest/meta-data/spot/instance-action"
           ${POLL:+--worker-conf $i "notice_interval = $POLL"})
done
eval "$(hpcq-local start $D/c --workers 2 --cpus-per-worker 2 "${conf[@]}")"
LOG=$D/c/scheduler.log

ms() { python3 -c "import datetime,sys; s=sys.argv[1]; d=datetime.datetime.strptime(s[:23], '%Y-%m-%dT%H:%M:%S.%f'); print(int(d.timestamp()*1000))" "$1"; }
nodestate() { pbsnodes -F json $1 | python3 -c "import json,sys; print(json.load(sys.stdin)['nodes'][0]['state'])"; }
attr() { qstat -f -x $1 | sed -n "s/^ *$2 = //p"; }

cpu() { awk '{ print $14 + $15 }' /proc/$(cat $D/c/worker$1.pid)/stat; }
requests() { grep -c "^GET /node$1/" $D/meta/requests.log 2>/dev/null || echo 0; }
hz=$(getconf CLK_TCK)
sleep 2
c0=$(cpu 1) r0=$(requests 1) t0=$(date +%s%3N)
sleep 30
c1=$(cpu 1) r1=$(requests 1) t1=$(date +%s%3N)
python3 -c "import sys; c, r, t, hz = map(float, sys.argv[1:]); print('polling every %s: worker CPU %.2f s a minute (%.2f%% of a core), %.1f requests a minute' % ('${POLL:-1 s (the default)}', c / hz * 60000 / t, c / hz * 100000 / t, r * 60000 / t))" \
    $((c1 - c0)) $((r1 - r0)) $((t1 - t0)) $hz
POLL=${POLL:-1}

printf "%5s %18s %18s %16s\n" round publish_scheduler scheduler_started publish_started
: >$D/rows
for r in $(seq $ROUNDS); do
    j=$(printf '%s\n' "trap '$B/cli/hpcq-ckpt done' USR1" 'while :; do sleep 0.1; done' |
        qsub -c s -l select=1:ncpus=2)
    until [ "$(attr $j job_state)" = R ]; do sleep 0.05; done
    h=$(attr $j exec_host | cut -d/ -f1)
    sleep $POLL     # a poll or two with nothing planned
    t0=$(date +%s%3N)
    echo "aws 120" >$D/meta/$h
    until [ "$(attr $j run_count)" = 2 ] && [ "$(attr $j job_state)" = R ]; do sleep 0.05; done
    known=$(ms "$(grep "reclaim notice for node $h" $LOG | tail -1)")
    started=$(ms "$(grep -E "job $j \(.*\) (restarts at once on|starts on) " $LOG | tail -1)")
    printf "%5d %18d %18d %16d\n" $r $((known - t0)) $((started - known)) \
        $((started - t0)) | tee -a $D/rows
    qdel $j
    rm $D/meta/$h
    kill $(cat $D/c/worker${h#node}.pid)
    until [ "$(nodestate $h)" = down ]; do sleep 0.05; done
    hpcq-local start-worker $D/c ${h#node} >/dev/null
    until [ "$(nodestate $h)" = free ]; do sleep 0.05; done
    until [ "$(attr $j job_state)" = F ]; do sleep 0.05; done
done
python3 - $D/rows <<'PY'
import statistics, sys
rows = [list(map(int, l.split())) for l in open(sys.argv[1])]
cols = list(zip(*rows))[1:]
print("median (ms): publish->scheduler %d, scheduler->started %d, publish->started %d"
      % tuple(statistics.median(c) for c in cols))
print("worst case (ms): publish->scheduler %d, publish->started %d (goal: under 5000)"
      % (max(cols[0]), max(cols[2])))
PY
