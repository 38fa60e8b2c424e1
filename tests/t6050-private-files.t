#!/bin/bash
# State files are private (issue 10, finding 5): the database, its -wal and
# -shm files, the logs and the configs are 0600 and the state folder 0700,
# while the socket stays reachable by everyone in its own 0755 folder.  A
# database left 0644 by an older version is made 0600 at start.
. "$(dirname "$0")/lib.sh"

cluster_start 1
other_users_setup qstat

mode() { stat -c %a "$1"; }

id=$(echo "sleep 300" | qsub -v HPCQ_T_SECRET=hunter2 -N secret)
test_expect_success 'a job whose environment holds a secret is queued' '
    wait_state $id R && test "$(db_query "SELECT count(*) FROM jobs")" = 1
'

test_expect_success 'the database and its -wal and -shm files are 0600, the state folder 0700' '
    ls -la "$CLUSTER/state" &&
    test "$(mode "$CLUSTER/state")" = 700 &&
    test "$(mode "$CLUSTER/state/hpcq.sqlite")" = 600 &&
    test "$(mode "$CLUSTER/state/hpcq.sqlite-wal")" = 600 &&
    test "$(mode "$CLUSTER/state/hpcq.sqlite-shm")" = 600
'

test_expect_success 'logs and configs are 0600' '
    for f in scheduler.log scheduler.conf scheduler.out worker1.log worker1.conf \
             worker1.out; do
        echo "$f $(mode "$CLUSTER/$f")" && test "$(mode "$CLUSTER/$f")" = 600 || exit 1
    done
'

test_expect_success 'the socket is 0777 in a folder everyone may enter' '
    test "$(stat -c %A "$CLUSTER/hpcq.sock")" = srwxrwxrwx &&
    test "$(mode "$CLUSTER")" = 755
'

if [ -n "$other_users" ]; then
    test_expect_success 'another user cannot read the database, the logs or the configs' '
        ! as_user nobody sqlite3 "$CLUSTER/state/hpcq.sqlite" "SELECT spec FROM jobs" \
            > peek.out 2>&1 &&
        ! grep -q hunter2 peek.out &&
        ! as_user nobody cat "$CLUSTER/scheduler.log" "$CLUSTER/scheduler.conf" \
            > /dev/null 2>&1 &&
        ! as_user nobody ls "$CLUSTER/state" > /dev/null 2>&1
    '
    test_expect_success 'but reaches the scheduler through the socket' '
        as_user nobody qstat | grep -q secret
    '
else
    test_skip 'another user cannot read the database, the logs or the configs' \
        'cannot run as nobody here (needs root)'
    test_skip 'but reaches the scheduler through the socket' 'cannot run as nobody here'
fi

# A scheduler of its own, started with only state_dir: the socket is then
# inside the state folder, which is made 0711 (reachable by name, not
# listable), and a database an older version left 0644 is made private.
old=$TEST_ROOT/old
mkdir -p "$old/state" && chmod 755 "$old/state"
sqlite3 "$old/state/hpcq.sqlite" "PRAGMA journal_mode = WAL; CREATE TABLE t (x);" >/dev/null
chmod 644 "$old/state/hpcq.sqlite"
printf "state_dir = %s/state\nlisten = 127.0.0.1:0\nserver_name = old\nmunge_socket = %s\n" \
    "$old" "$HPCQ_MUNGE_SOCKET" > "$old/s.conf"
hpcq-scheduler --config "$old/s.conf" --log-file "$old/s.log" > "$old/s.out" 2>&1 &
old_pid=$!
wait_until 30 test -S "$old/state/hpcq.sock" >/dev/null 2>&1
test_expect_success 'a database left 0644 is made 0600 at start, with a warning' '
    test "$(mode "$old/state/hpcq.sqlite")" = 600 &&
    grep -q "database: .*hpcq.sqlite was mode 644, now 600" "$old/s.log" &&
    grep -q "state_dir $old/state is mode 755: other users may list it" "$old/s.log"
'
kill $old_pid; wait $old_pid 2>/dev/null

new=$TEST_ROOT/new
mkdir -p "$new"
printf "state_dir = %s/state\nlisten = 127.0.0.1:0\nserver_name = new\nmunge_socket = %s\n" \
    "$new" "$HPCQ_MUNGE_SOCKET" > "$new/s.conf"
hpcq-scheduler --config "$new/s.conf" --log-file "$new/s.log" > "$new/s.out" 2>&1 &
new_pid=$!
wait_until 30 test -S "$new/state/hpcq.sock" >/dev/null 2>&1
test_expect_success 'a new state folder with the socket inside is 0711: reachable, not listable' '
    test "$(mode "$new/state")" = 711 && test "$(mode "$new/state/hpcq.sqlite")" = 600 &&
    HPCQ_SERVER=unix:$new/state/hpcq.sock qstat -B | grep -q "^new "
'
if [ -n "$other_users" ]; then
    test_expect_success 'another user connects by name but cannot list it' '
        chmod 755 "$new" &&
        HPCQ_SERVER=unix:$new/state/hpcq.sock as_user nobody qstat -B | grep -q "^new " &&
        ! as_user nobody ls "$new/state" > /dev/null 2>&1
    '
else
    test_skip 'another user connects by name but cannot list it' 'cannot run as nobody here'
fi
kill $new_pid; wait $new_pid 2>/dev/null

test_done
