#!/bin/bash
# PBS options a user types by habit (issue 27 item 6): qsub -a (waits in W
# until then), -P, -k, -R, -z, -W group_list, the vnode= resource, qsub --
# PROGRAM ARGS, and a warning for lines that look like directives and are
# not (#PBS-N, # PBS, #pbs), the exit status kept.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2

run() { "$@" >out 2>err; echo $? >rc; }
shown() { echo "exit $(cat rc)"; echo "stdout:"; cat out; echo "stderr:"; cat err; }
echo 'echo ran' >job.sh

test_expect_success 'qsub -a: the job waits in W, qstat -f shows Execution_Time' '
    when=$(date -d "+4 seconds" +%H%M.%S) &&
    id=$(qsub -a $when -j oe -o "$WORK/a.out" job.sh) &&
    echo $id >a.id && test "$(job_state $id)" = W &&
    qstat $id | grep -q " W workq" &&
    qstat -f $id | grep -q "Execution_Time = $(date -d "+4 seconds" "+%a %b %e %H:%M")"
'
test_expect_success 'and runs once the time has come, not before' '
    id=$(cat a.id) && wait_state $id F 20 &&
    stime=$(date -d "$(job_attr $id stime)" +%s) && ctime=$(date -d "$(job_attr $id ctime)" +%s) &&
    test $((stime - ctime)) -ge 2 && grep -qx ran a.out &&
    tracejob $id | grep -q "(W -> Q): execution time reached"
'
test_expect_success 'qsub -a with a time past today: tomorrow, still W' '
    id=$(qsub -a $(date -d "-2 minutes" +%H%M) job.sh) && test "$(job_state $id)" = W &&
    qstat -f $id | grep -q "Execution_Time = $(date -d "+1 day -2 minutes" "+%a %b %e")" &&
    qdel $id
'
test_expect_success 'qsub -h -a: held, and W (not Q) once released before the time' '
    id=$(qsub -h -a $(date -d "+1 hour" +%H%M) job.sh) && test "$(job_state $id)" = H &&
    qrls $id && test "$(job_state $id)" = W && qdel $id
'
test_expect_success 'qsub -a with a bad time: one line' '
    run qsub -a 2561 job.sh; shown; test "$(cat rc)" = 2 && grep -q "no such time" err
'
test_expect_success 'qsub -P: the project, in qstat -f' '
    id=$(qsub -P climate-2026 -o /dev/null -j oe job.sh) &&
    qstat -fx $id | grep -q "project = climate-2026" &&
    id2=$(qsub -o /dev/null -j oe job.sh) &&
    qstat -fx $id2 | grep -q "project = _pbs_project_default"
