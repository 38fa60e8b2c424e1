#!/bin/bash
# Spot notices: each worker polls its provider's metadata service (here a
# local HTTP server, tests/spot-metadata.py, on 127.0.0.1: the URL comes
# from the config, so no real metadata address is ever asked) the way the
# provider wants (AWS's IMDSv2 token, GCP's Metadata-Flavor, Azure's
# Metadata header); a notice drains the node and moves its jobs to other
# nodes; the node goes down when the provider takes it and comes back on
# a later boot; a garbage document is one log line and changes nothing;
# pbsnodes --reclaim does the same by hand, for operators only.
. "$(dirname "$0")/lib.sh"

spot_metadata_start

cluster_start 3 --cpus-per-worker 2 --labels 1=spot --labels 2=spot --labels 3=spot \
    --worker-conf 1 "notice_provider = aws" \
    --worker-conf 1 "notice_url = http://127.0.0.1:$PORT/node1/latest/meta-data/spot/instance-action" \
    --worker-conf 1 "notice_interval = 0.2" \
    --worker-conf 2 "notice_provider = gcp" \
    --worker-conf 2 "notice_url = http://127.0.0.1:$PORT/node2/computeMetadata/v1/instance/preempted" \
    --worker-conf 2 "notice_interval = 0.2" \
    --worker-conf 3 "notice_provider = azure" \
    --worker-conf 3 "notice_url = http://127.0.0.1:$PORT/node3/metadata/scheduledevents?api-version=2020-07-01" \
    --worker-conf 3 "notice_interval = 0.2"

node_state() { pbsnodes -F json "$1" | jq -r '.nodes[0].state'; }
node_comment() { pbsnodes -F json "$1" | jq -r '.nodes[0].comment'; }
host_of() { job_attr $1 exec_host | cut -d/ -f1; }
nevents() { db_query "SELECT count(*) FROM events WHERE job_seq IS NULL AND type = '$1'"; }
seen() { grep -q "$1" $META/requests.log 2>/dev/null; }
# on_node N: a job that runs on node N (the others taken out of service
# while it is placed), not pinned there: it may move.
on_node() {
    local others
    others=$(for i in 1 2 3; do [ $i = $1 ] || echo node$i; done)
    pbsnodes -o $others && id=$(echo "sleep 120" | qsub -l select=1:ncpus=1) &&
    wait_state $id R && pbsnodes -r $others && test "$(host_of $id)" = node$1 && echo $id
}
moved() { test "$(job_attr $1 run_count)" = 2 && has_state $1 R && test "$(host_of $1)" != "$2"; }

test_expect_success 'nothing planned: each provider is asked its own way' '
    wait_until 20 seen "^PUT /latest/api/token 200 ttl=21600" &&
    wait_until 20 seen "^GET /node1/latest/meta-data/spot/instance-action 404 token=ok" &&
    wait_until 20 seen "^GET /node2/computeMetadata/v1/instance/preempted 200 flavor=ok" &&
    wait_until 20 seen "^GET /node3/metadata/scheduledevents?api-version=2020-07-01 200 metadata=ok" &&
    sleep 1 && ! grep -E " (401|403|400) " $META/requests.log &&
    test "$(grep -c "^PUT" $META/requests.log)" = 1 &&
    for n in node1 node2 node3; do test "$(node_state $n)" = free || exit 1; done
'

test_expect_success 'an AWS notice: node1 drains, its job moves to another node' '
    a=$(on_node 1) && echo $a >id.a && echo "aws 6" >$META/node1 &&
    wait_until 10 eval "test \"\$(node_state node1)\" = draining" &&
    db_query "SELECT detail FROM events WHERE type = \"node_reclaim_notice\"" |
        grep -q "^node1: aws terminate, taken in [5-7]\.[0-9] s; 1 job$" &&
    wait_until 15 moved $a node1 &&
    db_query "SELECT detail FROM events WHERE job_seq = $(seqno $a) AND type = \"requeued\"" |
        grep -q "^reclaimed: node node1 (aws terminate); no checkpoint reported in time" &&
    grep -q "job $a: no process of it catches signal 10: the checkpoint request goes unanswered" \
        $CLUSTER/worker1.log &&
    test "$(node_state node1)" = reclaiming
'

test_expect_success 'the provider takes node1: down; a later boot brings it back' '
    kill -9 $(cat $CLUSTER/worker1.pid) &&
    wait_until 10 eval "test \"\$(node_state node1)\" = down" &&
    test "$(node_comment node1)" = "reclaimed (aws terminate)" &&
    test "$(nevents node_reclaimed)" = 1 && rm $META/node1 &&
    hpcq-local start-worker $CLUSTER 1 &&
    wait_until 10 eval "test \"\$(node_state node1)\" = free" &&
    qdel $(cat id.a) && wait_state $(cat id.a) F
'

