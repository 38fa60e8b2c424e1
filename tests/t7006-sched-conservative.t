#!/bin/bash
# Conservative backfill in the daemon: every waiting job gets a reservation
# (estimated.start_time), one after another, and a job that would delay any
# of them waits while one that delays none starts.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 4 --kill-delay 1 --policy conservative

submit() { local w=$1; shift; echo "sleep $w" | qsub "$@"; }
est() { date -d "$(job_attr $1 estimated.start_time)" +%s; }

test_expect_success 'set-up: two cores busy for 90 s' '
    a=$(submit 60 -l select=1:ncpus=2 -l walltime=00:01:30) && wait_state $a R &&
    echo $a > a.id
'
a=$(cat a.id)

test_expect_success 'each waiting job is reserved, the second after the first' '
    b=$(submit 1 -l select=1:ncpus=4 -l walltime=00:00:20) &&
    c=$(submit 1 -l select=1:ncpus=4 -l walltime=00:00:30) && echo "$b $c" > bc.id &&
    sleep 1 && test "$(job_state $b)" = Q && test "$(job_state $c)" = Q &&
    stime=$(db_query "SELECT start_time FROM attempts WHERE job_seq = $(seqno $a)") &&
    test "$(est $b)" -eq $((stime + 90)) && test "$(est $c)" -eq $((stime + 110))
'
read b c < bc.id

test_expect_success 'a job that would run into a reservation waits; a short one starts' '
    d=$(submit 1 -l select=1:ncpus=2 -l walltime=00:10:00) &&
    e=$(submit 1 -l select=1:ncpus=2 -l walltime=00:00:10) &&
    wait_state $e F 30 && test "$(job_state $d)" = Q &&
    test -n "$(job_attr $d estimated.start_time)" &&
    test "$(est $d)" -ge "$(est $c)"
'

test_expect_success 'when the running job goes, the reserved ones run in order' '
    qdel $a && wait_state $b F 30 && wait_state $c F 40 &&
    sb=$(db_query "SELECT start_time FROM attempts WHERE job_seq = $(seqno $b)") &&
    sc=$(db_query "SELECT start_time FROM attempts WHERE job_seq = $(seqno $c)") &&
    test "$sc" -ge "$sb"
'

test_done
