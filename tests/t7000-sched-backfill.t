#!/bin/bash
# EASY backfill: the top waiting job gets a reservation from the running
# jobs' walltimes (shown as estimated.start_time); a later job starts early
# only if it cannot delay it.  With the fifo policy nothing passes.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --kill-delay 1

running() { has_state "$1" R || has_state "$1" F; }
submit() { local w=$1; shift; echo "sleep $w" | qsub "$@"; }

test_expect_success 'set-up: a long job holds node1, the top job needs both nodes' '
    a=$(submit 60 -N long -l select=1:ncpus=2 -l walltime=00:01:30) && wait_state $a R &&
    echo $a > a.id &&
    b=$(submit 1 -N top -l select=2:ncpus=2 -l walltime=00:00:20) && echo $b > b.id &&
    sleep 0.5 && test "$(job_state $b)" = Q
'
a=$(cat a.id); b=$(cat b.id)

test_expect_success 'the top job shows its reservation: when the long job ends' '
    est=$(job_attr $b estimated.start_time) && test -n "$est" &&
    stime=$(db_query "SELECT start_time FROM attempts WHERE job_seq = $(seqno $a)") &&
    test "$(date -d "$est" +%s)" -eq $((stime + 90))
'

test_expect_success 'a short job that ends before the reservation backfills now' '
    c=$(submit 1 -N short -l select=1:ncpus=1 -l walltime=00:00:10) &&
    wait_state $c F 30 && test "$(job_state $b)" = Q
'

test_expect_success 'a long job that would hold a node the top job needs waits' '
    d=$(submit 1 -N blocker -l select=1:ncpus=1 -l walltime=00:05:00) && echo $d > d.id &&
    e=$(submit 1 -N unbounded -l select=1:ncpus=1) && echo $e > e.id &&
    sleep 2 && test "$(job_state $d)" = Q && test "$(job_state $e)" = Q
'
d=$(cat d.id); e=$(cat e.id)

test_expect_success 'when the long job goes, the top job starts first, then the rest' '
    qdel $a && wait_state $b F 30 && wait_state $d F 30 && wait_state $e F 30 &&
    sb=$(db_query "SELECT start_time FROM attempts WHERE job_seq = $(seqno $b)") &&
    sd=$(db_query "SELECT start_time FROM attempts WHERE job_seq = $(seqno $d)") &&
    test "$sd" -ge "$sb"
'

cluster_stop >/dev/null; rm -rf "$CLUSTER"
cluster_start 3 --cpus-per-worker 2 --kill-delay 1

# node1: a job until +90 s; node2: one core taken for 10 minutes; node3 free.
# The top job needs two whole nodes: it will get node1 and node3 at +90 s.
test_expect_success 'a long job may use what the reservation leaves free, not more' '
    a=$(submit 60 -N long -l select=1:ncpus=2 -l walltime=00:01:30) && wait_state $a R &&
    x=$(submit 60 -N half -l select=1:ncpus=1 -l walltime=00:10:00) && wait_state $x R &&
    test "$(job_attr $x exec_host)" = "node2/0*1" &&
    b=$(submit 1 -N top -l select=2:ncpus=2 -l walltime=00:00:20) && sleep 0.5 &&
    test "$(job_state $b)" = Q && test -n "$(job_attr $b estimated.start_time)" &&
    c=$(submit 60 -N side -l select=1:ncpus=1 -l walltime=00:10:00) && wait_state $c R &&
    test "$(job_attr $c exec_host)" = "node2/0*1" &&
    d=$(submit 60 -N more -l select=1:ncpus=1 -l walltime=00:10:00) && sleep 1 &&
    test "$(job_state $d)" = Q && test "$(job_state $b)" = Q &&
    qdel $a $x $c && wait_state $b F 30 && qdel $d
'

cluster_stop >/dev/null; rm -rf "$CLUSTER"
cluster_start 2 --cpus-per-worker 2 --kill-delay 1 --policy fifo

test_expect_success 'fifo: nothing passes a waiting job' '
    a=$(submit 30 -l select=1:ncpus=2 -l walltime=00:01:00) && wait_state $a R &&
    b=$(submit 1 -l select=2:ncpus=2 -l walltime=00:00:20) &&
    c=$(submit 1 -l select=1:ncpus=1 -l walltime=00:00:05) &&
    sleep 2 && test "$(job_state $c)" = Q && test -z "$(job_attr $b estimated.start_time)" &&
    qdel $a && wait_state $c F 30
'

test_expect_success 'an unknown policy is refused at start' '
    printf "state_dir = %s\nlisten = 127.0.0.1:0\nsched_policy = bogus\n" \
        "$TEST_ROOT/bad" > bad.conf &&
    ! hpcq-scheduler --config bad.conf > bad.out 2>&1 &&
    cat bad.out &&
    grep -q "^hpcq-scheduler: unknown sched_policy .bogus." bad.out
'

test_done
