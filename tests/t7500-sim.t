#!/bin/bash
# hpcq-sim: a hand-made trace whose schedule under fifo and EASY is worked
# out below, asserted to the second; a hand-made GPU workload; bad input;
# and invariants of a replay of a real stored trace.
. "$(dirname "$0")/lib.sh"

DATA=$HPCQ_SRCDIR/tests/data
# tests/valgrind.sh runs the simulator under memcheck through HPCQ_SIM_BIN.
sim() { "${HPCQ_SIM_BIN:-hpcq-sim}" "$@"; }
TRACES=$HPCQ_SRCDIR/../shared/data/workloads
[ -d "$TRACES" ] || TRACES=/work/shared/data/workloads

# The field of policy P in JSON report FILE, compared with a value to
# within 1e-6: jeq FILE P FIELD VALUE.  FIELD may be QUEUE/FIELD, for the
# policy's figures for one queue.
jeq() {
    python3 - "$@" <<'EOF'
import json, sys
f, pol, field, want = sys.argv[1:]
r = [p for p in json.load(open(f))["policies"] if p["policy"] == pol][0]
if "/" in field:
    queue, field = field.split("/")
    r = [q for q in r["queues"] if q["queue"] == queue][0]
got = r[field]
if abs(float(got) - float(want)) > 1e-6:
    sys.exit(f"{pol}.{field} = {got}, want {want}")
EOF
}

# tests/data/sim-small.swf on 2 nodes x 2 cores.  An SWF job of P
# processors asks for P/2 whole nodes plus the remainder.
#   J1 arrives 0,  runs 100, 2 procs (1 node), walltime 100
#   J2 arrives 10, runs 50,  4 procs (both nodes), walltime 50
#   J3 arrives 20, runs 30,  2 procs, walltime 60
#   J4 arrives 30, runs 120, 2 procs, walltime 100: killed at 100
#   J5 arrives 300, runs 3, 1 proc, requested procs and time -1 (allocated
#      procs 1, walltime = run time 3)
#   J6 run time 0: skipped as invalid; J7 asks 8 procs: too large, skipped.
# FIFO: J1 0-100; J2 waits for both nodes: 100-150; J3 and J4 wait behind
#   it: 150-180 and 150-250; J5 300-303.
#   waits 0, 90, 130, 120, 0: mean 68, max 130.
#   bsld (tau 10): 1, 140/50 = 2.8, 160/30 = 5.3333, 220/100 = 2.2,
#   max(1, 3/10) = 1: mean 12.3333/5 = 2.466667.
# EASY: J2 is the top job, its reservation is at 100 (J1's walltime).  At
#   20 J3 would end by 80 <= 100: it backfills, 20-50.  J4 (walltime 100)
#   would hold a node past 100 that J2 needs: it waits, also at 50 when J3
#   ends; J2 100-150, J4 150-250, J5 300-303.
#   waits 0, 90, 0, 120, 0: mean 42, max 120; bsld 1, 2.8, 1, 2.2, 1: 1.6.
# Both: first arrival 0, last end 303: makespan 303; core-seconds
#   200 + 200 + 60 + 200 + 3 = 663: utilization 663 / (4 x 303) = 0.547030.
test_expect_success 'hand-made trace: fifo and EASY metrics as worked out' '
    sim --nodes 2 --cores 2 -p fifo,easy -F json --jobs jobs.csv \
        $DATA/sim-small.swf > small.json &&
    jeq small.json fifo jobs 5 && jeq small.json fifo skipped_too_large 1 &&
    python3 -c "import json; assert json.load(open(\"small.json\"))[\"skipped_invalid\"] == 1" &&
    jeq small.json fifo mean_wait 68 && jeq small.json fifo max_wait 130 &&
    jeq small.json fifo mean_bsld 2.4666667 &&
    jeq small.json fifo makespan 303 && jeq small.json fifo utilization 0.5470297 &&
    jeq small.json easy mean_wait 42 && jeq small.json easy max_wait 120 &&
    jeq small.json easy mean_bsld 1.6 &&
    jeq small.json easy makespan 303 && jeq small.json easy utilization 0.5470297
'

test_expect_success 'hand-made trace: the start and end of every job' '
    cat > want.csv <<-EOF &&
	policy,id,submit,start,end,cores,gpus
	fifo,1,0,0,100,2,0
	fifo,7,5,,,0,0
	fifo,2,10,100,150,4,0
	fifo,3,20,150,180,2,0
	fifo,4,30,150,250,2,0
	fifo,5,300,300,303,1,0
	easy,1,0,0,100,2,0
	easy,7,5,,,0,0
	easy,2,10,100,150,4,0
	easy,3,20,20,50,2,0
	easy,4,30,150,250,2,0
	easy,5,300,300,303,1,0
	EOF
    diff want.csv jobs.csv
