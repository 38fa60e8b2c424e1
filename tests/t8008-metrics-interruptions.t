#!/bin/bash
# Preemptions, spot reclaims, checkpoints and cost on /metrics (issue 13,
# part 1, for issue 12's concepts): a job preempted by suspension, one by
# checkpoint (its checkpoint reported), a reclaim notice for a spot node
# that moves its jobs off (one with a checkpoint, one without) before the
# provider takes it; each is counted once, with the right labels, and
# promtool accepts the exposition.
. "$(dirname "$0")/lib.sh"

for tool in promtool curl; do
    command -v $tool >/dev/null || { echo "1..0 # SKIP $tool not installed (quickstart.sh installs it)"; exit 0; }
done

# node1: spot, 1 an hour; node2: on-demand, 2 an hour.
cluster_start 2 --cpus-per-worker 2 --labels 1=spot,price_per_hour=1 \
    --sched-config price_per_hour=2 --sched-config checkpoint_grace=20
http=$(sed -n 's/^http=//p' "$CLUSTER/state/scheduler.address")
qmgr -c "create queue express priority=200,enabled=true,started=true" &&
qmgr -c "create queue lows priority=-10,enabled=true,started=true,preempt_order=S" &&
qmgr -c "create queue lowc priority=-10,enabled=true,started=true,preempt_order=C" || exit 1

# A job that reports a checkpoint of 1 MiB whenever it is asked for one.
cat >ckpt.sh <<'EOS'
#!/bin/bash
trap 'hpcq-ckpt done --bytes 1048576' USR1
while :; do sleep 0.2; done
EOS

# metric SERIES: its value on /metrics now (the line as exposed, labels in order)
metric() { curl -sf "http://$http/metrics" | awk -v s="$1" '$1 == s { print $2 }'; }
metric_is() { [ "$(metric "$1")" = "$2" ]; }
has_session() { test -n "$(job_attr $1 session_id)"; }
node_of() { job_attr $1 exec_host | cut -d/ -f1; }

test_expect_success 'before anything: the series are there at zero, nodes by kind' '
    curl -sf "http://$http/metrics" >m0 &&
    grep -q "^# TYPE hpcq_preemptions_total counter" m0 &&
    grep -q "^# TYPE hpcq_checkpoint_duration_seconds histogram" m0 &&
    grep -q "^hpcq_checkpoint_size_bytes_count 0$" m0 &&
    grep -q "^hpcq_nodes_by_kind{node_kind=\"spot\",state=\"free\"} 1$" m0 &&
    grep -q "^hpcq_nodes_by_kind{node_kind=\"on_demand\",state=\"free\"} 1$" m0 &&
    promtool check metrics <m0
'

test_expect_success 'a spot job fills node1; a low job (S) runs on node2' '
    f=$(qsub -c s -l select=1:ncpus=1:host=node1 ckpt.sh) && echo $f >id.f &&
    g=$(echo "sleep 300" | qsub -c n -l select=1:ncpus=1:host=node1) && echo $g >id.g &&
    s=$(echo "sleep 300" | qsub -q lows -l select=1:ncpus=2) && echo $s >id.s &&
    wait_state $f R && wait_state $g R && wait_state $s R && test "$(node_of $s)" = node2 &&
    wait_until 30 has_session $f
'

test_expect_success 'preempted by suspension: hpcq_preemptions_total{how="suspend"}' '
    e=$(echo "sleep 300" | qsub -q express -l select=1:ncpus=2:host=node2) &&
    wait_state $e R 20 && wait_state $(cat id.s) S &&
    wait_until 10 metric_is "hpcq_preemptions_total{queue=\"lows\",how=\"suspend\"}" 1 &&
    metric_is "hpcq_preemptions_total{queue=\"lows\",how=\"requeue\"}" 0 &&
    metric_is "hpcq_jobs{queue=\"lows\",state=\"suspended\"}" 1 &&
    qdel $e && wait_state $e F && wait_state $(cat id.s) R 20 && qdel $(cat id.s) &&
    wait_state $(cat id.s) F
'

