#!/bin/bash
# Queues administered with qmgr: attributes, what they admit (enabled,
# resources_max, resources_default), what of them runs (started, max_run,
# max_run_user, node_labels), who may change them, and bad input.
. "$(dirname "$0")/lib.sh"

# node1 is a spot node, node2 is not.  daemon is a manager, nobody is not.
cluster_start 2 --cpus-per-worker 2 --policy fifo --labels 1=spot,ib --labels 2=ondemand \
    --sched-config managers=daemon

# Other users reach the socket through the test's folders.
other_users_setup qstat -Q

njobs() { db_query "SELECT count(*) FROM jobs"; }

test_expect_success 'qmgr creates a queue: execution, neither enabled nor started (as PBS)' '
    qmgr -c "create queue gpu queue_type=execution" &&
    qstat -Q gpu | grep -E "^gpu +0 +0 no +no " &&
    qmgr -c "list queue gpu" > l1 && grep -qx "Queue gpu" l1 &&
    grep -qx "    queue_type = Execution" l1 && grep -qx "    enabled = False" l1 &&
    test "$(db_query "SELECT queue_type, enabled, started FROM queues WHERE name = '"'"'gpu'"'"'")" = "execution|0|0"
'

test_expect_success 'set changes attributes, abbreviations and quoted lists included' '
    qmgr -c "set queue gpu priority=100, resources_max.walltime = 24:00:00" &&
    qmgr -c "s q gpu resources_default.walltime=1:00:00,resources_max.ncpus=2" &&
    qmgr -c "s q gpu resources_max.mem=1gb,max_run_user=2,max_run=3" &&
    qmgr -c "s q gpu node_labels=\"spot,ib\"" &&
    qmgr -c "s q gpu enabled=true,started=True" &&
    qmgr -c "l q gpu" > l2 &&
    grep -qx "    Priority = 100" l2 && grep -qx "    resources_max.walltime = 24:00:00" l2 &&
    grep -qx "    resources_default.walltime = 01:00:00" l2 &&
    grep -qx "    resources_max.ncpus = 2" l2 && grep -qx "    resources_max.mem = 1gb" l2 &&
    grep -qx "    max_run_user = 2" l2 && grep -qx "    max_run = 3" l2 &&
    grep -qx "    node_labels = spot,ib" l2 && grep -qx "    started = True" l2 &&
    qstat -Qf gpu | grep -qx "    max_run_user = 2" &&
    qstat -Q gpu | grep -E "^gpu +3 +0 yes yes " &&
    test "$(db_query "SELECT priority, resources_max, max_run_user, node_labels FROM queues WHERE name = '"'"'gpu'"'"'")" = "100|walltime=24:00:00,mem=1gb,ncpus=2|2|spot,ib"
'

test_expect_success 'unset removes an attribute' '
    qmgr -c "unset queue gpu max_run,resources_max.mem" &&
    qmgr -c "l q gpu" > l3 && ! grep -q "max_run =" l3 && ! grep -q "resources_max.mem" l3 &&
    grep -qx "    max_run_user = 2" l3
'

test_expect_success 'print emits create/set lines that qmgr reads back' '
    qmgr -c "c q scratch" && qmgr -c "s q scratch priority=-3,node_labels=\"a,b\",enabled=t" &&
    qmgr -c "p q scratch" > saved && grep -qx "create queue scratch" saved &&
    grep -qx "set queue scratch node_labels = \"a,b\"" saved &&
    qmgr -c "d q scratch" && ! qmgr -c "l q scratch" 2>/dev/null &&
    qmgr < saved && qmgr -c "p q scratch" > again && cmp saved again &&
    qmgr -c "p s" > all && grep -qx "create queue gpu" all && grep -qx "create queue workq" all &&
    qmgr -c "delete queue scratch"
'

test_expect_success 'submit: unknown queue, disabled queue, limits: one line each, nothing stored' '
    qmgr -c "c q off" && before=$(njobs) &&
    ! echo true | qsub -q nosuch 2> e1 && test $(wc -l < e1) = 1 && grep -q "Unknown queue" e1 &&
    ! echo true | qsub -q off 2> e2 && test $(wc -l < e2) = 1 && grep -q "not enabled" e2 &&
    ! echo true | qsub -q gpu -l walltime=48:00:00 2> e3 && test $(wc -l < e3) = 1 &&
    grep -q "^qsub: Job exceeds queue resource limits: walltime=48:00:00 > resources_max.walltime=24:00:00" e3 &&
    ! echo true | qsub -q gpu -l select=2:ncpus=2 2> e4 && grep -q "exceeds queue resource limits: ncpus=4" e4 &&
    test "$(njobs)" = "$before" && qmgr -c "d q off"
