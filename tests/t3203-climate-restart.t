#!/bin/bash
# hpcq-climate checkpoint/restart: a run stopped (--stop-after, SIGTERM) and
# restarted ends bitwise identical to an uninterrupted one; corrupt
# checkpoints are detected and the older generation used; SIGUSR1 writes a
# checkpoint and carries on; HPCQ_CHECKPOINT_DIR/INTERVAL are obeyed.
. "$(dirname "$0")/lib.sh"
CLIMATE=$HPCQ_BUILDDIR/apps/climate/hpcq-climate
RUN="$CLIMATE --case collision --nx 32 --nz 16 --sim-time 120"

test_expect_success 'uninterrupted reference run' '
    $RUN --quiet --dump straight.bin > straight.out
'

test_expect_success 'stop after 37 steps (checkpoints every 5), restart: bitwise identical' '
    mkdir c1 &&
    $RUN --checkpoint-every 5 --checkpoint-dir c1 --stop-after 37 > s1.out; rc=$?;
    cat s1.out; test $rc -eq 143 &&
    grep -q "checkpoint at step 35" s1.out && grep -q "checkpoint at step 37" s1.out &&
    test -f c1/climate.ckpt.0 && test -f c1/climate.ckpt.1 &&
    ! ls c1/.*.tmp 2>/dev/null &&
    $RUN --checkpoint-dir c1 --restart --dump split.bin > r1.out &&
    grep -q "restarted from .* at step 37" r1.out && cmp straight.bin split.bin
'

test_expect_success 'the final mass and energy report matches the uninterrupted run' '
    grep "^mass:" straight.out > a && grep "^mass:" r1.out > b && diff a b &&
    grep "^energy:" straight.out > a && grep "^energy:" r1.out > b && diff a b
'

newest_slot() { sed -n 's/^checkpoint at step .*climate\.ckpt\.\([01]\)$/\1/p' "$1" | tail -1; }

test_expect_success 'corrupt newest checkpoint: detected, older one used, still bitwise identical' '
    mkdir c2 &&
    $RUN --checkpoint-every 5 --checkpoint-dir c2 --stop-after 37 > s2.out; test $? -eq 143 &&
    s=$(newest_slot s2.out) && test -n "$s" &&
    printf "\xff\xff\xff\xff" | dd of=c2/climate.ckpt.$s bs=1 seek=500 conv=notrunc 2>/dev/null &&
    $RUN --checkpoint-dir c2 --restart --dump c2.bin > r2.out 2> r2.err &&
    cat r2.err && grep -q "ignoring corrupt checkpoint" r2.err &&
    grep -q "at step 35" r2.out && cmp straight.bin c2.bin
'

test_expect_success 'truncated newest checkpoint: detected, older one used' '
    mkdir c3 &&
    $RUN --checkpoint-every 5 --checkpoint-dir c3 --stop-after 37 > s3.out; test $? -eq 143 &&
    s=$(newest_slot s3.out) && truncate -s 1000 c3/climate.ckpt.$s &&
    $RUN --checkpoint-dir c3 --restart --dump c3.bin > r3.out 2> r3.err &&
    grep -q "ignoring corrupt" r3.err && cmp straight.bin c3.bin
'

test_expect_success '--restart without any checkpoint starts from the beginning' '
    mkdir c4 && $RUN --checkpoint-dir c4 --restart --dump c4.bin > r4.out &&
    grep -q "starting from the beginning" r4.out && cmp straight.bin c4.bin
'

# A longer run to signal: wait (with a deadline) for its first progress line.
start_long() {
    $CLIMATE --case collision --nx 200 --nz 100 --sim-time 2000 --checkpoint-dir "$1" \
        > "$1.out" 2>&1 &
    pid=$!
    for i in $(seq 400); do
        grep -q "^step " "$1.out" 2>/dev/null && return 0
        sleep 0.05
    done
    kill $pid
    return 1
}

# The interrupted run is continued for 40 more steps and checkpointed; a
# fresh run stopped at the same step must write the identical file.
test_expect_success 'SIGTERM: checkpoint, exit 143; restart continues bitwise identical' '
    mkdir c5 && start_long c5 && kill -TERM $pid; wait $pid; rc=$?;
    cat c5.out; test $rc -eq 143 && grep -q "^checkpoint at step" c5.out &&
    step=$(sed -n "s/^stopped at step \([0-9]*\).*/\1/p" c5.out) && test -n "$step" &&
    $CLIMATE --case collision --nx 200 --nz 100 --sim-time 2000 --checkpoint-dir c5 \
        --stop-after 40 --restart > c5b.out; test $? -eq 143 &&
    mkdir c5ref &&
    $CLIMATE --case collision --nx 200 --nz 100 --sim-time 2000 --quiet \
        --stop-after $((step + 40)) --checkpoint-dir c5ref > /dev/null; test $? -eq 143 &&
    s=$(newest_slot c5b.out) && cmp c5/climate.ckpt.$s c5ref/climate.ckpt.0
'

test_expect_success 'SIGUSR1: a checkpoint is written and the run carries on' '
    mkdir c6 && start_long c6 && kill -USR1 $pid &&
    for i in $(seq 600); do grep -q "^checkpoint at" c6.out && break; sleep 0.05; done &&
    kill -TERM $pid; wait $pid; test $? -eq 143 &&
    test $(grep -c "^checkpoint at" c6.out) -eq 2
'

test_expect_success 'HPCQ_CHECKPOINT_DIR and HPCQ_CHECKPOINT_INTERVAL are obeyed' '
    mkdir c7 &&
    HPCQ_CHECKPOINT_DIR=$PWD/c7 HPCQ_CHECKPOINT_INTERVAL=0.000001 \
        $CLIMATE --case thermal --nx 16 --nz 8 --sim-time 20 > c7.out &&
    test -f c7/climate.ckpt.0 && test -f c7/climate.ckpt.1 &&
    test $(grep -c "^checkpoint at" c7.out) -ge 5
'

test_done
