#!/bin/bash
# hpcq-report's preemptions, reclaims and cost (issue 13, part 4, with
# issue 12's concepts): jobs on a spot node and an on-demand node, one
# preempted by checkpoint and requeued, one moved off a spot node by a
# reclaim; the report's columns, per queue and in all, equal the sums
# over the jobs' own records read with sqlite3 (attempts, preemptions,
# checkpoints), and what on-demand would have cost follows the on-demand
# price of the spot node.
. "$(dirname "$0")/lib.sh"

# node1: spot at 360 an hour (on demand it would be 1440); node2:
# on-demand at 720 (prices large enough for whole-second runs to show).
cluster_start 2 --cpus-per-worker 2 --labels 1=spot,price_per_hour=360,ondemand_price_per_hour=1440 \
    --sched-config price_per_hour=720 --sched-config checkpoint_grace=20
state=$(sed -n 's/^state_dir = //p' "$CLUSTER/scheduler.conf")
export HPCQ_STATE_DIR=$state
qmgr -c "create queue express priority=200,enabled=true,started=true" &&
qmgr -c "create queue low priority=-10,enabled=true,started=true,preempt_order=C" || exit 1

cat >ckpt.sh <<'EOS'
#!/bin/bash
trap 'sleep 0.3; hpcq-ckpt done --bytes 4096' USR1
while :; do sleep 0.2; done
EOS

# csv_col FILE KEY COLUMN: the value in the row of KEY
csv_col() {
    awk -F, -v k="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        $1 == k { print $h[c] }' "$1"
}
# close A B [TOL]: the numbers agree (to 1e-5 by default)
close() { awk -v a="$1" -v b="$2" -v t="${3:-0.00001}" 'BEGIN { d = a - b; exit !(d <= t && d >= -t) }'; }
has_session() { test -n "$(job_attr $1 session_id)"; }
run_count_is() { test "$(job_attr $1 run_count)" = "$2"; }
sq() { db_query "$1"; }

test_expect_success 'a job on the spot node and one on the on-demand node' '
    a=$(echo "sleep 2" | qsub -l select=1:ncpus=1:host=node1) &&
    b=$(echo "sleep 2" | qsub -l select=1:ncpus=2:host=node2) &&
    wait_state $a F 30 && wait_state $b F 30 && echo "$a $b" >ids
'

test_expect_success 'a low job preempted by checkpoint (C), requeued, run again' '
    c=$(qsub -c s -q low -l select=1:ncpus=2:host=node2 ckpt.sh) && wait_state $c R &&
    wait_until 30 has_session $c && sleep 1 &&
    e=$(echo "sleep 2" | qsub -q express -l select=1:ncpus=2:host=node2) &&
    wait_state $e R 30 && wait_state $e F 30 && wait_until 30 run_count_is $c 2 &&
    wait_state $c R && wait_until 30 has_session $c && sleep 1 && qdel $c && wait_state $c F &&
    echo "$c $e" >>ids
'

test_expect_success 'a spot job moved off node1 by a reclaim, after its checkpoint' '
    r=$(qsub -c s -l select=1:ncpus=1:host=node1 ckpt.sh) && wait_state $r R &&
    wait_until 30 has_session $r && sleep 1 &&
    pbsnodes --reclaim --notice 3 node1 && wait_until 20 run_count_is $r 2 &&
    wait_state $r R 30 && sleep 1 && qdel $r && wait_state $r F && echo $r >>ids &&
    test "$(sq "SELECT count(*) FROM attempts WHERE job_seq = $(seqno $r) AND reason LIKE \"reclaimed:%\"")" = 1
'

test_expect_success 'the report per queue, as CSV' '
    hpcq-report --by queue --from 0 --csv >q.csv && cat q.csv &&
    head -1 q.csv | grep -q ",preemptions,reclaims,cost,cost_spot,cost_if_ondemand,saved,checkpoints,ckpt_s,ckpt_cost$"
'

test_expect_success 'preemptions and reclaims: per queue and in all, as the records say' '
    test "$(csv_col q.csv low preemptions)" = 1 && test "$(csv_col q.csv workq preemptions)" = 0 &&
    test "$(csv_col q.csv TOTAL preemptions)" = "$(sq "SELECT count(*) FROM preemptions")" &&
    test "$(csv_col q.csv workq reclaims)" = 1 && test "$(csv_col q.csv low reclaims)" = 0 &&
    test "$(csv_col q.csv TOTAL reclaims)" = 1
'

