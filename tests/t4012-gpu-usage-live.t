#!/bin/bash
# A running job's GPU usage (issue 26 part 3): the worker's periodic usage
# report (node.usage, every usage_interval; the heartbeat is not touched)
# carries the job's GPU figures so far and each GPU's latest, so qstat -f
# shows resources_used.gpu_* while the job runs; with metrics_job_gpu on,
# /metrics has per-job GPU series (hpcq_job_gpu_utilization,
# _memory_used_bytes, _energy_joules_total with jobid, user, node, gpu and
# simulated labels), scraped here by a real Prometheus, for running jobs
# only and only for those who may see every job; off by default.
# Simulated GPUs with fixed figures (sim_gpu_*): exact values, labelled.
. "$(dirname "$0")/lib.sh"

for tool in curl jq; do
    command -v $tool >/dev/null || { echo "1..0 # SKIP $tool not installed (quickstart.sh installs it)"; exit 0; }
done

cluster_start 1 --cpus-per-worker 2 --gpus-per-worker 2 --kill-delay 1 \
    --sched-config metrics_job_gpu=true \
    --worker-conf 1 'usage_interval = 1' \
    --worker-conf 1 'sim_gpu_util = 40' --worker-conf 1 'sim_gpu_power = 250' \
    --worker-conf 1 'sim_gpu_mem_used = 2gb'
http=$(sed -n 's/^http=//p' "$CLUSTER/state/scheduler.address")
other_users_setup true

# Seconds of GPU time qstat -f shows so far (its gpu_hours, 6 decimals).
gpu_secs() { awk -v h="$(job_attr "$1" resources_used.gpu_hours)" 'BEGIN { printf "%d", h * 3600 + 0.5 }'; }
live_gpu() { [ -n "$(job_attr "$1" resources_used.gpu_hours)" ] && [ "$(gpu_secs "$1")" -ge 2 ]; }
series() { grep "^$1{jobid=\"$2\"" "${3:-m.txt}"; }

test_expect_success 'a running 2-GPU job: resources_used.gpu_* in qstat -f while it runs' '
    g=$(echo "sleep 300" | qsub -l select=1:ncpus=1:ngpus=2) && wait_state $g R &&
    echo $g > g && wait_until 30 live_gpu $g &&
    qstat -f $g | grep "resources_used" &&
    test "$(job_state $g)" = R &&
    test "$(job_attr $g resources_used.gpu_util_mean)" = 40.0 &&
    test "$(job_attr $g resources_used.gpu_mem_peak)" = 2gb &&
    test "$(job_attr $g resources_used.gpu_simulated)" = True &&
    s=$(gpu_secs $g) && e=$(job_attr $g resources_used.gpu_energy_j) &&
    echo "gpu seconds $s energy $e" && test $((s % 2)) = 0 && test "$e" = $((250 * s))
'

test_expect_success 'the figures grow as the job runs' '
    g=$(cat g) && s1=$(gpu_secs $g) &&
    wait_until 30 eval "test \$(gpu_secs $g) -gt $s1"
'

test_expect_success '/metrics: one series per GPU of the job, exact, labelled simulated' '
    g=$(cat g) && curl -sf "http://$http/metrics" > m.txt &&
    grep "^hpcq_job_gpu" m.txt &&
    grep -q "^# TYPE hpcq_job_gpu_utilization gauge" m.txt &&
    grep -q "^# TYPE hpcq_job_gpu_energy_joules_total counter" m.txt &&
    test "$(series hpcq_job_gpu_utilization $g | wc -l)" = 2 &&
    series hpcq_job_gpu_utilization $g | grep -q "^hpcq_job_gpu_utilization{jobid=\"$g\",user=\"$(id -un)\",node=\"node1\",gpu=\"0\",simulated=\"true\"} 40$" &&
    series hpcq_job_gpu_utilization $g | grep -q ",gpu=\"1\",simulated=\"true\"} 40$" &&
    test "$(series hpcq_job_gpu_memory_used_bytes $g | grep -c "} 2147483648$")" = 2 &&
    series hpcq_job_gpu_energy_joules_total $g | awk "{ v = \$NF; if (v <= 0 || v % 250) bad = 1; n++ } END { exit bad || n != 2 }"
'

test_expect_success 'promtool accepts the exposition with the per-job series' '
    command -v promtool >/dev/null || { echo "# promtool not installed"; return 0; }
    promtool check metrics < m.txt
'

