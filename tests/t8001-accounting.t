#!/bin/bash
# The accounting log as PBS Pro writes it (STATE_DIR/accounting/YYYYMMDD):
# every record of a job's whole life, in PBS's layout, once each (also
# across a kill -9 of the scheduler), read back as Open XDMoD's PBS
# shredder reads it (tests/xdmod-pbs-check.py), and shown by tracejob.
. "$(dirname "$0")/lib.sh"

# log_level debug: the per-job lines tracejob shows as L (info has none).
cluster_start 2 --cpus-per-worker 2 --node-timeout 2 --sched-config log_level=debug

me=$(id -un)
group=$(id -gn)
state=$(sed -n 's/^state_dir = //p' "$CLUSTER/scheduler.conf")
acct=$state/accounting
day=$(date +%Y%m%d)

# records ID: the record types of a job in the log, in order ("QSE")
records() { cat "$acct"/* | awk -F';' -v id="$1" '$3 == id { printf "%s", $2 }'; }
# record ID TYPE: the line of that record
record() { cat "$acct"/* | awk -F';' -v id="$1" -v t="$2" '$3 == id && $2 == t'; }
has_records() { test "$(records $1)" = "$2"; }
# Records leave the outbox a commit after the sync that follows their
# append (once a second): a loaded machine may see a few more for a while.
outbox_rows() { db_query "SELECT count(*) FROM acct_outbox"; }
outbox_at_most() { test "$(outbox_rows)" -le "$1"; }
has_session() { test -n "$(job_attr "$1" session_id)"; }
node_of() { job_attr "$1" exec_host | sed 's,/.*,,'; }

test_expect_success 'a job run to its end: Q, S and E, in the day file' '
    a=$(echo "sleep 1" | qsub -N acct-a -A proj7 -l select=1:ncpus=2:mem=64mb,walltime=00:05:00) &&
    wait_state $a F && wait_until 10 has_records $a QSE && echo $a > a &&
    test -f "$acct/$day" && test "$(stat -c %a "$acct/$day")" = 600
'

test_expect_success 'each line is PBS Pro'"'"'s: date time;TYPE;ID;key=value ...' '
    grep -vE "^[0-9]{2}/[0-9]{2}/[0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2};[QSEDRA];[^;]+;" \
        "$acct"/* > odd; test ! -s odd
'

test_expect_success 'Q, S and E carry what PBS Pro writes, in its order' '
    a=$(cat a) && e=$(record $a E) && echo "$e" &&
    case "$e" in *";E;$a;user=$me group=$group account=\"proj7\" jobname=acct-a queue=workq ctime="*) ;; *) false ;; esac &&
    for k in ctime qtime etime start exec_host exec_vnode Resource_List.ncpus \
             Resource_List.mem Resource_List.walltime Resource_List.select session end \
             Exit_status resources_used.cput resources_used.mem resources_used.ncpus \
             resources_used.walltime run_count; do
        echo "$e" | grep -q " $k=" || { echo "E lacks $k"; exit 1; }
    done &&
    echo "$e" | grep -q " Exit_status=0 " && echo "$e" | grep -q " Resource_List.ncpus=2 " &&
    echo "$e" | grep -q " Resource_List.walltime=00:05:00 " && echo "$e" | grep -q " run_count=1$" &&
    record $a Q | grep -q "queue=workq ctime=.* Resource_List.ncpus=2 " &&
    ! record $a Q | grep -q " start=" &&
    record $a S | grep -q " start=[0-9]* exec_host=node[12]/0\*2 exec_vnode=(node[12]:ncpus=2:mem=64mb) "
'

test_expect_success 'the times are the job'"'"'s: ctime <= start <= end, end - start = its walltime' '
    e=$(record $(cat a) E) && v() { echo "$e" | sed -n "s/.* $1=\([^ ]*\).*/\1/p"; } &&
    test $(v ctime) -le $(v start) && test $(v start) -le $(v end) &&
    test "$(v start)" = "$(db_query "SELECT stime FROM jobs WHERE seq = $(seqno $(cat a))")"
'

test_expect_success 'deleted while queued: Q and D (requestor), no E' '
    b=$(echo true | qsub -h) && qdel $b && wait_state $b F && wait_until 10 has_records $b QD &&
    record $b D | grep -q ";D;$b;requestor=$me@"
'

test_expect_success 'deleted while running: Q S D E, killed by a signal' '
    c=$(echo "sleep 60" | qsub) && wait_state $c R && wait_until 30 has_session $c &&
    qdel $c && wait_state $c F && wait_until 10 has_records $c QSDE &&
    record $c E | grep -q " Exit_status=271 "
'

test_expect_success 'its node lost: R for the attempt that ended, then S and E of the next' '
    r=$(echo "sleep 4" | qsub) && wait_state $r R && wait_until 30 has_session $r &&
    first=$(node_of $r) && echo $first > lost && kill -9 $(cat $CLUSTER/worker${first#node}.pid) &&
    wait_state $r F 60 && wait_until 10 has_records $r QSRSE &&
    record $r R | grep -q " exec_host=$first/0\*1 .* Exit_status=-3 .* run_count=1$" &&
    record $r E | grep -q " run_count=2$"
'

test_expect_success 'a job that may not rerun, its node lost: A (the reason) and E (-11)' '
    first=$(cat lost) && hpcq-local start-worker $CLUSTER ${first#node} &&
    n=$(echo "sleep 60" | qsub -r n) && wait_state $n R && wait_until 30 has_session $n &&
    node=$(node_of $n) && kill -9 $(cat $CLUSTER/worker${node#node}.pid) &&
    wait_state $n F 60 && wait_until 10 has_records $n QSAE &&
    record $n A | grep -q ";A;$n;Job failed: node $node" &&
    record $n E | grep -q " Exit_status=-11 " &&
    hpcq-local start-worker $CLUSTER ${node#node}
'

test_expect_success 'an array: Q and E for the array, S and E for each subjob' '
    j=$(echo true | qsub -J 1-3) && wait_state $j F 60 && seq=${j%%\[*} && srv=${j#*.} &&
    wait_until 10 has_records $j QE &&
    record $j Q | grep -q " array_indices=1-3" && record $j E | grep -q " array_indices=1-3 " &&
    for i in 1 2 3; do has_records "$seq[$i].$srv" SE || exit 1; done
'

test_expect_success 'Open XDMoD'"'"'s PBS parser reads every file; every job that ran passes its checks' '
    python3 "$HPCQ_SRCDIR/tests/xdmod-pbs-check.py" "$acct"/* > xdmod.out; rc=$?; cat xdmod.out;
    test $rc = 0 && test $(grep -c " ok nodes=" xdmod.out) -ge 7 &&
    grep -q "^$(seqno $(cat a)).* ok nodes=1 cpus=2 " xdmod.out
'

test_expect_success 'tracejob shows the events, the accounting records and the log lines' '
    a=$(cat a) && tracejob $a > trace && cat trace &&
    grep -q "^Job: $a" trace &&
    grep -qE "  S    submitted by $me" trace && grep -qE "  S    started by scheduler \(Q -> R\)" trace &&
    grep -qE "  A    Q user=$me " trace && grep -qE "  A    E user=$me " trace &&
    grep -qE "  L    job $a \($me\) finished" trace &&
    tracejob -a -l $a | grep -c "  S  " | grep -qx 3 &&
    tracejob -n 1 -s -l $a | grep -c "  A  " | grep -qx 3
'

test_expect_success 'tracejob: an unknown job, bad options' '
    ! tracejob 99999 2> err && grep -q "Unknown Job Id 99999" err &&
    ! tracejob -n zero 1 2> err2 && test $(wc -l < err2) = 1 && ! tracejob 2>/dev/null
'

test_expect_success 'kill -9 of the scheduler: no record lost or written twice' '
    ids="" && for i in 1 2 3 4 5; do ids="$ids $(echo true | qsub)"; done &&
    pid=$(cat $CLUSTER/scheduler.pid) && kill -9 $pid &&
    wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" && hpcq-local start-scheduler $CLUSTER &&
    for id in $ids; do wait_state $id F 60 || { echo "$id: not finished"; exit 1; }; done &&
    for id in $ids; do wait_until 30 has_records $id QSE || { echo "$id: $(records $id)"; exit 1; }; done &&
    wait_until 10 outbox_at_most 5 || { echo "outbox: $(outbox_rows)"; exit 1; }
'

test_expect_success 'every job in the database has its Q record exactly once' '
    for id in $(db_query "SELECT seq FROM jobs WHERE array_parent IS NULL"); do
        n=$(cat "$acct"/* | grep -cE ";Q;$id(\[\])?\.") && test $n = 1 || { echo "$id: $n"; exit 1; }
    done
'

test_done