test_expect_success 'preempted by checkpoint: the checkpoint reported, counted, requeued' '
    c=$(qsub -c s -q lowc -l select=1:ncpus=2 ckpt.sh) && echo $c >id.c && wait_state $c R &&
    test "$(node_of $c)" = node2 && wait_until 30 has_session $c && sleep 1 &&
    e=$(echo "sleep 300" | qsub -q express -l select=1:ncpus=2:host=node2) && echo $e >id.e &&
    wait_state $e R 30 && wait_state $c Q &&
    wait_until 10 metric_is "hpcq_preemptions_total{queue=\"lowc\",how=\"checkpoint\"}" 1 &&
    metric_is "hpcq_checkpoints_total{queue=\"lowc\",result=\"ok\"}" 1 &&
    metric_is "hpcq_checkpoints_total{queue=\"lowc\",result=\"failed\"}" 0 &&
    metric_is hpcq_checkpoint_size_bytes_count 1 &&
    metric_is hpcq_checkpoint_size_bytes_sum 1048576 &&
    metric_is "hpcq_checkpoint_size_bytes_bucket{le=\"1e+07\"}" 1 &&
    metric_is "hpcq_checkpoint_size_bytes_bucket{le=\"1e+06\"}" 0 &&
    metric_is hpcq_checkpoint_duration_seconds_count 1 &&
    test "$(db_query "SELECT count(*) FROM checkpoints WHERE job_seq = $(seqno $c)")" = 1 &&
    test "$(db_query "SELECT method FROM preemptions WHERE job_seq = $(seqno $c)")" = C
'

test_expect_success 'a reclaim notice for node1: one job leaves with its checkpoint, one without' '
    pbsnodes --reclaim --notice 3 node1 &&
    wait_until 10 metric_is "hpcq_reclaim_notices_total{node_class=\"default\"}" 1 &&
    wait_until 20 metric_is "hpcq_reclaimed_jobs_total{queue=\"workq\",how=\"checkpoint\"}" 1 &&
    wait_until 20 metric_is "hpcq_reclaimed_jobs_total{queue=\"workq\",how=\"no_checkpoint\"}" 1 &&
    metric_is "hpcq_reclaimed_jobs_total{queue=\"workq\",how=\"lost\"}" 0 &&
    metric_is "hpcq_checkpoints_total{queue=\"workq\",result=\"ok\"}" 1 &&
    metric_is hpcq_checkpoint_size_bytes_count 2
'

# (pbsnodes --reclaim plays the provider: the worker comes back at once as
# a new node of the same name, and the jobs start on it again.)
test_expect_success 'the provider takes it: hpcq_nodes_reclaimed_total' '
    wait_until 20 metric_is "hpcq_nodes_reclaimed_total{node_class=\"default\"}" 1 &&
    metric_is "hpcq_reclaim_notices_total{node_class=\"default\"}" 1 &&
    metric_is "hpcq_preemptions_total{queue=\"workq\",how=\"requeue\"}" 0
'

test_expect_success 'what the ended attempts cost, on spot and on-demand nodes' '
    spot=$(metric "hpcq_job_cost_total{queue=\"workq\",node_kind=\"spot\"}") &&
    want=$(db_query "SELECT printf (\"%.6f\", sum (cost_spot)) FROM attempts a JOIN jobs j
                     ON j.seq = a.job_seq WHERE j.queue = \"workq\" AND a.cost IS NOT NULL") &&
    echo "spot $spot, attempts $want" && test "$spot" = "$want" &&
    python3 -c "import sys; sys.exit(not float(\"$spot\") > 0)" &&
    od=$(metric "hpcq_job_cost_total{queue=\"lowc\",node_kind=\"on_demand\"}") &&
    want=$(db_query "SELECT printf (\"%.6f\", sum (cost - cost_spot)) FROM attempts a JOIN jobs j
                     ON j.seq = a.job_seq WHERE j.queue = \"lowc\" AND a.cost IS NOT NULL") &&
    echo "lowc on-demand $od, attempts $want" && test "$od" = "$want"
'

test_expect_success 'promtool accepts the exposition with every series' '
    curl -sf "http://$http/metrics" >m1 && promtool check metrics <m1 &&
    grep -c "^hpcq_preemptions_total{" m1 | grep -qx 16
'

test_expect_success 'the counters start again at zero after a restart (Prometheus takes it as a reset)' '
    kill9_scheduler && hpcq-local start-scheduler $CLUSTER &&
    http=$(sed -n "s/^http=//p" "$CLUSTER/state/scheduler.address") &&
    wait_until 20 eval "curl -sf http://$http/metrics >m2" &&
    ! grep -q "^hpcq_preemptions_total{queue=\"lowc\",how=\"checkpoint\"} 1" m2
'

qdel $(cat id.c id.e id.f id.g) 2>/dev/null
test_done
