#!/bin/bash
# A slow-loris cannot take the HTTP server (issue 22, finding 3): nobody
# opens 140 connections from 127.0.0.2 and 127.0.0.3 (past a per-address
# limit), each sending a header line every 3 s and never ending its
# request.  A uid on this host holds at most 16, the last slots are kept
# for root, and a request not whole in 10 s is closed: root's curl
# /metrics answers at once throughout, and the log stays small.
. "$(dirname "$0")/lib.sh"

cluster_start 1
other_users_setup qstat
why=$(root_and_nobody)
command -v curl >/dev/null || why="curl not installed (quickstart.sh installs it)"
[ -z "$why" ] || skip_all "$why" 'root reaches /metrics through a slow-loris' \
    'the slow connections are closed within the request deadline'
http=$(sed -n 's/^http=//p' "$CLUSTER/state/scheduler.address")
py=$(command -v /usr/bin/python3 || command -v python3)

# ms CMD...: run CMD, print how long it took in milliseconds.
ms() { local t0=$(date +%s%N); "$@" > /dev/null || return 1; echo $(( ($(date +%s%N) - t0) / 1000000 )); }

log0=$(wc -l < "$CLUSTER/scheduler.log")
test_expect_success 'root reaches /metrics through a slow-loris' '
    { as_user nobody "$py" "$HPCQ_SRCDIR/tests/conn-load.py" slowloris "$http" 140 3 14 \
          127.0.0.2,127.0.0.3 > slow.out & } &&
    sleep 2 && for k in 1 2 3 4 5; do
        t=$(ms curl -sf --max-time 5 "http://$http/metrics") && echo "curl: $t ms" &&
        test "$t" -lt 1000 || exit 1; sleep 1
    done &&
    s0=$(date +%s%N) && as_user daemon qstat > /dev/null && s1=$(date +%s%N) &&
    echo "qstat: $(( (s1 - s0) / 1000000 )) ms" && test $(( (s1 - s0) / 1000000 )) -lt 100 &&
    grep -q "http: refusing uid $(id -u nobody): it holds 16 connections already" \
        "$CLUSTER/scheduler.log"
'

test_expect_success 'the slow connections are closed within the request deadline' '
    wait_until 30 grep -q "^closed by server" slow.out && cat slow.out &&
    n=$(sed -n "s/^connected //p" slow.out) && c=$(sed -n "s/^closed by server //p" slow.out) &&
    test "$c" = "$n" &&
    grep -q "http: closing uid $(id -u nobody): no whole request in 10 s" "$CLUSTER/scheduler.log" &&
    log1=$(wc -l < "$CLUSTER/scheduler.log") && echo "log: $((log1 - log0)) lines" &&
    test $((log1 - log0)) -lt 40 &&
    curl -sf "http://$http/metrics" > /dev/null
'

test_done