'

test_expect_success 'a gzip-compressed trace reads the same as the plain one' '
    gzip -c $DATA/sim-small.swf > small.swf.gz &&
    sim --nodes 2 --cores 2 -F json small.swf.gz > gz.json &&
    jeq gz.json easy mean_wait 42 && jeq gz.json fifo mean_wait 68
'

test_expect_success 'the table names each policy and its figures' '
    sim --nodes 2 --cores 2 $DATA/sim-small.swf > table.out &&
    grep -E "^fifo +5 +1 +0\.547 +68\.0 +130 +2\.47 +303 " table.out &&
    grep -E "^easy +5 +1 +0\.547 +42\.0 +120 +1\.60 +303 " table.out
'

# tests/data/sim-gpu.txt on 2 nodes x 4 cores x 4 GPUs:
#   G1 0, 4 GPUs, runs 100; G2 0, 2 GPUs, runs 50 (walltime 00:00:50);
#   G3 10, 4 GPUs and 2 cores, runs 60; G4 20, 2 GPUs, walltime 30, runs 30.
# FIFO: G1 node1 0-100, G2 node2 0-50, G3 needs a whole node's GPUs: 50-110
#   on node2; G4 behind it, then no GPU free until 100: 100-130.
#   waits 0, 0, 40, 80: mean 30, max 80; makespan 130;
#   GPU-seconds 400 + 100 + 240 + 60 = 800: 800 / (8 x 130) = 0.769231.
# EASY: G3's reservation is 50 (G2's end); G4 ends by 20 + 30 = 50: it
#   backfills onto node2's 2 free GPUs, 20-50.  waits 0, 0, 40, 0: mean 10,
#   max 40; makespan 110: 800 / (8 x 110) = 0.909091;
#   bsld: FIFO (1 + 1 + 100/60 + 110/30) / 4 = 1.833333, EASY 1.166667.
# Per queue: gpu (G1-G3) waits 0, 0, 40 under both: mean 13.333333;
#   short (G4) waits 80 under FIFO, 0 under EASY.
test_expect_success 'GPU workload: whole-GPU packing under fifo and EASY' '
    sim -G --nodes 2 --cores 4 --gpus 4 -F json --jobs gjobs.csv \
        $DATA/sim-gpu.txt > gpu.json &&
    jeq gpu.json fifo mean_wait 30 && jeq gpu.json fifo max_wait 80 &&
    jeq gpu.json fifo makespan 130 && jeq gpu.json fifo gpu_utilization 0.7692308 &&
    jeq gpu.json fifo mean_bsld 1.8333333 &&
    jeq gpu.json easy mean_wait 10 && jeq gpu.json easy max_wait 40 &&
    jeq gpu.json easy makespan 110 && jeq gpu.json easy gpu_utilization 0.9090909 &&
    jeq gpu.json easy mean_bsld 1.1666667 &&
    jeq gpu.json fifo gpu/jobs 3 && jeq gpu.json fifo gpu/mean_wait 13.3333333 &&
    jeq gpu.json fifo short/mean_wait 80 && jeq gpu.json easy short/mean_wait 0 &&
    jeq gpu.json easy gpu/max_wait 40 && jeq gpu.json easy short/jobs 1 &&
    grep -x "easy,7,20,20,50,1,2" gjobs.csv && grep -x "fifo,6,10,50,110,2,4" gjobs.csv
'

# Bad input: one line on stderr that says what is wrong, exit non-zero.
bad() {
    local want=$1; shift
    ! sim "$@" > bad.out 2> bad.err &&
    test "$(wc -l < bad.err)" -eq 1 && grep -q "^hpcq-sim: $want" bad.err
}

test_expect_success 'bad input: missing file, malformed record, unknown policy' '
    bad "cannot open .no-such.swf.: No such file" no-such.swf &&
    { head -5 $DATA/sim-small.swf; echo "8 40 -1 x 1"; } > broken.swf &&
    bad "broken.swf:6: malformed SWF record" --nodes 2 --cores 2 broken.swf &&
    bad "unknown policy .sjf." -p fifo,sjf $DATA/sim-small.swf &&
    printf "0 1:00 50 1 two gpu\n" > broken.gpu &&
    bad "broken.gpu:1: invalid GPUS .two." -G --nodes 1 --cores 1 broken.gpu &&
    printf "0 -5 50 1 1 gpu\n" > broken2.gpu &&
    bad "broken2.gpu:1: invalid walltime" -G --nodes 1 --cores 1 broken2.gpu &&
    bad "a GPU workload needs --nodes and --cores" -G $DATA/sim-gpu.txt &&
    bad "invalid --gpus" --gpus 99 $DATA/sim-small.swf
