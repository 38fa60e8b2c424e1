#!/bin/bash
# bench/run.sh - hpcq and Slurm side by side, on this machine, in one run.
#
# Usage: bench/run.sh [--quick] [--build DIR] [--out DIR] [--systems "hpcq slurm-default slurm-tuned"]
#
# Starts, one after the other, an hpcq cluster (hpcq-local: one scheduler,
# one worker with CPUS cores) and Slurm 22.05 from Debian on 127.0.0.1 (one
# slurmctld, one slurmd with the same CPUS cores, cons_tres, backfill, no
# accounting database) in two configurations: Slurm's defaults, and the
# settings of Slurm's high-throughput guide (bench/slurm/*.conf.in).  For each
# it measures:
#   1. submission rate: SUBN held one-process jobs one after another
#      (qsub -h / sbatch -H --wrap), jobs/s, and the same from PAR submitters
#      at once; beside them the rate at which the same shell loop runs
#      /bin/true, the ceiling for any one-process-per-job submitter on this
#      machine; a held ARRAY-task array (qsub -J / sbatch --array), tasks/s;
#   2. end-to-end throughput: E2EN /bin/true jobs, first submit until no job
#      is left unfinished, jobs/s;
#   3. submit-to-start latency on the idle cluster, LATN jobs one at a time:
#      the job writes its start time, compared with the time just before the
#      submit command started; median and p95;
#   4. with each of DEPTHS held jobs queued (the queue is filled up to one
#      depth, measured, then filled up to the next): full listing (qstat /
#      squeue) and one job (qstat ID / squeue -j ID), ms; submitting at that
#      depth, ms per job; resident memory of the controller;
#      At the deepest queue also: one job's answer while BUSYN readers
#      each list every job in full at once (qstat -f / scontrol show job),
#      QBUSYN times, median and p99, and the nodes marked down meanwhile;
#   5. recovery, at the deepest queue: right after the last acknowledged
#      submission, kill -9 the controller, restart it: seconds until it
#      answers, jobs present vs acknowledged (and how many acknowledged ids
#      are missing);
#   6. a held BIGARRAY-task array (qsub -J / sbatch --array, with the array
#      size limits raised): seconds until it is acknowledged;
#   7. hpcq only, after the systems: bench/swarm.sh at each of SWARM_NODES
#      connected nodes (SWARM_JOBS queued, SWARM_E2E one-second jobs end to
#      end); Slurm has no such harness here, so those rows have no ratio.
# qsub's per-call cost over the spawn floor (the floor's rate over the
# submission rate, per repetition) is its own row.
# Every figure is the median of REPS runs (min and max beside it) unless it
# is a one-off (recovery, memory).  Prints a table with ratios (hpcq's
# advantage: >1 means hpcq is better) and writes OUT/results.tsv,
# OUT/results.md and, when matplotlib is there, OUT/ratios.png.
#
# Needs root for Slurm (slurmd runs as root; slurm-wlm and munge are
# installed from Debian when missing).  Without root, or with --systems hpcq,
# only hpcq is measured.  Stops only what it started (by pid) and removes
# its temporary folder on exit.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=""
out=""
quick=0
systems="hpcq slurm-default slurm-tuned"
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=1; shift ;;
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --systems) systems=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
done

if [ $quick = 1 ]; then
    : "${REPS:=2}" "${SUBN:=20}" "${ARRAY:=100}" "${E2EN:=10}" "${LATN:=5}" "${DEPTHS:=200 400}" "${QREPS:=3}" "${DEPTHSUBN:=5}"
    : "${BIGARRAY:=20000}" "${BUSYN:=2}" "${QBUSYN:=10}" "${SWARM_NODES:=}" "${SWARM_JOBS:=500}" "${SWARM_E2E:=200}"
else
    : "${REPS:=3}" "${SUBN:=500}" "${ARRAY:=10000}" "${E2EN:=60}" "${LATN:=50}" "${DEPTHS:=10000 100000}" "${QREPS:=5}" "${DEPTHSUBN:=50}"
    : "${BIGARRAY:=1000000}" "${BUSYN:=4}" "${QBUSYN:=200}" "${SWARM_NODES:=1000 10000}" "${SWARM_JOBS:=100000}" "${SWARM_E2E:=20000}"
