#!/bin/bash
# The expected-cost spot policy (scheduler/spot_choice.h,
# scheduler/policy/spotcost.h): node1 and node3 are spot (class flaky, M
# 1 h, 0.30 an hour), node2 on demand (1.00 an hour).  A 4-hour job without
# checkpoints goes on demand (16.08 expected on spot against 4.00); the
# same job with checkpoints (cost guessed 60 s) goes to spot (1.473; M
# grows a little above its prior with the class's up time);
# -l spot=avoid and prefer override the cost; after spot_max_reclaims
# reclaims a job runs on demand, not on the other spot node.  qstat -f
# shows the decision and its numbers.  Bad input is one line.
. "$(dirname "$0")/lib.sh"

cluster_start 3 --cpus-per-worker 2 --labels 1=spot,class=flaky,price_per_hour=0.3 \
    --labels 3=spot,class=flaky,price_per_hour=0.3 --sched-config price_per_hour=1 \
    --sched-config mtbi_prior.flaky=3600 --sched-config spot_max_reclaims=1

host_of() { job_attr $1 exec_host | cut -d/ -f1; }
spot_host() { case $(host_of $1) in node1|node3) return 0 ;; esac; return 1; }
est() { job_attr $1 estimated.$2; }
job() { echo "sleep 300" | qsub -l walltime=4:00:00 "$@"; }

test_expect_success 'a long job without checkpoints: on demand, with the numbers' '
    a=$(job -c n) && wait_state $a R && test "$(host_of $a)" = node2 &&
    est $a spot | grep -q "^on-demand: expected cost on spot 16\.0[0-9] (53\.[5-6][0-9]* h at 0.3/h: M 36[0-9][0-9] s, no checkpoints) >= on-demand 4 (4 h at 1/h)$" &&
    test "$(est $a cost)" = 4.000000 && qdel $a && wait_state $a F
'

test_expect_success 'the same job with cheap checkpoints: spot' '
    b=$(job -c s) && wait_state $b R && spot_host $b &&
    est $b spot | grep -q "^spot: expected cost on spot 1\.47[0-9] (4\.91 h at 0.3/h: M 36[0-9][0-9] s, checkpoints) < on-demand 4" &&
    awk -v c=$(est $b cost) "BEGIN { exit !(c > 1.47 && c < 1.48) }" && echo $b >id.b
'

test_expect_success 'reclaimed once (spot_max_reclaims 1): it moves on demand, not to the other spot node' '
    b=$(cat id.b) && n=$(host_of $b) && pbsnodes --reclaim --notice 3 $n &&
    wait_until 20 eval "test \"\$(job_attr $b run_count)\" = 2" && wait_state $b R &&
    test "$(host_of $b)" = node2 &&
    test "$(est $b spot)" = "on-demand: reclaimed 1 times (spot_max_reclaims 1)" &&
    qdel $b && wait_state $b F
'

test_expect_success '-l spot=avoid and spot=prefer override the cost' '
    wait_until 20 eval "pbsnodes -F json node2 | jq -e \".nodes[0].state == \\\"free\\\"\" >/dev/null" &&
    c=$(job -c s -l spot=avoid) && wait_state $c R && test "$(host_of $c)" = node2 &&
    test "$(job_attr $c Resource_List.spot)" = avoid &&
    test "$(est $c spot)" = "on-demand first: -l spot=avoid" &&
    d=$(job -c n -l spot=prefer) && wait_state $d R && spot_host $d &&
    test "$(job_attr $d Resource_List.spot)" = prefer &&
    qdel $c $d && wait_state $c F && wait_state $d F
'

test_expect_success 'bad input: -l spot=maybe and a negative spot_max_reclaims, one line each' '
    ! echo true | qsub -l spot=maybe 2>e1 && test "$(wc -l <e1)" = 1 &&
    grep -q "invalid spot .maybe. (true, false, prefer, require, avoid or never)" e1 &&
    sed -e "/^state_dir/d" -e "/^socket/d" -e "/^listen/d" -e "/^spot_max_reclaims/d" $CLUSTER/scheduler.conf >bad.conf &&
    echo "spot_max_reclaims = -1" >>bad.conf && d=$WORK/fresh &&
    ! hpcq-scheduler --config bad.conf --state-dir $d --socket $d.sock \
        --listen 127.0.0.1:0 --log-file $WORK/bad.log 2>bad.err &&
    cat bad.err && test "$(wc -l <bad.err)" = 1 && grep -q "spot_max_reclaims" bad.err
'

test_expect_success 'no change of state was refused as illegal' '
    ! grep "illegal state change" $CLUSTER/scheduler.log
'

test_done
