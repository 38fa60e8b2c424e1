#!/bin/bash
# InfiniBand: each worker reports its HCAs' ports from sysfs
# (/sys/class/infiniband/HCA/ports/N/{state,link_layer,rate}); pbsnodes
# shows them (resources_available.ib_hcas: the active InfiniBand ports),
# and a job on a node with one gets UCX_NET_DEVICES=HCA:PORT, a job on a
# node without none (UCX then picks TCP).  No InfiniBand here: node1 reads
# a fake tree in this test's folder through the worker's test hook
# (test_ib_sysfs_root); node2 reads the machine's /sys, which has no
# InfiniBand on a test machine, and the test checks that it has none.
. "$(dirname "$0")/lib.sh"

if [ -d /sys/class/infiniband ] && [ -n "$(ls /sys/class/infiniband)" ]; then
    skip_all "this machine has InfiniBand HCAs: node2 would report them" \
        "ports from sysfs" "UCX_NET_DEVICES"
fi

# The kernel's layout: "4: ACTIVE", "InfiniBand", "200 Gb/sec (4X HDR)".
fake_port() {
    local d=$WORK/sys/class/infiniband/$1/ports/$2
    mkdir -p "$d" && echo "$3" > "$d/state" && echo "$4" > "$d/link_layer" &&
        echo "$5" > "$d/rate"
}
fake_port mlx5_0 1 "4: ACTIVE" InfiniBand "200 Gb/sec (4X HDR)"
fake_port mlx5_0 2 "1: DOWN" InfiniBand "10 Gb/sec (4X SDR)"
fake_port mlx5_1 1 "4: ACTIVE" Ethernet "100 Gb/sec (4X EDR)"

cluster_start 2 --cpus-per-worker 1 --worker-conf 1 "test_ib_sysfs_root = $WORK/sys"

test_expect_success 'pbsnodes: node1 has its active InfiniBand port, and every port listed' '
    pbsnodes -a node1 > n1 && cat n1 &&
    grep -qx "     resources_available.ib_hcas = mlx5_0:1" n1 &&
    grep -qx "     ib.mlx5_0:1 = ACTIVE InfiniBand 200 Gb/sec (4X HDR)" n1 &&
    grep -qx "     ib.mlx5_0:2 = DOWN InfiniBand 10 Gb/sec (4X SDR)" n1 &&
    grep -qx "     ib.mlx5_1:1 = ACTIVE Ethernet 100 Gb/sec (4X EDR)" n1
'

test_expect_success 'pbsnodes: node2 (no InfiniBand) has none; -F json has the record' '
    pbsnodes -a node2 > n2 && ! grep -q "ib" n2 &&
    pbsnodes -F json node1 > j1 &&
    test "$(jq -r ".nodes[0].ib_hcas" j1)" = mlx5_0:1 &&
    test "$(jq -r ".nodes[0].ib[1].state" j1)" = DOWN
'

cat > env.sh <<'S'
#!/bin/sh
echo "node=$HPCQ_NODE ucx=${UCX_NET_DEVICES-unset}"
S

test_expect_success 'a job on node1 gets UCX_NET_DEVICES=mlx5_0:1' '
    id=$(qsub -l select=1:ncpus=1:host=node1 -o e1.out env.sh) &&
    wait_state $id F 30 && grep -qx "node=node1 ucx=mlx5_0:1" e1.out
'

test_expect_success 'a job on node2 gets no UCX_NET_DEVICES (UCX picks TCP)' '
    id=$(qsub -l select=1:ncpus=1:host=node2 -o e2.out env.sh) &&
    wait_state $id F 30 && grep -qx "node=node2 ucx=unset" e2.out
'

test_expect_success 'the job'\''s own -v UCX_NET_DEVICES wins' '
    id=$(qsub -v UCX_NET_DEVICES=mlx5_9:1 -l select=1:ncpus=1:host=node1 -o e3.out env.sh) &&
    wait_state $id F 30 && grep -qx "node=node1 ucx=mlx5_9:1" e3.out
'

test_expect_success 'a port that goes down is gone after the worker reconnects' '
    echo "1: DOWN" > $WORK/sys/class/infiniband/mlx5_0/ports/1/state &&
    pid=$(cat "$CLUSTER/worker1.pid") && kill $pid &&
    wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" &&
    hpcq-local start-worker "$CLUSTER" 1 &&
    wait_until 20 sh -c "pbsnodes -a node1 | grep -q \"ib.mlx5_0:1 = DOWN\"" &&
    pbsnodes -a node1 | grep -qx "     resources_available.ib_hcas = "
'

test_done
