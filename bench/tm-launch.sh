#!/bin/bash
# bench/tm-launch.sh [BUILDDIR] [REPEATS]: remote launch through the
# workers' task manager on hosts of their own (hpcq-local --hosts; root).
# Inside one 4-host job: `pbsdsh true` on 1, 2 and 4 hosts (-n 0, -c 2,
# all), and `mpirun ./hello` (4 ranks on 4 hosts, daemons through
# pbs_tmrsh) against a plain local `mpirun -np 4 ./hello` on the head host,
# in the same run.  Prints median and p90 in ms.  Results: bench/RESULTS.md.
set -euo pipefail
build=$(cd "${1:-.}" && pwd)
reps=${2:-20}
[ "$(id -u)" -eq 0 ] || { echo "tm-launch: needs root (hpcq-local --hosts)" >&2; exit 2; }
export PATH=$build/cli:$PATH
dir=$(mktemp -d /tmp/hpcq-tm-bench.XXXXXX)
trap 'hpcq-local stop "$dir/c" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
eval "$(hpcq-local start "$dir/c" --workers 4 --cpus-per-worker 2 --hosts)"
cd "$dir"
cat > hello.c <<'C'
#include <mpi.h>
int main (int argc, char **argv) { MPI_Init (&argc, &argv); MPI_Finalize (); return 0; }
C
mpicc -o hello hello.c
cat > job.sh <<S
#!/bin/bash
t() { local s=\$(date +%s%N); "\$@" >/dev/null; echo \$(( (\$(date +%s%N) - s) / 1000 )); }
for i in \$(seq $reps); do
    echo "pbsdsh-1 \$(t pbsdsh -n 0 true)"
    echo "pbsdsh-2 \$(t pbsdsh -c 2 true)"
    echo "pbsdsh-4 \$(t pbsdsh true)"
    echo "mpirun-4hosts \$(t mpirun ./hello)"
done
S
id=$(qsub -v OMPI_ALLOW_RUN_AS_ROOT=1,OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
     -l select=4:ncpus=2,place=scatter -o out -j oe job.sh)
# The local reference, on the head host, between the job's runs.
for i in $(seq "$reps"); do
    s=$(date +%s%N)
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 4 ./hello >/dev/null
    echo "mpirun-local $(( ($(date +%s%N) - s) / 1000 ))"
done > local
until qstat -x "$id" | grep -q " F "; do sleep 1; done
cat out local | awk '
    NF == 2 && $2 ~ /^[0-9]+$/ { v[$1] = v[$1] " " $2 }
    END {
        printf "| what | runs | median ms | p90 ms |\n| --- | ---: | ---: | ---: |\n"
        n = split("pbsdsh-1 pbsdsh-2 pbsdsh-4 mpirun-4hosts mpirun-local", k, " ")
        for (i = 1; i <= n; i++) {
            m = split(v[k[i]], a, " "); if (!m) continue
            for (x = 1; x <= m; x++) for (y = x + 1; y <= m; y++) if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
            printf "| %s | %d | %.1f | %.1f |\n", k[i], m, a[int((m + 1) / 2)] / 1000, a[int(m * 0.9 + 0.5)] / 1000
        }
    }'
