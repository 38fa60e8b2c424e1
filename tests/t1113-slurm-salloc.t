#!/bin/bash
# salloc: an allocation with sbatch's options.  With a command, the
# command runs in it (Slurm's variables set, srun runs its tasks) and
# salloc exits with its status; without one, a shell on the job's first
# host on a pty, as qsub -I's (driven through tests/pty-drive.py).
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 4
drive() { python3 "$HPCQ_SRCDIR/tests/pty-drive.py" "$@"; }

test_expect_success 'salloc -n 3 COMMAND: the command in the allocation, its status' '
    salloc -n 3 -J sal sh -c "echo job=\$SLURM_JOB_NAME tasks=\$SLURM_NTASKS; srun -l hostname | sort; echo oops >&2; exit 4" > out 2> err;
    test $? = 4 && cat out err &&
    grep -qx "job=sal tasks=3" out && test "$(grep -c "^[0-2]: " out)" = 3 &&
    grep -qx oops err && test -z "$(ls -A | grep "^\.salloc-")"
'

test_expect_success 'salloc with no command: a shell in the allocation; exit 2 is salloc'"'"'s' '
    drive --log s.log --expect "Granted job allocation [0-9]" \
        --send "export PATH=$HPCQ_BUILDDIR/cli:\$PATH; echo \"S=[\$SLURM_NTASKS] J=[\$SLURM_JOB_ID]\"\n" \
        --send "srun -n 2 sh -c '"'"'echo T\$SLURM_PROCID'"'"' | sort | paste -sd, -; exit 2\n" \
        --expect "T0,T1" -- salloc -n 2; echo "rc=$?" > s.rc &&
    tr -d "\r" < s.log > s.txt && cat s.txt && grep -qx rc=2 s.rc &&
    grep -Eq "S=\[2\] J=\[[0-9]+\]" s.txt
'

test_expect_success 'bad input: sbatch'"'"'s wording; sbatch-only options refused' '
    ! salloc --qos=high true 2> e1 && test "$(cat e1)" = "salloc: error: unrecognized option '"'"'--qos=high'"'"'" &&
    ! salloc --wrap=true 2> e2 && test "$(cat e2)" = "salloc: error: --wrap is sbatch'"'"'s, not salloc'"'"'s"
'

test_done
