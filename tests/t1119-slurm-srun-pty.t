#!/bin/bash
# srun --pty: task 0 on a pseudo-terminal of its own on its host (through
# script(1), over the task manager's streams), unbuffered, with srun's
# terminal size and its keys passed raw; its exit status is srun's.  From
# a real terminal (salloc's shell, driven by tests/pty-drive.py) and from
# a batch script (no terminal here, one there all the same).
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

test_expect_success 'outside a job: one error line naming salloc' '
    ! srun --pty bash 2> e && cat e && test "$(wc -l < e)" = 1 &&
    grep -q "^srun: error: --pty outside a job: use salloc" e
'

test_done
