#!/bin/bash
# Account names cannot carry terminal escapes or forge report rows (issue
# 22, finding 5): -A is checked for control characters, as a job name is
# (qsub, #PBS, qalter, and
# the scheduler for a raw job.submit), with one error line; and where an
# account stored before the check (or any user's text) is printed, by
# qstat -f, hpcq-report and tracejob, its control characters are escaped.
. "$(dirname "$0")/lib.sh"

cluster_start 1
esc=$(printf 'x\033]0;t\007')
nl=$(printf 'a\nb')
# raw: whether a file holds a raw ESC, BEL or a line "b..." (a forged row).
raw() { grep -q "$(printf '[\033\007]')" "$1" || grep -q '^b' "$1"; }

test_expect_success 'qsub -A with an escape sequence or a newline is refused, in one line' '
    ! echo true | qsub -A "$esc" > o 2> e && cat e && test "$(wc -l < e)" = 1 &&
    grep -qF "account '\''x\x1b]0;t\x07'\'' contains a control character" e &&
    ! echo true | qsub -A "$nl" 2> e2 && cat e2 && test "$(wc -l < e2)" = 1 &&
    grep -qF "account '\''a\nb'\''" e2 &&
    printf "#!/bin/sh\n#PBS -A %s\ntrue\n" "$esc" > d.sh && ! qsub d.sh 2> e3 &&
    grep -q "contains a control character" e3 &&
    ! raw e && ! raw e2 && test "$(qselect | wc -l)" = 0
'

test_expect_success 'a raw job.submit past qsub is refused by the scheduler' '
    python3 - "${HPCQ_SERVER#unix:}" "$WORK" "$esc" > r.out <<'\''EOS'\''
import json, socket, struct, sys
path, workdir, account = sys.argv[1:4]
spec = {"name": "raw", "queue": None, "script": "#!/bin/sh\ntrue\n", "workdir": workdir,
        "submit_host": "localhost", "output_path": None, "error_path": None, "join": "n",
        "env": [], "hold": True, "priority": 0, "depend": None, "account": account,
        "mail_points": None, "mail_users": None, "submit_args": None, "rerunnable": True,
        "resources": {"walltime": -1, "place": "",
                      "chunks": [{"count": 1, "ncpus": 1, "mem": 0, "ngpus": 0, "mpiprocs": 1}]}}
data = json.dumps({"v": 1, "type": "job.submit", "id": 1, "cred": None,
                   "body": {"spec": spec}}).encode()
s = socket.socket(socket.AF_UNIX)
s.connect(path)
s.sendall(struct.pack(">I", len(data)) + data)
n = struct.unpack(">I", s.recv(4, socket.MSG_WAITALL))[0]
rep = json.loads(s.recv(n, socket.MSG_WAITALL))
print(rep.get("errnum"), rep.get("error"))
EOS
    cat r.out && grep -q "^22 .*contains a control character" r.out &&
    test "$(qselect | wc -l)" = 0
'

j=$(echo true | qsub -h -A proj -o /dev/null -e /dev/null)
test_expect_success 'qalter -A with an escape sequence is refused; the account stays' '
    ! qalter -A "$esc" $j 2> e && cat e && grep -q "contains a control character" e &&
    test "$(job_attr $j Account_Name)" = proj
'

# An account from before the check: written into the stored job while
# the scheduler is down, as an older version would have stored it.
kill -TERM "$(cat "$CLUSTER/scheduler.pid")"
wait_until 15 sh -c "! kill -0 $(cat "$CLUSTER/scheduler.pid") 2>/dev/null"
bad="'x' || char(27) || ']0;t' || char(7) || char(10) || 'forged,1,2,3'"
sqlite3 "$CLUSTER/state/hpcq.sqlite" \
    "UPDATE jobs SET account = $bad, spec = json_set (spec, '\$.account', $bad)
     WHERE seq = $(seqno $j)" || echo "Bail out! cannot write the stored job"
hpcq-local start-scheduler "$CLUSTER"
wait_until 30 qstat -B > /dev/null
test_expect_success 'qstat -f, hpcq-report and tracejob escape it' '
    qstat -f $j > f.out && grep "Account_Name" f.out && ! raw f.out &&
    grep -qF "Account_Name = x\x1b]0;t\x07\nforged,1,2,3" f.out &&
    qrls $j && wait_state $j F &&
    hpcq-report --state-dir "$CLUSTER/state" --by account --from 0 > t.out && cat t.out &&
    ! raw t.out && ! grep -q "^forged" t.out &&
    hpcq-report --state-dir "$CLUSTER/state" --by account --from 0 --csv > c.out && cat c.out &&
    ! raw c.out && test "$(wc -l < c.out)" = 3 &&
    tracejob -p "$CLUSTER/state" $j > tj.out && cat tj.out && ! raw tj.out
'

test_done
