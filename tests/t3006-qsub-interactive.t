#!/bin/bash
# qsub -I: an interactive job.  qsub waits for the job to start, then the
# job's shell (run by hpcq-pty, as the owner, on the job's first host, on a
# pty of its own) is this terminal's until it exits; its exit status is the
# job's and qsub's.  qdel, walltime and a killed qsub end the job and leave
# no shell; -X is refused; nobody but the job's qsub gets the shell.
# Everything is driven through a real pty (tests/pty-drive.py).
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2
drive() { python3 "$HPCQ_SRCDIR/tests/pty-drive.py" "$@"; }
# The job id qsub printed in LOG ("qsub: waiting for job ID to start").
log_jobid() { sed -n 's/^qsub: waiting for job \([^ ]*\) to start.*/\1/p' "$1" | head -1; }
# The log without the terminal's carriage returns.
clean() { tr -d '\r' < "$1"; }

# What the shell sees, one bracketed value each (run by the shell itself).
cat > probe.sh <<'S'
echo "H=[$(hostname)] J=[$PBS_JOBID] U=[$(id -un)] E=[$PBS_ENVIRONMENT] N=[$(wc -l < $PBS_NODEFILE)]"
echo "T=[$(tty)] S=[$(stty size)] D=[$(pwd)] SH=[$0]"
echo "G=[$(grep -c "job_${PBS_JOBID%%.*}\." /proc/self/cgroup)] CPUS=[$(sed -n 's/^Cpus_allowed_list:\t//p' /proc/self/status)]"
S
chmod 644 probe.sh

test_expect_success 'qsub -I: a shell on a tty, in the job, as the owner; exit 3 ends it' '
    drive --log s.log --rows 30 --cols 100 --expect "job .* ready" \
        --send ". $WORK/probe.sh\n" \
        --expect "S=\[30 100\]" --winch 40,120 --send "echo \"W=[\$(stty size)]\"; exit 3\n" \
        -- qsub -I -l select=1:ncpus=1 -N inter; echo "rc=$?" > s.rc &&
    clean s.log > s.txt && cat s.txt &&
    id=$(log_jobid s.txt) && test -n "$id" &&
    grep -qx "rc=3" s.rc &&
    grep -q "H=\[$(hostname -s)\] J=\[$id\] U=\[$(id -un)\] E=\[PBS_INTERACTIVE\] N=\[1\]" s.txt &&
    grep -Eq "T=\[/dev/pts/[0-9]+\] S=\[30 100\] D=\[$HOME\] SH=\[-[a-z]+\]" s.txt &&
    grep -q "W=\[40 120\]" s.txt &&
    grep -qx "qsub: job $id ready" s.txt &&
    grep -qx "qsub: job $id completed" s.txt &&
    test "$(job_attr $id Exit_status)" = 3 &&
    test "$(job_attr $id Job_Name)" = inter &&
    echo "$id" > s.id
'

test_expect_success 'the shell is in the job'"'"'s cgroup and cpuset (where the worker has them)' '
    id=$(cat s.id) &&
    cpus=$(sed -n "s/.*job $id started as pid [0-9]* on cpus \(.*\)/\1/p" "$CLUSTER/worker1.log") &&
    echo "cpus: ${cpus:-none pinned}; $(containment)" &&
    { test -z "$cpus" || grep -q "CPUS=\[$cpus\]" s.txt; } &&
    case "$(containment)" in
    cgroup*) grep -q "G=\[[1-9][0-9]*\]" s.txt ;;
    *) echo "no cgroups here: the cpuset alone is checked" ;;
    esac
'

test_expect_success 'the cookie is in no qstat -f, not even the owner'"'"'s' '
    id=$(cat s.id) && qstat -f -x $id > s.f && grep -q Exit_status s.f &&
    ! grep -q HPCQ_PTY s.f && ! grep -q hpcq-pty s.f
'

test_expect_success 'qsub -I with its input from a pipe: the shell reads it, then its end' '
    printf "echo P=\$((6*7))\n" | qsub -I -S /bin/sh > p.out 2> p.err; echo "rc=$?" > p.rc &&
    tr -d "\r" < p.out > p.txt && cat p.txt p.err p.rc &&
    grep -qx "P=42" p.txt && grep -qx "rc=0" p.rc && grep -q "completed" p.txt
'

# A job whose shell runs a marked sleep; MARK is what pgrep looks for.
start_sleeper() {   # NAME MARK QSUB-OPTIONS...
    local name=$1 mark=$2; shift 2
    ( drive --log $name.log --pidfile $name.pid --expect "job .* ready" \
        --send "echo S=READY\$((1+1)); sleep $mark\n" -- qsub -I "$@"; echo "rc=$?" > $name.rc ) &
    wait_until 60 grep -q "S=READY2" $name.log && wait_until 10 pgrep -f "^sleep $mark\$" >/dev/null
}

test_expect_success 'qdel of an interactive job: qsub says so, exits non-zero, no shell left' '
    start_sleeper d 3917 &&
    id=$(log_jobid d.log) && qdel $id &&
    wait_until 60 test -s d.rc && cat d.log && cat d.rc &&
    ! grep -qx "rc=0" d.rc &&
    grep -q "qsub: job $id ended before its shell did: Job deleted" d.log &&
    wait_until 10 sh -c "! pgrep -f \"^sleep 3917\$\"" &&
    has_state $id F
'

