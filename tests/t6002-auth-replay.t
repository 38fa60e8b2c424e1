#!/bin/bash
# A TCP link proves both ends once, with MUNGE credentials bound to both
# nonces (common/link.h); every later frame is sealed with the link's
# session key: HMAC-SHA256 and a sequence number per direction
# (common/session.h).  A replayed, reordered, truncated or forged frame is
# refused and the link closed; the daemon keeps serving.  The credentials
# themselves are good once, for one message, on one connection, for a
# short time: a replayed link.open (munged's replay cache), one moved to
# another body (the SHA-256 digest in its payload), an expired one and one
# made to live longer than munge_ttl are refused.  A user's one-shot
# request over TCP carries a credential of its own, held to the same.
. "$(dirname "$0")/lib.sh"

# The worker re-opens its link every 4 s (session_lifetime): its node
# must stay up through it.
cluster_start 1 --cpus-per-worker 2 --sched-config session_lifetime=4 \
    --worker-conf 1 'session_lifetime = 4'
tcp=tcp:127.0.0.1:$(sched_port)
sign() { "$WIRE_SIGN" "$@"; }

# A job.submit as a user's qsub over TCP would send it (before signing).
submit_frame() {
    printf '{"v":1,"type":"job.submit","id":1,"cred":null,"body":{"spec":{"name":"%s","script":"true\\n","workdir":"%s","resources":{"chunks":[{"count":1,"ncpus":1}]}}}}' \
        "$1" "$WORK"
}
stat_frame='{"v":1,"type":"server.stat","id":1,"cred":null,"body":{}}'
beat() { printf '{"v":1,"type":"node.heartbeat","id":%s,"cred":null,"body":{}}' "$1"; }
jobs_named() { qstat -x | grep -c " $1 " || true; }
refusals() { grep -c "dropping the link with 127.0.0.1" $CLUSTER/scheduler.log || true; }

test_expect_success 'a link opens with one credential each way; then frames are sealed, with no credential' '
    wire_client $tcp open "seal:$(hello_frame ghost 1)" "seal:$(beat 3)" > link.out &&
    cat link.out &&
    wire_check link.out reply 1 "r[\"errnum\"] == 0 and len(r[\"body\"][\"nonce\"]) == 32 and r[\"cred\"].startswith(\"MUNGE:\")" &&
    wire_check link.out reply 2 "r[\"errnum\"] == 0 and r[\"type\"] == \"node.hello\" and r.get(\"cred\") is None" &&
    wire_check link.out reply 3 "r[\"errnum\"] == 0 and r[\"type\"] == \"node.heartbeat\"" &&
    wait_until 10 grep -q "node ghost: connection lost" $CLUSTER/scheduler.log &&
    pbsnodes -o ghost
'

# refused_as FILE WHY: the scheduler closed the link without an answer
# and said why.
refused_as() {
    grep -q "^noreply" "$1" || grep -qx closed "$1" || return 1
    wait_until 10 grep -q "dropping the link with 127.0.0.1:[0-9]*: $2" $CLUSTER/scheduler.log
}

test_expect_success 'a replayed frame is refused and the link closed' '
    wire_client $tcp open "seal:$(hello_frame ghost 1)" "seal:$(beat 3)" again: recv:2 > replay.out &&
    cat replay.out &&
    wire_check replay.out reply 3 "r[\"errnum\"] == 0" &&
    refused_as replay.out "a replayed frame (sequence 1, expected 2)"
'

test_expect_success 'a reordered frame is refused and the link closed' '
    wire_client $tcp open "seal:$(hello_frame ghost 1)" "hold:$(beat 3)" "seal:$(beat 4)" recv:2 > reorder.out &&
    cat reorder.out &&
    refused_as reorder.out "a reordered or dropped frame (sequence 2, expected 1)"
'

test_expect_success 'a truncated frame is refused and the link closed' '
    n=$(refusals) &&
    wire_client $tcp open "seal:$(hello_frame ghost 1)" "truncate:$(beat 3)" recv:2 > trunc.out &&
    cat trunc.out &&
    refused_as trunc.out "a forged or damaged frame" && test $(refusals) -gt $n
'

test_expect_success 'a forged frame is refused and the link closed' '
    n=$(refusals) &&
    wire_client $tcp open "seal:$(hello_frame ghost 1)" "forge:$(beat 3)" recv:2 > forge.out &&
    cat forge.out &&
    refused_as forge.out "a forged or damaged frame" && test $(refusals) -gt $n
'

test_expect_success 'a frame without a seal on an open link is refused' '
    n=$(refusals) &&
    wire_client $tcp open "seal:$(hello_frame ghost 1)" "send:$(beat 3)" recv:2 > bare.out &&
    cat bare.out && grep -x closed bare.out &&
    wait_until 10 test $(refusals) -gt $n
'

