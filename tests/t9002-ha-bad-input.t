#!/bin/bash
# Replica settings that are wrong get one line and a non-zero exit, and
# change nothing: a bad replica list, a replica_id outside it, a state
# folder of another cluster.  A deposed or killed leader's file is never
# served from before the log vouches for it (replica_state, migration
# 0015): checked by t9001; here, the settings.
. "$(dirname "$0")/lib.sh"

head -c 32 /dev/urandom > "$TEST_ROOT/key"; chmod 600 "$TEST_ROOT/key"
one_line() {
    local out=$TEST_ROOT/err rc
    timeout 20 hpcq-scheduler --state-dir "$TEST_ROOT/s" --socket "$TEST_ROOT/s.sock" \
        --listen 127.0.0.1:0 --log-file "$TEST_ROOT/log" ${key:+--config "$TEST_ROOT/keyconf"} "$@" \
        2> "$out" >/dev/null; rc=$?
    cat "$out"
    [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$(grep -c . "$out")" = 1 ] && grep -q "$want" "$out"
}

echo "replica_key_file = $TEST_ROOT/key" > "$TEST_ROOT/keyconf"
key=1
want="is not HOST:PORT"
test_expect_success 'a list entry without a port is refused in one line' '
    one_line --replicas "127.0.0.1:17201,nohost" --replica-id 1
'
want="has no valid port"
test_expect_success 'a port out of range is refused in one line' '
    one_line --replicas "127.0.0.1:17201,127.0.0.1:99999" --replica-id 1
'
want="listed twice"
test_expect_success 'a replica listed twice is refused in one line' '
    one_line --replicas "127.0.0.1:17201,127.0.0.1:17201" --replica-id 1
'
want="is not a place in"
test_expect_success 'a replica_id outside the list is refused in one line' '
    one_line --replicas "127.0.0.1:17201,127.0.0.1:17202,127.0.0.1:17203" --replica-id 4
'
want="replica_id is not set"
test_expect_success 'replicas without replica_id is refused in one line' '
    one_line --replicas "127.0.0.1:17201,127.0.0.1:17202,127.0.0.1:17203"
'
want="belongs to cluster 'one', not 'two'"
test_expect_success 'a state folder of another cluster is refused in one line, and kept' '
    mkdir -p "$TEST_ROOT/s/raft" && echo one > "$TEST_ROOT/s/raft/cluster_id" &&
    one_line --replicas "127.0.0.1:17201,127.0.0.1:17202,127.0.0.1:17203" --replica-id 1 \
        --cluster-id two &&
    test "$(cat "$TEST_ROOT/s/raft/cluster_id")" = one &&
    ! test -e "$TEST_ROOT/s/hpcq.sqlite"
'
key=
want="replica_key_file is not set"
test_expect_success 'replicas without a key file is refused in one line' '
    one_line --replicas "127.0.0.1:17201,127.0.0.1:17202,127.0.0.1:17203" --replica-id 1
'
echo "replica_key_file = $TEST_ROOT/short.key" > "$TEST_ROOT/keyconf"
head -c 8 /dev/urandom > "$TEST_ROOT/short.key"; chmod 600 "$TEST_ROOT/short.key"
key=1
want="fewer than 32"
test_expect_success 'a key shorter than 32 bytes is refused in one line' '
    one_line --replicas "127.0.0.1:17201,127.0.0.1:17202,127.0.0.1:17203" --replica-id 1
'
chmod 644 "$TEST_ROOT/key"
echo "replica_key_file = $TEST_ROOT/key" > "$TEST_ROOT/keyconf"
want="others cannot read"
test_expect_success 'a key others can read is refused in one line' '
    one_line --replicas "127.0.0.1:17201,127.0.0.1:17202,127.0.0.1:17203" --replica-id 1
'
want="invalid --replicas"
test_expect_success 'hpcq-local refuses a bad --replicas in one line' '
    ! hpcq-local start "$TEST_ROOT/c2" --workers 1 --replicas x 2> "$TEST_ROOT/err" &&
    test "$(grep -c . "$TEST_ROOT/err")" = 1 && grep -q "$want" "$TEST_ROOT/err"
'

test_done
