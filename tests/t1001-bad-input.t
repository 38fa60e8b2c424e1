#!/bin/bash
# Bad input: every way a user, a script, a stray client or a dying worker can
# hand hpcq something wrong.  Each refusal is one "prog: ..." line on stderr
# with the documented exit status and leaves nothing behind in the database;
# malformed bytes on the socket cost only that connection; a worker that
# vanishes mid-job gets its jobs requeued (or failed, if not rerunnable).
# Throughout, the scheduler is the same process it was at the start.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --mem-per-worker 2gb
SCHED_PID=$(cat "$CLUSTER/scheduler.pid")
SOCK=$CLUSTER/hpcq.sock
wire() { python3 "$HPCQ_SRCDIR/tests/wire-client.py" "$@"; }

njobs() { db_query "SELECT count(*) FROM jobs"; }

# run_capture CMD...: run CMD with stdin from $STDIN (default /dev/null),
# keeping its stdout, stderr and exit status in cmd.out, cmd.err, cmd.rc.
run_capture() {
    "$@" < "${STDIN:-/dev/null}" > cmd.out 2> cmd.err
    echo $? > cmd.rc
}

# check_error RC PROG TEXT: the captured command exited RC, printed nothing
# on stdout and exactly one line on stderr, "PROG: ..." containing TEXT.
check_error() {
    local rc; rc=$(cat cmd.rc)
    echo "exit $rc; stderr:"; cat cmd.err; echo "stdout:"; cat cmd.out
    test "$rc" -eq "$1" &&
    test ! -s cmd.out &&
    test "$(wc -l < cmd.err)" -eq 1 &&
    grep -q "^$2: " cmd.err &&
    grep -qF -- "$3" cmd.err
}

# qsub_rejects RC TEXT ARGS...: qsub ARGS fails as check_error describes and
# the job count in the database does not change.
qsub_rejects() {
    local rc=$1 text=$2 n0; shift 2
    n0=$(njobs) &&
    run_capture qsub "$@" &&
    check_error "$rc" qsub "$text" &&
    test "$(njobs)" = "$n0"
}

# The scheduler is the process we started and still does its job.
sched_serving() {
    local id
    kill -0 "$SCHED_PID" &&
    qstat -B | grep -q " Active$" &&
    id=$(echo "echo alive" | qsub) && wait_state "$id" F &&
    test "$(job_attr "$id" Exit_status)" = 0
}

# reply_check FILE N EXPR: the Nth "reply" line of a wire-client transcript
# satisfies the Python expression EXPR, where r is the reply.
reply_check() {
    python3 - "$@" <<'PY'
import json, sys
path, n, expr = sys.argv[1], int(sys.argv[2]), sys.argv[3]
replies = [json.loads(l[6:]) for l in open(path) if l.startswith("reply ")]
if len(replies) < n:
    sys.exit("only %d replies in %s" % (len(replies), open(path).read()))
r = replies[n - 1]
if not eval(expr):
    sys.exit("reply %d: %s is false for %s" % (n, expr, json.dumps(r)))
PY
}

printf '#!/bin/sh\necho fine\n' > ok.sh

test_expect_success 'the cluster is up and the database starts empty' '
    test "$(njobs)" = 0 && sched_serving
'

# --- qsub: bad options, on the command line and in #PBS directives ---------
# option | error on the command line | error as a directive on line 3
cases='-l walltime=abc|invalid walltime '\''abc'\''|invalid walltime '\''abc'\''
-l ncpus=-1|invalid ncpus '\''-1'\'' (must be an integer >= 1)|invalid ncpus '\''-1'\''
-l mem=12XB|invalid size '\''12XB'\''|invalid size '\''12XB'\''
-l foo=1|unknown resource '\''foo'\''|unknown resource '\''foo'\''
-l select=1:ncpus=0|invalid ncpus '\''0'\''|invalid ncpus '\''0'\''
-j xx|invalid -j value '\''xx'\''|invalid -j value '\''xx'\''
-p 5000|invalid priority '\''5000'\'' (must be -1024 to 1023)|invalid priority '\''5000'\''
-Z|invalid option -- '\''Z'\''|unknown option -Z'

