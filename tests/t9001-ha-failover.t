#!/bin/bash
# Three scheduler replicas on Raft (hpcq-scheduler(8), REPLICAS): clients
# submit while the leader is kill -9ed three times; after each kill a new
# leader acknowledges within 5 s (median and worst printed); every
# acknowledged job exists exactly once; a job running through the
# failovers runs once and finishes on the new leader; the three SQLite
# files give identical dumps; after all three are killed and restarted
# every acknowledged job is still there.
. "$(dirname "$0")/lib.sh"

# node_timeout 30: the workers' lease (fence time) outlasts three
# failovers in a row, so a running job is not fenced during them.
cluster_start 2 --cpus-per-worker 2 --replicas 3 --node-timeout 30

leader() { hpcq-local leader "$CLUSTER" 2>/dev/null; }

test_expect_success 'one replica leads; the others follow and serve nobody' '
    l=$(leader) && test -n "$l" &&
    grep -q "serving" "$CLUSTER/replica$l.log" &&
    for i in 1 2 3; do
        [ "$i" = "$l" ] || { ! test -e "$CLUSTER/replica$i/state/scheduler.address" &&
            grep -q "following" "$CLUSTER/replica$i.log"; } || exit 1
    done
'

test_expect_success 'a job submitted through the list is on all three files' '
    id=$(echo true | qsub) && wait_state $id F &&
    wait_until 10 same_dumps &&
    test "$(sqlite3 "$(db_of 1)" "SELECT count(*) FROM jobs WHERE seq = $(seqno $id)")" = 1
'

# A job that logs each start: it must run once, through every failover.
cat > "$WORK/long.sh" <<EOF
echo "\$PBS_JOBID" >> $WORK/starts
sleep 12
EOF
long=$(qsub "$WORK/long.sh")
wait_state "$long" R 30

# Clients: each submits in a loop and logs every acknowledged id.
rm -f "$WORK"/acked.* "$WORK/stop"
for c in 1 2 3; do
    (
        while [ ! -e "$WORK/stop" ]; do
            t=$(date +%s.%N)
            if id=$(echo true | HPCQ_FAILOVER_TIMEOUT=20 qsub 2>>"$WORK/errors.$c"); then
                echo "$id $t $(date +%s.%N)" >> "$WORK/acked.$c"
            fi
        done
    ) &
done

acked_count() { cat "$WORK"/acked.* 2>/dev/null | wc -l; }
# Acknowledged, of a submission started after time $1.
acked_since() { awk -v t="$1" '$2 > t' "$WORK"/acked.* 2>/dev/null | grep -q .; }

: > "$WORK/failover"
for k in 1 2 3; do
    wait_until 20 eval "test \$(acked_count) -ge $((k * 10))"
    l=$(leader)
    t0=$(date +%s.%N)
    kill9 "$(cat "$CLUSTER/replica$l.pid")"
    wait_until 20 acked_since "$t0"
    t1=$(awk -v t="$t0" '$2 > t { print $3 }' "$WORK"/acked.* | sort -n | head -1)
    echo "$t1 - $t0" | bc >> "$WORK/failover"
    hpcq-local start-replica "$CLUSTER" "$l"
done
wait_until 20 eval "test \$(acked_count) -ge 40"
touch "$WORK/stop"
wait

say "failover times (s): $(tr "\n" " " < "$WORK/failover")"
say "median $(sort -n "$WORK/failover" | sed -n 2p) s, worst $(sort -n "$WORK/failover" | tail -1) s"
test_expect_success 'after each kill -9 of the leader a new one acknowledged within 5 s' '
    test "$(wc -l < "$WORK/failover")" = 3 &&
    awk "\$1 >= 5 { exit 1 }" "$WORK/failover"
'

test_expect_success 'every acknowledged job exists exactly once' '
    l=$(leader) &&
    cat "$WORK"/acked.* | cut -d" " -f1 | sort > "$WORK/acked" &&
    test -z "$(uniq -d "$WORK/acked")" &&
    sqlite3 "$(db_of $l)" "SELECT seq FROM jobs" | sort > "$WORK/stored" &&
    test -z "$(uniq -d "$WORK/stored")" &&
    for id in $(cat "$WORK/acked"); do
        grep -qx "$(seqno $id)" "$WORK/stored" || { echo "lost $id"; exit 1; }
    done &&
    # No second job for a retried submission: beyond the acknowledged
    # ones (and the two jobs above), only submissions that gave up.
    extra=$(( $(wc -l < "$WORK/stored") - 2 - $(wc -l < "$WORK/acked") )) &&
    failed=$(cat "$WORK"/errors.* 2>/dev/null | awk "END { print NR }") &&
    test "$extra" -le "$failed"
'

say "$(cat "$WORK"/acked.* | wc -l) jobs acknowledged, $(sqlite3 "$(db_of "$(leader)")" "SELECT count(*) FROM jobs") stored (2 before the clients), $(cat "$WORK"/errors.* 2>/dev/null | wc -l) submissions failed"
test_expect_success 'the job running through the failovers ran once and finished' '
    wait_state "$long" F 60 &&
    test "$(job_attr "$long" Exit_status)" = 0 &&
    test "$(grep -c . "$WORK/starts")" = 1
'

test_expect_success 'the three SQLite files give identical dumps' '
    wait_until 20 same_dumps &&
    grep -q "INSERT INTO jobs" "$TEST_ROOT/dump.1"
'

test_expect_success 'all three killed with kill -9, then restarted: every acknowledged job is there' '
    for i in 1 2 3; do kill9 "$(cat "$CLUSTER/replica$i.pid")"; done &&
    for i in 1 2 3; do hpcq-local start-replica "$CLUSTER" $i; done &&
    wait_until 20 eval "test -n \"\$(leader)\"" &&
    for id in $(cat "$WORK/acked"); do echo "$id"; done > "$WORK/want" &&
    qstat -x $(cat "$WORK/want") > "$WORK/after" &&
    test "$(grep -c "\.$(hostname -s)\|^[0-9]" "$WORK/after")" -ge "$(wc -l < "$WORK/want")" &&
    wait_until 20 same_dumps
'

test_done
