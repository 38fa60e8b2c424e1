#!/bin/bash
# Checkpoints, suspensions and preemptions survive the scheduler: after a
# kill -9 and a restart a suspended job is still suspended (its resources
# still lent, its processes still stopped, the worker's report of it
# accepted, not killed as stale), resumes when they are free again, and
# keeps its preemption count; checkpoint counts and costs are read back.
# A suspended job whose node dies is requeued.
. "$(dirname "$0")/lib.sh"

# node_timeout 6: its fence time (4.5 s, worker/fence.h) outlasts a
# scheduler restart here, so the jobs live through it.
cluster_start 1 --cpus-per-worker 2 --node-timeout 6
qmgr -c "create queue express priority=200,enabled=true,started=true" || exit 1

BURN='while :; do :; done'
has_session() { test -n "$(job_attr $1 session_id)"; }
nstate() { db_query "SELECT count(*) FROM jobs WHERE state = '$1'"; }
count_is() { test "$(nstate $1)" = "$2"; }
# Stopped: state T, or frozen through its cgroup (lib.sh).
stopped() { proc_stopped $1; }

test_expect_success 'a job with checkpoints, and a job suspended for an express job' '
    c=$(printf "hpcq-ckpt done --generation 1 --bytes 5 --seconds 0.1\nhpcq-ckpt done --generation 2 --seconds 0.3\n" | qsub -c s) &&
    wait_state $c F && echo $c >id.c &&
    a=$(echo "$BURN" | qsub) && b=$(echo "$BURN" | qsub) && wait_state $a R && wait_state $b R &&
    wait_until 20 has_session $a && wait_until 20 has_session $b &&
    e=$(echo "sleep 12" | qsub -q express) && wait_state $e R 10 && echo $e >id.e &&
    v=$(db_query "SELECT seq FROM jobs WHERE state = \"S\"") && test -n "$v" && echo $v >id.v &&
    echo "$a $b" >ids && wait_until 10 stopped $(job_attr $v session_id)
'

test_expect_success 'kill -9 of the scheduler: after a restart all is as it was' '
    v=$(cat id.v) && c=$(cat id.c) && qstat -f -x $c | grep -E "checkpoint|cost" >before.c &&
    kill9_scheduler && hpcq-local start-scheduler $CLUSTER &&
    wait_until 20 grep -q "job $v.* still running on node1" $CLUSTER/scheduler.log &&
    test "$(job_state $v)" = S && test "$(job_state $(cat id.e))" = R &&
    test "$(job_attr $v preemption.count)" = 1 &&
    qstat -f -x $c | grep -E "checkpoint|cost" >after.c && diff before.c after.c &&
    stopped $(job_attr $v session_id) && ! grep -q "stale job $v" $CLUSTER/scheduler.log
'

test_expect_success 'its resources are still lent: no new job takes the express job'"'"'s core twice' '
    x=$(echo "sleep 1" | qsub) && sleep 2 && test "$(job_state $x)" = Q && echo $x >id.x
'

test_expect_success 'when the express job ends the suspended job resumes (preempted: automatic)' '
    v=$(cat id.v) && wait_state $(cat id.e) F 30 && wait_state $v R 10 &&
    ! stopped $(job_attr $v session_id) && test "$(job_state $(cat id.x))" = Q
'

test_expect_success 'a suspended job whose node dies is requeued' '
    v=$(cat id.v) && qsig -s suspend $v && test "$(job_state $v)" = S &&
    kill -9 $(cat $CLUSTER/worker1.pid) &&
    wait_until 20 eval "test \"\$(job_attr $v run_count)\" = 1 && test \"\$(job_state $v)\" = Q" &&
    db_query "SELECT type || \":\" || old_state || \">\" || new_state FROM events
              WHERE job_seq = $(seqno $v) ORDER BY id DESC LIMIT 1" | grep -qx "requeued:S>Q" &&
    qdel $(cat ids) $(cat id.x) 2>/dev/null; true
'

test_expect_success 'a report made while the scheduler is away is held by the worker and recorded' '
    hpcq-local start-worker $CLUSTER 1 >/dev/null 2>&1; true &&
    printf "#!/bin/bash\nwhile [ ! -e $PWD/go ]; do sleep 0.1; done\nhpcq-ckpt done --generation 7 --bytes 70\nsleep 2\n" >late.sh &&
    id=$(qsub -c s late.sh) && wait_state $id R 30 &&
    kill9_scheduler && touch go && sleep 1 &&
    grep -q "job $id: checkpoint 7 reported" $CLUSTER/worker1.log &&
    hpcq-local start-scheduler $CLUSTER &&
    wait_until 20 eval "test \"\$(db_query \"SELECT size FROM checkpoints WHERE job_seq = $(seqno $id)\")\" = 70" &&
    wait_state $id F 30 && test "$(job_attr $id checkpoint.generation)" = 7
'

test_expect_success 'no change of state was refused as illegal' '
    ! grep "illegal state change" $CLUSTER/scheduler.log
'

test_done
