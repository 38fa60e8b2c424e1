#!/bin/bash
# bench/auth-ab.sh - bench/auth-cost.sh on two builds, taking turns.
#
# Usage: bench/auth-ab.sh [--rounds N] BUILD_A BUILD_B
#
# Runs bench/auth-cost.sh (this tree's script, its sizes from SUBN, E2EN,
# LATN, REPS and CPUS as there) on BUILD_A, then BUILD_B, ROUNDS times
# (default 3), so the machine's load falls on both alike, and prints for
# each measure and each build the median over the rounds (min-max), with
# auth = munge and auth = none, and the ratio B / A.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=3
[ "${1:-}" = --rounds ] && { rounds=$2; shift 2; }
[ $# = 2 ] || { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
out=$(mktemp -d /tmp/hpcq-auth-ab.XXXXXX)
trap 'rm -rf "$out"' EXIT
for r in $(seq 1 "$rounds"); do
    for b in A B; do
        dir=$1; [ $b = B ] && dir=$2
        echo "round $r: $b ($dir)" >&2
        bash "$here/auth-cost.sh" --build "$dir" > "$out/$b.$r" 2> "$out/$b.$r.err" ||
            { cat "$out/$b.$r.err" >&2; exit 1; }
    done
done
# measure column: 2 = munge, 3 = none; median (min-max) over the rounds.
python3 - "$out" "$rounds" <<'PY'
import sys, statistics
out, rounds = sys.argv[1], int(sys.argv[2])
def table(path):
    rows = {}
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and not cells[0].startswith(("measure", "---")):
            rows[cells[0]] = cells[1:3]
    return rows
runs = {b: [table("%s/%s.%d" % (out, b, r)) for r in range(1, rounds + 1)] for b in "AB"}
def stat(b, m, col):
    v = []
    for t in runs[b]:
        try:
            v.append(float(t[m][col]))
        except (KeyError, ValueError):
            pass
    return v
print("| measure | auth | A | B | B / A |")
print("| --- | --- | ---: | ---: | ---: |")
for m in runs["A"][0]:
    for col, auth in ((0, "munge"), (1, "none")):
        a, b = stat("A", m, col), stat("B", m, col)
        if not a or not b:
            continue
        ma, mb = statistics.median(a), statistics.median(b)
        fmt = lambda v, x: "%.1f (%.1f-%.1f)" % (x, min(v), max(v))
        print("| %s | %s | %s | %s | %.2f |" % (m, auth, fmt(a, ma), fmt(b, mb),
                                                mb / ma if ma else 0))
PY
