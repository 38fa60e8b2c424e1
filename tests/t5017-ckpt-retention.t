#!/bin/bash
# Where checkpoints live and how long: checkpoint_root (shared storage)
# holds a folder per job (ROOT/UUID, the owner's, 0700); the apps keep
# checkpoint_keep generations; a job's folder is removed when it ends with
# status 0, and checkpoint_keep_failed days after it fails, by a worker,
# as the job's owner, never following a symlink.  A folder planted under
# the job's name is refused.
. "$(dirname "$0")/lib.sh"

ROOT=$TEST_ROOT/ckroot
mkdir -p "$ROOT" && chmod 1777 "$ROOT"
# 0.0001 days: 8.6 s.
cluster_start 1 --cpus-per-worker 2 --sched-config checkpoint_root=$ROOT \
    --sched-config checkpoint_keep=3 --sched-config checkpoint_keep_failed=0.0001

MD=$HPCQ_BUILDDIR/apps/md/hpcq-md
removed() { test "$(db_query "SELECT removed_at IS NOT NULL FROM checkpoint_dirs
                              WHERE job_seq = $(seqno $1)")" = 1; }

test_expect_success 'the folder is ROOT/UUID, the owner'"'"'s, mode 0700' '
    id=$(echo "echo \$HPCQ_CHECKPOINT_DIR; stat -c %a:%U \$HPCQ_CHECKPOINT_DIR; exit 3" | qsub -c s) &&
    wait_state $id F && uuid=$(job_attr $id hpcq_uuid) && out=STDIN.o$(seqno $id) && cat $out &&
    test "$(sed -n 1p $out)" = "$ROOT/$uuid" && test "$(sed -n 2p $out)" = "700:$(id -un)" &&
    echo $id >id.failed && sleep 1 && test -d $ROOT/$uuid
'

test_expect_success 'checkpoint_keep reaches the apps: hpcq-md keeps 3 generations' '
    id=$(echo "$MD --cpu --cells 3x3x3 --steps 50 --thermo 0 --checkpoint-every 10; ls \$HPCQ_CHECKPOINT_DIR; exit 1" |
         qsub $(app_vars) -c s) && wait_state $id F 120 && out=STDIN.o$(seqno $id) && cat $out &&
    test "$(grep -c "ckpt$" $out)" = 3 && grep -q md-00000005.ckpt $out &&
    test "$(job_attr $id checkpoint.count)" = 5
'

test_expect_success 'a failed job keeps its folder for checkpoint_keep_failed, then it goes' '
    id=$(cat id.failed) && dir=$ROOT/$(job_attr $id hpcq_uuid) &&
    test "$(job_attr $id Exit_status)" = 3 &&
    wait_until 30 test ! -e $dir && wait_until 10 removed $id &&
    after=$(db_query "SELECT remove_after - (SELECT etime FROM jobs WHERE seq = $(seqno $id))
                      FROM checkpoint_dirs WHERE job_seq = $(seqno $id)") &&
    echo "removed $after s after the end" && test "$after" -ge 8 && test "$after" -le 9
'

test_expect_success 'a job that ends well loses its folder at once' '
    id=$(echo "touch \$HPCQ_CHECKPOINT_DIR/data; mkdir -p \$HPCQ_CHECKPOINT_DIR/a/b/c; touch \$HPCQ_CHECKPOINT_DIR/a/b/c/d" |
         qsub -c s) && wait_state $id F && dir=$ROOT/$(job_attr $id hpcq_uuid) &&
    wait_until 10 test ! -e $dir && wait_until 10 removed $id
'

test_expect_success 'a symlink in the folder is removed, never followed' '
    echo precious >precious.txt && mkdir keepme && echo also >keepme/f &&
    id=$(echo "ln -s $PWD/precious.txt \$HPCQ_CHECKPOINT_DIR/link; ln -s $PWD/keepme \$HPCQ_CHECKPOINT_DIR/dirlink" |
         qsub -c s) && wait_state $id F && dir=$ROOT/$(job_attr $id hpcq_uuid) &&
    wait_until 10 test ! -e $dir && wait_until 10 removed $id &&
    test "$(cat precious.txt)" = precious && test "$(cat keepme/f)" = also
'

test_expect_success 'a symlink planted as the job'"'"'s folder: the job does not start in it' '
    mkdir -p elsewhere && id=$(echo "touch \$HPCQ_CHECKPOINT_DIR/x" | qsub -h -c s) &&
    ln -s $PWD/elsewhere $ROOT/$(job_attr $id hpcq_uuid) && qrls $id && wait_state $id F &&
    test "$(job_attr $id Exit_status)" != 0 &&
    job_attr $id comment | grep -q "checkpoint folder is not the job owner" &&
    test ! -e elsewhere/x && test -L $ROOT/$(job_attr $id hpcq_uuid)
'

other_users_setup true
if [ -n "$other_users" ]; then
    test_expect_success 'another user'"'"'s folder is made and removed as that user' '
        chmod 711 $CLUSTER $CLUSTER/spool $CLUSTER/spool/node1 &&
        id=$(as_user nobody sh -c "echo \"touch \\\$HPCQ_CHECKPOINT_DIR/mine; stat -c %U \\\$HPCQ_CHECKPOINT_DIR\" |
                                   HPCQ_SERVER=unix:$CLUSTER/hpcq.sock qsub -c s") &&
        wait_state $id F && dir=$ROOT/$(job_attr $id hpcq_uuid) &&
        cat $PUB/STDIN.o$(seqno $id) && test "$(cat $PUB/STDIN.o$(seqno $id))" = nobody &&
        wait_until 10 test ! -e $dir && wait_until 10 removed $id &&
        grep -q "removing checkpoint folder $dir as uid $(id -u nobody)" $CLUSTER/worker1.log
    '
else
    test_skip 'another user'"'"'s folder is made and removed as that user' 'no other user to run as here'
fi

test_done
