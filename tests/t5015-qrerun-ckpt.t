#!/bin/bash
# qrerun of a job that checkpoints: the job is asked for a checkpoint and
# requeued once it reports it (or checkpoint_grace is over), and its next
# attempt goes on from there; -W force, and jobs that do not checkpoint,
# get PBS's plain requeue.  hpcq-climate's result after the rerun is
# bitwise that of a run nobody interrupted.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 1 --sched-config checkpoint_grace=3

CLIMATE=$HPCQ_BUILDDIR/apps/climate/hpcq-climate
RUN="$CLIMATE --cpu --case thermal --nx 100 --nz 50 --sim-time 2000"

requeued() { test "$(db_query "SELECT count(*) FROM events WHERE job_seq = $(seqno $1)
                               AND type = 'requeued'")" -ge 1; }
has_session() { test -n "$(job_attr $1 session_id)"; }
run_count_is() { test "$(job_attr $1 run_count)" = "$2"; }
ckpt_events() { db_query "SELECT type FROM events WHERE job_seq = $(seqno $1)
                          AND type LIKE 'checkpoint%' ORDER BY id" | tr "\n" " "; }

test_expect_success 'the climate run nobody interrupts' '
    OMP_NUM_THREADS=1 $RUN --quiet --checkpoint-dir ref.ck --dump $PWD/ref.nc >ref.out 2>&1 &&
    test -s ref.nc
'

test_expect_success 'qrerun of a checkpointing job: checkpoint, requeue, go on from it' '
    id=$(echo "$RUN --restart --dump $PWD/run.nc" | qsub $(app_vars) -c s) && echo $id >id.c &&
    wait_state $id R && wait_until 30 has_session $id && sleep 2 &&
    qrerun $id && wait_until 20 requeued $id &&
    db_query "SELECT detail FROM events WHERE job_seq = $(seqno $id) AND type = \"requeued\"" |
        grep "rerun (qrerun): checkpoint reported; restarts from checkpoint generation" &&
    ckpt_events $id | grep -q "^checkpoint_requested checkpoint " &&
    db_query "SELECT detail FROM events WHERE job_seq = $(seqno $id)
              AND type = \"checkpoint_requested\"" | grep -q "Job rerun by $(id -un)"
'

test_expect_success 'its second attempt restarts from the checkpoint and ends bitwise identical' '
    id=$(cat id.c) && wait_until 30 run_count_is $id 2 && wait_state $id F 600 &&
    test "$(job_attr $id Exit_status)" = 0 &&
    cat STDIN.[oe]$(seqno $id) | grep "^restarted from .*climate-00000001.ckpt at step" &&
    cmp ref.nc run.nc && echo "identical: $(wc -c <run.nc) bytes"
'

test_expect_success 'qrerun -W force: killed and requeued at once, no checkpoint asked' '
    id=$(echo "sleep 60" | qsub -c s) && wait_state $id R && wait_until 30 has_session $id &&
    qrerun -W force $id && wait_until 10 requeued $id && test -z "$(ckpt_events $id)" &&
    qdel $id && wait_state $id F
'

test_expect_success 'a job that does not checkpoint (-c n, or none): plain requeue' '
    id=$(echo "sleep 60" | qsub) && wait_state $id R && wait_until 30 has_session $id &&
    qrerun $id && wait_until 10 requeued $id && test -z "$(ckpt_events $id)" &&
    qdel $id && wait_state $id F
'

test_expect_success 'no report within checkpoint_grace: requeued anyway' '
    printf "#!/bin/bash\ntrap \"\" USR1\nsleep 60\n" >deaf.sh && id=$(qsub -c s deaf.sh) &&
    wait_state $id R && wait_until 30 has_session $id && qrerun $id &&
    sleep 1 && test "$(job_state $id)" = R && wait_until 15 requeued $id &&
    db_query "SELECT detail FROM events WHERE job_seq = $(seqno $id) AND type = \"requeued\"" |
        grep -q "no checkpoint reported in time; no checkpoint reported: restarts from what its folder holds" &&
    qdel $id && wait_state $id F
'

test_expect_success 'qrerun of a job that is not rerunnable is refused, as in PBS' '
    id=$(echo "sleep 60" | qsub -r n -c s) && wait_state $id R &&
    ! qrerun $id 2>err && grep -q "job is not rerunnable" err && qdel $id
'

test_done
