#!/bin/bash
# Scripts written for Slurm (#SBATCH directives) run unchanged.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --gpus-per-worker 1

cat > mpi.sh <<'S'
#!/bin/bash
#SBATCH --job-name=slurmy
#SBATCH --nodes=2 --ntasks-per-node=2
#SBATCH --cpus-per-task=1
#SBATCH --time=0:10:00
#SBATCH --output=out-%x-%j.txt
echo "ranks=$(wc -l < $PBS_NODEFILE) ncpus=$NCPUS"
echo to-stderr >&2
S

test_expect_success 'an MPI-style Slurm script gets its nodes, tasks and walltime' '
    id=$(qsub mpi.sh) && wait_state $id F &&
    test "$(job_attr $id Job_Name)" = slurmy &&
    test "$(job_attr $id Resource_List.select)" = "2:ncpus=2:mpiprocs=2" &&
    test "$(job_attr $id Resource_List.walltime)" = 00:10:00 &&
    test "$(job_attr $id Resource_List.place)" = scatter &&
    o=out-slurmy-$(seqno $id).txt && grep -qx "ranks=4 ncpus=2" $o &&
    grep -qx to-stderr $o &&
    job_attr $id Output_Path | grep -q ":$WORK/$o$"
'

test_expect_success 'defaults as Slurm: slurm-%j.out with stderr joined; --gres gpus' '
    printf "#!/bin/sh\n#SBATCH --gres=gpu:1\necho cvd=\$CUDA_VISIBLE_DEVICES\necho e >&2\n" > g.sh &&
    id=$(qsub g.sh) && wait_state $id F &&
    grep -qx cvd=0 slurm-$(seqno $id).out && grep -qx e slurm-$(seqno $id).out
'

test_expect_success '--dependency works as -W depend' '
    a=$(printf "#!/bin/sh\nsleep 1\n" | qsub) &&
    b=$(printf "#!/bin/sh\n#SBATCH --dependency=afterok:$(seqno $a)\ntrue\n" | qsub) &&
    test "$(job_state $b)" = H && wait_state $b F 30
'

test_expect_success '#PBS lines and the command line win over #SBATCH' '
    printf "#!/bin/sh\n#SBATCH -J fromslurm\n#PBS -N frompbs\ntrue\n" > both.sh &&
    id=$(qsub both.sh) && test "$(job_attr $id Job_Name)" = frompbs &&
    id2=$(qsub -N fromcli both.sh) && test "$(job_attr $id2 Job_Name)" = fromcli
'

test_expect_success 'unsupported or bad #SBATCH lines: one line naming the line' '
    printf "#!/bin/sh\n#SBATCH --array=3-1\ntrue\n" > arr.sh &&
    ! qsub arr.sh 2> e1 && test $(wc -l < e1) = 1 &&
    grep -q "line 2: invalid array range" e1 &&
    printf "#!/bin/sh\n#SBATCH --frob\ntrue\n" > frob.sh &&
    ! qsub frob.sh 2> e2 && grep -q "unknown #SBATCH option" e2 &&
    printf "#!/bin/sh\n#SBATCH -p nosuch\ntrue\n" > part.sh &&
    ! qsub part.sh 2> e3 && grep -q "Unknown queue" e3
'

test_done
