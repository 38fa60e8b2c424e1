#!/bin/bash
# bench/swarm.sh --quick: the swarm (one process holding many real worker
# connections) against a real scheduler runs end to end, and what it
# reports is real: every node came up, every job of the end-to-end array
# was launched on a swarm node and reported finished, every heartbeat was
# answered, no node was marked down (a smoke test of the tool, not a timed
# test: no figure is compared with a goal here).
. "$(dirname "$0")/lib.sh"

sw_out=$PWD/swarm-out

test_expect_success 'bench/swarm.sh --quick runs to the end' '
    E2E=200 bash "$HPCQ_SRCDIR/bench/swarm.sh" --quick --nodes 20 --build "$HPCQ_BUILDDIR" \
        --out "$sw_out" > swarm.stdout 2> swarm.stderr &&
    test -s "$sw_out/swarm.tsv" && grep -q "^# authentication: none" "$sw_out/swarm.md"
'

# value METRIC: the figure for METRIC at 20 nodes
value() { awk -F'\t' -v m="$1" '$1 == 20 && $2 == m { print $3 }' "$sw_out/swarm.tsv"; }
positive() { awk -v x="$(value "$1")" 'BEGIN { exit !(x + 0 > 0) }'; }

test_expect_success 'every measurement produced a figure' '
    for m in connect_s fill_jobs_per_s rss_mib_queued latency_median_ms e2e_jobs_per_s \
             swarm_heartbeats swarm_answered; do
        positive $m || { echo "no figure for $m" >&2; exit 1; }
    done
'

test_expect_success 'the whole array ran on the swarm: all 200 jobs reported finished' '
    test "$(value e2e_finished)" = 200
'

# A beat sent just before the swarm stopped may still be on its way: it
# counts as in flight, not as lost (missed ones are counted apart).
test_expect_success 'every heartbeat answered, no link lost, no node marked down' '
    test "$(value swarm_heartbeats)" = $(( $(value swarm_answered) + $(value swarm_hb_in_flight) )) &&
    test "$(value swarm_hb_missed)" = 0 && test "$(value swarm_links_lost)" = 0 &&
    test "$(value swarm_refused)" = 0 && test "$(value nodes_marked_down)" = 0
'

test_done
