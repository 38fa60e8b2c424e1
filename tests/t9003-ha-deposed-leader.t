#!/bin/bash
# A leader cut off (SIGSTOP: it neither hears nor speaks, as behind a
# partition) stops acknowledging; the other two elect a leader that
# serves.  When it wakes it finds a newer term, and starts again as a
# follower: what it took in meanwhile is acknowledged only if the cluster
# committed it, and the three files end up the same (trap 5 of issue 24).
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2 --replicas 3 --node-timeout 30
# A client that reaches the stopped leader first waits this long for it
# before it asks the next replica.
export HPCQ_FAILOVER_TIMEOUT=5

leader() { hpcq-local leader "$CLUSTER" 2>/dev/null; }
# A replica other than $1 that serves.
other_leader() {
    local i
    for i in 1 2 3; do
        [ "$i" = "$1" ] && continue
        test -s "$CLUSTER/replica$i/state/scheduler.address" && { echo $i; return 0; }
    done
    return 1
}

for i in 1 2 3; do echo true | qsub > /dev/null; done
old=$(hpcq-local leader "$CLUSTER")
pid=$(cat "$CLUSTER/replica$old.pid")

test_expect_success 'the leader, stopped, is replaced by one of the other two' '
    kill -STOP $pid &&
    wait_until 15 other_leader $old &&
    id=$(echo true | qsub) && say "the new leader acknowledged $id"
'

# A client of the old leader only: its request waits in the stopped
# process's socket.
(echo true | HPCQ_SERVER=unix:$CLUSTER/replica$old/hpcq.sock qsub > "$WORK/stale.id" 2> "$WORK/stale.err"
 echo $? > "$WORK/stale.rc") &
sleep 1

test_expect_success 'woken, the old leader starts again as a follower and serves nobody' '
    kill -CONT $pid &&
    wait_until 15 grep -q "restarting as a follower" "$CLUSTER/replica$old.log" &&
    wait_until 15 grep -q "following" "$CLUSTER/replica$old.log" &&
    wait_until 15 eval "test -s \"$WORK/stale.rc\"" &&
    ! test -s "$CLUSTER/replica$old/state/scheduler.address"
'

say "$(grep -h "restarting as a follower" "$CLUSTER/replica$old.log" | sed "s/.*hpcq-scheduler\[[a-z]*\]: //")"
say "its client: exit $(cat "$WORK/stale.rc"): $(cat "$WORK/stale.id" "$WORK/stale.err")"
test_expect_success 'what it took in while cut off was not acknowledged, or the cluster has it' '
    if [ "$(cat "$WORK/stale.rc")" = 0 ]; then
        qstat -x "$(cat "$WORK/stale.id")"
    else
        ! test -s "$WORK/stale.id"
    fi
'

test_expect_success 'the cluster serves on and the three files agree' '
    id=$(echo true | qsub) && wait_state $id F &&
    wait_until 60 same_dumps
'

# A follower's file that is not what the log says is never kept.
f=$(for i in 1 2 3; do [ "$i" = "$(hpcq-local leader "$CLUSTER")" ] || echo $i; done | head -1)
fpid() { cat "$CLUSTER/replica$f.pid"; }
count() { grep -c "$1" "$CLUSTER/replica$f.log" || true; }

test_expect_success 'a follower whose file holds an entry the log has with another term rebuilds it' '
    kill9 $(fpid) &&
    sqlite3 "$(db_of $f)" "UPDATE replica_state SET applied_term = applied_term + 100" &&
    before=$(count "rebuilding it from the log") &&
    hpcq-local start-replica "$CLUSTER" $f &&
    wait_until 60 grep -q "the log.s is of term" "$CLUSTER/replica$f.log" &&
    wait_until 60 eval "test \$(count \"rebuilding it from the log\") -gt $before" &&
    wait_until 60 same_dumps
'

test_expect_success 'a row changed behind the log fails the next entry that touches it: rebuilt' '
    held=$(echo true | qsub -h) &&
    wait_until 60 same_dumps &&
    kill9 $(fpid) &&
    sqlite3 "$(db_of $f)" "UPDATE jobs SET priority = 42 WHERE seq = $(seqno $held)" &&
    hpcq-local start-replica "$CLUSTER" $f &&
    wait_until 60 grep -q "following" "$CLUSTER/replica$f.log" &&
    before=$(count "does not apply") &&
    qalter -p 7 $held &&
    wait_until 60 eval "test \$(count \"does not apply\") -gt $before" &&
    wait_until 60 same_dumps &&
    test "$(sqlite3 "$(db_of $f)" "SELECT priority FROM jobs WHERE seq = $(seqno $held)")" = 7
'

test_expect_success 'a replica without the cluster key gets no entry; with it, it catches up' '
    kill9 $(fpid) &&
    was=$(applied $f) &&
    head -c 32 /dev/urandom > "$TEST_ROOT/other.key" && chmod 600 "$TEST_ROOT/other.key" &&
    cp "$CLUSTER/replica$f.conf" "$TEST_ROOT/good.conf" &&
    sed -i "s|^replica_key_file = .*|replica_key_file = $TEST_ROOT/other.key|" "$CLUSTER/replica$f.conf" &&
    hpcq-local start-replica "$CLUSTER" $f &&
    l=$(hpcq-local leader "$CLUSTER") &&
    id=$(echo true | qsub) && wait_state $id F &&
    wait_until 60 grep -q "refused replica $f at .*cluster.s key" "$CLUSTER/replica$l.log" &&
    sleep 2 && test "$(applied $f)" = "$was" &&
    kill9 $(fpid) && cp "$TEST_ROOT/good.conf" "$CLUSTER/replica$f.conf" &&
    hpcq-local start-replica "$CLUSTER" $f &&
    wait_until 60 same_dumps
'

test_done