'

# MIG: one node, GPU 0 split into seven 1g.5gb instances, GPU 1 whole.
# Eight jobs of one instance each (run 100, walltime 100) and one job of a
# whole GPU (run 50, walltime 100), all arriving at 0.  Seven instance jobs
# start at 0; the eighth waits for one to end: 100-200.  FIFO keeps the
# whole-GPU job behind it (100-150); EASY's reservation for the eighth is
# at 100 on GPU 0's instances, which the whole-GPU job does not use: it
# starts at 0 on GPU 1.  Mean wait: FIFO 200/9 = 22.2222, EASY 100/9 = 11.1111.
test_expect_success 'GPU workload: MIG instances from --mig-layout' '
    { for i in 1 2 3 4 5 6 7 8; do echo "0 100 100 1 mig=1g.5gb gpu"; done
      echo "0 100 50 1 1 gpu"; } > mig.txt &&
    sim -G --nodes 1 --cores 16 --gpus 2 --mig-layout "0:1g.5gb*7" -F json \
        --jobs mig.csv mig.txt > mig.json &&
    jeq mig.json fifo mean_wait 22.2222222 && jeq mig.json easy mean_wait 11.1111111 &&
    grep -x "fifo,8,0,100,200,1,0" mig.csv && grep -x "easy,9,0,0,50,1,1" mig.csv &&
    bad "mig_layout: bad count .9." -G --nodes 1 --cores 1 --gpus 1 \
        --mig-layout "0:1g.5gb*9" mig.txt
'

test_expect_success 'a PNG of queue length and utilization' '
    if grep -q "define HAVE_PNG 1" "$HPCQ_BUILDDIR/config.h"; then
        sim --nodes 2 --cores 2 --png chart.png $DATA/sim-small.swf > /dev/null &&
        test "$(head -c 8 chart.png | od -An -tx1 | tr -d " ")" = 89504e470d0a1a0a
    else
        bad "cannot write .chart.png.: hpcq-sim was built without libpng" \
            --nodes 2 --cores 2 --png chart.png $DATA/sim-small.swf
    fi
'

# A real trace: the first 2000 jobs of KTH-SP2 (the cluster from its
# header), under fifo, EASY and conservative (whose kept reservations need
# the replay to wake at their times: without that, jobs were left waiting
# on an idle cluster).  Checked from the per-job output against the trace itself:
# nobody starts before arriving, every job runs its run time cut at its
# walltime, cores in use never exceed the cluster's, and EASY waits less
# than fifo on average.
KTH=$TRACES/KTH-SP2-1996-2.1-cln.swf.gz
if [ -f "$KTH" ]; then
test_expect_success 'KTH-SP2, first 2000 jobs: replay invariants' '
    sim --limit 2000 -p fifo,easy,conservative -F json --jobs kth.csv $KTH > kth.json &&
    python3 - $KTH kth.csv kth.json <<-EOF
	import csv, gzip, json, sys
	trace, jobs, rep = sys.argv[1:]
	want = {}
	for line in gzip.open(trace, "rt"):
	    f = line.split()
	    if not f or f[0].startswith(";"):
	        continue
	    run, req = int(f[3]), int(f[8])
	    if run > 0:
	        want[int(f[0])] = min(run, req) if req > 0 else run
	    if len(want) == 2000:
	        break
	r = json.load(open(rep))
	total = r["cluster"]["total_cores"]
	by = {}
	for row in csv.DictReader(open(jobs)):
	    by.setdefault(row["policy"], []).append(row)
	assert set(by) == {"fifo", "easy", "conservative"}, by.keys()
	for pol, rows in by.items():
	    assert len(rows) == 2000, (pol, len(rows))
	    ev = []
	    for x in rows:
	        s, e, sub = int(x["start"]), int(x["end"]), int(x["submit"])
	        assert s >= sub, x
	        assert e - s == want[int(x["id"])], x
	        ev += [(s, 1, int(x["cores"])), (e, 0, -int(x["cores"]))]
	    used = 0
	    for t, kind, d in sorted(ev):       # ends before starts at one instant
	        used += d
	        assert 0 <= used <= total, (pol, t, used)
	p = {x["policy"]: x for x in r["policies"]}
	assert p["easy"]["mean_wait"] <= p["fifo"]["mean_wait"], p
	print(p["fifo"]["mean_wait"], p["easy"]["mean_wait"])
	EOF
'
else
    test_skip 'KTH-SP2, first 2000 jobs: replay invariants' "no trace at $KTH"
fi

test_done