k=0
while IFS='|' read -r opt clitext dirtext; do
    k=$((k + 1))
    test_expect_success "qsub $opt: exit 2, one line 'qsub: $clitext'" "
        qsub_rejects 2 \"$clitext\" $opt ok.sh
    "
    printf '#!/bin/sh\n#PBS -N directive\n#PBS %s\necho never\n' "$opt" > bad$k.sh
    test_expect_success "#PBS $opt: exit 1, one line naming line 3" "
        qsub_rejects 1 \"qsub: directive error: line 3: $dirtext\" bad$k.sh
    "
done <<EOF
$cases
EOF

test_expect_success 'qsub -l without its argument: exit 2, one line' '
    qsub_rejects 2 "option -l requires an argument" -l
'

test_expect_success 'qsub with two scripts: exit 2, one line' '
    qsub_rejects 2 "too many arguments" ok.sh ok.sh
'

# --- qsub: scripts that cannot be used ---------------------------------------
test_expect_success 'a script that does not exist: exit 1, one line' '
    qsub_rejects 1 "cannot read script nosuch.sh: No such file or directory" nosuch.sh
'

test_expect_success 'a script that is a directory: exit 1, one line' '
    mkdir -p adir &&
    qsub_rejects 1 "cannot read script adir: Is a directory" adir
'

test_expect_success 'an empty script: exit 1, one line' '
    : > empty.sh &&
    qsub_rejects 1 "script empty.sh is empty" empty.sh
'

test_expect_success 'an empty standard input: exit 1, one line' '
    qsub_rejects 1 "script from standard input is empty"
'

test_expect_success 'a script with a NUL byte: exit 1, one line' '
    printf "#!/bin/sh\necho a\0b\n" > binary.sh &&
    qsub_rejects 1 "script binary.sh is not a text file" binary.sh
'

test_expect_success 'binary data on standard input: exit 1, one line' '
    head -c 64 /dev/urandom > random.bin && printf "\0" >> random.bin &&
    STDIN=random.bin qsub_rejects 1 "is not a text file"
'

# --- qsub: requests the cluster can never satisfy ---------------------------
# Two workers with 2 cpus, 2gb and no GPU each.
test_expect_success 'select=1:ncpus=64 is refused at submit, naming the largest node' '
    qsub_rejects 1 "Job exceeds server resource limits" -l select=1:ncpus=64 ok.sh &&
    grep -qF "select=1:ncpus=64" cmd.err &&
    grep -qF "largest has 2 cpus, mem=2gb, 0 gpus" cmd.err
'

test_expect_success 'select=1:ngpus=1 is refused at submit (no node has a GPU)' '
    qsub_rejects 1 "exceeds" -l select=1:ngpus=1 ok.sh &&
    grep -qF "ngpus=1" cmd.err && grep -qF "0 gpus" cmd.err
'

test_expect_success 'select=3:ncpus=2 place=scatter is refused (3 chunks, 2 nodes)' '
    qsub_rejects 1 "exceeds" -l select=3:ncpus=2 -l place=scatter ok.sh &&
    grep -qF "select=3:ncpus=2 place=scatter needs 3 nodes; the cluster has 2" cmd.err
'

test_expect_success 'mem=4gb on one node is refused (largest has 2gb)' '
    qsub_rejects 1 "exceeds" -l select=1:ncpus=1:mem=4gb ok.sh &&
    grep -qF "mem=2gb" cmd.err
'

test_expect_success 'an impossible request in a #PBS directive is refused too' '
    printf "#!/bin/sh\n#PBS -l select=1:ncpus=64\necho never\n" > big.sh &&
    qsub_rejects 1 "exceeds" big.sh
'

