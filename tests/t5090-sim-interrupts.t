#!/bin/bash
# hpcq-sim with spot reclaims, failures and checkpoint policies: a
# one-job trace whose every figure is worked out below, a seeded rate run
# that repeats itself, the AWS Spot Instance Advisor scenarios on a stored
# trace, and bad input.
. "$(dirname "$0")/lib.sh"

sim() { "${HPCQ_SIM_BIN:-hpcq-sim}" "$@"; }
TRACES=$HPCQ_SRCDIR/../shared/data/workloads
[ -d "$TRACES" ] || TRACES=/work/shared/data/workloads

# field FILE SCENARIO CKPT FIELD: one figure of one run of a JSON report.
field() {
    python3 - "$@" <<'EOF'
import json, sys
f, sc, ck, name = sys.argv[1:]
r = [p for p in json.load(open(f))["policies"] if p["scenario"] == sc and p["ckpt"] == ck]
assert len(r) == 1, (sc, ck, len(r))
print(r[0][name])
EOF
}
# feq FILE SCENARIO CKPT FIELD VALUE: that figure, to within 1e-6.
feq() {
    local got
    got=$(field "$1" "$2" "$3" "$4") || return 1
    python3 -c "import sys; sys.exit(abs(float('$got') - float('$5')) > 1e-6)" ||
        { echo "$2/$3 $4 = $got, want $5" >&2; return 1; }
}

# One job on one node of one core: it arrives at 0 and runs 100 s
# (walltime 200).  The node is a spot node (0.3 per node-hour; on-demand
# 1) that the provider takes at 50 with 10 s of notice (at 40); it is
# back 20 s later, at 70.  A checkpoint costs 5 s, a restart as much.
#   on-demand baseline: 0-100; 100 node-s at 1/h: cost 100/3600.
#   none: no checkpoint; it runs until the reclaim at 50 (50 s lost) and
#     starts over at 70: ends 170.  Cost (50 + 100) s at 0.3/h: 45/3600,
#     0.45 of the baseline's; bsld 170/100.
#   notice: at 40 it checkpoints (5 s) and leaves at 45 with 40 s of work
#     saved; at 70 it restarts (5 s) and does the other 60: ends 135.
#     Nothing lost, 10 s checkpointing; cost (45 + 65) x 0.3 = 33/3600.
#   fixed=30: checkpoints after 30, 60 and 90 s of work (35 s a cycle);
#     at the notice (e = 40) it has done 35 s, saved 30; the notice
#     checkpoint saves the 35 and it leaves at 45 (overhead 5 + 5); at 70
#     it restarts with 65 s to do: 5 + 65 + 2 checkpoints = 80 s, ends
#     150.  Overhead 25 s, cost (45 + 80) x 0.3 = 37.5/3600.
#   young-daly: nothing loses work here (the notice is long enough for a
#     checkpoint and there are no failures): no periodic checkpoints, the
#     same as notice.
test_expect_success 'a reclaim with notice under each checkpoint policy, worked out' '
    printf "; MaxProcs: 1\n1 0 -1 100 1 -1 -1 1 200 -1 1 1 1 1 1 -1 -1 -1\n" >one.swf &&
    echo "50 1" >rt.txt &&
    sim --nodes 1 --cores 1 -p fifo --reclaim-trace rt.txt --notice 10 --replace 20 \
        --ckpt-cost 5 --ckpt none,notice,fixed=30,young-daly -F json --jobs one.csv \
        one.swf >one.json &&
    feq one.json on-demand none makespan 100 && feq one.json on-demand none cost 0.0277778 &&
    feq one.json on-demand none attempts 1 && feq one.json on-demand none lost_node_hours 0 &&
    feq one.json trace none makespan 170 && feq one.json trace none attempts 2 &&
    feq one.json trace none lost_node_hours 0.0138889 && feq one.json trace none cost 0.0125 &&
    feq one.json trace none cost_vs_ondemand 0.45 && feq one.json trace none mean_bsld 1.7 &&
    feq one.json trace none reclaims 1 && feq one.json trace none interrupted 1 &&
    feq one.json trace notice makespan 135 && feq one.json trace notice lost_node_hours 0 &&
    feq one.json trace notice ckpt_node_hours 0.0027778 &&
    feq one.json trace notice cost 0.0091667 && feq one.json trace notice cost_vs_ondemand 0.33 &&
    feq one.json trace fixed=30 makespan 150 &&
    feq one.json trace fixed=30 ckpt_node_hours 0.0069444 &&
    feq one.json trace fixed=30 cost 0.0104167 &&
    feq one.json trace young-daly makespan 135 &&
    grep -x "fifo,1,0,0,170,1,0,trace,none,2,50.0,0.0125" one.csv
