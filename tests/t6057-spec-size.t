#!/bin/bash
# The request size limit keeps every reply that carries a request under
# the message limit (issue 10, finding 9): a request of almost 8 MiB is
# refused with a clear error instead of being accepted and then hanging
# every qstat -f; one under max_spec_size shows in qstat -f, in parts as
# large as they must be, and runs (its launch fits too).
. "$(dirname "$0")/lib.sh"

cluster_start 1

# submit_env MiB [NAME]: a held job whose environment is about MiB
# mebibytes, sent as a raw job.submit (qsub's own limits stop short).
submit_env() {
    python3 - "${HPCQ_SERVER#unix:}" "$1" "${2:-big}" "$WORK" <<'EOF'
import json, os, socket, struct, sys
path, mib, name, workdir = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
n = int(mib * 1024 * 1024 / 1024)
env = ["HPCQ_T_V%d=%s" % (i, "x" * 1000) for i in range(n)]
spec = {"name": name, "queue": None, "script": "#!/bin/sh\necho ran $HPCQ_T_V0 | cut -c1-9\n",
        "workdir": workdir, "submit_host": "localhost", "output_path": None,
        "error_path": None, "join": "n", "env": env, "hold": True, "priority": 0,
        "depend": None, "account": None, "mail_points": None, "mail_users": None,
        "submit_args": None, "rerunnable": True,
        "resources": {"walltime": -1, "place": "",
                      "chunks": [{"count": 1, "ncpus": 1, "mem": 0, "ngpus": 0,
                                  "mpiprocs": 1}]}}
data = json.dumps({"v": 1, "type": "job.submit", "id": 1, "cred": None,
                   "body": {"spec": spec}}).encode()
s = socket.socket(socket.AF_UNIX)
s.connect(path)
s.sendall(struct.pack(">I", len(data)) + data)
def exact(k):
    b = b""
    while len(b) < k:
        c = s.recv(k - len(b))
        if not c:
            raise SystemExit("closed")
        b += c
    return b
(k,) = struct.unpack(">I", exact(4))
r = json.loads(exact(k))
if r["errnum"]:
    print("error:", r["error"])
    sys.exit(1)
print(r["body"]["jobid"])
EOF
}

test_expect_success 'a request of almost 8 MiB is refused, saying why' '
    ! submit_env 7.9 > big.out && cat big.out &&
    grep -q "^error: job request too large: [0-9]* bytes (script, environment and options together), max_spec_size is 2097152" big.out &&
    test "$(db_query "SELECT count(*) FROM jobs")" = 0
'

test_expect_success 'one of 1.9 MiB is accepted and qstat -f shows it' '
    submit_env 1.9 fits > fits.id && id=$(cat fits.id) &&
    timeout 20 qstat -f $id > f.out &&
    grep -q "^    Variable_List = HPCQ_T_V0=xxxx" f.out &&
    timeout 20 qstat -f -F json $id > j.out &&
    python3 -c "import json; j = json.load(open(\"j.out\"))[\"Jobs\"][\"$id\"]; assert len(j[\"Variable_List\"]) > 1900" &&
    qrls $id && wait_state $id F && test "$(job_attr $id Exit_status)" = 0 &&
    grep -qx "ran xxxxx" "$WORK/fits.o${id%%.*}"
'

test_expect_success 'five of them: qstat -f answers in parts that each fit' '
    for k in 1 2 3 4 5; do submit_env 1.9 many$k > /dev/null || exit 1; done &&
    timeout 60 qstat -f -x > all.out && qstat -x &&
    test "$(grep -c "^Job Id:" all.out)" = 6 &&
    test "$(grep -c "^    Variable_List = HPCQ_T_V0=xxxx" all.out)" = 6
'

test_expect_success 'max_spec_size in the config lowers the limit for qsub too' '
    cluster_stop >/dev/null &&
    echo "max_spec_size = 65536" >> "$CLUSTER/scheduler.conf" &&
    hpcq-local start-scheduler "$CLUSTER" &&
    { echo "#!/bin/sh"; head -c 100000 /dev/zero | tr "\0" "#"; echo; } > big.sh &&
    ! qsub big.sh 2> q.err && cat q.err &&
    grep -q "qsub: job request too large: [0-9]* bytes .*max_spec_size is 65536" q.err
'

test_expect_success 'a max_spec_size above what a message can carry is refused at start' '
    cluster_stop >/dev/null &&
    sed -i "s/^max_spec_size = .*/max_spec_size = 8000000/" "$CLUSTER/scheduler.conf" &&
    ! hpcq-scheduler --config "$CLUSTER/scheduler.conf" 2> s.err && cat s.err &&
    grep -q "max_spec_size" s.err
'

test_done
