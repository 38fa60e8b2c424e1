#!/bin/bash
# Slurm's side: #SBATCH scripts (arrays too) get Slurm's variables;
# sbatch, squeue, scancel, sinfo and sacct answer as Slurm's do; and
# -W sandbox=PRIVATE gives a job a scratch directory of its own.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --worker-conf 1 "jobdir_root = $TEST_ROOT/scratch" \
    --worker-conf 2 "jobdir_root = $TEST_ROOT/scratch"
mkdir -p $TEST_ROOT/scratch

cat > array.sh <<'S'
#!/bin/bash
#SBATCH --job-name=sarr
#SBATCH --array=0-3
#SBATCH --output=arr_%A_%a.out
echo "$SLURM_ARRAY_TASK_ID squared is $((SLURM_ARRAY_TASK_ID * SLURM_ARRAY_TASK_ID))" > result.$SLURM_ARRAY_TASK_ID
echo "job=$SLURM_JOB_ID array=$SLURM_ARRAY_JOB_ID min=$SLURM_ARRAY_TASK_MIN max=$SLURM_ARRAY_TASK_MAX count=$SLURM_ARRAY_TASK_COUNT"
S

test_expect_success 'an #SBATCH array script that reads SLURM_ARRAY_TASK_ID: every task'"'"'s result' '
    sbatch array.sh > out && n=$(sed -n "s/^Submitted batch job \([0-9]*\)$/\1/p" out) &&
    test -n "$n" && wait_state "$n[].$(hostname -s)" F 60 &&
    for i in 0 1 2 3; do grep -qx "$i squared is $((i * i))" result.$i || exit 1; done &&
    grep -qx "job=$((n + 2)) array=$n min=0 max=3 count=4" arr_${n}_2.out
'

cat > vars.sh <<'S'
#!/bin/bash
#SBATCH -J vars -N 2 --ntasks-per-node=2 --cpus-per-task=1 --mem=64M -p workq
env | grep ^SLURM_ | sort
S

test_expect_success 'an #SBATCH job sees Slurm'"'"'s variables' '
    n=$(sbatch --parsable vars.sh) && wait_state $n F &&
    o=slurm-$n.out &&
    grep -qx "SLURM_JOB_ID=$n" $o && grep -qx "SLURM_JOBID=$n" $o &&
    grep -qx "SLURM_JOB_NAME=vars" $o && grep -qx "SLURM_SUBMIT_DIR=$WORK" $o &&
    grep -qx "SLURM_SUBMIT_HOST=$(hostname -s)" $o && grep -qx "SLURM_JOB_PARTITION=workq" $o &&
    grep -qx "SLURM_JOB_NUM_NODES=2" $o && grep -qx "SLURM_JOB_NODELIST=node\[1-2\]" $o &&
    grep -qx "SLURM_NTASKS=4" $o && grep -qx "SLURM_NTASKS_PER_NODE=2" $o &&
    grep -qx "SLURM_TASKS_PER_NODE=2(x2)" $o && grep -qx "SLURM_CPUS_PER_TASK=1" $o &&
    grep -qx "SLURM_CPUS_ON_NODE=2" $o && grep -qx "SLURM_MEM_PER_NODE=64" $o &&
    grep -qx "SLURM_GPUS_ON_NODE=0" $o
'

test_expect_success 'a PBS script does not get them (Open MPI would switch to srun)' '
    id=$(echo "env | grep -c ^SLURM_JOB || true" | qsub -N plain) && wait_state $id F &&
    grep -qx 0 plain.o$(seqno $id)
'

test_expect_success 'squeue: default columns, -o with %-fields, -h, -t, -u, -j, -p' '
    n=$(sbatch --parsable -J long --wrap="sleep 60") && wait_state $n R &&
    squeue > sq && head -1 sq | grep -q "^ *JOBID PARTITION *NAME *USER ST *TIME *NODES NODELIST(REASON)$" &&
    grep -Eq "^ +$n +workq +long +$(id -un | cut -c1-8) +R +[0-9]+:[0-9]{2} +1 node[12]$" sq &&
    test "$(squeue -h -o "%i %t" -j $n)" = "$n R" &&
    test "$(squeue --noheader --format="%i %T %P %j %D" -u $(id -un) -t R -p workq)" = "$n RUNNING workq long 1" &&
    test -z "$(squeue -h -u nosuchuser)" && test -z "$(squeue -h -t PD)"
