#!/bin/bash
# What an administrator types by habit (issue 27 items 6 and the smaller
# ones): pbsnodes -aS, -aSj and -v in PBS Pro's shapes, qdel -x (a
# finished job's history purged, also after a restart), qstat of a string
# that is no job id, qmgr on nodes, hpcq-local start --workers abc.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --mem-per-worker 2gb

run() { "$@" >out 2>err; echo $? >rc; }
shown() { echo "exit $(cat rc)"; echo "stdout:"; cat out; echo "stderr:"; cat err; }

test_expect_success 'pbsnodes -aS: PBS Pro'\''s summary header and one line a node' '
    run pbsnodes -aS; shown; test "$(cat rc)" = 0 &&
    head -1 out | grep -q "^vnode           state           OS       hardware host            queue        mem     ncpus   nmics   ngpus  comment$" &&
    grep -Eq "^node1 +free +-- +-- +node1 +-- +2gb +2 +0 +0 --$" out &&
    test "$(grep -c "^node" out)" = 2
'
echo 'sleep 30' >long.sh
id=$(qsub -l select=1:ncpus=1:mem=512mb:host=node1 -o /dev/null -j oe long.sh)
wait_state "$id" R
test_expect_success 'pbsnodes -aSj: jobs, free/total memory, cpus and gpus' '
    run pbsnodes -aSj; shown; test "$(cat rc)" = 0 &&
    sed -n 2p out | grep -q "^vnode           state           njobs   run   susp      f/t        f/t     f/t     f/t   jobs$" &&
    grep -Eq "^node1 +free +1 +1 +0 +[0-9.]+[gm]b/2gb +1/2 +0/0 +0/0 $(seqno $id)$" out &&
    grep -Eq "^node2 +free +0 +0 +0 +2gb/2gb +2/2 +0/0 +0/0 --$" out
'
test_expect_success 'pbsnodes -v node1: that vnode'\''s attributes' '
    run pbsnodes -v node1; shown; test "$(cat rc)" = 0 &&
    head -1 out | grep -qx node1 && grep -q "resources_available.ncpus = 2" out &&
    ! grep -q "^node2" out
'
qdel "$id" >/dev/null 2>&1

test_expect_success 'qdel of a finished job: refused, pointing to -x' '
    id=$(echo true | qsub -o /dev/null -j oe) && wait_state $id F && echo $id >fin.id &&
    run qdel $id; shown; test "$(cat rc)" = 168 && grep -q "Job has finished $id (qdel -x purges it)" err
'
test_expect_success 'qdel -x purges it: qstat -x no longer knows it; tracejob still does' '
    id=$(cat fin.id) && run qdel -x $id; shown; test "$(cat rc)" = 0 && test ! -s err &&
    run qstat -x $id; shown; test "$(cat rc)" = 153 &&
    tracejob $id | grep -q "history purged by"
'
test_expect_success 'and after the scheduler restarts it stays purged' '
    id=$(cat fin.id) && kill "$(cat "$CLUSTER/scheduler.pid")" &&
    wait_until 20 sh -c "! kill -0 $(cat "$CLUSTER/scheduler.pid") 2>/dev/null" &&
    hpcq-local start-scheduler "$CLUSTER" >/dev/null && wait_until 20 qstat -B &&
    run qstat -x $id; shown; test "$(cat rc)" = 153 &&
    db_query "SELECT purged FROM jobs WHERE seq = $(seqno $id)" | grep -qx 1
'
test_expect_success 'qdel -x of a queued job deletes it as qdel does' '
    id=$(qsub -h -o /dev/null long.sh) && qdel -x $id && wait_state $id F
'
test_expect_success 'qdel -x of an array purges it with its subjobs' '
    id=$(qsub -J 1-2 -o /dev/null -j oe -- /bin/true) && wait_state $id F 30 &&
    qdel -x $id && run qstat -xt $id; shown; test "$(cat rc)" = 153
'

test_expect_success 'qstat abc: "illegally formed job identifier", exit 1' '
    run qstat abc; shown; test "$(cat rc)" = 1 && test ! -s out &&
    test "$(cat err)" = "qstat: illegally formed job identifier: abc"
'
test_expect_success 'qstat abc 99999: both said, the unknown id'\''s exit status' '
    run qstat abc 99999; shown; test "$(cat rc)" = 153 &&
    grep -q "illegally formed job identifier: abc" err && grep -q "Unknown Job Id 99999" err
'
test_expect_success 'qmgr on nodes: one line, exit 1, whatever the spelling' '
    for cmd in "print node @default" "list node node1" "list node" "set node node1 comment=x"; do
        run qmgr -c "$cmd"; shown; test "$(cat rc)" = 1 && test "$(wc -l <err)" = 1 &&
        grep -q "nodes are managed by their hpcq-worker" err || return 1
    done &&
    run qmgr -c "list node node1"; grep -q "qmgr obj=node1 " err
'
test_expect_success 'hpcq-local start --workers abc: names the bad value' '
    run hpcq-local start "$TEST_ROOT/c2" --workers abc; shown; test "$(cat rc)" = 1 &&
    grep -q "invalid --workers '\''abc'\''" err && test ! -e "$TEST_ROOT/c2/scheduler.pid"
'
test_expect_success 'hpcq-local start without --workers: says it is required' '
    run hpcq-local start "$TEST_ROOT/c3"; shown; test "$(cat rc)" = 1 &&
    grep -q "\-\-workers N is required" err
'
test_done