'

test_expect_success 'resources_default fills what a job did not ask for' '
    a=$(echo true | qsub -h -q gpu) && b=$(echo true | qsub -h -q gpu -l walltime=2:00) &&
    test "$(job_attr $a Resource_List.walltime)" = 01:00:00 &&
    test "$(job_attr $b Resource_List.walltime)" = 00:02:00 &&
    qmgr -c "unset queue gpu resources_default.walltime" &&
    c=$(echo true | qsub -h -q gpu) &&
    test "$(job_attr $c Resource_List.walltime)" = 24:00:00 &&
    qdel $a $b $c
'

test_expect_success 'qalter and qmove are held to the destination queue' '
    id=$(echo true | qsub -h -l walltime=30:00:00) &&
    ! qmove gpu $id 2> e5 && test $(wc -l < e5) = 1 && grep -q "exceeds queue resource limits" e5 &&
    test "$(job_attr $id queue)" = workq &&
    qalter -l walltime=2:00:00 $id && qmove gpu $id && test "$(job_attr $id queue)" = gpu &&
    ! qalter -l walltime=25:00:00 $id 2> e6 && grep -q "exceeds queue resource limits" e6 &&
    test "$(job_attr $id Resource_List.walltime)" = 02:00:00 && qdel $id
'

test_expect_success 'node_labels: a queue uses only the nodes that carry its labels' '
    ids="" && for i in 1 2 3; do ids="$ids $(echo "sleep 30" | qsub -q gpu -l walltime=1:00)"; done &&
    set -- $ids && wait_state $1 R && wait_state $2 R &&
    test "$(job_attr $1 exec_host)" = node1/0*1 && test "$(job_attr $2 exec_host)" = node1/0*1 &&
    has_state $3 Q && qdel $ids
'

test_expect_success 'node_labels: a job no labelled node can hold is refused at submit' '
    qmgr -c "c q tiny" && qmgr -c "s q tiny enabled=true,started=true,node_labels=ondemand" &&
    before=$(db_query "SELECT count(*) FROM jobs") &&
    ! echo true | qsub -q tiny -l select=2:ncpus=2 2> lab.err && test $(wc -l < lab.err) = 1 &&
    grep -q "no node with the queue.s node_labels=ondemand can satisfy select=2:ncpus=2" lab.err &&
    test "$(db_query "SELECT count(*) FROM jobs")" = "$before" &&
    id=$(echo true | qsub -q tiny -l select=1:ncpus=2) && wait_state $id F &&
    test "$(job_attr $id exec_host)" = node2/0*2 &&
    qmgr -c "s q tiny node_labels=nosuch" &&
    ! echo true | qsub -q tiny 2> lab2.err && grep -q "node_labels=nosuch" lab2.err
'

test_expect_success 'max_run_user: a user runs at most that many jobs of the queue' '
    qmgr -c "unset queue gpu node_labels" && qmgr -c "set queue gpu max_run_user=1" &&
    a=$(echo "sleep 30" | qsub -q gpu -l walltime=1:00) && b=$(echo "sleep 30" | qsub -q gpu -l walltime=1:00) &&
    wait_state $a R && sleep 2 && has_state $b Q &&
    test "$(job_attr $b comment)" = "Not Running: User has reached queue gpu running job limit." &&
    w=$(echo "sleep 30" | qsub -l walltime=1:00) && wait_state $w R &&
    qdel $a && wait_state $b R && qdel $b $w
'

test_expect_success 'max_run caps the queue for all users' '
    qmgr -c "unset queue gpu max_run_user" && qmgr -c "set queue gpu max_run=2" &&
    ids="" && for i in 1 2 3; do ids="$ids $(echo "sleep 30" | qsub -q gpu -l walltime=1:00)"; done &&
    set -- $ids && wait_state $1 R && wait_state $2 R && sleep 2 && has_state $3 Q &&
    qdel $ids && qmgr -c "unset queue gpu max_run"
'

