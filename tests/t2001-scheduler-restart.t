#!/bin/bash
# kill -9 of the scheduler during a storm of submissions (500 acknowledged): every job id
# qsub printed survives, every job runs exactly once, and a job running
# across the restart finishes and is recorded once.
. "$(dirname "$0")/lib.sh"

# A node_timeout (and so a fence time, worker/fence.h) longer than the
# restart under the storm takes, so the long job survives it.
cluster_start 2 --cpus-per-worker 2 --node-timeout 12

STORM=500
PAR=10

test_expect_success 'a long job is running before the crash' '
    long=$(printf "sleep 4\necho long-done\n" | qsub -N longjob) &&
    echo $long > long.id && wait_state $long R
'
long=$(cat long.id)

# Each submitter records the ids qsub printed (acknowledged) and failures;
# like a workflow engine it pauses briefly after a refusal.  They submit
# until STORM are acknowledged in all, however long the restart takes (a
# fixed count each left too few after a slow restart: its refusals used
# them up).
submitter() {
    local k=$1 i
    for i in $(seq 1 $((4 * STORM / PAR))); do
        [ -e $WORK/stop ] && break
        if id=$(echo "echo \$PBS_JOBID >> $WORK/ran.log" | qsub -N s$k 2>>fail.$k); then
            echo "$id" >> ids.$k
        else
            sleep 0.1
        fi
    done
}

test_expect_success 'kill -9 the scheduler in the middle of the storm' '
    for k in $(seq 1 $PAR); do submitter $k & done
    wait_until 60 sh -c "test \$(cat ids.* 2>/dev/null | wc -l) -ge 100" &&
    kill -9 $(cat $CLUSTER/scheduler.pid) &&
    cat ids.* | wc -l > before.count &&
    wait_until 10 sh -c "! kill -0 $(cat $CLUSTER/scheduler.pid) 2>/dev/null" &&
    sleep 0.5 && hpcq-local start-scheduler $CLUSTER &&
    wait_until 90 sh -c "test \$(cat ids.* | wc -l) -ge $STORM"; rc=$?
    touch $WORK/stop; wait; test $rc = 0
'

cat ids.* > acked.ids 2>/dev/null
say "$(wc -l < acked.ids) submissions acknowledged, $(cat fail.* | grep -c . ) refused"

test_expect_success 'submissions were acknowledged on both sides of the crash' '
    test $(cat before.count) -ge 100 &&
    test $(wc -l < acked.ids) -gt $(($(cat before.count) + 50))
'

test_expect_success 'workers reconnect to the restarted scheduler' '
    wait_until 30 sh -c "test \$(grep -c \"node node[12] up\" $CLUSTER/scheduler.log) -ge 4"
'

test_expect_success 'every acknowledged job id is known after the restart' '
    qstat -x $(cat acked.ids) > /dev/null
'

all_finished() {
    test "$(db_query "SELECT count(*) FROM jobs WHERE state != 'F'")" = 0
}

test_expect_success 'every job finishes' '
    wait_until 240 all_finished
'

test_expect_success 'every acknowledged job ran exactly once' '
    sort acked.ids > a.sorted &&
    sort ran.log | uniq -c | awk "\$1 != 1" > dup.out &&
    test ! -s dup.out &&
    sort -u ran.log > r.sorted &&
    comm -23 a.sorted r.sorted > missing.out &&
    test ! -s missing.out
'

test_expect_success 'each acknowledged job has one attempt and one finish event' '
    for id in $(head -50 acked.ids) $(tail -50 acked.ids); do
        n=$(seqno $id)
        test "$(db_query "SELECT count(*) FROM attempts WHERE job_seq = $n")" = 1 &&
        test "$(db_query "SELECT count(*) FROM events WHERE job_seq = $n AND type = \"finished\"")" = 1 ||
        { echo "job $id"; return 1; }
    done
'

test_expect_success 'the job running across the restart finished once, exit 0' '
    wait_state $long F 60 &&
    test "$(job_attr $long Exit_status)" = 0 &&
    test "$(grep -c long-done longjob.o$(seqno $long))" = 1 &&
    test "$(db_query "SELECT count(*) FROM attempts WHERE job_seq = $(seqno $long)")" = 1
'

test_expect_success 'the database is intact' '
    test "$(db_query "PRAGMA integrity_check")" = ok
'

test_expect_success 'job numbers are not reused after the restart' '
    id=$(echo true | qsub) &&
    test "$(seqno $id)" -gt "$(db_query "SELECT max(seq) - 1 FROM jobs")"
'

test_done