'

# The same with no notice (a failure, in effect): what the last periodic
# checkpoint holds is all that is kept.
#   fixed=30: at 50 it has saved 30 (one checkpoint, at 35), done 45: 15 s
#     lost.  At 70 it restarts with 70 s to do: 5 + 70 + 2 x 5 = 85: ends 155.
#   young-daly: one reclaim in 50 s on one spot node is M = 50 s;
#     T = sqrt(2 x 5 x 50) (1 + sqrt(0.05)/3 + 0.05/9) - 5 = 19.151 s.
#     At 50, 2 cycles of 24.151 s are done: 38.30 s saved, 1.70 lost; the
#     restart at 70 has 61.70 s: 5 + 61.70 + 3 x 5 = 81.70: ends 152.
test_expect_success 'no notice: the last periodic checkpoint, fixed and Young/Daly' '
    sim --nodes 1 --cores 1 -p fifo --reclaim-trace rt.txt --notice 0 --replace 20 \
        --ckpt-cost 5 --ckpt none,fixed=30,young-daly -F json one.swf >nn.json &&
    feq nn.json trace fixed=30 makespan 155 &&
    feq nn.json trace fixed=30 lost_node_hours 0.0041667 &&
    feq nn.json trace young-daly makespan 152 &&
    python3 -c "
