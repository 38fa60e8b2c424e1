#!/bin/bash
# GPU-aware placement with simulated GPUs: MIG instances (a MIG job sees its
# instance's UUID in CUDA_VISIBLE_DEVICES; MIG jobs pack onto one GPU's
# instances; whole-GPU jobs never get a GPU in MIG mode), gpu_model
# selection, and requests no node can serve refused at submission.
. "$(dirname "$0")/lib.sh"

# node1: an A100 split into 7 x 1g.5gb, and a whole A100; node2: two
# whole H100s; node3: no GPU.
cluster_start 3 --cpus-per-worker 4 --kill-delay 1 \
    --worker-conf 1 'gpus = 2' --worker-conf 1 'gpu_model = NVIDIA A100-SXM4-40GB' \
    --worker-conf 1 'mig_layout = 0:1g.5gb*7' \
    --worker-conf 2 'gpus = 2' --worker-conf 2 'gpu_model = NVIDIA H100 80GB HBM3'

njobs() { db_query "SELECT count(*) FROM jobs"; }
echo true > ok.sh
out() { cat "STDIN.o$(seqno "$1")"; }
cvd_job() { echo "echo cvd=\$CUDA_VISIBLE_DEVICES; sleep ${1:-0}" | qsub "${@:2}"; }

test_expect_success 'the scheduler knows node1 GPU 0 as 7 MIG instances' '
    db_query "SELECT gpus FROM nodes WHERE name = '\''node1'\''" > gpus.json &&
    test "$(grep -o "\"profile\": *\"1g.5gb\"" gpus.json | wc -l)" -eq 7 &&
    grep -q "MIG-SIM-node1-0-6" gpus.json
'

test_expect_success 'a MIG job gets one instance: its UUID in CUDA_VISIBLE_DEVICES' '
    id=$(cvd_job 0 -l select=1:ncpus=1:mig=1g.5gb) && wait_state $id F &&
    out $id && grep -Eqx "cvd=MIG-SIM-node1-0-[0-6]" STDIN.o$(seqno $id) &&
    test "$(job_attr $id exec_host)" = "node1/0*1" &&
    test "$(job_attr $id exec_vnode)" = "(node1:ncpus=1:mig=1g.5gb)"
'

test_expect_success 'two MIG jobs at once pack onto the same GPU, different instances' '
    a=$(cvd_job 4 -l select=1:ncpus=1:mig=1g.5gb) &&
    b=$(cvd_job 4 -l select=1:ncpus=1:mig=1g.5gb) &&
    wait_state $a R && wait_state $b R &&
    db_query "SELECT alloc FROM jobs WHERE seq = $(seqno $a)" | grep -q "\"mig\"" &&
    wait_state $a F && wait_state $b F &&
    grep -Eqx "cvd=MIG-SIM-node1-0-[0-6]" STDIN.o$(seqno $a) &&
    grep -Eqx "cvd=MIG-SIM-node1-0-[0-6]" STDIN.o$(seqno $b) &&
    test "$(out $a)" != "$(out $b)"
'

test_expect_success 'a whole-GPU A100 job gets GPU 1, never the one in MIG mode' '
    id=$(cvd_job 0 -l select=1:ncpus=1:ngpus=1:gpu_model=A100) && wait_state $id F &&
    out $id && grep -qx "cvd=1" STDIN.o$(seqno $id) &&
    test "$(job_attr $id exec_host)" = "node1/0*1"
'

test_expect_success 'two whole A100s are refused at submit: one is in MIG mode' '
    n0=$(njobs) &&
    ! qsub -l select=1:ncpus=1:ngpus=2:gpu_model=A100 ok.sh >cmd.out 2>cmd.err &&
    cat cmd.err && test "$(wc -l < cmd.err)" -eq 1 &&
    grep -q "^qsub: .*Job exceeds server resource limits" cmd.err &&
    test "$(njobs)" = "$n0"
'

test_expect_success 'gpu_model=H100 runs on the H100 node' '
    id=$(cvd_job 0 -l select=1:ncpus=1:ngpus=2:gpu_model=h100) && wait_state $id F &&
    test "$(job_attr $id exec_host)" = "node2/0*1" && grep -qx "cvd=0,1" STDIN.o$(seqno $id)
'

test_expect_success 'a CPU job leaves the GPU nodes alone' '
    id=$(cvd_job 0 -l select=1:ncpus=4) && wait_state $id F &&
    test "$(job_attr $id exec_host)" = "node3/0*4"
'

test_expect_success 'a MIG profile no node has is refused at submit; nothing queued' '
    n0=$(njobs) &&
    ! qsub -l select=1:ncpus=1:mig=3g.20gb ok.sh >cmd.out 2>cmd.err &&
    cat cmd.err && test "$(wc -l < cmd.err)" -eq 1 &&
    grep -q "^qsub: .*no node has MIG instances of profile .3g.20gb." cmd.err &&
    test "$(njobs)" = "$n0"
'

test_expect_success 'a GPU model no node has is refused at submit; nothing queued' '
    n0=$(njobs) &&
    ! qsub -l select=1:ncpus=1:ngpus=1:gpu_model=V100 ok.sh >cmd.out 2>cmd.err &&
    cat cmd.err && test "$(wc -l < cmd.err)" -eq 1 &&
    grep -q "^qsub: .*no node has GPUs of model .V100." cmd.err &&
    test "$(njobs)" = "$n0"
'

test_expect_success 'malformed MIG requests are refused with one line' '
    n0=$(njobs) &&
    ! qsub -l select=1:mig=1g ok.sh >cmd.out 2>cmd.err &&
    cat cmd.err && grep -q "^qsub: .*invalid MIG profile .1g." cmd.err &&
    ! qsub -l select=1:ngpus=1:mig=1g.5gb ok.sh >cmd.out 2>cmd.err &&
    cat cmd.err && grep -q "cannot be combined" cmd.err &&
    test "$(njobs)" = "$n0"
'

test_expect_success 'a MIG job keeps its instance across a scheduler restart' '
    a=$(cvd_job 6 -l select=1:ncpus=1:mig=1g.5gb) && wait_state $a R &&
    pid=$(cat "$CLUSTER/scheduler.pid") && kill -9 $pid &&
    wait_until 10 eval "! kill -0 $pid 2>/dev/null" && hpcq-local start-scheduler "$CLUSTER" &&
    b=$(cvd_job 0 -l select=1:ncpus=1:mig=1g.5gb) && wait_state $b F 30 &&
    wait_state $a F 30 &&
    test "$(out $a)" != "$(out $b)"
'

test_expect_success 'a bad mig_layout stops the worker with one clear line' '
    printf "server = 127.0.0.1:1\nnode_name = bad\ngpus = 1\nmig_layout = 0:1g.5gb*8\nspool_dir = %s\n" \
        "$TEST_ROOT/badspool" > bad.conf &&
    ! hpcq-worker --config bad.conf > bad.out 2>&1 && cat bad.out &&
    grep -q "mig_layout: GPU 0 has more instances" bad.out
'

test_done