test_expect_success 'a real Prometheus scrapes them' '
    command -v prometheus >/dev/null || { echo "# prometheus not installed: curl only"; return 0; }
    g=$(cat g) &&
    pport=$(python3 -c "import socket; s=socket.socket(); s.bind((\"127.0.0.1\",0)); print(s.getsockname()[1])") &&
    printf "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: hpcq\n    static_configs:\n      - targets: [\"%s\"]\n" "$http" > prom.yml &&
    { prometheus --config.file=prom.yml --storage.tsdb.path=prom \
        --web.listen-address=127.0.0.1:$pport --log.level=warn > prom.log 2>&1 & echo $! > prom.pid; } &&
    promql() { curl -s --get --data-urlencode "query=$1" "http://127.0.0.1:$pport/api/v1/query" |
        jq -r "if .status == \"success\" then (.data.result[0].value[1] // \"\") else \"ERROR\" end"; } &&
    agrees() { [ "$(promql "$1")" = "$2" ]; } &&
    wait_until 60 agrees "hpcq_job_gpu_utilization{jobid=\"$g\",gpu=\"1\"}" 40 &&
    agrees "sum(hpcq_job_gpu_memory_used_bytes{jobid=\"$g\"})" 4294967296 &&
    agrees "count(hpcq_job_gpu_energy_joules_total{jobid=\"$g\",simulated=\"true\"})" 2;
    rc=$?; kill $(cat prom.pid) 2>/dev/null; wait $(cat prom.pid) 2>/dev/null; return $rc
'

test_expect_success 'someone who may not see every job gets no per-job series' '
    test -z "$other_users" && { echo "# cannot run as nobody here"; return 0; }
    as_user nobody curl -sf "http://$http/metrics" > $PUB/n.txt &&
    grep -q "^hpcq_jobs{" $PUB/n.txt && ! grep -q "^hpcq_job_gpu" $PUB/n.txt
'

test_expect_success 'a CPU-only running job has no GPU figures and no series' '
    c=$(echo "sleep 300" | qsub -l select=1:ncpus=1) && wait_state $c R && echo $c > c &&
    wait_until 30 eval "qstat -f $c | grep -q resources_used.cput" && sleep 2 &&
    ! qstat -f $c | grep -q resources_used.gpu &&
    curl -sf "http://$http/metrics" > m2.txt && ! series hpcq_job_gpu_utilization $c m2.txt
'

test_expect_success 'ended jobs leave the series; their final figures stay in qstat -x -f' '
    g=$(cat g) && c=$(cat c) && qdel $g $c && wait_state $g F 60 && wait_state $c F 60 &&
    curl -sf "http://$http/metrics" > m3.txt && ! grep -q "^hpcq_job_gpu_[a-z_]*{" m3.txt &&
    grep -q "^# HELP hpcq_job_gpu_utilization" m3.txt &&
    test "$(job_attr $g resources_used.gpu_util_mean)" = 40.0
'

# own_conf FILE LINE...: the cluster's scheduler settings but its places
# and metrics_job_gpu, with LINEs.
own_conf() {
    local f=$1
    shift
    sed -e "/^state_dir/d" -e "/^socket/d" -e "/^listen/d" -e "/^metrics_/d" \
        $CLUSTER/scheduler.conf > $f && echo "metrics_listen = 127.0.0.1:0" >> $f &&
        printf "%s\n" "$@" >> $f
}

# A scheduler of its own, beside the cluster's, with the cluster's settings
# but the one given: what its /metrics says.
other_scheduler() {
    local dir=$WORK/other.$RANDOM
    own_conf other.conf "$@" &&
    mkdir -p $dir && hpcq-scheduler --config other.conf --state-dir $dir --socket $dir.sock \
        --listen 127.0.0.1:0 --log-file $WORK/other.log 2> other.err &
    echo $! > other.pid
    wait_until 30 eval "grep -q ^http= $dir/scheduler.address 2>/dev/null" &&
    curl -sf "http://$(sed -n "s/^http=//p" $dir/scheduler.address)/metrics" > other.txt
    local rc=$?
    kill "$(cat other.pid)" 2>/dev/null; wait "$(cat other.pid)" 2>/dev/null
    return $rc
}

test_expect_success 'off by default: no per-job GPU families at all' '
    other_scheduler && grep -q "^hpcq_jobs_in_memory" other.txt &&
    ! grep -q "hpcq_job_gpu" other.txt
'

test_expect_success 'a bad metrics_job_gpu stops the scheduler at start, in one line' '
    own_conf bad.conf "metrics_job_gpu = maybe" &&
    ! hpcq-scheduler --config bad.conf --state-dir $WORK/bad --socket $WORK/bad.sock \
        --listen 127.0.0.1:0 --log-file $WORK/bad.log 2> bad.err &&
    cat bad.err && test "$(wc -l < bad.err)" = 1 &&
    test "$(cat bad.err)" = "hpcq-scheduler: metrics_job_gpu: invalid value '\''maybe'\'' (true or false)"
'

test_done
