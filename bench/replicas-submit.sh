#!/bin/bash
# bench/replicas-submit.sh BUILDDIR N [R]: N held submissions pipelined by
# bench/job-flood (each with a uuid, as qsub sends) to a cluster of R
# scheduler replicas (default 1);
# wall time and the scheduler's CPU time (utime+stime) for them
B=$1; N=$2; R=${3:-1}
D=$(mktemp -d /tmp/bfl.XXXX)
export PATH=$B/cli:$B/scheduler:$B/worker:$PATH
args=""; [ "$R" -gt 1 ] && args="--replicas $R"
eval "$(hpcq-local start $D/c --workers 1 --auth none $args)"
if [ "$R" -gt 1 ]; then l=$(hpcq-local leader $D/c); sock=$D/c/replica$l/hpcq.sock; pid=$(cat $D/c/replica$l.pid)
else sock=$D/c/hpcq.sock; pid=$(cat $D/c/scheduler.pid); fi
cpu() { awk '{print $14 + $15}' /proc/$pid/stat; }
c0=$(cpu); t0=$(date +%s.%N)
${FLOOD:-$(dirname "$0")/job-flood} submit $sock $N held >/dev/null || echo FAIL
t1=$(date +%s.%N); c1=$(cpu)
hpcq-local stop $D/c >/dev/null 2>&1; rm -rf $D
echo "$(basename $B) R=$R ${FLOOD_NO_UUID:+no-uuid}: $N submits in $(echo "$t1 - $t0" | bc) s wall, $(( (c1 - c0) * 10 )) ms scheduler cpu"
