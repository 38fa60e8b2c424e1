#!/bin/bash
# Heartbeats are never starved by big queries (issue 10 §4, issue 15 §4):
# while four clients read `qstat -f -t` of 40,000 subjobs over and over and
# a fifth pipelines table requests it never reads, nodes with a 3 s
# node_timeout stay up and their running jobs are not requeued.  The
# answers go out in parts, between which the loop serves everyone else.
. "$(dirname "$0")/lib.sh"

# Under sanitizers everything is several times slower: a fifth of the jobs
# and a longer node_timeout keep the test about the loop, not the build.
narrays=10 timeout=3
sanitized && { narrays=2; timeout=6; }
cluster_start 2 --cpus-per-worker 1 --node-timeout $timeout \
    --sched-config client_idle_timeout=30
nsub=$((narrays * 4000))

load() { python3 "$HPCQ_SRCDIR/tests/conn-load.py" "$@"; }

a=$(echo "sleep 300" | qsub -N hb1)
b=$(echo "sleep 300" | qsub -N hb2)
test_expect_success "a job runs on each node, $nsub subjobs wait" '
    wait_state $a R && wait_state $b R &&
    for k in $(seq 1 $narrays); do echo true | qsub -h -J 1-4000 > /dev/null || exit 1; done &&
    test "$(qstat -t | grep -c "\[[0-9][0-9]*\]")" = $nsub
'

# readers N: qstat -f -t in full, again and again, for N seconds.
reader() {
    local end=$(( $(date +%s) + $1 )) k=0
    while [ "$(date +%s)" -lt "$end" ]; do
        qstat -f -t | grep -c "^Job Id:" > reader.$2.$k || return 1
        k=$((k + 1))
    done
}

test_expect_success 'four big readers and a client that never reads, for 10 s' '
    for r in 1 2 3 4; do reader 10 $r & done &&
    { load pipeline "$HPCQ_SERVER" 100 10 > pipe.out & } &&
    load latency "$HPCQ_SERVER" $a 9 > lat.out && wait && cat lat.out pipe.out &&
    cat reader.* | sort | uniq -c &&
    ! grep -v "^$((nsub + narrays + 2))$" reader.* /dev/null
'

test_expect_success 'no node was marked down, no job requeued' '
    ! grep -E "is down|connection lost" "$CLUSTER/scheduler.log" &&
    test "$(job_attr $a job_state)$(job_attr $b job_state)" = RR &&
    test "$(job_attr $a run_count)$(job_attr $b run_count)" = 11 &&
    test "$(db_query "SELECT count(*) FROM attempts")" = 2
'

test_expect_success 'small queries were answered throughout (none waited 2.5 s)' '
    awk "/^count/ { exit !(\$2 >= 10 && \$8 < 2500) }" lat.out
'

test_done
