#!/bin/bash
# pbsnodes: the nodes' state, resources and jobs; taking a node out of
# service (offline: running jobs finish, nothing new starts, "draining"
# until they have) and back; durable across a restart; who may.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2

other_users_setup pbsnodes -a

# node_attr NODE ATTR: the value pbsnodes shows
node_attr() { pbsnodes "$1" | sed -n "s/^     $2 = //p"; }
node_state() { node_attr "$1" state; }
has_node_state() { [ "$(node_state "$1")" = "$2" ]; }

test_expect_success 'pbsnodes -a lists every node, free, with its resources' '
    pbsnodes -a > all && test $(grep -c "^node[12]$" all) = 2 &&
    test "$(node_state node1)" = free && test "$(node_attr node2 pcpus)" = 2 &&
    test "$(node_attr node1 resources_available.ncpus)" = 2 &&
    test "$(node_attr node1 resources_assigned.ncpus)" = 0
'

test_expect_success 'a node whose cores are all taken is job-busy and lists its job' '
    id=$(echo "sleep 30" | qsub -l select=1:ncpus=2) && wait_state $id R &&
    host=$(job_attr $id exec_host) && host=${host%%/*} && echo $host > busy_node &&
    echo $id > busy_job &&
    test "$(node_state $host)" = job-busy && test "$(node_attr $host jobs)" = "$id" &&
    test "$(node_attr $host resources_assigned.ncpus)" = 2
'

test_expect_success 'offline with a job running: draining, the job runs on, new work goes elsewhere' '
    host=$(cat busy_node) && other=node1 && [ $host = node1 ] && other=node2
    pbsnodes -o -C "fan replaced soon" $host && test "$(node_state $host)" = draining &&
    test "$(node_attr $host comment)" = "fan replaced soon" &&
    pbsnodes -l | grep -q "^$host  *draining  *fan replaced soon$" &&
    a=$(echo "sleep 1" | qsub) && b=$(echo "sleep 1" | qsub) && c=$(echo "sleep 1" | qsub) &&
    wait_state $a F && wait_state $b F && wait_state $c F &&
    for j in $a $b $c; do test "$(job_attr $j exec_host)" = "$other/0*1" || exit 1; done &&
    has_state $(cat busy_job) R
'

test_expect_success 'once its jobs end the node is offline, and stays so across a restart' '
    host=$(cat busy_node) && qdel $(cat busy_job) && wait_state $(cat busy_job) F &&
    wait_until 10 has_node_state $host offline &&
    pid=$(cat $CLUSTER/scheduler.pid) && kill -9 $pid &&
    wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" && hpcq-local start-scheduler $CLUSTER &&
    wait_until 20 has_node_state $host offline &&
    test "$(node_attr $host comment)" = "fan replaced soon" &&
    test "$(db_query "SELECT offline FROM nodes WHERE name = '"'"'$host'"'"'")" = 1
'

test_expect_success 'pbsnodes -r puts it back: jobs run there again' '
    host=$(cat busy_node) && pbsnodes -r $host && test "$(node_state $host)" = free &&
    test -z "$(node_attr $host comment)" &&
    wait_until 20 sh -c "test -z \"\$(pbsnodes -l)\"" &&
    x=$(echo "sleep 3" | qsub -l select=1:ncpus=2) && y=$(echo "sleep 3" | qsub -l select=1:ncpus=2) &&
    wait_state $x R && wait_state $y R &&
    test "$(job_attr $x exec_host | cut -d/ -f1)" != "$(job_attr $y exec_host | cut -d/ -f1)"
'

test_expect_success 'bad input: one line, non-zero exit, nothing changed' '
    ! pbsnodes node9 2> e1 && test "$(cat e1)" = "pbsnodes: Unknown node node9" &&
    ! pbsnodes -o node1 node9 2> e2 && grep -q "Unknown node node9" e2 &&
    test "$(node_state node1)" != offline &&
    ! pbsnodes -o 2> e3 && test $(wc -l < e3) = 1 &&
    ! pbsnodes -r -o node1 2> e4 && test $(wc -l < e4) = 1 &&
    ! pbsnodes -C why node1 2> e5 && grep -q "goes with -o" e5 &&
    ! pbsnodes -F xml 2> e6 && test $(wc -l < e6) = 1
'

if [ -n "$other_users" ]; then
    test_expect_success 'a user may look but not take a node offline' '
        as_user nobody pbsnodes -a | grep -q "^node1$" &&
        ! as_user nobody pbsnodes -o node1 2> u1 && grep -q "Unauthorized Request" u1 &&
        test "$(node_state node1)" != offline
    '
else
    test_skip 'a user may look but not take a node offline' 'cannot run commands as nobody'
fi

test_done
