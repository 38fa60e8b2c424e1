#!/bin/bash
# Job priority: queue priority, qsub -p and fair-share order the waiting
# jobs, qstat -f shows the factors; operator and system holds.
. "$(dirname "$0")/lib.sh"

# One cpu: jobs start one at a time, in priority order.  daemon is an
# operator (not a manager).
cluster_start 1 --cpus-per-worker 1 --policy fifo --sched-config operators=daemon \
    --sched-config fairshare_halflife=1:00:00

other_users_setup qstat -Q

# A job that holds the only cpu until deleted.
block() { blk=$(echo "sleep 60" | qsub -N blocker) && wait_state $blk R; }

factor_sum_ok() {
    qstat -f -1 "$1" | awk -F" = " '
        /sched_priority.total/ { t = $2 } /sched_priority.queue/ { s += $2 }
        /sched_priority.job/ { s += $2 } /sched_priority.age/ { s += $2 }
        /sched_priority.fairshare/ { s += $2 }
        END { d = t - s; exit !(t != "" && d >= -2 && d <= 2) }'
}

test_expect_success 'a job in a queue of higher priority starts first' '
    qmgr -c "create queue hi priority=10,enabled=true,started=true" && block &&
    a=$(echo "sleep 3" | qsub -N low) && b=$(echo "sleep 3" | qsub -q hi -N high) &&
    test "$(job_attr $b sched_priority.queue)" = 10000 &&
    test "$(job_attr $a sched_priority.queue)" = 0 &&
    qdel $blk && wait_state $b R && has_state $a Q && wait_state $a F 60
'

test_expect_success 'within a queue, qsub -p orders' '
    block && c=$(echo true | qsub -p 0) && d=$(echo true | qsub -p 100) &&
    test "$(job_attr $d sched_priority.job)" = 100 &&
    qdel $blk && wait_state $c F && wait_state $d F &&
    test "$(job_attr $d stime)" != "" &&
    test $(db_query "SELECT start_time FROM attempts WHERE job_seq = $(seqno $d)") -le \
         $(db_query "SELECT start_time FROM attempts WHERE job_seq = $(seqno $c)") &&
    test $(db_query "SELECT id FROM events WHERE job_seq = $(seqno $d) AND type = '"'"'started'"'"'") -lt \
         $(db_query "SELECT id FROM events WHERE job_seq = $(seqno $c) AND type = '"'"'started'"'"'")
'

test_expect_success 'qstat -f shows the factors, which add up to the priority' '
    block && e=$(echo true | qsub -q hi -p 5) &&
    qstat -f $e > f && grep -q "^    sched_priority.total = " f &&
    grep -qx "    sched_priority.queue = 10000" f && grep -qx "    sched_priority.job = 5" f &&
    grep -q "^    sched_priority.age = " f && grep -q "^    sched_priority.fairshare = " f &&
    grep -q "^    fairshare.usage = " f && grep -q "^    fairshare.factor = " f &&
    factor_sum_ok $e && qdel $e $blk
'

test_expect_success 'finished jobs charge their owner, durably' '
    u=$(db_query "SELECT usage FROM fairshare WHERE user = '"'"'$(id -un)'"'"'") &&
    awk -v u="$u" "BEGIN { exit !(u > 1) }"
'

if [ -n "$other_users" ]; then
    test_expect_success 'fair-share: the light user goes before the heavy one' '
        block && r=$(echo true | qsub -N heavy) &&
        n=$(echo true | as_user nobody qsub -N light) &&
        test "$(job_attr $n fairshare.factor)" = 1.0000 &&
        test "$(job_attr $r fairshare.factor)" = 0.2500 &&
        test "$(job_attr $n sched_priority.fairshare)" = 1000 &&
        test "$(job_attr $r sched_priority.fairshare)" = 250 &&
        qdel $blk && wait_state $n F && wait_state $r F &&
        test $(db_query "SELECT id FROM events WHERE job_seq = $(seqno $n) AND type = '"'"'started'"'"'") -lt \
             $(db_query "SELECT id FROM events WHERE job_seq = $(seqno $r) AND type = '"'"'started'"'"'")
    '
else
    test_skip 'fair-share: the light user goes before the heavy one' 'cannot run as nobody here'
fi

