#!/bin/bash
# sched_max_starts (scheduler/sched.c): one pass starts at most that many
# jobs and the next loop turn goes on at once, so a large array cannot
# hold the loop for the seconds its starts take: replies and heartbeats
# are answered between the passes.  Eight one-core tasks with
# sched_max_starts = 2 all start within a second or two (not one batch per
# 2 s scheduling tick), in at least four passes; the default is 1000; a
# bad value is refused in one line.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 8 --sched-config sched_max_starts=2
http=$(sed -n 's/^http=//p' "$CLUSTER/state/scheduler.address")
passes() {
    curl -sf "http://$http/metrics" |
        sed -n "s/^hpcq_scheduling_pass_duration_seconds_count \([0-9]*\)$/\1/p"
}
running() { qstat -t 2>/dev/null | awk '$5 == "R"' | grep -c '\[[0-9]'; }

test_expect_success 'eight tasks, two a pass: all start at once, in four passes or more' '
    p0=$(passes) && test -n "$p0" &&
    t0=$(date +%s.%N) && id=$(echo "sleep 30" | qsub -J 1-8 -l select=1:ncpus=1) &&
    wait_until 10 eval "test \$(running) = 8" && t1=$(date +%s.%N) &&
    p1=$(passes) && echo "passes $p0 -> $p1, all running after $(echo "$t1 - $t0" | bc) s" &&
    test $((p1 - p0)) -ge 4 &&
    awk -v a=$t0 -v b=$t1 "BEGIN { exit !(b - a < 3) }" &&
    qdel $id
'

test_expect_success 'a bad sched_max_starts: one line, the scheduler does not start' '
    sed -e "/^state_dir/d" -e "/^socket/d" -e "/^listen/d" -e "/sched_max_starts/d" \
        $CLUSTER/scheduler.conf >bad.conf &&
    echo "sched_max_starts = -1" >>bad.conf && d=$WORK/fresh &&
    ! hpcq-scheduler --config bad.conf --state-dir $d --socket $d.sock \
        --listen 127.0.0.1:0 --log-file $WORK/bad.log 2>bad.err &&
    cat bad.err && test "$(wc -l <bad.err)" = 1 && grep -q "sched_max_starts" bad.err
'

test_done
