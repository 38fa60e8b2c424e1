#!/bin/bash
# A job cannot report absurd checkpoint figures (issue 22, finding 4): a raw
# ckpt.done with bytes 2^63-1, seconds 1e308 or generation 2^62, written
# to $HPCQ_CKPT_SOCKET past hpcq-ckpt's own checks, is refused by the
# worker with one log line and an answer that says why; the job's honest
# report that follows is recorded, and /metrics and hpcq-report show only
# it.  (The scheduler applies the same bounds, common/ckptreport.h, to
# what a worker passes on: common/test/test_ckptreport.)
. "$(dirname "$0")/lib.sh"

command -v curl >/dev/null || skip_all 'curl not installed (quickstart.sh installs it)' \
    'raw reports past the bounds are refused' 'metrics and hpcq-report are unaffected'
cluster_start 1
http=$(sed -n 's/^http=//p' "$CLUSTER/state/scheduler.address")
metric() { curl -sf "http://$http/metrics" | awk -v s="$1" '$1 == s { print $2 }'; }

cat > raw.py <<'EOS'
import json, os, socket, struct, sys
def report(**fig):
    body = dict(jobid=os.environ["PBS_JOBID"], attempt=int(os.environ["HPCQ_ATTEMPT"]), **fig)
    data = json.dumps({"v": 1, "type": "ckpt.done", "id": 1, "cred": None, "body": body}).encode()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(os.environ["HPCQ_CKPT_SOCKET"])
    s.sendall(struct.pack(">I", len(data)) + data)
    n = struct.unpack(">I", s.recv(4, socket.MSG_WAITALL))[0]
    rep = json.loads(s.recv(n, socket.MSG_WAITALL))
    print(rep.get("errnum"), rep.get("error"))
report(bytes=2**63 - 1, seconds=1e308)
report(seconds=1e308)
report(generation=2**62)
EOS
cat > job.sh <<EOS
#!/bin/sh
python3 $WORK/raw.py > $WORK/raw.out 2>&1
hpcq-ckpt done --bytes 1048576 --seconds 2
EOS

a=$(qsub -o /dev/null -e /dev/null job.sh)
test_expect_success 'raw reports past the bounds are refused' '
    wait_state $a F && cat raw.out &&
    test "$(grep -c "^22 " raw.out)" = 3 &&
    grep -q "bytes 9223372036854775807 out of range" raw.out &&
    grep -q "seconds 1e+308 out of range" raw.out &&
    grep -q "generation 4611686018427387904 out of range" raw.out &&
    test "$(grep -c "checkpoint report refused" "$CLUSTER/worker1.log")" -le 3 &&
    grep -q "job $a: checkpoint 0 reported (1048576 bytes)" "$CLUSTER/worker1.log" &&
    test "$(db_query "SELECT count(*), max(size), max(duration) FROM checkpoints")" = "1|1048576|2.0"
'

test_expect_success 'metrics and hpcq-report are unaffected' '
    curl -sf "http://$http/metrics" | grep "^hpcq_checkpoint_.*_\(sum\|count\)" &&
    test "$(metric hpcq_checkpoint_duration_seconds_sum)" = 2 &&
    test "$(metric hpcq_checkpoint_size_bytes_sum)" = 1048576 &&
    hpcq-report --state-dir "$CLUSTER/state" --by job --from 0 --csv > r.csv && cat r.csv &&
    grep -q "^${a%%.*}" r.csv &&
    ! grep -E "[0-9]{16}" r.csv
'

test_done
