#!/bin/bash
# The workflow tools' own command lines and parsers (read from their
# source; versions in docs/compat.md), run against hpcq: each submits,
# polls and cancels exactly as the tool does, and parses the output with
# the tool's regular expression or split, in Python as the tools do.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2
me=$(id -un)

# Nextflow's SlurmExecutor: .command.run with its #SBATCH header, "sbatch
# .command.run" from the task directory, SUBMIT_REGEX, then
# "squeue --noheader -o '%i %t' -t all -p QUEUE -u USER" split on \s+ into
# two columns, "scancel ID".
test_expect_success 'Nextflow: submit, parse the id, poll squeue to CD, cancel' '
    mkdir -p nf/work && cd nf/work &&
    printf "#!/bin/bash\n#SBATCH -J nf-hello_(1)\n#SBATCH -o $PWD/.command.log\n#SBATCH --no-requeue\n#SBATCH --signal B:USR2@30\n#SBATCH -c 2\n#SBATCH -t 00:10:00\n#SBATCH --mem 100M\n#SBATCH -p workq\n# NEXTFLOW TASK: hello (1)\necho hello > .exitcode.out\n" > .command.run &&
    sbatch .command.run > submit.out 2>&1 &&
    id=$(python3 -c "import re,sys; m=[re.search(r\"Submitted batch job (\\d+)\", l) for l in open(\"submit.out\")]; print([x.group(1) for x in m if x][0])") &&
    wait_state $id F &&
    squeue --noheader -o "%i %t" -t all -p workq -u $me > q.out 2>&1 &&
    python3 - $id <<"P"
import re, sys
status = {}
for line in open("q.out").read().splitlines():
    cols = re.split(r"\s+", line)
    if len(cols) == 2:
        status[cols[0]] = cols[1]
assert status[sys.argv[1]] == "CD", status
P
    grep -qx hello .exitcode.out &&
    sed "s/^echo hello.*/sleep 60/" .command.run > .command.run2 &&
    id2=$(sbatch .command.run2 | sed -n "s/Submitted batch job //p") && scancel $id2 &&
    wait_state $id2 F && squeue --noheader -o "%i %t" -t all -p workq -u $me | grep -qx "$id2 CA"
'

test_expect_success 'Nextflow: job arrays are N_I in squeue, their index in SLURM_ARRAY_TASK_ID' '
    mkdir -p nfa && cd nfa &&
    printf "#!/bin/bash\n#SBATCH --array 0-2\n#SBATCH -J nf-arr\n#SBATCH -o /dev/null\n#SBATCH --no-requeue\necho \$SLURM_ARRAY_TASK_ID > task.\$SLURM_ARRAY_TASK_ID\n" > .command.run &&
    id=$(sbatch .command.run | sed -n "s/Submitted batch job //p") && wait_state "$id[]" F &&
    test "$(squeue --noheader -o "%i %t" -t all -u $me | grep "^${id}_" | sort | tr "\n" " ")" = "${id}_0 CD ${id}_1 CD ${id}_2 CD " &&
    test "$(cat task.0 task.1 task.2 | tr "\n" " ")" = "0 1 2 "
'

# dask-jobqueue's SLURMCluster (0.9): "sbatch /tmp/tmpXXX.sh", the id by
# re.search(r"(?P<job_id>\d+)", out), "scancel ID"; the script's header.
test_expect_success 'dask-jobqueue: its job script, id regexp and cancel' '
    mkdir -p dask/logs && cd dask &&
    printf "#!/usr/bin/env bash\n\n#SBATCH -J dask-worker\n#SBATCH -e logs/dask-worker-%%J.err\n#SBATCH -o logs/dask-worker-%%J.out\n#SBATCH -p workq\n#SBATCH -n 1\n#SBATCH -N 1\n#SBATCH --cpus-per-task=1\n#SBATCH --mem=954M\n#SBATCH -t 00:30:00\n\necho worker; sleep 60\n" > job.sh &&
    out=$(sbatch job.sh) &&
    id=$(python3 -c "import re,sys; print(re.search(r\"(?P<job_id>\\d+)\", sys.argv[1]).groupdict()[\"job_id\"])" "$out") &&
    wait_state $id R && wait_until 10 grep -qx worker logs/dask-worker-$id.out &&
    scancel $id && wait_state $id F && test -e logs/dask-worker-$id.err
'

