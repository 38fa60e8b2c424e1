#!/bin/bash
# Finding 1 of the security review (issue 10): a fake worker.  Anyone who
# could reach the scheduler's TCP port could register a worker (and be sent
# other users' scripts and environments), or claim a live node's name,
# evict the real worker and report its jobs' results.  Now a worker needs a
# MUNGE credential of a service uid (root or the scheduler's user) when its
# link opens, a session key on every frame after (t6002), and a
# node name belongs to the live link that holds it.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2
port=$(sched_port)
other_users_setup true

# While node1 is offline a queued job can only go to a new node: a fake
# one, if the scheduler let it in.
pbsnodes -o node1 >/dev/null

# fake_worker OUT FRAMES...: a fake worker on the scheduler's port, in the
# background; returns once the scheduler has answered its first frame.
fake_worker() {
    local out=$1; shift
    wire_client --timeout 10 tcp:127.0.0.1:$port "$@" > "$out" &
    fake=$!
    wait_until 10 grep -q "^reply" "$out"
}

test_expect_success 'a fake worker without a credential is refused and sent no job' '
    fake_worker fake.out "json:$(hello_frame ghost 64)" recv:5 &&
    id=$(echo hostname | qsub) &&
    wait $fake && cat fake.out &&
    wire_check fake.out reply 1 "r[\"errnum\"] == 1 and \"need link.open first\" in r[\"error\"]" &&
    ! grep "job.launch" fake.out &&
    test "$(job_state $id)" = Q &&
    ! pbsnodes -a | grep ghost &&
    grep "refused node.hello from 127.0.0.1" $CLUSTER/scheduler.log &&
    qdel $id
'

if [ "$(id -u)" = 0 ] && [ -n "$other_users" ]; then
    test_expect_success 'a fake worker with another user'"'"'s credential is refused and sent no job' '
        wire_client() { as_user_py nobody "$HPCQ_SRCDIR/tests/wire-client.py" "$@"; } &&
        fake_worker fake2.out open "seal:$(hello_frame ghost2 64)" recv:5 &&
        id=$(echo hostname | qsub) &&
        wait $fake && cat fake2.out &&
        wire_check fake2.out reply 1 "\"nonce\" in r[\"body\"]" &&
        wire_check fake2.out reply 2 "r[\"errnum\"] == 1 and \"uid 65534 may not speak for a node\" in r[\"error\"]" &&
        ! grep "job.launch" fake2.out &&
        test "$(job_state $id)" = Q &&
        ! pbsnodes -a | grep ghost2 &&
        qdel $id
    '
    test_expect_success 'another user'"'"'s node.hello on the Unix socket is refused' '
        chmod 755 $CLUSTER &&
        as_user_py nobody "$HPCQ_SRCDIR/tests/wire-client.py" ${HPCQ_SERVER#unix:} \
            "json:$(hello_frame ghost3 64)" > local.out; cat local.out &&
        wire_check local.out reply 1 "r[\"errnum\"] == 1 and \"uid 65534 may not speak for a node\" in r[\"error\"]" &&
        ! pbsnodes -a | grep ghost3
    '
else
    test_skip 'a fake worker with another user'"'"'s credential is refused' \
        'needs root and a working "nobody" user'
    test_skip 'another user'"'"'s node.hello on the Unix socket is refused' \
        'needs root and a working "nobody" user'
fi

pbsnodes -r node1 >/dev/null

lost() { grep -c "lost the scheduler" $CLUSTER/worker1.log || true; }
ups() { grep -c "node node1 up" $CLUSTER/scheduler.log || true; }
# A process that exited, though init may not have reaped it yet.
gone() { ! kill -0 "$1" 2>/dev/null || grep -q '^[0-9]* (.*) Z ' "/proc/$1/stat"; }

test_expect_success 'claiming a live node'"'"'s name is refused; its worker keeps the link and the job; a forged result is not recorded' '
    id=$(echo "sleep 4" | qsub) && wait_state $id R &&
    n=$(lost) &&
    wire_client --timeout 5 tcp:127.0.0.1:$port "json:$(hello_frame node1 2)" \
        "json:{\"v\":1,\"type\":\"job.finished\",\"id\":3,\"cred\":null,\"body\":{\"seq\":$(seqno $id),\"attempt\":1,\"exit_status\":99}}" \
        > claim.out; cat claim.out &&
    wire_check claim.out reply 1 "r[\"errnum\"] != 0" &&
    test "$(job_state $id)" = R &&
    wait_state $id F 30 &&
    test "$(job_attr $id Exit_status)" = 0 &&
    test "$(lost)" = "$n"
'

test_expect_success 'a second real worker claiming a live node'"'"'s name is refused, not let in' '
    id=$(echo "sleep 4" | qsub) && wait_state $id R && n=$(lost) || exit 1
    hpcq-worker --config $CLUSTER/worker1.conf --spool $TEST_ROOT/spool-dup \
        --log-file $TEST_ROOT/dup.log > dup.out 2>&1 &
    dup=$!
    wait_until 15 grep -q "held by a live worker" $TEST_ROOT/dup.log; rc=$?
    kill $dup; wait $dup
    test $rc = 0 &&
    grep "node node1: refused a second claimant" $CLUSTER/scheduler.log &&
    test "$(job_state $id)" = R &&
    wait_state $id F 30 && test "$(job_attr $id Exit_status)" = 0 &&
    test "$(lost)" = "$n"
'

test_expect_success 'a worker that stopped answering loses its name after node_timeout; its successor gets it' '
    old=$(cat $CLUSTER/worker1.pid) && n=$(ups) && kill -STOP $old || exit 1
    hpcq-worker --config $CLUSTER/worker1.conf --spool $TEST_ROOT/spool-next \
        --log-file $TEST_ROOT/next.log > next.out 2>&1 &
    next=$!
    wait_until 30 eval "test \$(ups) -gt $n" &&
    id=$(echo "echo ran" | qsub) && wait_state $id F 30; rc=$?
    kill $next; wait $next
    kill -KILL $old; kill -CONT $old; wait_until 10 gone $old
    test $rc = 0 &&
    grep "node node1 is down" $CLUSTER/scheduler.log &&
    grep -q "^ran$" STDIN.o$(seqno $id)
'

test_expect_success 'a worker restarted after its old one died gets its name back at once' '
    n=$(ups) &&
    hpcq-local start-worker $CLUSTER 1 &&
    test "$(ups)" -gt "$n" &&
    id=$(echo "echo again" | qsub) && wait_state $id F 30
'

test_done
