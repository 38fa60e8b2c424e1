#!/bin/bash
# hpcq-report: usage grouped by user, group, account, queue or job, as a
# table, CSV, JSON and a PNG chart; its totals are the sum over the jobs
# (its own per-job rows, and the accounting log's records, independently).
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --gpus-per-worker 1 \
    --worker-conf 2 'mig_layout = 0:1g.5gb*7'
state=$(sed -n 's/^state_dir = //p' "$CLUSTER/scheduler.conf")
export HPCQ_STATE_DIR=$state

# csv_col FILE KEY COLUMN: the value in the row of KEY
csv_col() {
    awk -F, -v k="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        $1 == k { print $h[c] }' "$1"
}
# close A B: the numbers agree to a millionth of an hour
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d < 1e-5 && d > -1e-5) }'; }

test_expect_success 'jobs of two accounts, a GPU, a MIG instance, a failure, a deletion' '
    a=$(echo "sleep 2" | qsub -A proj1 -l select=1:ncpus=2) &&
    b=$(echo "sleep 2" | qsub -A proj2 -l select=1:ncpus=1:ngpus=1) &&
    c=$(echo "sleep 1" | qsub -A proj2 -l select=1:ncpus=1:mig=1g.5gb) &&
    d=$(echo "exit 3" | qsub -A proj1) && e=$(echo true | qsub -h) && qdel $e &&
    for j in $a $b $c $d $e; do wait_state $j F 60 || exit 1; done &&
    echo "$a $b $c $d $e" > ids
'

test_expect_success 'the table: a row per account and the total' '
    hpcq-report --by account > table && cat table &&
    grep -q "^hpcq usage by account" table && grep -q "^proj1 " table &&
    grep -q "^proj2 " table && grep -q "^TOTAL " table
'

test_expect_success 'CSV: per account and per job; the totals are the sums of the rows' '
    hpcq-report --by account --csv > acc.csv && hpcq-report --by job --csv > job.csv &&
    cat acc.csv job.csv &&
    for col in jobs core_hours gpu_hours "mig_hours[1g.5gb]" failures requeues; do
        rows=$(awk -F, -v c="$col" "NR == 1 { for (i = 1; i <= NF; i++) h[\$i] = i; next }
               \$1 != \"TOTAL\" { s += \$h[c] } END { printf \"%.6f\", s }" job.csv) &&
        close "$rows" "$(csv_col job.csv TOTAL "$col")" &&
        close "$rows" "$(csv_col acc.csv TOTAL "$col")" || { echo "column $col: $rows"; exit 1; }
    done
'

test_expect_success 'the totals equal the accounting log'"'"'s records, summed job by job' '
    cat "$state"/accounting/* | awk -F";" "\$2 == \"E\" || \$2 == \"R\"" |
        grep -v "\[\]\." > usage.rec &&
    sum() { awk -v k="$1" "{ s = 0; e = 0; n = 0;
                 for (i = 1; i <= NF; i++) { split(\$i, kv, \"=\");
                     if (kv[1] == \"start\") s = kv[2]; if (kv[1] == \"end\") e = kv[2];
                     if (kv[1] == k) n = kv[2] }
                 t += (e - s) * n } END { printf \"%.6f\", t / 3600 }" usage.rec; } &&
    tr ";" " " < usage.rec > u && mv u usage.rec &&
    core=$(sum Resource_List.ncpus) && gpu=$(sum Resource_List.ngpus) &&
    echo "accounting: core $core gpu $gpu" &&
    close "$core" "$(csv_col job.csv TOTAL core_hours)" &&
    close "$gpu" "$(csv_col job.csv TOTAL gpu_hours)"
'

test_expect_success 'jobs, failures, MIG hours and waits are the jobs'"'"'' '
    read a b c d e < ids &&
    test "$(csv_col job.csv TOTAL jobs)" = 5 && test "$(csv_col job.csv TOTAL failures)" = 1 &&
    test "$(csv_col job.csv $d failures)" = 1 && test "$(csv_col job.csv $e core_hours)" = 0.000000 &&
    test "$(csv_col job.csv $c "mig_hours[1g.5gb]")" = "$(csv_col job.csv $c core_hours)" &&
    test "$(csv_col acc.csv proj1 jobs)" = 2 && test "$(csv_col acc.csv proj2 jobs)" = 2 &&
    test "$(csv_col acc.csv "(none)" jobs)" = 1
'

test_expect_success 'JSON: the same numbers' '
    hpcq-report --by account --json > r.json && jq . r.json > /dev/null &&
    test "$(jq .total.jobs r.json)" = 5 && test "$(jq ".rows | length" r.json)" = 3 &&
    test "$(jq -r ".rows[] | select(.account == \"proj1\") | .failures" r.json)" = 1 &&
    close "$(jq .total.core_hours r.json)" "$(csv_col acc.csv TOTAL core_hours)" &&
    test "$(hpcq-report --json | jq -r .rows[0].user)" = "$(id -un)"
'

test_expect_success 'by queue and group; a window that holds nothing' '
    hpcq-report --by queue --csv | grep -q "^workq,5," &&
    hpcq-report --by group --csv | grep -q "^$(id -gn),5," &&
    hpcq-report --from 2001-01-01 --to "2001-01-02 00:00" --csv | tail -1 | grep -q "^TOTAL,0,0.000000,"
'

test_expect_success '--png: a PNG chart of GPU-hours per day' '
    hpcq-report --png chart.png > /dev/null && test -s chart.png &&
    python3 -c "
import struct, sys
d = open(\"chart.png\", \"rb\").read()
assert d[:8] == b\"\\x89PNG\\r\\n\\x1a\\n\", \"not a PNG\"
w, h = struct.unpack(\">II\", d[16:24])
assert (w, h) == (960, 440), (w, h)
"
'

test_expect_success 'bad input: one line each, exit 2' '
    for args in "--by colour" "--from the-day-before" "--to 2020-13-45" "--csv --json" "extra" \
                "--from 2030-01-01 --to 2029-01-01"; do
        hpcq-report $args > out 2> err; rc=$?
        test $rc = 2 && test $(wc -l < err) = 1 && test ! -s out || { echo "$args: $rc"; cat err; exit 1; }
    done &&
    ! HPCQ_STATE_DIR=/nonexistent hpcq-report 2> err && test $(wc -l < err) = 1 &&
    grep -q "cannot open" err
'

test_done
