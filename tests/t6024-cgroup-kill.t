#!/bin/bash
# Kill and walltime go through the job's cgroup, so nothing escapes by
# setsid or a double fork (finding 10 of issue 10: a "setsid sleep"
# outlived both qdel and walltime, being in neither the job's process group
# nor its session).  Once with the worker's choice (cgroup = auto: v1 on a
# host whose controllers are in v1) and once with cgroup = v2 (a hybrid
# host mounts it too, without controllers: kill and freeze still work
# there).  Needs root and a hierarchy; skips, saying why, where the worker
# says it has none.
. "$(dirname "$0")/lib.sh"

gone() { ! kill -0 "$1" 2>/dev/null || grep -q '^State:.*Z' /proc/$1/status 2>/dev/null; }

# The script (sleeping for $1 seconds, 300 by default) leaves a process in
# a new session, and another one a double fork away from it, and records
# where it runs.
cat > escape.sh <<'S'
#!/bin/sh
cat /proc/self/cgroup > "cg.$PBS_JOBID"
setsid sleep 300 &
echo $! > "setsid.$PBS_JOBID"
setsid sh -c 'sleep 301 & echo $! > "double.$PBS_JOBID"' &
sleep ${1:-300}
S
chmod 755 escape.sh

# cgroup_dirs ID: the job's cgroup directories, from what it recorded.
cgroup_dirs() {
    local line ctrl path
    for line in $(grep job_ cg.$1 | cut -d: -f2,3); do
        ctrl=${line%%:*}; path=${line#*:}
        if [ -z "$ctrl" ]; then
            echo "$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)$path"
        else
            awk -v c="$ctrl" '$9 == "cgroup" && index("," $NF ",", "," c ",") {print $5; exit}' \
                /proc/self/mountinfo | sed "s|\$|$path|"
        fi
    done
}

# suite MODE: the tests, on the cluster in $CLUSTER.
suite() {
    local mode=$1 cg
    cg=$(containment)
    say "cgroup = $mode: ${cg:-(no containment line in the worker log)}"
    case $cg in
    "no cgroups"*)
        for t in 'a job runs in its own cgroup, PREFIX/NODE/job_SEQ.ATTEMPT' \
            'qdel: a setsid escapee and a double-forked one are gone' \
            'walltime: a setsid escapee is gone' \
            'a setsid escapee does not outlive a job that ends by itself' \
            "the job's cgroup is removed after it"; do
            test_skip "$mode: $t" "$cg"
        done
        return ;;
    esac
    [ "$mode" = v2 ] && line='^0::' || line='^[0-9]+:[a-z,]*freezer[a-z,]*:'

    test_expect_success "$mode: a job runs in its own cgroup, PREFIX/NODE/job_SEQ.ATTEMPT" '
        id=$(qsub escape.sh) && wait_until 20 test -s double.$id && cat cg.$id &&
        grep -Eq "$line/(.*/)?hpcq-local\.[0-9]+/node1/job_$(seqno $id)\.1$" cg.$id &&
        echo $id > qdel_job
    '

    test_expect_success "$mode: qdel: a setsid escapee and a double-forked one are gone" '
        id=$(cat qdel_job) && s=$(cat setsid.$id) && d=$(cat double.$id) &&
        kill -0 $s && kill -0 $d &&
        qdel $id && wait_state $id F 30 &&
        wait_until 10 gone $s && wait_until 10 gone $d
    '

    test_expect_success "$mode: walltime: a setsid escapee is gone" '
        id=$(qsub -l walltime=2 escape.sh) && wait_until 20 test -s double.$id &&
        s=$(cat setsid.$id) && kill -0 $s &&
        wait_state $id F 30 && test "$(job_attr $id Exit_status)" = -29 &&
        wait_until 10 gone $s && wait_until 10 gone $(cat double.$id)
    '

    test_expect_success "$mode: a setsid escapee does not outlive a job that ends by itself" '
        id=$(printf "sh escape.sh 1\n" | qsub) &&
        wait_state $id F 30 && wait_until 20 test -s setsid.$id &&
        wait_until 10 gone $(cat setsid.$id)
    '

    test_expect_success "$mode: the job's cgroup is removed after it" '
        dirs=$(cgroup_dirs $(cat qdel_job)) && echo "$dirs" && test -n "$dirs" &&
        for d in $dirs; do wait_until 10 test ! -e "$d" || return 1; done
    '
}

cluster_start 1 --cpus-per-worker 2 --kill-delay 1
suite auto
cluster_stop >/dev/null
rm -f cg.* setsid.* double.* qdel_job

CLUSTER=$TEST_ROOT/c2
cluster_start 1 --cpus-per-worker 2 --kill-delay 1 --worker-conf 1 'cgroup = v2'
suite v2

test_done
