#!/bin/bash
# The job's environment as Slurm sets it, the variables t1104 does not
# check (SLURM_JOB_CPUS_PER_NODE, SLURM_JOB_START_TIME/END_TIME,
# SLURM_JOB_STDOUT/STDERR), and outputs as Slurm 22.05-24.x print them:
# squeue -j of an unknown job, sacct's ReqMem units.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2

cat > env.sh <<'S'
#!/bin/bash
#SBATCH -N 2 --ntasks-per-node=2 -t 5 -o envjob.out -e envjob.err --mem=1G
env | grep ^SLURM_ | sort
echo "span=$((SLURM_JOB_END_TIME - SLURM_JOB_START_TIME)) now=$(( $(date +%s) - SLURM_JOB_START_TIME < 60 ))"
S

test_expect_success 'the job environment: CPUs per node, start and end, its output files' '
    n=$(sbatch --parsable env.sh) && wait_state $n F 60 && o=envjob.out && cat $o &&
    grep -qx "SLURM_JOB_CPUS_PER_NODE=2(x2)" $o && grep -qx "span=300 now=1" $o &&
    grep -qx "SLURM_JOB_STDOUT=$WORK/envjob.out" $o &&
    grep -qx "SLURM_JOB_STDERR=$WORK/envjob.err" $o &&
    sacct -X -P -n -o ReqMem -j $n > mem && cat mem && test "$(cat mem)" = 2G
'

test_expect_success 'squeue -j: an unknown job is Slurm'"'"'s error, exit 1; one known is enough' '
    ! squeue -j 99999 > o 2> e && test "$(cat e)" = "slurm_load_jobs error: Invalid job id specified" &&
    test ! -s o &&
    n=$(sbatch --parsable --wrap=true) && wait_state $n F 30 &&
    test "$(squeue -h -t all -j 99999,$n -o %i)" = "$n"
'

test_done
