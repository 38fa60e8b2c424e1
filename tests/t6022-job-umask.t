#!/bin/bash
# The job's umask (finding 12 of issue 10: output files were 0644 whatever
# the user wanted).  PBS's qsub -W umask=NNN, also as #PBS -W umask=, in
# octal; PBS's default 077; shown by qstat -f as umask; the job itself
# runs under it.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2
other_users_setup qstat

mode() { stat -c %a "$1"; }

cat > show.sh <<'S'
#!/bin/sh
#PBS -c s
umask
stat -c %a "$HPCQ_CHECKPOINT_DIR"
echo err >&2
S

test_expect_success 'by default the output and error files are 0600 and the job runs under 077' '
    id=$(qsub show.sh) && wait_state $id F && n=$(seqno $id) &&
    test "$(mode show.sh.o$n)" = 600 && test "$(mode show.sh.e$n)" = 600 &&
    test "$(head -1 show.sh.o$n)" = 0077 &&
    test "$(sed -n 2p show.sh.o$n)" = 700 && echo $id > default_job
'

test_expect_success 'qstat -f shows the default umask as PBS does (77)' '
    test "$(job_attr $(cat default_job) umask)" = 77
'

test_expect_success '-W umask=022: files 0644, the job under 022, qstat -f umask = 22' '
    id=$(qsub -W umask=022 show.sh) && wait_state $id F && n=$(seqno $id) &&
    test "$(mode show.sh.o$n)" = 644 && test "$(mode show.sh.e$n)" = 644 &&
    test "$(head -1 show.sh.o$n)" = 0022 &&
    test "$(job_attr $id umask)" = 22
'

test_expect_success '#PBS -W umask=027 in the script; qsub -W on the command line wins' '
    printf "#!/bin/sh\n#PBS -W umask=027\n#PBS -j oe\numask\n" > dir.sh &&
    id=$(qsub dir.sh) && wait_state $id F && n=$(seqno $id) &&
    test "$(mode dir.sh.o$n)" = 640 && test "$(cat dir.sh.o$n)" = 0027 &&
    id=$(qsub -W umask=2 dir.sh) && wait_state $id F && n=$(seqno $id) &&
    test "$(mode dir.sh.o$n)" = 664 && test "$(cat dir.sh.o$n)" = 0002
'

test_expect_success 'bad umask values get one clear line and nothing is submitted' '
    before=$(qstat -x | wc -l) &&
    for v in 8 999 0x12 -22 "" 00777; do
        ! qsub -W umask=$v show.sh 2> err || return 1
        test $(wc -l < err) = 1 &&
        grep -q "qsub: invalid -W umask value .$v. (expected octal digits, 0 to 777)" err ||
        return 1
    done &&
    test "$(qstat -x | wc -l)" = "$before"
'

if [ -n "$(root_and_nobody)" ]; then
    test_skip "another user's files are theirs, 0600" "$(root_and_nobody)"
else
    test_expect_success "another user's files are theirs, 0600" '
        cp show.sh "$PUB/" &&
        id=$(as_user nobody qsub show.sh) && wait_state $id F && n=$(seqno $id) &&
        test "$(stat -c %U:%a "$PUB/show.sh.o$n")" = nobody:600 &&
        test "$(stat -c %U:%a "$PUB/show.sh.e$n")" = nobody:600
    '
fi

test_done
