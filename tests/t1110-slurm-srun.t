#!/bin/bash
# srun as Slurm's task launcher, on plain local workers (one host each):
# a bare srun in an --ntasks=4 job runs 4 tasks through the worker's task
# manager, each with Slurm's per-task variables; -l labels, -o/-e
# patterns, --export, stdin to task 0, Slurm's exit status and error
# lines, signals passed on, scancel kills every task; outside a job srun
# makes an allocation.  Across hosts: t3020.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 4

cat > basic.sh <<'S'
#!/bin/bash
#SBATCH --ntasks=4 -J basic
srun sh -c 'echo "task $SLURM_PROCID"' | sort > bare.out
srun -l sh -c 'echo "p=$SLURM_PROCID l=$SLURM_LOCALID n=$SLURM_NODEID s=$SLURM_STEP_ID nt=$SLURM_NTASKS st=$SLURM_STEP_NUM_TASKS sn=$SLURM_STEP_NODELIST nn=$SLURM_STEP_NUM_NODES d=$SLURMD_NODENAME j=$SLURM_JOB_ID tpn=$SLURM_STEP_TASKS_PER_NODE"' | sort > label.out
srun -n 2 --ntasks-per-node=2 sh -c 'echo $SLURM_STEP_ID' > step.out
srun -n 2 -c 2 sh -c 'echo cpt=$SLURM_CPUS_PER_TASK' > cpt.out
S

test_expect_success 'a bare srun in an --ntasks=4 job runs 4 tasks' '
    n=$(sbatch --parsable basic.sh) && echo $n > basic.id && wait_state $n F 60 && cat slurm-$n.out &&
    test "$(job_attr $n Exit_status)" = 0 &&
    test "$(cat bare.out)" = "$(printf "task 0\ntask 1\ntask 2\ntask 3")"
'

test_expect_success 'per-task variables, and -l labels every line with its task' '
    cat label.out && n=$(cat basic.id) &&
    for t in 0 1 2 3; do
        grep -qx "$t: p=$t l=$t n=0 s=1 nt=4 st=4 sn=node1 nn=1 d=node1 j=$n tpn=4" label.out || exit 1
    done
'

test_expect_success 'each srun is a step of its own: 0, 1, 2, ...' '
    test "$(sort -u step.out)" = 2 && grep -qx cpt=2 cpt.out
'

cat > status.sh <<'S'
#!/bin/bash
#SBATCH -n 4
srun -n 3 sh -c 'exit $((SLURM_PROCID + 3))' 2> exit.err; echo "rc=$?" > exit.rc
srun -n 2 sh -c 'test $SLURM_PROCID = 1 && kill -TERM $$; exit 9' 2> sig.err; echo "rc=$?" > sig.rc
srun -n 5 true 2> over.err; echo "rc=$?" > over.rc
srun -n 1 ./no-such-program 2> enoent.err; echo "rc=$?" > enoent.rc
srun -K -n 2 sh -c 'test $SLURM_PROCID = 0 && exit 2; sleep 100' 2> kill.err; echo "rc=$?" > kill.rc
S

test_expect_success 'exit status as Slurm: the highest code, 128 + the highest signal' '
    n=$(sbatch --parsable status.sh) && echo $n > status.id && wait_state $n F 60 && cat *.err &&
    grep -qx rc=5 exit.rc &&
    grep -qx "srun: error: node1: task 2: Exited with exit code 5" exit.err &&
    grep -qx "srun: error: node1: task 0: Exited with exit code 3" exit.err &&
    grep -qx rc=143 sig.rc && grep -qx "srun: error: node1: task 1: Terminated" sig.err &&
    grep -qx "srun: error: node1: task 0: Exited with exit code 9" sig.err
'

test_expect_success 'more tasks than the job holds: Slurm'"'"'s error line, 1' '
    n=$(cat status.id) && grep -qx rc=1 over.rc &&
    test "$(cat over.err)" = "srun: error: Unable to create step for job $n: More processors requested than permitted" &&
    grep -qx rc=127 enoent.rc && grep -q "task 0: Exited with exit code 127" enoent.err
'

test_expect_success '-K: a task that fails kills the others' '
    n=$(cat status.id) && grep -qx rc=137 kill.rc && grep -q "srun: Terminating StepId=$n\." kill.err &&
    grep -q "task 1: Killed" kill.err
'

cat > io.sh <<'S'
#!/bin/bash
#SBATCH -n 4 -J iojob
srun -n 3 -o "o-%j-%s-%t-%N.txt" -e "e-%x-%2t.txt" sh -c 'echo out $SLURM_PROCID; echo err $SLURM_PROCID >&2'
srun -n 2 -o one.txt sh -c 'echo both $SLURM_PROCID; echo stderr-too >&2'
srun -n 3 -o 1 sh -c 'echo only $SLURM_PROCID' > only.txt
srun -n 2 -o none sh -c 'echo dropped'
printf 'line1\nline2\n' | srun -n 3 -l sh -c 'cat; echo done' | sort > stdin.txt
printf 'x\n' | srun -n 2 -i none sh -c 'cat; echo ok$SLURM_PROCID' | sort > noin.txt
srun -n 2 head -c 300000 /dev/zero | wc -c > big.txt
srun -n 2 -u sh -c 'printf "%s" $SLURM_PROCID' | wc -c > unbuf.txt
S

