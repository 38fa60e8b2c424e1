#!/bin/bash
# Authentication settings: auth = none (development only) is said loudly
# by both daemons; a daemon that cannot reach munged does not start; mixed
# settings are refused, each side saying why; hpcq-local runs and stops a
# munged of its own.
. "$(dirname "$0")/lib.sh"

line=$(hpcq-local start "$CLUSTER" --workers 1 --auth none) || { echo "Bail out! no cluster"; exit 1; }
eval "$line"
none_port=$(sched_port)
M=$TEST_ROOT/m          # a second cluster, with MUNGE (and its own munged)
mline=$(hpcq-local start "$M" --workers 1) || { echo "Bail out! no munge cluster"; exit 1; }
m_port=$(sed -n 's/^tcp=127.0.0.1://p' "$M/state/scheduler.address")
trap 'hpcq-local stop "$M" >/dev/null 2>&1; test_cleanup' EXIT

test_expect_success 'auth = none: both daemons say so at start, on standard error and in the log' '
    grep "hpcq-scheduler: WARNING: authentication is OFF (auth = none)" $CLUSTER/scheduler.out &&
    grep "warning.*authentication is OFF" $CLUSTER/scheduler.log &&
    grep "hpcq-worker: WARNING: authentication is OFF (auth = none)" $CLUSTER/worker1.out &&
    grep "warning.*authentication is OFF" $CLUSTER/worker1.log &&
    grep "ready: .*authentication OFF" $CLUSTER/scheduler.log &&
    ! test -e $CLUSTER/munge && test "${line#*HPCQ_MUNGE}" = "$line"
'

test_expect_success 'auth = none: jobs run; user requests over TCP are refused' '
    id=$(echo "echo hi" | qsub) && wait_state $id F &&
    wire_client tcp:127.0.0.1:$none_port "json:{\"v\":1,\"type\":\"job.stat\",\"id\":1,\"cred\":null,\"body\":{}}" > none.out &&
    wire_check none.out reply 1 "r[\"errnum\"] == 1 and \"off on this scheduler (auth = none)\" in r[\"error\"]"
'

# worker_conf FILE PORT NAME AUTH: a worker's config beside the clusters'.
worker_conf() {
    cat > "$1" <<C
server = 127.0.0.1:$2
node_name = $3
ncpus = 1
spool_dir = $TEST_ROOT/spool-$3
heartbeat_interval = 1
auth = $4
munge_socket = $M/munge/munge.sock
C
}
# run_worker CONF LOG PATTERN: a worker until PATTERN is in its log.
run_worker() {
    hpcq-worker --config "$1" --log-file "$2" > "$2.out" 2>&1 &
    local w=$!
    wait_until 15 grep -q "$3" "$2"; local rc=$?
    kill $w; wait $w
    cat "$2"
    return $rc
}

test_expect_success 'a worker with MUNGE refuses a scheduler that has it off' '
    worker_conf w1.conf $none_port mixed1 munge &&
    run_worker w1.conf w1.log "refusing the scheduler at 127.0.0.1:$none_port: it refused link.open: authentication is off on this scheduler" &&
    ! grep "node mixed1 up" $CLUSTER/scheduler.log
'

test_expect_success 'a worker with auth = none is refused by a scheduler with MUNGE' '
    worker_conf w2.conf $m_port mixed2 none &&
    run_worker w2.conf w2.log "scheduler refused node.hello: node messages need link.open first" &&
    grep "refused node.hello from 127.0.0.1:.*need link.open first" $M/scheduler.log &&
    ! grep "node mixed2 up" $M/scheduler.log
'

test_expect_success 'a worker on the Unix socket needs no credential: the kernel says who listens' '
    worker_conf w0.conf 0 local1 munge &&
    sed -i "s|^server = .*|server = unix:$M/hpcq.sock|" w0.conf &&
    { hpcq-worker --config w0.conf --log-file w0.log > w0.out 2>&1 & w=$!; } &&
    wait_until 15 grep -q "node local1 up" $M/scheduler.log; rc=$?
    kill $w; wait $w; cat w0.log
    test $rc = 0 && ! grep "refus" w0.log
'

test_expect_success 'a daemon that cannot reach munged does not start, and says why' '
    printf "state_dir = %s\nlisten = 127.0.0.1:0\nmunge_socket = %s\n" \
        $TEST_ROOT/s3 $TEST_ROOT/nosuch.sock > s3.conf &&
    ! hpcq-scheduler --config s3.conf 2> s3.err && cat s3.err &&
    grep "hpcq-scheduler: cannot get a MUNGE credential" s3.err &&
    ! test -e $TEST_ROOT/s3/scheduler.address &&
    worker_conf w3.conf $m_port w3 munge &&
    sed -i "s|^munge_socket = .*|munge_socket = $TEST_ROOT/nosuch.sock|" w3.conf &&
    ! hpcq-worker --config w3.conf 2> w3.err && cat w3.err &&
    grep "hpcq-worker: cannot get a MUNGE credential" w3.err
'

test_expect_success 'auth, munge_ttl and service_user are checked' '
    worker_conf w4.conf $m_port w4 kerberos &&
    ! hpcq-worker --config w4.conf 2> w4.err && cat w4.err &&
    grep "auth: invalid value .kerberos. (want munge or none)" w4.err &&
    worker_conf w5.conf $m_port w5 munge && echo "munge_ttl = 0" >> w5.conf &&
    ! hpcq-worker --config w5.conf 2> w5.err && grep "munge_ttl: invalid value" w5.err &&
    worker_conf w6.conf $m_port w6 munge && echo "service_user = no-such-user" >> w6.conf &&
    ! hpcq-worker --config w6.conf 2> w6.err && grep "service_user: no such user" w6.err
'

# A process that exited, though init may not have reaped it yet.
gone() { ! kill -0 "$1" 2>/dev/null || grep -q '^[0-9]* (.*) Z ' "/proc/$1/stat"; }

test_expect_success 'hpcq-local runs a munged of its own and stops it' '
    hpcq-local status $M | grep "^munged: running" &&
    pid=$(cat $M/munge/munged.pid) && kill -0 $pid &&
    test "$(stat -c %a $M/munge/munge.key)" = 600 &&
    hpcq-local stop $M &&
    gone $pid && ! test -S $M/munge/munge.sock &&
    hpcq-local start-scheduler $M && hpcq-local start-worker $M 1 &&
    kill -0 $(cat $M/munge/munged.pid) && hpcq-local stop $M
'

test_done
