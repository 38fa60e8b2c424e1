#!/bin/bash
# Jobs of root (uid 0) run only if PBS Pro's acl_roots names root: the
# scheduler refuses them at submission with PBS's words, and a worker
# refuses to launch one that its own acl_roots does not allow, whoever
# sent it (defence in depth against a forged launch: finding 2 of issue
# 10).  hpcq-local started by root writes acl_roots = root for both, so
# the other tests, which CI runs as root, submit as root.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
    skip_all "not root" \
        'a scheduler without root in acl_roots refuses a root job, in PBS words' \
        'nothing was queued' \
        "other users' jobs are accepted and run" \
        'a worker whose acl_roots lacks root refuses to run a root job' \
        'hpcq-local started by root allows root on the scheduler and the workers'
fi

cluster_start 1 --cpus-per-worker 2 --sched-config acl_roots=nobody
other_users_setup qstat

test_expect_success 'a scheduler without root in acl_roots refuses a root job, in PBS words' '
    ! echo "touch ran" | qsub 2> err &&
    test "$(cat err)" = "qsub: Bad UID for job execution"
'

test_expect_success 'nothing was queued' '
    test -z "$(qstat -x)" && test ! -e ran
'

if [ -n "$(root_and_nobody)" ]; then
    test_skip "other users' jobs are accepted and run" "$(root_and_nobody)"
else
    test_expect_success "other users' jobs are accepted and run" '
        id=$(echo true | as_user nobody qsub) && wait_state $id F &&
        test "$(job_attr $id Exit_status)" = 0
    '
fi
cluster_stop >/dev/null

# The scheduler allows root (hpcq-local's default as root); the worker not.
CLUSTER=$TEST_ROOT/c2
cluster_start 1 --cpus-per-worker 2 --worker-conf 1 'acl_roots = nobody'

test_expect_success 'a worker whose acl_roots lacks root refuses to run a root job' '
    id=$(echo "touch ran2" | qsub) && wait_state $id F &&
    test "$(job_attr $id Exit_status)" = -1 &&
    job_attr $id comment | grep -q "Bad UID for job execution: uid 0 (root) is not in acl_roots on node1" &&
    test ! -e ran2
'

test_expect_success 'hpcq-local started by root allows root on the scheduler and the workers' '
    grep -qx "acl_roots = root" $CLUSTER/scheduler.conf &&
    grep -qx "acl_roots = root" $CLUSTER/worker1.conf
'

test_done
