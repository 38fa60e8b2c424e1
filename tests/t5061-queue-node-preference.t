#!/bin/bash
# Queues that prefer spot or on-demand nodes (issue 12, part 4): qmgr's
# node_preference = spot | on_demand.  A preference, not a requirement: a
# queue's job takes a node of the kind it prefers when one fits, and the
# other kind when none does (-l spot=true|false is the requirement).  The
# setting survives a restart; bad values are refused in one line.
. "$(dirname "$0")/lib.sh"

# node2 is the spot node.  Best fit puts a one-core job on the node with
# the fewest cores left: with one core of node2 busy, that is node2.
cluster_start 2 --cpus-per-worker 2 --policy fifo --labels 2=spot

host_of() { job_attr $1 exec_host | cut -d/ -f1; }
both_free() { pbsnodes -F json | jq -e '[.nodes[] | select(.state == "free")] | length == 2' >/dev/null; }
mkqueue() {
    qmgr -c "create queue $1 queue_type=execution" &&
        qmgr -c "set queue $1 enabled=true,started=true" &&
        qmgr -c "set queue $1 node_preference=$2"
}

test_expect_success 'qmgr sets node_preference on two queues; list and print show it' '
    mkqueue cheap spot && mkqueue urgent on_demand &&
    qmgr -c "list queue cheap" | grep -qx "    node_preference = spot" &&
    qmgr -c "print server" | grep -qx "set queue urgent node_preference = on_demand" &&
    test "$(db_query "SELECT node_preference FROM queues WHERE name = '"'"'cheap'"'"'")" = spot
'

test_expect_success 'each queue takes its kind of node first, where best fit alone would not' '
    b=$(echo "sleep 30" | qsub -q cheap -l select=1:ncpus=1) && wait_until 20 has_state $b R &&
    test "$(host_of $b)" = node2 &&
    c=$(echo "sleep 30" | qsub -l select=1:ncpus=1) && wait_until 20 has_state $c R &&
    test "$(host_of $c)" = node2 &&
    qdel $c && wait_until 20 has_state $c F &&
    a=$(echo "sleep 30" | qsub -q urgent -l select=1:ncpus=1) && wait_until 20 has_state $a R &&
    test "$(host_of $a)" = node1 &&
    qdel $a $b && wait_until 20 has_state $a F && wait_until 20 has_state $b F
'

test_expect_success 'a preference is not a requirement: the other kind is used when the preferred is full' '
    d=$(echo "sleep 30" | qsub -q cheap -l select=1:ncpus=2) && wait_until 20 has_state $d R &&
    test "$(host_of $d)" = node2 &&
    e=$(echo "sleep 30" | qsub -q cheap -l select=1:ncpus=1) && wait_until 20 has_state $e R &&
    test "$(host_of $e)" = node1 &&
    qdel $d $e && wait_until 20 has_state $d F && wait_until 20 has_state $e F
'

test_expect_success 'a bad value is refused in one line and changes nothing' '
    ! qmgr -c "set queue cheap node_preference = cheapest" 2>err &&
    test "$(wc -l < err)" = 1 &&
    grep -q "Illegal attribute or resource value: node_preference=cheapest (spot or on_demand)" err &&
    qmgr -c "list queue cheap" | grep -qx "    node_preference = spot"
'

test_expect_success 'it survives a restart of the scheduler, and unset removes it' '
    kill9_scheduler && hpcq-local start-scheduler $CLUSTER && wait_until 30 both_free &&
    qmgr -c "list queue urgent" | grep -qx "    node_preference = on_demand" &&
    f=$(echo "sleep 30" | qsub -q cheap -l select=1:ncpus=1) && wait_until 30 has_state $f R &&
    test "$(host_of $f)" = node2 && qdel $f && wait_until 20 has_state $f F &&
    qmgr -c "unset queue cheap node_preference" &&
    ! qmgr -c "list queue cheap" | grep -q node_preference
'

test_done
