#!/bin/bash
# Why a job waits: every job the scheduling pass leaves waiting gets PBS
# Pro's comment (qstat -f, qstat -s, the REST API the status page reads):
# too few free cores, a top job's reservation, strict order, a hold
# (qsub -h and qhold), a dependency.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --policy easy
http=$(sed -n 's/^http=//p' "$CLUSTER/state/scheduler.address")

test_expect_success 'the cores are busy: running jobs, then a job asking for all four' '
    a=$(echo "sleep 300" | qsub -N full -l select=1:ncpus=2 -l walltime=1:00) &&
    b=$(echo "sleep 300" | qsub -N half -l select=1:ncpus=1 -l walltime=10:00) &&
    wait_state $a R && wait_state $b R &&
    top=$(echo true | qsub -N big -l select=2:ncpus=2 -l walltime=1:00) &&
    echo "$a $b $top" > ids
'

test_expect_success 'the top job: Insufficient amount of resource: ncpus (R: 4 A: 1 T: 4)' '
    read a b top < ids &&
    wait_until 10 sh -c "qstat -f -1 $top | grep -q \"comment = Not Running: Insufficient amount of resource: ncpus (R: 4 A: 1 T: 4)\""
'

test_expect_success 'a job that fits now but would delay the top job: conflict with reservation' '
    read a b top < ids &&
    small=$(echo true | qsub -N small -l select=1:ncpus=1 -l walltime=20:00) && echo $small > small.id &&
    wait_until 10 sh -c "test \"\$(qstat -f -1 $small | sed -n \"s/^    comment = //p\")\" = \"Not Running: Job would conflict with reservation or top job\"" &&
    has_state $small Q
'

test_expect_success 'qsub -h: held from the start, saying so' '
    h=$(echo true | qsub -h -N held) && echo $h > held.id &&
    test "$(job_attr $h comment)" = "Job held by $(id -un) on submission (qsub -h)" &&
    has_state $h H
'

test_expect_success 'a dependency: held, naming what it waits for' '
    read a b top < ids &&
    d=$(echo true | qsub -W depend=afterok:$a) && echo $d > dep.id &&
    wait_until 10 sh -c "qstat -f -1 $d | grep -q \"comment = Job held: waiting for\""
'

test_expect_success 'qstat -s shows each reason under its job' '
    read a b top < ids &&
    qstat -s > s.out && cat s.out &&
    grep -A1 "^$(seqno $top)\." s.out | tail -1 | grep -q "^   Not Running: Insufficient amount of resource: ncpus" &&
    grep -A1 "^$(seqno $(cat small.id))\." s.out | tail -1 | grep -qx "   Not Running: Job would conflict with reservation or top job" &&
    grep -A1 "^$(seqno $(cat held.id))\." s.out | tail -1 | grep -q "^   Job held by"
'

test_expect_success 'the REST API (the status page'"'"'s Why column) carries the same comment' '
    read a b top < ids &&
    curl -sf "http://$http/api/v1/jobs/$top" | jq -r ".jobs[0].comment" > api.comment &&
    grep -q "^Not Running: Insufficient amount of resource: ncpus (R: 4 A: 1 T: 4)$" api.comment
'

test_expect_success 'when the cores come free the top job starts and its comment says where' '
    read a b top < ids &&
    qdel $a $b && wait_state $top F &&
    job_attr $top comment | grep -q "^Job run at .* and finished"
'

test_done
