#!/bin/bash
# A job whose app finds none of its checkpoints usable exits 65
# (CKPT_EXIT_INVALID, common/ckptreport.h; hpcq-md does): the scheduler
# marks the checkpoints it recorded invalid, and ckpt_corrupt decides:
# hold (the default: held, the reason in its comment), restart (its folder
# removed as its owner, then run again from the beginning), fail (it ends
# with exit status 65).  A bad ckpt_corrupt is refused in one line.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2

# Reports generation 1, then, while its folder holds "bad" (made by the
# first attempt), exits 65 as an app whose checkpoints are all unusable.
cat >app.sh <<'EOS'
#!/bin/bash
[ "$HPCQ_RESTART_COUNT" = 0 ] && touch "$HPCQ_CHECKPOINT_DIR/bad"
hpcq-ckpt done --generation 1 --bytes 10
[ -e "$HPCQ_CHECKPOINT_DIR/bad" ] && exit 65
exit 0
EOS
invalid() { db_query "SELECT count(*) FROM checkpoints WHERE job_seq = $(seqno $1) AND invalid = 1"; }

test_expect_success 'hold (the default): held, its checkpoints invalid, the reason in its comment' '
    a=$(qsub -c s app.sh) && wait_state $a H &&
    job_attr $a comment | grep -q "^Held: no valid checkpoint: its app found none of its 1 checkpoint usable (exit status 65); ckpt_corrupt = hold$" &&
    test "$(job_attr $a Hold_Types)" = u && test "$(invalid $a)" = 1 &&
    test "$(job_attr $a checkpoint.count)" = 0 && test "$(job_attr $a checkpoint.invalid)" = 1 &&
    db_query "SELECT count(*) FROM events WHERE job_seq = $(seqno $a) AND type = \"checkpoints_invalid\"" | grep -qx 1 &&
    rm $WORK/.hpcq/checkpoints/*/bad && qrls $a && wait_state $a F &&
    test "$(job_attr $a Exit_status)" = 0 && test "$(job_attr $a run_count)" = 2
'

test_expect_success 'restart: the folder is removed as its owner, then it runs again from the beginning' '
    d=$TEST_ROOT/r && eval "$(cluster_start_in $d 1 --cpus-per-worker 2 --sched-config ckpt_corrupt=restart)" &&
    b=$(qsub -c s app.sh) && wait_state $b F 60 &&
    test "$(job_attr $b Exit_status)" = 0 && test "$(job_attr $b run_count)" = 2 &&
    grep -q "job $(seqno $b): removing checkpoint folder" $d/worker1.log &&
    sqlite3 $d/state/hpcq.sqlite "SELECT detail FROM events WHERE job_seq = $(seqno $b) AND type = \"released\"" |
        grep -q "checkpoint folder removed" && hpcq-local stop $d >/dev/null
'

# The state the restart path leaves in the database between the hold and
# the folder's removal (the job held "o", its folder's row not yet
# removed), written here with sqlite3 while the scheduler is down, as a
# kill -9 at that moment would leave it: the restarted scheduler removes
# the folder and then releases the job (the wait was kept in memory only).
test_expect_success 'restart, across a scheduler restart: the held job waits for its folder again, then runs' '
    d=$TEST_ROOT/rr && eval "$(cluster_start_in $d 1 --cpus-per-worker 2 --sched-config ckpt_corrupt=restart)" &&
    x=$(echo true | qsub -h) && wait_state $x H && seq=$(seqno $x) &&
    dir=$WORK/rr-folder/x && mkdir -p $dir && touch $dir/data &&
    kill -9 $(cat $d/scheduler.pid) && sleep 0.5 &&
    sqlite3 $d/state/hpcq.sqlite "UPDATE jobs SET hold_types = '"'"'o'"'"' WHERE seq = $seq;
        INSERT INTO checkpoint_dirs (job_seq, path, uid, remove_after) VALUES ($seq, '"'"'$dir'"'"', 0, 0)" &&
    hpcq-local start-scheduler $d >/dev/null &&
    wait_state $x F 30 && test ! -e $dir &&
    test "$(job_attr $x Exit_status)" = 0 && test "$(job_attr $x run_count)" = 1 &&
    sqlite3 $d/state/hpcq.sqlite "SELECT detail FROM events WHERE job_seq = $seq AND type = \"released\"" |
        grep -q "checkpoint folder removed" && hpcq-local stop $d >/dev/null
'

test_expect_success 'fail: it ends with exit status 65 and the reason' '
    d=$TEST_ROOT/f && eval "$(cluster_start_in $d 1 --cpus-per-worker 2 --sched-config ckpt_corrupt=fail)" &&
    c=$(qsub -c s app.sh) && wait_state $c F &&
    test "$(job_attr $c Exit_status)" = 65 && test "$(job_attr $c run_count)" = 1 &&
    job_attr $c comment | grep -q "^no valid checkpoint: .*ckpt_corrupt = fail$" &&
    hpcq-local stop $d >/dev/null
'

test_expect_success 'an exit 65 with no checkpoint recorded is an ordinary exit' '
    export HPCQ_SERVER=unix:$CLUSTER/hpcq.sock &&
    e=$(echo "exit 65" | qsub) && wait_state $e F && test "$(job_attr $e Exit_status)" = 65
'

test_expect_success 'a bad ckpt_corrupt: one line, the scheduler does not start' '
    sed -e "/^state_dir/d" -e "/^socket/d" -e "/^listen/d" $CLUSTER/scheduler.conf >bad.conf &&
    echo "ckpt_corrupt = maybe" >>bad.conf && d=$WORK/fresh &&
    ! hpcq-scheduler --config bad.conf --state-dir $d --socket $d.sock \
        --listen 127.0.0.1:0 --log-file $WORK/bad.log 2>bad.err &&
    test "$(wc -l <bad.err)" = 1 &&
    grep -qx "hpcq-scheduler: invalid ckpt_corrupt .maybe. (hold, restart or fail)" bad.err
'

test_expect_success 'no change of state was refused as illegal' '
    ! grep "illegal state change" $CLUSTER/scheduler.log
'

test_done
