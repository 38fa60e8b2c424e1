#!/bin/bash
# Submit and status: real scripts run on real workers; output files, exit
# codes, the PBS environment, and the qstat views that tools parse.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --mem-per-worker 4gb

cat > env.sh <<'S'
#!/bin/bash
#PBS -N envjob
#PBS -l select=1:ncpus=2:mem=1gb
#PBS -l walltime=00:05:00
echo "jobid=$PBS_JOBID"
echo "jobname=$PBS_JOBNAME"
echo "workdir=$PBS_O_WORKDIR"
echo "pwd=$(pwd)"
echo "queue=$PBS_QUEUE"
echo "environment=$PBS_ENVIRONMENT"
echo "ncpus=$NCPUS"
echo "omp=$OMP_NUM_THREADS"
echo "host=$PBS_O_HOST"
echo "ckpt=$HPCQ_CHECKPOINT_DIR"
test -d "$HPCQ_CHECKPOINT_DIR" && echo "ckpt_exists=yes"
echo "restarts=$HPCQ_RESTART_COUNT"
echo "nodefile=$(cat $PBS_NODEFILE | tr '\n' ' ')"
echo "myvar=${MYVAR:-unset}"
echo to-stderr >&2
S

test_expect_success 'qsub prints only the job id' '
    qsub -v MYVAR=hello env.sh > id.out &&
    test $(wc -l < id.out) -eq 1 &&
    grep -Eq "^[0-9]+\.[A-Za-z0-9-]+$" id.out
'
id=$(cat id.out)
n=$(seqno "$id")

test_expect_success 'the job runs to completion with exit status 0' '
    wait_state $id F &&
    test "$(job_attr $id Exit_status)" = 0
'

test_expect_success 'stdout and stderr land in NAME.oNUM and NAME.eNUM' '
    test -f envjob.o$n && test -f envjob.e$n &&
    grep -qx to-stderr envjob.e$n
'

test_expect_success 'the job sees the PBS environment' '
    grep -qx "jobid=$id" envjob.o$n &&
    grep -qx "jobname=envjob" envjob.o$n &&
    grep -qx "workdir=$WORK" envjob.o$n &&
    grep -qx "pwd=$WORK" envjob.o$n &&
    grep -qx "queue=workq" envjob.o$n &&
    grep -qx "environment=PBS_BATCH" envjob.o$n &&
    grep -qx "ncpus=2" envjob.o$n &&
    grep -qx "omp=2" envjob.o$n &&
    grep -qx "restarts=0" envjob.o$n &&
    grep -q "^ckpt=$WORK/.hpcq/checkpoints/" envjob.o$n &&
    grep -Eqx "nodefile=node[12] " envjob.o$n &&
    grep -qx "myvar=hello" envjob.o$n
'

test_expect_success 'a job that does not say it checkpoints finds its folder named, not made' '
    ! grep -q ckpt_exists=yes envjob.o$n && test ! -e "$WORK/.hpcq"
'

test_expect_success 'with -c s it is made for the job, and goes once the job ended well' '
    id2=$(qsub -c s env.sh) && wait_state $id2 F && n2=$(seqno $id2) &&
    grep -qx ckpt_exists=yes envjob.o$n2 &&
    d=$(sed -n "s/^ckpt=//p" envjob.o$n2) && wait_until 10 test ! -e "$d"
'

test_expect_success 'non-zero exit status is reported' '
    id2=$(echo "exit 7" | qsub) && wait_state $id2 F &&
    test "$(job_attr $id2 Exit_status)" = 7
'

test_expect_success 'a script killed by a signal reports 256+signal' '
    id3=$(echo "kill -9 \$\$" | qsub) && wait_state $id3 F &&
    test "$(job_attr $id3 Exit_status)" = 265
'

test_expect_success 'a job read from stdin is named STDIN' '
    id4=$(echo "echo from-stdin" | qsub) && wait_state $id4 F &&
    grep -qx from-stdin STDIN.o$(seqno $id4)
'

test_expect_success 'command-line options override #PBS directives' '
    printf "#!/bin/sh\n#PBS -N fromscript\necho x\n" > over.sh &&
    id5=$(qsub -N fromcli over.sh) && wait_state $id5 F &&
    test "$(job_attr $id5 Job_Name)" = fromcli &&
    test -f fromcli.o$(seqno $id5)
'

test_expect_success '-j oe joins stderr into the output file; -o sets its path' '
    id6=$(echo "echo out; echo err >&2" | qsub -j oe -o joined.txt) &&
    wait_state $id6 F &&
    grep -qx out joined.txt && grep -qx err joined.txt &&
    test ! -e STDIN.e$(seqno $id6)
'

test_expect_success '-o into a directory puts NAME.oNUM there' '
    mkdir -p outdir &&
    id7=$(echo "echo indir" | qsub -o outdir -e outdir) && wait_state $id7 F &&
    grep -qx indir outdir/STDIN.o$(seqno $id7)
'

test_expect_success '-o DIR/ names a directory; a missing one fails the job with a clear reason' '
    idm=$(echo "echo x" | qsub -N nodir -o missing/) && wait_state $idm F &&
    test "$(job_attr $idm Exit_status)" = -1 &&
    job_attr $idm comment | grep -q "cannot open output file $WORK/missing/nodir.o$(seqno $idm): No such file" &&
    job_attr $idm Output_Path | grep -q ":$WORK/missing/nodir.o$(seqno $idm)$"
