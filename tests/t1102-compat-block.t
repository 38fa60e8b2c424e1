#!/bin/bash
# qsub -W block=true and sbatch --wait: the command waits for the job and
# exits with its exit status, as PBS's and Slurm's do (pipelines and
# Snakemake's --cluster-sync rely on it).
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2

test_expect_success 'qsub -W block=true prints the id, waits, exits with the status' '
    printf "#!/bin/sh\nsleep 1\necho done\nexit 7\n" > seven.sh &&
    qsub -W block=true seven.sh > out; rc=$? &&
    test $rc = 7 && id=$(cat out) && test "$(job_state $id)" = F &&
    test "$(job_attr $id Exit_status)" = 7 && grep -qx done seven.sh.o$(seqno $id)
'

test_expect_success 'a #PBS -W block=true directive blocks too; success is 0' '
    printf "#!/bin/sh\n#PBS -W block=true\ntrue\n" | qsub > out &&
    test "$(job_state $(cat out))" = F
'

test_expect_success 'block=false does not wait' '
    id=$(echo "sleep 30" | qsub -W block=false) && test "$(job_state $id)" != F &&
    qdel $id
'

test_expect_success 'a job deleted while it waited: exit 3 and the reason' '
    rm -f out rc || exit 1
    (echo true | qsub -h -W block=true > out 2> err; echo $? > rc) &
    wait_until 10 test -s out && qdel $(cat out) &&
    wait_until 10 test -s rc && test "$(cat rc)" = 3 &&
    grep -q "$(cat out) Job deleted" err
'

test_expect_success 'a job killed by a signal: the low byte of 256+N' '
    qsub -W block=true <<< "kill -TERM \$\$"; test $? = $(( (256 + 15) & 255 ))
'

test_expect_success 'the wait survives a scheduler restart' '
    rm -f out rc || exit 1
    (printf "sleep 3\nexit 5\n" | qsub -W block=true > out; echo $? > rc) &
    wait_until 10 test -s out &&
    pid=$(cat $CLUSTER/scheduler.pid) && kill -9 $pid &&
    wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" &&
    hpcq-local start-scheduler $CLUSTER > /dev/null &&
    wait_until 60 test -s rc && test "$(cat rc)" = 5
'

test_expect_success 'sbatch --wait and -W exit with the job exit code' '
    sbatch -W --wrap="exit 4" > out; test $? = 4 && grep -q "^Submitted batch job [0-9]*$" out &&
    sbatch --wait --parsable --wrap="true" > out && grep -qx "[0-9]*" out
'

test_expect_success 'bad block values are refused with one line' '
    ! echo true | qsub -W block=maybe 2>err && test $(wc -l < err) = 1 &&
    grep -q "block=maybe" err
'

test_done
