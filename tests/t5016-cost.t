#!/bin/bash
# What jobs cost: each node's price_per_hour (its label, else the config's
# price_per_hour.CLASS, else price_per_hour) times the hours held times the
# share of the node held; suspended time is not charged.  Per attempt in
# the attempts table, per job as resources_used.cost, per queue (spot and
# on-demand apart) in qstat -Q -f.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --labels 1=spot,price_per_hour=36 \
    --labels 2=class=big --sched-config price_per_hour.big=72 --sched-config price_per_hour=1

# close A B TOL: |A - B| <= TOL
close() { python3 -c "import sys; a, b, t = map(float, sys.argv[1:]); sys.exit(abs(a - b) > t)" "$@"; }
# The cost expected from the attempt's own times: PRICE x SHARE x (end - start - suspended) hours.
expected() {
    db_query "SELECT $2 * $3 * (end_time - start_time - coalesce (suspended, 0)) / 3600.0
              FROM attempts WHERE job_seq = $(seqno $1) AND attempt = ${4:-1}"
}
cost_of() { db_query "SELECT cost FROM attempts WHERE job_seq = $(seqno $1) AND attempt = ${2:-1}"; }
has_session() { test -n "$(job_attr $1 session_id)"; }

test_expect_success 'one core of two on a spot node at 36 an hour: half the node' '
    id=$(echo "sleep 4" | qsub -l select=1:ncpus=1:host=node1) && wait_state $id F 20 &&
    c=$(cost_of $id) && want=$(expected $id 36 0.5) && echo "cost $c, expected $want" &&
    close "$c" "$want" 0.0001 && close "$c" 0.02 0.011 &&
    test "$(job_attr $id resources_used.cost)" = "$(printf %.4f $c)" &&
    test "$(db_query "SELECT cost_spot = cost FROM attempts WHERE job_seq = $(seqno $id)")" = 1
'

test_expect_success 'place=excl: the whole node, at its class price (price_per_hour.big)' '
    id=$(echo "sleep 3" | qsub -l select=1:ncpus=1:host=node2 -l place=excl) && wait_state $id F 20 &&
    c=$(cost_of $id) && want=$(expected $id 72 1) && echo "cost $c, expected $want" &&
    close "$c" "$want" 0.0001 &&
    test "$(db_query "SELECT cost_spot FROM attempts WHERE job_seq = $(seqno $id)")" = 0.0
'

test_expect_success 'suspended time is not charged' '
    id=$(echo "sleep 5" | qsub -l select=1:ncpus=2:host=node2) && wait_state $id R &&
    wait_until 20 has_session $id && sleep 1 && qsig -s suspend $id && sleep 3 &&
    qsig -s resume $id && wait_state $id F 30 &&
    s=$(db_query "SELECT suspended FROM attempts WHERE job_seq = $(seqno $id)") &&
    echo "suspended $s s" && python3 -c "import sys; sys.exit(not $s >= 2.5)" &&
    c=$(cost_of $id) && want=$(expected $id 72 1) && echo "cost $c, expected $want" &&
    close "$c" "$want" 0.0002 &&
    unsuspended=$(db_query "SELECT 72 * (end_time - start_time) / 3600.0 FROM attempts
                            WHERE job_seq = $(seqno $id)") &&
    python3 -c "import sys; sys.exit(not $c < $unsuspended - 72 * 2 / 3600)"
'

test_expect_success 'a requeued job pays for each attempt; resources_used.cost is their sum' '
    id=$(echo "sleep 3" | qsub -l select=1:ncpus=2:host=node1) && wait_state $id R &&
    wait_until 20 has_session $id && sleep 2 && qrerun -W force $id && wait_state $id F 30 &&
    a1=$(cost_of $id 1) && a2=$(cost_of $id 2) && echo "attempts: $a1 + $a2" &&
    close "$a1" "$(expected $id 36 1 1)" 0.0001 && close "$a2" "$(expected $id 36 1 2)" 0.0001 &&
    close "$(job_attr $id resources_used.cost)" "$(echo "$a1 + $a2" | bc -l)" 0.0001
'

test_expect_success 'a running job shows its cost so far' '
    id=$(echo "sleep 30" | qsub -l select=1:ncpus=2:host=node1) && wait_state $id R && sleep 3 &&
    c=$(job_attr $id resources_used.cost) && echo "so far $c" && close "$c" 0.04 0.021 &&
    qdel $id && wait_state $id F
'

test_expect_success 'qstat -Q -f: the queue total, spot and on-demand apart' '
    qstat -Q -f workq >q && cat q &&
    total=$(sed -n "s/^ *resources_used.cost = //p" q) &&
    spot=$(sed -n "s/^ *resources_used.cost_spot = //p" q) &&
    od=$(sed -n "s/^ *resources_used.cost_ondemand = //p" q) &&
    close "$total" "$(db_query "SELECT sum (cost) FROM attempts")" 0.0002 &&
    close "$spot" "$(db_query "SELECT sum (cost_spot) FROM attempts")" 0.0002 &&
    close "$od" "$(echo "$total - $spot" | bc -l)" 0.0002
'

test_expect_success 'after a scheduler restart the totals are the same' '
    qstat -Q -f workq | grep resources_used >before &&
    kill -9 $(cat $CLUSTER/scheduler.pid) && hpcq-local start-scheduler $CLUSTER &&
    qstat -Q -f workq | grep resources_used >after && diff before after
'

test_done
