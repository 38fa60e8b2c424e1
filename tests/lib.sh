# tests/lib.sh - shared by the integration tests (tests/tNNNN-*.t).
#
# Each test sources this, starts its own cluster with hpcq-local in a fresh
# temporary folder, and prints TAP.  Helpers wait on state (polling with a
# deadline), never on fixed sleeps.
#
#   . "$(dirname "$0")/lib.sh"
#   cluster_start 2 --cpus-per-worker 2
#   test_expect_success 'a job runs' 'id=$(echo true | qsub) && wait_state $id F'
#   test_done

set -u
: "${HPCQ_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${HPCQ_BUILDDIR:=$HPCQ_SRCDIR}"
export PATH="$HPCQ_BUILDDIR/cli:$HPCQ_BUILDDIR/scheduler:$HPCQ_BUILDDIR/sim:$HPCQ_BUILDDIR/worker:$PATH"
unset HPCQ_SERVER HPCQ_CONFIG

test_count=0
test_failures=0
TEST_ROOT=$(mktemp -d "${HPCQ_TEST_TMPDIR:-/tmp}/hpcq-t.XXXXXX")
CLUSTER=$TEST_ROOT/c
WORK=$TEST_ROOT/work
mkdir -p "$WORK"
cd "$WORK" || exit 1

test_cleanup() {
    [ -d "$CLUSTER" ] && hpcq-local stop "$CLUSTER" >/dev/null 2>&1
    hosts_cleanup
    if [ "$test_failures" -eq 0 ] || [ -n "${CI:-}" ]; then
        rm -rf "$TEST_ROOT"
    else
        echo "# left for inspection: $TEST_ROOT"
    fi
}
trap test_cleanup EXIT

say() { echo "# $*"; }

test_expect_success() {
    local desc=$1 body=$2 out
    test_count=$((test_count + 1))
    out=$TEST_ROOT/out.$test_count
    if (eval "$body") >"$out" 2>&1; then
        echo "ok $test_count - $desc"
    else
        test_failures=$((test_failures + 1))
        echo "not ok $test_count - $desc"
        sed -e 's/^/#   /' "$out" | tail -40
        dump_logs
    fi
}

test_skip() {
    test_count=$((test_count + 1))
    echo "ok $test_count - $1 # SKIP $2"
}

