#!/bin/bash
# A job's life in its events: each change of state is an event that says
# from which state to which, and who or what caused it (a user, the
# scheduler, a node).  Every job's events form an unbroken chain that ends
# in the state the jobs table holds, and no change was refused as illegal.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 1 --node-timeout 2

me=$(id -un)

# "event:from>to:actor" for each event of a job, in order, one line.
history() {
    db_query "SELECT type || ':' || coalesce(old_state, '-') || '>' ||
                     coalesce(new_state, '-') || ':' || actor
              FROM events WHERE job_seq = $(seqno $1) ORDER BY id" | tr '\n' ' '
}
node_of() { job_attr "$1" exec_host | sed 's,/.*,,'; }
has_session() { test -n "$(job_attr "$1" session_id)"; }
run_count_is() { test "$(job_attr "$1" run_count)" = "$2" && has_state "$1" R; }

test_expect_success 'held, released by its owner, run and finished on a node (named at start), with its exit status' '
    id=$(echo true | qsub -h) && test "$(job_state $id)" = H &&
    qrls $id && wait_state $id F &&
    node=$(node_of $id) && test -n "$node" &&
    h=$(history $id) && echo "$h" &&
    test "$h" = "submitted:->H:$me released:H>Q:$me started:Q>R:scheduler finished:R>F:$node " &&
    test "$(db_query "SELECT detail FROM events WHERE job_seq = $(seqno $id) AND type = \"started\"")" = "$node/0*1" &&
    test "$(db_query "SELECT detail FROM events WHERE job_seq = $(seqno $id) AND type = \"finished\"")" = Exit_status=0
'

test_expect_success 'a dependency holds it; the scheduler releases it when met' '
    a=$(echo "sleep 1" | qsub) &&
    b=$(echo true | qsub -W depend=afterok:$a) &&
    wait_state $b F 30 &&
    h=$(history $b) && echo "$h" &&
    case "$h" in "submitted:->H:$me released:H>Q:scheduler started:Q>R:scheduler finished:R>F:node"*) ;; *) false ;; esac &&
    test "$(db_query "SELECT detail FROM events WHERE job_seq = $(seqno $b) AND type = \"released\"")" = "dependencies satisfied"
'

test_expect_success 'qalter is an event without a change of state' '
    c=$(echo true | qsub -h) && qalter -N renamed $c &&
    qdel $c && h=$(history $c) && echo "$h" &&
    test "$h" = "submitted:->H:$me altered:H>H:$me deleted:H>F:$me "
'

test_expect_success 'qdel of a running job: deleted by its owner, finished by its node' '
    d=$(echo "sleep 60" | qsub) && wait_state $d R && wait_until 30 has_session $d &&
    qdel $d && wait_state $d F 30 &&
    dn=$(db_query "SELECT node FROM attempts WHERE job_seq = $(seqno $d)") &&
    h=$(history $d) && echo "$h" &&
    test "$h" = "submitted:->Q:$me started:Q>R:scheduler deleted:R>E:$me finished:E>F:$dn "
'

test_expect_success 'kill -9 of its worker: requeued by the scheduler, with the reason, then run again' '
    r=$(echo "sleep 3" | qsub) && wait_state $r R && wait_until 30 has_session $r &&
    first=$(node_of $r) && kill -9 $(cat $CLUSTER/worker${first#node}.pid) &&
    wait_until 30 run_count_is $r 2 && wait_state $r F 30 &&
    second=$(db_query "SELECT node FROM attempts WHERE job_seq = $(seqno $r) AND attempt = 2") &&
    h=$(history $r) && echo "$h" &&
    test "$h" = "submitted:->Q:$me started:Q>R:scheduler requeued:R>Q:scheduler started:Q>R:scheduler finished:R>F:$second " &&
    db_query "SELECT detail FROM events WHERE job_seq = $(seqno $r) AND type = \"requeued\"" |
        grep -q "node $first stopped sending heartbeats"
'

test_expect_success 'every job: its events chain unbroken from submission to its present state' '
    db_query "SELECT seq, state FROM jobs" &&
    test "$(db_query "
        WITH e AS (SELECT job_seq, old_state, new_state,
                          lag (new_state) OVER (PARTITION BY job_seq ORDER BY id) AS before,
                          row_number () OVER (PARTITION BY job_seq ORDER BY id DESC) AS back
                   FROM events WHERE new_state IS NOT NULL)
        SELECT count(*) FROM e JOIN jobs ON jobs.seq = e.job_seq
        WHERE (before IS NULL AND old_state IS NOT NULL)
           OR (before IS NOT NULL AND old_state IS NOT before)
           OR (back = 1 AND new_state IS NOT jobs.state)")" = 0 &&
    test "$(db_query "SELECT count(*) FROM events WHERE job_seq IS NOT NULL AND new_state IS NULL")" = 0
'

test_expect_success 'no change of state was refused as illegal' '
    ! grep "illegal state change" $CLUSTER/scheduler.log
'

test_done
