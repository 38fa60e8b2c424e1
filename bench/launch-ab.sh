#!/bin/bash
# bench/launch-ab.sh - two builds' start latency and end-to-end rate, in one run.
#
# Usage: bench/launch-ab.sh --a DIR --b DIR [--reps N] [--quick]
#
# Starts one cluster from each build tree (hpcq-local, one worker with CPUS
# cores, MUNGE as by default, each its own munged; AUTH=none for none)
# and measures them taking
# turns, so that the machine's load falls on both alike:
#   1. start latency: LATN jobs one at a time, alternating between the two
#      job by job, from just before qsub to the job's own `date +%s.%N`,
#      median and p95 in ms;
#   2. of those jobs, the worker's part: from the scheduler's log line
#      "job ID starts on" to the worker's "job ID started as pid", median
#      and p95 in ms (the logs' millisecond resolution);
#   3. end to end: E2EN /bin/true jobs submitted, until the last has
#      finished, jobs/s, REPS rounds, A then B each round.
# Prints a Markdown table (median, min-max, and B / A; for latency < 1 is
# better, for jobs/s > 1).  Stops only what it started and removes its
# folder.  Issue 22 part 3 ran it with A = main and B = the branch.
set -uo pipefail
a="" b="" quick=0
REPS=${REPS:-}
while [ $# -gt 0 ]; do
    case $1 in
    --a) a=$2; shift 2 ;;
    --b) b=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "launch-ab.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -n "$a" ] && [ -n "$b" ] || { echo "launch-ab.sh: give --a DIR and --b DIR" >&2; exit 2; }
if [ $quick = 1 ]; then
    : "${REPS:=1}" "${E2EN:=20}" "${LATN:=5}"
else
    : "${REPS:=3}" "${E2EN:=200}" "${LATN:=40}"
fi
: "${CPUS:=2}"
declare -A build
build[A]=$(cd "$a" && pwd) build[B]=$(cd "$b" && pwd)
tmp=$(mktemp -d /tmp/hpcq-launch-ab.XXXXXX)
trap 'for m in A B; do "${build[$m]}/cli/hpcq-local" stop "$tmp/$m" >/dev/null 2>&1; done; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
echo true > job.sh
cat > lat.sh <<'S'
date +%s.%N > "$PBS_O_WORKDIR/started.$PBS_JOBID"
S

for m in A B; do
    # Server names tell their job ids apart (the jobs write started.ID here).
    line=$("${build[$m]}/cli/hpcq-local" start "$tmp/$m" --workers 1 --cpus-per-worker "$CPUS" \
               --server-name "$m" ${AUTH:+--auth "$AUTH"}) ||
        { echo "launch-ab.sh: cannot start cluster $m" >&2; exit 1; }
done

tsv=$tmp/results.tsv
: > "$tsv"
record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$tsv"; }
now() { date +%s.%N; }
# on M CMD...: a command of build M against its cluster
on() {
    local m=$1 cmd=$2; shift 2
    HPCQ_SERVER=unix:$tmp/$m/hpcq.sock HPCQ_MUNGE_SOCKET=$tmp/$m/munge/munge.sock \
        "${build[$m]}/cli/$cmd" "$@"
}
unfinished() { on "$1" qstat 2>/dev/null | awk 'NR > 2 && $5 != "H"' | grep -c . ; }

end_to_end() {
    local m=$1 t0 t1
    t0=$(now)
    for _ in $(seq 1 "$E2EN"); do on "$m" qsub -o /dev/null -e /dev/null job.sh > /dev/null || return 1; done
    while [ "$(unfinished "$m")" != 0 ]; do sleep 0.01; done
    t1=$(now)
    record "$m" e2e_per_s "$(echo "$E2EN / ($t1 - $t0)" | bc -l)"
}

latency() {
    local m i t0 id f
    for i in $(seq 1 "$LATN"); do
        for m in A B; do
            t0=$(now)
            id=$(on "$m" qsub -o /dev/null -e /dev/null lat.sh) || return 1
            f=started.$id
            for _ in $(seq 1 2000); do [ -s "$f" ] && break; sleep 0.002; done
            [ -s "$f" ] || { echo "launch-ab.sh: job $id did not start" >&2; return 1; }
            echo "($(cat "$f") - $t0) * 1000" | bc -l >> "lat.$m"
        done
    done
}

latency || exit 1
# The worker's part of those starts, from the two daemons' logs.
for m in A B; do
    python3 - "$tmp/$m" "$LATN" <<'PY' | while read -r k v; do record "$m" "$k" "$v"; done
import datetime, re, sys
d, n = sys.argv[1], int(sys.argv[2])
def when(line, pat):
    m = re.search(pat, line)
    return (int(m.group(1)), datetime.datetime.strptime(line[:23], "%Y-%m-%dT%H:%M:%S.%f")) if m else None
start, began = {}, {}
for l in open(d + "/scheduler.log"):
    w = when(l, r"job (\d+)\.\S+ \(\S+\) starts on")
    if w: start[w[0]] = w[1]
for l in open(d + "/worker1.log"):
    w = when(l, r"job (\d+)\.\S+ started as pid")
    if w: began[w[0]] = w[1]
v = sorted((began[k] - start[k]).total_seconds() * 1000 for k in start if k in began and k <= n)
if v:
    print("worker_median_ms", v[(len(v) - 1) // 2])
    print("worker_p95_ms", v[min(len(v) - 1, int(len(v) * 0.95))])
PY
done
for rep in $(seq 1 "$REPS"); do
    for m in A B; do
        echo "rep $rep: $m" >&2
        end_to_end "$m" || exit 1
    done
done
for m in A B; do
    sort -g "lat.$m" | awk -v m="$m" '{ v[NR] = $1 } END {
        printf "%s\tlatency_median_ms\t%s\n", m, v[int((NR + 1) / 2)];
        printf "%s\tlatency_p95_ms\t%s\n", m, v[int(NR * 0.95 + 0.999)] }' >> "$tsv"
done

python3 - "$tsv" "$a" "$b" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m, k, v = line.rstrip("\n").split("\t")
    rows.setdefault(k, {}).setdefault(m, []).append(float(v))
names = [("latency_median_ms", "start latency, qsub to the job's first command, median (ms)"),
         ("latency_p95_ms", "start latency, p95 (ms)"),
         ("worker_median_ms", "of it, scheduler's 'starts on' to worker's 'started as pid', median (ms)"),
         ("worker_p95_ms", "the same, p95 (ms)"),
         ("e2e_per_s", "end to end, /bin/true jobs (jobs/s)")]
def cell(v):
    med = statistics.median(v)
    return "%.1f" % med if len(v) == 1 else "%.1f (%.1f-%.1f)" % (med, min(v), max(v))
print("| measure | A (%s) | B (%s) | B / A |" % (sys.argv[2], sys.argv[3]))
print("| --- | ---: | ---: | ---: |")
for k, label in names:
    a, b = rows.get(k, {}).get("A", []), rows.get(k, {}).get("B", [])
    if a and b:
        print("| %s | %s | %s | %.2f |" % (label, cell(a), cell(b),
                                          statistics.median(b) / statistics.median(a)))
PY
