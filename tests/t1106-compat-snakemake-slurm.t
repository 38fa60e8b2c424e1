#!/bin/bash
# Snakemake 7's own --slurm executor (Debian's snakemake) drives hpcq
# through sbatch, sacct, sinfo and, inside each job, srun.  Skips (visibly)
# where snakemake is not installed.
. "$(dirname "$0")/lib.sh"

if ! command -v snakemake >/dev/null 2>&1 || ! snakemake --help 2>/dev/null | grep -q -- "--slurm "; then
    test_skip "snakemake --slurm workflow through sbatch" "snakemake 7 with --slurm not installed"
    test_done
fi

cluster_start 2 --cpus-per-worker 2

# Each job runs snakemake itself (Python): mem_mb is what its cgroup
# allows, and 100 MB is not enough for that.
cat > Snakefile <<'S'
rule all:
    input: "joined.txt"

rule part:
    output: "p{i}.txt"
    resources: runtime=10, mem_mb=600
    shell: "echo part {wildcards.i} job $SLURM_JOB_ID > {output}"

rule join:
    input: expand("p{i}.txt", i=range(3))
    output: "joined.txt"
    resources: runtime=10, mem_mb=600
    shell: "cat {input} > {output}"
S

test_expect_success 'snakemake --slurm runs the workflow to the end' '
    USER=$(id -un) timeout 300 snakemake --slurm --jobs 3 --latency-wait 10 \
        --max-status-checks-per-second 5 > sm.log 2>&1 || { tail -40 sm.log; false; }
'

test_expect_success 'each rule ran as its own sbatch job, seen by sacct' '
    test $(grep -c "^part" joined.txt) = 3 &&
    for id in $(sed -n "s/^part [0-9] job //p" joined.txt); do
        sacct -P -n --format=JobIdRaw,State -j $id | grep -qx "$id|COMPLETED" || exit 1
    done &&
    test "$(db_query "SELECT count(*) FROM jobs WHERE name LIKE '\''snakejob_%'\'' AND state = '\''F'\'' AND exit_status = 0")" = 4
'

test_done