test_expect_success 'node messages before link.open are refused' '
    wire_client $tcp "json:$(hello_frame ghost3 1)" recv:2 > early.out &&
    cat early.out &&
    wire_check early.out reply 1 "r[\"errnum\"] == 1 and \"need link.open first\" in r[\"error\"]" &&
    grep -x closed early.out && ! pbsnodes -a | grep ghost3
'

test_expect_success 'a link.open without a credential is refused' '
    wire_client $tcp bare-open recv:2 > bareopen.out && cat bareopen.out &&
    wire_check bareopen.out reply 1 "r[\"errnum\"] == 1 and \"link.open carries no credential\" in r[\"error\"]" &&
    grep -x closed bareopen.out
'

test_expect_success 'a replayed link.open is refused on another connection' '
    f=$(sign open | head -1) &&
    wire_client $tcp "json:$f" > open1.out && wire_client $tcp "json:$f" > open2.out &&
    cat open1.out open2.out &&
    wire_check open1.out reply 1 "r[\"errnum\"] == 0 and len(r[\"body\"][\"nonce\"]) == 32" &&
    wire_check open2.out reply 1 "r[\"errnum\"] == 1 and \"Replayed credential\" in r[\"error\"]" &&
    grep "refused link.open from 127.0.0.1:.*Replayed credential (made by uid $(id -u)" $CLUSTER/scheduler.log
'

test_expect_success 'a link.open credential does not carry over to another nonce' '
    f=$(sign open | head -1) &&
    other=$(printf "%032d" 7) &&
    g=$(echo "$f" | python3 -c "import json,sys; m=json.load(sys.stdin); m[\"body\"][\"nonce\"]=\"$other\"; print(json.dumps(m))") &&
    wire_client $tcp "json:$g" > moved.out && cat moved.out &&
    wire_check moved.out reply 1 "r[\"errnum\"] == 1 and \"not made for this link.open on this connection\" in r[\"error\"]"
'

test_expect_success 'an expired link.open credential is refused' '
    f=$(sign open --ttl 1 | head -1) &&
    sleep 2.5 &&
    wire_client $tcp "json:$f" > expired.out && cat expired.out &&
    wire_check expired.out reply 1 "r[\"errnum\"] == 1 and \"Expired credential\" in r[\"error\"]"
'

test_expect_success 'a link.open credential made to live longer than munge_ttl is refused' '
    f=$(sign open --ttl 3600 | head -1) &&
    wire_client $tcp "json:$f" > long.out && cat long.out &&
    wire_check long.out reply 1 "r[\"errnum\"] == 1 and \"more than munge_ttl (60 s)\" in r[\"error\"]"
'

test_expect_success 'a replayed one-shot user request is refused and makes no second job' '
    f=$(submit_frame replayed | sign) &&
    wire_client $tcp "json:$f" > r1.out && wire_client $tcp "json:$f" > r2.out &&
    cat r1.out r2.out &&
    wire_check r1.out reply 1 "r[\"errnum\"] == 0 and r[\"body\"][\"jobid\"]" &&
    wire_check r2.out reply 1 "r[\"errnum\"] == 1 and \"Replayed credential\" in r[\"error\"]" &&
    test "$(jobs_named replayed)" = 1 &&
    grep "refused job.submit from 127.0.0.1:.*Replayed credential (made by uid $(id -u)" $CLUSTER/scheduler.log
'

test_expect_success 'a one-shot credential does not carry over to another body' '
    f=$(submit_frame tampered-a | sign) &&
    wire_client $tcp "json:${f/tampered-a/tampered-b}" > tamper.out && cat tamper.out &&
    wire_check tamper.out reply 1 "r[\"errnum\"] == 1 and \"not made for this job.submit\" in r[\"error\"]" &&
    test "$(jobs_named tampered-b)" = 0
'

test_expect_success 'an expired one-shot credential is refused' '
    f=$(echo "$stat_frame" | sign --ttl 1) &&
    sleep 2.5 &&
    wire_client $tcp "json:$f" > expired1.out && cat expired1.out &&
    wire_check expired1.out reply 1 "r[\"errnum\"] == 1 and \"Expired credential\" in r[\"error\"]"
'

test_expect_success 'through all of it the scheduler served: the real worker kept its node and ran a job' '
    id=$(echo "echo served" | qsub) && wait_state $id F 30 &&
    test "$(job_attr $id Exit_status)" = 0 &&
    pbsnodes node1 | grep -q "state = free" &&
    ! grep -q "node node1 is down" $CLUSTER/scheduler.log
'

test_expect_success 'the session key ends after session_lifetime: the worker opens a fresh link, its node stays up' '
    wait_until 20 eval "test \$(grep -c \"scheduler at .* authenticated\" $CLUSTER/worker1.log) -ge 3" &&
    grep -q "its session key has lived session_lifetime" $CLUSTER/worker1.log &&
    id=$(echo "sleep 5" | qsub) && wait_state $id F 40 &&
    test "$(job_attr $id Exit_status)" = 0 &&
    ! grep -q "node node1 is down" $CLUSTER/scheduler.log
'

test_done