test_expect_success 'a GCP notice (TRUE): node2 drains; taken early, its job moves at once' '
    b=$(on_node 2) && echo gcp >$META/node2 &&
    wait_until 10 eval "test \"\$(node_state node2)\" = draining" &&
    db_query "SELECT detail FROM events WHERE type = \"node_reclaim_notice\"" |
        grep -q "^node2: gcp preempt, taken in [23][0-9]\.[0-9] s; 1 job$" &&
    kill -9 $(cat $CLUSTER/worker2.pid) && wait_until 10 moved $b node2 &&
    test "$(node_state node2)" = down && rm $META/node2 &&
    hpcq-local start-worker $CLUSTER 2 && qdel $b && wait_state $b F
'

test_expect_success 'an Azure Preempt event: node3 drains, its job moves' '
    c=$(on_node 3) && echo "azure 5" >$META/node3 &&
    wait_until 10 eval "test \"\$(node_state node3)\" = draining" &&
    db_query "SELECT detail FROM events WHERE type = \"node_reclaim_notice\"" |
        grep -q "^node3: azure preempt, taken in [2-6]\.[0-9] s; 1 job$" &&
    wait_until 15 moved $c node3 && kill -9 $(cat $CLUSTER/worker3.pid) &&
    wait_until 10 eval "test \"\$(node_state node3)\" = down" && rm $META/node3 &&
    hpcq-local start-worker $CLUSTER 3 && qdel $c && wait_state $c F
'

test_expect_success 'a garbage notice document: one log line, nothing changes' '
    n0=$(nevents node_reclaim_notice) && echo garbage >$META/node1 &&
    echo garbage >$META/node2 && echo garbage >$META/node3 &&
    wait_until 10 grep -q "spot notice: .*instance-action is not a JSON object" $CLUSTER/worker1.log &&
    wait_until 10 grep -q "spot notice: .*preempted: expected TRUE or FALSE" $CLUSTER/worker2.log &&
    wait_until 10 grep -q "spot notice: .*scheduledevents lacks an \"Events\" array" $CLUSTER/worker3.log &&
    sleep 2 && for i in 1 2 3; do
        test "$(grep -c "spot notice:" $CLUSTER/worker$i.log)" = 1 || exit 1
        test "$(node_state node$i)" = free || exit 1
    done &&
    test "$(nevents node_reclaim_notice)" = $n0 && rm $META/node1 $META/node2 $META/node3
'

test_expect_success 'pbsnodes --reclaim: the same by hand' '
    d=$(on_node 2) && pbsnodes --reclaim --notice 4 node2 &&
    test "$(node_state node2)" = draining &&
    db_query "SELECT detail FROM events WHERE type = \"node_reclaim_notice\"" |
        grep -q "^node2: pbsnodes --reclaim by $(id -un), taken in 4\.0 s; 1 job$" &&
    wait_until 15 moved $d node2 && qdel $d && wait_state $d F
'

other_users_setup true
test_expect_success 'pbsnodes --reclaim: bad input and other users refused, nothing changes' '
    n0=$(nevents node_reclaim_notice) &&
    ! pbsnodes --reclaim nosuch 2>e1 && grep -qx "pbsnodes: Unknown node nosuch" e1 &&
    ! pbsnodes --reclaim --notice soon node1 2>e2 &&
    grep -qx "pbsnodes: invalid --notice .soon. (seconds, 0 to 86400)" e2 &&
    ! pbsnodes --notice 5 node1 2>e3 && grep -qx "pbsnodes: --notice goes with --reclaim" e3 &&
    ! pbsnodes --reclaim 2>e4 && grep -qx "pbsnodes: -o, -r and --reclaim need node names" e4 &&
    if [ -n "$other_users" ]; then
        ! as_user nobody env HPCQ_SERVER=$HPCQ_SERVER pbsnodes --reclaim node1 2>e5 &&
        grep -qx "pbsnodes: Unauthorized Request" e5
    fi &&
    test "$(nevents node_reclaim_notice)" = $n0 && test "$(node_state node1)" = free
'

test_expect_success 'a worker refuses bad notice settings in one line' '
    sed "/^notice/d" $CLUSTER/worker1.conf >w.conf &&
    { cat w.conf; echo "notice_provider = aws"; } >w1.conf &&
    ! hpcq-worker --config w1.conf --log-file w1.log 2>w1.err && cat w1.err &&
    test "$(wc -l <w1.err)" = 1 &&
    grep -q "notice_url .*: an http:// or https:// URL is required with notice_provider" w1.err &&
    { cat w.conf; echo "notice_provider = oracle"; echo "notice_url = http://127.0.0.1:1/"; } >w2.conf &&
    ! hpcq-worker --config w2.conf --log-file w2.log 2>w2.err &&
    grep -q "notice_provider .oracle.: aws, gcp or azure" w2.err
'

test_expect_success 'no change of state was refused as illegal' '
    ! grep "illegal state change" $CLUSTER/scheduler.log
'

test_done
