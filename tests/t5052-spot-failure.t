#!/bin/bash
# Unplanned failures of spot nodes: a host that vanishes with no notice
# (its worker killed -9) loses its jobs after node_timeout: rerunnable ones
# restart on another node as a new attempt, others fail; and fencing: a
# host whose worker is frozen kills its job itself (worker/fence.h) before
# the scheduler requeues it elsewhere, and thawed it runs nothing stale.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --node-timeout 3 --labels 1=spot --labels 2=spot

host_of() { job_attr $1 exec_host | cut -d/ -f1; }
node_state() { pbsnodes -F json "$1" | jq -r '.nodes[0].state'; }
other() { test "$1" = node1 && echo node2 || echo node1; }
moved() { test "$(job_attr $1 run_count)" = 2 && has_state $1 R && test "$(host_of $1)" != "$2"; }
# Lines a job's attempt N wrote, by the file it appends to.
lines() { wc -l <"$WORK/beat.$1.$2" 2>/dev/null || echo 0; }
grows() { local a; a=$(lines $1 $2); sleep 1; test "$(lines $1 $2)" -gt "$a"; }
still() { local a; a=$(lines $1 $2); sleep 1.5; test "$(lines $1 $2)" = "$a"; }

# A job that appends a line every 0.1 s to a file named by its attempt.
beat='while :; do echo x >>'$WORK'/beat.$(echo $PBS_JOBID | cut -d. -f1).$HPCQ_RESTART_COUNT; sleep 0.1; done'

test_expect_success 'kill -9 of a worker: its rerunnable job restarts elsewhere, a -r n one fails' '
    a=$(echo "$beat" | qsub -l select=1:ncpus=1) && wait_state $a R &&
    n=$(host_of $a) &&
    b=$(echo "sleep 120" | qsub -r n -l select=1:ncpus=1:host=$n) && wait_state $b R &&
    wait_until 10 grows $(seqno $a) 0 &&
    kill -9 $(cat $CLUSTER/worker${n#node}.pid) &&
    wait_until 20 moved $a $n && test "$(node_state $n)" = down &&
    wait_state $b F && test "$(job_attr $b Exit_status)" = -11 &&
    db_query "SELECT detail FROM events WHERE job_seq = $(seqno $a) AND type = \"requeued\"" |
        grep -q "node $n stopped sending heartbeats" &&
    wait_until 10 grows $(seqno $a) 1 && echo $a $n >state.a
'

test_expect_success 'the host comes back: what the dead worker left running is killed' '
    read a n <state.a && hpcq-local start-worker $CLUSTER ${n#node} &&
    wait_until 10 still $(seqno $a) 0 && grows $(seqno $a) 1 &&
    qdel $a && wait_state $a F
'

test_expect_success 'fencing: a frozen worker: its job is killed on its node before it moves' '
    c=$(echo "$beat" | qsub -l select=1:ncpus=1) && wait_state $c R && n=$(host_of $c) &&
    wait_until 10 grows $(seqno $c) 0 &&
    pid=$(cat $CLUSTER/worker${n#node}.pid) && kill -STOP $pid &&
    wait_until 20 moved $c $n && still $(seqno $c) 0 && wait_until 10 grows $(seqno $c) 1 &&
    grep -q "fenced job_$(seqno $c)\.1: its worker is alive" $CLUSTER/spool/$n/fence.log &&
    kill -CONT $pid && wait_until 15 grep -q "job $c: killed: fenced" $CLUSTER/worker${n#node}.log &&
    still $(seqno $c) 0 && grows $(seqno $c) 1 &&
    test "$(job_attr $c run_count)" = 2 && has_state $c R &&
    qdel $c && wait_state $c F
'

test_expect_success 'no change of state was refused as illegal' '
    ! grep "illegal state change" $CLUSTER/scheduler.log
'

test_done
