#!/bin/bash
# A client that does not read its answers holds neither the scheduler's
# memory nor its loop (issue 10, finding 6): pipelined qstat requests that
# are never read leave the scheduler's resident memory where it was (a
# client's next requests wait in its socket while about 1 MiB of its
# answers is unread), the client is dropped once idle, and other users'
# qstat answers stay fast meanwhile.  (The output cap behind this,
# client_output_max, is exercised in common/test/test_wire.)
. "$(dirname "$0")/lib.sh"

timeout=3
sanitized && timeout=6     # several times slower: about the loop, not the build
cluster_start 1 --node-timeout $timeout \
    --sched-config client_idle_timeout=4 --sched-config client_output_max=16777216

load() { python3 "$HPCQ_SRCDIR/tests/conn-load.py" "$@"; }
sched_pid=$(cat "$CLUSTER/scheduler.pid")
rss_kb() { awk '/^VmRSS/ { print $2 }' /proc/$sched_pid/status; }

run=$(echo "sleep 300" | qsub -N runner)
test_expect_success 'a running job and 30,000 held subjobs' '
    wait_state $run R &&
    for k in $(seq 1 10); do echo true | qsub -h -J 1-3000 > /dev/null || exit 1; done &&
    test "$(qstat -t | grep -c "\[[0-9][0-9]*\]")" = 30000
'

test_expect_success 'pipelined table requests never read: memory stays put, the client is dropped once idle' '
    rss0=$(rss_kb) &&
    { load pipeline "$HPCQ_SERVER" 100 12 > pipe.out & } &&
    sleep 3 && rss3=$(rss_kb) &&
    load latency "$HPCQ_SERVER" $run 2 > lat.out && cat lat.out &&
    rss5=$(rss_kb) && wait &&
    cat pipe.out && echo "rss: $rss0 kB before, $rss3 and $rss5 kB while unread" &&
    test $((rss3 - rss0)) -lt 40000 && test $((rss5 - rss0)) -lt 40000 &&
    grep -q "^closed after" pipe.out &&
    grep -q "closing uid $(id -u) pid [0-9]*: idle for 4 s (client_idle_timeout)" \
        "$CLUSTER/scheduler.log"
'

test_expect_success 'meanwhile another client was answered throughout (none waited 2.5 s)' '
    awk "/^count/ { exit !(\$2 >= 10 && \$8 < 2500) }" lat.out
'

# 16 subjobs by id, in full: one answer of about 26 kB, in one part.
ids=$(python3 -c "import json; print(json.dumps({\"ids\": [\"2[%d]\" % i for i in range(1, 17)]}))")
test_expect_success 'answers of one part each, never read: the requests wait, the client is dropped' '
    rss0=$(rss_kb) && n0=$(grep -c "idle for 4 s" "$CLUSTER/scheduler.log") &&
    load pipeline "$HPCQ_SERVER" 200 20 "$ids" > flood.out && cat flood.out &&
    grep -q "^closed after" flood.out &&
    test "$(grep -c "idle for 4 s" "$CLUSTER/scheduler.log")" -gt $n0 &&
    rss1=$(rss_kb) && echo "rss: $rss0 kB before, $rss1 kB after" &&
    test $((rss1 - rss0)) -lt 40000
'

test_expect_success 'no node was marked down and the job was not requeued' '
    ! grep -q "is down" "$CLUSTER/scheduler.log" &&
    test "$(job_attr $run job_state)" = R && test "$(job_attr $run run_count)" = 1
'

test_expect_success 'the scheduler still answers everyone' '
    qstat $run | grep -q runner && qstat -B | grep -q Active
'

test_done
