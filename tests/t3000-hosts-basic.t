#!/bin/bash
# hpcq-local --hosts: each worker on a host of its own (network, UTS and
# mount namespaces), a bridge between them; jobs see their host's name and
# reach each other and the scheduler by the cluster's names, nothing else.
. "$(dirname "$0")/lib.sh"

# Without root --hosts is refused in one line, exit 2: as this user, or
# as nobody when the test runs as root.
if [ "$(id -u)" -ne 0 ]; then
    test_expect_success 'not root: --hosts says it needs root, in one line, exit 2' '
        rc=0; hpcq-local start "$TEST_ROOT/nr" --workers 1 --hosts 2>err || rc=$?
        test $rc -eq 2 && test "$(wc -l < err)" -eq 1 && grep -q "needs root" err &&
        test ! -e "$TEST_ROOT/nr/net"
    '
else
    other_users_setup true
    if [ -n "$other_users" ]; then
        test_expect_success 'not root: --hosts says it needs root, in one line, exit 2' '
            rc=0; as_user nobody hpcq-local start "$PUB/nr" --workers 1 --hosts 2>err || rc=$?
            test $rc -eq 2 && test "$(wc -l < err)" -eq 1 && grep -q "needs root" err &&
            test ! -e "$PUB/nr/net"
        '
    else
        test_skip 'not root: --hosts says it needs root' 'cannot run as another user here'
    fi
fi

hosts_require
etc_hosts=$(md5sum < /etc/hosts)
cluster_start 3 --cpus-per-worker 2 --hosts

subnet=$(sed -n "s/^subnet=//p" "$CLUSTER/net/cluster")
head=$(sed -n "s/^head=//p" "$CLUSTER/net/cluster")
port=$(sed -n "s/^tcp=$head://p" "$CLUSTER/state/scheduler.address")
say "hosts on $subnet, scheduler at $head:$port"

# 1 if $2 (an IPv4 address) is in subnet $1 (only /24 and larger here).
in_subnet() {
    local net=${1%/*} p=${1#*/} a b
    a=$(echo "$net" | awk -F. "{ print \$1 * 16777216 + \$2 * 65536 + \$3 * 256 + \$4 }")
    b=$(echo "$2" | awk -F. "{ print \$1 * 16777216 + \$2 * 65536 + \$3 * 256 + \$4 }")
    [ $(( a >> (32 - p) )) -eq $(( b >> (32 - p) )) ]
}

test_expect_success 'the scheduler listens on the bridge; workers registered from their hosts' '
    in_subnet "$subnet" "$head" && test -n "$port" &&
    grep -q "^listen = $head:$port$" "$CLUSTER/scheduler.conf" &&
    pbsnodes -a > nodes && test "$(grep -c "state = free" nodes)" -eq 3 &&
    for i in 1 2 3; do grep -q "^node$i$" nodes || exit 1; done
'

test_expect_success 'each host has its own hostname, address and loopback' '
    for i in 1 2 3; do
        test "$(on_host $i hostname)" = node$i || exit 1
        addr=$(on_host $i ip -4 -o addr show dev eth0 | awk "{ print \$4 }") &&
        in_subnet "$subnet" "${addr%/*}" &&
        on_host $i ip -o link show lo | grep -q "UP" || exit 1
    done &&
    test "$(hostname)" != node1
'

cat > where.sh <<'S'
#!/bin/bash
echo "host=$(hostname)"
echo "addr=$(ip -4 -o addr show dev eth0 | awk '{ print $4 }')"
for n in $(sort -u "$PBS_NODEFILE"); do
    echo "resolves $n $(getent hosts "$n" | awk '{ print $1 }')"
done
sleep "${HOLD:-0}"     # overlap with the others, so each has a node of its own
S

test_expect_success 'jobs on different hosts print their own hostname, as exec_host says' '
    for k in 1 2 3; do qsub -v HOLD=3 -l select=1:ncpus=2 -o w$k.out -j oe where.sh > id$k || exit 1; done &&
    for k in 1 2 3; do wait_state $(cat id$k) F || exit 1; done &&
    for k in 1 2 3; do
        h=$(sed -n "s/^host=//p" w$k.out) &&
        test "$(job_attr $(cat id$k) exec_host)" = "$h/0*2" || exit 1
        echo $h
    done | sort -u > hosts && test "$(cat hosts)" = "$(printf "node1\nnode2\nnode3")"