test_expect_success 'usage survives a restart' '
    before=$(db_query "SELECT usage FROM fairshare WHERE user = '"'"'$(id -un)'"'"'") &&
    pid=$(cat $CLUSTER/scheduler.pid) && kill -9 $pid &&
    wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" && hpcq-local start-scheduler $CLUSTER &&
    wait_until 20 sh -c "test \$(grep -c \"node node1 up\" $CLUSTER/scheduler.log) -ge 2" &&
    block && g=$(echo true | qsub) &&
    awk -v u="$(job_attr $g fairshare.usage)" -v b="$before" "BEGIN { exit !(u > 0 && u <= b + 1) }" &&
    qdel $g $blk
'

test_expect_success 'hold types: u, o, s and combinations; qrls lifts only what it names' '
    id=$(echo true | qsub -h) && test "$(job_attr $id Hold_Types)" = u &&
    qhold -h o $id && test "$(job_attr $id Hold_Types)" = uo &&
    qrls $id && test "$(job_attr $id Hold_Types)" = o && has_state $id H &&
    qhold -h s $id && test "$(job_attr $id Hold_Types)" = os &&
    qrls -h o $id && test "$(job_attr $id Hold_Types)" = s && has_state $id H &&
    qrls -h s $id && wait_state $id F &&
    id2=$(echo true | qsub -h) && qhold -h uos $id2 && test "$(job_attr $id2 Hold_Types)" = uos &&
    qrls -h uos $id2 && wait_state $id2 F
'

test_expect_success 'an operator hold outlives the dependency it waits with' '
    a=$(echo true | qsub -h) && b=$(echo true | qsub -W depend=afterok:$a) &&
    test "$(job_attr $b Hold_Types)" = s && qhold -h o $b &&
    test "$(job_attr $b Hold_Types)" = os &&
    qrls $a && wait_state $a F && wait_until 20 sh -c "test \"\$(qstat -f -1 -x $b | sed -n \"s/^    Hold_Types = //p\")\" = o" &&
    has_state $b H && qrls -h o $b && wait_state $b F
'

test_expect_success 'bad -h values: one line, exit 2' '
    id=$(echo true | qsub -h) &&
    { qhold -h x $id 2> h1; test $? = 2; } && test $(wc -l < h1) = 1 &&
    grep -qx "qhold: illegal -h value '"'"'x'"'"' (u, o, s or a combination)" h1 &&
    { qrls -h "" $id 2> h2; test $? = 2; } && test $(wc -l < h2) = 1 &&
    test "$(job_attr $id Hold_Types)" = u && qdel $id
'

if [ -n "$other_users" ]; then
    test_expect_success 'users place user holds only; operators operator holds; managers all' '
        n=$(echo true | as_user nobody qsub -h) &&
        as_user nobody qhold -h u $n &&
        { as_user nobody qhold -h o $n 2> p1; test $? = 159; } &&
        grep -qx "qhold: Unauthorized Request  $n" p1 &&
        qhold -h o $n && ! as_user nobody qrls -h o $n 2> p2 && grep -q "Unauthorized Request" p2 &&
        test "$(job_attr $n Hold_Types)" = uo &&
        as_user nobody qrls $n && test "$(job_attr $n Hold_Types)" = o && has_state $n H &&
        ! as_user daemon qhold -h s $n 2> p3 && grep -q "Unauthorized Request" p3 &&
        as_user daemon qrls -h o $n && wait_state $n F &&
        r=$(echo true | qsub -h) && ! as_user nobody qhold $r 2> p4 &&
        grep -q "Unauthorized Request" p4 && qdel $r
    '
else
    test_skip 'users place user holds only; operators operator holds; managers all' 'cannot run as nobody here'
fi

test_expect_success 'bad priority settings stop the scheduler with a clear message' '
    for kv in "fairshare_halflife = soon" "priority_weight_job = -1" "managers"; do
        mkdir -p "$TEST_ROOT/bad" &&
        printf "state_dir = %s\nsocket = %s/s.sock\nlisten = 127.0.0.1:0\n%s\n" \
            "$TEST_ROOT/bad" "$TEST_ROOT/bad" "$kv" > bad.conf &&
        ! hpcq-scheduler --config bad.conf --log-file "$TEST_ROOT/bad/log" 2> s1 &&
        test $(wc -l < s1) = 1 || exit 1
        case $kv in
        fairshare*) grep -q "fairshare_halflife: invalid duration '"'"'soon'"'"'" s1 ;;
        priority*) grep -q "priority_weight_job: invalid value '"'"'-1'"'"'" s1 ;;
        *) grep -q "expected '"'"'key = value'"'"'" s1 ;;
        esac || exit 1
    done
'

test_done
