#!/bin/bash
# Durable notices (scheduler/reclaim.h): a reclaim notice is stored with
# its deadline, and a scheduler killed -9 between the notice and the
# deadline honours it when it comes back: a job that checkpoints is asked
# again (the request made before the crash went unanswered) and moves with
# its checkpoint while there is time; a deadline that passed while the
# scheduler was away means the node is gone, and its job is requeued at
# once.  The interruption is counted once, not again at the restart.  A
# notice whose deadline is already past is refused, one line in the
# worker's log for each (the test's provider moves the time with each
# poll), and changes nothing.
. "$(dirname "$0")/lib.sh"

spot_metadata_start
cluster_start 2 --cpus-per-worker 2 --node-timeout 10 --labels 1=spot,class=flaky \
    --worker-conf 2 "notice_provider = aws" --worker-conf 2 "notice_interval = 0.2" \
    --worker-conf 2 "notice_url = http://127.0.0.1:$PORT/node2/latest/meta-data/spot/instance-action"

node_state() { pbsnodes -F json "$1" | jq -r '.nodes[0].state'; }
host_of() { job_attr $1 exec_host | cut -d/ -f1; }
moved() { test "$(job_attr $1 run_count)" = 2 && has_state $1 R && test "$(host_of $1)" != "$2"; }
nevents() { db_query "SELECT count(*) FROM events WHERE job_seq IS NULL AND type = '$1'"; }
stored() { db_query "SELECT count(*) FROM reclaim_notices WHERE node = '$1'"; }
# A job placed on node1 (node2 out of service while it is placed).
on_node1() {
    pbsnodes -o node2 && id=$(qsub "$@") && wait_state $id R && pbsnodes -r node2 &&
    test "$(host_of $id)" = node1 &&
    wait_until 10 grep -q "job $id started as pid" $CLUSTER/worker1.log && sleep 0.5 && echo $id
}
# Checkpoints on USR1, once $WORK/go exists (before, the request goes unanswered).
cat >ck.sh <<EOS
#!/bin/bash
g=0
trap '[ -e $WORK/go ] && g=\$((g + 1)) && hpcq-ckpt done --generation \$g --bytes 10' USR1
while :; do sleep 0.1; done
EOS

test_expect_success 'a notice, the scheduler killed -9 and restarted before the deadline: the job checkpoints and moves' '
    a=$(on_node1 -c s ck.sh) &&
    pbsnodes --reclaim --notice 25 node1 && test "$(stored node1)" = 1 &&
    wait_until 10 grep -q "job $a: USR1 requested (checkpoint)" $CLUSTER/worker1.log &&
    kill9_scheduler && touch go && hpcq-local start-scheduler $CLUSTER &&
    wait_until 20 moved $a node1 &&
    test "$(job_attr $a checkpoint.generation)" -ge 1 &&
    test "$(db_query "SELECT count(*) FROM events WHERE job_seq = $(seqno $a) AND type = \"checkpoint_requested\"")" = 2 &&
    db_query "SELECT detail FROM events WHERE job_seq = $(seqno $a) AND type = \"requeued\"" |
        grep -q "^reclaimed: node node1 (pbsnodes --reclaim by $(id -un)); checkpoint reported" &&
    grep -q "reclaim notice for node node1 (pbsnodes --reclaim by $(id -un)) restored: taken in" $CLUSTER/scheduler.log &&
    test "$(nevents node_reclaim_notice)" = 1 &&
    test "$(db_query "SELECT count(*) FROM interruptions WHERE class = \"flaky\"")" = 1 &&
    test "$(node_state node1)" = reclaiming &&
    wait_until 30 eval "test \"\$(nevents node_reclaimed)\" = 1" &&
    wait_until 20 eval "test \"\$(node_state node1)\" = free" && test "$(stored node1)" = 0 &&
    qdel $a && wait_state $a F
'

test_expect_success 'the deadline passes while the scheduler is away: at its restart the node is gone and the job requeued' '
    echo 'sleep 300' >long.sh && b=$(on_node1 long.sh) && pbsnodes --reclaim --notice 2 node1 &&
    kill9_scheduler && sleep 3 && hpcq-local start-scheduler $CLUSTER &&
    wait_until 20 moved $b node1 &&
    db_query "SELECT detail FROM events WHERE job_seq = $(seqno $b) AND type = \"requeued\"" |
        grep -q "^reclaimed: node1: the notice time was up while the scheduler was away" &&
    test "$(nevents node_reclaimed)" = 2 &&
    test "$(db_query "SELECT count(*) FROM interruptions WHERE class = \"flaky\"")" = 2 &&
    qdel $b && wait_state $b F
'

test_expect_success 'a notice with its deadline in the past: refused in one line, nothing changes' '
    wait_until 20 eval "test \"\$(node_state node2)\" = free" &&
    n0=$(nevents node_reclaim_notice) && echo "aws -30" >$META/node2 &&
    wait_until 10 grep -q "scheduler refused the spot notice: node.notice: deadline [0-9]* is in the past" $CLUSTER/worker2.log &&
    sleep 1 && ! grep -q "node2.*refused" $CLUSTER/scheduler.log &&
    test "$(nevents node_reclaim_notice)" = $n0 && test "$(node_state node2)" = free &&
    test "$(stored node2)" = 0 && rm $META/node2
'

test_expect_success 'no change of state was refused as illegal' '
    ! grep "illegal state change" $CLUSTER/scheduler.log
'

test_done