test_expect_success 'select=2:ncpus=2 fits across both nodes: accepted and run' '
    id=$(qsub -l select=2:ncpus=2 ok.sh) && wait_state $id F &&
    test "$(job_attr $id Exit_status)" = 0 &&
    job_attr $id exec_host | grep -Eq "^node[12]/0\*2\+node[12]/0\*2$" &&
    job_attr $id exec_host | grep -q node1 && job_attr $id exec_host | grep -q node2
'

test_expect_success 'qsub -q nosuch: exit 1, one line, nothing submitted' '
    qsub_rejects 1 "Unknown queue '\''nosuch'\''" -q nosuch ok.sh
'

test_expect_success '#PBS -q nosuch is refused the same way' '
    printf "#!/bin/sh\n#PBS -q nosuch\necho never\n" > q.sh &&
    qsub_rejects 1 "Unknown queue '\''nosuch'\''" q.sh
'

# --- qdel / qhold / qrls / qstat of jobs that are not there -----------------
for cmd in qdel qhold qrls qstat; do
    test_expect_success "$cmd of an unknown job id: one line, exit 153" "
        run_capture $cmd 99999 && check_error 153 $cmd 'Unknown Job Id 99999' &&
        run_capture $cmd 99999.nosuchserver &&
        check_error 153 $cmd 'Unknown Job Id 99999.nosuchserver'
    "
done

for cmd in qdel qhold qrls qstat; do
    test_expect_success "$cmd of a malformed id 'abc': one line, non-zero exit" "
        run_capture $cmd abc && test \$(cat cmd.rc) -ne 0 &&
        check_error \$(cat cmd.rc) $cmd abc &&
        run_capture $cmd 12abc && test \$(cat cmd.rc) -ne 0 &&
        check_error \$(cat cmd.rc) $cmd 12abc
    "
done

test_expect_success 'qdel without a job id: usage, exit 2' '
    run_capture qdel && test $(cat cmd.rc) -eq 2 && grep -q "^usage: qdel" cmd.err
'

test_expect_success 'qdel of an unknown id goes on with the next one' '
    idh=$(echo true | qsub -h) && test "$(job_state $idh)" = H &&
    run_capture qdel 99999 $idh && check_error 153 qdel "Unknown Job Id 99999" &&
    test "$(job_state $idh)" = F
'

echo true | qsub > fin.id
fin=$(cat fin.id)
test_expect_success 'qdel of a finished job: one clear line, exit 168' '
    wait_state $fin F &&
    run_capture qdel $fin && check_error 168 qdel "Job has finished $fin" &&
    test "$(job_state $fin)" = F && test "$(job_attr $fin Exit_status)" = 0
'

test_expect_success 'qhold and qrls of a finished job: one line, exit 168' '
    run_capture qhold $fin &&
    check_error 168 qhold "Request invalid for state of job $fin" &&
    run_capture qrls $fin && check_error 168 qrls "Request invalid for state of job"
'

test_expect_success 'qstat of a finished job without -x: one line, exit 35' '
    run_capture qstat $fin && check_error 35 qstat "$fin Job has finished, use -x"
'

# --- no server to talk to ----------------------------------------------------
test_expect_success 'no server at HPCQ_SERVER: qsub fails with one line' '
    n0=$(njobs) &&
    HPCQ_SERVER=unix:$TEST_ROOT/nosuch.sock run_capture qsub ok.sh &&
    check_error 1 qsub "cannot connect to server at $TEST_ROOT/nosuch.sock: No such file or directory" &&
    test "$(njobs)" = "$n0"
'

test_expect_success 'no server at HPCQ_SERVER: qstat, qstat -B and qdel fail with one line' '
    HPCQ_SERVER=unix:$TEST_ROOT/nosuch.sock run_capture qstat &&
    check_error 1 qstat "cannot connect to server" &&
    HPCQ_SERVER=unix:$TEST_ROOT/nosuch.sock run_capture qstat -B &&
    check_error 1 qstat "cannot connect to server" &&
    HPCQ_SERVER=unix:$TEST_ROOT/nosuch.sock run_capture qdel 1 &&
    check_error 1 qdel "cannot connect to server"
