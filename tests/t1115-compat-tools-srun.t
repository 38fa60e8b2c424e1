#!/bin/bash
# The workflow tools' own srun paths, from their source (docs/compat.md has
# the versions), run inside real sbatch jobs: Parsl's SrunLauncher and
# SrunMPILauncher scripts as their templates write them, dask-jobqueue's
# SLURMRunner roles (scheduler, client, workers from SLURM_PROCID and a
# scheduler file named by SLURM_JOB_ID), and PSI/J's Slurm executor: its
# job script (scontrol show hostnames into a node file, output by
# SLURM_JOB_ID) and its status command and parser.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 4

# Parsl (parsl/launchers/launchers.py, SrunLauncher.__call__): the script
# around the worker command, tasks_per_node=2, nodes_per_block=1, debug on;
# the command is written beside $SLURM_JOB_STDOUT.
cat > parsl.sh <<'S'
#!/bin/bash
#SBATCH --job-name=parsl.block.0
#SBATCH --output=parsl-out/parsl.block.0.stdout
#SBATCH --error=parsl-out/parsl.block.0.stderr
#SBATCH --nodes=1
#SBATCH --time=10
#SBATCH --ntasks-per-node=2
set -e
export CORES=$SLURM_CPUS_ON_NODE
export NODES=$SLURM_JOB_NUM_NODES

[[ "1" == "1" ]] && echo "Found cores : $CORES"
[[ "1" == "1" ]] && echo "Found nodes : $NODES"
WORKERCOUNT=2

path_cmd=$(dirname $SLURM_JOB_STDOUT)

cat << SLURM_EOF > $path_cmd/cmd_$SLURM_JOB_NAME.sh
echo "worker rank \$SLURM_PROCID of \$SLURM_NTASKS on \$SLURMD_NODENAME"
SLURM_EOF
chmod a+x $path_cmd/cmd_$SLURM_JOB_NAME.sh

srun --ntasks 2 -l  bash $path_cmd/cmd_$SLURM_JOB_NAME.sh

[[ "1" == "1" ]] && echo "Done"
S

test_expect_success 'Parsl SrunLauncher: its script runs 2 workers through srun -l' '
    mkdir -p parsl-out && n=$(sbatch --parsable parsl.sh) && wait_state $n F 60 &&
    o=parsl-out/parsl.block.0.stdout && cat $o parsl-out/parsl.block.0.stderr &&
    test "$(job_attr $n Exit_status)" = 0 &&
    test -x parsl-out/cmd_parsl.block.0.sh &&
    grep -qx "Found cores : 2" $o && grep -qx "Found nodes : 1" $o &&
    grep -qx "0: worker rank 0 of 2 on node1" $o && grep -qx "1: worker rank 1 of 2 on node1" $o &&
    grep -qx Done $o
'

# SrunMPILauncher.__call__ with tasks_per_node=1, nodes_per_block=1: one
# task block, NODES=1: the "Task block <= nodes" branch, srun --exclusive
# --nodes 1 in the background and wait.
cat > parslmpi.sh <<'S'
#!/bin/bash
#SBATCH --job-name=mpiblock
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=2
set -e
export CORES=$SLURM_CPUS_ON_NODE
export NODES=$SLURM_JOB_NUM_NODES

[[ "1" == "1" ]] && echo "Found cores : $CORES"
[[ "1" == "1" ]] && echo "Found nodes : $NODES"
WORKERCOUNT=1

cat << SLURM_EOF > cmd_$SLURM_JOB_NAME.sh
echo "mpi worker \$SLURM_PROCID nodes \$SLURM_STEP_NUM_NODES"
SLURM_EOF
chmod a+x cmd_$SLURM_JOB_NAME.sh

TASKBLOCKS=1

# If there are more taskblocks to be launched than nodes use
if (( "$TASKBLOCKS" > "$NODES" ))
then
    [[ "1" == "1" ]] && echo "TaskBlocks:$TASKBLOCKS > Nodes:$NODES"
    CORES_PER_BLOCK=$(($NODES * $CORES / $TASKBLOCKS))
    for blk in $(seq 1 1 $TASKBLOCKS):
    do
        srun --ntasks $CORES_PER_BLOCK -l  bash cmd_$SLURM_JOB_NAME.sh &
    done
    wait
else
    # A Task block could be integer multiples of Nodes
    [[ "1" == "1" ]] && echo "TaskBlocks:$TASKBLOCKS <= Nodes:$NODES"
    NODES_PER_BLOCK=$(( $NODES / $TASKBLOCKS ))
    for blk in $(seq 1 1 $TASKBLOCKS):
    do
        srun --exclusive --nodes $NODES_PER_BLOCK -l  bash cmd_$SLURM_JOB_NAME.sh &
    done
    wait

fi


[[ "1" == "1" ]] && echo "Done"
S

test_expect_success 'Parsl SrunMPILauncher: srun --exclusive --nodes 1 -l, in the background' '
    n=$(sbatch --parsable parslmpi.sh) && wait_state $n F 60 && o=slurm-$n.out && cat $o &&
    test "$(job_attr $n Exit_status)" = 0 &&
    grep -qx "TaskBlocks:1 <= Nodes:1" $o && grep -qx "0: mpi worker 0 nodes 1" $o &&
    grep -qx Done $o
'