import json
r = {p[\"ckpt\"]: p for p in json.load(open(\"nn.json\"))[\"policies\"] if p[\"scenario\"] == \"trace\"}
lost = r[\"young-daly\"][\"lost_node_hours\"] * 3600
assert abs(lost - 1.697) < 0.01, lost
assert r[\"none\"][\"lost_node_hours\"] * 3600 == 50
"
'

# Rates: reclaim times are drawn from a seeded generator, so a run
# repeats itself and another seed gives other times.
KTH=$TRACES/KTH-SP2-1996-2.1-cln.swf.gz
if [ -f "$KTH" ]; then
test_expect_success 'a reclaim rate: the same seed gives the same replay, another seed another' '
    opts="--limit 1000 -p easy --reclaim-rate 25% --ckpt notice --ckpt-cost 300" &&
    sim $opts --seed 7 -F json $KTH >s7a.json &&
    sim $opts --seed 7 -F json $KTH >s7b.json &&
    sim $opts --seed 8 -F json $KTH >s8.json &&
    python3 - s7a.json s7b.json s8.json <<-EOF
	import json, sys
	a, b, c = (json.load(open(f)) for f in sys.argv[1:])
	strip = lambda r: [{k: v for k, v in p.items() if k != "cpu_s"} for p in r["policies"]]
	assert strip(a) == strip(b)
	assert strip(a) != strip(c)
	assert a["policies"][1]["reclaims"] > 0, a["policies"][1]
	EOF
'
else
    test_skip 'a reclaim rate: the same seed gives the same replay' "no trace at $KTH"
fi

# A stored trace under AWS's published interruption frequencies: every
# bucket's scenario, with and without checkpoints.  Checked against the
# trace itself: every job runs, no job ends before its work is done, spot
# nodes cost less than the all-on-demand run, attempts are counted, and
# the all-on-demand baseline loses nothing.
if [ -f "$KTH" ]; then
test_expect_success 'KTH-SP2, first 2000 jobs, the AWS buckets: invariants' '
    sim --limit 2000 -p easy --scenarios aws --ckpt none,young-daly --ckpt-cost 300 \
        --failure-rate 2% -F json --jobs kth.csv $KTH >kth.json &&
    python3 - kth.json kth.csv <<-EOF
	import csv, json, sys
	rep, jobs = sys.argv[1:]
	r = json.load(open(rep))["policies"]
	assert [p["scenario"] for p in r[:3]] == ["on-demand", "aws <5%", "aws <5%"], r[:3]
	assert {p["scenario"] for p in r} == {"on-demand", "aws <5%", "aws 5-10%",
	    "aws 10-15%", "aws 15-20%", "aws >20%"}
	base = r[0]
	assert base["lost_node_hours"] == 0 and base["attempts"] == base["jobs"] == 2000
	for p in r[1:]:
	    assert p["jobs"] == 2000 and p["attempts"] >= 2000, p
	    assert p["attempts"] - 2000 == p["interrupted"], p
	    assert 0.3 <= p["cost_vs_ondemand"] < 0.5, p
	    if p["ckpt"] == "none":
	        assert p["ckpt_node_hours"] == 0, p
	# More reclaims, more interruptions: the worst bucket beats the best.
	by = {(p["scenario"], p["ckpt"]): p for p in r}
	assert by[("aws >20%", "none")]["reclaims"] > by[("aws <5%", "none")]["reclaims"]
	for row in csv.DictReader(open(jobs)):
	    assert int(row["end"]) >= int(row["start"]) >= int(row["submit"]), row
	    assert int(row["attempts"]) >= 1, row
	EOF
'
else
    test_skip 'KTH-SP2, first 2000 jobs, the AWS buckets: invariants' "no trace at $KTH"
fi

test_expect_success 'a PNG of lost node-hours and cost per scenario' '
    if grep -q "define HAVE_PNG 1" "$HPCQ_BUILDDIR/config.h"; then
        sim --nodes 1 --cores 1 -p fifo --reclaim-trace rt.txt --ckpt none,notice \
            --png bars.png one.swf >/dev/null &&
        test "$(head -c 8 bars.png | od -An -tx1 | tr -d " ")" = 89504e470d0a1a0a
    else
        echo "built without libpng"
    fi
'

test_expect_success 'the table names scenario, checkpoint policy, losses and cost' '
    sim --nodes 1 --cores 1 -p fifo --reclaim-trace rt.txt --notice 10 --replace 20 \
        --ckpt-cost 5 --ckpt none,notice one.swf >t.out && cat t.out &&
    grep -E "^fifo +on-demand +none +1 +1 .* 100 +0\.00 +0\.00 +0\.03 +1\.000$" t.out &&
    grep -E "^fifo +trace +notice +1 +2 .* 135 +0\.00 +0\.00 +0\.01 +0\.330$" t.out
'

bad() {
    local want=$1; shift
    ! sim "$@" > bad.out 2> bad.err &&
    test "$(wc -l < bad.err)" -eq 1 && grep -q "^hpcq-sim: $want" bad.err
}

test_expect_success 'bad input: one line, non-zero exit' '
    S=$HPCQ_SRCDIR/tests/data/sim-small.swf &&
    bad "unknown checkpoint policy .often." --ckpt none,often $S &&
    bad "invalid checkpoint interval .-3." --ckpt fixed=-3 $S &&
    bad "invalid --reclaim-rate .150%." --reclaim-rate 150% $S &&
    bad "invalid --failure-rate .2." --failure-rate 2 $S &&
    bad "invalid --spot .9." --nodes 2 --cores 2 --spot 9 $S &&
    bad "unknown --scenarios .gcp." --scenarios gcp $S &&
    bad "--scenarios aws sets the reclaim rates" --scenarios aws --reclaim-rate 1% $S &&
    bad "give --reclaim-rate or --reclaim-trace, not both" --reclaim-rate 1% \
        --reclaim-trace rt.txt $S &&
    printf "10 1\nsoon 2\n" >badrt.txt &&
    bad "badrt.txt:2: invalid time .soon." --reclaim-trace badrt.txt $S &&
    echo "10 2" >rt2.txt &&
    bad "reclaim trace: node 2 is not a spot node of the cluster .1..1." \
        --nodes 2 --cores 2 --spot 1 --reclaim-trace rt2.txt $S &&
    : >empty.txt && bad "empty.txt: no reclaims" --reclaim-trace empty.txt $S
'

test_done
