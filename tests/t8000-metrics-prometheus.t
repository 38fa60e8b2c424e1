#!/bin/bash
# /metrics scraped by a real Prometheus: its PromQL answers equal what qstat
# says, promtool accepts the exposition, every expression of the Grafana
# dashboard (docs/grafana/hpcq.json) runs, simulated GPUs export no
# telemetry; bad paths and methods get 404/405 and the daemon keeps
# serving; a bad metrics_listen stops the daemon at start with one line.
. "$(dirname "$0")/lib.sh"

for tool in prometheus promtool curl jq; do
    command -v $tool >/dev/null || { echo "1..0 # SKIP $tool not installed (quickstart.sh installs it)"; exit 0; }
done

cluster_start 2 --cpus-per-worker 2 --gpus-per-worker 1
http=$(sed -n 's/^http=//p' "$CLUSTER/state/scheduler.address")

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pport=$(free_port)
cat > "$TEST_ROOT/prom.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: hpcq
    static_configs:
      - targets: ['$http']
EOF
prometheus --config.file="$TEST_ROOT/prom.yml" --storage.tsdb.path="$TEST_ROOT/prom" \
    --web.listen-address="127.0.0.1:$pport" --log.level=warn > "$TEST_ROOT/prom.log" 2>&1 &
prom_pid=$!
trap 'kill $prom_pid 2>/dev/null; wait $prom_pid 2>/dev/null; test_cleanup' EXIT

# promql EXPR: the first value of an instant query (empty if none)
promql() {
    curl -s --get --data-urlencode "query=$1" "http://127.0.0.1:$pport/api/v1/query" |
        jq -r 'if .status == "success" then (.data.result[0].value[1] // "") else "ERROR: \(.error)" end'
}
# qstat_count STATE: jobs qstat shows in that state
qstat_count() { qstat | awk -v s="$1" 'NR > 2 && $5 == s' | wc -l; }
agrees() { [ "$(promql "$1")" = "$2" ]; }

test_expect_success 'Prometheus starts and scrapes the scheduler' '
    wait_until 60 sh -c "curl -sf http://127.0.0.1:$pport/-/ready >/dev/null" &&
    wait_until 30 agrees "up{job=\"hpcq\"}" 1
'

test_expect_success 'promtool check metrics accepts the exposition' '
    curl -sf "http://$http/metrics" > metrics.txt &&
    grep -q "^# TYPE hpcq_jobs gauge" metrics.txt &&
    promtool check metrics < metrics.txt
'

test_expect_success 'jobs running, queued and held' '
    a=$(echo "sleep 300" | qsub -l select=1:ncpus=2) && b=$(echo "sleep 300" | qsub -l select=1:ncpus=2) &&
    wait_state $a R && wait_state $b R &&
    c=$(echo true | qsub) && d=$(echo true | qsub) && e=$(echo true | qsub -h) &&
    wait_state $c Q && wait_state $e H && echo "$a $b $c $d $e" > ids
'

test_expect_success 'sum(hpcq_jobs{state="running"}) is what qstat shows running' '
    test $(qstat_count R) = 2 && wait_until 20 agrees "sum(hpcq_jobs{state=\"running\"})" 2
'

test_expect_success 'queued and held too, and the submissions counted' '
    test $(qstat_count Q) = 2 && test $(qstat_count H) = 1 &&
    wait_until 20 agrees "sum(hpcq_jobs{state=\"queued\"})" 2 &&
    agrees "sum(hpcq_jobs{state=\"held\"})" 1 &&
    agrees "sum(hpcq_jobs_submitted_total)" 5 &&
    agrees "sum(hpcq_jobs_started_total)" 2
'

test_expect_success 'nodes and cores: allocated against total, per node and in all' '
    agrees "hpcq_cpus" 4 && agrees "hpcq_cpus_allocated" 4 &&
    agrees "sum(hpcq_node_cpus_allocated)" 4 && agrees "hpcq_nodes{state=\"job-busy\"}" 2 &&
    test "$(pbsnodes -a | grep -c "state = job-busy")" = 2
'

test_expect_success 'simulated GPUs are counted for allocation but export no telemetry' '
    curl -sf "http://$http/metrics" > m2.txt && grep -q "^hpcq_gpus 2$" m2.txt &&
    ! grep -q "^DCGM_FI_DEV" m2.txt
'