# dask-jobqueue (dask_jobqueue/slurm.py, SLURMRunner.__init__ and
# get_role / get_scheduler_address): the variables it reads with int(),
# the scheduler file "scheduler-{job_id}.json", the roles by rank; the
# scheduler writes the file, the others wait for it as it does.
cat > runner.py <<'P'
import asyncio, json, os
from pathlib import Path
proc_id = int(os.environ["SLURM_PROCID"])
world_size = n_workers = int(os.environ["SLURM_NTASKS"])
job_id = int(os.environ["SLURM_JOB_ID"])
scheduler_file = Path("scheduler-{job_id}.json".format(job_id=job_id))
assert world_size >= 3, world_size
n_workers -= 2
role = "scheduler" if proc_id == 0 else "client" if proc_id == 1 else "worker"
if role == "scheduler":
    tmp = scheduler_file.with_suffix(".tmp")
    tmp.write_text(json.dumps({"address": "tcp://%s:8786" % os.environ["SLURMD_NODENAME"]}))
    tmp.rename(scheduler_file)
async def get_scheduler_address():
    while not scheduler_file or not scheduler_file.exists():
        await asyncio.sleep(0.2)
    return json.loads(scheduler_file.read_text())["address"]
print(role, proc_id, "of", world_size, "workers", n_workers, asyncio.run(get_scheduler_address()))
P

test_expect_success 'dask-jobqueue SLURMRunner: srun -n 4 gives scheduler, client and 2 workers' '
    n=$(sbatch --parsable -n 4 --wrap="srun -n 4 python3 runner.py") && wait_state $n F 60 &&
    o=slurm-$n.out && cat $o && test "$(job_attr $n Exit_status)" = 0 &&
    test -e scheduler-$n.json &&
    grep -qx "scheduler 0 of 4 workers 2 tcp://node1:8786" $o &&
    grep -qx "client 1 of 4 workers 2 tcp://node1:8786" $o &&
    test "$(grep -c "^worker [23] of 4 workers 2 tcp://node1:8786$" $o)" = 2
'

# PSI/J (src/psij/executors/batch/slurm/slurm.mustache, slurm.py): the
# script as its template renders it for 2 processes on 1 node, submitted
# with "sbatch PATH", the id the submit output's last word, then
# "squeue -O JobArrayID,StateCompact,Reason -t all -j ID" parsed as
# parse_status_output does (header skipped, 3 columns).
mkdir -p psij
cat > psij/job.sh <<S
#!/bin/bash


#SBATCH --job-name="psij-test"

#SBATCH --chdir="$WORK/psij"

#SBATCH --nodes=1

#SBATCH --ntasks=2

#SBATCH --ntasks-per-node=2

#SBATCH --time=00:10:00

#SBATCH -e /dev/null
#SBATCH -o /dev/null

#SBATCH --export=ALL

_PSIJ_PC=2
_PSIJ_PPN=2

exec &>> "$WORK/psij/\$SLURM_JOB_ID.out"

_PSIJ_NC=\`scontrol show hostnames | wc -l\`

PSIJ_NODEFILE="$WORK/psij/\$SLURM_JOB_ID.nodefile"
if [ "\$_PSIJ_PPN" == "" ]; then
    scontrol show hostnames >"\$PSIJ_NODEFILE"
else
    scontrol show hostnames | while read NODE; do for _ in \$(seq 1 1 \$_PSIJ_PPN); do echo "\$NODE"; done; done > "\$PSIJ_NODEFILE"
fi
export PSIJ_NODEFILE

srun -n 2 /bin/sh -c 'echo psij rank \$SLURM_PROCID'
_PSIJ_JOB_EC=\$?

echo \$_PSIJ_JOB_EC > "$WORK/psij/\$SLURM_JOB_ID.ec"
echo "_PSIJ_SCRIPT_DONE"
S

test_expect_success 'PSI/J Slurm executor: its script, node file, exit code file and status parse' '
    out=$(sbatch $WORK/psij/job.sh) && n=$(echo "$out" | python3 -c "import sys; print(sys.stdin.read().strip().split()[-1])") &&
    wait_state $n F 60 && cat psij/$n.out &&
    test "$(cat psij/$n.nodefile)" = "$(printf "node1\nnode1")" &&
    test "$(cat psij/$n.ec)" = 0 && grep -qx _PSIJ_SCRIPT_DONE psij/$n.out &&
    test "$(grep -c "^psij rank [01]$" psij/$n.out)" = 2 &&
    f=$(sbatch --parsable --wrap="exit 3") && wait_state $f F 30 &&
    squeue -O JobArrayID,StateCompact,Reason -t all -j $n,$f > st.out && cat st.out &&
    python3 - $n $f <<"P"
import sys
states = {"CD": "COMPLETED", "F": "FAILED", "CA": "CANCELED", "PD": "QUEUED", "R": "ACTIVE"}
reasons = {"NonZeroExitCode", "None"}
out = open("st.out").read()
lines = iter(out.split("\n"))
lines.__next__()
r = {}
for line in lines:
    if not line:
        continue
    cols = line.split()
    assert len(cols) == 3, cols
    state = states[cols[1]]
    if state == "FAILED":
        assert cols[2] == "NonZeroExitCode", cols
    r[cols[0]] = state
assert r == {sys.argv[1]: "COMPLETED", sys.argv[2]: "FAILED"}, r
P
    scancel -Q $n
'

test_done
