#!/bin/bash
# What a job asks of checkpointing: qsub -c in PBS Pro's, Torque's and our
# spellings, -W checkpoint_signal, as #PBS lines too, shown by qstat -f as
# Checkpoint and checkpoint.signal, and handed to the job in its
# environment.  Bad values (-c x=3, preempt_order=XYZ, ...) are one clear
# line, a non-zero exit, and nothing changes.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2

njobs() { db_query "SELECT count(*) FROM jobs"; }

# check_one_line RC PROG TEXT: the last command's status ($rc), its stderr
# (err) one line "PROG: ...TEXT...", nothing on stdout (out).
check_one_line() {
    echo "exit $rc"; cat err
    test "$rc" = "$1" && test ! -s out && test "$(wc -l <err)" = 1 &&
    grep -q "^$2: " err && grep -qF -- "$3" err
}

# rejects TEXT ARGS...: qsub ARGS fails with one line naming TEXT and the
# number of jobs does not change.
rejects() {
    local text=$1 n0; shift
    n0=$(njobs)
    echo true | qsub "$@" >out 2>err; rc=$?
    check_one_line 2 qsub "$text" && test "$(njobs)" = "$n0"
}

test_expect_success 'PBS values are kept in their canonical form (qstat -f Checkpoint)' '
    for v in n s c c=30 w w=10 u auto; do
        id=$(echo true | qsub -h -c $v) && test "$(job_attr $id Checkpoint)" = "$v" || return 1
    done
'

test_expect_success 'Torque spellings become PBS ones' '
    id=$(echo true | qsub -h -c enabled) && test "$(job_attr $id Checkpoint)" = s &&
    id=$(echo true | qsub -h -c shutdown) && test "$(job_attr $id Checkpoint)" = s &&
    id=$(echo true | qsub -h -c periodic,interval=5) && test "$(job_attr $id Checkpoint)" = w=5 &&
    id=$(echo true | qsub -h -c enabled,periodic,interval=7) &&
    test "$(job_attr $id Checkpoint)" = w=7
'

test_expect_success 'no -c: u, and the checkpoint signal is USR1' '
    id=$(echo true | qsub -h) && test "$(job_attr $id Checkpoint)" = u &&
    test "$(job_attr $id checkpoint.signal)" = USR1 &&
    test "$(job_attr $id checkpoint.count)" = 0
'

test_expect_success '-W checkpoint_signal=SIGUSR2 is kept as USR2; #PBS lines work too' '
    id=$(echo true | qsub -h -c s -W checkpoint_signal=SIGUSR2) &&
    test "$(job_attr $id checkpoint.signal)" = USR2 &&
    printf "#!/bin/sh\n#PBS -c w=15\n#PBS -W checkpoint_signal=HUP\ntrue\n" >d.sh &&
    id=$(qsub -h d.sh) && test "$(job_attr $id Checkpoint)" = w=15 &&
    test "$(job_attr $id checkpoint.signal)" = HUP &&
    id=$(qsub -h -c n d.sh) && test "$(job_attr $id Checkpoint)" = n
'

test_expect_success '-c x=3: one line, exit 2, nothing submitted' '
    rejects "illegal -c value: x=3 (expected n, s, c[=MIN], w[=MIN], u, auto" -c x=3
'

test_expect_success 'other bad -c values are refused the same way' '
    rejects "illegal -c value: c=0" -c c=0 &&
    rejects "illegal -c value: w=1.5" -c w=1.5 &&
    rejects "illegal -c value: periodic,depth=2" -c periodic,depth=2 &&
    rejects "interval= goes with periodic" -c interval=5 &&
    rejects "illegal -c value:" -c ""
'

test_expect_success 'a bad -c in a #PBS line is refused too' '
    printf "#!/bin/sh\n#PBS -c sometimes\ntrue\n" >bad.sh && n0=$(njobs) &&
    qsub bad.sh >out 2>err; rc=$?
    check_one_line 1 qsub "line 2: illegal -c value: sometimes" && test "$(njobs)" = "$n0"
'

