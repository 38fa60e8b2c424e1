#!/bin/bash
# bench/qsub-floor.sh - qsub's per-call cost against the spawn floor
# (issue 15 part 3), the builds side by side in one run.
#
# Usage: bench/qsub-floor.sh DYNAMIC_BUILD STATIC_BUILD [N] [REPS]
#
# DYNAMIC_BUILD is an ordinary build (./configure), STATIC_BUILD one
# configured with --enable-static-cli, of the same source.  One cluster
# (hpcq-local, from DYNAMIC_BUILD) serves both qsubs.  Each round runs,
# back to back, the same shell loop N times over: /bin/true (the floor:
# what any one-process-per-call submitter pays), the dynamic qsub -h, the
# static qsub -h.  Prints per-call ms (the median round, min and max) and
# each qsub's ratio to the floor.  Then one call of each under callgrind:
# instructions in all and the share spent in the dynamic loader (ld.so's
# symbol lookups and relocations), the profile that names what bounds it.
# Both qsubs also run against bench/tools/null-server, a stand-in that
# answers at once and commits nothing: qsub's own cost, apart from the
# scheduler's durable commit.  Every acknowledgement from the real
# scheduler still follows the job's commit (only the client's link
# differs).
set -uo pipefail
dyn=$(cd "$1" && pwd); sta=$(cd "$2" && pwd)
N=${3:-200}; REPS=${4:-5}
[ -x "$sta/cli/qsub" ] && file -L "$sta/cli/qsub" | grep -q 'statically linked' \
    || { echo "qsub-floor.sh: $sta/cli/qsub is not statically linked" >&2; exit 1; }
tmp=$(mktemp -d /tmp/hpcq-qfloor.XXXXXX)
null_pid=""
cleanup() {
    [ -n "$null_pid" ] && kill "$null_pid" 2>/dev/null && wait "$null_pid" 2>/dev/null
    "$dyn/cli/hpcq-local" stop "$tmp/c" >/dev/null 2>&1; rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
PATH=$dyn/cli:$dyn/scheduler:$dyn/worker:$PATH
hpcq-local start "$tmp/c" --workers 1 >/dev/null || exit 1
export HPCQ_SERVER=unix:$tmp/c/hpcq.sock
printf '#!/bin/sh\ntrue\n' > "$tmp/job.sh"
"$dyn/bench/tools/null-server" "$tmp/null.sock" & null_pid=$!
for ((i = 0; i < 100; i++)); do [ -S "$tmp/null.sock" ] && break; sleep 0.05; done

per_call_ms() {  # per_call_ms COMMAND...: the loop's ms per call
    local t0 t1 i
    t0=$EPOCHREALTIME
    for ((i = 0; i < N; i++)); do "$@" > /dev/null || return 1; done
    t1=$EPOCHREALTIME
    echo "($t1 - $t0) * 1000 / $N" | bc -l
}
: > "$tmp/t.tsv"
for ((r = 0; r < REPS; r++)); do
    f=$(per_call_ms /bin/true)
    d=$(per_call_ms "$dyn/cli/qsub" -h -o /dev/null -e /dev/null "$tmp/job.sh") || exit 1
    s=$(per_call_ms "$sta/cli/qsub" -h -o /dev/null -e /dev/null "$tmp/job.sh") || exit 1
    dn=$(HPCQ_SERVER=unix:$tmp/null.sock per_call_ms "$dyn/cli/qsub" -h -o /dev/null -e /dev/null "$tmp/job.sh") || exit 1
    sn=$(HPCQ_SERVER=unix:$tmp/null.sock per_call_ms "$sta/cli/qsub" -h -o /dev/null -e /dev/null "$tmp/job.sh") || exit 1
    printf '%s\t%s\t%s\t%s\t%s\n' "$f" "$d" "$s" "$dn" "$sn" >> "$tmp/t.tsv"
done
med() { cut -f"$1" "$tmp/t.tsv" | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f (%.3f-%.3f)", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
medv() { cut -f"$1" "$tmp/t.tsv" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# Ratio of each round (qsub / floor), median over rounds.
ratio() { awk -F'\t' -v c="$1" '{ print $c / $1 }' "$tmp/t.tsv" | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }'; }

profile() {  # profile QSUB: "instructions ld.so-share"
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$1" -h -o /dev/null \
        -e /dev/null "$tmp/job.sh" > /dev/null 2>&1 || { echo "- -"; return; }
    callgrind_annotate --inclusive=no "$tmp/cg.out" 2>/dev/null | awk '
        /PROGRAM TOTALS/ { gsub(",", "", $1); total = $1 }
        /ld-linux/ { gsub(",", "", $1); ld += $1 }
        END { printf "%d %.1f%%\n", total, total ? 100 * ld / total : 0 }'
}
read -r dyn_ir dyn_ld <<< "$(profile "$dyn/cli/qsub")"
read -r sta_ir sta_ld <<< "$(profile "$sta/cli/qsub")"

echo "# $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); N=$N calls per loop, $REPS rounds; $(date -u +%F)"
echo "| per call | ms (median round, min-max) | ÷ floor | instructions (callgrind) | in the dynamic loader |"
echo "| --- | ---: | ---: | ---: | ---: |"
echo "| /bin/true (the floor) | $(med 1) | 1.00 | | |"
echo "| qsub -h, dynamic | $(med 2) | $(ratio 2) | $dyn_ir | $dyn_ld |"
echo "| qsub -h, --enable-static-cli | $(med 3) | $(ratio 3) | $sta_ir | $sta_ld |"
echo "| qsub -h, dynamic, null server (no commit) | $(med 4) | $(ratio 4) | | |"
echo "| qsub -h, --enable-static-cli, null server (no commit) | $(med 5) | $(ratio 5) | | |"
echo "# static ÷ dynamic per call: $(echo "$(medv 3) / $(medv 2)" | bc -l | cut -c1-4)"
