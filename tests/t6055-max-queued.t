#!/bin/bash
# max_queued and max_queued_res.RES (PBS Pro's limits; issue 10, finding 8):
# per user, per group and server-wide, at the server and on a queue, set in
# the config or with qmgr, with PBS's syntax and PBS's refusal wording.
# Arrays count as their subjobs; a job counts until it finishes.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --sched-config "max_queued=[u:PBS_GENERIC=1000], [o:PBS_ALL=5000]" \
    --sched-config max_array_size=20000
other_users_setup qstat

held() { echo true | qsub -h "$@"; }
me=$(id -un)

test_expect_success 'limits from the config show in qmgr' '
    qmgr -c "list server" > s.out && cat s.out &&
    grep -qx "    max_queued = \[o:PBS_ALL=5000\], \[u:PBS_GENERIC=1000\]" s.out
'

test_expect_success 'set with qmgr: PBS syntax, several entries' '
    qmgr -c "set server max_queued = [u:PBS_GENERIC=3], [u:$me=4], [o:PBS_ALL=11]" &&
    qmgr -c "list server" | grep -qx "    max_queued = \[o:PBS_ALL=11\], \[u:PBS_GENERIC=3\], \[u:$me=4\]"
'

test_expect_success 'a user past their own limit is refused in PBS words' '
    for i in 1 2 3 4; do held > /dev/null || exit 1; done &&
    ! held 2> u.err && cat u.err &&
    grep -qx "qsub: Maximum number of jobs for user $me already in complex" u.err
'

test_expect_success 'a finished job makes room again' '
    j=$(qstat | awk "NR == 3 { print \$1 }") && qdel $j && wait_state $j F &&
    held > /dev/null && ! held 2> /dev/null
'

test_expect_success 'an array counts as its subjobs' '
    qmgr -c "set server max_queued += [u:$me=10]" &&
    ! held -J 1-7 2> a.err && cat a.err &&
    grep -qx "qsub: Maximum number of jobs for user $me already in complex" a.err &&
    held -J 1-6 > /dev/null && ! held 2> /dev/null
'

test_expect_success 'the server-wide limit [o:PBS_ALL] in PBS words' '
    qmgr -c "set server max_queued += [u:$me=100]" &&
    ! held -J 1-2 2> o.err && cat o.err &&
    grep -qx "qsub: Maximum number of jobs already in complex" o.err
'

test_expect_success '-= removes an entry; unset returns to the config' '
    qmgr -c "set server max_queued -= [u:$me=0]" &&
    ! qmgr -c "list server" | grep -q "u:$me=" &&
    qmgr -c "unset server max_queued" &&
    qmgr -c "list server" | grep -qx "    max_queued = \[o:PBS_ALL=5000\], \[u:PBS_GENERIC=1000\]" &&
    held > /dev/null
'

test_expect_success 'max_queued_res.ncpus and .mem limit what queued jobs ask for' '
    qdel $(qstat | awk "NR > 2 { print \$1 }") && wait_until 10 sh -c "! qstat | grep -q ." &&
    qmgr -c "set server max_queued_res.ncpus = [u:PBS_GENERIC=1]" &&
    ! held -l ncpus=2 2> r.err && cat r.err &&
    grep -qx "qsub: would exceed per-user limit on resource ncpus in complex" r.err &&
    qmgr -c "unset server max_queued_res.ncpus" &&
    qmgr -c "set server max_queued_res.mem = [u:$me=1gb]" &&
    qmgr -c "list server" | grep -qx "    max_queued_res.mem = \[u:$me=1gb\]" &&
    ! held -l mem=2gb 2> m.err && cat m.err &&
    grep -qx "qsub: would exceed user $me'"'"'s limit on resource mem in complex" m.err &&
    held -l mem=512mb > /dev/null &&
    qmgr -c "unset server max_queued_res.mem"
'

test_expect_success 'a queue has its own limits, in PBS words' '
    qmgr -c "create queue small" && qmgr -c "set queue small enabled=true,started=true" &&
    qmgr -c "set queue small max_queued = [u:PBS_GENERIC=2]" &&
    qmgr -c "list queue small" | grep -qx "    max_queued = \[u:PBS_GENERIC=2\]" &&
    held -q small > /dev/null && held -q small > /dev/null &&
    ! held -q small 2> q.err && cat q.err &&
    grep -qx "qsub: would exceed queue small'"'"'s per-user limit" q.err &&
    held > /dev/null
'

