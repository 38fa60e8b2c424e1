#!/bin/bash
# squeue as Slurm shows a queue: an array's pending tasks on one line
# ("N_[1-4,7]", Slurm's meta record; -r one a line), NODELIST(REASON) from
# the scheduler's own wait reasons (Resources, PartitionDown, Dependency,
# JobHeldUser); salloc's "Granted job allocation N" once the job runs,
# and "Relinquishing job allocation N" after its output.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2

test_expect_success 'salloc COMMAND: Granted, the output, Relinquishing (stderr, Slurm'"'"'s words)' '
    salloc -n 1 sh -c "echo inside >&2" 2> s.err; cat s.err &&
    n=$(sed -n "s/^salloc: Granted job allocation \([0-9]*\)$/\1/p" s.err) && test -n "$n" &&
    test "$(cat s.err)" = "$(printf "salloc: Granted job allocation $n\ninside\nsalloc: Relinquishing job allocation $n")"
'

test_expect_success 'salloc waits: Granted only once the job runs' '
    b=$(sbatch --parsable -n 2 --wrap "sleep 300") && wait_state $b R 30 &&
    (salloc -n 1 true 2> w.err &) &&
    wait_until 15 eval "test \"\$(squeue -h -o %t -u \$(id -un) | sort | tr -d \"\\n\")\" = PDR" &&
    sleep 1 && ! grep -q Granted w.err &&
    scancel $b && wait_until 30 grep -q "^salloc: Relinquishing job allocation" w.err &&
    grep -q "^salloc: Granted job allocation" w.err
'

test_expect_success 'pending array tasks: one line, N_[1-4,7], (Resources); -r: one a line' '
    b=$(sbatch --parsable -n 2 --wrap "sleep 300") && wait_state $b R 30 &&
    a=$(sbatch --parsable --array=1-4,7 -n 1 --wrap true) && echo "$b $a" > ids &&
    wait_until 15 eval "squeue -h -o \"%i %t %R\" | grep -q Resources" &&
    squeue -h -o "%i %t %R" > q && cat q &&
    grep -qx "${a}_\[1-4,7\] PD (Resources)" q && test "$(grep -c "^${a}_" q)" = 1 &&
    test "$(squeue -h -j $a -o "%A %a")" = "$a [1-4,7]" &&
    test "$(squeue -h -r -j $a -o %i | paste -sd" " -)" = "${a}_1 ${a}_2 ${a}_3 ${a}_4 ${a}_7" &&
    test "$(squeue -h -j ${a}_3 -o %i)" = "${a}_3"
'

test_expect_success 'NODELIST(REASON): PartitionDown, Dependency, JobHeldUser' '
    read b a < ids &&
    qmgr -c "create queue slow queue_type=execution,enabled=true,started=false" &&
    s=$(sbatch --parsable -p slow --wrap true) &&
    d=$(sbatch --parsable -d afterok:$b --wrap true) &&
    h=$(sbatch --parsable -H --wrap true) &&
    wait_until 15 eval "squeue -h -j $s -o %R | grep -qx \"(PartitionDown)\"" &&
    test "$(squeue -h -j $d -o %R)" = "(Dependency)" &&
    test "$(squeue -h -j $h -o %R)" = "(JobHeldUser)" &&
    test "$(squeue -h -j $b -o %R)" = node1 &&
    scancel $a $b $s $d $h
'

test_done