'

test_expect_success 'a stale socket nobody listens on: connection refused, one line' '
    python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" \
        $TEST_ROOT/stale.sock && test -S $TEST_ROOT/stale.sock &&
    HPCQ_SERVER=unix:$TEST_ROOT/stale.sock run_capture qsub ok.sh &&
    check_error 1 qsub "Connection refused" &&
    HPCQ_SERVER=unix:$TEST_ROOT/stale.sock run_capture qstat &&
    check_error 1 qstat "Connection refused"
'

test_expect_success 'no HPCQ_SERVER and no config: one line saying how to set it' '
    (unset HPCQ_SERVER; HPCQ_CONFIG=$TEST_ROOT/no.conf run_capture qsub ok.sh) &&
    check_error 1 qsub "no server: set HPCQ_SERVER" &&
    (unset HPCQ_SERVER; HPCQ_CONFIG=$TEST_ROOT/no.conf run_capture qstat) &&
    check_error 1 qstat "no server: set HPCQ_SERVER"
'

# --- the socket: bytes that are not hpcq messages ---------------------------
test_expect_success '(a) garbage bytes: the server drops the connection and goes on' '
    wire --wait-close "$SOCK" "raw:GET / HTTP/1.0\r\n\r\n" > w.out && cat w.out &&
    test "$(cat w.out)" = closed &&
    wire --wait-close "$SOCK" "bytes:4096:0xff" > w.out && cat w.out &&
    test "$(cat w.out)" = closed &&
    sched_serving
'

test_expect_success '(b) a valid length followed by non-JSON: dropped' '
    wire --wait-close "$SOCK" hdr:8 "raw:not json" > w.out && cat w.out &&
    test "$(cat w.out)" = closed &&
    wire --wait-close "$SOCK" hdr:3 "raw:\x00\x01\x02" > w.out && cat w.out &&
    test "$(cat w.out)" = closed &&
    sched_serving
'

test_expect_success '(c) a message cut short (header says 100, 10 sent): dropped' '
    wire --shutdown --wait-close "$SOCK" hdr:100 raw:0123456789 > w.out &&
    cat w.out && test "$(cat w.out)" = closed &&
    sched_serving
'

test_expect_success '(d) an oversized or zero length header: dropped at once' '
    wire --wait-close "$SOCK" hdr:0x7fffffff > w.out && cat w.out &&
    test "$(cat w.out)" = closed &&
    wire --wait-close "$SOCK" hdr:0xffffffff > w.out && cat w.out &&
    test "$(cat w.out)" = closed &&
    wire --wait-close "$SOCK" hdr:$((8 * 1024 * 1024 + 1)) > w.out && cat w.out &&
    test "$(cat w.out)" = closed &&
    wire --wait-close "$SOCK" hdr:0 > w.out && cat w.out &&
    test "$(cat w.out)" = closed &&
    sched_serving
'

test_expect_success 'JSON that is not an envelope: dropped, no reply' '
    for m in "[]" "{\"v\":2,\"type\":\"server.stat\",\"id\":1,\"cred\":null,\"body\":{}}" \
             "{\"v\":1,\"type\":\"server.stat\",\"id\":1,\"cred\":null,\"body\":[]}" \
             "{\"v\":1,\"id\":1,\"cred\":null,\"body\":{}}"; do
        wire --wait-close "$SOCK" "json:$m" > w.out && cat w.out &&
        ! grep -q "^reply" w.out && grep -qx closed w.out || exit 1
    done &&
    sched_serving
'

