#!/bin/bash
# Job dependencies (-W depend=after|afterok|afternotok|afterany): held with
# the system hold until met; never-satisfiable ones say so and stay held.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2

test_expect_success 'afterok: the dependent job waits, held (s), then runs after success' '
    a=$(echo "sleep 2; echo a >> order.txt" | qsub -N first) &&
    b=$(echo "echo b >> order.txt" | qsub -N second -W depend=afterok:$a) &&
    test "$(job_state $b)" = H && test "$(job_attr $b Hold_Types)" = s &&
    job_attr $b comment | grep -q "waiting for afterok:$(seqno $a)" &&
    wait_state $b F 30 && test "$(cat order.txt | tr -d "\n")" = ab &&
    db_query "SELECT type FROM events WHERE job_seq = $(seqno $b) ORDER BY id" | grep -qx released
'

test_expect_success 'afterok on a failed job: held, with the reason, not forgotten' '
    f=$(echo "exit 3" | qsub) && wait_state $f F &&
    g=$(echo true | qsub -W depend=afterok:$f) &&
    wait_until 10 sh -c "qstat -f -1 $g | grep -q \"can never be satisfied\"" &&
    test "$(job_state $g)" = H && qdel $g && test "$(job_state $g)" = F
'

test_expect_success 'afternotok runs after a failure; afterany after either' '
    f=$(echo "exit 1" | qsub) &&
    h=$(echo true | qsub -W depend=afternotok:$f) &&
    i=$(echo true | qsub -W depend=afterany:$f:$h) &&
    wait_state $i F 30 && test "$(job_attr $h Exit_status)" = 0 &&
    test "$(job_attr $i run_count)" = 1
'

test_expect_success 'after: starts once the other has started' '
    s=$(echo "sleep 3" | qsub) &&
    t=$(echo "echo started" | qsub -W depend=after:$s) &&
    wait_state $t F 30 && test "$(job_state $s)" != Q
'

test_expect_success 'a user hold and a dependency: qrls lifts only the user hold' '
    a=$(echo "sleep 2" | qsub) &&
    b=$(echo true | qsub -h -W depend=afterok:$a) &&
    test "$(job_attr $b Hold_Types)" = us &&
    qrls $b && test "$(job_attr $b Hold_Types)" = s && test "$(job_state $b)" = H &&
    wait_state $b F 30
'

test_expect_success 'dependencies survive a scheduler restart' '
    a=$(echo "sleep 3" | qsub) &&
    b=$(echo true | qsub -W depend=afterok:$a) &&
    pid=$(cat $CLUSTER/scheduler.pid) && kill -9 $pid &&
    wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" &&
    hpcq-local start-scheduler $CLUSTER &&
    wait_state $b F 40 && test "$(job_attr $b Exit_status)" = 0 &&
    test "$(db_query "SELECT start_time FROM attempts WHERE job_seq = $(seqno $b)")" -ge \
         "$(db_query "SELECT etime FROM jobs WHERE seq = $(seqno $a)")"
'

test_expect_success 'bad dependencies are refused at submission' '
    ! echo true | qsub -W depend=afterok:99999 2> e1 &&
    grep -q "Unknown Job Id 99999" e1 && test $(wc -l < e1) = 1 &&
    ! echo true | qsub -W depend=beforeok:1 2> e2 &&
    grep -q "unsupported dependency" e2 &&
    ! echo true | qsub -W depend=afterok 2> e3 && test $(wc -l < e3) = 1
'

test_done
