#!/bin/bash
# Job arrays as one record: an array is one row and no job per subjob until
# a subjob changes (starts, is held, altered or deleted); subjobs start in
# index order; qstat -t, the HTTP API, the metrics and tracejob list
# untouched subjobs without making them jobs;
# an untouched array survives a restart as it was; qdel of a whole array
# writes no row per subjob; a 1,000,000-subjob array is accepted at once
# (in under a second; 30 under valgrind, HPCQ_SCHEDULER_BIN set); the HTTP
# API streams a big array whole, the first job or not.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2

subrows() { db_query "SELECT count(*) FROM jobs WHERE array_parent = $1"; }

test_expect_success 'the HTTP API streams an array of more subjobs than one part whole when it is the first job' '
    id=$(echo true | qsub -h -J 1-300) && http=$(sed -n "s/^http=//p" $CLUSTER/state/scheduler.address) &&
    timeout 20 curl -sf "http://$http/api/v1/jobs?subjobs=1" > first.json &&
    test "$(jq ".jobs | length" first.json)" = 301 && test "$(subrows ${id%%[*})" = 0 &&
    qdel $id && wait_state $id F 30
'

test_expect_success 'subjobs start in index order' '
    id=$(echo "echo \$PBS_ARRAY_INDEX >> $PWD/order" | qsub -J 3-13:2%1 -o /dev/null -e /dev/null) &&
    wait_state $id F 60 && test "$(tr "\n" " " < order)" = "3 5 7 9 11 13 " &&
    test "$(subrows ${id%%[*})" = 6
'

test_expect_success 'a held array is one row; qstat -t lists its subjobs, still one row' '
    id=$(echo true | qsub -h -J 1-2000) && n=${id%%[*} && echo $n > held.txt &&
    test "$(qstat -t | grep -c "^$n\[[0-9][0-9]*\]\..* H workq")" = 2000 &&
    test "$(job_attr "$n[1500]" job_state)" = H &&
    test "$(job_attr $id array_state_count)" = "Queued:2000 Running:0 Exiting:0 Expired:0" &&
    test "$(subrows $n)" = 0 && test "$(db_query "SELECT count(*) FROM jobs WHERE seq = $n")" = 1
'

test_expect_success 'holding, releasing and altering one subjob splits out that one' '
    n=$(cat held.txt) && qrls "$n[7]" && wait_state "$n[7]" F 30 &&
    qalter -N renamed "$n[9]" && test "$(job_attr "$n[9]" Job_Name)" = renamed &&
    test "$(job_attr "$n[10]" Job_Name)" = STDIN && test "$(subrows $n)" = 2 &&
    test "$(job_attr "$n[]" job_state)" = B
'

test_expect_success 'the HTTP API, the metrics and tracejob look at untouched subjobs without splitting them out' '
    n=$(cat held.txt) && http=$(sed -n "s/^http=//p" $CLUSTER/state/scheduler.address) &&
    curl -sf "http://$http/api/v1/jobs?subjobs=1&state=H" > held.json &&
    test "$(jq "[.jobs[].id | select(startswith(\"$n[\") and (startswith(\"$n[]\") | not))] | length" held.json)" = 1999 &&
    curl -sfg "http://$http/api/v1/jobs/$n[1500]" | jq -e ".jobs[0].job_state == \"H\"" &&
    curl -sf "http://$http/metrics" | grep -qx "hpcq_jobs{queue=\"workq\",state=\"held\"} 1999" &&
    tracejob "$n[1500]" > trace.out && grep -q "$n\[1500\]" trace.out &&
    test "$(subrows $n)" = 2
'

test_expect_success 'an untouched array comes back after kill -9 as it was' '
    n=$(cat held.txt) && pid=$(cat $CLUSTER/scheduler.pid) && kill -9 $pid &&
    wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" && hpcq-local start-scheduler $CLUSTER &&
    test "$(qstat -t | grep -c "^$n\[[0-9][0-9]*\]\..* H workq")" = 1999 &&
    test "$(job_attr "$n[9]" Job_Name)" = renamed && test "$(job_state "$n[7]")" = F &&
    test "$(subrows $n)" = 2 &&
    test "$(job_attr "$n[]" array_state_count)" = "Queued:1999 Running:0 Exiting:0 Expired:1"
'

test_expect_success 'qhold and qrls of a whole array: its subjobs run after the release' '
    id=$(echo "sleep 1" | qsub -J 1-6%1 -o /dev/null -e /dev/null) && n=${id%%[*} &&
    wait_until 20 sh -c "qstat -t | grep -q \"^$n\[[0-9][0-9]*\]\..* R \"" && qhold $id &&
    test "$(job_state "$n[6]")" = H &&
    qrls $id && wait_state $id F 60 &&
    test "$(job_attr $id array_state_count)" = "Queued:0 Running:0 Exiting:0 Expired:6"
'

test_expect_success 'qdel of a whole array deletes its untouched subjobs without a row each' '
    n=$(cat held.txt) && qdel "$n[]" && wait_state "$n[]" F 30 &&
    test "$(subrows $n)" = 2 &&
    test "$(qstat -x -t | grep "^$n\[[0-9][0-9]*\]\." | awk "\$5 == \"F\"" | wc -l)" = 2000 &&
    test "$(job_attr "$n[1234]" comment)" = "Job deleted with its array before it ran"
'

test_expect_success 'a 1,000,000-subjob array is accepted in under a second (max_array_size raised)' '
    echo "max_array_size = 1000000" >> $CLUSTER/scheduler.conf &&
    kill $(cat $CLUSTER/scheduler.pid) &&
    wait_until 10 eval "! kill -0 $(cat $CLUSTER/scheduler.pid) 2>/dev/null" &&
    hpcq-local start-scheduler $CLUSTER &&
    t0=$(date +%s.%N) && id=$(echo true | qsub -h -J 0-999999) && t1=$(date +%s.%N) &&
    say "1,000,000 subjobs accepted in $(echo "$t1 - $t0" | bc) s" &&
    test "$(echo "$t1 - $t0 < ${HPCQ_SCHEDULER_BIN:+30}${HPCQ_SCHEDULER_BIN:-1}" | bc)" = 1 &&
    test "$(job_attr $id array_state_count)" = "Queued:1000000 Running:0 Exiting:0 Expired:0" &&
    test "$(job_attr "${id%%[*}[999999]" job_state)" = H && test "$(subrows ${id%%[*})" = 0 &&
    qdel $id && wait_state $id F 30
'

test_done
