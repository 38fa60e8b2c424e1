#!/bin/bash
# User commands over TCP (HPCQ_SERVER=HOST:PORT, e.g. from another host):
# the connection opens with link.open and a MUNGE credential, the scheduler
# takes the uid from it, and the command checks the scheduler's answer (a
# service uid's) before it sends anything; then frames are sealed with the
# link's session key.  A one-shot request with a credential of its own is
# accepted too; one without is refused, as before.  The Unix socket keeps
# the kernel's word (SO_PEERCRED).
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2
port=$(sched_port)
tcp() { HPCQ_SERVER=127.0.0.1:$port "$@"; }
other_users_setup true

test_expect_success 'qsub, qstat and qdel over TCP work, as the caller' '
    id=$(echo "sleep 60" | tcp qsub) && wait_state $id R &&
    tcp qstat $id | grep "^$id " &&
    test "$(job_attr $id Job_Owner)" = "$(id -un)@$(hostname -s)" &&
    tcp qdel $id && wait_state $id F 30 &&
    job_attr $id comment | grep "deleted by $(id -un)"
'

test_expect_success 'without munged a command over TCP fails with one clear line' '
    echo true > ok.sh &&
    ! HPCQ_MUNGE_SOCKET=$TEST_ROOT/nosuch.sock tcp qsub ok.sh > out 2> err &&
    cat err && test "$(wc -l < err)" = 1 &&
    grep "qsub: cannot get a MUNGE credential" err &&
    ! HPCQ_MUNGE_SOCKET=$TEST_ROOT/nosuch.sock tcp qstat 2> err2 &&
    grep "MUNGE" err2
'

test_expect_success 'a user request over TCP without a credential is refused' '
    wire_client tcp:127.0.0.1:$port "json:{\"v\":1,\"type\":\"job.stat\",\"id\":1,\"cred\":null,\"body\":{}}" > bare.out &&
    cat bare.out &&
    wire_check bare.out reply 1 "r[\"errnum\"] == 1 and \"no credential\" in r[\"error\"]"
'

if [ "$(id -u)" = 0 ] && [ -n "$other_users" ]; then
    test_expect_success 'over TCP the owner is whoever the credential says' '
        mine=$(echo "sleep 60" | qsub -h) &&
        theirs=$(echo "sleep 60" | as_user nobody env HPCQ_SERVER=127.0.0.1:$port qsub -h) &&
        test "$(job_attr $theirs Job_Owner)" = "nobody@$(hostname -s)" &&
        ! as_user nobody env HPCQ_SERVER=127.0.0.1:$port qdel $mine 2> err &&
        cat err && grep -i "unauthorized" err &&
        as_user nobody env HPCQ_SERVER=127.0.0.1:$port qdel $theirs &&
        wait_state $theirs F && qdel $mine && wait_state $mine F
    '

    test_expect_success 'a command over TCP sends nothing to a scheduler that cannot prove itself' '
        fport=$(python3 -c "import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])") &&
        echo "echo secret" > secret.sh &&
        { as_user_py nobody "$HPCQ_SRCDIR/tests/fake-scheduler.py" --sign --workdir $PUB \
              --seconds 8 --links 1 127.0.0.1:$fport > $PUB/fake.out 2>&1 & } &&
        wait_until 5 grep -q "^listening" $PUB/fake.out &&
        ! HPCQ_SERVER=127.0.0.1:$fport qsub secret.sh 2> fake.err; cat fake.err $PUB/fake.out &&
        grep "refusing 127.0.0.1:$fport: it answers as uid 65534, not root" fake.err &&
        grep -q "got link.open" $PUB/fake.out && ! grep -q "got job.submit" $PUB/fake.out
    '

    test_expect_success 'a TCP connection cannot change users midway' '
        frame() { printf "{\"v\":1,\"type\":\"server.stat\",\"id\":%s,\"cred\":null,\"body\":{}}" $1; } &&
        f1=$(frame 1 | "$WIRE_SIGN") && f2=$(frame 2 | as_user nobody "$WIRE_SIGN") &&
        wire_client tcp:127.0.0.1:$port "json:$f1" "json:$f2" > mid.out && cat mid.out &&
        wire_check mid.out reply 1 "r[\"errnum\"] == 0" &&
        wire_check mid.out reply 2 "r[\"errnum\"] == 1 and \"uid 65534 on a connection of uid 0\" in r[\"error\"]"
    '
else
    test_skip 'over TCP the owner is whoever the credential says' 'needs root and a working "nobody" user'
    test_skip 'a command over TCP sends nothing to a scheduler that cannot prove itself' 'needs root and a working "nobody" user'
    test_skip 'a TCP connection cannot change users midway' 'needs root and a working "nobody" user'
fi

test_done
