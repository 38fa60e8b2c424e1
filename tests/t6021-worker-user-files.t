#!/bin/bash
# A root worker touches a user's paths only as that user: the walltime
# note (finding 3 of issue 10: it was appended as root, following a
# symlink the job had put in place of its error file) and the stat that
# decides whether -o names a directory (finding 12: done as root, it told
# the user what is inside folders they cannot read).
. "$(dirname "$0")/lib.sh"

# A spool others may pass through, made beforehand so that a worker from
# before finding 4's fix runs nobody's jobs too, and these tests see the
# findings they are about.
mkdir -p "$CLUSTER/spool/node1" && chmod 711 "$CLUSTER/spool" "$CLUSTER/spool/node1"
cluster_start 1 --cpus-per-worker 2 --kill-delay 1
other_users_setup qstat
why=$(root_and_nobody)
[ -n "$why" ] && skip_all "$why" \
    "the walltime note goes into the owner's error file" \
    "a symlink swapped in for the error file does not lead the note into root's file" \
    'output in a folder the user cannot read: what is inside is not revealed' \
    'the same comment whether the folder inside exists or not'

test_expect_success "the walltime note goes into the owner's error file" '
    id=$(echo "sleep 30" | as_user nobody qsub -l walltime=1) && wait_state $id F 30 &&
    test "$(job_attr $id Exit_status)" = -29 &&
    grep -q "=>> PBS: job killed: walltime" "$PUB/STDIN.e$(seqno $id)" &&
    test "$(stat -c %U "$PUB/STDIN.e$(seqno $id)")" = nobody
'

# The job replaces its error file by a symlink to a file of root's.
victim=$TEST_ROOT/victim
printf 'precious\n' > "$victim"
chmod 644 "$victim"
cat > "$PUB/swap.sh" <<S
#!/bin/sh
rm -f "$PUB/swap.err"
ln -s "$victim" "$PUB/swap.err"
sleep 30
S
chmod 755 "$PUB/swap.sh"

test_expect_success "a symlink swapped in for the error file does not lead the note into root's file" '
    id=$(as_user nobody qsub -l walltime=2 -e "$PUB/swap.err" swap.sh) &&
    wait_state $id F 30 && test "$(job_attr $id Exit_status)" = -29 &&
    test -L "$PUB/swap.err" &&
    test "$(cat "$victim")" = precious &&
    test "$(stat -c %U:%a "$victim")" = root:644
'

# Root's folder, closed to others, with a folder inside.
secret=$TEST_ROOT/secret
mkdir -p "$secret/inside"
chmod 700 "$secret"

test_expect_success 'output in a folder the user cannot read: what is inside is not revealed' '
    id=$(echo true | as_user nobody qsub -o "$secret/inside") && wait_state $id F &&
    test "$(job_attr $id Exit_status)" = -1 &&
    job_attr $id comment > c_inside &&
    grep -q "cannot open output file $secret/inside: Permission denied" c_inside &&
    ! grep -q "inside/" c_inside
'

test_expect_success 'the same comment whether the folder inside exists or not' '
    id=$(echo true | as_user nobody qsub -o "$secret/absent") && wait_state $id F &&
    job_attr $id comment | sed "s/absent/inside/" > c_absent &&
    test "$(cat c_absent)" = "$(cat c_inside)"
'

test_done
