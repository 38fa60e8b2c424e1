#!/bin/bash
# One interruption per reclaim, and up time counted from the changes of
# state (scheduler/nodeclass.h): node1 (class flaky, mtbi_prior 100 s) is
# reclaimed three times by hpcq-local's provider, whose instance dies at
# the deadline (its worker, watchdog and jobs killed -9) and stays dead
# until a later boot (start-worker).  After k reclaims the class has k
# interruptions, all of kind reclaim (the heartbeats that stop as the
# instance dies are its reclaim's), and the M a -c auto job on node1 is
# given equals (100 + U) / (1 + k), U the seconds node1 was up as the
# scheduler's log shows them, computed here, to within 2.5 s (M is whole
# seconds; the log's times are not the scheduler's own clock readings).
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --labels 1=spot,class=flaky \
    --sched-config mtbi_prior.flaky=100

node_state() { pbsnodes -F json "$1" | jq -r '.nodes[0].state'; }
count() { db_query "SELECT count(*) FROM interruptions WHERE class = 'flaky' ${1:-}"; }
# U: node1's up time, from "node node1 up" (a boot, when it was not up) to
# "node node1 reclaimed", and the last one to now; then (100 + U) / (1 + k).
expected() {
    python3 - "$CLUSTER/scheduler.log" "$1" <<'PY'
import sys, datetime, time
up, total, still = None, 0.0, False
def t(line):
    return datetime.datetime.strptime(line[:23], "%Y-%m-%dT%H:%M:%S.%f").timestamp()
for line in open(sys.argv[1]):
    # A worker that says hello again before its instance dies is logged
    # "up" but stays reclaimed: no up time.
    if " node node1: hello within its reclaim's window: still reclaimed" in line:
        still = True
    elif " node node1 up:" in line and still:
        still = False
    elif " node node1 up:" in line and up is None:
        up = t(line)
    elif " node node1 reclaimed:" in line and up is not None:
        total += t(line) - up
        up = None
if up is not None:
    total += time.time() - up
print("%.2f" % ((100 + total) / (1 + int(sys.argv[2]))))
PY
}
# mtbi_of_auto_job: the M Young/Daly uses for a -c auto job on node1.
mtbi_of_auto_job() {
    local j m
    j=$(echo "sleep 60" | qsub -c auto -l select=1:ncpus=1:host=node1) && wait_state $j R &&
    m=$(job_attr $j checkpoint.mtbi) && qdel $j >/dev/null && wait_state $j F && echo $m
}

for k in 1 2 3; do
    test_expect_success "reclaim $k: the instance dies at its deadline, one interruption; M = (100 + U) / (1 + $k)" '
        j=$(echo "sleep 300" | qsub -l select=1:ncpus=1:host=node1) && wait_state $j R &&
        wait_until 10 grep -q "job $j started as pid" $CLUSTER/worker1.log &&
        hpcq-local reclaim $CLUSTER node1 2 &&
        wait_until 15 eval "test \"\$(node_state node1)\" = down" &&
        wait_until 10 grep -q "node1 killed" $CLUSTER/reclaim1.out &&
        wait_until 5 proc_exited $(cat $CLUSTER/worker1.pid) && sleep 6 &&
        test "$(node_state node1)" = down && qdel $j && wait_state $j F &&
        test "$(count)" = '$k' && test "$(count "AND kind = '\''failure'\''")" = 0 &&
        hpcq-local start-worker $CLUSTER 1 && m=$(mtbi_of_auto_job) && e=$(expected '$k') &&
        echo "reclaim '$k': M $m, expected $e" >>mtbf.log && awk -v m=$m -v e=$e "BEGIN { d = m - e; exit !(d < 2.5 && d > -2.5) }"
    '
done

say "$(cat mtbf.log 2>/dev/null | tr '\n' ';')"
test_expect_success 'no change of state was refused as illegal' '
    ! grep "illegal state change" $CLUSTER/scheduler.log
'

test_done
