#!/bin/bash
# hpcq-sim --spot-policy: the scheduler's expected-cost choice
# (scheduler/policy/spotcost.h) replayed beside always-spot,
# always-ondemand and max-reclaims=N.  tests/data/sim-spot-long.swf: four
# 20-day jobs and four 1-hour ones on 4 nodes, 2 of them spot, reclaimed
# at 99% a month (M = 1 / -ln 0.01 months, 6.5 days) with no notice and no
# checkpoints.  A 20-day job on spot expects e^3.1 restarts: expected cost
# sends it on demand, so it costs less than always-spot; max-reclaims=3
# stops the restarts after three.  And bad input is one line.
. "$(dirname "$0")/lib.sh"

DATA=$HPCQ_SRCDIR/tests/data
sim() { "${HPCQ_SIM_BIN:-hpcq-sim}" "$@"; }
run() {
    sim -p fifo --nodes 4 --cores 1 --spot 2 --reclaim-rate 99% --notice 0 --ckpt none \
        --spot-policy "$1" -F json $DATA/sim-spot-long.swf >"$1.json"
}
# FIELD of the interrupted run (the scenario "rate 99%") in FILE.
field() {
    python3 -c "import json, sys; r = [p for p in json.load(open(sys.argv[1]))['policies'] if p['scenario'] != 'on-demand'][0]; print(r[sys.argv[2]])" "$1" "$2"
}
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

test_expect_success 'the four spot policies replay' '
    for p in always-spot always-ondemand max-reclaims=3 expected-cost; do run $p || exit 1; done &&
    for p in always-spot always-ondemand max-reclaims=3 expected-cost; do
        echo "$p: cost $(field $p.json cost), attempts $(field $p.json attempts), makespan $(field $p.json makespan)"
    done
'

test_expect_success 'expected cost beats always-spot on long jobs without checkpoints' '
    lt "$(field expected-cost.json cost)" "$(field always-spot.json cost)" &&
    lt "$(field expected-cost.json attempts)" "$(field always-spot.json attempts)" &&
    lt "$(field expected-cost.json makespan)" "$(field always-spot.json makespan)"
'

test_expect_success 'max-reclaims=3: at most 3 restarts a job, fewer attempts than always-spot' '
    lt "$(field max-reclaims=3.json attempts)" "$(field always-spot.json attempts)" &&
    test "$(field max-reclaims=3.json attempts)" -le $((8 + 4 * 3))
'

test_expect_success 'a bad --spot-policy: one line, exit 1' '
    ! sim --spot-policy maybe $DATA/sim-spot-long.swf >out 2>err && test "$(wc -l <err)" = 1 &&
    grep -q "invalid --spot-policy .maybe. (none, always-spot, always-ondemand, max-reclaims=N or expected-cost)" err &&
    ! sim --spot-policy max-reclaims=-1 $DATA/sim-spot-long.swf 2>err2 && test "$(wc -l <err2)" = 1
'

test_done