'

test_expect_success 'a 3-host job: PBS_NODEFILE names the hosts, each resolves to its address' '
    id=$(qsub -l select=3:ncpus=1,place=scatter -o all.out -j oe where.sh) &&
    wait_state $id F && test "$(job_attr $id Exit_status)" = 0 &&
    for i in 1 2 3; do
        want=$(on_host $i ip -4 -o addr show dev eth0 | awk "{ print \$4 }") &&
        grep -qx "resolves node$i ${want%/*}" all.out || exit 1
    done &&
    test "$(job_attr $id exec_host)" = "node1/0*1+node2/0*1+node3/0*1"
'

# A TCP server in one job and a client in another, on another host.
cat > serve.py <<'S'
import os, socket, sys
s = socket.socket()
s.bind(("0.0.0.0", 0))
s.listen(1)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%s %d\n" % (socket.gethostname(), s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.settimeout(60)
c, peer = s.accept()
c.sendall(("hello from %s to %s\n" % (socket.gethostname(), peer[0])).encode())
c.close()
S

cat > connect.sh <<'S'
#!/bin/bash
# connect.sh HOST PORT: print what the server there says, then where we are.
exec 3<>"/dev/tcp/$1/$2" || exit 1
cat <&3
hostname
S
chmod +x connect.sh

test_expect_success 'jobs on two hosts reach each other by name (TCP)' '
    rm -f ready &&
    srv=$(echo "/usr/bin/python3 $WORK/serve.py $WORK/ready" |
          qsub -l select=1:ncpus=2 -o srv.out -j oe) &&
    wait_until 30 test -f ready &&
    read -r shost sport < ready &&
    cli=$(echo "$WORK/connect.sh $shost $sport" | qsub -l select=1:ncpus=2 -o cli.out -j oe) &&
    wait_state $cli F && wait_state $srv F &&
    test "$(job_attr $cli Exit_status)" = 0 &&
    chost=$(tail -1 cli.out) && test "$chost" != "$shost" &&
    said=$(sed -n 1p cli.out) &&
    echo "$said" | grep -Eq "^hello from $shost to [0-9.]+$" &&
    test "${said##* }" = "$(on_host ${chost#node} ip -4 -o addr show dev eth0 | awk "{ print \$4 }" | cut -d/ -f1)"
'

test_expect_success 'a job reaches the scheduler on the bridge, and the head by name' '
    id=$(echo "bash -c \"exec 3<>/dev/tcp/$head/$port\" && echo connected; getent hosts hpcq-head" |
         qsub -o sch.out -j oe) &&
    wait_state $id F && grep -qx connected sch.out &&
    grep -q "^$head .*hpcq-head" sch.out
'

test_expect_success 'a host has no route off the cluster: only its subnet and loopback' '
    id=$(echo "ip -4 route; ip route get 1.1.1.1 && echo ROUTED" | qsub -o rt.out -j oe) &&
    wait_state $id F && ! grep -q ROUTED rt.out && ! grep -q "^default" rt.out &&
    grep -q "^${subnet} dev eth0" rt.out
'

test_expect_success 'the machine keeps its /etc/hosts and hostname; hosts see the cluster file' '
    test "$(md5sum < /etc/hosts)" = "$etc_hosts" &&
    on_host 2 cat /etc/hosts | grep -q "node3$" &&
    ! grep -q "node3$" /etc/hosts &&
    on_host 0 getent hosts node2 | grep -q node2
'

test_expect_success 'a restarted worker comes back on its host, with its name' '
    pid=$(cat "$CLUSTER/worker2.pid") && kill -9 $pid &&
    wait_until 10 eval "! kill -0 $pid 2>/dev/null" &&
    hpcq-local start-worker "$CLUSTER" 2 &&
    id=$(echo "hostname; sleep 2" | qsub -l select=1:ncpus=2 -o re.out -j oe) &&
    id2=$(echo "hostname; sleep 2" | qsub -l select=1:ncpus=2 -o re2.out -j oe) &&
    id3=$(echo "hostname; sleep 2" | qsub -l select=1:ncpus=2 -o re3.out -j oe) &&
    wait_state $id F && wait_state $id2 F && wait_state $id3 F &&
    cat re.out re2.out re3.out | sort | tr "\n" " " | grep -qx "node1 node2 node3 "
'

test_done
