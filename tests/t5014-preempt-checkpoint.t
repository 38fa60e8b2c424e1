#!/bin/bash
# Preemption by checkpoint, then requeue (C), requeue (R) and delete (D),
# per queue (preempt_order), and preempt_min_runtime.  With C an hpcq-md
# run is asked for a checkpoint, requeued once it reports it, restarts
# from it on another node, and ends bitwise identical to a run nobody
# interrupted.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --sched-config checkpoint_grace=20
qmgr -c "create queue express priority=200,enabled=true,started=true" &&
qmgr -c "create queue low priority=-10,enabled=true,started=true,preempt_order=C" || exit 1

MD=$HPCQ_BUILDDIR/apps/md/hpcq-md
RUN="$MD --cpu --cells 4x4x4 --steps 30000 --thermo 0 --restart-auto"

running_on() { db_query "SELECT count(*) FROM jobs WHERE state IN ('R', 'E')"; }
count_is() { test "$($1)" = "$2"; }
has_session() { test -n "$(job_attr $1 session_id)"; }
node_of() { job_attr $1 exec_host | cut -d/ -f1; }
# Some process of session $1 catches SIGUSR1 (bit 9 of SigCgt): hpcq-md
# has installed its handlers.
session_catches_usr1() {
    local sid=$1 f m line
    for f in /proc/[0-9]*/stat; do
        read -r line <"$f" 2>/dev/null || continue
        set -- ${line##*) }
        [ "$4" = "$sid" ] || continue
        m=$(awk "/^SigCgt:/ {print \$2}" "${f%/stat}/status" 2>/dev/null) || continue
        [ -n "$m" ] && (( (16#$m >> 9) & 1 )) && return 0
    done
    return 1
}
# An express job starts within LIMIT seconds (a sanitized build is slower).
LIMIT=2
built_with_asan && LIMIT=10
requeued() { test "$(db_query "SELECT count(*) FROM events WHERE job_seq = $(seqno $1)
                               AND type = 'requeued'")" -ge 1; }

test_expect_success 'the run nobody interrupts' '
    OMP_NUM_THREADS=1 $RUN --checkpoint-dir ref.ck --dump-state $PWD/ref.state >ref.out 2>&1 &&
    test -s ref.state
'

test_expect_success 'an hpcq-md run in a low queue (C) and three jobs fill the cluster' '
    md=$(echo "$RUN --dump-state $PWD/md.state" | qsub $(app_vars) -q low -c s -l select=1:ncpus=1) &&
    echo $md >id.md && wait_state $md R && wait_until 30 has_session $md &&
    wait_until 60 session_catches_usr1 $(job_attr $md session_id) &&
    n1=$(node_of $md) && echo $n1 >node.md &&
    other=$(test $n1 = node1 && echo node2 || echo node1) &&
    echo "sleep 300" | qsub -l select=1:ncpus=1:host=$n1 >ids &&
    echo "sleep 300" | qsub -l select=1:ncpus=2:host=$other >>ids &&
    wait_until 30 count_is running_on 3 && sleep 2
'

test_expect_success 'an express job preempts it by C and starts within 2 s' '
    t0=$(date +%s.%N) && e=$(echo "sleep 2" | qsub -q express) && echo $e >id.e &&
    wait_state $e R 20 && took=$(echo "$(date +%s.%N) - $t0" | bc) &&
    echo "express started after $took s" && test "$(echo "$took < $LIMIT" | bc)" = 1 &&
    md=$(cat id.md) && test "$(job_state $md)" = Q &&
    test "$(job_attr $md preemption.count)" = 1 &&
    job_attr $md preemption.last_reason | grep -q "checkpoint, then requeue"
'

test_expect_success 'its history: checkpoint asked, reported, requeued from that generation' '
    md=$(cat id.md) &&
    db_query "SELECT type || \":\" || coalesce (detail, \"\") FROM events
              WHERE job_seq = $(seqno $md) AND id > (SELECT max (id) FROM events
              WHERE job_seq = $(seqno $md) AND type = \"started\") ORDER BY id" >h && cat h &&
    sed -n 1p h | grep -q "^checkpoint_requested:preempted by $(cat id.e)" &&
    sed -n 2p h | grep -q "^checkpoint:generation 1, .*preempted by" &&
    sed -n 3p h | grep -q "^requeued:preempted (C): checkpoint reported; restarts from checkpoint generation 1" &&
    test "$(db_query "SELECT method FROM preemptions WHERE job_seq = $(seqno $md)")" = C
'

test_expect_success 'it restarts from its checkpoint on the other node, and ends bitwise identical' '
    md=$(cat id.md) && qdel $(sed -n 2p ids) &&
    wait_until 30 eval "test \"\$(job_attr $md run_count)\" = 2" &&
    test "$(node_of $md)" != "$(cat node.md)" &&
    wait_state $md F 600 && test "$(job_attr $md Exit_status)" = 0 &&
    cat STDIN.[oe]$(seqno $md) | grep "restarting from step" &&
    cmp ref.state md.state && echo "final states identical: $(wc -c <md.state) bytes"
'

test_expect_success 'R: a job of a queue with preempt_order=R is requeued at once' '
    qmgr -c "set queue low preempt_order=R" &&
    r=$(echo "sleep 60" | qsub -q low -l select=1:ncpus=1:host=$(cat node.md)) && wait_state $r R &&
    other=$(test $(cat node.md) = node1 && echo node2 || echo node1) &&
    f=$(echo "sleep 300" | qsub -l select=1:ncpus=2:host=$other) && wait_state $f R &&
    e=$(echo "sleep 1" | qsub -q express) && wait_state $e R 10 &&
    test "$(job_state $r)" = Q && test "$(job_attr $r run_count)" = 1 &&
    job_attr $r comment | grep -q "Requeued: preempted by $e (queue express): requeued" &&
    wait_state $e F 20 && wait_state $r R 20 && test "$(job_attr $r run_count)" = 2 &&
    qdel $r $f && wait_state $r F && wait_state $f F
'

test_expect_success 'D: with preempt_order=D the victim is deleted' '
    qmgr -c "set queue low preempt_order=D" &&
    d=$(echo "sleep 60" | qsub -q low -l select=1:ncpus=1:host=$(cat node.md)) && wait_state $d R &&
    other=$(test $(cat node.md) = node1 && echo node2 || echo node1) &&
    f=$(echo "sleep 300" | qsub -l select=1:ncpus=2:host=$other) && wait_state $f R &&
    e=$(echo "sleep 1" | qsub -q express) && wait_state $d F 20 && wait_state $e R 20 &&
    job_attr $d comment | grep -q "preempted by $e (queue express): deleted" &&
    test "$(db_query "SELECT method FROM preemptions WHERE job_seq = $(seqno $d)")" = D &&
    wait_state $e F 20 && qdel $f && wait_state $f F
'

test_expect_success 'C on a job that never reports: requeued when checkpoint_grace is over' '
    qmgr -c "set queue low preempt_order=C" &&
    printf "#!/bin/bash\ntrap \"\" USR1\nsleep 120\n" >deaf.sh &&
    c=$(qsub -q low -c s -l select=1:ncpus=1:host=$(cat node.md) deaf.sh) && wait_state $c R &&
    wait_until 30 has_session $c &&
    e=$(echo "sleep 1" | qsub -q express -l select=1:ncpus=1:host=$(cat node.md)) &&
    sleep 3 && test "$(job_state $c)" = R && test "$(job_state $e)" = Q &&
    wait_until 30 requeued $c && wait_state $e R 10 &&
    db_query "SELECT detail FROM events WHERE job_seq = $(seqno $c) AND type = \"requeued\"" |
        grep -q "preempted (C): no checkpoint reported in time" &&
    qdel $c $(sed -n 1p ids) && wait_state $c F
'

test_expect_success 'preempt_min_runtime: a job younger than it is left alone' '
    hpcq-local stop $CLUSTER >/dev/null 2>&1; true &&
    echo "preempt_min_runtime = 6" >>$CLUSTER/scheduler.conf &&
    hpcq-local start-scheduler $CLUSTER && hpcq-local start-worker $CLUSTER 1 &&
    hpcq-local start-worker $CLUSTER 2 &&
    a=$(echo "sleep 60" | qsub -l select=1:ncpus=2:host=node1) &&
    b=$(echo "sleep 60" | qsub -l select=1:ncpus=2:host=node2) &&
    wait_state $a R && wait_state $b R && t0=$(date +%s) &&
    e=$(echo "sleep 1" | qsub -q express) && sleep 3 && test "$(job_state $e)" = Q &&
    wait_state $e R 20 && t1=$(date +%s) && echo "started after $((t1 - t0)) s" &&
    test $((t1 - t0)) -ge 5 && qdel $a $b
'

test_expect_success 'no change of state was refused as illegal' '
    ! grep "illegal state change" $CLUSTER/scheduler.log
'

test_done
