#!/bin/bash
# A per-user submission rate limit (Slurm 23.02's token bucket: rl_enable,
# rl_bucket_size, rl_refill_rate, rl_refill_period): a burst of
# rl_bucket_size submissions goes through, the next is refused with a
# clear error, tokens come back with time, and root is not limited.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --sched-config rl_enable=1 --sched-config rl_bucket_size=5 \
    --sched-config rl_refill_rate=2 --sched-config rl_refill_period=3
other_users_setup qstat

test_expect_success 'root is not limited' '
    for i in $(seq 1 12); do echo true | qsub -h > /dev/null || exit 1; done
'

if [ -n "$other_users" ]; then
    sub() { (cd "$PUB" && echo true | as_user nobody qsub -h); }
    test_expect_success 'a burst of rl_bucket_size goes through, the next is refused' '
        for i in 1 2 3 4 5; do sub > /dev/null || exit 1; done &&
        ! sub 2> r.err && cat r.err &&
        grep -q "^qsub: rate limit: user nobody submitted more than 5 jobs at once and 2 per 3 s after that (rl_bucket_size, rl_refill_rate, rl_refill_period); try again in a moment$" r.err &&
        grep -q "rate limit: refusing submissions from nobody" "$CLUSTER/scheduler.log"
    '
    test_expect_success 'a refused submission leaves no job behind' '
        test "$(db_query "SELECT count(*) FROM jobs WHERE owner = '"'"'nobody'"'"'")" = 5
    '
    test_expect_success 'rl_refill_rate tokens come back each rl_refill_period' '
        wait_until 10 sub > /dev/null && sub > /dev/null && ! sub 2> /dev/null
    '
    test_expect_success 'other users have buckets of their own' '
        (cd "$PUB" && echo true | as_user daemon qsub -h) > /dev/null
    '
else
    for t in 'a burst of rl_bucket_size goes through, the next is refused' \
             'a refused submission leaves no job behind' \
             'rl_refill_rate tokens come back each rl_refill_period' \
             'other users have buckets of their own'; do
        test_skip "$t" 'needs a second user (root is exempt): run as root'
    done
fi

test_done
