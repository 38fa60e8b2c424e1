#!/bin/bash
# hpcq-local --hosts: stop removes every namespace, veth and bridge it made,
# even after kill -9 of the daemons; clusters run side by side on subnets
# and names of their own; a requested subnet that collides is refused.
. "$(dirname "$0")/lib.sh"

hosts_require

# Every object a cluster's DIR/net/made lists is gone from the machine.
all_gone() {
    local kind name
    while read -r kind name; do
        case $kind in
        netns) ! test -e "/run/netns/$name" || { echo "netns $name left" >&2; return 1; } ;;
        *) ! ip link show "$name" >/dev/null 2>&1 || { echo "link $name left" >&2; return 1; } ;;
        esac
    done < "$1"
}

gone() { ! kill -0 "$1" 2>/dev/null; }

cluster_start 2 --cpus-per-worker 1 --hosts
cp "$CLUSTER/net/made" made1

cat > tree.sh <<'S'
#!/bin/bash
sleep 300 &
echo $! > "$PBS_O_WORKDIR/child"
wait
S

test_expect_success 'made lists the bridge, and a namespace and a veth per host' '
    test "$(grep -c "^bridge " made1)" -eq 1 && test "$(grep -c "^netns " made1)" -eq 2 &&
    test "$(grep -c "^veth " made1)" -eq 2 &&
    while read -r kind name; do
        test ${#name} -le 15 || test $kind = netns || exit 1
    done < made1
'

test_expect_success 'after kill -9 of every daemon, stop removes the hosts and what ran on them' '
    id=$(qsub -l select=2:ncpus=1 tree.sh) && wait_state $id R &&
    wait_until 20 test -s child && child=$(cat child) && kill -0 $child &&
    kill -9 $(cat "$CLUSTER"/*.pid) &&
    hpcq-local stop "$CLUSTER" &&
    all_gone made1 && wait_until 10 gone $child &&
    test ! -e "$CLUSTER/net"
'

test_expect_success 'stop again, and stop of a cluster never started with hosts, do nothing' '
    hpcq-local stop "$CLUSTER" && all_gone made1
'

test_expect_success 'start cleans up hosts a dead cluster left, then makes new ones' '
    e=$TEST_ROOT/e &&
    cluster_start_in $e 2 --cpus-per-worker 1 --hosts > /dev/null &&
    cp $e/net/made made2 &&
    pids=$(cat $e/*.pid) && kill -9 $pids &&
    for p in $pids; do wait_until 10 gone $p || exit 1; done &&
    eval "$(cluster_start_in $e 2 --cpus-per-worker 1 --hosts)" &&
    all_gone made2 &&
    id=$(echo hostname | qsub -o h.out -j oe) && wait_state $id F && grep -q "^node[12]$" h.out &&
    hpcq-local stop $e
'

cluster_start 2 --cpus-per-worker 1 --hosts

test_expect_success 'two clusters started at once get their own subnets and names' '
    cluster_start_in "$TEST_ROOT/a" 2 --cpus-per-worker 1 --hosts > a.env &
    cluster_start_in "$TEST_ROOT/b" 2 --cpus-per-worker 1 --hosts > b.env &
    wait %1 && wait %2 &&
    sa=$(sed -n "s/^subnet=//p" "$TEST_ROOT/a/net/cluster") &&
    sb=$(sed -n "s/^subnet=//p" "$TEST_ROOT/b/net/cluster") &&
    sc=$(sed -n "s/^subnet=//p" "$CLUSTER/net/cluster") &&
    test "$sa" != "$sb" && test "$sa" != "$sc" && test "$sb" != "$sc" &&
    test -z "$(sort "$TEST_ROOT"/a/net/made "$TEST_ROOT"/b/net/made "$CLUSTER"/net/made | uniq -d)" &&
    for c in a b; do
        (eval "$(cat $c.env)" && id=$(echo hostname | qsub -o $c.out -j oe) &&
         wait_state $id F && grep -q "^node[12]$" $c.out) || exit 1
    done
'

extra_clusters+=("$TEST_ROOT/d")
test_expect_success 'a requested subnet that collides is refused in one line, nothing made' '
    sa=$(sed -n "s/^subnet=//p" "$TEST_ROOT/a/net/cluster") &&
    rc=0; hpcq-local start "$TEST_ROOT/d" --workers 1 --hosts --subnet "$sa" 2>err || rc=$?
    test $rc -eq 1 && test "$(wc -l < err)" -eq 1 && grep -q "overlaps" err &&
    test ! -e "$TEST_ROOT/d/net" && test ! -e "$TEST_ROOT/d/scheduler.conf" &&
    test "$(ip -4 -o addr show | grep -c " ${sa%.*}\\.")" -eq 1
'

test_expect_success 'bad or public subnets are refused' '
    ! hpcq-local start "$TEST_ROOT/d" --workers 1 --hosts --subnet 10.1.2 2>err &&
    grep -q "invalid --subnet" err &&
    ! hpcq-local start "$TEST_ROOT/d" --workers 1 --hosts --subnet 8.8.8.0/24 2>err &&
    grep -q "not in a private range" err &&
    ! hpcq-local start "$TEST_ROOT/d" --workers 9 --hosts --subnet 10.99.0.0/29 2>err &&
    grep -q "too small" err
'

test_expect_success 'an explicit free subnet is used' '
    eval "$(hpcq-local start "$TEST_ROOT/d" --workers 1 --hosts --subnet 192.168.213.0/28)" &&
    grep -qx "subnet=192.168.213.0/28" "$TEST_ROOT/d/net/cluster" &&
    grep -q "^listen = 192.168.213.1:" "$TEST_ROOT/d/scheduler.conf" &&
    test "$(hpcq-local exec "$TEST_ROOT/d" 1 hostname)" = node1
'

test_expect_success 'stopping them all leaves nothing' '
    cat "$TEST_ROOT"/a/net/made "$TEST_ROOT"/b/net/made "$TEST_ROOT"/d/net/made \
        "$CLUSTER"/net/made > made.all &&
    hpcq-local stop "$TEST_ROOT/a" && hpcq-local stop "$TEST_ROOT/b" &&
    hpcq-local stop "$TEST_ROOT/d" && hpcq-local stop "$CLUSTER" &&
    all_gone made.all
'

test_done
