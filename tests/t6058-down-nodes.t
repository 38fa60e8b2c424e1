#!/bin/bash
# A worker that went down no longer counts (issue 10, finding 11): a job
# that only down nodes could hold waits, with a comment, instead of
# holding the queue behind it; and once a node has been down longer than
# node_down_grace, submissions are judged without it, the refusal naming
# it.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --node-timeout 2 --policy easy \
    --sched-config node_down_grace=6

pidof_worker() { cat "$CLUSTER/worker$1.pid"; }
node_state() { pbsnodes "$1" 2>/dev/null | sed -n "s/^ *state = //p" | head -1; }

test_expect_success 'a job for both nodes is accepted while both are up' '
    test "$(node_state node2)" = free &&
    echo "sleep 300" | qsub -l select=2:ncpus=2 -l place=scatter -h -N both > both.id
'

test_expect_success 'node2 stops: it is marked down' '
    w=$(pidof_worker 2) && kill -STOP $w && echo $w > stopped.pid &&
    wait_until 15 grep -q "node node2 is down" "$CLUSTER/scheduler.log"
'

test_expect_success 'the job for both nodes waits, saying why, and holds nobody up' '
    qrls $(cat both.id) &&
    small=$(echo true | qsub -l ncpus=1 -l walltime=10:00 -N small) &&
    wait_state $small F 20 &&
    test "$(job_attr $(cat both.id) job_state)" = Q &&
    wait_until 10 sh -c "qstat -f $(cat both.id) | grep -q \"comment = Not Running: needs nodes that are down or offline\""
'

test_expect_success 'within node_down_grace, a job for both nodes is still accepted' '
    echo true | qsub -h -l select=2:ncpus=2 -l place=scatter > grace.id
'

test_expect_success 'past node_down_grace it is refused, and the refusal names the node' '
    sleep 6 &&
    ! echo true | qsub -l select=2:ncpus=2 -l place=scatter 2> r.err && cat r.err &&
    grep -q "select=2:ncpus=2 place=scatter needs 2 nodes; the cluster has 1 (down longer than node_down_grace: node2)" r.err
'

test_expect_success 'node2 comes back: the waiting job runs' '
    kill -CONT $(cat stopped.pid) && kill $(cat stopped.pid) &&
    wait_until 15 sh -c "! kill -0 $(cat stopped.pid) 2>/dev/null" &&
    hpcq-local start-worker "$CLUSTER" 2 &&
    wait_state $(cat both.id) R 30 &&
    echo true | qsub -h -l select=2:ncpus=2 -l place=scatter > /dev/null
'

test_done
