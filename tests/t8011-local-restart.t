#!/bin/bash
# hpcq-local over a cluster whose scheduler died: start refuses (its
# workers live on), pointing to start-scheduler; a scheduler restarted by
# hand is still one of DIR's daemons, and stop stops every one of them.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 1

# The pids of the daemons of the test's cluster, by their config files;
# not the workers' fence watchdogs (hpcq-fence, forked with the worker's
# command line: worker/fence.h), which each worker starts and stops itself.
daemons() {
    local p
    for p in $(pgrep -f -- "--config $CLUSTER/(scheduler|worker[0-9]+)\.conf"); do
        [ "$(cat /proc/$p/comm 2>/dev/null)" = hpcq-fence ] || echo $p
    done | sort
}

test_expect_success 'the scheduler dies; its workers live on' '
    daemons > before && test $(wc -l < before) = 3 &&
    kill -9 $(cat $CLUSTER/scheduler.pid) &&
    wait_until 10 sh -c "! kill -0 $(cat $CLUSTER/scheduler.pid) 2>/dev/null" &&
    daemons > after && test $(wc -l < after) = 2
'

test_expect_success 'start over it refuses, pointing to start-scheduler, and starts nothing' '
    ! hpcq-local start $CLUSTER --workers 2 --cpus-per-worker 1 2> start.err &&
    cat start.err && test $(wc -l < start.err) = 1 &&
    grep -q "hpcq-local start-scheduler $CLUSTER" start.err &&
    daemons > now && cmp -s after now
'

test_expect_success 'a scheduler restarted by hand serves the cluster' '
    (setsid "$HPCQ_BUILDDIR/scheduler/hpcq-scheduler" --config $CLUSTER/scheduler.conf \
        --log-file $CLUSTER/scheduler.log </dev/null >>$CLUSTER/scheduler.out 2>&1 &) &&
    wait_until 20 sh -c "test \$(grep -c \"node node[12] up\" $CLUSTER/scheduler.log) -ge 4" &&
    j=$(echo true | qsub) && wait_state $j F &&
    ! hpcq-local start-scheduler $CLUSTER 2> again.err && grep -q "not started by hpcq-local" again.err
'

test_expect_success 'stop stops every daemon of the folder, the hand-started one too' '
    hpcq-local stop $CLUSTER 2> stop.err && cat stop.err &&
    grep -q "not started by hpcq-local" stop.err &&
    for i in $(seq 50); do test -z "$(daemons)" && break; sleep 0.2; done &&
    test -z "$(daemons)"
'

test_done
