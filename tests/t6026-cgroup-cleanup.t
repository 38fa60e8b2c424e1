#!/bin/bash
# Job cgroups leave nothing behind: a worker killed with its jobs running
# has them killed and their cgroups removed by the next worker; stopping a
# worker removes its folders; two clusters on one host, both with a node1,
# keep apart (cgroup_prefix); a worker without cgroups says so, once.
. "$(dirname "$0")/lib.sh"

gone() { ! kill -0 "$1" 2>/dev/null || grep -q '^State:.*Z' /proc/$1/status 2>/dev/null; }
freezer_dir() { awk '$9 == "cgroup" && index("," $NF ",", ",freezer,") {print $5; exit}' /proc/self/mountinfo; }

cluster_start 1 --cpus-per-worker 2
cg=$(containment)
say "worker: ${cg:-(no containment line in its log)}"
case $cg in
"cgroup v1"*) ;;
*) skip_all "${cg:-no cgroup v1 here}" \
    "a killed worker's job: the next worker kills it and removes its cgroup" \
    "a second worker with the same config leaves the first one's jobs alone" \
    "stopping a worker removes its cgroup folders" \
    "two clusters on one host, both with a node1, do not share cgroups" \
    "a worker without cgroups says so once, and still runs jobs" ;;
esac
prefix=$(sed -n 's/^cgroup_prefix = //p' $CLUSTER/worker1.conf)
FREEZER=$(freezer_dir)

test_expect_success "a killed worker's job: the next worker kills it and removes its cgroup" '
    id=$(printf "setsid sleep 300 &\necho \$! > left.pid\nsleep 300\n" | qsub) &&
    wait_until 20 test -s left.pid && pid=$(cat left.pid) &&
    dir=$FREEZER/$prefix/node1/job_$(seqno $id).1 && test -d $dir &&
    w=$(cat $CLUSTER/worker1.pid) && kill -KILL $w && wait_until 10 gone $w &&
    kill -0 $pid &&
    hpcq-local start-worker $CLUSTER 1 &&
    grep -q "killed 1 job sessions left by a previous worker" $CLUSTER/worker1.log &&
    wait_until 10 gone $pid && test ! -e $dir
'

test_expect_success "a second worker with the same config leaves the first one's jobs alone" '
    id=$(echo "sleep 300" | qsub) && wait_state $id R &&
    wait_until 10 grep -q "job $id started" $CLUSTER/worker1.log || exit 1
    hpcq-worker --config $CLUSTER/worker1.conf --spool $TEST_ROOT/spool-dup \
        --log-file $TEST_ROOT/dup.log > dup.out 2>&1 &
    dup=$!
    wait_until 15 grep -q "containment: no cgroups (.* is in use by another live worker" \
        $TEST_ROOT/dup.log; rc=$?
    kill $dup; wait $dup
    test $rc = 0 && sleep 1 && test "$(job_state $id)" = R && qdel $id && wait_state $id F
'

test_expect_success "stopping a worker removes its cgroup folders" '
    id=$(echo "sleep 300" | qsub) && wait_state $id R &&
    test -d $FREEZER/$prefix/node1 &&
    cluster_stop && test ! -e $FREEZER/$prefix &&
    ! find /sys/fs/cgroup -maxdepth 6 -name "$prefix" | grep -q .
'

# Two clusters at once, each with a node1.
CLUSTER=$TEST_ROOT/a
cluster_start 1 --cpus-per-worker 2
A=$HPCQ_SERVER
CLUSTER=$TEST_ROOT/b
cluster_start 1 --cpus-per-worker 2
B=$HPCQ_SERVER

test_expect_success "two clusters on one host, both with a node1, do not share cgroups" '
    a=$(echo "grep freezer /proc/self/cgroup; sleep 2" | HPCQ_SERVER=$A qsub -o a.out) &&
    b=$(echo "grep freezer /proc/self/cgroup; sleep 2" | HPCQ_SERVER=$B qsub -o b.out) &&
    HPCQ_SERVER=$A wait_state $a F && HPCQ_SERVER=$B wait_state $b F &&
    test "$(seqno $a)" = "$(seqno $b)" && cat a.out b.out &&
    pa=$(sed -n "s/^cgroup_prefix = //p" $TEST_ROOT/a/worker1.conf) &&
    pb=$(sed -n "s/^cgroup_prefix = //p" $TEST_ROOT/b/worker1.conf) &&
    test "$pa" != "$pb" &&
    grep -q "/$pa/node1/job_$(seqno $a)\.1$" a.out &&
    grep -q "/$pb/node1/job_$(seqno $b)\.1$" b.out
'
hpcq-local stop $TEST_ROOT/a >/dev/null
cluster_stop >/dev/null

CLUSTER=$TEST_ROOT/off
cluster_start 1 --cpus-per-worker 2 --worker-conf 1 'cgroup = off'

test_expect_success "a worker without cgroups says so once, and still runs jobs" '
    test "$(grep -c "containment: no cgroups (cgroup = off)" $CLUSTER/worker1.log)" = 1 &&
    id=$(echo true | qsub) && wait_state $id F && test "$(job_attr $id Exit_status)" = 0
'

test_done
