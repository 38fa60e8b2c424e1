#!/bin/bash
# Fencing (worker/fence.h, docs/design.md "Fencing"): a node whose worker
# is killed -9 and never restarted kills its jobs itself, through the
# watchdog that outlives the worker, fence_time after its last answered
# heartbeat; the scheduler requeues them only after node_timeout, so the
# old copy is dead before the new one starts.  Each copy stamps every line
# it appends to a file in its checkpoint folder with its attempt and the
# time: the lines of attempt 0 all come before those of attempt 1 (one
# writer at a time).  The same with the scheduler killed at the same
# moment and restarted; a -r n job is failed, not requeued; a fence_time
# not below node_timeout is refused in one line.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --node-timeout 4

host_of() { job_attr $1 exec_host | cut -d/ -f1; }
moved() { test "$(job_attr $1 run_count)" = 2 && has_state $1 R && test "$(host_of $1)" != "$2"; }
test_expect_success 'kill -9 of a worker, never restarted: its jobs are fenced before the requeued copy starts' '
    a=$(echo "$fence_job" | qsub -c s -l select=1:ncpus=1) && wait_state $a R &&
    n=$(host_of $a) &&
    b=$(echo "sleep 120" | qsub -r n -l select=1:ncpus=1:host=$n) && wait_state $b R &&
    wait_until 30 fence_more 0 5 &&
    t0=$(date +%s.%N) && kill -9 $(cat $CLUSTER/worker${n#node}.pid) &&
    wait_until 20 moved $a $n && wait_until 30 fence_more 1 3 &&
    fence_one_writer && f=$(fenced_at $n $(seqno $a) 1) && test -n "$f" &&
    start1=$(fence_writes | awk "\$1 == 1 { print \$2; exit }") &&
    end0=$(fence_writes | awk "\$1 == 0 { t = \$2 } END { print t }") &&
    echo "killed $t0, last write of 0 at $end0, fenced $f, first write of 1 at $start1" &&
    awk -v e=$end0 -v f=$f -v s=$start1 "BEGIN { exit !(e <= f + 0.2 && f < s) }" &&
    grep -q "fenced job_$(seqno $b)\.1: its worker is gone" $CLUSTER/spool/$n/fence.log &&
    grep -q "fence: killed job_$(seqno $a)\.1: its worker is gone" $CLUSTER/worker${n#node}.log &&
    wait_state $b F && test "$(job_attr $b Exit_status)" = -11 &&
    echo $a $n >state.a
'

test_expect_success 'nothing of the old copy runs: its session is gone' '
    read a n <state.a && sleep 1 && n0=$(fence_lines 0) && sleep 1 && test "$(fence_lines 0)" = $n0 &&
    ! pgrep -f "hpcq-worker --config $CLUSTER/worker${n#node}.conf"
'

test_expect_success 'the worker and the scheduler killed at once: fenced, then requeued after the restart' '
    read a n <state.a && qdel $a && wait_state $a F && rm -rf $WORK/.hpcq &&
    hpcq-local start-worker $CLUSTER ${n#node} &&
    c=$(echo "$fence_job" | qsub -c s -l select=1:ncpus=1) && wait_state $c R &&
    m=$(host_of $c) && wait_until 30 fence_more 0 5 &&
    kill -9 $(cat $CLUSTER/worker${m#node}.pid) && kill9_scheduler &&
    hpcq-local start-scheduler $CLUSTER &&
    wait_until 30 moved $c $m && wait_until 30 fence_more 1 3 &&
    fence_one_writer && test -n "$(fenced_at $m $(seqno $c) 1)" &&
    qdel $c && wait_state $c F
'

test_expect_success 'fence_time not below node_timeout: refused in one line, nothing made' '
    sed -e "/^state_dir/d" -e "/^socket/d" -e "/^listen/d" $CLUSTER/scheduler.conf >bad.conf &&
    echo "fence_time = 4" >>bad.conf && d=$WORK/fresh &&
    ! hpcq-scheduler --config bad.conf --state-dir $d --socket $d.sock \
        --listen 127.0.0.1:0 --log-file $WORK/bad.log 2>bad.err &&
    cat bad.err && test "$(wc -l <bad.err)" = 1 &&
    grep -qx "hpcq-scheduler: fence_time (4 s) must be less than node_timeout (4 s): a lost node.s jobs would be started elsewhere before they are killed there" bad.err &&
    ! test -e $d/hpcq.sqlite
'

test_expect_success 'no change of state was refused as illegal' '
    ! grep "illegal state change" $CLUSTER/scheduler.log
'

test_done