test_expect_success 'cost: the total is the attempts sum, spot and on-demand apart' '
    test "$(sq "SELECT count(*) FROM attempts WHERE cost IS NULL")" = 0 &&
    for col in "cost:cost" "cost_spot:cost_spot" "cost_if_ondemand:cost_ondemand"; do
        want=$(sq "SELECT printf (\"%.6f\", sum (${col#*:})) FROM attempts") &&
        got=$(csv_col q.csv TOTAL ${col%%:*}) && echo "${col%%:*}: report $got, attempts $want" &&
        close "$got" "$want" || exit 1
    done &&
    for q in workq low express; do
        want=$(sq "SELECT printf (\"%.6f\", sum (a.cost)) FROM attempts a JOIN jobs j ON j.seq = a.job_seq
                   WHERE j.queue = \"$q\"") &&
        close "$(csv_col q.csv $q cost)" "$want" || { echo "$q: $want"; exit 1; }
    done
'

test_expect_success 'on demand the spot hours would have cost 4 times as much; saved is the difference' '
    spot=$(csv_col q.csv TOTAL cost_spot) && cost=$(csv_col q.csv TOTAL cost) &&
    od=$(csv_col q.csv TOTAL cost_if_ondemand) && saved=$(csv_col q.csv TOTAL saved) &&
    echo "cost $cost (spot $spot), on demand $od, saved $saved" &&
    close "$od" "$(echo "$cost - $spot + 4 * $spot" | bc -l)" 0.00003 &&
    close "$saved" "$(echo "$od - $cost" | bc -l)" 0.00002 &&
    awk -v s="$saved" "BEGIN { exit !(s > 0.1) }" &&
    close "$(csv_col q.csv low cost_spot)" 0
'

test_expect_success 'checkpoints: count, seconds and cost from the checkpoints and their attempts' '
    test "$(csv_col q.csv TOTAL checkpoints)" = "$(sq "SELECT count(*) FROM checkpoints")" &&
    test "$(csv_col q.csv TOTAL checkpoints)" = 2 &&
    close "$(csv_col q.csv TOTAL ckpt_s)" "$(sq "SELECT sum (duration) FROM checkpoints")" 0.001 &&
    want=$(sq "SELECT printf (\"%.6f\", sum (c.duration * a.cost
                       / (a.end_time - a.start_time - coalesce (a.suspended, 0))))
               FROM checkpoints c JOIN attempts a ON a.job_seq = c.job_seq AND a.attempt = c.attempt") &&
    echo "checkpoint cost: report $(csv_col q.csv TOTAL ckpt_cost), records $want" &&
    close "$(csv_col q.csv TOTAL ckpt_cost)" "$want" &&
    awk -v c="$want" "BEGIN { exit !(c > 0) }" &&
    test "$(csv_col q.csv low checkpoints)" = 1 && test "$(csv_col q.csv workq checkpoints)" = 1
'

test_expect_success 'per job the rows add up to the same totals' '
    hpcq-report --by job --from 0 --csv >j.csv &&
    for col in preemptions reclaims cost cost_spot cost_if_ondemand saved checkpoints ckpt_cost; do
        rows=$(awk -F, -v c="$col" "NR == 1 { for (i = 1; i <= NF; i++) h[\$i] = i; next }
               \$1 != \"TOTAL\" { s += \$h[c] } END { printf \"%.6f\", s }" j.csv) &&
        close "$rows" "$(csv_col j.csv TOTAL $col)" 0.00002 &&
        close "$rows" "$(csv_col q.csv TOTAL $col)" 0.00002 || { echo "$col: $rows"; exit 1; }
    done
'

test_expect_success 'JSON and the table say the same; the days (what --png draws) add up to the cost' '
    since=$(date -d "1 day ago" +%Y-%m-%d) &&
    hpcq-report --by queue --from $since --json >q.json && jq -c ".total, .days" q.json &&
    close "$(jq .total.cost q.json)" "$(csv_col q.csv TOTAL cost)" &&
    close "$(jq .total.saved q.json)" "$(csv_col q.csv TOTAL saved)" &&
    test "$(jq .total.reclaims q.json)" = 1 && test "$(jq .total.preemptions q.json)" = 1 &&
    close "$(jq "[.days[].cost] | add" q.json)" "$(csv_col q.csv TOTAL cost)" 0.0001 &&
    hpcq-report --by queue --from 0 >table && cat table &&
    grep -q "cost_if_ondemand" table && grep -q "^TOTAL " table &&
    hpcq-report --from $since --png chart.png >/dev/null && test -s chart.png
'

test_expect_success 'a bad ondemand_price_per_hour stops the scheduler with one line' '
    mkdir -p bad && printf "state_dir = %s\nlisten = 127.0.0.1:0\nondemand_price_per_hour.spot = cheap\n" \
        "$PWD/bad" >bad.conf &&
    ! hpcq-scheduler --config bad.conf --log-file bad.log >out 2>err && cat err &&
    test $(wc -l <err) = 1 && grep -q "invalid ondemand_price_per_hour.spot .cheap." err
'

test_done
