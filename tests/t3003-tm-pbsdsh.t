#!/bin/bash
# Remote launch through the workers (PBS's TM, no ssh): pbsdsh and
# pbs_tmrsh inside a job on hosts of their own (network namespaces).  The
# mother superior's worker asks the other hosts' workers over TCP with
# MUNGE; the processes run as the job's owner, in the job's environment
# and cgroup, their streams and exit status come back, and none outlives
# the job.
. "$(dirname "$0")/lib.sh"

hosts_require
cluster_start 4 --cpus-per-worker 2 --hosts

# host_of PID: the cluster host (nodeI) whose UTS namespace PID is in (the
# hosts share the process table: only their namespaces tell them apart).
host_of() {
    local ns i
    ns=$(readlink /proc/$1/ns/uts) || return 1
    for i in 1 2 3 4; do
        [ "$(readlink /proc/$(cat "$CLUSTER/worker$i.pid")/ns/uts)" = "$ns" ] &&
            { echo node$i; return 0; }
    done
    return 1
}

# A job that waits for a file: its processes can be looked at meanwhile.
cat > dsh.sh <<'S'
#!/bin/bash
pbsdsh hostname > "$OUT.hosts"
pbsdsh -v -n 2 -- sh -c 'echo "vnode=$PBS_VNODENUM node=$HPCQ_NODE job=$PBS_JOBID user=$(id -un)"' > "$OUT.n2" 2> "$OUT.v"
pbsdsh -c 6 -s hostname > "$OUT.c6"
pbs_tmrsh node3 'echo to-stderr >&2; exit 7' 2> "$OUT.err"; echo "rc=$?" > "$OUT.rc"
echo "some input" | pbs_tmrsh node4 tr a-z A-Z > "$OUT.stdin"
pbs_tmrsh node2 'head -c 3000000 /dev/zero' | wc -c > "$OUT.big"
pbs_tmrsh node9 true 2> "$OUT.bad"; echo "rc=$?" >> "$OUT.bad"
pbsdsh -o -n 3 sleep 1000
touch "$OUT.ready"
while [ ! -e "$OUT.go" ]; do sleep 0.1; done
S

test_expect_success 'pbsdsh hostname on a 4-host job prints the 4 hostnames' '
    qsub -v OUT=$WORK/d -l select=4:ncpus=1,place=scatter -o d.out -j oe dsh.sh > d.id &&
    wait_until 60 test -e d.ready &&
    sort d.hosts > hosts && test "$(cat hosts)" = "$(printf "node1\nnode2\nnode3\nnode4")"
'

test_expect_success 'pbsdsh -n: one copy, on that vnode, in the job environment; -v says so' '
    grep -qx "vnode=2 node=node3 job=$(cat d.id) user=$(id -un)" d.n2 &&
    grep -q "spawned task 0 on logical node 2 (node3)" d.v &&
    grep -q "exited with status 0" d.v
'

test_expect_success 'pbsdsh -c 6 -s: six copies, round the vnodes' '
    test "$(wc -l < d.c6)" -eq 6 &&
    test "$(sort d.c6 | uniq -c | sort -rn | head -1 | awk "{print \$1}")" -eq 2
'

test_expect_success 'pbs_tmrsh: stderr and the exit status come back; stdin goes' '
    grep -qx to-stderr d.err && grep -qx "rc=7" d.rc &&
    grep -qx "SOME INPUT" d.stdin && grep -qx 3000000 d.big
'

test_expect_success 'pbs_tmrsh to a host outside the job: one error line, 255' '
    grep -q "node9 is not a host of job" d.bad && grep -qx "rc=255" d.bad
'

test_expect_success 'a detached pbsdsh -o process runs on node4 as the job owner, in its cgroup' '
    pid=$(pgrep -x -f "sleep 1000") && test -n "$pid" && test "$(host_of $pid)" = node4 &&
    test "$(stat -c %U /proc/$pid)" = "$(id -un)" &&
    if [ -d /sys/fs/cgroup ] && grep -q "job_$(seqno $(cat d.id))" /proc/$pid/cgroup; then :;
    else grep -q "cgroup.*off\|without cgroups" "$CLUSTER/worker4.log"; fi
'

test_expect_success 'the job ends: no process of it is left on any host' '
    id=$(cat d.id) && touch d.go && wait_state $id F 30 &&
    test "$(job_attr $id Exit_status)" = 0 &&
    wait_until 10 sh -c "! pgrep -x -f \"sleep 1000\" >/dev/null"
'

test_expect_success 'qdel of a 4-host job leaves no process of it on any host' '
    id=$(echo "pbsdsh sleep 997" | qsub -l select=4:ncpus=1,place=scatter -o q.out -j oe) &&
    wait_until 30 sh -c "test \$(pgrep -x -fc \"sleep 997\") -ge 4" &&
    for p in $(pgrep -x -f "sleep 997"); do host_of $p; done | sort > q.hosts &&
    test "$(cat q.hosts)" = "$(printf "node1\nnode2\nnode3\nnode4")" &&
    qdel $id && wait_state $id F 30 &&
    wait_until 10 sh -c "! pgrep -x -f \"sleep 997\" >/dev/null"
'

test_expect_success 'CPU time of remote processes counts in resources_used.cput' '
    cat > burn.sh <<-\S &&
	#!/bin/bash
	pbs_tmrsh node2 "awk \"BEGIN { for (i = 0; i < 1.5e8; i++) s += i }\""
	S
    id=$(qsub -l select=2:ncpus=1,place=scatter -o burn.out -j oe burn.sh) &&
    wait_state $id F 120 && test "$(job_attr $id Exit_status)" = 0 &&
    cput=$(job_attr $id resources_used.cput) && echo "cput $cput" &&
    test "$(echo $cput | awk -F: "{ print \$1 * 3600 + \$2 * 60 + \$3 }")" -ge 2
'

# Another user's job: its processes on every host are that user's.
other_users_setup
if as_user nobody true 2>/dev/null && [ "$(id -u)" -eq 0 ]; then
    test_expect_success 'a job of nobody: pbsdsh runs as nobody on each host' '
        chmod 755 "$CLUSTER" &&
        printf "#!/bin/sh\npbsdsh -- /bin/sh -c '\''echo \$(id -un)@\$(hostname)'\''\n" > "$PUB/u.sh" &&
        as_user nobody qsub -l select=4:ncpus=1,place=scatter -o "$PUB/u.out" -j oe "$PUB/u.sh" > u.id &&
        wait_state $(cat u.id) F 60 && cat "$PUB/u.out" &&
        test "$(sort "$PUB/u.out")" = "$(printf "nobody@node1\nnobody@node2\nnobody@node3\nnobody@node4")"
    '
else
    test_skip 'a job of nobody: pbsdsh runs as nobody on each host' 'cannot run as another user here'
fi

test_done
