#!/bin/bash
# A dependency that can never be satisfied (afterok on a failed job): the
# job stays pending with Slurm's reason DependencyNeverSatisfied (as
# Slurm without kill_invalid_depend), in squeue and scontrol; scancel
# ends it.  And #SBATCH lines as Slurm's sbatch reads them.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2

test_expect_success 'afterok on a failed job: pending, DependencyNeverSatisfied' '
    a=$(sbatch --parsable --wrap="exit 1") && wait_state $a F 30 &&
    b=$(sbatch --parsable -d afterok:$a --wrap=true) &&
    wait_until 30 sh -c "squeue -h -j $b -o %r | grep -qx DependencyNeverSatisfied" &&
    test "$(squeue -h -j $b -o "%t %R")" = "PD (DependencyNeverSatisfied)" &&
    scontrol -o show job $b | grep -q " JobState=PENDING Reason=DependencyNeverSatisfied " &&
    scancel $b && wait_state $b F 30
'

test_expect_success 'afterok on a running job: Dependency, then it runs' '
    a=$(sbatch --parsable --wrap="sleep 2") && b=$(sbatch --parsable -d afterok:$a --wrap=true) &&
    test "$(squeue -h -j $b -o %r)" = Dependency && wait_state $b F 60 &&
    test "$(sacct -X -n -P -o State -j $b)" = COMPLETED
'

cat > dir.sh <<'S'
#!/bin/bash
  #SBATCH -J indented-is-a-comment
#SBATCH-J tight   # the rest is a comment -J wrong

# a comment, then a blank line
#SBATCH --time=7
echo running
#SBATCH -J after-the-first-command
S

test_expect_success '#SBATCH lines as Slurm reads them' '
    n=$(sbatch --parsable dir.sh) && wait_state $n F 30 &&
    test "$(job_attr $n Job_Name)" = tight &&
    test "$(squeue -h -t all -j $n -o %l)" = 7:00
'

test_done
