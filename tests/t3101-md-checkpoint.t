#!/bin/bash
# hpcq-md checkpoints: bitwise continuation, two generations, damaged
# checkpoints, signals, HPCQ_CHECKPOINT_DIR / HPCQ_CHECKPOINT_INTERVAL.
# A checkpoint is a common/ckptfile generation: DIR/md-GGGGGGGG.ckpt (the
# manifest, naming the step) and a part per rank, DIR/md-GGGGGGGG.rRRRRR.part.

. "$(dirname "$0")/lib.sh"
MD=$HPCQ_BUILDDIR/apps/md/hpcq-md
export OMP_NUM_THREADS=1
unset HPCQ_CHECKPOINT_DIR HPCQ_CHECKPOINT_INTERVAL
# Steps not multiples of --neigh-every, so the restart falls between builds.
RUN="$MD --cpu --cells 4x4x4 --thermo 50 --thermo-digits 17 --neigh-every 7"

# step_of FILE STEP: the manifest FILE is of step STEP
step_of() { grep -a -q "^step $2\$" "$1"; }

test_expect_success 'a straight 200-step run' '
    $RUN --steps 200 --dump-state straight.state >straight.out 2>&1
'

test_expect_success '100 steps, restart, 100 more: bitwise identical' '
    $RUN --steps 100 --checkpoint-dir ck --checkpoint-every 45 >a.out 2>&1 &&
    ls ck && test -f ck/md-00000003.ckpt && step_of ck/md-00000003.ckpt 100 &&
    $RUN --steps 200 --checkpoint-dir ck --restart --checkpoint-every 45 \
        --dump-state restarted.state >b.out 2>&1 &&
    grep "restarting from step 100" b.out &&
    test "$(grep "^ *200 " b.out)" = "$(grep "^ *200 " straight.out)" &&
    test "$(grep "^ *150 " b.out)" = "$(grep "^ *150 " straight.out)" &&
    cmp straight.state restarted.state
'

