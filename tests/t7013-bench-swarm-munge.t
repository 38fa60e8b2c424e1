#!/bin/bash
# bench/swarm.sh --quick --auth munge: the swarm's nodes authenticate as
# hpcq-worker does against a scheduler with auth = munge and real munged
# daemons (one for the scheduler, one for the nodes, one key): each link
# opens with link.open, one MUNGE credential each way, and every frame
# after is sealed with the link's session key (common/session.h).  Every node came up, every job of the end-to-end array was
# launched and reported finished, every heartbeat was answered (but those
# in flight when the swarm stopped) and none missed, no credential was
# refused either way, no node was marked down (a smoke test of the tool,
# not a timed test: no figure is compared with a goal here).
. "$(dirname "$0")/lib.sh"

descs=('bench/swarm.sh --quick --auth munge runs to the end'
    'every measurement produced a figure, munged'"'"'s CPU among them'
    'the nodes made and checked credentials once per link, not per message'
    'the whole array ran on the swarm: all 200 jobs reported finished'
    'every heartbeat answered, no link lost, no credential refused, no node marked down')
command -v munged >/dev/null && command -v mungekey >/dev/null ||
    skip_all "munged or mungekey not found (install munge)" "${descs[@]}"

sw_out=$PWD/swarm-out
# Heartbeats every 5 s rather than the quick mode's 2: each one's round
# trip is two credentials on the scheduler's side, and under a loaded
# machine or the sanitizers a 2 s beat is missed for want of CPU, not of
# anything the test checks.
HEARTBEAT=5 E2E=200 bash "$HPCQ_SRCDIR/bench/swarm.sh" --quick --nodes 20 --auth munge \
    --build "$HPCQ_BUILDDIR" --out "$sw_out" > swarm.stdout 2> swarm.stderr
rc=$?
# Exit 3: munged would not start here (its reason is in swarm.stderr).
[ $rc = 3 ] && skip_all "munged cannot be started here: $(tail -1 swarm.stderr)" "${descs[@]}"

test_expect_success "${descs[0]}" '
    cat swarm.stderr; test $rc = 0 && test -s "$sw_out/swarm.tsv" &&
    grep -q "^# authentication: munge" "$sw_out/swarm.md" &&
    ! grep -q "^# authentication: none" "$sw_out/swarm.md"
'

# value METRIC: the figure for METRIC at 20 nodes with MUNGE
value() { awk -F'\t' -v m="$1" '$1 == "20/munge" && $2 == m { print $3 }' "$sw_out/swarm.tsv"; }
positive() { awk -v x="$(value "$1")" 'BEGIN { exit !(x + 0 > 0) }'; }
present() { awk -v x="$(value "$1")" 'BEGIN { exit !(x ~ /^[0-9.]+$/) }'; }

test_expect_success "${descs[1]}" '
    for m in connect_s fill_jobs_per_s rss_mib_queued latency_median_ms e2e_jobs_per_s \
             e2e_sustained_per_s swarm_heartbeats swarm_answered swarm_auth_ms_per_cred; do
        positive $m || { echo "no figure for $m: \"$(value $m)\"" >&2; exit 1; }
    done &&
    # munged works only while links open: near 0 % once they are.
    for m in idle_cpu_pct queued_cpu_pct e2e_cpu_pct idle_munged_sched_cpu_pct \
             idle_munged_nodes_cpu_pct queued_munged_sched_cpu_pct rss_mib_idle \
             e2e_munged_sched_cpu_pct e2e_munged_nodes_cpu_pct; do
        present $m || { echo "no figure for $m: \"$(value $m)\"" >&2; exit 1; }
    done
'

# Each node's link.open signed and its answer checked; nothing per job
# (200 jobs would be at least 600 with a credential on every message).
test_expect_success "${descs[2]}" '
    test "$(value swarm_creds_made)" -ge 20 && test "$(value swarm_creds_made)" -lt 200 &&
    test "$(value swarm_creds_checked)" -ge 20 && test "$(value swarm_creds_checked)" -lt 200
'

test_expect_success "${descs[3]}" '
    test "$(value e2e_finished)" = 200
'

test_expect_success "${descs[4]}" '
    test "$(value swarm_heartbeats)" = $(( $(value swarm_answered) + $(value swarm_hb_in_flight) )) &&
    test "$(value swarm_hb_missed)" = 0 && test "$(value swarm_links_lost)" = 0 &&
    test "$(value swarm_refused)" = 0 && test "$(value swarm_auth_refused)" = 0 &&
    test "$(value sched_refused)" = 0 && test "$(value nodes_marked_down)" = 0
'

test_done
