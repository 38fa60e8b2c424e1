#!/bin/bash
# SIGHUP, as logrotate's postrotate sends it: both daemons reopen their log
# files (the renamed file gets no more lines, the new one does), reload
# what can be reloaded from the config and say what, and keep running,
# their jobs too.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2
other_users_setup qstat # a manager added by SIGHUP acts as one

test_expect_success 'a job runs before the rotation' '
    long=$(echo "sleep 300" | qsub -N rotate -l walltime=10:00) && echo $long > long.id &&
    wait_state $long R
'

test_expect_success 'rename the logs, SIGHUP both daemons: nobody dies' '
    mv $CLUSTER/scheduler.log $CLUSTER/scheduler.log.1 &&
    mv $CLUSTER/worker1.log $CLUSTER/worker1.log.1 &&
    kill -HUP $(cat $CLUSTER/scheduler.pid) $(cat $CLUSTER/worker1.pid) &&
    wait_until 10 test -s $CLUSTER/scheduler.log &&
    wait_until 10 test -s $CLUSTER/worker1.log &&
    sleep 1 && kill -0 $(cat $CLUSTER/scheduler.pid) && kill -0 $(cat $CLUSTER/worker1.pid) &&
    grep -q "SIGHUP: log file $CLUSTER/scheduler.log reopened" $CLUSTER/scheduler.log &&
    grep -q "SIGHUP: log file $CLUSTER/worker1.log reopened" $CLUSTER/worker1.log
'

test_expect_success 'the job runs on; new lines go to the new files only' '
    has_state $(cat long.id) R &&
    cp $CLUSTER/scheduler.log.1 old.copy &&
    j=$(echo "sleep 100" | qsub -N after) && wait_state $j R && qdel $j && wait_state $j F &&
    grep -q "job $j (.*) deleted by" $CLUSTER/scheduler.log && ! grep -q "job $j " $CLUSTER/scheduler.log.1 &&
    cmp -s old.copy $CLUSTER/scheduler.log.1 &&
    grep -q "job $j" $CLUSTER/worker1.log && ! grep -q "job $j" $CLUSTER/worker1.log.1
'

test_expect_success 'log_level info: no routine line per job; ids as PBS writes them' '
    a=$(echo true | qsub -J 1-20) && wait_state $a F &&
    ! grep -E "job $(seqno $a)\[[0-9]+\]" $CLUSTER/scheduler.log &&
    ! grep -E "job [0-9]{12,}" $CLUSTER/scheduler.log
'

test_expect_success 'a changed config: log_level and managers apply, others wait for a restart' '
    cp $CLUSTER/scheduler.conf conf.orig &&
    { cat conf.orig; echo "log_level = debug"; echo "managers = daemon"; echo "node_timeout = 9"; } > $CLUSTER/scheduler.conf &&
    kill -HUP $(cat $CLUSTER/scheduler.pid) &&
    wait_until 10 grep -q "SIGHUP: reloaded log_level=debug, managers=daemon" $CLUSTER/scheduler.log &&
    grep -q "SIGHUP: changed but applied only at a restart: .*node_timeout" $CLUSTER/scheduler.log &&
    j=$(echo true | qsub) && wait_state $j F &&
    grep -q "hpcq-scheduler\[debug\]: job $j (.*) starts on node1" $CLUSTER/scheduler.log &&
    { test -z "$other_users" || as_user daemon qmgr -c "set server query_other_jobs=true" && qmgr -c "list server" | grep -q "query_other_jobs = True"; }
'

test_expect_success 'a broken config file is refused whole: the daemon runs on as it was' '
    echo "no_such_key = 1" >> $CLUSTER/scheduler.conf &&
    kill -HUP $(cat $CLUSTER/scheduler.pid) &&
    wait_until 10 grep -q "SIGHUP: .*nothing reloaded" $CLUSTER/scheduler.log &&
    kill -0 $(cat $CLUSTER/scheduler.pid) && has_state $(cat long.id) R
'

test_expect_success 'keys taken out of the file go back to their defaults' '
    cp conf.orig $CLUSTER/scheduler.conf &&
    kill -HUP $(cat $CLUSTER/scheduler.pid) &&
    wait_until 10 grep -q "SIGHUP: reloaded .*log_level=info" $CLUSTER/scheduler.log &&
    grep "SIGHUP: reloaded" $CLUSTER/scheduler.log | tail -1 | grep -q "managers=$" &&
    j=$(echo true | qsub) && wait_state $j F &&
    ! grep -q "job $j (.*) starts on" $CLUSTER/scheduler.log &&
    qdel $(cat long.id)
'

test_done