# Stop the cluster and fail if a daemon reported a sanitizer error or a
# crash (builds with --enable-sanitizers print them to DIR/*.out).
check_daemons() {
    [ -d "$CLUSTER" ] || return 0
    hpcq-local stop "$CLUSTER" >/dev/null 2>&1
    test_expect_success 'daemons reported no memory errors, undefined behaviour or leaks' '
        ! grep -l -E "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" $CLUSTER/*.out
    '
}

test_done() {
    check_daemons
    echo "1..$test_count"
    [ "$test_failures" -eq 0 ]
    exit $?
}

dump_logs() {
    local f
    for f in "$CLUSTER"/scheduler.log "$CLUSTER"/worker*.log; do
        [ -f "$f" ] || continue
        echo "#   --- $(basename "$f") (last lines)"
        tail -8 "$f" | sed -e 's/^/#   /'
    done
}

# cluster_start N [hpcq-local options]: a scheduler and N workers.
cluster_start() {
    local n=$1; shift
    local line
    line=$(hpcq-local start "$CLUSTER" --workers "$n" "$@") || {
        echo "Bail out! hpcq-local start failed"; exit 1; }
    eval "$line"
}

cluster_stop() { hpcq-local stop "$CLUSTER"; }

# wait_until SECONDS COMMAND...: poll until COMMAND succeeds.
wait_until() {
    local deadline=$(( $(date +%s) + $1 )); shift
    until "$@"; do
        if [ "$(date +%s)" -ge "$deadline" ]; then
            echo "timed out waiting for: $*" >&2
            return 1
        fi
        sleep 0.05
    done
}

# An attribute of a job from qstat -f -x (first line only).
job_attr() { qstat -f -1 -x "$1" 2>/dev/null | sed -n "s/^    $2 = //p" | head -1; }

job_state() { job_attr "$1" job_state; }

has_state() { [ "$(job_state "$1")" = "$2" ]; }

# wait_state ID STATE [SECONDS]
wait_state() { wait_until "${3:-30}" has_state "$1" "$2"; }

# Sequence number of a job id ("12.host" -> 12).
seqno() { echo "${1%%.*}"; }

# True when the daemons are built with sanitizers (several times slower):
# tests that time the daemons scale their load down then.
sanitized() { ldd "$(command -v hpcq-scheduler)" 2>/dev/null | grep -qE 'lib(a|ub)san'; }

# sqlite3 on the scheduler's database (read-only queries); hpcq-local keeps
# it in DIR/state, private to the cluster's user.
db_query() { sqlite3 -batch -noheader "$CLUSTER/state/hpcq.sqlite" "$@"; }

# other_users_setup CMD...: let other users reach the cluster (the test's
# folder is opened to them) and set other_users=yes if "as_user nobody CMD"
# works here (not in every container).  as_user USER CMD... runs CMD as
# USER, in a folder everyone may write.
other_users_setup() {
    chmod 755 "$TEST_ROOT"
    PUB=$TEST_ROOT/pub
    mkdir -p "$PUB" && chmod 1777 "$PUB"
    other_users=yes
    as_user nobody "$@" >/dev/null 2>&1 || other_users=
}
as_user() {
    local u=$1; shift
    (cd "$PUB" && setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --clear-groups "$@")
}

# Authentication (tests/t6*): the scheduler's TCP port, the tests' impostor
# tools (wire_client speaks the wire, e.g. to tcp:127.0.0.1:PORT; wire-sign
# puts a MUNGE credential of whoever runs it on a message) and the frames a
# worker sends.  cluster_start exports HPCQ_MUNGE_SOCKET, the cluster's munged.
export WIRE_SIGN=$HPCQ_BUILDDIR/tests/wire-sign
sched_port() { sed -n 's/^tcp=127.0.0.1://p' "$CLUSTER/state/scheduler.address"; }
wire_client() { python3 "$HPCQ_SRCDIR/tests/wire-client.py" "$@"; }
# as_user_py USER SCRIPT ARGS...: a Python script as USER, with the
# system's python3 (a per-user one, e.g. pyenv's, may be closed to others).
as_user_py() {
    local u=$1 py=/usr/bin/python3; shift
    [ -x "$py" ] || py=python3
    as_user "$u" "$py" "$@"
}
# hello_frame NAME NCPUS [ID]: a worker's node.hello, without credential.
hello_frame() {
    printf '{"v":1,"type":"node.hello","id":%s,"cred":null,"body":{"name":"%s","ncpus":%s,"mem":1099511627776,"gpus":[],"running":[],"finished":[]}}' \
        "${3:-2}" "$1" "$2"
}
# wire_check FILE KIND N EXPR: the Nth "KIND <json>" line of a wire_client
# transcript (KIND: reply or msg), as r, satisfies the Python expression EXPR.
wire_check() {
    python3 - "$@" <<'PY'
import json, sys
path, kind, n, expr = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
lines = [l[len(kind) + 1:] for l in open(path) if l.startswith(kind + " ")]
if len(lines) < n:
    sys.exit("no %s %d in %s" % (kind, n, path))
r = json.loads(lines[n - 1])
ok = eval(expr, {"r": r})
print("%s %d: %s -> %s" % (kind, n, json.dumps(r)[:300], ok))
sys.exit(0 if ok else 1)
PY
}

# --- hosts (hpcq-local --hosts): each worker in network namespaces of its own.

# Clusters a test starts besides $CLUSTER (cluster_start_in), stopped at
# exit like it, so no namespace or bridge outlives a failed test.
extra_clusters=()

hosts_cleanup() {
    local d
    for d in "${extra_clusters[@]}"; do
        [ -d "$d" ] && hpcq-local stop "$d" >/dev/null 2>&1
    done
}

# hosts_require: skip the whole test, visibly, where --hosts cannot run.
hosts_require() {
    local why=
    if [ "$(id -u)" -ne 0 ]; then
        why="needs root (hpcq-local --hosts makes network namespaces)"
    elif ! command -v ip >/dev/null || ! command -v nsenter >/dev/null; then
        why="needs ip (iproute2) and nsenter (util-linux)"
    elif ! unshare --net --uts --mount true 2>/dev/null; then
        why="cannot make network, UTS and mount namespaces here"
    fi
    if [ -n "$why" ] && [ "$test_count" -eq 0 ]; then
        echo "1..0 # SKIP $why"
        trap - EXIT
        rm -rf "$TEST_ROOT"
        exit 0
    elif [ -n "$why" ]; then
        test_skip "the tests on hosts" "$why"
        test_done
    fi
    # A test killed by a signal still runs the EXIT trap (hosts removed).
    trap 'exit 143' TERM INT HUP
}

# cluster_start_in DIR N [hpcq-local options]: another cluster, in DIR.
cluster_start_in() {
    local dir=$1; shift
    extra_clusters+=("$dir")
    hpcq-local start "$dir" --workers "$@"
}

# on_host I CMD...: run CMD on host nodeI of $CLUSTER (0: the head).
on_host() { hpcq-local exec "$CLUSTER" "$@"; }

# qsub options that pass the sanitizers' settings (set by make check) on to
# a job, so an app built with them (hpcq-md, hpcq-climate) runs in a job as
# it runs in the test: qsub $(app_vars) ...
app_vars() {
    local v
    for v in LSAN_OPTIONS ASAN_OPTIONS UBSAN_OPTIONS; do
        [ -n "${!v:-}" ] && printf -- "-v %s " "$v"
    done
    return 0
}

# The scheduler under test was built with AddressSanitizer (time limits
# meant for a plain build are scaled for it).
built_with_asan() { ldd "$HPCQ_BUILDDIR/scheduler/hpcq-scheduler" 2>/dev/null | grep -q libasan; }
# container_prereqs DESC: rootless containers as another user (runc,
# umoci, busybox, user namespaces, nobody: other_users_setup), or every
# test skipped, DESC named, with the reason.
container_prereqs() {
    local p
    for p in runc umoci busybox; do
        command -v $p > /dev/null || skip_all "no $p (apt-get install runc umoci busybox-static)" "$1"
    done
    # Rootless runc needs unprivileged user namespaces.
    unshare --user true 2>/dev/null || skip_all "no unprivileged user namespaces here" "$1"
    # Containers are for ordinary users (rootless runc): the jobs are nobody's.
    other_users_setup true
    test -n "$other_users" || skip_all "no other user to run container jobs as" "$1"
}
# skip_all REASON DESC...: skip each planned test, visibly, and end.
skip_all() {
    local why=$1 desc; shift
    for desc in "$@"; do test_skip "$desc" "$why"; done
    test_done
}

# root_and_nobody: why the tests that need root and a second user cannot
# run here, or nothing (they can).  Call after other_users_setup.
root_and_nobody() {
    if [ "$(id -u)" -ne 0 ]; then echo "not root"
    elif [ -z "${other_users:-}" ]; then echo "cannot run commands as nobody here"
    fi
}

# containment [I]: the cgroup setup worker I logged ("cgroup v1 (...) at
# DIR"), or why it has none ("no cgroups (REASON)...").
containment() {
    wait_until 10 grep -q "containment: " "$CLUSTER/worker${1:-1}.log" &&
        sed -n 's/.*containment: //p' "$CLUSTER/worker${1:-1}.log" | head -1
}

# spot_metadata_start: a cloud's metadata service for the spot notice
# tests (tests/spot-metadata.py) on 127.0.0.1, serving from META=$WORK/meta
# on port PORT; stopped at exit.
spot_metadata_start() {
    META=$WORK/meta
    mkdir -p $META
    python3 "$HPCQ_SRCDIR/tests/spot-metadata.py" $META &
    meta_pid=$!
    trap 'kill $meta_pid 2>/dev/null; test_cleanup' EXIT
    wait_until 10 test -s $META/port || { echo "Bail out! no metadata server"; exit 1; }
    PORT=$(cat $META/port)
}

# proc_stopped PID [STATE]: the process is stopped, as a suspended job's
# are: state T (SIGSTOP), or in a frozen cgroup (v1 freezer.state FROZEN,
# v2 cgroup.events "frozen 1").  STATE: its state letter, if known.
proc_stopped() {
    local pid=$1 st=${2:-} path fz
    [ -n "$st" ] || st=$(sed -n "s/^State:\t\(.\).*/\1/p" /proc/$pid/status 2>/dev/null)
    [ "$st" = T ] && return 0
    path=$(sed -n 's/^[0-9]*:[a-z,]*freezer[a-z,]*://p' /proc/$pid/cgroup 2>/dev/null)
    fz=$(awk '$9 == "cgroup" && index("," $NF ",", ",freezer,") {print $5; exit}' /proc/self/mountinfo)
    if [ -n "$path" ] && [ -n "$fz" ]; then
        grep -qx FROZEN "$fz$path/freezer.state" 2>/dev/null
    else
        path=$(sed -n 's/^0:://p' /proc/$pid/cgroup 2>/dev/null)
        [ -n "$path" ] && grep -qx "frozen 1" "/sys/fs/cgroup$path/cgroup.events" 2>/dev/null
    fi
}