test_expect_success '(e) an unknown type: ENOSYS reply, the connection stays usable' '
    wire --timeout 2 --wait-close "$SOCK" \
        "json:{\"v\":1,\"type\":\"no.such\",\"id\":7,\"cred\":null,\"body\":{}}" \
        "json:{\"v\":1,\"type\":\"server.stat\",\"id\":8,\"cred\":null,\"body\":{}}" \
        > w.out && cat w.out &&
    reply_check w.out 1 "r[\"reply\"] is True and r[\"id\"] == 7 and r[\"type\"] == \"no.such\"" &&
    reply_check w.out 1 "r[\"errnum\"] == 38 and \"no.such\" in r[\"error\"]" &&
    reply_check w.out 2 "r[\"id\"] == 8 and r[\"errnum\"] == 0" &&
    reply_check w.out 2 "r[\"body\"][\"server_state\"] == \"Active\"" &&
    test "$(tail -1 w.out)" = open
'

spec_ok='"name":"wire","script":"true\n","workdir":"/tmp"'
test_expect_success '(f) job.submit with a malformed spec: one EPROTO reply each' '
    n0=$(njobs) &&
    wire --timeout 2 --wait-close "$SOCK" \
        "json:{\"v\":1,\"type\":\"job.submit\",\"id\":1,\"cred\":null,\"body\":{}}" \
        "json:{\"v\":1,\"type\":\"job.submit\",\"id\":2,\"cred\":null,\"body\":{\"spec\":\"x\"}}" \
        "json:{\"v\":1,\"type\":\"job.submit\",\"id\":3,\"cred\":null,\"body\":{\"spec\":{$spec_ok,\"bogus\":1}}}" \
        "json:{\"v\":1,\"type\":\"job.submit\",\"id\":4,\"cred\":null,\"body\":{\"spec\":{$spec_ok,\"priority\":5000}}}" \
        "json:{\"v\":1,\"type\":\"job.submit\",\"id\":5,\"cred\":null,\"body\":{\"spec\":{$spec_ok,\"resources\":{\"walltime\":-1,\"place\":\"\",\"chunks\":[{\"count\":1,\"ncpus\":-1,\"mem\":0,\"ngpus\":0,\"mpiprocs\":1}]}}}}" \
        "json:{\"v\":1,\"type\":\"job.submit\",\"id\":6,\"cred\":null,\"body\":{\"spec\":{\"script\":\"true\"}}}" \
        "json:{\"v\":1,\"type\":\"server.stat\",\"id\":7,\"cred\":null,\"body\":{}}" \
        > w.out && cat w.out &&
    test "$(grep -c "^reply" w.out)" = 7 &&
    for i in 1 2 3 4 5 6; do
        reply_check w.out $i "r[\"id\"] == $i and r[\"errnum\"] == 71 and r[\"error\"]" || exit 1
    done &&
    reply_check w.out 1 "r[\"error\"] == \"missing job spec\"" &&
    reply_check w.out 3 "\"bogus\" in r[\"error\"]" &&
    reply_check w.out 4 "\"priority\" in r[\"error\"]" &&
    reply_check w.out 5 "\"ncpus\" in r[\"error\"]" &&
    reply_check w.out 7 "r[\"errnum\"] == 0" &&
    test "$(tail -1 w.out)" = open &&
    test "$(njobs)" = "$n0"
'

server_name=$(qstat -B -f | sed -n "s/^Server: //p")
# The test runs as the scheduler's user (hpcq-local starts it as the current
# user), who may speak for a node on the Unix socket, as root may.
test_expect_success '(g) node.hello over the Unix socket gets a well-formed reply' '
    test -n "$server_name" &&
    test "$(qstat | wc -l)" = 0 &&
    wire "$SOCK" \
        "json:{\"v\":1,\"type\":\"node.hello\",\"id\":3,\"cred\":null,\"body\":{\"name\":\"wire-fake\",\"ncpus\":1,\"mem\":0,\"gpus\":[],\"running\":[],\"finished\":[]}}" \
        > w.out && cat w.out &&
    reply_check w.out 1 "r[\"reply\"] is True and r[\"id\"] == 3 and r[\"type\"] == \"node.hello\"" &&
    reply_check w.out 1 "r[\"errnum\"] == 0 and r[\"body\"][\"server\"] == \"$server_name\""
