#!/bin/bash
# bench/auth-cost.sh - what MUNGE costs on the submission and launch paths.
#
# Usage: bench/auth-cost.sh [--build DIR] [--reps N] [--quick]
#
# Starts two clusters with hpcq-local on this machine, one worker each with
# CPUS cores: one with auth = munge (its own munged), one with auth = none.
# Then, REPS times, taking the two clusters in turn so that the machine's
# load falls on both alike, it measures on each:
#   1. submission over the Unix socket (no credential: the control), SUBN
#      held jobs, one qsub each, jobs/s;
#   2. submission over TCP with a credential (auth = munge only: without
#      authentication TCP user requests are refused), SUBN held jobs, jobs/s;
#   3. end to end: E2EN /bin/true jobs submitted, until the last has
#      finished, jobs/s (every job.launch, acknowledgement, job.started and
#      job.finished is signed and checked on both sides with munge);
#   4. start latency: LATN jobs one at a time on each, alternating between
#      the two job by job, from just before qsub to the job's own
#      `date +%s.%N`, median and p95 in ms;
# and once, what one credential costs: remunge(1) making and decoding
# 2,000 credentials of 32 bytes (a digest) on the munge cluster's munged.
# Prints a table (medians, min-max, and the ratio munge / none) in
# Markdown.  Stops only what it started and removes its folder.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/..
quick=0
REPS=${REPS:-}
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "auth-cost.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
if [ $quick = 1 ]; then
    : "${REPS:=1}" "${SUBN:=20}" "${E2EN:=20}" "${LATN:=5}"
else
    : "${REPS:=3}" "${SUBN:=300}" "${E2EN:=200}" "${LATN:=40}"
fi
: "${CPUS:=8}"
build=$(cd "$build" && pwd)
export PATH="$build/cli:$PATH"
tmp=$(mktemp -d /tmp/hpcq-auth-cost.XXXXXX)
trap 'for m in munge none; do hpcq-local stop "$tmp/$m" >/dev/null 2>&1; done; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
echo true > job.sh
cat > lat.sh <<'S'
date +%s.%N > "$PBS_O_WORKDIR/started.$PBS_JOBID"
S

declare -A unix_sock port mungesock
for m in munge none; do
    # Server names tell their job ids apart (the jobs write started.ID here).
    line=$(hpcq-local start "$tmp/$m" --workers 1 --cpus-per-worker "$CPUS" --auth "$m" \
               --server-name "$m") ||
        { echo "auth-cost.sh: cannot start the $m cluster" >&2; exit 1; }
    unix_sock[$m]=unix:$tmp/$m/hpcq.sock
    port[$m]=$(sed -n 's/^tcp=127.0.0.1://p' "$tmp/$m/state/scheduler.address")
    mungesock[$m]=$tmp/$m/munge/munge.sock
done

tsv=$tmp/results.tsv
: > "$tsv"
record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$tsv"; }
now() { date +%s.%N; }
rate() { echo "$1 / ($3 - $2)" | bc -l; }
# on MODE CMD...: CMD against the MODE cluster, over its Unix socket
on() { local m=$1; shift; HPCQ_SERVER=${unix_sock[$m]} HPCQ_MUNGE_SOCKET=${mungesock[$m]} "$@"; }
unfinished() { on "$1" qstat 2>/dev/null | awk 'NR > 2 && $5 != "H"' | grep -c . ; }

submit_unix() {
    local m=$1 t0 t1
    t0=$(now)
    for _ in $(seq 1 "$SUBN"); do on "$m" qsub -h job.sh > /dev/null || return 1; done
    t1=$(now)
    record "$m" submit_unix_per_s "$(rate "$SUBN" "$t0" "$t1")"
}

submit_tcp() {
    local m=$1 t0 t1
    t0=$(now)
    for _ in $(seq 1 "$SUBN"); do
        HPCQ_SERVER=127.0.0.1:${port[$m]} HPCQ_MUNGE_SOCKET=${mungesock[$m]} qsub -h job.sh \
            > /dev/null || return 1
    done
    t1=$(now)
    record "$m" submit_tcp_per_s "$(rate "$SUBN" "$t0" "$t1")"
}

end_to_end() {
    local m=$1 t0 t1
    t0=$(now)
    for _ in $(seq 1 "$E2EN"); do on "$m" qsub job.sh > /dev/null || return 1; done
    while [ "$(unfinished "$m")" != 0 ]; do sleep 0.01; done
    t1=$(now)
    record "$m" e2e_per_s "$(rate "$E2EN" "$t0" "$t1")"
}

latency() {
    local m i t0 id f
    for i in $(seq 1 "$LATN"); do
        for m in munge none; do
            t0=$(now)
            id=$(on "$m" qsub lat.sh) || return 1
            f=started.$id
            for _ in $(seq 1 2000); do [ -s "$f" ] && break; sleep 0.005; done
            [ -s "$f" ] || { echo "auth-cost.sh: job $id did not start" >&2; return 1; }
            echo "($(cat "$f") - $t0) * 1000" | bc -l >> "lat.$m"
        done
    done
}

for rep in $(seq 1 "$REPS"); do
    for m in munge none; do
        echo "rep $rep: $m" >&2
        submit_unix "$m" || exit 1
        [ "$m" = munge ] && { submit_tcp "$m" || exit 1; }
        end_to_end "$m" || exit 1
    done
    latency || exit 1
done
# One credential: made and decoded, one after another (what a message
# costs its two ends, on one host).
if command -v remunge >/dev/null; then
    n=$(remunge -S "${mungesock[munge]}" -N 2000 -T 1 -d -l 32 -q 2>/dev/null)
    [ -n "$n" ] && record munge cred_us "$(echo "1000000 / $n" | bc -l)"
fi
for m in munge none; do
    sort -g "lat.$m" | awk -v m="$m" '{ v[NR] = $1 } END {
        printf "%s\tlatency_median_ms\t%s\n", m, v[int((NR + 1) / 2)];
        printf "%s\tlatency_p95_ms\t%s\n", m, v[int(NR * 0.95 + 0.999)] }' >> "$tsv"
done

# The table: median (min-max) of each measure for both, and their ratio.
python3 - "$tsv" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m, k, v = line.rstrip("\n").split("\t")
    rows.setdefault(k, {}).setdefault(m, []).append(float(v))
names = [("submit_unix_per_s", "submission over the Unix socket, qsub per job (jobs/s)"),
         ("submit_tcp_per_s", "submission over TCP with a credential, qsub per job (jobs/s)"),
         ("e2e_per_s", "end to end, /bin/true jobs (jobs/s)"),
         ("latency_median_ms", "start latency, qsub to running, median (ms)"),
         ("latency_p95_ms", "start latency, p95 (ms)"),
         ("cred_us", "one credential made and decoded by munged (remunge, us)")]
def cell(v, k):
    if not v:
        return "refused" if k == "submit_tcp_per_s" else "-"
    med = statistics.median(v)
    return "%.1f" % med if len(v) == 1 else "%.1f (%.1f-%.1f)" % (med, min(v), max(v))
print("| measure | auth = munge | auth = none | munge / none |")
print("| --- | ---: | ---: | ---: |")
for k, label in names:
    a, b = rows.get(k, {}).get("munge", []), rows.get(k, {}).get("none", [])
    ratio = "%.2f" % (statistics.median(a) / statistics.median(b)) if a and b else ""
    print("| %s | %s | %s | %s |" % (label, cell(a, k), cell(b, k), ratio))
PY