fi
DEPTH=${DEPTHS##* }     # the deepest
: "${CPUS:=2}" "${PAR:=4}" "${RECOVERY_TIMEOUT:=$(( quick ? 30 : 300 ))}"

# Where hpcq's programs are: --build, else a build tree next to bench/ or
# /tmp/b, else the installed ones.
for b in "$build" "$here/.." /tmp/b; do
    [ -n "$b" ] && [ -x "$b/cli/qsub" ] && [ -x "$b/scheduler/hpcq-scheduler" ] && { build=$(cd "$b" && pwd); break; }
done
if [ -n "$build" ] && [ -x "$build/cli/qsub" ]; then
    hpcqbin=$build/cli
elif command -v qsub >/dev/null && command -v hpcq-local >/dev/null; then
    hpcqbin=$(dirname "$(command -v hpcq-local)")
else
    echo "run.sh: no hpcq build found (use --build DIR)" >&2; exit 1
fi

tmp=$(mktemp -d /tmp/hpcq-run.XXXXXX)
chmod 755 "$tmp"
[ -n "$out" ] || { if [ $quick = 1 ]; then out=$tmp/out; else out=$here/run-out; fi; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
tsv=$out/results.tsv
: > "$tsv"

pids=()          # every daemon this script started, for the trap
hpcq_dir=""
cleanup() {
    local p
    [ -n "$hpcq_dir" ] && [ -f "$hpcq_dir/scheduler.conf" ] && "$hpcqbin/hpcq-local" stop "$hpcq_dir" >/dev/null 2>&1
    for p in "${pids[@]}"; do
        kill -TERM "$p" 2>/dev/null
    done
    for p in "${pids[@]}"; do
        for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    kill_stepds
    if [ -n "${KEEP:-}" ]; then echo "run.sh: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }
now() { echo "$EPOCHREALTIME"; }
record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$tsv"; }   # system metric value
# wait_until SECONDS INTERVAL COMMAND...: poll until COMMAND succeeds.
wait_until() {
    local deadline=$(( $(date +%s) + $1 )) iv=$2; shift 2
    until "$@"; do
        [ "$(date +%s)" -ge "$deadline" ] && return 1
        sleep "$iv"
    done
}
free_ports() {   # free_ports N: first of N consecutive free TCP ports on loopback
    python3 - "$1" <<'PY'
import random, socket, sys
n = int(sys.argv[1])
for _ in range(200):
    base = random.randrange(20000, 40000)
    socks = []
    try:
        for p in range(base, base + n):
            s = socket.socket(); s.bind(("127.0.0.1", p)); socks.append(s)
        print(base); break
    except OSError:
        pass
    finally:
        for s in socks: s.close()
PY
}

# ---------------------------------------------------------------- Slurm
have_slurm=0
slurm_setup() {
    if [ "$(id -u)" != 0 ]; then
        say "not root: Slurm is skipped"; return 1
    fi
    if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
        || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
        say "installing slurm-wlm and munge from Debian"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >"$tmp/apt.log" 2>&1 \
            || { tail -5 "$tmp/apt.log" >&2; say "apt-get failed: Slurm is skipped"; return 1; }
    fi
    # munge with a key and a socket of our own.
    mkdir -p "$tmp/munge"; chmod 700 "$tmp/munge"
    dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$tmp/munge/munge.key"
    munged -F --force --socket="$tmp/munge/munge.sock" --key-file="$tmp/munge/munge.key" \
        --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" \
        --seed-file="$tmp/munge/munged.seed" >"$tmp/munge/munged.out" 2>&1 &
    pids+=($!)
    if ! wait_until 10 0.05 test -S "$tmp/munge/munge.sock"; then
        cat "$tmp/munge/munged.out" "$tmp/munge/munged.log" >&2 2>/dev/null
        say "munged did not start: Slurm is skipped"; return 1
    fi
    have_slurm=1
}

sconf=""; sdir=""; ctld_pid=""; slurmd_pid=""
slurm_write_conf() {   # slurm_write_conf VARIANT
    local variant=$1 port sport
    sdir=$tmp/$variant
    mkdir -p "$sdir/state" "$sdir/spool" "$sdir/work"
    port=$(free_ports 6); sport=$((port + 5))
    sconf=$sdir/slurm.conf
    # slurmctld counts every task of an array against MaxJobCount at
    # submission ("temporarily unable to accept job" otherwise).
    cat "$here/slurm/slurm.conf.in" "$here/slurm/${variant#slurm-}.conf.in" | sed \
        -e "s|@CLUSTER@|hb$$${variant#slurm-}|" -e "s|@HOST@|$(hostname -s)|g" \
        -e "s|@DIR@|$sdir|g" -e "s|@MUNGE@|$tmp/munge|g" \
        -e "s|@CTLD_PORT@|$port|" -e "s|@CTLD_PORT_LAST@|$((port + 3))|" \
        -e "s|@SLURMD_PORT@|$sport|" -e "s|@CPUS@|$CPUS|" -e "s|@MEM@|2048|" \
        -e "s|@MAXJOBS@|$(( DEPTH * 2 + 200000 + BIGARRAY ))|" -e "s|@MAXARRAY@|$(( (BIGARRAY > ARRAY ? BIGARRAY : ARRAY) + 1 ))|" \
        > "$sconf"
    sed -i "s|^AuthInfo=.*|AuthInfo=socket=$tmp/munge/munge.sock|" "$sconf"
    export SLURM_CONF=$sconf
}
slurm_start_ctld() {
    slurmctld -D -f "$sconf" "$@" >>"$sdir/slurmctld.out" 2>&1 &
    ctld_pid=$!
    pids+=("$ctld_pid")
}
slurm_start() {   # slurm_start VARIANT
    slurm_write_conf "$1"
    slurm_start_ctld -c
    slurmd -D -f "$sconf" -N benchnode >>"$sdir/slurmd.out" 2>&1 &
    slurmd_pid=$!
    pids+=("$slurmd_pid")
    if ! wait_until 60 0.2 eval '[ "$(sinfo -h -o %T 2>/dev/null)" = idle ]'; then
        sinfo >&2; tail -5 "$sdir"/*.log "$sdir"/*.out >&2
        say "Slurm ($1) did not come up"; return 1
    fi
}
slurm_stop() {
    local p
    # Only running jobs need ending (their steps outlive slurmd); the queued
    # ones go with the temporary state folder (scancel of 100,000 held jobs
    # took longer than the whole measurement).
    scancel --full --state=RUNNING -u root >/dev/null 2>&1
    wait_until 20 0.2 eval '[ -z "$(squeue -h -t R,CG 2>/dev/null)" ]'
    for p in "$slurmd_pid" "$ctld_pid"; do
        [ -n "$p" ] || continue
        kill -TERM "$p" 2>/dev/null
        for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    kill_stepds
    ctld_pid=""; slurmd_pid=""
}
# slurmstepd daemons left by our slurmd: those whose spool is in our folder.
kill_stepds() {
    local p
    for p in $(pgrep -x slurmstepd 2>/dev/null); do
        if ls -l "/proc/$p/cwd" "/proc/$p/fd" 2>/dev/null | grep -q "$tmp/"; then
            kill -KILL "$p" 2>/dev/null
        fi
    done
}

# ---------------------------------------------------------------- hpcq
hpcq_start() {
    hpcq_dir=$tmp/hpcq
    local line
    line=$("$hpcqbin/hpcq-local" start "$hpcq_dir" --workers 1 --cpus-per-worker "$CPUS" \
               --sched-config "max_array_size=$(( BIGARRAY > ARRAY ? BIGARRAY : ARRAY ))") \
        || { say "hpcq did not start"; return 1; }
    eval "$line"
    mkdir -p "$tmp/hpcq-work"
}
hpcq_stop() {
    "$hpcqbin/hpcq-local" stop "$hpcq_dir" >/dev/null 2>&1
    hpcq_dir=""
}

# ---------------------------------------------------------------- per system
# SYS is hpcq, slurm-default or slurm-tuned; the functions below hide which.
SYS=""
is_hpcq() { [ "$SYS" = hpcq ]; }
sub_held() {   # prints the id
    if is_hpcq; then "$hpcqbin/qsub" -h -o /dev/null -e /dev/null "$tmp/true.sh"
    else sbatch -H --parsable -o /dev/null --wrap /bin/true | cut -d';' -f1; fi
}
sub_run() {    # sub_run COMMAND: a job running COMMAND
    if is_hpcq; then echo "$1" | "$hpcqbin/qsub" -o /dev/null -e /dev/null
    else sbatch --parsable -o /dev/null --wrap "$1" | cut -d';' -f1; fi
}
sub_true() {
    if is_hpcq; then "$hpcqbin/qsub" -o /dev/null -e /dev/null "$tmp/true.sh"
    else sbatch --parsable -o /dev/null --wrap /bin/true; fi
}
# Jobs not finished and not held.
active_count() {
    if is_hpcq; then "$hpcqbin/qstat" | awk 'NR > 2 && $5 != "H"' | wc -l
    else squeue -h -o '%T %r' | grep -vc 'JobHeld'; fi
}
idle() { [ "$(active_count)" = 0 ]; }
list_ids() {
    if is_hpcq; then "$hpcqbin/qstat" | awk 'NR > 2 { print $1 }'
    else squeue -h -o %i; fi
}
q_full() { if is_hpcq; then "$hpcqbin/qstat"; else squeue; fi; }
q_one() { if is_hpcq; then "$hpcqbin/qstat" "$1"; else squeue -j "$1"; fi; }
del_ids() {    # del_ids FILE
    if is_hpcq; then xargs -r -n 2000 "$hpcqbin/qdel" < "$1" >/dev/null 2>&1
    else xargs -r -n 2000 scancel < "$1" >/dev/null 2>&1; fi
}
q_everything() {   # every job with every attribute: the biggest answer
    if is_hpcq; then "$hpcqbin/qstat" -f -t; else scontrol show job; fi
}
nodes_down() {
    if is_hpcq; then "$hpcqbin/pbsnodes" -a | grep -c '^ *state = .*down'
    else sinfo -h -N -o %T | grep -c -i 'down\|not_responding'; fi
}
ctl_pid() { if is_hpcq; then cat "$hpcq_dir/scheduler.pid"; else echo "$ctld_pid"; fi; }
ctl_answers() {
    if is_hpcq; then "$hpcqbin/qstat" -B >/dev/null 2>&1
    else sinfo -h -o %T >/dev/null 2>&1; fi
}

# median/min/max of the numbers on stdin
stats() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan nan nan"; exit }
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[1], v[NR] }'; }
pct() { sort -g | awk -v p="$1" '{ v[NR] = $1 } END { i = int(p * NR + 0.999999); if (i < 1) i = 1; print v[i] }'; }

# ---------------------------------------------------------------- the measurements
m_latency() {
    local i t0 f lats=$tmp/lat.$SYS
    mkdir -p "$tmp/latf"; chmod 777 "$tmp/latf"
    : > "$lats"
    wait_until 60 0.05 idle
    for i in $(seq 1 "$LATN"); do
        f=$tmp/latf/$SYS.$i
        t0=$(now)
        sub_run "date +%s.%N > $f" >/dev/null
        if ! wait_until 60 0.002 test -s "$f"; then say "$SYS: latency job $i did not start"; continue; fi
        echo "($(cat "$f") - $t0) * 1000" | bc -l >> "$lats"
        wait_until 60 0.01 idle   # the next one on an idle cluster again
    done
    read -r med mn mx < <(stats < "$lats")
    record "$SYS" latency_median_ms "$med"
    record "$SYS" latency_p95_ms "$(pct 0.95 < "$lats")"
    record "$SYS" latency_min_ms "$mn"
    record "$SYS" latency_max_ms "$mx"
    say "$SYS: submit-to-start median $med ms (min $mn, max $mx)"
}
# Rate of COMMAND run N times by this shell's loop, jobs/s; the output
# (one id per line) is appended to FILE.
loop_rate() {   # loop_rate N FILE COMMAND...
    local n=$1 f=$2 i t0 t1; shift 2
    t0=$(now)
    for i in $(seq 1 "$n"); do "$@" >> "$f"; done
    t1=$(now)
    echo "$n / ($t1 - $t0)" | bc -l
}
sub_array() {  # sub_array N: one held N-task array, prints its id
    if is_hpcq; then "$hpcqbin/qsub" -h -J "0-$(($1 - 1))" -o /dev/null -e /dev/null "$tmp/true.sh"
    else sbatch -H --parsable -o /dev/null --array=0-$(($1 - 1)) --wrap /bin/true | cut -d';' -f1; fi
}
m_submit() {
    local r k t0 t1 id ids=$tmp/sub.ids subs
    for r in $(seq 1 "$REPS"); do
        : > "$ids"
        record "$SYS" spawn_floor_per_s "$(loop_rate "$SUBN" /dev/null /bin/true)"
        record "$SYS" submit_jobs_per_s "$(loop_rate "$SUBN" "$ids" sub_held)"
        del_ids "$ids"
        : > "$ids"
        subs=()
        t0=$(now)
        for k in $(seq 1 "$PAR"); do
            ( for i in $(seq 1 $((SUBN / PAR))); do sub_held; done > "$ids.$k" ) &
            subs+=($!)
        done
        wait "${subs[@]}"
        t1=$(now)
        cat "$ids".* > "$ids"
        record "$SYS" submit_par_jobs_per_s "$(echo "$(wc -l < "$ids") / ($t1 - $t0)" | bc -l)"
        del_ids "$ids"
    done
    for r in $(seq 1 "$REPS"); do   # per-call cost over the floor's
        record "$SYS" submit_over_floor "$(awk -F'\t' -v s="$SYS" -v r="$r" '$1 == s && $2 == "spawn_floor_per_s" && ++f == r { fl = $3 }
            $1 == s && $2 == "submit_jobs_per_s" && ++q == r { sb = $3 } END { print fl / sb }' "$tsv")"
    done
    say "$SYS: submission $(awk -F'\t' -v s="$SYS" '$1 == s && $2 == "submit_jobs_per_s" { printf "%.0f ", $3 }' "$tsv")jobs/s"
    for r in $(seq 1 "$REPS"); do
        t0=$(now)
        id=$(sub_array "$ARRAY") || { say "$SYS: array refused"; break; }
        t1=$(now)
        record "$SYS" array_tasks_per_s "$(echo "$ARRAY / ($t1 - $t0)" | bc -l)"
        if is_hpcq; then "$hpcqbin/qdel" "$id" >/dev/null; else scancel "$id"; fi
    done
}
m_bigarray() {
    local t0 t1 id
    t0=$(now)
    if ! id=$(sub_array "$BIGARRAY" 2>"$tmp/bigarray.err"); then
        say "$SYS: $BIGARRAY-task array refused: $(head -1 "$tmp/bigarray.err")"
        record "$SYS" bigarray_s n/a
        return
    fi
    t1=$(now)
    record "$SYS" bigarray_s "$(echo "$t1 - $t0" | bc -l)"
    say "$SYS: $BIGARRAY-task array acknowledged in $(echo "$t1 - $t0" | bc -l | cut -c1-6) s"
    if is_hpcq; then "$hpcqbin/qdel" "$id" >/dev/null; else scancel "$id"; fi
    wait_until 300 0.5 eval '[ "$(list_ids | grep -c "^${id%%\[*}")" = 0 ]'
}
# One job's answer while BUSYN readers each take the whole queue in full.
m_busy() {
    local id=$1 d=$2 k i t0 t1 lats=$tmp/busy.$SYS down0 readers=()
    down0=$(nodes_down)
    for k in $(seq 1 "$BUSYN"); do
        ( while [ ! -e "$tmp/busy.stop" ]; do q_everything >/dev/null 2>&1; echo >> "$tmp/busy.reads"; done ) &
        readers+=($!)
    done
    sleep 1
    : > "$lats"
    for i in $(seq 1 "$QBUSYN"); do
        t0=$(now); q_one "$id" >/dev/null; t1=$(now)
        echo "($t1 - $t0) * 1000" | bc -l >> "$lats"
    done
    touch "$tmp/busy.stop"
    wait "${readers[@]}"
    rm -f "$tmp/busy.stop"
    record "$SYS" "qone_busy_median_ms@$d" "$(stats < "$lats" | cut -d' ' -f1)"
    record "$SYS" "qone_busy_p99_ms@$d" "$(pct 0.99 < "$lats")"
    record "$SYS" "busy_full_reads@$d" "$(wc -l < "$tmp/busy.reads")"
    record "$SYS" "busy_nodes_down@$d" "$(( $(nodes_down) - down0 ))"
    rm -f "$tmp/busy.reads"
    say "$SYS: one job while $BUSYN read everything: p99 $(pct 0.99 < "$lats") ms"
}
m_e2e() {
    local r i t0 t1
    for r in $(seq 1 "$REPS"); do
        wait_until 60 0.05 idle
        t0=$(now)
        for i in $(seq 1 "$E2EN"); do sub_true >/dev/null; done
        if ! wait_until 900 0.05 idle; then say "$SYS: end-to-end run did not finish"; continue; fi
        t1=$(now)
        record "$SYS" e2e_jobs_per_s "$(echo "$E2EN / ($t1 - $t0)" | bc -l)"
    done
    say "$SYS: end-to-end $(awk -F'\t' -v s="$SYS" '$1 == s && $2 == "e2e_jobs_per_s" { printf "%.1f ", $3 }' "$tsv")jobs/s"
}
# Fill the queue with held jobs from PAR submitters until it holds $1 of
# them (ids appended to $2).
fill_to() {
    local want=$1 acked=$2 have k i n subs=()
    have=$(cat "$acked" 2>/dev/null | wc -l)
    say "$SYS: queueing $(( want - have )) more held jobs, to $want ($PAR submitters)"
    for k in $(seq 1 "$PAR"); do   # the first takes the remainder too
        n=$(( (want - have) / PAR + (k == 1 ? (want - have) % PAR : 0) ))
        ( for i in $(seq 1 "$n"); do sub_held; done > "$acked.$k" ) &
        subs+=($!)
    done
    wait "${subs[@]}"   # not a bare wait: the daemons are children too
    cat "$acked".* >> "$acked"
    rm -f "$acked".*
}
m_depth() {
    local d i t0 t1 acked=$tmp/acked.$SYS id pid rss present missing
    : > "$acked"
    for d in $DEPTHS; do
        fill_to "$d" "$acked"
        id=$(sed -n "$(( $(wc -l < "$acked") / 2 ))p" "$acked")
        pid=$(ctl_pid)
        rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
        record "$SYS" "depth_jobs@$d" "$(list_ids | wc -l)"
        record "$SYS" "rss_mib@$d" "$(echo "$rss / 1024" | bc -l)"
        for i in $(seq 1 "$QREPS"); do
            t0=$(now); q_full >/dev/null; t1=$(now)
            record "$SYS" "qfull_ms@$d" "$(echo "($t1 - $t0) * 1000" | bc -l)"
            t0=$(now); q_one "$id" >/dev/null; t1=$(now)
            record "$SYS" "qone_ms@$d" "$(echo "($t1 - $t0) * 1000" | bc -l)"
        done
        for i in $(seq 1 "$DEPTHSUBN"); do
            t0=$(now); sub_held >> "$acked"; t1=$(now)
            record "$SYS" "depth_submit_ms@$d" "$(echo "($t1 - $t0) * 1000" | bc -l)"
        done
        [ "$d" = "$DEPTH" ] && m_busy "$id" "$d"
        say "$SYS: at $d jobs: qstat/squeue $(awk -F'\t' -v s="$SYS" -v m="qfull_ms@$d" '$1 == s && $2 == m { printf "%.0f ", $3 }' "$tsv")ms"
    done
    # Recovery: kill -9 right after the last acknowledgement.
    kill -KILL "$pid"
    is_hpcq || wait "$pid" 2>/dev/null
    # Until the kernel has it gone (a zombie still answers kill -0, and
    # hpcq-local would think the scheduler is still running).
    wait_until 10 0.005 eval "! kill -0 $pid 2>/dev/null || grep -q '^State:.*Z' /proc/$pid/status 2>/dev/null"
    is_hpcq && rm -f "$hpcq_dir/scheduler.pid"
    t0=$(now)
    if is_hpcq; then
        "$hpcqbin/hpcq-local" start-scheduler "$hpcq_dir" >/dev/null 2>&1 &
        local starter=$!
    else
        slurm_start_ctld
    fi
    if ! wait_until "$RECOVERY_TIMEOUT" 0.01 ctl_answers "$id"; then say "$SYS: controller did not come back"; fi
    t1=$(now)
    is_hpcq && wait "$starter" 2>/dev/null
    record "$SYS" recovery_s "$(echo "$t1 - $t0" | bc -l)"
    list_ids | sed 's/;.*//' | sort > "$tmp/present"
    sort "$acked" > "$tmp/acked.sorted"
    present=$(wc -l < "$tmp/present")
    missing=$(comm -23 "$tmp/acked.sorted" "$tmp/present" | wc -l)
    record "$SYS" acked "$(wc -l < "$acked")"
    record "$SYS" present "$present"
    record "$SYS" lost "$missing"
    say "$SYS: $(wc -l < "$acked") acknowledged, $present present after kill -9, $missing lost; back in $(echo "$t1 - $t0" | bc -l | cut -c1-5) s"
}

run_system() {
    SYS=$1
    say "=== $SYS"
    if is_hpcq; then hpcq_start || return 1
    else slurm_start "$SYS" || return 1; fi
    cd "$tmp/${SYS}-work" 2>/dev/null || { mkdir -p "$tmp/${SYS}-work"; cd "$tmp/${SYS}-work"; }
    m_latency
    m_submit
    m_bigarray
    m_e2e
    m_depth
    cd "$tmp"
    if is_hpcq; then hpcq_stop; else slurm_stop; fi
}

printf '#!/bin/sh\n/bin/true\n' > "$tmp/true.sh"
t_start=$(date +%s)
for s in $systems; do
    case $s in
    hpcq) run_system hpcq ;;
    slurm-default|slurm-tuned)
        [ $have_slurm = 1 ] || slurm_setup || continue
        run_system "$s" ;;
    *) say "unknown system $s" ;;
    esac
