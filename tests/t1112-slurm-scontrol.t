#!/bin/bash
# scontrol as users and their tools call it: show hostnames (expanding a
# host list, $SLURM_JOB_NODELIST by default) and hostlist, show job (-o:
# one line, as Snakemake's fallback parses "JobState=(\w+)"), show node,
# hold, release, requeue, update; Slurm's errors.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2

test_expect_success 'show hostnames expands a host list; hostlist compresses' '
    test "$(scontrol show hostnames "node[01-03,7],gpu1" | tr "\n" " ")" = "node01 node02 node03 node7 gpu1 " &&
    test "$(scontrol show hostlist node3,node1,node2)" = "node[1-3]" &&
    ! scontrol show hostnames "node[1-" 2> e && test "$(cat e)" = "scontrol: error: Invalid hostlist: node[1-"
'

test_expect_success 'in a job, show hostnames reads SLURM_JOB_NODELIST' '
    n=$(sbatch --parsable -N 2 --wrap="scontrol show hostnames | head -n 1; scontrol show hostnames") &&
    wait_state $n F 60 && test "$(cat slurm-$n.out)" = "$(printf "node1\nnode1\nnode2")"
'

test_expect_success 'show job: Key=Value lines; -o one line; hold, release, update' '
    n=$(sbatch --parsable -H -J held -t 10 --wrap="sleep 30") &&
    scontrol show job $n > sj && cat sj &&
    head -1 sj | grep -q "^JobId=$n JobName=held$" &&
    grep -q "^   JobState=PENDING Reason=JobHeldUser " sj &&
    grep -q "^   RunTime=0:00 TimeLimit=10:00$" sj &&
    scontrol -o show job $n > one && test "$(wc -l < one)" = 1 &&
    grep -Eq "JobState=PENDING" one &&
    scontrol update JobId=$n TimeLimit=1:00:00 JobName=renamed &&
    scontrol -o show job $n | grep -q "JobName=renamed .*TimeLimit=1:00:00" &&
    scontrol release $n && wait_state $n R 30 &&
    scontrol -o show job $n | grep -q " JobState=RUNNING Reason=None " &&
    scontrol -o show job $n | grep -Eq " NodeList=node[12] " &&
    scancel $n
'

test_expect_success 'requeue: a running job runs again (a new attempt)' '
    n=$(sbatch --parsable --wrap="sleep 30") && wait_state $n R 30 &&
    scontrol requeue $n &&
    wait_until 30 sh -c "test \"\$(qstat -f -x $n | sed -n \"s/^ *run_count = //p\")\" = 2" &&
    scancel $n
'

test_expect_success 'show node; errors as Slurm'"'"'s' '
    scontrol show node node1 > sn && cat sn && head -1 sn | grep -qx "NodeName=node1" &&
    grep -q "CPUTot=2" sn && grep -Eq "State=(IDLE|MIXED|ALLOCATED)" sn &&
    ! scontrol show job 99999 2> e1 && test "$(cat e1)" = "slurm_load_jobs error: Invalid job id specified" &&
    ! scontrol hold 99999 2> e2 && test "$(cat e2)" = "Invalid job id specified for job 99999" &&
    ! scontrol show bogus 2> e3 && test "$(cat e3)" = "scontrol: error: invalid entity:bogus for keyword:show" &&
    ! scontrol update JobId=1 MinCPUsNode=2 2> e4 && grep -q "not supported: MinCPUsNode=2" e4 &&
    ! scontrol node-bogus 2> e5 && test "$(cat e5)" = "scontrol: error: Invalid keyword: node-bogus"
'

test_done