test_expect_success 'only the last two generations are kept' '
    ls ck/*.ckpt >m.list && cat m.list && test $(wc -l <m.list) = 2 &&
    step_of ck/md-00000006.ckpt 200 && step_of ck/md-00000005.ckpt 180 &&
    ! ls ck/md-00000004* 2>/dev/null && ! ls ck/*.tmp 2>/dev/null
'

test_expect_success 'a corrupt newest checkpoint is reported and the previous one used' '
    rm -rf ck2 && $RUN --steps 100 --checkpoint-dir ck2 --checkpoint-every 50 >/dev/null 2>&1 &&
    printf "\x55" | dd of=ck2/md-00000002.r00000.part bs=1 seek=300 conv=notrunc 2>/dev/null &&
    $RUN --steps 200 --checkpoint-dir ck2 --restart --dump-state c.state >c.out 2>&1 &&
    cat c.out && grep "md-00000002.ckpt. is damaged (part 0: checksum mismatch" c.out &&
    grep "restarting from step 50" c.out && cmp straight.state c.state
'

test_expect_success 'a truncated checkpoint is detected too' '
    rm -rf ck3 && $RUN --steps 100 --checkpoint-dir ck3 --checkpoint-every 50 >/dev/null 2>&1 &&
    truncate -s 1000 ck3/md-00000002.r00000.part &&
    $RUN --steps 120 --checkpoint-dir ck3 --restart >d.out 2>&1 &&
    grep "damaged (part 0: truncated" d.out && grep "restarting from step 50" d.out
'

# Exit 65 (CKPT_EXIT_INVALID, common/ckptreport.h): the scheduler marks
# the job's checkpoints unusable and applies ckpt_corrupt (issue 23).
test_expect_success 'only damaged or foreign checkpoints: an error line each, exit 65' '
    mkdir -p ck4 && seq 100 >ck4/md-00000001.ckpt &&
    set +e; $RUN --steps 20 --checkpoint-dir ck4 --restart >e.out 2>e.err; rc=$?; set -e
    cat e.err; test $rc = 65 && grep -q "is damaged (not a checkpoint file)" e.err &&
    test "$(tail -1 e.err)" = "hpcq-md: no valid checkpoint in '\''ck4'\''"
'

test_expect_success 'a checkpoint of another system is refused (exit 2)' '
    set +e; $MD --cpu --cells 5x5x5 --steps 200 --checkpoint-dir ck --restart >f.out 2>f.err; rc=$?; set -e
    cat f.err; test $rc = 2 && grep -q "different system" f.err && test $(wc -l <f.err) = 1
'

test_expect_success '--restart on an empty folder fails; --restart-auto starts fresh' '
    mkdir -p empty &&
    set +e; $RUN --steps 10 --checkpoint-dir empty --restart >/dev/null 2>g.err; rc=$?; set -e
    test $rc = 2 && $RUN --steps 10 --checkpoint-dir empty --restart-auto >h.out 2>&1 &&
    grep -q "^ *0 " h.out
'

test_expect_success 'HPCQ_CHECKPOINT_DIR and a final checkpoint' '
    HPCQ_CHECKPOINT_DIR=$PWD/envck $RUN --steps 30 --checkpoint-every 1000 >/dev/null 2>&1 &&
    step_of envck/md-00000001.ckpt 30
'

test_expect_success 'HPCQ_CHECKPOINT_INTERVAL writes checkpoints by the clock' '
    HPCQ_CHECKPOINT_DIR=$PWD/tck HPCQ_CHECKPOINT_INTERVAL=0.2 \
        $MD --cells 6x6x6 --steps 100000 --thermo 0 >/dev/null 2>&1 &
    pid=$!
    for i in $(seq 100); do ls tck/*.ckpt >/dev/null 2>&1 && break; sleep 0.1; done
    kill -TERM $pid; wait $pid; rc=$?
    echo rc=$rc; test $rc = 143 && ls tck/*.ckpt
'

# True once process $1 catches SIGUSR1 (bit 9 of SigCgt): until then the
# signal would kill it.
catches_usr1() {
    local m
    m=$(awk "/^SigCgt:/ {print \$2}" /proc/$1/status 2>/dev/null) || return 1
    [ -n "$m" ] && (( (16#$m >> 9) & 1 ))
}

test_expect_success 'SIGUSR1 checkpoints and continues; SIGTERM checkpoints and stops' '
    $MD --cells 6x6x6 --steps 100000 --thermo 0 --checkpoint-dir sck >s.out 2>&1 &
    pid=$!
    for i in $(seq 100); do catches_usr1 $pid && break; sleep 0.05; done
    kill -USR1 $pid
    for i in $(seq 100); do ls sck/*.ckpt >/dev/null 2>&1 && break; sleep 0.1; done
    kill -0 $pid && ls sck/*.ckpt && kill -TERM $pid; wait $pid; rc=$?
    cat s.out; test $rc = 143 && grep -q "SIGTERM: checkpoint written" s.out &&
    test $(ls sck/*.ckpt | wc -l) = 2 &&
    $MD --cells 6x6x6 --steps 100000 --thermo 0 --checkpoint-dir sck --restart --steps 1 2>&1 | grep "restarting from step"
'

test_expect_success '--checkpoint-keep 3 keeps three generations' '
    rm -rf ck5 && $RUN --steps 60 --checkpoint-dir ck5 --checkpoint-every 10 \
        --checkpoint-keep 3 >/dev/null 2>&1 &&
    ls ck5 >k.list && cat k.list && test $(grep -c "ckpt$" k.list) = 3 &&
    test $(grep -c "part$" k.list) = 3 && step_of ck5/md-00000006.ckpt 60
'

test_expect_success 'HPCQ_CHECKPOINT_KEEP=1 keeps one; a bad value is one error line' '
    rm -rf ck6 && HPCQ_CHECKPOINT_KEEP=1 $RUN --steps 30 --checkpoint-dir ck6 \
        --checkpoint-every 10 >/dev/null 2>&1 &&
    ls ck6 && test "$(ls ck6)" = "$(printf "md-00000003.ckpt\nmd-00000003.r00000.part")" &&
    set +e; HPCQ_CHECKPOINT_KEEP=none $RUN --steps 1 >/dev/null 2>k.err; rc=$?; set -e
    test $rc = 2 && test $(wc -l <k.err) = 1 && grep -q HPCQ_CHECKPOINT_KEEP k.err
'

test_done
