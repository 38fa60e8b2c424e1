#!/bin/bash
# qstat's other views, in PBS Pro's layout: -a (the alternate table), -i,
# -r, -n and -1, -s, -T, -w, -J; and resources_used while a job runs (its
# worker reports usage every usage_interval), in qstat -f and Time Use.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --policy easy \
    --worker-conf 1 'usage_interval = 1' --worker-conf 2 'usage_interval = 1'

test_expect_success 'jobs: a busy one running, one waiting for all cores, a held array' '
    r=$(printf "%s\n" "python3 -c \"import time
while time.process_time() < 2.5: pass\"" "sleep 300" |
        qsub -N burner -l select=1:ncpus=2:mem=100mb -l walltime=1:30:00) &&
    s=$(echo "sleep 300" | qsub -N sleeper -l select=1:ncpus=1 -l walltime=2:00:00) &&
    wait_state $r R && wait_state $s R &&
    q=$(echo true | qsub -N waiting_for_all -l select=2:ncpus=2 -l walltime=1:00) &&
    a=$(echo true | qsub -h -J 1-3 -N arr) &&
    echo "$r $s $q $a" > ids && wait_until 10 sh -c "qstat -f -1 $q | grep -q estimated.start_time" &&
    wait_until 10 sh -c "qstat -f -1 $q | grep -q \"comment = Not Running\""
'

test_expect_success 'qstat -a: the header and one line per job, as PBS Pro prints them' '
    read r s q a < ids && qstat -a > a.out && cat a.out &&
    test -z "$(sed -n 1p a.out)" && sed -n 2p a.out | grep -q "^[^ ]*: $" &&
    sed -n 3p a.out | grep -qx " \{60\}Req'"'"'d  Req'"'"'d   Elap" &&
    sed -n 4p a.out | grep -qx "Job ID          Username Queue    Jobname    SessID NDS TSK Memory Time  S Time" &&
    sed -n 5p a.out | grep -qx "\-\{15\} \-\{8\} \-\{8\} \-\{10\} \-\{6\} --- --- ------ ----- - -----" &&
    grep -E "^$r +$(id -un | cut -c1-8) +workq +burner +[0-9]+ +1 +2 +100mb 01:30 R " a.out &&
    grep -E "^$q +[^ ]+ +workq +waiting_f\* +-- +2 +4 +-- 00:01 Q +--$" a.out &&
    grep -E "^${a%%[*}\[\]\.[^ ]+ .* arr .* H +--$" a.out
'

test_expect_success 'qstat -n: exec hosts under each job; -1 puts them on its line' '
    read r s q a < ids &&
    qstat -n > n.out && grep -A1 "^$r " n.out | tail -1 | grep -qx "   node[12]/0\*2" &&
    qstat -n1 > n1.out && grep -E "^$s .* node[12]/0\*1$" n1.out
'

test_expect_success 'qstat -s: the comment under each job' '
    read r s q a < ids &&
    qstat -s > s.out && grep -A1 "^$q " s.out | tail -1 | grep -qx "   Not Running: Insufficient amount of resource: ncpus (R: 4 A: 1 T: 4)" &&
    grep -A1 "^$r " s.out | tail -1 | grep -q "^   Job run at "
'

test_expect_success 'qstat -r and -i: running jobs, then waiting ones' '
    read r s q a < ids &&
    qstat -r | grep -E "^[0-9]" | cut -d" " -f1 | sort > r.ids && printf "%s\n" $r $s | sort | cmp - r.ids &&
    qstat -i | grep -E "^[0-9]" | cut -d" " -f1 > i.ids && grep -qx $q i.ids && ! grep -qx $r i.ids
'

test_expect_success 'qstat -T: Est Start for the job the policy reserved, -- for running jobs' '
    read r s q a < ids && qstat -T > t.out && cat t.out &&
    sed -n 3p t.out | grep -qx " \{75\}Est" &&
    sed -n 4p t.out | grep -qx " \{60\}Req'"'"'d  Req'"'"'d   Start" &&
    grep -E "^$q .* Q ([0-9][0-9]:[0-9][0-9]|[A-Z][a-z] [0-9][0-9])$" t.out &&
    grep -E "^$r .* R +--$" t.out
'

test_expect_success 'qstat -answ1: wide, hosts on the line, comments under it' '
    read r s q a < ids && qstat -answ1 > w.out && cat w.out &&
    grep -q "^Job ID                         Username        Queue           Jobname         SessID   NDS  TSK   Memory Time  S Time$" w.out &&
    grep -E "^$q +[^ ]+ +workq +waiting_for_all " w.out &&
    grep -A1 "^$q " w.out | tail -1 | grep -q "^   Not Running: "
'

test_expect_success 'qstat -J: job arrays only; with -t their subjobs' '
    read r s q a < ids &&
    qstat -J | grep -E "^[0-9]" | cut -d" " -f1 > j.ids && test "$(cat j.ids)" = "$a" &&
    test $(qstat -Jt | grep -cE "^${a%%[*}\[") = 4
'

test_expect_success 'resources_used while the job runs: cput, walltime, mem, ncpus; Time Use not 0' '
    read r s q a < ids &&
    wait_until 40 sh -c "qstat -f -1 $r | grep -q \"resources_used.cput = 00:00:0[2-9]\"" &&
    qstat -f -1 $r > f.out &&
    grep -qE "^    resources_used.walltime = 00:00:[0-9][0-9]$" f.out &&
    grep -qx "    resources_used.ncpus = 2" f.out &&
    grep -qE "^    resources_used.mem = [0-9]+[kmg]?b$" f.out &&
    qstat $r | tail -1 | grep -E "^$r +burner +[^ ]+ +00:00:0[2-9] R workq"
'

test_expect_success 'the finished job keeps its final figures' '
    read r s q a < ids && qdel $r $s $a && wait_state $r F &&
    job_attr $r resources_used.walltime | grep -qE "^00:00:[0-9][0-9]$"
'

test_expect_success 'conservative backfill estimates every queued job: -T shows each, in start order' '
    hpcq-local stop $CLUSTER >/dev/null 2>&1 && rm -rf $CLUSTER && cluster_start 1 --cpus-per-worker 2 --policy conservative &&
    r=$(echo "sleep 300" | qsub -l select=1:ncpus=2 -l walltime=1:00:00) && wait_state $r R &&
    q1=$(echo true | qsub -l select=1:ncpus=2 -l walltime=1:00:00) &&
    q2=$(echo true | qsub -l select=1:ncpus=2 -l walltime=1:00:00) &&
    wait_until 10 sh -c "qstat -f -1 $q2 | grep -q estimated.start_time" &&
    qstat -T > t2.out && cat t2.out &&
    grep -E "^$q1 .* Q ([0-9][0-9]:[0-9][0-9]|[A-Z][a-z] [0-9][0-9])$" t2.out &&
    grep -E "^$q2 .* Q ([0-9][0-9]:[0-9][0-9]|[A-Z][a-z] [0-9][0-9])$" t2.out &&
    grep -E "^[0-9]" t2.out | cut -d" " -f1 > t2.order && printf "%s\n" $r $q1 $q2 | cmp - t2.order &&
    qdel $r $q1 $q2
'

test_done
