#!/bin/bash
# Node health checks (health_check_program, health_check_interval): a
# failing check (non-zero exit, or a line starting ERROR) takes the node
# offline with its text as the reason; a passing one brings it back, but
# only if the check had taken it out; a program that cannot be run is one
# line in the worker's log and changes nothing.
. "$(dirname "$0")/lib.sh"

check=$TEST_ROOT/check.sh
cat > "$check" <<EOF
#!/bin/sh
# The test's health check: its verdict is whatever $TEST_ROOT/verdict says.
test -f $TEST_ROOT/verdict || exit 0
. $TEST_ROOT/verdict
EOF
chmod 755 "$check"
cp "$check" "$TEST_ROOT/not-executable.sh" && chmod 644 "$TEST_ROOT/not-executable.sh"

cluster_start 2 --cpus-per-worker 1 \
    --worker-conf 1 "health_check_program = $check" --worker-conf 1 'health_check_interval = 1' \
    --worker-conf 2 "health_check_program = $TEST_ROOT/not-executable.sh" \
    --worker-conf 2 'health_check_interval = 1'

node_attr() { pbsnodes "$1" | sed -n "s/^     $2 = //p"; }
is_state() { [ "$(node_attr "$1" state)" = "$2" ]; }
verdict() { printf '%s\n' "$1" > "$TEST_ROOT/verdict.tmp" && mv "$TEST_ROOT/verdict.tmp" "$TEST_ROOT/verdict"; }

test_expect_success 'a passing check leaves the node in service' '
    sleep 2 && is_state node1 free && test -z "$(node_attr node1 comment)"
'

test_expect_success 'a line starting ERROR takes it offline, the line its comment' '
    verdict "echo checking disks; echo ERROR: /scratch is full; exit 0" &&
    wait_until 15 is_state node1 offline &&
    test "$(node_attr node1 comment)" = "ERROR: /scratch is full" &&
    grep -q "node node1 taken offline by its health check: ERROR: /scratch is full" $CLUSTER/scheduler.log
'

test_expect_success 'no new job goes there' '
    j=$(echo true | qsub) && wait_state $j F && test "$(job_attr $j exec_host)" = "node2/0*1"
'

test_expect_success 'a passing check brings it back' '
    rm -f "$TEST_ROOT/verdict" && wait_until 15 is_state node1 free &&
    test -z "$(node_attr node1 comment)"
'

test_expect_success 'a non-zero exit is a failure too, with the first line said' '
    verdict "echo fan 3 stopped; exit 3" && wait_until 15 is_state node1 offline &&
    test "$(node_attr node1 comment)" = "health check exited with status 3: fan 3 stopped" &&
    rm -f "$TEST_ROOT/verdict" && wait_until 15 is_state node1 free
'

test_expect_success 'a check that runs past its time is a failure' '
    verdict "sleep 30" && wait_until 20 is_state node1 offline &&
    node_attr node1 comment | grep -q "timed out after 1 s" &&
    rm -f "$TEST_ROOT/verdict" && wait_until 15 is_state node1 free
'

test_expect_success 'a node an operator took offline stays offline, whatever the check says' '
    pbsnodes -o -C "memory test" node1 && sleep 3 && is_state node1 offline &&
    test "$(node_attr node1 comment)" = "memory test" &&
    verdict "echo ERROR: bad; exit 1" && sleep 3 && test "$(node_attr node1 comment)" = "memory test" &&
    rm -f "$TEST_ROOT/verdict" && sleep 3 && is_state node1 offline &&
    pbsnodes -r node1 && wait_until 10 is_state node1 free
'

test_expect_success 'the check'"'"'s offline survives a scheduler restart and is lifted after it' '
    verdict "echo ERROR: ib0 down" && wait_until 15 is_state node1 offline &&
    pid=$(cat $CLUSTER/scheduler.pid) && kill -9 $pid &&
    wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" && hpcq-local start-scheduler $CLUSTER &&
    wait_until 20 is_state node1 offline &&
    test "$(node_attr node1 comment)" = "ERROR: ib0 down" &&
    rm -f "$TEST_ROOT/verdict" && wait_until 15 is_state node1 free
'

test_expect_success 'a program that is not executable: one line in the log, the node unchanged' '
    sleep 3 && is_state node2 free &&
    test $(grep -c "health_check_program .*not-executable.sh cannot be run" $CLUSTER/worker2.log) = 1 &&
    grep -q "not executable" $CLUSTER/worker2.log &&
    pbsnodes -o -C "kept" node2 && sleep 3 && is_state node2 offline &&
    test "$(node_attr node2 comment)" = kept && pbsnodes -r node2 && is_state node2 free
'

test_expect_success 'a relative health_check_program stops the worker at start with one line' '
    printf "server = 127.0.0.1:1\nnode_name = w9\nspool_dir = %s/spool9\nhealth_check_program = check.sh\n" \
        "$TEST_ROOT" > $TEST_ROOT/w9.conf &&
    ! hpcq-worker --config $TEST_ROOT/w9.conf --log-file $TEST_ROOT/w9.log 2> err &&
    test $(wc -l < err) = 1 && grep -q "health_check_program must be an absolute path" err
'

test_done
