#!/bin/bash
# Completed checkpoints reach the scheduler through the job's worker:
# `hpcq-ckpt done` from a script, and hpcq-md and hpcq-climate on their own
# (common/ckptfile reports each generation it commits).  The scheduler
# stores generation, time, size and cost; qstat -f shows checkpoint.last,
# .count, .cost (the median) and .generation; each is an event.  Only the
# job's owner may report for it; garbage on the socket costs nothing.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2
SOCK=$CLUSTER/spool/node1/ckpt.sock
MD=$HPCQ_BUILDDIR/apps/md/hpcq-md
CLIMATE=$HPCQ_BUILDDIR/apps/climate/hpcq-climate
export OMP_NUM_THREADS=1

dir_removed() { test "$(db_query "SELECT removed_at IS NOT NULL FROM checkpoint_dirs
                                  WHERE job_seq = $(seqno $1)")" = 1; }

ckpt_rows() { db_query "SELECT generation, size, attempt, node, coalesce (reason, '-'),
                               coalesce (duration, -1) FROM checkpoints
                        WHERE job_seq = $(seqno $1) ORDER BY rowid"; }

test_expect_success 'hpcq-ckpt done from a job: generation, size, seconds stored' '
    id=$(printf "hpcq-ckpt done --generation 3 --bytes 4096 --seconds 0.25\nhpcq-ckpt done --bytes 10\n" |
         qsub -c s) && echo $id >id.done && wait_state $id F &&
    test "$(job_attr $id Exit_status)" = 0 && ckpt_rows $id >rows && cat rows &&
    test "$(sed -n 1p rows)" = "3|4096|1|node1|-|0.25" &&
    test "$(sed -n 2p rows)" = "4|10|1|node1|-|-1"
'

test_expect_success 'qstat -f: checkpoint.count, .generation, .cost (median), .last' '
    id=$(cat id.done) && test "$(job_attr $id checkpoint.count)" = 2 &&
    test "$(job_attr $id checkpoint.generation)" = 4 &&
    test "$(job_attr $id checkpoint.cost)" = 0.250 &&
    test -n "$(job_attr $id checkpoint.last)"
'

test_expect_success 'each checkpoint is an event of the running job, by its node' '
    id=$(cat id.done) && db_query "SELECT type, old_state, new_state, actor, detail FROM events
              WHERE job_seq = $(seqno $id) AND type = \"checkpoint\"" >ev && cat ev &&
    test $(wc -l <ev) = 2 && grep -q "^checkpoint|R|R|node1|generation 3, 4kb, 0.250 s" ev
'

test_expect_success 'outside a job hpcq-ckpt says so and exits 0; bad options exit 2' '
    hpcq-ckpt done 2>err && grep -q "not in an hpcq job" err &&
    ! hpcq-ckpt done --bytes -3 2>err; grep -q "invalid byte count" err &&
    ! hpcq-ckpt finished 2>/dev/null && ! hpcq-ckpt done --generation 0 2>/dev/null
'

test_expect_success 'a job id or attempt the worker does not run is refused' '
    ! HPCQ_CKPT_SOCKET=$SOCK PBS_JOBID=999.nowhere HPCQ_ATTEMPT=1 hpcq-ckpt done 2>err &&
    cat err && grep -q "no running job here" err &&
    ! HPCQ_CKPT_SOCKET=$SOCK PBS_JOBID="a\"b" HPCQ_ATTEMPT=1 hpcq-ckpt done 2>err &&
    grep -q "PBS_JOBID or HPCQ_ATTEMPT is missing or bad" err
'

test_expect_success 'garbage on the worker socket costs only that connection' '
    python3 "$HPCQ_SRCDIR/tests/wire-client.py" --wait-close "$SOCK" raw:garbage-bytes >g.out &&
    python3 "$HPCQ_SRCDIR/tests/wire-client.py" "$SOCK" \
        "json:{\"v\":1,\"type\":\"ckpt.done\",\"id\":1,\"body\":{}}" >m.out && cat m.out &&
    grep -q "malformed" m.out &&
    python3 "$HPCQ_SRCDIR/tests/wire-client.py" "$SOCK" \
        "json:{\"v\":1,\"type\":\"node.hello\",\"id\":2,\"body\":{}}" >u.out &&
    grep -q "unknown request" u.out && hpcq-local status $CLUSTER >/dev/null
'

other_users_setup true
if [ -n "$other_users" ]; then
    test_expect_success 'another user cannot report for my job (SO_PEERCRED)' '
        chmod 711 $CLUSTER $CLUSTER/spool $CLUSTER/spool/node1 &&
        id=$(echo "sleep 30" | qsub -c s) && wait_state $id R &&
        as_user nobody env HPCQ_CKPT_SOCKET=$SOCK PBS_JOBID=$id HPCQ_ATTEMPT=1 \
            hpcq-ckpt done --generation 9 >out 2>err; rc=$?
        cat err; test $rc = 1 && grep -q "only the job'"'"'s owner may report" err &&
        test "$(db_query "SELECT count(*) FROM checkpoints WHERE job_seq = $(seqno $id)")" = 0 &&
        grep -q "reported a checkpoint of job $id.*refused" $CLUSTER/worker1.log &&
        qdel $id && wait_state $id F
    '
else
    test_skip 'another user cannot report for my job' 'no other user to run as here'
fi

test_expect_success 'hpcq-md reports each checkpoint it writes, with its size on disk' '
    id=$(echo "$MD --cpu --cells 4x4x4 --steps 60 --thermo 0 --checkpoint-every 20" |
         qsub $(app_vars) -c s) && wait_state $id F 120 && test "$(job_attr $id Exit_status)" = 0 &&
    ckpt_rows $id >rows && cat rows && test $(wc -l <rows) = 3 &&
    cut -d"|" -f1 rows | tr "\n" " " | grep -qx "1 2 3 " &&
    dir=$(db_query "SELECT path FROM checkpoints WHERE job_seq = $(seqno $id) LIMIT 1") &&
    echo $id >id.md &&
    test "$dir" = "$PWD/.hpcq/checkpoints/$(job_attr $id hpcq_uuid)" &&
    size=$(sed -n 3p rows | cut -d"|" -f2) && test "$size" -gt 10000 &&
    awk -F"|" "\$6 >= 0" rows | wc -l | grep -qx 3
'

test_expect_success 'the folder of a job that ended well is removed once the worker is told' '
    id=$(cat id.md) && dir=$PWD/.hpcq/checkpoints/$(job_attr $id hpcq_uuid) &&
    wait_until 20 test ! -e "$dir" &&
    wait_until 10 dir_removed $id
'

test_expect_success 'hpcq-climate reports its checkpoints too' '
    id=$(echo "$CLIMATE --case thermal --nx 40 --nz 20 --sim-time 20 --checkpoint-every 5 --quiet" |
         qsub $(app_vars) -c s) && wait_state $id F 120 && cat STDIN.e${id%%.*} &&
    test "$(job_attr $id Exit_status)" = 0 &&
    n=$(db_query "SELECT count(*) FROM checkpoints WHERE job_seq = $(seqno $id) AND size > 0") &&
    echo "$n checkpoints" && test "$n" -ge 3
'

test_done