'

test_expect_success 'scancel cancels by id; squeue -t all and sacct then say CANCELLED' '
    n=$(squeue -h -o "%i %j" | sed -n "s/ long$//p") &&
    scancel $n && wait_state $n F &&
    test "$(squeue -h -o "%i %t" -t all -j $n)" = "$n CA" &&
    test "$(sacct -n -P -X --format=JobID,State -j $n)" = "$n|CANCELLED"
'

test_expect_success 'scancel -u USER -t PENDING, -n NAME; unknown ids as Slurm says' '
    a=$(sbatch --parsable -H --wrap=true) && b=$(sbatch --parsable -J victim --wrap="sleep 60") &&
    scancel -u $(id -un) -t PENDING && wait_state $a F && scancel -n victim && wait_state $b F &&
    scancel 99999 2>err; test $? = 1 &&
    grep -qx "scancel: error: Kill job error on job id 99999: Invalid job id specified" err
'

test_expect_success 'sacct: finished jobs from the history, formats and exit codes' '
    n=$(sbatch --parsable --wrap="exit 3") && wait_state $n F &&
    test "$(sacct -P -n --format=JobIdRaw,State,ExitCode -j $n)" = "$n|FAILED|3:0" &&
    sacct -j $n > fixed && head -1 fixed | grep -q "^ *JobID *JobName *Partition *Account *AllocCPUS *State *ExitCode $" &&
    sed -n 2p fixed | grep -q "^------------ ---------- " &&
    grep -Eq "^ +$n +wrap +workq +1 +FAILED +3:0 $" fixed &&
    sacct -p -n --format=jobid,state -j $n | grep -qx "$n|FAILED|" &&
    ! sacct --format=Bogus 2>err && grep -q "Invalid field requested" err
'

test_expect_success 'sinfo: partition summary, -o %P, -N' '
    sinfo > si && head -1 si | grep -q "^PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST$" &&
    grep -Eq "^workq\* +up +infinite +2 +idle node\[1-2\]$" si &&
    test "$(sinfo -h -o %P)" = "workq*" &&
    test "$(sinfo -N -h -o "%N %t" | tr "\n" " ")" = "node1 idle node2 idle "
'

test_expect_success 'sbatch: options on the command line win over #SBATCH; -D; Slurm errors' '
    mkdir -p sub && printf "#!/bin/sh\n#SBATCH -J script\npwd\n" > d.sh &&
    n=$(sbatch --parsable -J cli -D sub d.sh) && wait_state $n F &&
    test "$(job_attr $n Job_Name)" = cli && grep -qx "$WORK/sub" sub/slurm-$n.out &&
    ! sbatch --qos=high d.sh 2>err && grep -qx "sbatch: error: unrecognized option '"'"'--qos=high'"'"'" err &&
    printf "echo no shebang\n" > ns.sh && ! sbatch ns.sh 2>err &&
    grep -q "The first line must start with #!" err &&
    ! sbatch d.sh arg1 2>err && test $(wc -l < err) = 1
'

test_expect_success 'srun inside a job runs its tasks (t1110 has the rest)' '
    printf "#!/bin/sh\nsrun -n1 --cpu-bind=q sh -c '"'"'echo inside-\$SLURM_STEP_ID'"'"'\nsrun true\n" > step.sh &&
    n=$(sbatch --parsable step.sh) &&
    wait_state $n F && grep -qx inside-0 slurm-$n.out &&
    test "$(job_attr $n Exit_status)" = 0
'

test_expect_success '-W sandbox=PRIVATE: own scratch dir, TMPDIR, removed after' '
    id=$(printf "pwd\necho tmp=\$TMPDIR\necho jobdir=\$PBS_JOBDIR\ntouch \$TMPDIR/scratchfile\nls -ld .\n" |
         qsub -W sandbox=PRIVATE -N sb) && wait_state $id F &&
    o=sb.o$(seqno $id) && d=$(head -1 $o) &&
    case $d in $TEST_ROOT/scratch/pbs.$id.*) ;; *) false ;; esac &&
    grep -qx "tmp=$d" $o && grep -qx "jobdir=$d" $o && grep -q "^drwx------" $o &&
    wait_until 10 test ! -e "$d" &&
    test -z "$(ls $TEST_ROOT/scratch)"
'

test_done