test_expect_success 'checkpoint_signal: TERM, KILL, STOP and unknown names are refused' '
    rejects "SIGTERM always means checkpoint, then stop" -W checkpoint_signal=TERM &&
    rejects "cannot catch it" -W checkpoint_signal=KILL &&
    rejects "cannot catch it" -W checkpoint_signal=STOP &&
    rejects "unknown signal" -W checkpoint_signal=NOPE
'

test_expect_success 'a request that bypasses qsub is checked by the scheduler too' '
    n0=$(njobs) &&
    python3 "$HPCQ_SRCDIR/tests/wire-client.py" "$CLUSTER/hpcq.sock" \
        "json:{\"v\":1,\"type\":\"job.submit\",\"id\":1,\"body\":{\"spec\":{\"name\":\"x\",\"script\":\"true\",\"workdir\":\"/tmp\",\"checkpoint\":\"x=3\"}}}" >w.out 2>&1;
    cat w.out && grep -q "illegal -c value: x=3" w.out && test "$(njobs)" = "$n0"
'

test_expect_success 'the job finds its checkpoint folder, signal, keep and worker socket' '
    id=$(echo "env | grep ^HPCQ_ | sort" | qsub -c s -W checkpoint_signal=USR2) &&
    wait_state $id F && uuid=$(job_attr $id hpcq_uuid) && out=STDIN.o${id%%.*} &&
    cat $out && grep -qx "HPCQ_CHECKPOINT_DIR=$PWD/.hpcq/checkpoints/$uuid" $out &&
    grep -qx HPCQ_CHECKPOINT_SIGNAL=USR2 $out && grep -qx HPCQ_CHECKPOINT_KEEP=2 $out &&
    grep -qx "HPCQ_CKPT_SOCKET=$CLUSTER/spool/node1/ckpt.sock" $out
'

test_expect_success 'qmgr: preempt_order=XYZ is one line, and the queue stays as it was' '
    qmgr -c "create queue low priority=10,enabled=true,started=true,preempt_order=CR" &&
    qmgr -c "list queue low" >before &&
    qmgr -c "set queue low preempt_order=XYZ" >out 2>err; rc=$?
    cat err; test "$rc" != 0 && test "$(wc -l <err)" = 1 &&
    grep -q "Illegal attribute or resource value: preempt_order=XYZ (a sequence of S, C, R and D" err &&
    qmgr -c "list queue low" >after && cmp before after && grep -q "preempt_order = CR" after
'

test_expect_success 'qmgr: other bad preempt_order and preempt_targets values' '
    for v in SS SCRDX "SCR 80 SC" ""; do
        qmgr -c "set queue low preempt_order=\"$v\"" 2>err && return 1
        grep -q "preempt_order" err || return 1
    done &&
    ! qmgr -c "set queue low preempt_targets=Resource_List.ncpus=2" 2>err &&
    grep -q "queue=NAME" err &&
    qmgr -c "set queue low preempt_targets=\"queue=workq,queue=low\"" &&
    qmgr -c "list queue low" | grep -q "preempt_targets = queue=workq,queue=low" &&
    qmgr -c "set queue low preempt_targets=NONE" && qmgr -c "unset queue low preempt_order" &&
    ! qmgr -c "list queue low" | grep -q preempt_order
'

# A scheduler started with a bad setting says which in one line and exits.
bad_setting() {
    local key=$1 value=$2
    mkdir -p bad && printf "state_dir = %s\nlisten = 127.0.0.1:0\n%s = %s\n" \
        "$PWD/bad" "$key" "$value" >bad.conf &&
    hpcq-scheduler --config bad.conf --log-file bad.log >out 2>err; rc=$?
    check_one_line 1 hpcq-scheduler "$3"
}

test_expect_success 'the scheduler refuses bad checkpoint and preemption settings' '
    bad_setting preempt_order XYZ "invalid preempt_order '\''XYZ'\''" &&
    bad_setting preempt_prio "starving_jobs, normal_jobs" "starving_jobs" &&
    bad_setting checkpoint_keep 0 checkpoint_keep &&
    bad_setting checkpoint_grace soon "invalid checkpoint_grace" &&
    bad_setting mtbi_prior.spot -5 "invalid mtbi_prior.spot" &&
    bad_setting price_per_hour free "invalid price_per_hour" &&
    bad_setting checkpoint_root relative/path "invalid checkpoint_root"
'

test_done
