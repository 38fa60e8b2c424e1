#!/bin/bash
# qstat -x history kept for job_history_duration (PBS Pro's server
# attribute, with job_history_enable): then the finished job leaves the
# scheduler's memory (an array with its subjobs), and stays in the
# database, the accounting log and tracejob; a restart loads only the window.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2 --sched-config job_history_duration=00:00:03

state=$(sed -n 's/^state_dir = //p' "$CLUSTER/scheduler.conf")
http=$(sed -n 's/^http=//p' "$CLUSTER/state/scheduler.address")
in_memory() { curl -sf "http://$http/metrics" | sed -n 's/^hpcq_jobs_in_memory //p'; }
gone() { ! qstat -x "$1" >/dev/null 2>&1; }
none_in_memory() { test "$(in_memory)" = 0; }

test_expect_success 'a finished job is in qstat -x during the window' '
    a=$(echo true | qsub) && wait_state $a F && echo $a > a &&
    qstat -x $a | grep -q " F " && test "$(in_memory)" = 1
'

test_expect_success 'after job_history_duration it has left memory: qstat -x no longer knows it' '
    a=$(cat a) && wait_until 15 gone $a && qstat -x $a 2>&1 | grep -q "Unknown Job Id" &&
    test "$(in_memory)" = 0
'

test_expect_success 'it stays in the database, the accounting log and tracejob' '
    a=$(cat a) &&
    test "$(db_query "SELECT state FROM jobs WHERE seq = $(seqno $a)")" = F &&
    grep -q ";E;$a;" "$state"/accounting/* &&
    tracejob $a | grep -q "finished by node1 (R -> F)"
'

test_expect_success 'running and queued jobs stay, whatever their age' '
    r=$(echo "sleep 30" | qsub -l select=1:ncpus=2) && q=$(echo true | qsub) && wait_state $r R &&
    sleep 4 && has_state $r R && has_state $q Q && qdel $q $r && wait_state $q F
'

test_expect_success 'a finished array leaves memory with its subjobs, those that ran and those deleted untouched' '
    j=$(echo true | qsub -J 1-4) && h=$(echo true | qsub -h -J 1-1000) && qdel $h &&
    wait_state $j F 60 && wait_state $h F 30 && qstat -x "${j%%[*}[2]" | grep -q " F " &&
    wait_until 15 gone $j && gone "${j%%[*}[2]" && gone "${h%%[*}[7]" && gone $h &&
    wait_until 15 none_in_memory &&
    test "$(db_query "SELECT count(*) FROM jobs WHERE array_parent = ${j%%[*}")" = 4
'

test_expect_success 'a restart loads the window only; job numbers go on' '
    b=$(echo true | qsub) && wait_state $b F && echo $b > b &&
    hpcq-local stop $CLUSTER >/dev/null &&
    sed -i "s/^job_history_duration = .*/job_history_duration = 01:00:00/" $CLUSTER/scheduler.conf &&
    db_query "UPDATE jobs SET etime = etime - 7200 WHERE seq = $(seqno $(cat a))" &&
    hpcq-local start-scheduler $CLUSTER && hpcq-local start-worker $CLUSTER 1 &&
    grep "loaded .* jobs" $CLUSTER/scheduler.log | tail -1 &&
    has_state $b F && gone $(cat a) &&
    c=$(echo true | qsub) && test $(seqno $c) -gt $(seqno $b)
'

test_expect_success 'job_history_enable = false: a finished job leaves memory at once' '
    hpcq-local stop $CLUSTER >/dev/null &&
    echo "job_history_enable = false" >> $CLUSTER/scheduler.conf &&
    hpcq-local start-scheduler $CLUSTER && hpcq-local start-worker $CLUSTER 1 &&
    d=$(echo true | qsub) && wait_until 15 gone $d &&
    test "$(db_query "SELECT state FROM jobs WHERE seq = $(seqno $d)")" = F
'

test_expect_success 'bad settings stop the scheduler at start with one line' '
    hpcq-local stop $CLUSTER >/dev/null &&
    sed -i "s/^job_history_enable = .*/job_history_enable = maybe/" $CLUSTER/scheduler.conf &&
    ! hpcq-scheduler --config $CLUSTER/scheduler.conf --log-file $TEST_ROOT/bad.log 2> err1 &&
    test $(wc -l < err1) = 1 && grep -q "job_history_enable: invalid value .maybe." err1 &&
    sed -i -e "/^job_history_enable/d" -e "s/^job_history_duration = .*/job_history_duration = soon/" \
        $CLUSTER/scheduler.conf &&
    ! hpcq-scheduler --config $CLUSTER/scheduler.conf --log-file $TEST_ROOT/bad.log 2> err2 &&
    test $(wc -l < err2) = 1 && grep -q "job_history_duration: invalid value .soon." err2
'

test_done
