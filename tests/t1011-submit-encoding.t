#!/bin/bash
# Encoding and line endings (issue 27 item 4).  A script may hold any bytes
# (Latin-1 included): it is carried as base64 when it is not UTF-8 and runs
# byte for byte as written.  Names, paths and variables are JSON text on
# the wire, so one that is not UTF-8 is refused in one line that names the
# field.  A script with DOS line breaks is refused at submission, naming
# the first line, as sbatch refuses it.  See qsub(1), ENCODING.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2

njobs() { db_query "SELECT count(*) FROM jobs"; }
run() { "$@" >out 2>err; echo $? >rc; }
shown() { echo "exit $(cat rc)"; echo "stdout:"; cat out; echo "stderr:"; cat err; }
# refused TEXT CMD...: exit 1, nothing on stdout, one line "qsub: ...TEXT...",
# and no job stored.
refused() {
    local text=$1 n0; shift
    n0=$(njobs) && run "$@"; shown
    test "$(cat rc)" = 1 && test ! -s out && test "$(wc -l <err)" = 1 &&
        grep -q "^qsub: " err && grep -qF -- "$text" err && test "$(njobs)" = "$n0"
}

# A Latin-1 é (0xe9) in a comment and in what the job prints.
printf '#!/bin/sh\n# caf\351\nprintf "caf\\351\\n"\necho plain\n' >latin1.sh
test_expect_success 'a Latin-1 script is accepted and runs byte for byte' '
    id=$(qsub -N latin1 -j oe -o "$WORK/latin1.out" latin1.sh) && wait_state $id F &&
    test "$(job_attr $id Exit_status)" = 0 &&
    printf "caf\351\nplain\n" >want && cmp want latin1.out
'
test_expect_success 'it is stored as base64, a UTF-8 script as text' '
    db_query "SELECT spec FROM jobs WHERE name = '\''latin1'\''" | grep -q "\"script_base64\"" &&
    id2=$(printf "#!/bin/sh\necho caf\303\251\n" | qsub -N utf8 -j oe -o "$WORK/utf8.out") &&
    wait_state $id2 F && printf "caf\303\251\n" >want2 && cmp want2 utf8.out &&
    db_query "SELECT spec FROM jobs WHERE name = '\''utf8'\''" | grep -q "\"script\": *\"#!/bin/sh"
'
test_expect_success 'printjob -s shows the Latin-1 script as it was written' '
    printjob -s "$(qselect -x -N latin1)" >pj.out && grep -q "^# caf$(printf "\351")\$" pj.out
'
test_expect_success 'qsub -N with a Latin-1 byte: one line naming the job name' \
    "refused 'the job name is not UTF-8 (byte 0xe9 at offset 3)' qsub -N \$(printf 'caf\351') latin1.sh"
test_expect_success 'a Latin-1 script file name without -N: the job name, named' '
    cp latin1.sh "$(printf "caf\351.sh")" &&
    refused "the job name is not UTF-8" qsub "$(printf "caf\351.sh")"
'
test_expect_success 'the same file with -N runs; Submit_arguments writes the byte \xe9' '
    id=$(qsub -N named "$(printf "caf\351.sh")") && wait_state $id F &&
    test "$(job_attr $id Exit_status)" = 0 &&
    qstat -fx $id | grep -F "Submit_arguments = -N named caf\xe9.sh"
'
test_expect_success 'qsub -v with a Latin-1 value: the variable is named' \
    "refused 'the environment variable GREETING is not UTF-8' qsub -v GREETING=\$(printf 'caf\351') latin1.sh"
test_expect_success 'a Latin-1 -o path: the output path, named' \
    "refused 'the output path is not UTF-8' qsub -o \"\$WORK/\$(printf 'caf\351').out\" latin1.sh"
test_expect_success 'a #PBS -N directive with a Latin-1 byte: the job name, named' '
    printf "#!/bin/sh\n#PBS -N caf\351\ntrue\n" >dirname.sh &&
    refused "the job name is not UTF-8" qsub dirname.sh
'

printf '#!/bin/sh\r\necho hi\r\n' >crlf.sh
printf '#!/bin/sh\necho one\necho two\r\n' >crlf3.sh
test_expect_success 'a CRLF script is refused at submission, naming line 1' \
    "refused 'has DOS line breaks (\\r\\n), the first at line 1: convert it with dos2unix' qsub crlf.sh"
test_expect_success 'a CR on line 3 alone: line 3 is named' \
    "refused 'the first at line 3' qsub crlf3.sh"
test_expect_success 'the same from standard input' '
    n0=$(njobs) && qsub <crlf.sh >out 2>err; rc=$?; cat err;
    test $rc = 1 && grep -qF "script from standard input has DOS line breaks" err &&
    test "$(njobs)" = "$n0"
'
test_expect_success 'sbatch refuses it too' '
    sbatch crlf.sh >out 2>err; rc=$?; cat err; test $rc != 0 && grep -qF "DOS line breaks" err
'
test_expect_success 'a lone CR inside a line (not a line break) is kept' '
    printf "#!/bin/sh\nprintf \"a\\rb\\n\"\n" >cr.sh &&
    id=$(qsub -j oe -o "$WORK/cr.out" cr.sh) && wait_state $id F &&
    printf "a\rb\n" >want3 && cmp want3 cr.out
'
test_expect_success 'a script larger than max_spec_size (2 MiB) is refused in one line' '
    { echo "#!/bin/sh"; head -c 2200000 /dev/zero | tr "\0" "#"; echo; } >big.sh &&
    refused "is larger than 2 MiB (max_spec_size)" qsub big.sh
'
test_done
