#!/bin/bash
# Fencing when the cut heals in time (worker/fence.h): a host's link is cut
# for longer than fence_time but shorter than node_timeout.  The worker
# kills its job itself when fence_time has passed with no answered
# heartbeat; the link then comes back before the scheduler would have
# declared the node down.  The node is never marked down, the worker says
# the job was fenced, the scheduler requeues it and it runs again, and the
# two copies never write the checkpoint folder at once.
. "$(dirname "$0")/lib.sh"

hosts_require
# node_timeout 12 s: fence_time 9 s; the cut ends about 2 s after the fence.
cluster_start 2 --cpus-per-worker 2 --hosts --node-timeout 12

host_of() { job_attr $1 exec_host | cut -d/ -f1; }
node_state() { pbsnodes -F json "$1" | jq -r '.nodes[0].state'; }
veth() { echo "$(hosts_setting_of bridge)v${1#node}"; }
hosts_setting_of() { sed -n "s/^$1=//p" $CLUSTER/net/cluster; }
again() { test "$(job_attr $1 run_count)" = 2 && has_state $1 R; }

test_expect_success 'cut past fence_time, healed before node_timeout: fenced, never down, run again once' '
    a=$(echo "$fence_job" | qsub -c s -l select=1:ncpus=1) && wait_state $a R &&
    n=$(host_of $a) && wait_until 10 fence_more 0 5 &&
    ip link set $(veth $n) down && t0=$(date +%s.%N) &&
    wait_until 11 grep -q "job $a: killed: fenced: no answer from the scheduler" $CLUSTER/worker${n#node}.log &&
    t1=$(date +%s.%N) && test "$(node_state $n)" != down &&
    ip link set $(veth $n) up &&
    echo "cut at $t0, fenced by $t1" &&
    awk -v a=$t0 -v b=$t1 "BEGIN { exit !(b - a < 12) }" &&
    wait_until 30 again $a && wait_until 10 fence_more 1 3 &&
    fence_one_writer &&
    ! grep -q "node $n is down" $CLUSTER/scheduler.log &&
    wait_until 20 eval "test \"\$(node_state $n)\" != down" &&
    qdel $a && wait_state $a F
'

test_expect_success 'no change of state was refused as illegal' '
    ! grep "illegal state change" $CLUSTER/scheduler.log
'

test_done
