#!/bin/bash
# A root worker's spool (finding 4 of issue 10): a root-owned 0711 folder
# the job's owner passes through to their own script and node file, files
# created anew (O_EXCL|O_NOFOLLOW) and given away with fchown, so what was
# planted under their names is never followed, written or chowned.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2
other_users_setup qstat
why=$(root_and_nobody)
[ -n "$why" ] && skip_all "$why" \
    'the spool is root-owned, mode 0711' \
    'a job on a root worker runs as its owner (nobody)' \
    "the job's script and node file are its owner's, 0700 and 0600" \
    'symlinks and hard links planted in the spool are not followed' \
    'that job ran, and its files are gone from the spool'

SPOOL=$CLUSTER/spool/node1
nobody_uid=$(id -u nobody)

test_expect_success 'the spool is root-owned, mode 0711' '
    test "$(stat -c %U:%a "$SPOOL")" = root:711
'

cat > "$PUB/who.sh" <<'S'
#!/bin/sh
id -u
stat -c "%U %a" "$0" "$PBS_NODEFILE"
S
chmod 755 "$PUB/who.sh"

test_expect_success 'a job on a root worker runs as its owner (nobody)' '
    id=$(as_user nobody qsub who.sh) && wait_state $id F &&
    test "$(job_attr $id Exit_status)" = 0 &&
    test "$(head -1 "$PUB/who.sh.o$(seqno $id)")" = "$nobody_uid"
'

test_expect_success "the job's script and node file are its owner's, 0700 and 0600" '
    out=$PUB/who.sh.o$(ls "$PUB" | sed -n "s/^who.sh.o//p" | head -1) &&
    sed -n 2p "$out" | grep -qx "nobody 700" &&
    sed -n 3p "$out" | grep -qx "nobody 600"
'

# The next job's files, planted: a symlink and a hard link to root's file.
victim=$TEST_ROOT/victim
printf 'precious\n' > "$victim"
chmod 644 "$victim"

test_expect_success 'symlinks and hard links planted in the spool are not followed' '
    last=$(echo true | as_user nobody qsub) && wait_state $last F &&
    next=$(( $(seqno $last) + 1 )) &&
    ln -s "$victim" "$SPOOL/$next.1.SC" &&
    ln "$victim" "$SPOOL/$next.1.nodes" &&
    ln -s "$victim" "$SPOOL/$next.1.session" &&
    id=$(as_user nobody qsub who.sh) && test "$(seqno $id)" = $next &&
    wait_state $id F && echo $id > planted_job &&
    test "$(cat "$victim")" = precious &&
    test "$(stat -c %U:%a:%h "$victim")" = root:644:1
'

# ckpt.sock (jobs report checkpoints on it) and watchdog.fence (the fence's
# watchdog's session record, worker/fence.h) are the worker's own, not a job's.
test_expect_success 'that job ran, and its files are gone from the spool' '
    id=$(cat planted_job) && test "$(job_attr $id Exit_status)" = 0 &&
    test "$(stat -c %U:%a "$SPOOL/watchdog.fence")" = root:600 &&
    ! ls "$SPOOL" | grep -vxe ckpt.sock -e watchdog.fence | grep -q .
'

test_done
