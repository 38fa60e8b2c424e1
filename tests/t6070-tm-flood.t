#!/bin/bash
# A hostile user cannot take the worker's descriptors through its task
# manager or its checkpoint socket (issue 22, finding 1): nobody floods
# DIR/tm/node1.sock (mode 0777), the TCP tm_port and SPOOL/ckpt.sock
# (0666) with three times the worker's 1,024 descriptors of
# connections, from several processes, while another user's job runs and
# reports a checkpoint.
# The worker caps a uid with no job on the host at a few connections, an
# address at tm_unopened_per_addr unopened links, pauses accept when out of
# descriptors, and logs a storm in a few lines: its heartbeats keep their
# MUNGE credentials, so no node goes down and no job is requeued.
. "$(dirname "$0")/lib.sh"

tmport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cluster_start 1 --node-timeout 3 --worker-conf 1 "tm_port = $tmport" \
    --worker-conf 1 "tm_unopened_per_addr = 16"
other_users_setup qstat
why=$(root_and_nobody)
[ -z "$why" ] || skip_all "$why" 'a flood of the task manager' \
    'the fifth connection of a uid with no job here is told why' 'no node down, no job requeued'

py=$(command -v /usr/bin/python3 || command -v python3)
wpid() { cat "$CLUSTER/worker1.pid"; }
cpu_ticks() { awk '{ print $14 + $15 }' /proc/$1/stat; }
ups() { grep -c 'node node1 up' "$CLUSTER/scheduler.log"; }
sock=$CLUSTER/tm/node1.sock

# The worker with 1,024 descriptors (systemd's default soft limit).
kill -TERM "$(wpid)"
wait_until 15 sh -c "! kill -0 $(wpid) 2>/dev/null"
n0=$(ups)
(ulimit -n 1024 && hpcq-local start-worker "$CLUSTER" 1)
wait_until 30 sh -c "test \$(grep -c 'node node1 up' $CLUSTER/scheduler.log) -gt $n0"

# The victim: a job of daemon's, or root's where daemon cannot run one.
victim=daemon
a=$(echo "sleep 300" | as_user daemon qsub 2>/dev/null) || { victim=root; a=$(echo "sleep 300" | qsub); }
wait_state $a R
say "victim $victim, job $a"

# How many of a flood's connections the worker kept.
connected() { cat "$1".* | awk '/^connected/ { n += $2 } END { print n + 0 }'; }

flood() {
    local k
    for k in 1 2 3; do
        as_user nobody "$py" "$HPCQ_SRCDIR/tests/conn-load.py" idle "$1" 700 8 $2 > "$3.$k" &
    done
}

test_expect_success 'a flood of the task manager' '
    pid=$(wpid) && log0=$(wc -l < "$CLUSTER/worker1.log") &&
    wc -l < "$CLUSTER/scheduler.log" > sched0 &&
    flood "$sock" "" unix && flood "127.0.0.1:$tmport" 127.0.0.1 tcp &&
    flood "$CLUSTER/spool/node1/ckpt.sock" "" ckpt &&
    sleep 2 && t0=$(cpu_ticks $pid) &&
    PBS_JOBID=$a HPCQ_ATTEMPT=1 HPCQ_CKPT_SOCKET=$CLUSTER/spool/node1/ckpt.sock \
        as_user $victim hpcq-ckpt done --generation 1 --bytes 100 --seconds 1 &&
    s0=$(date +%s%N) && as_user $victim qstat $a > q.out && s1=$(date +%s%N) &&
    sleep 2 && t1=$(cpu_ticks $pid) &&
    echo "qstat: $(( (s1 - s0) / 1000000 )) ms; worker cpu: $((t1 - t0)) ticks in 2 s" &&
    grep -q "^${a%%.*}" q.out &&
    test $(( (s1 - s0) / 1000000 )) -lt 100 && test $((t1 - t0)) -lt 40 &&
    wait && sleep 3 && cat unix.* tcp.* &&
    log1=$(wc -l < "$CLUSTER/worker1.log") && echo "worker log: $((log1 - log0)) lines" &&
    test $((log1 - log0)) -lt 60 &&
    test "$(connected unix)" -le 4 && test "$(connected tcp)" -le 16 &&
    test "$(connected ckpt)" -le 2 &&
    grep -q "job $a: checkpoint 1 reported (100 bytes)" "$CLUSTER/worker1.log" &&
    grep -q "tm: refusing uid $(id -u nobody) pid [0-9]*: too many connections" \
        "$CLUSTER/worker1.log"
'

test_expect_success 'the fifth connection of a uid with no job here is told why' '
    as_user nobody "$py" "$HPCQ_SRCDIR/tests/conn-load.py" idle "$sock" 6 1 > five.out &&
    cat five.out && grep -qx "connected 4" five.out && grep -qx "refused 2" five.out &&
    grep -q "first refusal: too many connections to the task manager: uid $(id -u nobody) holds 4" five.out
'

test_expect_success 'no node down, no job requeued' '
    ! tail -n +$(( $(cat sched0) + 1 )) "$CLUSTER/scheduler.log" |
        grep -E "is down|connection lost|requeued" &&
    test "$(job_attr $a job_state)" = R && test "$(job_attr $a run_count)" = 1 &&
    echo true | qsub > j.id && wait_state $(cat j.id) F
'

test_done
