#!/bin/bash
# Finding 2 of the security review (issue 10): a fake scheduler.  Stop the
# scheduler, bind its port as an ordinary user, and a root worker used to
# reconnect and run that user's job.launch for uid 0.  Now the worker opens
# each link with link.open and acts on nothing until the scheduler's answer
# carries a MUNGE credential of root or the cluster's service user, bound
# to its own nonce; every later message must carry one too.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2
port=$(sched_port)
other_users_setup true

# The real scheduler goes away; its port is free for an impostor.
sched=$(cat $CLUSTER/scheduler.pid)
kill -TERM $sched
wait_until 15 eval "! kill -0 $sched 2>/dev/null" || { echo "Bail out! the scheduler did not stop"; exit 1; }
rm -f $CLUSTER/scheduler.pid

# impostor OUT WORKDIR [--sign] [USER]: tests/fake-scheduler.py on the port
# (as USER if given) until the worker has dropped two of its links, or 30 s
# pass (the worker stays when it accepts the impostor, as it used to).
impostor() {
    local out=$1 dir=$2 sign=${3:-}
    if [ -n "${4:-}" ]; then
        as_user_py "$4" "$HPCQ_SRCDIR/tests/fake-scheduler.py" $sign --workdir "$dir" \
            --seconds 30 127.0.0.1:$port > "$out" 2>&1
    else
        python3 "$HPCQ_SRCDIR/tests/fake-scheduler.py" $sign --workdir "$dir" \
            --seconds 30 127.0.0.1:$port > "$out" 2>&1
    fi
    cat "$out"
}

test_expect_success 'an impostor without a credential gets nothing run' '
    impostor fake.out $WORK &&
    grep "got link.open" fake.out && test "$(grep -c ^closed fake.out)" = 2 &&
    ! test -e $WORK/pwned &&
    grep "refusing the scheduler at 127.0.0.1:$port: .*no credential" $CLUSTER/worker1.log &&
    ! grep "job 9999.fake" $CLUSTER/worker1.log
'

if [ "$(id -u)" = 0 ] && [ -n "$other_users" ]; then
    test_expect_success 'an ordinary user on the port, with a real credential of its own, gets no root job run' '
        impostor $PUB/fake2.out $PUB --sign nobody &&
        grep "sent job.launch" $PUB/fake2.out && test "$(grep -c ^closed $PUB/fake2.out)" = 2 &&
        ! test -e $PUB/pwned &&
        grep "refusing the scheduler at 127.0.0.1:$port: its credential is of uid 65534" $CLUSTER/worker1.log &&
        ! grep "job 9999.fake" $CLUSTER/worker1.log
    '

    test_expect_success 'a root worker refuses a Unix socket whose listener is another user' '
        sed -e "s|^server = .*|server = unix:$PUB/fake.sock|" -e "s|^node_name = .*|node_name = viaunix|" \
            -e "s|^spool_dir = .*|spool_dir = $TEST_ROOT/spool-unix|" $CLUSTER/worker1.conf > unix.conf &&
        { as_user_py nobody "$HPCQ_SRCDIR/tests/fake-scheduler.py" --workdir $PUB \
            --seconds 20 unix:$PUB/fake.sock > $PUB/fake3.out 2>&1 & fake=$!; } &&
        wait_until 10 test -S $PUB/fake.sock &&
        { hpcq-worker --config unix.conf --log-file $TEST_ROOT/unix.log & w=$!; } &&
        wait_until 15 grep -q "refusing the scheduler at unix:$PUB/fake.sock: it runs as uid 65534" \
            $TEST_ROOT/unix.log; rc=$?
        kill $w; wait $w; wait $fake
        cat $PUB/fake3.out; test $rc = 0 && ! test -e $PUB/pwned && ! grep "got node.hello" $PUB/fake3.out
    '
else
    test_skip 'an ordinary user on the port, with a real credential, gets no root job run' \
        'needs root and a working "nobody" user'
    test_skip 'a root worker refuses a Unix socket whose listener is another user' \
        'needs root and a working "nobody" user'
fi

test_expect_success 'the real scheduler, back on its port, is accepted and runs jobs' '
    hpcq-local start-scheduler $CLUSTER &&
    wait_until 30 grep -q "node node1 up" $CLUSTER/scheduler.log &&
    id=$(echo "id -u" | qsub) && wait_state $id F 30 &&
    test "$(cat STDIN.o$(seqno $id))" = "$(id -u)" &&
    tail -n 20 $CLUSTER/worker1.log | grep "scheduler at 127.0.0.1:$port authenticated"
'

test_done
