#!/bin/bash
# The rest of PBS's commands, with PBS's wording and exit codes: qselect
# (and "qselect | xargs qdel"), qsig, qrerun, qorder, qmsg, qrun,
# qenable/qdisable/qstart/qstop, printjob.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2

test_expect_success 'qselect picks by state, user, name, queue, holds and resources' '
    echo "sleep 60" | qsub -N run1 > a.id && echo "sleep 60" | qsub -N run2 -l ncpus=2 > b.id &&
    echo true | qsub -h -N held > h.id && a=$(cat a.id) b=$(cat b.id) h=$(cat h.id) &&
    wait_state $a R && wait_state $b R &&
    test "$(qselect -s R | sort)" = "$(printf "%s\n%s\n" $a $b | sort)" &&
    test "$(qselect -s H)" = $h &&
    test "$(qselect -u $(id -un) -N held)" = $h &&
    test "$(qselect -h u)" = $h &&
    test "$(qselect -l ncpus.gt.1)" = $b &&
    test "$(qselect -l ncpus.eq.1 -s R)" = $a &&
    test "$(qselect -q workq -s HR | wc -l)" = 3 &&
    test -z "$(qselect -u nosuchuser)" && test -z "$(qselect -q otherq)"
'

test_expect_success 'qselect -u $USER -s H | xargs qdel removes exactly those' '
    a=$(cat a.id) h=$(cat h.id) && qselect -u $(id -un) -s H | xargs qdel && wait_state $h F &&
    test "$(job_state $a)" = R
'

test_expect_success 'qselect -x lists finished jobs too; -J arrays only' '
    h=$(cat h.id) && qselect -x -s F | grep -qx $h && ! qselect -s F | grep -q . &&
    arr=$(echo true | qsub -J 1-2 -h) && test "$(qselect -J)" = "$arr" && qdel $arr
'

test_expect_success 'qselect refuses bad options as PBS does (exit 2)' '
    qselect -l ncpus 2>err; test $? = 2 && grep -q "illegal -l value" err &&
    qselect -s Z 2>err; test $? = 2 && grep -q "illegal -s value" err
'

test_expect_success 'qsig -s USR1 reaches the job; a bad name is refused (165)' '
    printf "trap \"echo got-usr1; exit 0\" USR1\nwhile :; do sleep 0.1; done\n" > trap.sh &&
    id=$(qsub -N trap trap.sh) && wait_state $id R && sleep 0.5 &&
    qsig -s USR1 $id && wait_state $id F && grep -qx got-usr1 trap.o$(seqno $id) &&
    qsig -s BOGUS $(cat a.id) 2>err; test $? = 165 && grep -qx "qsig: Unknown/illegal signal name BOGUS" err &&
    qsig -s SIGUSR2 $id 2>err; test $? = 168 && grep -q "Request invalid for state of job $id" err &&
    qsig 999.nosuch 2>err; test $? = 153 && grep -q "Unknown Job Id 999.nosuch" err
'

test_expect_success 'qmsg writes into a running job'"'"'s error file (and -O output)' '
    id=$(echo "sleep 60" | qsub -N msg) && wait_state $id R &&
    qmsg "hello from qmsg" $id && qmsg -O "to stdout" $id &&
    wait_until 10 grep -qx "hello from qmsg" msg.e$(seqno $id) &&
    wait_until 10 grep -qx "to stdout" msg.o$(seqno $id) && qdel $id
'

test_expect_success 'qrerun kills a running job and queues it again as a new attempt' '
    printf "echo attempt=\$HPCQ_RESTART_COUNT >> runs.txt\nsleep 60\n" > rr.sh &&
    id=$(qsub rr.sh) && wait_state $id R && wait_until 10 test -s runs.txt &&
    qrerun $id && wait_until 20 grep -qx attempt=1 runs.txt &&
    test "$(job_attr $id run_count)" = 2 &&
    test "$(db_query "SELECT count(*) FROM events WHERE job_seq=$(seqno $id) AND type='"'"'requeued'"'"'")" = 1 &&
    qdel $id && wait_state $id F
'

test_expect_success 'qrerun refuses jobs that are not rerunnable (190) or not running (168)' '
    id=$(echo "sleep 60" | qsub -r n) && wait_state $id R &&
    qrerun $id 2>err; test $? = 190 && grep -qx "qrerun: job is not rerunnable $id" err &&
    qdel $id && wait_state $id F &&
    qrerun $id 2>err; test $? = 168 && grep -q "Request invalid for state of job" err
'

test_expect_success 'qorder exchanges two queued jobs'"'"' places' '
    a=$(cat a.id) b=$(cat b.id) && qdel $a $b && wait_state $a F && wait_state $b F && qstop workq &&
    x=$(echo true | qsub -N x) && y=$(echo true | qsub -N y) &&
    qorder $x $y && test "$(db_query "SELECT count(*) FROM events WHERE type='"'"'altered'"'"' AND detail LIKE '"'"'qorder%'"'"'")" = 2 &&
    qstart workq && wait_state $x F && wait_state $y F &&
    test $(db_query "SELECT stime FROM jobs WHERE seq=$(seqno $y)") -le \
         $(db_query "SELECT stime FROM jobs WHERE seq=$(seqno $x)") &&
    id=$(echo "sleep 30" | qsub) && wait_state $id R &&
    qorder $id $x 2>err; test $? = 168 && qdel $id && wait_state $id F
'

test_expect_success 'qstop keeps jobs queued, qstart runs them; qdisable refuses new jobs' '
    qstop workq && id=$(echo true | qsub) && sleep 1 && test "$(job_state $id)" = Q &&
    qstart workq && wait_state $id F &&
    qdisable workq && ! echo true | qsub 2>err && grep -q "not enabled" err &&
    qenable workq && id=$(echo true | qsub) && wait_state $id F &&
    qenable nosuchq 2>err; test $? = 2 && grep -qx "qenable: Unknown queue nosuchq" err
'

test_expect_success 'qrun starts a job now, even in a stopped queue, on the host named' '
    qstop workq && id=$(echo "echo \$HPCQ_NODE" | qsub -N qr) && sleep 0.5 && test "$(job_state $id)" = Q &&
    qrun -H node2 $id && wait_state $id F && grep -qx node2 qr.o$(seqno $id) &&
    qstart workq
'

test_expect_success 'printjob shows the stored script (-s) and attributes (managers)' '
    id=$(printf "#!/bin/sh\necho printjob-script\n" | qsub -N pj) && wait_state $id F &&
    printjob -s $id | grep -qx "Jobscript for jobid:$id" &&
    printjob -s $id | grep -qx "echo printjob-script" &&
    printjob $id | grep -qx "Job_Name = pj" &&
    printjob -a $id > a.out && ! grep -q "Job_Name" a.out &&
    printjob 999 2>err; test $? = 1 && grep -qx "Job 999 not found" err
'

other_users_setup true
if [ -n "$other_users" ]; then
    test_expect_success 'another user may not qrun, printjob or qsig others'"'"' jobs' '
        qstop workq && id=$(echo true | qsub) &&
        as_user nobody env HPCQ_SERVER=$HPCQ_SERVER qrun $id 2>err; test $? = 159 &&
        as_user nobody env HPCQ_SERVER=$HPCQ_SERVER printjob $id 2>err; test $? = 1 &&
        grep -q Unauthorized err && qstart workq
    '
else
    test_skip "another user may not qrun, printjob or qsig others' jobs" "cannot run as nobody here"
fi

test_done