# kill9_scheduler: kill -9 the cluster's scheduler and wait until it has
# exited (a zombie init has not reaped yet counts), so that
# hpcq-local start-scheduler does not find it still running.
kill9_scheduler() {
    local pid
    pid=$(cat "$CLUSTER/scheduler.pid") && kill -9 "$pid" &&
        wait_until 10 proc_exited "$pid"
}
proc_exited() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    stat=${stat##*) }
    [ "${stat%% *}" = Z ]
}

# Replicas (hpcq-local --replicas 3): kill9 PID and wait until it is gone;
# replica I's database and the log entry it has applied; same_dumps: the
# three files at the same entry, with the same rows.  Sorted: a table
# whose primary key is not its rowid (attempts, checkpoints) keeps a
# hidden rowid of its own on each replica, which no changeset carries, so
# the order .dump writes its rows in may differ.
kill9() { kill -9 "$1" && wait_until 10 proc_exited "$1"; }
db_of() { echo "$CLUSTER/replica$1/state/hpcq.sqlite"; }
applied() { sqlite3 -batch -noheader "$(db_of "$1")" "SELECT applied_index FROM replica_state" 2>/dev/null; }
same_dumps() {
    local a b c
    a=$(applied 1) b=$(applied 2) c=$(applied 3)
    [ -n "$a" ] && [ "$a" = "$b" ] && [ "$b" = "$c" ] || return 1
    for i in 1 2 3; do sqlite3 "$(db_of $i)" .dump | sort > "$TEST_ROOT/dump.$i" || return 1; done
    cmp -s "$TEST_ROOT/dump.1" "$TEST_ROOT/dump.2" && cmp -s "$TEST_ROOT/dump.1" "$TEST_ROOT/dump.3"
}