done
# The swarm: hpcq's scheduler with thousands of connected nodes.
if [ -n "$SWARM_NODES" ] && [[ " $systems " == *" hpcq "* ]]; then
    say "=== swarm at $SWARM_NODES nodes"
    if JOBS=$SWARM_JOBS E2E=$SWARM_E2E "$here/swarm.sh" --build "$build" --out "$tmp/swarm" \
        --nodes "$SWARM_NODES" > "$tmp/swarm.out" 2>&1; then
        awk -F'\t' '{ printf "hpcq\tswarm_%s@%s\t%s\n", $2, $1, $3 }' "$tmp/swarm/swarm.tsv" >> "$tsv"
    else
        tail -5 "$tmp/swarm.out" >&2; say "the swarm failed"
    fi
fi
{
    echo "# machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(free -g | awk '/^Mem/ { print $2 }') GiB, $(. /etc/os-release; echo "$PRETTY_NAME"), kernel $(uname -r)"
    echo "# slurm: $(slurmctld -V 2>/dev/null || echo none); hpcq: $(git -C "$here" describe --always --dirty 2>/dev/null || echo ?) from $hpcqbin"
    echo "# params: REPS=$REPS SUBN=$SUBN ARRAY=$ARRAY E2EN=$E2EN LATN=$LATN DEPTHS=\"$DEPTHS\" QREPS=$QREPS DEPTHSUBN=$DEPTHSUBN CPUS=$CPUS PAR=$PAR BIGARRAY=$BIGARRAY BUSYN=$BUSYN QBUSYN=$QBUSYN SWARM_NODES=\"$SWARM_NODES\" SWARM_JOBS=$SWARM_JOBS SWARM_E2E=$SWARM_E2E; $(( $(date +%s) - t_start )) s"
} > "$out/meta.txt"
python3 "$here/run-report.py" "$tsv" "$out/meta.txt" "$out/results.md"
if [ $quick = 0 ] || [ -n "${PLOT:-}" ]; then
    /usr/bin/python3 "$here/plot-ratios.py" "$tsv" "$out/ratios.png" 2>/dev/null \
        && say "chart: $out/ratios.png" || say "no chart (python3-matplotlib missing?)"
fi
say "results: $out/results.md ($(( $(date +%s) - t_start )) s)"