test_expect_success 'walltime ends an interactive job like any other' '
    start_sleeper w 3918 -l walltime=3 &&
    id=$(log_jobid w.log) &&
    wait_until 60 test -s w.rc && cat w.log && cat w.rc &&
    ! grep -qx "rc=0" w.rc && grep -q "walltime" w.log &&
    wait_until 10 sh -c "! pgrep -f \"^sleep 3918\$\"" &&
    wait_state $id F && job_attr $id comment | grep -q walltime
'

test_expect_success 'qsub killed (SIGKILL): the job ends, its shell with it' '
    start_sleeper k 3919 &&
    id=$(log_jobid k.log) && kill -9 $(cat k.pid) &&
    wait_until 60 test -s k.rc &&
    wait_state $id F 60 &&
    wait_until 10 sh -c "! pgrep -f \"^sleep 3919\$\"" &&
    test "$(job_attr $id Exit_status)" = 129
'

test_expect_success '-X is refused with one line, -I with a script too' '
    test_must() { "$@"; test $? -eq 2; } &&
    test_must qsub -I -X 2> x.err && cat x.err && test "$(wc -l < x.err)" = 1 &&
    grep -q "X11 forwarding) is not supported" x.err &&
    echo true > job.sh && test_must qsub -I job.sh 2> s.err && cat s.err &&
    test "$(wc -l < s.err)" = 1 && grep -q "takes no script" s.err &&
    ! qsub -I -J 1-3 2> j.err && cat j.err && grep -q "cannot be an array" j.err
'

test_expect_success 'qsub -I interrupted while the job waits: the job is deleted' '
    ( drive --log i.log --pidfile i.pid --expect "waiting for job" -- qsub -I -h; echo "rc=$?" > i.rc ) &
    wait_until 30 grep -q "waiting for job" i.log &&
    id=$(log_jobid i.log) && wait_state $id H &&
    kill -INT $(cat i.pid) && wait_until 30 test -s i.rc && cat i.log &&
    ! grep -qx "rc=0" i.rc && wait_state $id F
'

# The port qsub PID listens on.
qsub_port() { ss -ltnpH | sed -n "/pid=$1,/s/.*:\([0-9][0-9]*\) .*users.*/\1/p" | head -1; }

other_users_setup true
why=$(root_and_nobody)
if [ -n "$why" ]; then
    test_skip "another user cannot attach to a user's interactive session, nor hold it up" "$why"
    test_skip "another user's interactive job: the shell is theirs" "$why"
else
test_expect_success 'another user'"'"'s interactive job: the shell is theirs' '
    cp "$HPCQ_SRCDIR/tests/pty-drive.py" probe.sh $PUB/ &&
    as_user_py nobody $PUB/pty-drive.py --log $PUB/n.log --expect "job .* ready" \
        --send ". $PUB/probe.sh; exit 7\n" -- qsub -I -S /bin/sh; echo "rc=$?" > n.rc &&
    clean $PUB/n.log > n.txt && cat n.txt n.rc &&
    id=$(log_jobid n.txt) && grep -qx "rc=7" n.rc &&
    grep -q "J=\[$id\] U=\[nobody\] E=\[PBS_INTERACTIVE\]" n.txt &&
    grep -q "SH=\[-sh\]" n.txt &&
    test "$(job_attr $id Job_Owner | sed "s/@.*//")" = nobody &&
    test "$(job_attr $id Exit_status)" = 7
'

test_expect_success 'another user cannot attach to a user'"'"'s interactive session, nor hold it up' '
    cat > $PUB/attack.py <<"PY" &&
import os, socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
hello = s.recv(24)
if sys.argv[2:] == ["silent"]:  # connect, then never answer
    print("silent", flush=True)
    time.sleep(20)
    sys.exit(0)
s.sendall(os.urandom(48))  # a nonce and a guessed proof
try:
    rest = s.recv(100)
except ConnectionResetError:
    rest = b""
print("hello=%s answer=%d bytes" % (hello[:8].decode(), len(rest)))
PY
    ( drive --log a.log --pidfile a.pid --expect "waiting for job" --wait-file go \
        --expect "job .* ready" --wait-file go2 \
        --send "echo \"U=[\$(id -un)]\"; exit 0\n" -- qsub -I -h; echo "rc=$?" > a.rc ) &
    wait_until 30 grep -q "waiting for job" a.log && id=$(log_jobid a.log) &&
    wait_until 10 eval "test -n \"\$(qsub_port \$(cat a.pid))\"" && port=$(qsub_port $(cat a.pid)) &&
    as_user_py nobody $PUB/attack.py $port > at.out && cat at.out &&
    grep -qx "hello=HPCQPTY1 answer=0 bytes" at.out &&
    wait_until 10 grep -q "refused a connection from 127.0.0.1:[0-9]* (wrong cookie)" a.log &&
    as_user nobody qstat -f $id > at.f 2>&1; ! grep -q HPCQ_PTY at.f &&
    { as_user_py nobody $PUB/attack.py $port silent > silent.out & } &&
    wait_until 10 grep -q silent silent.out &&
    touch go && qrls $id &&
    wait_until 60 grep -q "job $id ready" a.log &&
    grep -q "refused a connection from 127.0.0.1:[0-9]* (the session has started)" a.log &&
    ! as_user_py nobody $PUB/attack.py $port 2> at2.err && cat at2.err &&
    grep -q "Connection refused" at2.err &&
    touch go2 && wait_until 60 test -s a.rc && cat a.log &&
    grep -qx "rc=0" a.rc && clean a.log | grep -q "U=\[$(id -un)\]"
'
fi

test_done
