#!/bin/bash
# munged is never called on a daemon's loop (issue 22, finding 2): with the
# cluster's munged stopped (SIGSTOP: every call to it hangs), and then
# flooded as the review found it (nobody holds 64 idle connections to its
# socket, so every call waits), while four workers run jobs: heartbeats,
# launches and results go on over the links' session keys
# (common/session.h), no node is marked down, no job is requeued, and
# another user's qstat answers in under 100 ms.  Only a link being opened
# then waits (common/authq.h), and links open once munged is back.
. "$(dirname "$0")/lib.sh"

timeout=3 hang=12
sanitized && { timeout=6; hang=20; }
cluster_start 4 --cpus-per-worker 1 --node-timeout $timeout
other_users_setup true
chmod 755 $CLUSTER
mpid=$(cat $CLUSTER/munge/munged.pid 2>/dev/null)
msock=$CLUSTER/munge/munge.sock
tcp=tcp:127.0.0.1:$(sched_port)

descs=('a job runs on each of the four nodes'
    'munged stopped: jobs end, a new one runs, over the links already open'
    'munged stopped: another user'"'"'s qstat answers in under 100 ms'
    'a link opened meanwhile waits on munged alone; once it is back links open'
    'munged flooded by another user: a credential takes seconds'
    'flooded: jobs end, a new one runs; another user'"'"'s qstat answers in under 100 ms'
    'no node was marked down, no job requeued')
[ -n "$mpid" ] && kill -0 "$mpid" 2>/dev/null ||
    skip_all "the cluster has no munged of its own (auth = none, or --munge-socket)" "${descs[@]}"

# four_jobs: one job on each node, their ids on standard output.
four_jobs() { for i in 1 2 3 4; do echo "sleep $((hang / 2))" | qsub -N hang$i; done; }
# jobs_ran IDS...: each ended with status 0, and one more job runs.
jobs_ran() {
    local id more
    for id in "$@"; do wait_state $id F $hang || return 1; done
    for id in "$@"; do test "$(job_attr $id Exit_status)" = 0 || return 1; done
    more=$(echo "echo during" | qsub) && wait_state $more F $hang &&
        test "$(job_attr $more Exit_status)" = 0
}
# quick_qstat JOBID SECONDS: nobody's job.stat over the Unix socket, again
# and again: at least 20 answers, median and p99 under 100 ms.
quick_qstat() {
    as_user_py nobody "$HPCQ_SRCDIR/tests/conn-load.py" latency "$HPCQ_SERVER" $1 $2 > lat.$1 &&
        cat lat.$1 && awk "/^count/ { exit !(\$2 >= 20 && \$4 < 100 && \$6 < 100) }" lat.$1
}
left() { local l=$(( hang - ($(date +%s) - $1) - 1 )); [ $l -ge 2 ] || l=2; echo $l; }

ids=($(four_jobs))
test_expect_success "${descs[0]}" '
    test ${#ids[@]} = 4 &&
    for id in "${ids[@]}"; do wait_state $id R || exit 1; done &&
    test "$(pbsnodes -a | grep -c "state = job-busy")" = 4
'

# A link that opens while munged is stopped (its link.open made before):
# the scheduler must wait for munged to check it, and only it waits.
open_frame=$("$WIRE_SIGN" open | head -1)
kill -STOP "$mpid"
t0=$(date +%s)
wire_client --timeout $((hang + 20)) $tcp "json:$open_frame" > late.out &
late=$!

test_expect_success "${descs[1]}" '
    jobs_ran "${ids[@]}" && grep -q "^State:.*T (stopped)" /proc/$mpid/status
'

test_expect_success "${descs[2]}" '
    quick_qstat ${ids[0]} $(left $t0) && grep -q "^State:.*T (stopped)" /proc/$mpid/status
'

sleep $(( hang - ($(date +%s) - t0) )) 2>/dev/null
kill -CONT "$mpid"
wait $late

# libmunge gives up on a munged that does not answer (after its own
# retries): the link being opened then is refused, and its worker would
# try again; nothing else waited on it.
test_expect_success "${descs[3]}" '
    cat late.out &&
    wire_check late.out reply 1 "r[\"errnum\"] == 0 or \"credential refused\" in r[\"error\"]" &&
    wire_client $tcp open > again.out && cat again.out &&
    wire_check again.out reply 1 "r[\"errnum\"] == 0 and len(r[\"body\"][\"nonce\"]) == 32"
'

# Finding 2 as the review found it: munged's socket is open to all (0777),
# and 64 idle connections of nobody's make every call to it wait.
ids2=($(four_jobs))
for id in "${ids2[@]}"; do wait_state $id R; done
{ as_user_py nobody "$HPCQ_SRCDIR/tests/conn-load.py" idle "$msock" 64 $hang > flood.out & }
flood=$!
t1=$(date +%s)
sleep 1

test_expect_success "${descs[4]}" '
    s=$(date +%s%N) && munge -n -S "$msock" > /dev/null; e=$(date +%s%N) &&
    echo "munge -n took $(( (e - s) / 1000000 )) ms" && test $(( (e - s) / 1000000 )) -gt 1000
'

test_expect_success "${descs[5]}" '
    jobs_ran "${ids2[@]}" && quick_qstat ${ids2[0]} $(left $t1)
'
wait $flood; cat flood.out

test_expect_success "${descs[6]}" '
    ! grep -E "is down|requeued|connection lost" "$CLUSTER/scheduler.log" &&
    ! grep -E "lost the scheduler" $CLUSTER/worker*.log &&
    for id in "${ids[@]}" "${ids2[@]}"; do test "$(job_attr $id run_count)" = 1 || exit 1; done &&
    test "$(db_query "SELECT count(*) FROM attempts")" = 10
'

test_done
