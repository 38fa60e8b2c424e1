#!/bin/bash
# srun --pty: task 0 on a pseudo-terminal of its own on its host (through
# script(1), over the task manager's streams), unbuffered, with srun's
# terminal size and its keys passed raw; its exit status is srun's.  From
# a real terminal (salloc's shell, driven by tests/pty-drive.py) and from
# a batch script (no terminal here, one there all the same).  Outside a
# job, as Slurm's srun --pty on a login node: an allocation whose task 0
# runs the command on a pty on the job's first host, this terminal relayed
# to it (cli/interactive.h, the machinery of qsub -I and salloc).
. "$(dirname "$0")/lib.sh"

if ! command -v script >/dev/null; then
    skip_all "no script(1) (util-linux) here" "srun --pty"
fi
cluster_start 1 --cpus-per-worker 2
drive() { python3 "$HPCQ_SRCDIR/tests/pty-drive.py" "$@"; }

test_expect_success 'in a batch job: task 0 has a terminal; srun exits with its status' '
    n=$(sbatch --parsable -n 1 --wrap "srun --pty sh -c '"'"'test -t 0 && test -t 1 && echo TTY-OK; exit 3'"'"'; echo rc=\$?") &&
    wait_state $n F 60 && cat slurm-$n.out &&
    grep -q "^TTY-OK" slurm-$n.out && grep -qx "rc=3" slurm-$n.out
'

test_expect_success 'from a terminal (salloc'"'"'s shell): the size, a pty, raw keys, the status' '
    drive --log p.log --rows 30 --cols 100 --expect "Granted job allocation [0-9]" \
        --send "export PATH=$HPCQ_BUILDDIR/cli:\$PATH\n" \
        --send "srun --pty sh -c '"'"'stty size; tty | sed s,/dev/pts/[0-9]*,PTS-SEEN,; read x; echo GOT-\$x; exit 5'"'"'; echo SRUN-RC=\$?\n" \
        --expect "PTS-SEEN" --send "typed\n" --expect "SRUN-RC=5" --send "exit\n" \
        -- salloc -n 1; echo "rc=$?" > p.rc &&
    tr -d "\r" < p.log > p.txt && cat p.txt &&
    grep -qx "30 100" p.txt && grep -qx "GOT-typed" p.txt && grep -qx "SRUN-RC=5" p.txt
'

test_expect_success 'outside a job: srun --pty makes an allocation; the command is task 0 on a pty there' '
    drive --log o.log --rows 40 --cols 120 \
        --send "export PATH=$HPCQ_BUILDDIR/cli:\$PATH\n" \
        --send "srun --pty -n 1 -J ptyjob sh -c '"'"'stty size; tty | sed s,/dev/pts/[0-9]*,PTS-SEEN,; echo ID=\$SLURM_JOB_ID PROCID=\$SLURM_PROCID STEP=\$SLURM_STEP_ID; read x; echo GOT-\$x; exit 6'"'"'; echo SRUN-RC=\$?\n" \
        --expect "PTS-SEEN" --send "typed\n" --expect "SRUN-RC=6" --send "exit\n" \
        -- sh; echo "rc=$?" > o.rc &&
    tr -d "\r" < o.log > o.txt && cat o.txt &&
    grep -qx "40 120" o.txt && grep -qx "GOT-typed" o.txt && grep -qx "SRUN-RC=6" o.txt &&
    grep -q "srun: job [0-9]* queued and waiting for resources" o.txt &&
    grep -q "srun: job [0-9]* has been allocated resources" o.txt &&
    id=$(sed -n "s/^ID=\([0-9]*\) PROCID=0 STEP=0$/\1/p" o.txt) && test -n "$id" &&
    wait_state $id F 30 && test "$(job_attr $id Job_Name)" = ptyjob &&
    test "$(job_attr $id Exit_status)" = 6
'

test_expect_success 'outside a job: a command that is not there: one line, 127 as from a shell' '
    drive --log m.log --send "export PATH=$HPCQ_BUILDDIR/cli:\$PATH\n" \
        --send "srun --pty no-such-command-here; echo SRUN-RC=\$?\n" \
        --expect "SRUN-RC=[0-9]" --send "exit\n" -- sh &&
    tr -d "\r" < m.log > m.txt && cat m.txt && grep -qx "SRUN-RC=127" m.txt &&
    grep -q "srun: error: no-such-command-here: No such file or directory" m.txt
'

test_done
