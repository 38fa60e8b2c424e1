#!/bin/bash
# A stranger's flood cannot keep qsub -I's shell out (issue 22, finding 1,
# the pty helper's socket): while nobody opens connections to qsub's port
# as fast as they go, the job's hpcq-pty still gets in, because one source
# (the uid behind a connection from this host, else its address) holds at
# most 2 of the 8 handshakes in progress and a newcomer displaces the
# source holding most; qsub tells of the refusals in a few lines a
# second, not one per connection.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2
other_users_setup true
why=$(root_and_nobody)
[ -z "$why" ] || skip_all "$why" 'qsub -I starts its shell through a flood of its port'
drive() { python3 "$HPCQ_SRCDIR/tests/pty-drive.py" "$@"; }
log_jobid() { sed -n 's/^qsub: waiting for job \([^ ]*\) to start.*/\1/p' "$1" | head -1; }
qsub_port() { ss -ltnpH | sed -n "/pid=$1,/s/.*:\([0-9][0-9]*\) .*users.*/\1/p" | head -1; }
py=$(command -v /usr/bin/python3 || command -v python3)

test_expect_success 'qsub -I starts its shell through a flood of its port' '
    ( drive --log a.log --pidfile a.pid --expect "waiting for job" --wait-file go \
        --expect "job .* ready" --send "echo \"U=[\$(id -un)]\"; exit 0\n" \
        -- qsub -I -h; echo "rc=$?" > a.rc ) &
    wait_until 30 grep -q "waiting for job" a.log && id=$(log_jobid a.log) &&
    wait_until 10 test -n "$(qsub_port $(cat a.pid))" && port=$(qsub_port $(cat a.pid)) &&
    for k in 1 2; do
        as_user nobody "$py" "$HPCQ_SRCDIR/tests/conn-load.py" churn "127.0.0.1:$port" 20 12 \
            > churn.$k &
    done &&
    sleep 1 && touch go && qrls $id &&
    wait_until 60 test -s a.rc && wait && cat churn.* a.rc &&
    grep -qx "rc=0" a.rc && tr -d "\r" < a.log | grep -q "U=\[$(id -un)\]" &&
    n=$(grep -c "refused a connection" a.log) && echo "refusal lines: $n" &&
    test "$n" -lt 100 && grep -q "too many at once from there" a.log
'

test_done
