#!/bin/bash
# bench/sim-traces.sh - whole-trace replays with hpcq-sim, as in
# bench/RESULTS.md ("hpcq-sim: trace replays").
#
# Replays every stored SWF trace (KTH-SP2, NASA-iPSC, lublin_256) from
# start to end under fifo and EASY backfill (and conservative, where the
# build has it), on the cluster hpcq-sim derives from each trace's header,
# and prints one Markdown table row per trace and policy with the replay's
# time.  Charts (queue length and utilization) go to OUTDIR/*.png.
#
# Usage: bench/sim-traces.sh [BUILDDIR] [TRACEDIR] [OUTDIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/..}" && pwd)
traces=${2:-$here/../../shared/data/workloads}
out=${3:-$(mktemp -d /tmp/hpcq-sim-bench.XXXXXX)}
sim=$build/sim/hpcq-sim
mkdir -p "$out"

policies=fifo,easy
if "$sim" -p conservative --nodes 2 --cores 2 "$here/../tests/data/sim-small.swf" \
        > /dev/null 2>&1; then
    policies=fifo,easy,conservative
fi

echo "| trace | jobs | cluster | policy | utilization | mean wait (s) | max wait (s) | mean bsld | makespan (s) | replay CPU (s) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for f in "$traces"/KTH-SP2-1996-2.1-cln.swf.gz "$traces"/NASA-iPSC-1993-3.1-cln.swf.gz \
         "$traces"/lublin_256.swf.gz; do
    name=$(basename "$f" .swf.gz)
    "$sim" -p "$policies" -F json --png "$out/$name.png" "$f" > "$out/$name.json"
    python3 - "$out/$name.json" "$name" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["cluster"]
for p in r["policies"]:
    print(f"| {sys.argv[2]} | {p['jobs']} | {c['nodes']}x{c['cores']} "
          f"| {p['policy']} | {p['utilization']:.3f} | {p['mean_wait']:.0f} "
          f"| {p['max_wait']} | {p['mean_bsld']:.2f} | {p['makespan']} "
          f"| {p['cpu_s']:.2f} |")
EOF
done
echo
echo "JSON reports and charts in $out"