test_expect_success 'qalter and qmove into a full queue are refused' '
    j=$(held) && ! qmove small $j 2> mv.err && cat mv.err &&
    grep -q "would exceed queue small'"'"'s per-user limit" mv.err &&
    test "$(job_attr $j queue)" = workq
'

test_expect_success 'limits survive a restart, and the counts are rebuilt' '
    cluster_stop > /dev/null && hpcq-local start-scheduler "$CLUSTER" &&
    qmgr -c "list queue small" | grep -qx "    max_queued = \[u:PBS_GENERIC=2\]" &&
    ! held -q small 2> /dev/null &&
    qmgr -c "print server" | grep -qx "set queue small max_queued = \[u:PBS_GENERIC=2\]"
'

test_expect_success 'bad limits are refused with a reason, and change nothing' '
    ! qmgr -c "set server max_queued = [u:PBS_GENERIC=x]" 2> b1 && cat b1 &&
    grep -q "Illegal attribute or resource value" b1 &&
    ! qmgr -c "set server max_queued = [p:proj=1]" 2> b2 && grep -q "project limits" b2 &&
    ! qmgr -c "set server max_queued = [o:alice=1]" 2> b3 && grep -q "PBS_ALL" b3 &&
    ! qmgr -c "set server max_queued_res.walltime = [u:PBS_GENERIC=1]" 2> b4 &&
    grep -q "Unknown resource walltime" b4 &&
    qmgr -c "list server" | grep -qx "    max_queued = \[o:PBS_ALL=5000\], \[u:PBS_GENERIC=1000\]"
'

test_expect_success 'group limits: the owner'"'"'s primary group, in PBS words' '
    qdel $(qstat | awk "NR > 2 { print \$1 }") && wait_until 10 sh -c "! qstat | grep -q ." &&
    g=$(id -gn) &&
    qmgr -c "set server max_queued = [g:$g=1]" && held > /dev/null &&
    ! held 2> g1.err && cat g1.err &&
    grep -qx "qsub: Maximum number of jobs for group $g already in complex" g1.err &&
    qmgr -c "set server max_queued = [g:PBS_GENERIC=1]" &&
    ! held 2> g2.err && cat g2.err &&
    grep -qx "qsub: would exceed complex'"'"'s per-group limit" g2.err
'

# Arrays are one record (issue 15): untouched subjobs are counted through
# their array, split-out ones as jobs; a restart counts them again once
# the stored requests are parsed.
test_expect_success 'an array'"'"'s subjobs count until each ends (alone, or with the array), across a restart' '
    qdel $(qstat | awk "NR > 2 { print \$1 }") && wait_until 10 sh -c "! qstat | grep -q ." &&
    qmgr -c "set server max_queued = [u:$me=5]" &&
    id=$(held -J 1-5) && n=${id%%[*} && ! held 2> /dev/null &&
    qdel "$n[1]" && wait_state "$n[1]" F 30 && j=$(held) && ! held 2> /dev/null &&
    pid=$(cat $CLUSTER/scheduler.pid) && kill -9 $pid &&
    wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" && hpcq-local start-scheduler $CLUSTER &&
    ! held 2> r.err && cat r.err &&
    grep -qx "qsub: Maximum number of jobs for user $me already in complex" r.err &&
    qdel "$n[]" && wait_state "$n[]" F 30 &&
    for i in 1 2 3 4; do held > /dev/null || exit 1; done && ! held 2> /dev/null &&
    qdel $(qstat | awk "NR > 2 { print \$1 }")
'

if [ -n "$other_users" ]; then
    test_expect_success 'the generic limit holds another user; refused in PBS words' '
        qmgr -c "set server max_queued = [u:PBS_GENERIC=2], [u:$me=1000]" &&
        (cd "$PUB" && echo true | as_user nobody qsub -h && echo true | as_user nobody qsub -h) &&
        ! (cd "$PUB" && echo true | as_user nobody qsub -h 2> "$WORK/g.err") && cat g.err &&
        grep -qx "qsub: would exceed complex'"'"'s per-user limit" g.err
    '
    test_expect_success 'only a manager may set limits' '
        ! as_user nobody qmgr -c "set server max_queued = [u:nobody=100]" 2> n.err &&
        grep -q "Unauthorized Request" n.err
    '
else
    test_skip 'the generic limit holds another user; refused in PBS words' \
        'needs a second user: run as root'
    test_skip 'only a manager may set limits' 'needs a second user'
fi

test_done
