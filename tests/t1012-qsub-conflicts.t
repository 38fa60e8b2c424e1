#!/bin/bash
# Conflicting qsub options (issue 27 item 5): each is refused in one line
# that says what to do, or taken as PBS Pro takes it, never resolved
# silently.  PBS Pro's rules: pbs_resources(7B) ("Jobs cannot use both new
# and old syntax"; job-wide mem spread over the chunks, the chunks' own sum
# the job's limit).  See docs/compat.md.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --mem-per-worker 2gb

njobs() { db_query "SELECT count(*) FROM jobs"; }
run() { "$@" >out 2>err; echo $? >rc; }
shown() { echo "exit $(cat rc)"; echo "stdout:"; cat out; echo "stderr:"; cat err; }
refused() {
    local want=$1 text=$2 n0; shift 2
    n0=$(njobs) && run "$@"; shown
    test "$(cat rc)" = "$want" && test ! -s out && test "$(wc -l <err)" = 1 &&
        grep -q "^qsub: " err && grep -qF -- "$text" err && test "$(njobs)" = "$n0"
}
echo 'echo ran' >job.sh

test_expect_success '-l select with -l nodes: refused, PBS Pro refuses mixing' \
    "refused 2 'select= and nodes=/procs= (Torque'\''s syntax) cannot be combined' qsub -l select=1:ncpus=1 -l nodes=2:ppn=1 job.sh"
test_expect_success 'the same when the script has one and the command line the other' '
    printf "#PBS -l nodes=2:ppn=1\necho x\n" >nodes.sh &&
    refused 2 "cannot be combined" qsub -l select=1:ncpus=1 nodes.sh
'
test_expect_success '-J with -t: refused, naming both' \
    "refused 2 '-J and -t both ask for a job array' qsub -J 1-4 -t 1-3 job.sh"
test_expect_success '-J in the script and -t on the command line: refused too' '
    printf "#PBS -J 1-4\necho x\n" >arr.sh &&
    refused 2 "-J and -t both" qsub -t 1-3 arr.sh
'
test_expect_success 'walltime=00:00:00: refused (the job would be killed at once)' \
    "refused 2 'walltime=00:00:00 is no time at all' qsub -l walltime=00:00:00 job.sh"
test_expect_success 'walltime=0 as seconds: refused the same way' \
    "refused 2 'walltime=0 is no time at all' qsub -l walltime=0 job.sh"
test_expect_success '-S /no/such/shell: refused, naming it' \
    "refused 1 '-S /no/such/shell: No such file or directory' qsub -S /no/such/shell job.sh"
test_expect_success '-S a relative path: refused' \
    "refused 2 'must be an absolute path' qsub -S bash job.sh"

test_expect_success '-S /bin/bash runs the script under bash, whatever its #! says' '
    printf "#!/bin/sh\necho shell=\${BASH_VERSION:+bash}\n" >sh.sh &&
    id=$(qsub -S /bin/bash -j oe -o "$WORK/sh.out" sh.sh) && wait_state $id F &&
    grep -qx "shell=bash" sh.out &&
    qstat -fx $id | grep -q "Shell_Path_List = /bin/bash"
'
test_expect_success 'without -S the #! line decides (/bin/sh: no BASH_VERSION)' '
    id=$(qsub -j oe -o "$WORK/nosh.out" sh.sh) && wait_state $id F &&
    grep -qx "shell=" nosh.out
'

# -l mem beside select, as PBS Pro folds it.
test_expect_success '-l mem=1gb beside select=1:ncpus=1: the chunk gets mem=1gb' '
    id=$(qsub -l select=1:ncpus=1 -l mem=1gb -j oe -o /dev/null job.sh) &&
    qstat -fx $id | grep -q "Resource_List.select = 1:ncpus=1:mem=1gb" &&
    qstat -fx $id | grep -q "Resource_List.mem = 1gb"
'
test_expect_success '-l mem=2gb over select=2: 1gb in each chunk' '
    id=$(qsub -l select=2:ncpus=1,mem=2gb -j oe -o /dev/null job.sh) &&
    qstat -fx $id | grep -q "Resource_List.select = 2:ncpus=1:mem=1gb"
'
test_expect_success 'chunks with their own mem: their sum is the limit' '
    id=$(qsub -l mem=3gb -l select=2:ncpus=1:mem=512mb -j oe -o /dev/null job.sh) &&
    qstat -fx $id | grep -q "Resource_List.select = 2:ncpus=1:mem=512mb" &&
    qstat -fx $id | grep -q "Resource_List.mem = 1gb"
'
test_expect_success 'the folded job runs in its memory' '
    id=$(qsub -l select=1:ncpus=1 -l mem=1gb -j oe -o "$WORK/mem.out" job.sh) &&
    wait_state $id F && test "$(job_attr $id Exit_status)" = 0 && grep -qx ran mem.out
'
test_expect_success 'qalter -l walltime=0 is refused as well' '
    id=$(qsub -h job.sh) && qalter -l walltime=0 $id >out 2>err; rc=$?; cat err;
    test $rc != 0 && grep -q "no time at all" err && qdel $id
'
test_done