test_expect_success 'started=false: jobs queue but do not start until started' '
    qmgr -c "set queue gpu started=false" &&
    id=$(echo true | qsub -q gpu -l walltime=1:00) && sleep 2 && has_state $id Q &&
    test "$(job_attr $id comment)" = "Not Running: queue gpu is not started" &&
    qmgr -c "set queue gpu started=true" && wait_state $id F
'

test_expect_success 'enabled=false refuses new jobs and keeps the queued ones' '
    qmgr -c "set queue gpu started=false" && id=$(echo true | qsub -q gpu -l walltime=1:00) &&
    qmgr -c "set queue gpu enabled=false" &&
    ! echo true | qsub -q gpu 2> e7 && grep -q "not enabled" e7 && has_state $id Q &&
    qmgr -c "set queue gpu enabled=true,started=true" && wait_state $id F
'

test_expect_success 'bad qmgr input: one clear line, exit 1, nothing changed' '
    qmgr -c "p q gpu" > before &&
    ! qmgr -c "set queue gpu bogus=1" 2> b1 && test $(wc -l < b1) = 1 &&
    grep -qx "qmgr obj=gpu svr=default: Unknown attribute bogus" b1 &&
    ! qmgr -c "set queue gpu priority=5000" 2> b2 && grep -q "Illegal attribute or resource value" b2 &&
    ! qmgr -c "set queue gpu resources_max.walltime=abc" 2> b3 && test $(wc -l < b3) = 1 &&
    ! qmgr -c "set queue gpu resources_max.foo=1" 2> b4 && grep -q "Unknown resource foo" b4 &&
    ! qmgr -c "set queue gpu priority=1,enabled=maybe" 2> b5 && grep -q "enabled=maybe" b5 &&
    ! qmgr -c "set queue nosuch priority=1" 2> b6 && grep -qx "qmgr obj=nosuch svr=default: Unknown queue" b6 &&
    ! qmgr -c "create queue gpu" 2> b7 && grep -q "already exists" b7 &&
    ! qmgr -c "create queue 9bad" 2> b8 && grep -q "Illegal queue name" b8 &&
    ! qmgr -c "frobnicate queue gpu" 2> b9 && grep -q "Syntax error" b9 &&
    ! qmgr -c "set queue gpu priority" 2> b10 && grep -q "Syntax error" b10 &&
    ! qmgr -c "delete queue gpu" 2> b11 && grep -q "Cannot delete busy queue" b11 &&
    ! qmgr -c "delete queue workq" 2> b12 && grep -q "default queue" b12 &&
    ! qmgr -c "set server scheduling=true" 2> b13 && test $(wc -l < b13) = 1 &&
    qmgr -c "p q gpu" > after && cmp before after && qstat -Q gpu >/dev/null
'

test_expect_success 'queues survive a scheduler restart' '
    pid=$(cat $CLUSTER/scheduler.pid) && kill -9 $pid &&
    wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" &&
    hpcq-local start-scheduler $CLUSTER &&
    qmgr -c "p q gpu" > restarted && cmp after restarted
'

if [ -n "$other_users" ]; then
    test_expect_success 'a user who is not a manager may not change queues' '
        ! as_user nobody qmgr -c "set queue gpu priority=1" 2> u1 &&
        grep -qx "qmgr obj=gpu svr=default: Unauthorized Request" u1 &&
        ! as_user nobody qmgr -c "create queue mine" 2> u2 && grep -q "Unauthorized Request" u2 &&
        as_user nobody qmgr -c "list queue gpu" | grep -qx "    Priority = 100" &&
        test "$(db_query "SELECT count(*) FROM queues WHERE name = '"'"'mine'"'"'")" = 0
    '
    test_expect_success 'a user named in managers may' '
        as_user daemon qmgr -c "set queue gpu priority=7" &&
        qmgr -c "l q gpu" | grep -qx "    Priority = 7"
    '
else
    test_skip 'a user who is not a manager may not change queues' 'cannot run as nobody here'
    test_skip 'a user named in managers may' 'cannot run as another user here'
fi

test_expect_success 'an empty queue is deleted' '
    qmgr -c "create queue empty" && qmgr -c "delete queue empty" &&
    ! qstat -Q empty 2>/dev/null && test "$(db_query "SELECT count(*) FROM queues WHERE name = '"'"'empty'"'"'")" = 0
'

test_done