'
test_expect_success 'and in the accounting log, after the account, as OpenPBS writes it' '
    id=$(qsub -A acct1 -P climate-2026 -o /dev/null -j oe job.sh) && wait_state $id F &&
    wait_until 10 grep -q ";E;$id;.* account=\"acct1\" project=climate-2026 jobname=job.sh " \
        "$CLUSTER"/state/accounting/*
'
test_expect_success 'qsub -z prints no job id and the job runs' '
    run qsub -z -N quiet -j oe -o "$WORK/z.out" job.sh; shown &&
    test "$(cat rc)" = 0 && test ! -s out &&
    wait_until 20 test -s z.out && grep -qx ran z.out
'
test_expect_success 'qsub -k oe keeps both files in the home directory, as PBS Pro' '
    id=$(qsub -N keepme -k oe -o "$WORK/not-here.out" -e "$WORK/not-here.err" job.sh) &&
    wait_state $id F && n=$(seqno $id) && home=$(getent passwd "$(id -un)" | cut -d: -f6) &&
    test -f "$home/keepme.o$n" && grep -qx ran "$home/keepme.o$n" &&
    test -f "$home/keepme.e$n" && test ! -e not-here.out &&
    qstat -fx $id | grep -q "Keep_Files = oe" &&
    rm -f "$home/keepme.o$n" "$home/keepme.e$n"
'
test_expect_success 'qsub -k d (direct) writes where -o says' '
    id=$(qsub -k d -o "$WORK/d.out" -j oe job.sh) && wait_state $id F && grep -qx ran d.out
'
test_expect_success 'qsub -R oe removes the output and error files after the job' '
    id=$(qsub -R oe -o "$WORK/r.out" -e "$WORK/r.err" job.sh) && wait_state $id F &&
    wait_until 10 test ! -e r.out && test ! -e r.err &&
    qstat -fx $id | grep -q "Remove_Files = oe"
'
test_expect_success 'qsub -R e keeps the output file' '
    id=$(qsub -R e -o "$WORK/re.out" -e "$WORK/re.err" job.sh) && wait_state $id F &&
    wait_until 10 test ! -e re.err && grep -qx ran re.out
'
test_expect_success 'qsub -k x and -R d: one line each' '
    run qsub -k x job.sh; shown; test "$(cat rc)" = 2 && grep -q "invalid -k value" err &&
    run qsub -R d job.sh; shown; test "$(cat rc)" = 2 && grep -q "invalid -R value" err
'

# -W group_list: the job's group, one the owner belongs to.
test_expect_success '-W group_list of a group the user is not in: refused' '
    grp=$(getent group | awk -F: -v me="$(id -un)" -v g="$(id -g)" \
          "\$3 != g && \$4 !~ me {print \$1; exit}") && echo "group $grp" &&
    run qsub -W group_list=$grp job.sh; shown; test "$(cat rc)" = 1 &&
    grep -q "you are not a member of that group" err
'
test_expect_success '-W group_list of no group: refused' '
    run qsub -W group_list=no-such-group-xyz job.sh; shown; test "$(cat rc)" = 1 &&
    grep -q "no such group" err
'
grp=hpcqt1013$$
if [ "$(id -u)" = 0 ] && groupadd "$grp" 2>/dev/null; then
    trap 'groupdel "$grp" 2>/dev/null; test_cleanup' EXIT
    gpasswd -a root "$grp" >/dev/null
    test_expect_success '-W group_list of a group of its own: the job runs as that group' '
        id=$(qsub -W group_list='"$grp"' -j oe -o "$WORK/g.out" -- /usr/bin/id -gn) &&
        wait_state $id F && grep -qx '"$grp"' g.out &&
        qstat -fx $id | grep -q "group_list = '"$grp"'"
    '
else
    test_skip '-W group_list of a group of its own' 'needs root and groupadd'
fi

test_expect_success 'qsub -- PROGRAM ARGS runs the program with its arguments' '
    id=$(qsub -j oe -o "$WORK/cmd.out" -- /bin/echo "it'\''s" "two words" \$HOME) &&
    wait_state $id F && test "$(cat cmd.out)" = "it'\''s two words \$HOME" &&
    test "$(job_attr $id Job_Name)" = echo
'
test_expect_success 'qsub -- /bin/sleep 1 (the issue'\''s example) ends with status 0' '
    id=$(qsub -- /bin/sleep 1) && wait_state $id F && test "$(job_attr $id Exit_status)" = 0
'
test_expect_success 'qsub -- alone: one line' '
    run qsub --; shown; test "$(cat rc)" = 2 && grep -q "must be followed by a program" err
'
test_expect_success 'qsub -N -- job.sh: -- is the name, not the end of the options' '
    run qsub -N -- -o /dev/null job.sh; shown; test "$(cat rc)" = 0 &&
    test "$(job_attr $(cat out) Job_Name)" = --
'
test_expect_success 'select=1:vnode=node2 runs on node2' '
    id=$(qsub -l select=1:ncpus=1:vnode=node2 -j oe -o /dev/null job.sh) &&
    wait_state $id F && job_attr $id exec_vnode | grep -q "(node2:"
'
test_expect_success 'an unknown vnode: the job is refused as for host=' '
    run qsub -l select=1:ncpus=1:vnode=nosuchnode job.sh; shown; test "$(cat rc)" != 0
'

# -W stagein/stageout: copies made by the worker as the job's owner.
echo input-data >in.txt
test_expect_success '-W stagein copies into the job'\''s directory, -W stageout back' '
    id=$(qsub -W sandbox=PRIVATE -W stagein=staged.txt@$(hostname):in.txt \
        -W stageout=result.txt@$(hostname):$WORK/back.txt -j oe -o "$WORK/st.out" \
        -- /bin/sh -c "cat staged.txt >result.txt; echo more >>result.txt; pwd") &&
    wait_state $id F && test "$(job_attr $id Exit_status)" = 0 &&
    wait_until 10 test -s back.txt && printf "input-data\nmore\n" >want.st && cmp want.st back.txt &&
    ! grep -qx "$WORK" st.out &&
    qstat -fx $id | grep -q "stagein = staged.txt@" && qstat -fx $id | grep -q "stageout = result.txt@"
'
test_expect_success 'a stagein that cannot be made: the job fails, saying which' '
    id=$(qsub -W stagein=x@$(hostname):/no/such/file -o /dev/null -j oe job.sh) &&
    wait_state $id F && job_attr $id comment | grep -q "stagein of /no/such/file to x failed: No such file"
'
test_expect_success 'a stageout that cannot be made: said in the error file' '
    id=$(qsub -W stageout=never-made@$(hostname):$WORK/nope -e "$WORK/so.err" job.sh) &&
    wait_state $id F && wait_until 10 grep -q "stageout of .*never-made to $WORK/nope failed" so.err
'
test_expect_success 'a malformed staging list: one line at submission' '
    run qsub -W stagein=nohost job.sh; shown; test "$(cat rc)" = 2 &&
    grep -q "invalid staging entry '\''nohost'\'' (want local_file@host:remote_file)" err
'

printf '#!/bin/sh\n#PBS-N wrong1\n# PBS -N wrong2\n#pbs -N wrong3\n#PBS -N right\n#PBSfoo is a comment\n# an ordinary comment\necho ran\n#PBS-N after\n' >near.sh
test_expect_success '#PBS-N, # PBS and #pbs lines: a warning each, the job as before' '
    run qsub -o /dev/null -j oe near.sh; shown &&
    test "$(cat rc)" = 0 && grep -q "^[0-9]" out && test "$(wc -l <err)" = 4 &&
    grep -q "warning: line 2 is not a directive and is ignored: #PBS-N wrong1" err &&
    grep -q "warning: line 3 .*# PBS -N wrong2" err &&
    grep -q "warning: line 4 .*#pbs -N wrong3" err &&
    grep -q "warning: line 6 .*#PBSfoo" err &&
    test "$(job_attr $(cat out) Job_Name)" = right
'
test_expect_success 'with -C the warnings follow that prefix' '
    printf "#HPCQ -N a\n#hpcq -N b\necho\n" >c.sh &&
    run qsub -C "#HPCQ" -o /dev/null -j oe c.sh; shown &&
    test "$(cat rc)" = 0 && test "$(wc -l <err)" = 1 && grep -q "line 2 .*#hpcq" err
'
test_done
