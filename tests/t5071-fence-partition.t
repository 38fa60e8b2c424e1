#!/bin/bash
# Fencing with the worker alive (worker/fence.h): a host on a network of
# its own (hpcq-local --hosts) whose link is cut keeps running, hears
# nothing from the scheduler, and kills its job itself fence_time after its
# last answered heartbeat; the scheduler requeues the job elsewhere only
# after node_timeout, so the two copies never write the checkpoint folder
# at once.  Healed, the host comes back and runs nothing stale.
. "$(dirname "$0")/lib.sh"

hosts_require
cluster_start 2 --cpus-per-worker 2 --hosts --node-timeout 4

host_of() { job_attr $1 exec_host | cut -d/ -f1; }
moved() { test "$(job_attr $1 run_count)" = 2 && has_state $1 R && test "$(host_of $1)" != "$2"; }
node_state() { pbsnodes -F json "$1" | jq -r '.nodes[0].state'; }
veth() { echo "$(hosts_setting_of bridge)v${1#node}"; }
hosts_setting_of() { sed -n "s/^$1=//p" $CLUSTER/net/cluster; }

test_expect_success 'the link of a live worker is cut: its job is fenced there before it runs elsewhere' '
    a=$(echo "$fence_job" | qsub -c s -l select=1:ncpus=1) && wait_state $a R &&
    n=$(host_of $a) && wait_until 10 fence_more 0 5 &&
    ip link set $(veth $n) down &&
    wait_until 20 moved $a $n && wait_until 10 fence_more 1 3 &&
    fence_one_writer && f=$(fenced_at $n $(seqno $a) 1) && test -n "$f" &&
    grep -q "fenced job_$(seqno $a)\.1: its worker is alive" $CLUSTER/spool/$n/fence.log &&
    grep -q "job $a: killed: fenced: no answer from the scheduler" $CLUSTER/worker${n#node}.log &&
    kill -0 $(cat $CLUSTER/worker${n#node}.pid) && echo $a $n >state.a
'

test_expect_success 'healed: the host comes back up and runs nothing stale' '
    read a n <state.a && ip link set $(veth $n) up &&
    wait_until 60 eval "test \"\$(node_state $n)\" = free" &&
    n1=$(fence_lines 0) && sleep 1 && test "$(fence_lines 0)" = $n1 &&
    test "$(job_attr $a run_count)" = 2 && has_state $a R &&
    qdel $a && wait_state $a F
'

test_expect_success 'no change of state was refused as illegal' '
    ! grep "illegal state change" $CLUSTER/scheduler.log
'

test_done
