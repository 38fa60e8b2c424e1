#!/bin/bash
# Worker lifecycle: walltime enforcement, qdel of a running job (the whole
# process tree goes), resource use, simulated GPUs.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --gpus-per-worker 2 --kill-delay 2

# A killed process may linger a moment until init reaps it.
gone() { ! kill -0 "$1" 2>/dev/null; }

# A process that lives only while its job does: a background child that
# writes its pid, then both wait.
cat > tree.sh <<'S'
#!/bin/bash
sleep 300 &
echo $! > "$PBS_O_WORKDIR/child.$PBS_JOBID"
echo $$ > "$PBS_O_WORKDIR/parent.$PBS_JOBID"
wait
S

test_expect_success 'walltime: the job is killed and reported as exceeded (-29)' '
    id=$(qsub -l walltime=00:00:02 tree.sh) &&
    wait_until 20 test -f child.$id &&
    wait_state $id F 30 &&
    test "$(job_attr $id Exit_status)" = -29 &&
    job_attr $id comment | grep -q "walltime" &&
    grep -q "PBS: job killed: walltime" tree.sh.e$(seqno $id)
'

test_expect_success 'walltime: the whole process tree is gone' '
    id=$(ls child.* | head -1 | sed "s/^child\.//") &&
    wait_until 10 gone $(cat child.$id)
'

test_expect_success 'a job that ignores SIGTERM is killed after the kill delay' '
    id=$(printf "trap \"\" TERM\nsleep 300 & wait; sleep 300\n" | qsub -l walltime=1) &&
    wait_state $id F 30 &&
    test "$(job_attr $id Exit_status)" = -29
'

test_expect_success 'qdel of a running job kills its process tree (exit 271)' '
    id=$(qsub tree.sh) && wait_state $id R && wait_until 20 test -f child.$id &&
    child=$(cat child.$id) && kill -0 $child &&
    qdel $id && wait_state $id F 30 &&
    test "$(job_attr $id Exit_status)" = 271 &&
    job_attr $id comment | grep -q "deleted by" &&
    wait_until 10 gone $child
'

test_expect_success 'resources_used reports walltime and cpu time' '
    id=$(echo "x=0; while [ \$x -lt 300000 ]; do x=\$((x+1)); done; sleep 1" | qsub) &&
    wait_state $id F 60 &&
    wall=$(job_attr $id resources_used.walltime) &&
    test "$wall" != "00:00:00" &&
    job_attr $id resources_used.cput | grep -Eq "^[0-9]{2}:[0-9]{2}:[0-9]{2}$" &&
    job_attr $id resources_used.mem | grep -Eq "^[0-9]+[kmg]?b$"
'

test_expect_success 'simulated GPUs: CUDA_VISIBLE_DEVICES lists the GPUs given' '
    id=$(echo "echo cvd=\$CUDA_VISIBLE_DEVICES" | qsub -l select=1:ncpus=1:ngpus=2) &&
    wait_state $id F && grep -qx "cvd=0,1" STDIN.o$(seqno $id)
'

test_expect_success 'a job without GPUs on a GPU node sees none' '
    id=$(echo "echo cvd=[\$CUDA_VISIBLE_DEVICES]" | qsub) &&
    wait_state $id F && grep -qx "cvd=\[\]" STDIN.o$(seqno $id)
'

test_expect_success 'two GPU jobs on one node get different GPUs' '
    a=$(echo "echo \$CUDA_VISIBLE_DEVICES; sleep 3" | qsub -l select=1:ncpus=1:ngpus=1 -l place=pack) &&
    b=$(echo "echo \$CUDA_VISIBLE_DEVICES; sleep 3" | qsub -l select=1:ncpus=1:ngpus=1 -l place=pack) &&
    wait_state $a F && wait_state $b F &&
    ha=$(job_attr $a exec_host) && hb=$(job_attr $b exec_host) &&
    { test "${ha%%/*}" != "${hb%%/*}" ||
      test "$(cat STDIN.o$(seqno $a))" != "$(cat STDIN.o$(seqno $b))"; }
'

test_expect_success 'a multi-node job gets a nodefile line per MPI slot' '
    id=$(echo "sort \$PBS_NODEFILE | tr \"\\n\" \" \"" | qsub -l select=2:ncpus=1:mpiprocs=2 -l place=scatter) &&
    wait_state $id F &&
    test "$(cat STDIN.o$(seqno $id))" = "node1 node1 node2 node2 " &&
    job_attr $id exec_host | grep -q "+"
'

test_expect_success 'FIFO: a job that does not fit waits; it starts when room frees' '
    big=$(echo "sleep 2" | qsub -l select=2:ncpus=2) &&
    small=$(echo "true" | qsub -l select=1:ncpus=1) &&
    wait_state $big F 60 && wait_state $small F 60 &&
    test $(db_query "SELECT start_time FROM attempts WHERE job_seq = $(seqno $small)") -ge \
         $(db_query "SELECT start_time FROM attempts WHERE job_seq = $(seqno $big)")
'

test_expect_success 'priority: a higher -p job starts before earlier lower ones' '
    blocker=$(echo "sleep 2" | qsub -l select=2:ncpus=2) && wait_state $blocker R &&
    low=$(echo "true" | qsub -l select=2:ncpus=2 -p 0) &&
    high=$(echo "true" | qsub -l select=2:ncpus=2 -p 100) &&
    wait_state $low F 60 && wait_state $high F 60 &&
    test $(db_query "SELECT id FROM events WHERE job_seq = $(seqno $high) AND type = \"started\"") -lt \
         $(db_query "SELECT id FROM events WHERE job_seq = $(seqno $low) AND type = \"started\"")
'

test_done
