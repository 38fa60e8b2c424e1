#!/bin/bash
# bench/run.sh --quick against hpcq alone: the harness still runs end to
# end and its figures are real (a smoke test of the script, not a timed
# test: no figure is compared with a goal here).
. "$(dirname "$0")/lib.sh"

bench_out=$PWD/bench-out

test_expect_success 'bench/run.sh --quick --systems hpcq runs to the end' '
    bash "$HPCQ_SRCDIR/bench/run.sh" --quick --systems hpcq --build "$HPCQ_BUILDDIR" \
        --out "$bench_out" > run.stdout 2> run.stderr &&
    test -s "$bench_out/results.tsv" && test -s "$bench_out/results.md"
'

# value METRIC: the median of hpcq's figures for METRIC
value() { awk -F'\t' -v m="$1" '$1 == "hpcq" && $2 == m { print $3 }' "$bench_out/results.tsv" | sort -g |
          awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
positive() { awk -v x="$(value "$1")" 'BEGIN { exit !(x + 0 > 0) }'; }

test_expect_success 'every measurement produced a positive number' '
    for m in spawn_floor_per_s submit_jobs_per_s submit_par_jobs_per_s array_tasks_per_s \
             e2e_jobs_per_s latency_median_ms latency_p95_ms qfull_ms@200 qfull_ms@400 \
             qone_ms@400 depth_submit_ms@400 rss_mib@400 recovery_s submit_over_floor \
             bigarray_s qone_busy_median_ms@400 qone_busy_p99_ms@400 busy_full_reads@400; do
        positive $m || { echo "no figure for $m" >&2; exit 1; }
    done
'

test_expect_success 'the queue held exactly the jobs asked for at each depth' '
    test "$(value depth_jobs@200)" = 200 && test "$(value depth_jobs@400)" = 400
'

test_expect_success 'recovery: every acknowledged job is there after kill -9' '
    test "$(value lost)" = 0 && test "$(value present)" = "$(value acked)" &&
    test "$(value acked)" -ge 400
'

test_expect_success 'no node went down while readers took every job in full' '
    test "$(value busy_nodes_down@400)" = 0
'

test_expect_success 'the report has a row per measure and depth' '
    grep -q "^| full listing (ms) at 400 jobs | " "$bench_out/results.md" &&
    grep -q "^| submission, job array (tasks/s) | " "$bench_out/results.md"
'

test_done
