#!/bin/bash
# hpcq-report as an administrator first meets it (issue 27, item 9): it
# finds the cluster HPCQ_SERVER names (hpcq-local's export line) by asking
# the scheduler; the table shows the columns that have data; --by job in
# number order; a running job is a job; a qdel'd job is deleted, not a
# failure; relative dates; --png says where it wrote, and its chart names
# the currency and draws core-hours.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --sched-config price_per_hour=3600 \
    --sched-config currency=EUR
unset HPCQ_STATE_DIR
export HPCQ_CONFIG=$TEST_ROOT/no-such.conf
csv_col() {
    awk -F, -v k="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        $1 == k { print $h[c] }' "$1"
}

test_expect_success 'jobs that end, fail, run on, and one qdel'"'"'d while it runs' '
    for i in $(seq 1 11); do echo true | qsub >> quick || exit 1; done &&
    f=$(echo "exit 3" | qsub) && r=$(echo "sleep 300" | qsub) && d=$(echo "sleep 300" | qsub) &&
    wait_state $r R && wait_state $d R && sleep 1 && qdel $d && wait_state $d F && wait_state $f F &&
    for j in $(cat quick); do wait_state $j F || exit 1; done &&
    echo "$f $r $d" > ids
'

test_expect_success 'with only HPCQ_SERVER set it finds the database by asking the scheduler' '
    # --to a second already past, after the ended jobs ended, so the running
    # job counts up to it in both reports, not up to each report'"'"'s own now.
    sleep 1.1 && t=$(date +%s) && sleep 1.1 &&
    test -n "$HPCQ_SERVER" && hpcq-report --to $t --csv > all.csv && cat all.csv &&
    test "$(csv_col all.csv TOTAL jobs)" = 14 &&
    state=$(sed -n "s/^state_dir = //p" $CLUSTER/scheduler.conf) &&
    hpcq-report --to $t --csv --state-dir "$state" | diff - all.csv
'

test_expect_success 'with no scheduler and no config: one line that says what to give' '
    ! env -u HPCQ_SERVER hpcq-report > out 2> err && cat err && test ! -s out &&
    test $(wc -l < err) = 1 && grep -q "cannot find the database: no scheduler named" err &&
    grep -q -- "--state-dir" err &&
    ! HPCQ_SERVER=unix:$TEST_ROOT/nothing.sock hpcq-report 2> err && test $(wc -l < err) = 1 &&
    grep -q "asking the scheduler" err
'

test_expect_success 'a running job is a job; a qdel'"'"'d one is deleted, not failed' '
    read f r d < ids && hpcq-report --by job --csv > job.csv &&
    test "$(csv_col job.csv $r jobs)" = 1 && test "$(csv_col job.csv $r running)" = 1 &&
    awk -v h="$(csv_col job.csv $r core_hours)" "BEGIN { exit !(h > 0) }" &&
    test "$(csv_col job.csv $d deleted)" = 1 && test "$(csv_col job.csv $d failures)" = 0 &&
    test "$(csv_col job.csv $f failures)" = 1 && test "$(csv_col job.csv $f deleted)" = 0 &&
    test "$(csv_col all.csv TOTAL failures)" = 1 && test "$(csv_col all.csv TOTAL deleted)" = 1 &&
    test "$(csv_col all.csv TOTAL running)" = 1 &&
    hpcq-report --json | jq -e ".total.running == 1 and .total.deleted == 1 and .total.failures == 1"
'

test_expect_success '--by job: in number order (9 before 10)' '
    hpcq-report --by job > table && cat table &&
    awk "/^[0-9]+\\./ { print \$1 }" table > ids.shown && test $(wc -l < ids.shown) = 14 &&
    sort -t. -k1,1n ids.shown | diff - ids.shown &&
    test "$(head -1 ids.shown)" = "$(head -1 quick)" &&
    hpcq-report --by job --csv | awk -F, "NR > 1 && \$1 != \"TOTAL\" { print \$1 }" | diff - ids.shown
'

test_expect_success 'the table: the columns with data, under 100 characters; the rest named' '
    hpcq-report > t.txt && cat t.txt && test $(awk "{ print length }" t.txt | sort -n | tail -1) -le 100 || {
        awk "length > 100" t.txt | head -3; exit 1; } &&
    head -3 t.txt | grep -q "(cost in EUR)" &&
    for c in jobs running core_hours failures deleted cost; do
        sed -n 3p t.txt | grep -qw $c || { echo "no $c"; exit 1; }
    done &&
    ! sed -n 3p t.txt | grep -qw gpu_hours && ! sed -n 3p t.txt | grep -qw ckpt_cost &&
    sed -n "/^0 in every row, not shown (--wide shows them/,\$p" t.txt > hidden &&
    grep -q "^  gpu_hours, " hidden && grep -q "ckpt_cost$" hidden &&
    hpcq-report --wide | sed -n 3p | grep -qw ckpt_cost &&
    test $(hpcq-report --wide | sed -n 3p | wc -w) = $(( $(head -1 all.csv | tr , " " | wc -w) ))
'

test_expect_success 'relative dates: yesterday, today, now, -7d, -2h; others refused in one line' '
    hpcq-report --from yesterday | head -1 | grep -q "by user, $(date -d yesterday +%F) 00:00:00 to " &&
    hpcq-report --from today --to now | head -1 | grep -q "by user, $(date +%F) 00:00:00 to $(date +%F)" &&
    hpcq-report --from -7d | head -1 | grep -q "by user, $(date -d "7 days ago" +%F) " &&
    test "$(hpcq-report --from -2h --csv | csv_col /dev/stdin TOTAL jobs)" = 14 &&
    test "$(hpcq-report --from -1w --to -6d --csv | csv_col /dev/stdin TOTAL jobs)" = 0 &&
    for w in -7x 7d -d tomorrow -; do
        hpcq-report --from "$w" > out 2> err; rc=$?
        test $rc = 2 && test $(wc -l < err) = 1 && grep -q "invalid --from" err || { echo "$w: $rc"; exit 1; }
    done
'

test_expect_success '--png says where it wrote; the chart names the currency and has core-hours' '
    hpcq-report --from today --csv --png chart.png > out.csv 2> err && cat err &&
    grep -qx "hpcq-report: wrote chart.png (core-, GPU-hours and cost per day, .*)" err &&
    test "$(head -1 out.csv | cut -d, -f1)" = user && test -s chart.png &&
    hpcq-report --from today --currency CHF --png chf.png > /dev/null 2>&1 && ! cmp -s chart.png chf.png &&
    hpcq-report --from today --json | jq -e "[.days[].core_hours] | add > 0" &&
    python3 -c "
import struct
d = open(\"chart.png\", \"rb\").read()
assert d[:8] == b\"\\x89PNG\\r\\n\\x1a\\n\"
assert struct.unpack(\">II\", d[16:24]) == (960, 440)
"
'

test_expect_success 'cleanup' 'read f r d < ids; qdel $r; true'

test_done
