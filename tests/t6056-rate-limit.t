#!/bin/bash
# A per-user submission rate limit (Slurm 23.02's token bucket: rl_enable,
# rl_bucket_size, rl_refill_rate, rl_refill_period): a burst of
# rl_bucket_size submissions goes through, the next is refused with a
# clear error, tokens come back with time, and root is not limited.
. "$(dirname "$0")/lib.sh"

# One token back every 10 s: a burst that crosses a period boundary gets
# one more (two if it takes longer than a period, under sanitizers).
cluster_start 1 --sched-config rl_enable=1 --sched-config rl_bucket_size=5 \
    --sched-config rl_refill_rate=1 --sched-config rl_refill_period=10
most=6
sanitized && most=7
other_users_setup qstat

test_expect_success 'root is not limited' '
    for i in $(seq 1 12); do echo true | qsub -h > /dev/null || exit 1; done
'

if [ -n "$other_users" ]; then
    sub() { (cd "$PUB" && echo true | as_user nobody qsub -h); }
    test_expect_success 'a burst of rl_bucket_size goes through, the rest is refused' '
        ok=0 &&
        for i in 1 2 3 4 5 6 7 8 9; do
            if sub > /dev/null 2>> r.err; then ok=$((ok + 1)); fi
        done &&
        cat r.err && echo "accepted $ok of 9" && echo $ok > accepted &&
        test $ok -ge 5 && test $ok -le $most &&
        grep -q "^qsub: rate limit: user nobody submitted more than 5 jobs at once and 1 per 10 s after that (rl_bucket_size, rl_refill_rate, rl_refill_period); try again in a moment$" r.err &&
        grep -q "rate limit: refusing submissions from nobody" "$CLUSTER/scheduler.log"
    '
    test_expect_success 'a refused submission leaves no job behind' '
        test "$(db_query "SELECT count(*) FROM jobs WHERE owner = '"'"'nobody'"'"'")" = "$(cat accepted)"
    '
    test_expect_success 'rl_refill_rate tokens come back each rl_refill_period' '
        wait_until 15 sub > /dev/null
    '
    test_expect_success 'other users have buckets of their own' '
        (cd "$PUB" && echo true | as_user daemon qsub -h) > /dev/null
    '
else
    for t in 'a burst of rl_bucket_size goes through, the rest is refused' \
             'a refused submission leaves no job behind' \
             'rl_refill_rate tokens come back each rl_refill_period' \
             'other users have buckets of their own'; do
        test_skip "$t" 'needs a second user (root is exempt): run as root'
    done
fi

test_done
