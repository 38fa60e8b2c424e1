#!/bin/bash
# Slurm's array tasks are jobs of their own numbers: task at position p of
# array N has SLURM_JOB_ID N + p (an integer: Python's int('54_0') would
# read 540), beside SLURM_ARRAY_JOB_ID and SLURM_ARRAY_TASK_ID; the next
# job's number comes after them; squeue, sacct and scancel take that
# number; a PBS array takes one number, as PBS Pro's.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2

cat > arr.sh <<'S'
#!/bin/bash
#SBATCH --array=1-7:3 -o ids_%a.out
echo "job=$SLURM_JOB_ID array=$SLURM_ARRAY_JOB_ID task=$SLURM_ARRAY_TASK_ID"
python3 -c "import os; print('int', int(os.environ['SLURM_JOB_ID']))"
S

test_expect_success 'each array task has an integer SLURM_JOB_ID of its own' '
    n=$(sbatch --parsable arr.sh) && echo $n > arr.id && wait_state "$n[].$(hostname -s)" F 60 &&
    cat ids_*.out &&
    grep -qx "job=$n array=$n task=1" ids_1.out && grep -qx "int $n" ids_1.out &&
    grep -qx "job=$((n + 1)) array=$n task=4" ids_4.out &&
    grep -qx "job=$((n + 2)) array=$n task=7" ids_7.out
'

test_expect_success 'the next job comes after the tasks'"'"' numbers' '
    n=$(cat arr.id) && m=$(sbatch --parsable --wrap=true) && test "$m" = $((n + 3))
'

test_expect_success 'sacct and squeue take a task'"'"'s own number; JobIDRaw is it' '
    n=$(cat arr.id) &&
    test "$(sacct -X -P -n --format=JobID,JobIDRaw,State -j $((n + 1)))" = "${n}_4|$((n + 1))|COMPLETED" &&
    test "$(squeue -h -t all -j $((n + 2)) -o "%i %A %a")" = "${n}_7 $n 7"
'

test_expect_success 'scancel of a task by its own number cancels that task only' '
    n=$(sbatch --parsable --array=0-1 --wrap="sleep 60") &&
    wait_until 30 sh -c "test \"\$(squeue -h -j $n -o %t | sort -u)\" = R" &&
    scancel $((n + 1)) && wait_until 30 sh -c "squeue -h -t all -j ${n}_1 -o %T | grep -qx CANCELLED" &&
    test "$(squeue -h -j ${n}_0 -o %T)" = RUNNING && scancel $n
'

test_expect_success '%j in an array task'"'"'s output path is its own number' '
    n=$(sbatch --parsable --array=0-1 -o "own_%j_%A_%a.out" --wrap="echo \$SLURM_JOB_ID") &&
    wait_state "$n[].$(hostname -s)" F 60 &&
    test "$(cat own_${n}_${n}_0.out)" = $n && test "$(cat own_$((n + 1))_${n}_1.out)" = $((n + 1))
'

test_expect_success 'a PBS array takes one number' '
    a=$(echo true | qsub -J 1-5) && b=$(echo true | qsub) &&
    test "$(seqno $b)" = $(( $(seqno ${a%%[*}) + 1 ))
'

test_done