'

test_expect_success 'a script without #! runs under /bin/sh' '
    printf "echo plain-sh\n" > plain.txt &&
    id8=$(qsub plain.txt) && wait_state $id8 F &&
    grep -qx plain-sh plain.txt.o$(seqno $id8)
'

test_expect_success 'qstat lists running jobs in the PBS table' '
    id9=$(echo "sleep 60" | qsub -N sleeper) && wait_state $id9 R &&
    qstat > table.out &&
    head -1 table.out | grep -q "^Job id  *Name  *User  *Time Use S Queue" &&
    grep -E "^$id9 +sleeper +[a-z]+ +[0-9:]+ R workq" table.out &&
    qdel $id9 && wait_state $id9 F
'

test_expect_success 'finished jobs need -x; without it qstat says so (exit 35)' '
    qstat $id > fin.out 2> fin.err; rc=$?; test $rc -eq 35 &&
    grep -q "Job has finished, use -x" fin.err &&
    qstat -x $id | grep -q " F workq"
'

test_expect_success 'qstat -f gives Job Id and attribute lines' '
    qstat -f -x $id > f.out &&
    grep -qx "Job Id: $id" f.out &&
    grep -qx "    job_state = F" f.out &&
    grep -qx "    Exit_status = 0" f.out &&
    grep -Eq "^    exec_host = node[12]/0\*2$" f.out &&
    grep -q "^    resources_used.walltime = " f.out &&
    grep -qx "    Resource_List.ncpus = 2" f.out &&
    grep -qx "    Resource_List.mem = 1gb" f.out &&
    grep -qx "    Resource_List.walltime = 00:05:00" f.out &&
    grep -qx "    Resource_List.select = 1:ncpus=2:mem=1gb" f.out
'

test_expect_success 'qstat -f folds long lines unless -1' '
    qstat -f -x $id | grep -q "^	" &&
    ! qstat -f -1 -x $id | grep -q "^	"
'

test_expect_success 'qstat -f -F json is the PBS JSON document' '
    qstat -f -F json -x $id > j.out &&
    python3 - "$id" j.out <<PY
import json, sys
doc = json.load(open(sys.argv[2]))
job = doc["Jobs"][sys.argv[1]]
assert job["job_state"] == "F", job
assert job["Exit_status"] == 0
assert job["Job_Name"] == "envjob"
assert job["Resource_List"]["ncpus"] == 2
assert "pbs_server" in doc and "timestamp" in doc
PY
'

test_expect_success 'qstat -F json has an empty Jobs object when there are none' '
    qstat -f -F json -u nobody-at-all | python3 -c "import json,sys; d=json.load(sys.stdin); assert d[\"Jobs\"] == {}, d"
'

test_expect_success 'qstat of an unknown job id: one error line, exit 153' '
    qstat 99999 > u.out 2> u.err; rc=$?; test $rc -eq 153 &&
    test $(wc -l < u.err) -eq 1 && grep -q "Unknown Job Id 99999" u.err
'

test_expect_success 'qstat -u filters by user' '
    qstat -x -u $(id -un) | grep -q "^$id " &&
    test -z "$(qstat -x -u nosuchuser)"
'

test_expect_success 'qstat -B and the Nextflow pipeline over @server' '
    qstat -B > b.out && sed -n 3p b.out | grep -q "Active" &&
    servers=$(qstat -B | grep -E -v "(^Server|^---)" | awk -v ORS=" " "{print \"@\"\$1}") &&
    id10=$(echo "sleep 60" | qsub) && wait_state $id10 R &&
    qstat -f $servers | grep -E "(Job Id:|job_state =)" > nf.out &&
    grep -qx "Job Id: $id10" nf.out && grep -q "job_state = R" nf.out &&
    qdel $id10
'

test_expect_success 'qstat -Q lists the default queue' '
    qstat -Q | grep -Eq "^workq +[0-9]+ +[0-9]+ yes yes"
'

test_expect_success 'qhold keeps a job from running; qrls lets it run' '
    idh=$(echo "echo released" | qsub -h) &&
    test "$(job_state $idh)" = H &&
    test "$(job_attr $idh Hold_Types)" = u &&
    qrls $idh && wait_state $idh F &&
    grep -qx released STDIN.o$(seqno $idh)
'

test_expect_success 'qhold of a queued job, then qdel of the held job' '
    idq=$(echo "true" | qsub -h) && qrls $idq 2>/dev/null; qhold $idq 2>/dev/null;
    idz=$(echo "true" | qsub -h) && qdel $idz && test "$(job_state $idz)" = F &&
    job_attr $idz comment | grep -q "deleted"
'

test_expect_success 'jobs are in the SQLite database with their attempts and events' '
    test "$(db_query "PRAGMA journal_mode")" = wal &&
    test "$(db_query "SELECT state FROM jobs WHERE seq = $n")" = F &&
    test "$(db_query "SELECT count(*) FROM attempts WHERE job_seq = $n")" = 1 &&
    test "$(db_query "SELECT exit_status FROM attempts WHERE job_seq = $n")" = 0 &&
    db_query "SELECT type FROM events WHERE job_seq = $n ORDER BY id" | tr "\n" " " |
        grep -q "^submitted started finished $"
'

test_done
