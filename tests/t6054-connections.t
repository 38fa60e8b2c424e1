#!/bin/bash
# Connections cannot exhaust the scheduler (issue 10, finding 7): a user
# holds at most max_user_connections (Unix socket and MUNGE-authenticated
# TCP together) and the next is told why; idle ones
# are closed after client_idle_timeout; out of descriptors, accept pauses
# instead of spinning (the scheduler's CPU time and log stay small), and
# serves again once descriptors are free; unidentified TCP peers beyond
# tcp_unidentified_max displace the oldest, so workers still get in.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --sched-config max_user_connections=20 \
    --sched-config client_idle_timeout=4 --sched-config tcp_unidentified_max=10
other_users_setup qstat

# The system's python: another user may not reach a per-user one.
py=$(command -v /usr/bin/python3 || command -v python3)
load() { "$py" "$HPCQ_SRCDIR/tests/conn-load.py" "$@"; }
sched_pid() { cat "$CLUSTER/scheduler.pid"; }
# CPU time (user + system) of a process, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' /proc/$1/stat; }
sock=${HPCQ_SERVER#unix:}

if [ -n "$other_users" ]; then
    test_expect_success 'a user past max_user_connections is refused, and told why' '
        { as_user nobody "$py" "$HPCQ_SRCDIR/tests/conn-load.py" idle "$sock" 30 3 \
              > idle.out & } &&
        sleep 1.5 &&
        ! as_user nobody qstat 2> q.err && cat q.err &&
        grep -q "too many connections: user nobody has 20 open (max_user_connections is 20)" q.err &&
        ! HPCQ_SERVER=127.0.0.1:$(sched_port) as_user nobody qstat 2> t.err &&
        cat t.err && grep -q "too many connections: user nobody has 20 open" t.err &&
        as_user daemon qstat > /dev/null && qstat > /dev/null &&
        wait && cat idle.out &&
        grep -qx "connected 20" idle.out && grep -qx "refused 10" idle.out &&
        grep -q "refusing uid $(id -u nobody) pid [0-9]*: too many connections" \
            "$CLUSTER/scheduler.log"
    '
    test_expect_success 'once they close, the user connects again, on either socket' '
        as_user nobody qstat > /dev/null &&
        HPCQ_SERVER=127.0.0.1:$(sched_port) as_user nobody qstat > /dev/null
    '
else
    test_skip 'a user past max_user_connections is refused, and told why' \
        'needs a second user: run as root'
    test_skip 'once they close, the user connects again, on either socket' 'needs a second user'
fi

test_expect_success 'idle connections are closed after client_idle_timeout' '
    load idle "$sock" 10 8 > idle2.out && cat idle2.out &&
    grep -qx "connected 10" idle2.out && grep -qx "closed by server 10" idle2.out &&
    test "$(grep -c "idle for 4 s (client_idle_timeout)" "$CLUSTER/scheduler.log")" -ge 10
'

test_expect_success 'a connection waiting for its job (qsub -W block=true) is not idle' '
    printf "#!/bin/sh\nsleep 7\nexit 3\n" > slow.sh &&
    n0=$(grep -c "idle for 4 s" "$CLUSTER/scheduler.log") &&
    qsub -W block=true slow.sh > b.out; rc=$? && cat b.out && test $rc = 3 &&
    test "$(grep -c "idle for 4 s" "$CLUSTER/scheduler.log")" = $n0
'

port=$(sed -n "s/^tcp=127.0.0.1://p" "$CLUSTER/state/scheduler.address")
test_expect_success 'unidentified TCP peers past tcp_unidentified_max displace the oldest' '
    { load idle "127.0.0.1:$port" 30 6 > tcp.out & } &&
    sleep 1.5 &&
    w=$(cat "$CLUSTER/worker1.pid") && kill -9 $w &&
    wait_until 10 sh -c "! kill -0 $w 2>/dev/null" &&
    hpcq-local start-worker "$CLUSTER" 1 &&
    wait && cat tcp.out &&
    grep -qx "connected 10" tcp.out && grep -qx "refused 20" tcp.out &&
    grep -q "TCP connections have not identified themselves (tcp_unidentified_max)" \
        "$CLUSTER/scheduler.log" &&
    echo true | qsub > j.id && wait_state $(cat j.id) F
'

# Out of descriptors: a scheduler with 64 of them, and 150 connections.
kill -TERM "$(sched_pid)"
wait_until 15 sh -c "! kill -0 $(sched_pid) 2>/dev/null"
(ulimit -n 64 && hpcq-local start-scheduler "$CLUSTER")
wait_until 30 sh -c "test \$(grep -c 'node node1 up' $CLUSTER/scheduler.log) -ge 3"
test_expect_success 'out of descriptors, accept pauses instead of spinning' '
    pid=$(sched_pid) && log0=$(stat -c %s "$CLUSTER/scheduler.log") &&
    { load idle "$sock" 150 7 > fd.out & } &&
    sleep 1.5 && t0=$(cpu_ticks $pid) && sleep 2 && t1=$(cpu_ticks $pid) &&
    log1=$(stat -c %s "$CLUSTER/scheduler.log") &&
    echo "cpu: $((t1 - t0)) ticks in 2 s; log: $((log1 - log0)) bytes" &&
    test $((t1 - t0)) -lt 40 && test $((log1 - log0)) -lt 20000 &&
    grep -q "accept: Too many open files; not accepting for" \
        "$CLUSTER/scheduler.log" &&
    wait
'

test_expect_success 'and serves again once descriptors are free' '
    wait_until 20 qstat -B > /dev/null &&
    echo true | qsub > k.id && wait_state $(cat k.id) F &&
    test "$(cat /proc/$(sched_pid)/limits | awk "/open files/ { print \$4 }")" = 64
'

test_done
