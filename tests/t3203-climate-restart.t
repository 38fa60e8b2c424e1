#!/bin/bash
# hpcq-climate checkpoint/restart: a run stopped (--stop-after, SIGTERM) and
# restarted ends bitwise identical to an uninterrupted one; corrupt
# checkpoints are detected and the older generation used; SIGUSR1 writes a
# checkpoint and carries on; HPCQ_CHECKPOINT_DIR/INTERVAL are obeyed.
# Checkpoints are common/ckptfile generations, DIR/climate-GGGGGGGG.ckpt.
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
    test $(ls c1/climate-*.ckpt | wc -l) -eq 2 &&
    ! ls c1/*.tmp 2>/dev/null &&
    $RUN --checkpoint-dir c1 --restart --dump split.bin > r1.out &&
    grep -q "restarted from .* at step 37" r1.out && cmp straight.bin split.bin
'

test_expect_success 'the final mass and energy report matches the uninterrupted run' '
    grep "^mass:" straight.out > a && grep "^mass:" r1.out > b && diff a b &&
    grep "^energy:" straight.out > a && grep "^energy:" r1.out > b && diff a b
'

# the file the last "checkpoint at" line of output $1 names
newest() { sed -n 's/^checkpoint at step .* -> \(.*\)$/\1/p' "$1" | tail -1; }

test_expect_success 'corrupt newest checkpoint: detected, older one used, still bitwise identical' '
    mkdir c2 &&
    $RUN --checkpoint-every 5 --checkpoint-dir c2 --stop-after 37 > s2.out; test $? -eq 143 &&
    f=$(newest s2.out) && test -f "$f" &&
    printf "\xff\xff\xff\xff" | dd of=$f bs=1 seek=500 conv=notrunc 2>/dev/null &&
    $RUN --checkpoint-dir c2 --restart --dump c2.bin > r2.out 2> r2.err &&
    cat r2.err && grep -q "checkpoint .$f. is damaged (checksum mismatch" r2.err &&
    grep -q "at step 35" r2.out && cmp straight.bin c2.bin
'

test_expect_success 'truncated newest checkpoint: detected, older one used' '
    mkdir c3 &&
    $RUN --checkpoint-every 5 --checkpoint-dir c3 --stop-after 37 > s3.out; test $? -eq 143 &&
    f=$(newest s3.out) && truncate -s 1000 $f &&
    $RUN --checkpoint-dir c3 --restart --dump c3.bin > r3.out 2> r3.err &&
    grep -q "is damaged (truncated" r3.err && cmp straight.bin c3.bin
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
    cmp "$(newest c5b.out)" c5ref/climate-00000001.ckpt
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
    test $(ls c7/climate-*.ckpt | wc -l) -eq 2 &&
    test $(grep -c "^checkpoint at" c7.out) -ge 5
'

test_expect_success 'HPCQ_CHECKPOINT_KEEP=3 keeps three generations, the newest' '
    mkdir c8 &&
    HPCQ_CHECKPOINT_KEEP=3 $RUN --checkpoint-every 5 --checkpoint-dir c8 --stop-after 30 > c8.out;
    test $? -eq 143 && ls c8 > c8.ls && cat c8.ls && test $(wc -l < c8.ls) -eq 3 &&
    test "c8/$(tail -1 c8.ls)" = "$(newest c8.out)"
'

test_expect_success 'only damaged checkpoints: each reported, the run starts from the beginning' '
    mkdir c9 && $RUN --checkpoint-every 5 --checkpoint-dir c9 --stop-after 12 > /dev/null;
    test $? -eq 143 && for f in c9/*.ckpt; do truncate -s 100 $f; done &&
    $RUN --checkpoint-dir c9 --restart --dump c9.bin > r9.out 2> r9.err && cat r9.err &&
    test $(grep -c "is damaged" r9.err) -eq 2 && grep -q "no valid checkpoint in .c9." r9.err &&
    grep -q "starting from the beginning" r9.out && cmp straight.bin c9.bin
'

test_done
