#!/bin/bash
# srun --gpus-per-task and --gpu-bind (srun(1)): each task sees its share
# of the job's GPUs on the node (CUDA_VISIBLE_DEVICES), in order; map_gpu
# picks them by place; none leaves every task the job's; more than the
# job has is Slurm's "Unable to create step" line.  Plain tasks and
# --mpi=pmix's (hpcq-stepd forks them).  GPUs simulated (hpcq-local
# --gpus-per-worker).
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 4 --gpus-per-worker 4

cat > g.sh <<'S'
#!/bin/bash
#SBATCH -N 1 --ntasks-per-node=2 --gres=gpu:4
echo "job=$CUDA_VISIBLE_DEVICES" > job.gpus
show='echo "$SLURM_PROCID $CUDA_VISIBLE_DEVICES $SLURM_GPUS_PER_TASK"'
srun -n 2 --gpus-per-task=2 sh -c "$show" | sort > per2.out
srun -n 2 --gpu-bind=map_gpu:3,1 sh -c "$show" | sort > map.out
srun -n 2 --gpus-per-task=1 --gpu-bind=none sh -c "$show" | sort > none.out
srun -n 2 --gpus-per-task=3 true 2> over.err; echo "rc=$?" >> over.err
if [ -x "$STEPD" ]; then srun --mpi=pmix -n 2 --gpus-per-task=2 sh -c "$show" | sort > pmix.out; fi
S

test_expect_success 'the job has 4 GPUs; --gpus-per-task=2: two each, in order' '
    n=$(sbatch --parsable --export=ALL,STEPD=$HPCQ_BUILDDIR/worker/hpcq-stepd g.sh) &&
    wait_state $n F 60 && cat slurm-$n.out job.gpus per2.out &&
    IFS=, read g0 g1 g2 g3 <<< "$(sed "s/^job=//" job.gpus)" && test -n "$g3" &&
    test "$(cat per2.out)" = "$(printf "0 $g0,$g1 2\n1 $g2,$g3 2")" &&
    echo "$g0 $g1 $g2 $g3" > gpus
'

test_expect_success '--gpu-bind=map_gpu:3,1 by place; none: every task all of them' '
    read g0 g1 g2 g3 < gpus && cat map.out none.out &&
    test "$(cat map.out)" = "$(printf "0 $g3 \n1 $g1 ")" &&
    test "$(cat none.out)" = "$(printf "0 $g0,$g1,$g2,$g3 1\n1 $g0,$g1,$g2,$g3 1")"
'

test_expect_success 'more GPUs than the job has: Slurm'"'"'s step error, exit 1' '
    cat over.err && grep -qx "rc=1" over.err &&
    grep -q "^srun: error: Unable to create step for job [0-9]*: Requested node configuration is not available (the node has 4 GPUs" over.err
'

test_expect_success '--mpi=pmix: each rank hpcq-stepd forks gets its share too' '
    if [ ! -x "$HPCQ_BUILDDIR/worker/hpcq-stepd" ]; then echo "# no PMIx: skipped"; exit 0; fi
    read g0 g1 g2 g3 < gpus && cat pmix.out &&
    test "$(cat pmix.out)" = "$(printf "0 $g0,$g1 2\n1 $g2,$g3 2")"
'

test_expect_success 'bad values: one line naming the option' '
    ! srun --gpus-per-task=x true 2> e1 && test "$(cat e1)" = "srun: error: Invalid --gpus-per-task specification: x" &&
    ! srun --gpu-bind=mask_gpu:0x3 true 2> e2 && grep -q "^srun: error: --gpu-bind=mask_gpu:0x3: " e2 &&
    test "$(wc -l < e2)" = 1
'

test_done