# md_same_thermo STEP A B: hpcq-md's thermo lines of STEP in output files
# A and B (printed with --thermo-digits 17) agree to 1e-10 in every column
# (temperature, potential, total energy, pressure).
md_same_thermo() {
    local c a b
    for c in 2 3 4 5; do
        a=$(awk -v s="$1" -v c=$c '$1 == s && NF == 5 { print $c }' "$2")
        b=$(awk -v s="$1" -v c=$c '$1 == s && NF == 5 { print $c }' "$3")
        awk -v a="$a" -v b="$b" 'BEGIN { if (a == "" || b == "") exit 1; d = a - b; if (d < 0) d = -d;
            m = b < 0 ? -b : b; exit !(d <= 1e-10 * m) }' ||
            { echo "# step $1 column $c differs: '$a' '$b'"; return 1; }
    done
}

# --- fencing (tests/t507*): a job that stamps what it writes, and checks.
# The job: every 0.05 s a line "ATTEMPT TIME" into its checkpoint folder.
fence_job='while :; do echo "$HPCQ_RESTART_COUNT $(date +%s.%N)" >>"$HPCQ_CHECKPOINT_DIR/writes"; sleep 0.05; done'
fence_writes() { cat "$(ls -d $WORK/.hpcq/checkpoints/*/ | head -1)writes" 2>/dev/null; }
fence_lines() { fence_writes | awk -v a=$1 '$1 == a' | wc -l; }
fence_more() { test "$(fence_lines $1)" -gt $2; }
# One writer at a time: in file order the attempts never go back, and the
# last time of attempt 0 is before the first of attempt 1.
fence_one_writer() {
    fence_writes | awk '$1 < last { print "attempt " $1 " wrote after attempt " last; bad = 1 }
        { last = $1 } $1 == 0 { end0 = $2 } $1 == 1 && !start1 { start1 = $2 }
        END { if (!start1 || end0 >= start1) { print "attempt 0 ended " end0 ", 1 began " start1; bad = 1 }
              printf "gap %.3f s\n", start1 - end0; exit bad }'
}
# The time the fence killed job SEQ's attempt A on node N (fence.log).
fenced_at() { sed -n "s/^\([0-9.]*\) fenced job_$2\.$3: .*/\1/p" $CLUSTER/spool/$1/fence.log | head -1; }
