#!/bin/bash
# Job arrays: qsub -J (PBS Pro), -t (Torque), #SBATCH --array; subjobs
# NUM[I] with PBS_ARRAY_INDEX, files NAME.oNUM.I, a %LIMIT on how many
# run at once, qstat -t, qdel of a subjob or the whole array.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2

test_expect_success 'qsub -J prints NUM[] and every subjob runs once with its index' '
    id=$(echo "echo idx=\$PBS_ARRAY_INDEX id=\$PBS_JOBID arr=\$PBS_ARRAY_ID" | qsub -N arr -J 1-9:2) &&
    echo "$id" | grep -Eq "^[0-9]+\[\]\.[A-Za-z0-9-]+$" && n=${id%%[*} && echo $n > n.txt &&
    wait_state $id F 60 &&
    for i in 1 3 5 7 9; do grep -qx "idx=$i id=$n\[$i\].* arr=$n\[\]\..*" arr.o$n.$i || exit 1; done &&
    test $(ls arr.o$n.* | wc -l) = 5 &&
    test "$(job_attr $id Exit_status)" = 0 &&
    test "$(job_attr $id array_indices_submitted)" = 1-9:2 &&
    test "$(job_attr $id array_state_count)" = "Queued:0 Running:0 Exiting:0 Expired:5"
'

test_expect_success 'qstat -t lists the subjobs; one is found by NUM[I]' '
    n=$(cat n.txt) && qstat -x -t | grep -c "^$n\[[0-9][0-9]*\]\." | grep -qx 5 &&
    test "$(job_attr "$n[7]" array_index)" = 7 && test "$(job_state "$n[7]")" = F
'

running_count() { qstat -t | grep -c " R workq"; }

test_expect_success '%LIMIT: at most that many subjobs run at once' '
    id=$(echo "sleep 1" | qsub -t 1-6%2) && max=0 &&
    while ! has_state $id F; do
        r=$(running_count); [ $r -gt $max ] && max=$r; sleep 0.1
    done &&
    echo "max running $max" && test $max -le 2 && test $max -ge 1
'

test_expect_success 'a failing subjob makes the array exit non-zero' '
    id=$(echo "exit \$((PBS_ARRAY_INDEX == 2))" | qsub -J 1-3) && wait_state $id F 30 &&
    test "$(job_attr $id Exit_status)" = 1 &&
    test "$(job_attr "${id%%[*}[2]" Exit_status)" = 1
'

test_expect_success 'qdel NUM[I] deletes one subjob; qdel NUM[] the rest' '
    id=$(echo "sleep 30" | qsub -J 1-4) && n=${id%%[*} &&
    wait_until 20 sh -c "qstat -t | grep -q \"^$n\[1\].* R \"" &&
    qdel "$n[4]" && wait_state "$n[4]" F 30 &&
    qdel "$id" && wait_state $id F 30 &&
    for i in 1 2 3; do test "$(job_state "$n[$i]")" = F || exit 1; done
'

test_expect_success 'an array survives a scheduler restart and finishes' '
    id=$(echo "sleep 1" | qsub -J 1-4%1) && n=${id%%[*} &&
    wait_until 20 sh -c "qstat -t | grep -q \" R \"" &&
    pid=$(cat $CLUSTER/scheduler.pid) && kill -9 $pid &&
    wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" &&
    hpcq-local start-scheduler $CLUSTER && wait_state $id F 60 &&
    test "$(job_attr $id Exit_status)" = 0 &&
    for i in 1 2 3 4; do
        test "$(db_query "SELECT count(*) FROM attempts a JOIN jobs j ON a.job_seq = j.seq WHERE j.array_parent = $n AND j.array_index = $i")" = 1 || exit 1
    done
'

test_expect_success 'an array is one row until its subjobs change; their identity survives a restart' '
    id=$(echo true | qsub -h -J 1-50) && n=${id%%[*} &&
    test "$(db_query "SELECT count(*) FROM jobs WHERE seq = $n OR array_parent = $n")" = 1 &&
    u7=$(job_attr "$n[7]" hpcq_uuid) && u8=$(job_attr "$n[8]" hpcq_uuid) &&
    test -n "$u7" && test "$u7" != "$u8" &&
    qdel "$n[9]" && wait_state "$n[9]" F 30 &&
    test "$(db_query "SELECT count(*) FROM jobs WHERE array_parent = $n")" = 1 &&
    pid=$(cat $CLUSTER/scheduler.pid) && kill -9 $pid &&
    wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" && hpcq-local start-scheduler $CLUSTER &&
    test "$(qstat -x -t | grep -c "^$n\[[0-9][0-9]*\]")" = 50 &&
    test "$(job_attr "$n[7]" hpcq_uuid)" = "$u7" && test "$(job_state "$n[7]")" = H &&
    test "$(job_state "$n[9]")" = F && qdel $id && wait_state $id F 30 &&
    test "$(qstat -x -t | grep "^$n\[[0-9][0-9]*\]" | awk "\$5 == \"F\"" | wc -l)" = 50 &&
    test "$(db_query "SELECT count(*) FROM jobs WHERE array_parent = $n")" = 1
'

test_expect_success 'a job may depend on a whole array' '
    a=$(echo "sleep 1" | qsub -J 1-3) &&
    b=$(echo "echo after" | qsub -W depend=afterok:$a) &&
    test "$(job_state $b)" = H && wait_state $b F 40 &&
    test "$(db_query "SELECT etime FROM jobs WHERE seq = ${a%%[*}")" -le \
         "$(db_query "SELECT stime FROM jobs WHERE seq = $(seqno $b)")"
'

test_expect_success 'Slurm --array with %A_%a output files' '
    printf "#!/bin/sh\n#SBATCH --array=0-2\necho t=\$SLURM_ARRAY_TASK_ID\n" > s.sh &&
    id=$(qsub s.sh) && n=${id%%[*} && wait_state $id F 30 &&
    grep -qx t=2 slurm-${n}_2.out && grep -qx t=0 slurm-${n}_0.out
'

test_expect_success 'bad ranges and changes of whole arrays are refused with one line' '
    ! echo true | qsub -J 5-1 2> e1 && test $(wc -l < e1) = 1 && grep -q "invalid array" e1 &&
    ! echo true | qsub -J 1-5000000 2> e2 && grep -q "more than" e2 &&
    id=$(echo "sleep 5" | qsub -J 1-2) &&
    ! qalter -N x $id 2> e3 && test $(wc -l < e3) = 1 &&
    grep -q "not supported for whole job arrays" e3 && qdel $id
'

test_expect_success 'an array over the server max_array_size is refused, nothing stored' '
    echo "max_array_size = 4" >> $CLUSTER/scheduler.conf &&
    kill $(cat $CLUSTER/scheduler.pid) && wait_until 10 eval "! kill -0 $(cat $CLUSTER/scheduler.pid) 2>/dev/null" &&
    hpcq-local start-scheduler $CLUSTER && before=$(db_query "select count(*) from jobs") &&
    ! echo true | qsub -J 1-5 2> e4 && test $(wc -l < e4) = 1 &&
    grep -q "Array job exceeds server or queue size limit: 5 subjobs, max_array_size is 4" e4 &&
    test "$(db_query "select count(*) from jobs")" = "$before" &&
    id=$(echo true | qsub -J 1-4) && wait_state $id F 30
'

test_done
