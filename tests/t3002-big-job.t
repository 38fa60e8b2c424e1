#!/bin/bash
# Jobs of any size: more than the 64 nodes an allocation once held run, a
# 100-node job on 100 workers gets a nodefile of 100 hosts (on hosts of
# their own where this runs as root), and a request larger than the
# cluster is refused with the count that falls short.
. "$(dirname "$0")/lib.sh"

# Hosts of their own where the machine allows (root, namespaces): 100
# workers in namespaces start in a few seconds and a few hundred MB.
hosts=()
if [ "$(id -u)" -eq 0 ] && unshare --net --uts --mount true 2>/dev/null; then
    hosts=(--hosts)
    trap 'exit 143' TERM INT HUP
else
    say "workers on this host only (hosts of their own need root)"
fi

cluster_start 80 --cpus-per-worker 2 "${hosts[@]}"

cat > nodes.sh <<'S'
#!/bin/bash
echo "lines $(wc -l < "$PBS_NODEFILE")"
echo "hosts $(sort -u "$PBS_NODEFILE" | wc -l)"
echo "first $(head -1 "$PBS_NODEFILE") on $(hostname)"
for h in $(sort -u "$PBS_NODEFILE"); do getent hosts "$h" | awk '{ print $1 }'; done |
    sort -u | wc -l | sed 's/^/addresses /'
S

test_expect_success '80 nodes: select=65:ncpus=1,place=scatter runs on 65 hosts' '
    id=$(qsub -l select=65:ncpus=1,place=scatter -o s65.out -j oe nodes.sh) &&
    wait_state $id F 60 && test "$(job_attr $id Exit_status)" = 0 &&
    grep -qx "lines 65" s65.out && grep -qx "hosts 65" s65.out &&
    test "$(job_attr $id exec_host | tr + "\n" | wc -l)" -eq 65
'

test_expect_success '80 nodes: select=65:ncpus=1 (two to a node) runs too' '
    id=$(qsub -l select=65:ncpus=1 -o f65.out -j oe nodes.sh) &&
    wait_state $id F 60 && test "$(job_attr $id Exit_status)" = 0 &&
    grep -qx "lines 65" f65.out
'

# qsub fails with exactly the reason given.
refused() {
    local out rc=0
    out=$(echo true | qsub -l "$1" 2>&1) || rc=$?
    echo "$out"
    test $rc -ne 0 && test "$out" = "qsub: Job exceeds server resource limits: $2"
}

test_expect_success '80 nodes: select=100 is refused with the count that falls short' '
    refused select=100:ncpus=1,place=scatter \
        "select=100:ncpus=1 place=scatter needs 100 nodes; the cluster has 80" &&
    refused select=100:ncpus=2 "select=100:ncpus=2 needs 100 nodes; the cluster has 80" &&
    refused select=161:ncpus=1 \
        "select=161:ncpus=1 needs room for 161 chunks of 1:ncpus=1; the cluster'"'"'s 80 nodes hold 160" &&
    refused select=60:ncpus=2+60:ncpus=1 \
        "select=60:ncpus=2+60:ncpus=1 needs 180 cpus; the cluster'"'"'s 80 nodes have 160" &&
    refused select=1:ncpus=3 "no node can satisfy select=1:ncpus=3 (80 nodes, largest has 2 cpus, mem=2gb, 0 gpus)"
'

test_expect_success '80 nodes: select=100:ncpus=1 packs two to a node and runs' '
    id=$(qsub -l select=100:ncpus=1 -o p100.out -j oe nodes.sh) &&
    wait_state $id F 60 && grep -qx "lines 100" p100.out && grep -qx "hosts 50" p100.out
'

cluster_stop >/dev/null
cluster_start 100 --cpus-per-worker 2 "${hosts[@]}"

test_expect_success '100 workers: a 100-node job runs, its nodefile has 100 hosts' '
    id=$(qsub -l select=100:ncpus=2:mpiprocs=2 -o n100.out -j oe nodes.sh) &&
    wait_state $id F 60 && test "$(job_attr $id Exit_status)" = 0 &&
    grep -qx "lines 200" n100.out && grep -qx "hosts 100" n100.out &&
    grep -qx "addresses 100" n100.out &&
    test "$(job_attr $id exec_host | tr + "\n" | sort -u | wc -l)" -eq 100 &&
    test "$(job_attr $id exec_vnode | tr + "\n" | grep -c "^(node[0-9]*:ncpus=2)$")" -eq 100
'

if [ ${#hosts[@]} -gt 0 ]; then
    test_expect_success '100 hosts: the job runs on its first host, by name' '
        grep -qx "first node1 on node1" n100.out
    '
fi

test_expect_success '100 workers: the allocation survives a scheduler restart' '
    id=$(echo "sleep 30" | qsub -l select=100:ncpus=1,place=scatter -o r100.out -j oe) &&
    wait_state $id R 60 &&
    kill -9 $(cat "$CLUSTER/scheduler.pid") &&
    wait_until 10 eval "! hpcq-local status \"$CLUSTER\" >/dev/null 2>&1" ;
    hpcq-local start-scheduler "$CLUSTER" &&
    wait_state $id R 30 &&
    test "$(job_attr $id exec_host | tr + "\n" | wc -l)" -eq 100 &&
    qdel $id && wait_state $id F 30
'

test_done