# Parsl's SlurmProvider (2026.07): the template, "sbatch PATH",
# re.match(r"Submitted batch job (?P<id>\S*)", line); a probe "sacct -X"
# (exit 0: use sacct) then "sacct -X --noheader --format=jobid,state%20
# --job 'ID,ID'" split as job_id, slurm_state, *ignore; the squeue
# fallback "--noheader --format='%i %t' --job 'ID,ID'"; "scancel ID ID".
test_expect_success 'Parsl: template, id regexp, sacct and squeue status, cancel' '
    mkdir -p parsl && cd parsl &&
    for k in 1 2; do
        printf "#!/bin/bash\n\n#SBATCH --job-name=parsl.slurm.1700000000.$k\n#SBATCH --output=$PWD/p$k.stdout\n#SBATCH --error=$PWD/p$k.stderr\n#SBATCH --nodes=1\n#SBATCH --time=10\n#SBATCH --ntasks-per-node=1\n\n#SBATCH --exclusive\n#SBATCH --partition=workq\n#SBATCH --cpus-per-task=1\n\nexport JOBNAME=\"parsl.slurm.1700000000.$k\"\n\nsleep $((k * 40 - 40))\n" > p$k.submit
    done &&
    sbatch p1.submit > s1 && sbatch p2.submit > s2 &&
    ids=$(python3 -c "
import re, sys
out = []
for f in (\"s1\", \"s2\"):
    for line in open(f).read().split(\"\\n\"):
        m = re.match(r\"Submitted batch job (?P<id>\S*)\", line)
        if m:
            out.append(m.group(\"id\"))
print(\",\".join(out))") &&
    sacct -X > /dev/null &&
    first=${ids%%,*} && second=${ids#*,} && wait_state $first F && wait_state $second R &&
    sacct -X --noheader --format=jobid,state%20 --job "$ids" > st && squeue --noheader --format="%i %t" --job "$ids" > sq &&
    python3 - "$first" "$second" <<"P"
import sys
sacct = {}
for line in open("st").read().split("\n"):
    if line:
        job_id, slurm_state, *ignore = line.split()
        sacct[job_id] = slurm_state
assert sacct == {sys.argv[1]: "COMPLETED", sys.argv[2]: "RUNNING"}, sacct
squeue = {}
for line in open("sq").read().split("\n"):
    if line:
        job_id, slurm_state = line.split()
        squeue[job_id] = slurm_state
assert squeue == {sys.argv[1]: "CD", sys.argv[2]: "R"}, squeue
P
    scancel $first $second && wait_state $second F &&
    sacct -X --noheader --format=jobid,state%20 --job "$second" | grep -Eq "^ *$second +CANCELLED $"
'

# Snakemake 7's --slurm (7.21, Debian's): "sinfo -o %P" for the default
# partition (the one with "*"), "sacct -nu USER -o Account%20 | head -n1",
# sbatch with -J -o --export=ALL -p -t --mem --cpus-per-task -D --wrap,
# the id as out.split(" ")[-1], status from
# "sacct -P -n --format=JobIdRaw,State -j ID" as x.split("|").
test_expect_success 'Snakemake 7 --slurm: partition, account, submit, status' '
    mkdir -p sm/.snakemake/slurm_logs/rule_a && cd sm &&
    part=$(python3 -c "
import subprocess
out = subprocess.check_output(r\"sinfo -o %P\", shell=True, text=True)
print([p.replace(\"*\", \"\") for p in out.split() if \"*\" in p][0])") &&
    test "$part" = workq &&
    acct=$(sacct -nu "$me" -o Account%20 | head -n1) && test -z "$(echo $acct)" &&
    out=$(sbatch -J snakejob_a_1 -o .snakemake/slurm_logs/rule_a/%j.log --export=ALL -p $part -t 10 --mem 100 --cpus-per-task=1 -D $PWD --wrap="echo ran > a.txt") &&
    id=$(echo "$out" | python3 -c "import sys; print(sys.stdin.read().strip().split(\" \")[-1])") &&
    wait_state $id F && grep -qx ran a.txt && test -e .snakemake/slurm_logs/rule_a/$id.log &&
    sacct -P -n --format=JobIdRaw,State -j $id > st &&
    python3 - $id <<"P"
import sys
sacct_res = open("st").read()
res = {x.split("|")[0]: x.split("|")[1] for x in sacct_res.strip().split("\n")}
assert res[sys.argv[1]] == "COMPLETED", res
P
'

test_done
