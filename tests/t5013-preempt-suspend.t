#!/bin/bash
# Preemption by suspension (PBS Pro's S, the default preempt_order SCR):
# an express job on a full cluster starts within 2 s; its victim is
# stopped (no CPU used while suspended, measured in /proc) with its
# resources released, and resumes when they are free again.  The fewest
# victims are taken; preempt_targets=NONE preempts nothing; qsig -s
# suspend / resume does the same by hand (and stays suspended until
# resumed).
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2
qmgr -c "create queue express priority=200,enabled=true,started=true" || exit 1

BURN='while :; do :; done'

# The CPU ticks (user + system) of the processes of session $1.
session_ticks() {
    local t=0 f
    for f in /proc/[0-9]*/stat; do
        read -r line <"$f" 2>/dev/null || continue
        set -- ${line##*) }
        # fields after the name: 3 state ... 6 session ... 14 utime 15 stime
        [ "${4}" = "$SID" ] && t=$((t + ${12} + ${13}))
    done
    echo $t
}
# The state letters of the processes of session $SID ("T" = stopped).
session_states() {
    local f
    for f in /proc/[0-9]*/stat; do
        read -r line <"$f" 2>/dev/null || continue
        set -- ${line##*) }
        [ "${4}" = "$SID" ] && printf %s "$1"
    done
}
running() { db_query "SELECT count(*) FROM jobs WHERE state = 'R' AND queue = 'workq'"; }
nsuspended() { db_query "SELECT count(*) FROM jobs WHERE state = 'S'"; }
has_session() { test -n "$(job_attr $1 session_id)"; }
# count_is FN N: the function FN prints N (for wait_until).
count_is() { test "$($1)" = "$2"; }
# An express job starts within LIMIT seconds (a sanitized build is slower).
LIMIT=2
built_with_asan && LIMIT=10

test_expect_success 'a full cluster: four CPU-bound jobs on four cores' '
    for i in 1 2 3 4; do echo "$BURN" | qsub -N burn$i >>ids || return 1; done &&
    wait_until 30 count_is running 4 &&
    for id in $(cat ids); do wait_until 30 has_session $id || return 1; done
'

test_expect_success 'an express job starts within 2 s, by suspending one job' '
    t0=$(date +%s.%N) && e=$(echo "sleep 8" | qsub -q express) && echo $e >id.e &&
    wait_state $e R 10 && t1=$(date +%s.%N) &&
    took=$(echo "$t1 - $t0" | bc) && echo "express started after $took s" &&
    test "$(echo "$took < $LIMIT" | bc)" = 1 &&
    test "$(nsuspended)" = 1 && test "$(running)" = 3
'

test_expect_success 'the victim is stopped: state T, and no CPU time while suspended' '
    v=$(db_query "SELECT seq FROM jobs WHERE state = \"S\"") && echo $v >id.v &&
    SID=$(job_attr $v session_id) && export SID &&
    wait_until 10 eval "session_states | grep -qv \"[^T]\"" &&
    a=$(session_ticks) && sleep 2 && b=$(session_ticks) &&
    echo "suspended: $a -> $b ticks ($(session_states))" && test $((b - a)) -le 1
'

test_expect_success 'its resources were released: the express job runs on its node' '
    v=$(cat id.v) && e=$(cat id.e) &&
    vnode=$(job_attr $v exec_host | cut -d/ -f1) && enode=$(job_attr $e exec_host | cut -d/ -f1) &&
    test "$vnode" = "$enode" &&
    job_attr $v comment | grep -q "Suspended: preempted by $e (queue express): suspended" &&
    test "$(job_attr $v preemption.count)" = 1 &&
    job_attr $v preemption.last_reason | grep -q "preempted by $e"
'

test_expect_success 'when the express job ends the victim resumes and uses CPU again' '
    v=$(cat id.v) && wait_state $(cat id.e) F 20 && wait_state $v R 10 &&
    SID=$(job_attr $v session_id) && export SID &&
    a=$(session_ticks) && sleep 2 && b=$(session_ticks) &&
    echo "resumed: $a -> $b ticks" && test $((b - a)) -ge 5
'

test_expect_success 'its history: started, suspended and resumed by the scheduler' '
    v=$(cat id.v) &&
    db_query "SELECT type || \":\" || old_state || \">\" || new_state || \":\" || actor
              FROM events WHERE job_seq = $v ORDER BY id" | tr "\n" " " >h && cat h &&
    grep -q "started:Q>R:scheduler suspended:R>S:scheduler resumed:S>R:scheduler" h &&
    test "$(db_query "SELECT method FROM preemptions WHERE job_seq = $v")" = S
'

test_expect_success 'a two-core express job takes one node: two victims, not more' '
    e=$(echo "sleep 2" | qsub -q express -l select=1:ncpus=2) && wait_state $e R 10 &&
    test "$(nsuspended)" = 2 && test "$(running)" = 2 &&
    enode=$(job_attr $e exec_host | cut -d/ -f1) &&
    for s in $(db_query "SELECT seq FROM jobs WHERE state = \"S\""); do
        test "$(job_attr $s exec_host | cut -d/ -f1)" = "$enode" || return 1
    done &&
    wait_state $e F 20 && wait_until 10 count_is nsuspended 0
'

test_expect_success 'the fewest victims: one two-core job rather than two one-core ones' '
    qdel $(cat ids) && wait_until 20 count_is running 0 &&
    a=$(echo "$BURN" | qsub -l select=host=node1) && b=$(echo "$BURN" | qsub -l select=host=node1) &&
    wait_state $a R && wait_state $b R &&
    c=$(echo "$BURN" | qsub -l select=1:ncpus=2:host=node2) && wait_state $c R &&
    e=$(echo "sleep 2" | qsub -q express -l select=1:ncpus=2) && wait_state $e R 10 &&
    test "$(job_state $c)" = S && test "$(job_state $a)" = R && test "$(job_state $b)" = R &&
    wait_state $e F 20 && wait_state $c R 10 && echo "$a $b $c" >ids
'

test_expect_success 'preempt_targets=NONE: the express job waits' '
    qmgr -c "set queue express preempt_targets=NONE" &&
    e=$(echo "sleep 1" | qsub -q express -l select=1:ncpus=2) && sleep 3 &&
    test "$(job_state $e)" = Q && test "$(nsuspended)" = 0 &&
    qmgr -c "set queue express preempt_targets=queue=workq" && wait_state $e R 10 &&
    wait_state $e F 20 && wait_until 10 count_is nsuspended 0
'

test_expect_success 'qsig -s suspend stops a job until qsig -s resume' '
    a=$(cut -d" " -f1 ids) && qsig -s suspend $a && test "$(job_state $a)" = S &&
    SID=$(job_attr $a session_id) && export SID &&
    wait_until 10 eval "session_states | grep -qv \"[^T]\"" && sleep 2 &&
    test "$(job_state $a)" = S &&
    db_query "SELECT actor || \":\" || detail FROM events WHERE job_seq = $(seqno $a)
              AND type = \"suspended\"" | grep -q "^$(id -un):qsig -s suspend by" &&
    qsig -s resume $a && test "$(job_state $a)" = R &&
    ! qsig -s resume $a 2>err && grep -q "Request invalid for state of job" err
'

test_expect_success 'qdel of a suspended job ends it' '
    a=$(cut -d" " -f1 ids) && qsig -s suspend $a && qdel $a && wait_state $a F 20 &&
    qdel $(cut -d" " -f2- ids) && wait_until 20 count_is running 0
'

test_expect_success 'no change of state was refused as illegal' '
    ! grep "illegal state change" $CLUSTER/scheduler.log
'

test_done
