#!/bin/bash
# A restart keeps everything (issue 15 part 6).  The scheduler reads and
# links every row at once and answers from the records while the stored
# requests are parsed on threads of their own; this checks that what comes
# back is what went down.  A queue of thousands of jobs (enough for more
# than one parsing thread: 2,000 rows each) with varied requests, an array
# with split-out subjobs, a running job and one held on it: after kill -9
# every job's full qstat -f record is the same, the running job ends once,
# its dependant then runs, and numbering goes on.  A stored request that
# cannot be read stops the scheduler with the job named, rather than
# serving a queue that is not the database's; mended, it loads again.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2

BULK=${T7011_BULK:-4000}

# Every job's whole record, sorted, without what changes by itself while
# the scheduler is down (nothing does for queued jobs; the running job's
# used resources and times grow, so its record is compared apart).
snapshot() {
    qstat -f -F json -x -t 2>/dev/null \
        | jq -S --arg run "$(cat run.id)" '.Jobs | with_entries(select(.key != $run))'
}

test_expect_success 'a varied queue: bulk, options, an array, a running job, a dependant' '
    run=$(printf "while [ ! -e %s/go ]; do sleep 0.1; done\necho ran >> %s/ran\n" "$PWD" "$PWD" \
          | qsub -N runner -o /dev/null -e /dev/null) && echo $run > run.id &&
    wait_state $run R 30 &&
    dep=$(echo "echo dep >> $PWD/ran" | qsub -W depend=afterok:$run -N dependant \
          -o /dev/null -e /dev/null) && echo $dep > dep.id &&
    for i in $(seq 1 30); do
        echo "echo $i" | qsub -h -N opt$i -l select=1:ncpus=1:mem=${i}mb \
            -l walltime=0:$((i + 10)):00 -v T7011_I=$i,T7011_S=s$i -p $((i - 15)) \
            -o /dev/null -e /dev/null > /dev/null || return 1
    done &&
    arr=$(echo true | qsub -h -J 1-500 -N arr) && n=${arr%%[*} && echo $n > arr.seq &&
    qalter -N renamed "$n[9]" && qrls "$n[7]" && wait_state "$n[7]" F 30 &&
    STORM_SCRIPT="true" python3 "$HPCQ_SRCDIR/bench/wire-storm.py" \
        "$CLUSTER/hpcq.sock" $BULK 8 > storm.out &&
    test "$(db_query "SELECT count(*) FROM jobs")" -ge $((BULK + 30)) &&
    snapshot > before.json &&
    test "$(jq length before.json)" -ge $((BULK + 530)) &&
    grep -q "T7011_S=s17" before.json && grep -q "\"17mb\"" before.json &&
    grep -q "\"renamed\"" before.json && grep -q "\"dependant\"" before.json
'

test_expect_success 'after kill -9 qstat answers, with every job' '
    pid=$(cat $CLUSTER/scheduler.pid) && kill -9 $pid &&
    wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" &&
    t0=$(date +%s.%N) && hpcq-local start-scheduler $CLUSTER &&
    wait_until 30 sh -c "qstat > table.out 2>/dev/null" && t1=$(date +%s.%N) &&
    say "$(db_query "SELECT count(*) FROM jobs") rows: answering $(echo "$t1 - $t0" | bc) s after the start" &&
    test "$(grep -c " H workq" table.out)" -ge $((BULK + 30))
'

test_expect_success 'every job is what it was: the whole qstat -f record of each' '
    snapshot > after.json &&
    test "$(jq length after.json)" = "$(jq length before.json)" &&
    diff before.json after.json > records.diff
'

test_expect_success 'the stored requests were parsed on more than one thread (one CPU: one)' '
    threads=$(sed -n "s/.*parsing [0-9]* stored requests on \([0-9]*\) threads.*/\1/p" \
              $CLUSTER/scheduler.log | tail -1) &&
    say "parsed on $threads threads" &&
    if [ "$(nproc)" -ge 2 ]; then test "$threads" -ge 2; else test "$threads" = 1; fi &&
    grep -q "loaded [0-9]* jobs" $CLUSTER/scheduler.log
'

test_expect_success 'the running job ends once; its dependant then runs; numbering goes on' '
    run=$(cat run.id) && dep=$(cat dep.id) && touch go &&
    wait_state $run F 60 && wait_state $dep F 60 &&
    test "$(grep -c ran ran)" = 1 && test "$(grep -c dep ran)" = 1 &&
    new=$(echo true | qsub -h) &&
    test "$(seqno $new)" -gt "$(db_query "SELECT max(seq) FROM jobs WHERE seq < $(seqno $new)")"
'

test_expect_success 'an unreadable stored request stops the scheduler, naming the job' '
    pid=$(cat $CLUSTER/scheduler.pid) && kill -9 $pid &&
    wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" &&
    bad=$(db_query "SELECT max(seq) FROM jobs WHERE state = '\''H'\'' AND array_parent IS NULL") &&
    echo $bad > bad.seq &&
    db_query "SELECT writefile('\''good.spec'\'', spec) FROM jobs WHERE seq = $bad" > /dev/null &&
    db_query "UPDATE jobs SET spec = '\''{\"name\": 7'\'' WHERE seq = $bad" &&
    hpcq-local start-scheduler $CLUSTER; pid=$(cat $CLUSTER/scheduler.pid) &&
    wait_until 30 sh -c "! kill -0 $pid 2>/dev/null" &&
    grep -q "job $bad: stored request unreadable" $CLUSTER/scheduler.log &&
    grep -q "cannot load jobs from the database" $CLUSTER/scheduler.log
'

test_expect_success 'mended, the queue loads again as it was' '
    db_query "UPDATE jobs SET spec = CAST(readfile('\''good.spec'\'') AS TEXT) WHERE seq = $(cat bad.seq)" &&
    hpcq-local start-scheduler $CLUSTER &&
    wait_until 30 sh -c "qstat > /dev/null 2>&1" &&
    jq -S --arg dep "$(cat dep.id)" "del(.[\$dep])" before.json > before-nodep.json &&
    snapshot | jq -S --slurpfile b before-nodep.json \
        "with_entries(select(.key as \$k | \$b[0] | has(\$k)))" > mended.json &&
    diff before-nodep.json mended.json > mended.diff &&
    test "$(job_attr "$(cat arr.seq)[9]" Job_Name)" = renamed
'

test_done
