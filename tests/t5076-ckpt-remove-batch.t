#!/bin/bash
# Finished jobs' checkpoint folders are removed as their owner by one
# helper per owner per loop turn, not one fork per job (worker/ckpt_remove.h):
# six jobs of one owner ending together lose their folders through one
# helper (or a few, when their ends straddle the scheduler's sweep).  When
# one folder of a batch cannot go (here: it is another user's, which the
# owner may not remove), each folder is tried alone, so that exactly that
# job's answer says why, and the others are still removed.
. "$(dirname "$0")/lib.sh"

ROOT=$TEST_ROOT/ckroot
mkdir -p "$ROOT" && chmod 1777 "$ROOT"
cluster_start 1 --cpus-per-worker 8 --sched-config checkpoint_root=$ROOT

removed() { test "$(db_query "SELECT removed_at IS NOT NULL FROM checkpoint_dirs
                              WHERE job_seq = $(seqno $1)")" = 1; }
all_removed() { for j in "$@"; do removed $j || return 1; done; }
folder() { echo "$ROOT/$(job_attr $1 hpcq_uuid)"; }

test_expect_success 'six jobs of one owner ending together: their folders go, a helper for several' '
    for i in 1 2 3 4 5 6; do echo "touch \$HPCQ_CHECKPOINT_DIR/data; sleep 2" | qsub -c s >> ids || exit 1; done &&
    for j in $(cat ids); do wait_state $j R || exit 1; done &&
    for j in $(cat ids); do wait_state $j F || exit 1; done &&
    wait_until 20 all_removed $(cat ids) &&
    for j in $(cat ids); do test ! -e "$(folder $j)" || exit 1; done &&
    grep "checkpoint folders of uid 0: [0-9]* removed by one helper" $CLUSTER/worker1.log &&
    n=$(sed -n "s/.*checkpoint folders of uid 0: \([0-9]*\) removed by one helper.*/\1/p" $CLUSTER/worker1.log | sort -n | tail -1) &&
    test "$n" -ge 2
'

test_expect_success 'one folder of a batch is not the owner'"'"'s: that job alone says so, the others go' '
    : > ids2 &&
    for i in 1 2 3 4; do echo "touch \$HPCQ_CHECKPOINT_DIR/data; sleep 3" | qsub -c s >> ids2 || exit 1; done &&
    for j in $(cat ids2); do wait_state $j R || exit 1; done &&
    bad=$(head -1 ids2) && wait_until 10 test -d "$(folder $bad)" &&
    chown nobody "$(folder $bad)" &&
    for j in $(cat ids2); do wait_state $j F || exit 1; done &&
    wait_until 20 all_removed $(cat ids2) &&
    test -d "$(folder $bad)" &&
    for j in $(tail -n +2 ids2); do test ! -e "$(folder $j)" || exit 1; done &&
    grep -q "job $bad.*checkpoint folder not removed: not a folder of the job'"'"'s owner" $CLUSTER/scheduler.log &&
    test "$(grep -c "checkpoint folder not removed" $CLUSTER/scheduler.log)" = 1
'

test_done