'

test_expect_success 'the fake node, silent after hello, is marked down' '
    wait_until 30 eval "test \"\$(db_query \"SELECT state FROM nodes WHERE name = '\''wire-fake'\''\")\" = down" &&
    sched_serving
'

nnodes() { qstat -B -f >/dev/null; db_query "SELECT count(*) FROM nodes"; }

test_expect_success 'a malformed node.hello creates no node and leaves a real one alone' '
    n0=$(db_query "SELECT count(*) FROM nodes") &&
    wire "$SOCK" \
        "json:{\"v\":1,\"type\":\"node.hello\",\"id\":4,\"cred\":null,\"body\":{\"name\":\"ghost\"}}" \
        "json:{\"v\":1,\"type\":\"node.hello\",\"id\":5,\"cred\":null,\"body\":{\"name\":\"node1\",\"ncpus\":0,\"mem\":0,\"gpus\":[],\"running\":[],\"finished\":[]}}" \
        > w.out && cat w.out &&
    reply_check w.out 1 "r[\"errnum\"] == 71" &&
    reply_check w.out 2 "r[\"errnum\"] == 71" &&
    test "$(db_query "SELECT count(*) FROM nodes")" = "$n0" &&
    ! grep -q "node ghost" $CLUSTER/scheduler.log &&
    ! grep -q "lost the scheduler" $CLUSTER/worker1.log &&
    id=$(echo true | qsub -l select=2:ncpus=2) && wait_state $id F
'

test_expect_success 'a job id naming another server is unknown here' '
    id=$(echo true | qsub) && wait_state $id F &&
    run_capture qstat -x $(seqno $id).otherserver &&
    check_error 153 qstat "Unknown Job Id $(seqno $id).otherserver" &&
    qstat -x $(seqno $id) > /dev/null && qstat -x $id > /dev/null
'

test_expect_success 'a peer that stalls mid-message is dropped after 10 s' '
    wire --wait-close --timeout 20 "$SOCK" hdr:100 raw:0123456789 > w.out &&
    cat w.out && test "$(cat w.out)" = closed &&
    grep -q "message incomplete" $CLUSTER/scheduler.log &&
    sched_serving
'

# --- a worker that disappears mid-job ---------------------------------------
# A job whose worker was killed keeps running with nobody to stop it: its
# session is noted here and killed below, or at exit if a test failed first.
SIDS=$TEST_ROOT/orphan-sessions
kill_orphans() {
    local sid
    [ -f "$SIDS" ] || return 0
    for sid in $(cat "$SIDS"); do
        [ "$sid" -gt 1 ] 2>/dev/null && pkill -KILL -s "$sid"
    done
    return 0
}
trap 'kill_orphans; test_cleanup' EXIT
# Processes of session $1 that are not zombies.
session_alive() { ps -s "$1" -o stat= 2>/dev/null | grep -qv "^Z"; }
session_gone() { ! session_alive "$1"; }

node_of() { job_attr "$1" exec_host | sed 's,/.*,,'; }
has_session() { test -n "$(job_attr "$1" session_id)"; }
run_count_is() { test "$(job_attr "$1" run_count)" = "$2" && has_state "$1" R; }

printf '#!/bin/sh\nsleep 300\n' > sleeper.sh
qsub -N rerun sleeper.sh > rerun.id
rerun=$(cat rerun.id)

test_expect_success 'a rerunnable job runs and has a session' '
    wait_state $rerun R && wait_until 30 has_session $rerun &&
    test "$(job_attr $rerun run_count)" = 1 &&
    test "$(job_attr $rerun Rerunable)" = True
'
first_node=$(node_of "$rerun")
first_sid=$(job_attr "$rerun" session_id)
echo "$first_sid" >> "$SIDS"
say "job $rerun runs on $first_node, session $first_sid"

