#!/bin/bash
# Workflow tools drive hpcq as they drive PBS: Snakemake's cluster mode
# submits each rule with qsub and cancels with qdel, unchanged.  Skips
# (visibly) where snakemake is not installed.
. "$(dirname "$0")/lib.sh"

if ! command -v snakemake >/dev/null 2>&1; then
    test_skip "snakemake workflow through qsub" "snakemake not installed"
    test_done
fi

cluster_start 2 --cpus-per-worker 2

cat > Snakefile <<'S'
rule all:
    input: "result.txt"

rule split:
    output: "part{i}.txt"
    threads: 1
    shell: "echo part {wildcards.i} on $PBS_JOBID > {output}"

rule join:
    input: expand("part{i}.txt", i=range(4))
    output: "result.txt"
    threads: 2
    shell: "cat {input} > {output}; echo ncpus=$NCPUS >> {output}"
S

test_expect_success 'snakemake --cluster qsub runs the workflow to the end' '
    mkdir -p smlogs &&
    timeout 300 snakemake --cluster "qsub -l select=1:ncpus={threads} -N sm_{rule} -j oe -o smlogs/" \
        --cluster-cancel qdel --jobs 4 --latency-wait 10 --max-status-checks-per-second 10 \
        > sm.log 2>&1 || { tail -30 sm.log; false; }
'

test_expect_success 'each rule ran as its own hpcq job' '
    test $(grep -c "^part" result.txt) = 4 &&
    test $(cut -d" " -f4 result.txt | grep -E "^[0-9]+\." | sort -u | wc -l) = 4 &&
    grep -qx "ncpus=2" result.txt &&
    test "$(db_query "SELECT count(*) FROM jobs WHERE name LIKE '\''sm_%'\'' AND state = '\''F'\'' AND exit_status = 0")" = 5
'

test_done
