#!/bin/bash
# Every command answers --help (its usage on standard output, nothing on
# standard error, exit 0) and --version (one line, exit 0), and refuses an
# option it does not know in one line with a non-zero exit: PBS's commands
# and hpcq's own, through the one helper (common/cliopt.h).  PBS's short
# options are as before.  No cluster is needed.
. "$(dirname "$0")/lib.sh"

PBS_CMDS="qsub qstat qdel qhold qrls qalter qmove qmgr pbsnodes qselect qsig qrerun
    qorder qmsg qenable qdisable qstart qstop qrun printjob tracejob pbsdsh pbs_tmrsh"
SLURM_CMDS="sbatch squeue scancel sinfo sacct srun"
HPCQ_CMDS="hpcq-report hpcq-ckpt hpcq-local hpcq-sim hpcq-scheduler hpcq-worker"
VERSION=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$HPCQ_BUILDDIR/config.h")

run() { "$@" </dev/null >out 2>err; echo $? >rc; }
shown() { echo "exit $(cat rc)"; echo "stdout:"; head -3 out; echo "stderr:"; cat err; }

# help_ok CMD: --help prints a usage on stdout only and exits 0.
help_ok() {
    run "$1" --help; shown
    test "$(cat rc)" = 0 && test ! -s err && grep -qi "usage" out
}

# version_ok CMD LINE: --version prints exactly LINE and exits 0.
version_ok() {
    run "$1" --version; shown
    test "$(cat rc)" = 0 && test ! -s err && test "$(cat out)" = "$2"
}

for cmd in $PBS_CMDS; do
    test_expect_success "$cmd --help: usage on stdout, exit 0" "help_ok $cmd"
    test_expect_success "$cmd --version: pbs_version = $VERSION" \
        "version_ok $cmd 'pbs_version = $VERSION'"
done
for cmd in $SLURM_CMDS; do
    test_expect_success "$cmd --help: usage on stdout, exit 0" "help_ok $cmd"
    test_expect_success "$cmd --version: slurm $VERSION (hpcq)" \
        "version_ok $cmd 'slurm $VERSION (hpcq)'"
done
for cmd in $HPCQ_CMDS hpcq-pty; do
    command -v "$cmd" >/dev/null || continue
    test_expect_success "$cmd --help: usage on stdout, exit 0" "help_ok $cmd"
    test_expect_success "$cmd --version: $cmd (hpcq) $VERSION" \
        "version_ok $cmd '$cmd (hpcq) $VERSION'"
done

# bad_option RC TEXT CMD ARGS...: one line on stderr, "CMD: ...TEXT...",
# nothing on stdout, exit RC.
bad_option() {
    local want=$1 text=$2; shift 2
    run "$@"; shown
    test "$(cat rc)" = "$want" && test ! -s out && test "$(wc -l <err)" = 1 &&
        grep -q "^$1: " err && grep -qF -- "$text" err
}

for cmd in $PBS_CMDS; do
    [ "$cmd" = pbs_tmrsh ] && continue # rsh's grammar: its own parser
    test_expect_success "$cmd --no-such-option: one line, exit 2" \
        "bad_option 2 \"unrecognized option '--no-such-option'\" $cmd --no-such-option"
done
test_expect_success 'qstat -Z: invalid option, named' \
    "bad_option 2 \"invalid option -- 'Z'\" qstat -Z"
test_expect_success 'qsub -l without its argument: named' \
    "bad_option 2 'option -l requires an argument' qsub -l"
test_expect_success 'qsig -s without its argument: named' \
    "bad_option 2 'option -s requires an argument' qsig -s"
test_expect_success 'a long option is refused where PBS has none (qstat --full)' \
    "bad_option 2 \"unrecognized option '--full'\" qstat --full"

# PBS's short options are unchanged: clustered, attached and separate
# arguments parse as before (no server here: the error is the connection,
# after the options were accepted).
no_server() { HPCQ_SERVER=$TEST_ROOT/none.sock "$@"; }
test_expect_success 'qstat -fx1 and -u USER parse (the error is the connection)' '
    run no_server qstat -fx1 -u "$(id -un)" && shown &&
    test "$(cat rc)" != 2 && ! grep -q "option" err &&
    run no_server qstat -wt -F json && shown && ! grep -q "option" err
'
test_expect_success 'qsub -N name -lselect=1 parse; the script is read after them' '
    echo true >job.sh &&
    run no_server qsub -N x -lselect=1:ncpus=1 -j oe job.sh && shown &&
    test "$(cat rc)" != 2 && ! grep -q "option" err
'
test_expect_success 'qalter stops at the first job id (+): -N after it is an operand' '
    run no_server qalter -N a 1.x -N b && shown && ! grep -q "option" err
'
test_expect_success 'qhold -h with a bad type keeps its own message' \
    "bad_option 2 \"illegal -h value 'z'\" qhold -h z 1"
test_done
