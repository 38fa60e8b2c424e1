#!/bin/bash
# qalter and qmove change a waiting job's request; a bad change leaves it
# as it was.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2

test_expect_success 'qalter changes name, walltime, resources and priority of a held job' '
    id=$(echo "echo ncpus=\$NCPUS" | qsub -h -N before -l walltime=1:00) &&
    qalter -N after -l walltime=00:05:00 -l select=1:ncpus=2 -p 10 $id &&
    test "$(job_attr $id Job_Name)" = after &&
    test "$(job_attr $id Resource_List.walltime)" = 00:05:00 &&
    test "$(job_attr $id Resource_List.ncpus)" = 2 &&
    test "$(job_attr $id Priority)" = 10 &&
    db_query "SELECT type FROM events WHERE job_seq = $(seqno $id)" | grep -qx altered &&
    qrls $id && wait_state $id F && grep -qx ncpus=2 after.o$(seqno $id)
'

test_expect_success 'the change survives a scheduler restart' '
    id=$(echo true | qsub -h -N one) && qalter -N two $id &&
    pid=$(cat $CLUSTER/scheduler.pid) && kill -9 $pid &&
    wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" &&
    hpcq-local start-scheduler $CLUSTER &&
    test "$(job_attr $id Job_Name)" = two &&
    wait_until 20 sh -c "test \$(grep -c \"node node1 up\" $CLUSTER/scheduler.log) -ge 2"
'

test_expect_success 'a bad change is refused with one line and changes nothing' '
    id=$(echo true | qsub -h -N keep) &&
    ! qalter -l select=1:ncpus=64 $id 2> e1 && test $(wc -l < e1) = 1 && grep -q "exceeds" e1 &&
    ! qalter -l walltime=abc $id 2> e2 && grep -q "invalid walltime" e2 &&
    ! qalter -q nosuch $id 2> e3 && grep -q "Unknown queue" e3 &&
    ! qalter -Z x $id 2> e4 && test $(wc -l < e4) = 1 &&
    test "$(job_attr $id Job_Name)" = keep &&
    test "$(job_attr $id Resource_List.ncpus)" = 1 && qdel $id
'

test_expect_success 'a running job cannot be altered; unknown ids say so' '
    id=$(echo "sleep 30" | qsub) && wait_state $id R &&
    ! qalter -N x $id 2> e5 && grep -q "Request invalid for state of job" e5 &&
    ! qalter -N x 99999 2> e6 && grep -q "Unknown Job Id 99999" e6 &&
    qdel $id
'

test_expect_success 'qmove moves a job to a queue, and refuses an unknown one' '
    id=$(echo true | qsub -h) && qmove workq $id &&
    test "$(job_attr $id queue)" = workq &&
    ! qmove nosuch $id 2> e7 && grep -q "Unknown queue" e7 && qdel $id
'

test_done
