#!/bin/bash
# A job a spot reclaim requeued goes ahead of its old queue position
# (issue 12, part 4, "What a notice does", step 3): when it cannot start
# elsewhere at once, it starts before every job that waited, even ones of
# higher priority, as soon as room frees.
. "$(dirname "$0")/lib.sh"

# node1 is the spot node; node2 is on-demand.  Two cores each.
cluster_start 2 --cpus-per-worker 2 --labels 1=spot

host_of() { job_attr $1 exec_host | cut -d/ -f1; }
moved_to() { test "$(job_attr $1 run_count)" = 2 && has_state $1 R && test "$(host_of $1)" = "$2"; }

test_expect_success 'the reclaimed job waits for room, then starts before higher-priority jobs' '
    x=$(echo "sleep 300" | qsub -l select=1:ncpus=2 -l spot=false) && wait_state $x R &&
    test "$(host_of $x)" = node2 &&
    r=$(echo "sleep 300" | qsub -l select=1:ncpus=2) && wait_state $r R &&
    test "$(host_of $r)" = node1 &&
    q1=$(echo "sleep 300" | qsub -p 1000 -l select=1:ncpus=2) &&
    q2=$(echo "sleep 300" | qsub -p 1000 -l select=1:ncpus=2) &&
    pbsnodes --reclaim --notice 1 node1 &&
    wait_until 20 has_state $r Q && has_state $q1 Q && has_state $q2 Q &&
    qdel $x && wait_until 20 moved_to $r node2 &&
    has_state $q1 Q && has_state $q2 Q &&
    qdel $r $q1 $q2 && wait_state $r F
'

test_done
