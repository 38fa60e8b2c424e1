#!/bin/bash
# What a job used of its GPUs (issue 26 part 3): with simulated GPUs the
# worker gives fixed figures (sim_gpu_util, sim_gpu_power,
# sim_gpu_mem_used), so the totals are exact: resources_used.gpu_hours,
# gpu_util_mean, gpu_mem_peak and gpu_energy_j in qstat -f, the accounting
# E record and hpcq-report (per user and per queue), labelled simulated; a
# CPU job has none.  (Readings of real GPUs, and the bounds on what a
# worker may report, are worker/test/test_gpuuse's.)
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2 --gpus-per-worker 2 --kill-delay 1 \
    --worker-conf 1 'sim_gpu_util = 40' --worker-conf 1 'sim_gpu_power = 250' \
    --worker-conf 1 'sim_gpu_mem_used = 2gb'
state=$(sed -n 's/^state_dir = //p' "$CLUSTER/scheduler.conf")
export HPCQ_STATE_DIR=$state
acct=$state/accounting
record() { cat "$acct"/* 2>/dev/null | awk -F';' -v id="$1" -v t="$2" '$3 == id && $2 == t'; }
has_e() { [ -n "$(record "$1" E)" ]; }
secs() { echo "$1" | awk -F: '{ print $1 * 3600 + $2 * 60 + $3 }'; }

test_expect_success 'a 2-GPU job: exact GPU figures in resources_used, labelled simulated' '
    g=$(echo "sleep 2" | qsub -l select=1:ncpus=1:ngpus=2) && wait_state $g F 60 &&
    echo $g > g && qstat -x -f $g | grep resources_used &&
    w=$(secs "$(job_attr $g resources_used.walltime)") && echo "wall $w" && test "$w" -ge 2 &&
    test "$(job_attr $g resources_used.gpu_hours)" = "$(awk -v w=$w "BEGIN { printf \"%.6f\", 2 * w / 3600 }")" &&
    test "$(job_attr $g resources_used.gpu_energy_j)" = "$((250 * 2 * w))" &&
    test "$(job_attr $g resources_used.gpu_util_mean)" = 40.0 &&
    test "$(job_attr $g resources_used.gpu_mem_peak)" = 2gb &&
    test "$(job_attr $g resources_used.gpu_simulated)" = True
'

test_expect_success 'a CPU-only job has no GPU figures' '
    c=$(echo "sleep 1" | qsub -l select=1:ncpus=1) && wait_state $c F 60 && echo $c > c &&
    qstat -x -f $c > c.out && grep -q "resources_used.walltime" c.out &&
    ! grep -q "resources_used.gpu" c.out
'

test_expect_success 'the accounting E record carries them; the CPU job'\''s does not' '
    g=$(cat g) && c=$(cat c) && wait_until 20 has_e $g && wait_until 20 has_e $c &&
    e=$(record $g E) && echo "$e" &&
    w=$(secs "$(job_attr $g resources_used.walltime)") &&
    echo "$e" | grep -q " resources_used.gpu_hours=$(awk -v w=$w "BEGIN { printf \"%.6f\", 2 * w / 3600 }") " &&
    echo "$e" | grep -q " resources_used.gpu_util_mean=40.0 " &&
    echo "$e" | grep -q " resources_used.gpu_mem_peak=2097152kb " &&
    echo "$e" | grep -q " resources_used.gpu_energy_j=$((250 * 2 * w))$" &&
    ! record $c E | grep -q gpu_
'

test_expect_success 'hpcq-report: GPU energy and mean utilisation per user and per queue' '
    g=$(cat g) && w=$(secs "$(job_attr $g resources_used.walltime)") &&
    hpcq-report --by user --json > u.json && jq -c ".rows[0]" u.json &&
    test "$(jq -r ".rows[0].gpu_energy_j" u.json)" = "$((250 * 2 * w))" &&
    test "$(jq -r ".rows[0].gpu_util_mean" u.json)" = 40 &&
    hpcq-report --by queue --csv > q.csv && cat q.csv &&
    awk -F, -v e=$((250 * 2 * w)) "NR == 1 { for (i = 1; i <= NF; i++) h[\$i] = i; next }
        \$1 == \"workq\" { ok = (\$h[\"gpu_energy_j\"] == e && \$h[\"gpu_util_mean\"] == 40) }
        END { exit !ok }" q.csv
'

test_expect_success 'bad sim_gpu_* settings stop a worker at start, in one line' '
    printf "server = 127.0.0.1:1\nnode_name = bad\nspool_dir = %s/badspool\nsim_gpu_util = 140\nauth = none\nlog_file = %s/bad.log\n" "$WORK" "$WORK" > bad.conf &&
    ! timeout 10 hpcq-worker --config bad.conf > bad.out 2> bad.err &&
    cat bad.err && grep -v "authentication is OFF" bad.err > bad.lines &&
    test "$(wc -l < bad.lines)" -eq 1 && grep -q "invalid sim_gpu_util .140." bad.lines
'

test_done