test_expect_success 'kill -9 its worker: the job is requeued and runs on the other node' '
    test -n "$first_node" && pidf=$CLUSTER/worker${first_node#node}.pid &&
    kill -9 $(cat $pidf) &&
    wait_until 30 run_count_is $rerun 2 &&
    test "$(job_state $rerun)" = R &&
    new=$(node_of $rerun) && echo "now on $new" &&
    test -n "$new" && test "$new" != "$first_node"
'

test_expect_success 'the attempts table has both runs; the first says why it ended' '
    s=$(seqno $rerun) &&
    db_query "SELECT attempt, node, exit_status, reason FROM attempts WHERE job_seq = $s ORDER BY attempt" &&
    test "$(db_query "SELECT count(*) FROM attempts WHERE job_seq = $s")" = 2 &&
    test "$(db_query "SELECT node FROM attempts WHERE job_seq = $s AND attempt = 1")" = "$first_node" &&
    test "$(db_query "SELECT node FROM attempts WHERE job_seq = $s AND attempt = 2")" != "$first_node" &&
    test "$(db_query "SELECT end_time IS NOT NULL FROM attempts WHERE job_seq = $s AND attempt = 1")" = 1 &&
    db_query "SELECT reason FROM attempts WHERE job_seq = $s AND attempt = 1" |
        grep -q "node $first_node stopped sending heartbeats" &&
    test "$(db_query "SELECT end_time IS NULL FROM attempts WHERE job_seq = $s AND attempt = 2")" = 1 &&
    db_query "SELECT type FROM events WHERE job_seq = $s ORDER BY id" | grep -qx requeued
'

# The dead worker's copy of the job still runs; the worker that comes back
# on that node kills it (its spool records the session).
test_expect_success 'restarting the dead worker kills its orphaned run' '
    test -n "$first_sid" &&
    hpcq-local start-worker $CLUSTER ${first_node#node} &&
    wait_until 10 session_gone $first_sid &&
    grep -q "killed 1 job sessions left by a previous worker" $CLUSTER/worker${first_node#node}.log
'

qsub -r n -N norerun sleeper.sh > norerun.id
norerun=$(cat norerun.id)

test_expect_success 'a job with -r n runs' '
    wait_state $norerun R && wait_until 30 has_session $norerun &&
    test "$(job_attr $norerun Rerunable)" = False
'
third_node=$(node_of "$norerun")
third_sid=$(job_attr "$norerun" session_id)
echo "$third_sid" >> "$SIDS"

test_expect_success 'kill -9 its worker: the -r n job ends F with a reason' '
    kill -9 $(cat $CLUSTER/worker${third_node#node}.pid) &&
    wait_state $norerun F 30 &&
    st=$(job_attr $norerun Exit_status) && echo "Exit_status=$st" &&
    test -n "$st" && test "$st" -ne 0 &&
    job_attr $norerun comment | grep -q "node $third_node stopped sending heartbeats" &&
    test "$(job_attr $norerun run_count)" = 1 &&
    db_query "SELECT reason FROM attempts WHERE job_seq = $(seqno $norerun)" | grep -q "$third_node"
'

test_expect_success 'that worker comes back, kills the orphan, and takes jobs again' '
    hpcq-local start-worker $CLUSTER ${third_node#node} &&
    wait_until 10 session_gone $third_sid &&
    qdel $rerun && wait_state $rerun F 30 &&
    id=$(echo true | qsub -l select=2:ncpus=2) && wait_state $id F
'

# --- after all of it ---------------------------------------------------------
test_expect_success 'the database passes its integrity check' '
    test "$(db_query "PRAGMA integrity_check")" = ok
'

test_expect_success 'the scheduler is still the process started at the beginning' '
    test "$(cat $CLUSTER/scheduler.pid)" = "$SCHED_PID" && kill -0 $SCHED_PID &&
    qstat -B | grep -q " Active$" &&
    ! grep -Eq "assert|Assertion|AddressSanitizer|segfault" $CLUSTER/scheduler.out
'

test_done