test_expect_success '-o/-e patterns: a file per task with %t, %j %s %N %x and widths' '
    n=$(sbatch --parsable io.sh) && wait_state $n F 60 && ls &&
    for t in 0 1 2; do
        test "$(cat o-$n-0-$t-node1.txt)" = "out $t" &&
        test "$(cat e-iojob-0$t.txt)" = "err $t" || exit 1
    done &&
    test "$(sort one.txt)" = "$(printf "both 0\nboth 1\nstderr-too\nstderr-too")" &&
    test "$(cat only.txt)" = "only 1" && ! grep -q dropped slurm-$n.out &&
    test "$(cat big.txt)" = 600000 && test "$(cat unbuf.txt)" = 2
'

test_expect_success 'stdin goes to task 0 only; -i none to no task' '
    cat stdin.txt &&
    test "$(cat stdin.txt)" = "$(printf "0: done\n0: line1\n0: line2\n1: done\n2: done")" &&
    test "$(cat noin.txt)" = "$(printf "ok0\nok1")"
'

cat > export.sh <<'S'
#!/bin/bash
#SBATCH -n 1
export MINE=yes OTHER=also
srun sh -c 'echo "all:$MINE:$OTHER"'
srun --export=NONE /bin/sh -c 'echo "none:$MINE:$OTHER:$SLURM_JOB_ID"'
srun --export=MINE,X=1 /bin/sh -c 'echo "some:$MINE:$OTHER:$X"'
srun --export=ALL,X=2 sh -c 'echo "allx:$MINE:$OTHER:$X"'
S

test_expect_success '--export: ALL, NONE (Slurm'"'"'s variables only), a list' '
    n=$(sbatch --parsable export.sh) && wait_state $n F 60 && cat slurm-$n.out &&
    grep -qx "all:yes:also" slurm-$n.out && grep -qx "none:::$n" slurm-$n.out &&
    grep -qx "some:yes::1" slurm-$n.out && grep -qx "allx:yes:also:2" slurm-$n.out
'

cat > sig.sh <<'S'
#!/bin/bash
#SBATCH -n 2
srun sh -c 'trap "echo got-usr1 \$SLURM_PROCID; exit 0" USR1; touch ready.$SLURM_PROCID; while :; do sleep 0.1; done' > sig.out &
pid=$!
while [ ! -e ready.0 ] || [ ! -e ready.1 ]; do sleep 0.1; done
kill -USR1 $pid
wait $pid; echo "rc=$?" >> sig.out
S

test_expect_success 'a signal to srun goes to every task' '
    n=$(sbatch --parsable sig.sh) && wait_state $n F 60 && cat sig.out &&
    grep -qx "got-usr1 0" sig.out && grep -qx "got-usr1 1" sig.out && grep -qx rc=0 sig.out
'

test_expect_success 'scancel kills every task of every step' '
    n=$(sbatch --parsable -n 4 --wrap="srun -n 2 sleep 991 & srun -n 2 sleep 992; wait") &&
    wait_until 30 sh -c "test \$(pgrep -x -fc \"sleep 99[12]\") -eq 4" &&
    scancel $n && wait_state $n F 30 &&
    wait_until 10 sh -c "! pgrep -x -f \"sleep 99[12]\" >/dev/null"
'

test_expect_success 'squeue -s shows running steps as JOBID.STEP; sacct every step' '
    n=$(sbatch --parsable -n 2 -J stepper --wrap="srun -n 1 true; srun -n 2 sh -c \"exit 3\"; srun -n 2 -J sl sleep 30") &&
    wait_until 30 sh -c "squeue -h -s | grep -q \"^ *$n\.2 \"" &&
    squeue -s > sq && cat sq &&
    head -1 sq | grep -q "^ *STEPID *NAME PARTITION *USER *TIME NODELIST$" &&
    grep -Eq "^ +$n\.2 +sl +workq +$(id -un | cut -c1-8) +[0-9]+:[0-9]{2} node1$" sq &&
    test "$(squeue -h -s -j $n -o "%i %j %D")" = "$n.2 sl 1" &&
    scancel $n && wait_state $n F 30 &&
    sacct -P -n --format=JobID,JobName,State,ExitCode,NNodes,AllocCPUS -j $n > sa && cat sa &&
    test "$(sed -n 2,4p sa)" = "$(printf "$n.0|true|COMPLETED|0:0|1|1\n$n.1|sh|FAILED|3:0|1|2\n$n.2|sl|CANCELLED|0:0|1|2")" &&
    test "$(sacct -X -P -n --format=JobID -j $n)" = "$n"
'

test_expect_success 'outside a job srun makes an allocation and runs the step in it' '
    srun -n 2 -l sh -c "echo in \$SLURM_JOB_ID; echo e\$SLURM_PROCID >&2" > alloc.out 2> alloc.err &&
    cat alloc.out alloc.err && test "$(wc -l < alloc.out)" = 2 &&
    grep -Eqx "0: in [0-9]+" alloc.out && grep -qx "1: e1" alloc.err &&
    srun -n 1 sh -c "exit 6"; test $? = 6 &&
    test -z "$(ls -A | grep "^\.srun-")"
'

test_expect_success 'bad input: one line naming the option' '
    ! srun --bogus true 2> e1 && head -1 e1 | grep -qx "srun: unrecognized option '"'"'--bogus'"'"'" &&
    ! srun -n x true 2> e2 && test "$(cat e2)" = "srun: error: Invalid number of tasks specification: x" &&
    ! srun --multi-prog conf 2> e3 && grep -q "^srun: error: --multi-prog: not supported" e3 &&
    ! srun --mpi=pmi2 ./a 2> e4 && grep -q "^srun: error: --mpi=pmi2: " e4 &&
    ! srun -m plane=2 true 2> e5 && grep -q "Invalid --distribution specification: plane=2" e5 &&
    ! srun -n 1 2> e6 && grep -qx "srun: error: No command given to execute." e6
'

test_done