test_expect_success 'every PromQL expression of the Grafana dashboard runs' '
    jq -r ".. | objects | .expr? // empty" "$HPCQ_SRCDIR/docs/grafana/hpcq.json" > exprs &&
    test $(wc -l < exprs) -ge 20 &&
    while read -r e; do
        q=$(printf "%s" "$e" | sed -e "s/\\\$__rate_interval/30s/g" -e "s/\\\$node/.*/g" \
            -e "s/\\\$queue/.*/g")
        out=$(promql "$q")
        case $out in ERROR*) echo "FAILED: $q: $out"; exit 1 ;; esac
    done < exprs
'

test_expect_success 'and the queue, utilisation and node panels have data' '
    test -n "$(promql "sum by (state) (hpcq_jobs{queue=~\".*\",state=~\"queued|held|waiting\"})")" &&
    agrees "hpcq_cpus_allocated / hpcq_cpus" 1 &&
    test -n "$(promql "hpcq_node_cpus_allocated{node=~\".*\"} / hpcq_node_cpus{node=~\".*\"}")"
'

test_expect_success 'an unknown path is 404, a write method 405, HEAD and GET serve' '
    test "$(curl -s -o /dev/null -w "%{http_code}" "http://$http/nope")" = 404 &&
    test "$(curl -s -o /dev/null -w "%{http_code}" "http://$http/api/v1/nothing")" = 404 &&
    test "$(curl -s -o /dev/null -w "%{http_code}" -X POST -d x=1 "http://$http/metrics")" = 405 &&
    test "$(curl -s -o /dev/null -w "%{http_code}" -X DELETE "http://$http/api/v1/jobs")" = 405 &&
    curl -s -D - -o /dev/null -X POST "http://$http/api/v1/jobs" | grep -qi "^allow: GET, HEAD" &&
    test "$(curl -s -o /dev/null -w "%{http_code}" -I "http://$http/metrics")" = 200
'

test_expect_success 'a malformed request does not stop the daemon' '
    host=${http%:*} port=${http##*:} &&
    { exec 3<>/dev/tcp/$host/$port && printf "GARBAGE\r\n\r\n" >&3 &&
      timeout 5 cat <&3 > garbage.out; exec 3<&-; true; } &&
    { head -1 garbage.out | grep -q "^HTTP/1.1 400" || test ! -s garbage.out; } &&
    test "$(curl -s -o /dev/null -w "%{http_code}" "http://$http/metrics")" = 200 &&
    qstat > /dev/null
'

test_expect_success 'Prometheus saw no failed scrape all along' '
    agrees "min_over_time(up{job=\"hpcq\"}[5m])" 1 &&
    { qdel $(cat ids) 2>/dev/null; true; } && wait_state $(cut -d" " -f1 ids) F
'

# A scheduler of its own with a bad metrics_listen: one line, non-zero exit.
bad_sched() {
    mkdir -p "$TEST_ROOT/bad$1"
    printf "state_dir = %s/bad%s\nlisten = 127.0.0.1:0\nmetrics_listen = %s\n" \
        "$TEST_ROOT" "$1" "$2" > "$TEST_ROOT/bad$1.conf"
    hpcq-scheduler --config "$TEST_ROOT/bad$1.conf" --log-file "$TEST_ROOT/bad$1.log" \
        > "$TEST_ROOT/bad$1.out" 2> "$TEST_ROOT/bad$1.err"
}
test_expect_success 'a malformed metrics_listen stops the daemon at start with one line' '
    ! bad_sched 1 "not-an-address" && cat "$TEST_ROOT/bad1.err" &&
    test $(wc -l < "$TEST_ROOT/bad1.err") = 1 &&
    grep -q "invalid metrics_listen .not-an-address." "$TEST_ROOT/bad1.err" &&
    ! bad_sched 2 "127.0.0.1:99999" && test $(wc -l < "$TEST_ROOT/bad2.err") = 1
'

test_expect_success 'so does an address in use' '
    ! bad_sched 3 "$http" && cat "$TEST_ROOT/bad3.err" && test $(wc -l < "$TEST_ROOT/bad3.err") = 1 &&
    grep -q "cannot listen on metrics_listen $http: Address already in use" "$TEST_ROOT/bad3.err" &&
    test ! -S "$TEST_ROOT/bad3/hpcq.sock"
'

test_done
