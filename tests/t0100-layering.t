#!/bin/bash
# The tree's include rules and its one-writer rules (tests/layering.py,
# docs/design.md): the policy code, the simulator and the model headers
# reach nothing of the server, the sockets or the database; common/ only
# common/, db/ only common/ and db/; one writer of a job's state, one of
# a node's (nodes_set_state) and one way to start a job (sched_start_now);
# scheduler/'s include circle no larger than the server and its
# connections (2 modules; 14 of 62 before the cuts of docs/design.md).
# Each rule is also shown to fail, on a copy of the tree with one breach
# put in.
. "$(dirname "$0")/lib.sh"

layering() { python3 "$HPCQ_SRCDIR/tests/layering.py" "$@"; }

# A copy of the tree's sources (not a checkout: every .c/.h counts).
copy_tree() {
    rm -rf "$WORK/tree" && mkdir -p "$WORK/tree" &&
        (cd "$HPCQ_SRCDIR" && tar -cf - common db scheduler sim worker cli \
            --exclude='*.o' --exclude='*.a') | tar -xf - -C "$WORK/tree"
}
# Put line L at the top of file F of the copy: breach F L.
breach() { copy_tree && sed -i "1i $2" "$WORK/tree/$1"; }
# The check fails on the copy and names what: fails_with TEXT.
fails_with() {
    ! layering "$WORK/tree" check > "$WORK/out" && cat "$WORK/out" &&
        grep -qF -- "$1" "$WORK/out"
}

test_expect_success 'the tree keeps every rule' '
    layering "$HPCQ_SRCDIR" check
'
test_expect_success 'a copy of the tree keeps every rule too' '
    copy_tree && layering "$WORK/tree" check
'
test_expect_success 'policy/ reaching server.h through a header is refused' '
    breach scheduler/policy/place.h "#include \"scheduler/jobs.h\"" &&
        fails_with "scheduler/policy/place.h: reaches scheduler/server.h (scheduler/policy/place.h -> scheduler/jobs.h -> scheduler/server.h)"
'
test_expect_success 'a model header including SQLite is refused' '
    breach scheduler/node.h "#include <sqlite3.h>" &&
        fails_with "scheduler/node.h: reaches <sqlite3.h>"
'
test_expect_success 'a model header reaching the database through db/ is refused' '
    breach scheduler/job.h "#include \"db/db.h\"" &&
        fails_with "scheduler/job.h: reaches db/db.h"
'
test_expect_success 'policy/ including a scheduler header that is no model header is refused' '
    breach scheduler/policy/backfill.c "#include \"scheduler/sched.h\"" &&
        fails_with "scheduler/policy/backfill.c: includes scheduler/sched.h"
'
test_expect_success 'the simulator reaching a socket header is refused' '
    breach sim/sim_trace.c "#include <sys/socket.h>" &&
        fails_with "sim/sim_trace.c: reaches <sys/socket.h>"
'
test_expect_success 'common/ including db/ is refused' '
    breach common/util.c "#include \"db/db.h\"" &&
        fails_with "common/util.c: includes db/db.h: common/ includes only common/"
'
test_expect_success 'db/ including scheduler/ is refused' '
    breach db/db_job.c "#include \"scheduler/jobs.h\"" &&
        fails_with "db/db_job.c: includes scheduler/jobs.h: db/ includes only common/ and db/"
'
test_expect_success 'a second writer of job state is refused' '
    breach scheduler/sched.c "static void f (struct job *j) { j->rec.state = 0; }" &&
        fails_with "scheduler/sched.c:1: writes job state: only scheduler/policy/job_state.c may"
'
test_expect_success 'a second way to start a job is refused' '
    breach scheduler/rpc/job_ops.c "static int f (struct server *s, struct job *j, struct alloc *a) { return lifecycle_start (s, j, a); }" &&
        fails_with "scheduler/rpc/job_ops.c:1: writes job start: only scheduler/sched.c may"
'
test_expect_success 'a second writer of node state is refused' '
    breach scheduler/reclaim.c "static void f (struct node *n) { n->state = NODE_DOWN; }" &&
        fails_with "scheduler/reclaim.c:1: writes node state: only scheduler/node_state.c may"
'
test_expect_success 'the include circle is measured' '
    layering "$HPCQ_SRCDIR" circle > "$WORK/circle" && cat "$WORK/circle" &&
        grep -qE "^largest include circle: [0-9]+ of [0-9]+ scheduler modules$" "$WORK/circle"
'
test_expect_success 'the include circle is at most the server and its connections' '
    layering "$HPCQ_SRCDIR" circle > "$WORK/circle" &&
        n=$(sed -n "s/^largest include circle: \([0-9]*\) of .*/\1/p" "$WORK/circle") &&
        test "$n" -le 2 && ! sed 1d "$WORK/circle" | grep -vxE "  scheduler/(server|clients)"
'
test_expect_success 'lifecycle.c calling the scheduling pass by name is refused (a circle again)' '
    breach scheduler/lifecycle.c "#include \"scheduler/sched.h\"" &&
        fails_with "scheduler/: an include circle of " &&
        grep -q "more than 2: .*scheduler/lifecycle .*scheduler/sched" "$WORK/out"
'
test_expect_success 'a third module in the circle of the server and its connections is refused' '
    breach scheduler/clients.c "#include \"scheduler/lifecycle_sub.h\"" &&
        fails_with "scheduler/: an include circle of 3 modules, more than 2: scheduler/clients scheduler/lifecycle_sub scheduler/server"
'
test_done
