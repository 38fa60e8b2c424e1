#!/bin/bash
# MUNGE credentials are good once, for one message, on one connection, for
# a short time: replays (munged's replay cache), a credential moved to
# another body or link (the SHA-256 digest in its payload), an expired one
# and one made to live longer than munge_ttl are all refused.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2
tcp=tcp:127.0.0.1:$(sched_port)
sign() { "$WIRE_SIGN" "$@"; }

# A job.submit as a user's qsub over TCP would send it (before signing).
submit_frame() {
    printf '{"v":1,"type":"job.submit","id":1,"cred":null,"body":{"spec":{"name":"%s","script":"true\\n","workdir":"%s","resources":{"chunks":[{"count":1,"ncpus":1}]}}}}' \
        "$1" "$WORK"
}
stat_frame='{"v":1,"type":"server.stat","id":1,"cred":null,"body":{}}'
heartbeat='{"v":1,"type":"node.heartbeat","id":3,"cred":null,"body":{}}'
jobs_named() { qstat -x | grep -c " $1 " || true; }

test_expect_success 'a replayed user request is refused and makes no second job' '
    f=$(submit_frame replayed | sign) &&
    wire_client $tcp "json:$f" > r1.out && wire_client $tcp "json:$f" > r2.out &&
    cat r1.out r2.out &&
    wire_check r1.out reply 1 "r[\"errnum\"] == 0 and r[\"body\"][\"jobid\"]" &&
    wire_check r2.out reply 1 "r[\"errnum\"] == 1 and \"Replayed credential\" in r[\"error\"]" &&
    test "$(jobs_named replayed)" = 1 &&
    grep "refused job.submit from 127.0.0.1:.*Replayed credential (made by uid $(id -u)" $CLUSTER/scheduler.log
'

test_expect_success 'a message replayed on a worker link is refused and the link dropped' '
    wire_client $tcp open "sjson:$(hello_frame ghost 1)" "sjson:$heartbeat" again: recv:3 > link.out &&
    cat link.out &&
    wire_check link.out reply 1 "r[\"errnum\"] == 0 and len(r[\"body\"][\"nonce\"]) == 32" &&
    wire_check link.out reply 2 "r[\"errnum\"] == 0 and r[\"type\"] == \"node.hello\"" &&
    wire_check link.out reply 3 "r[\"errnum\"] == 0 and r[\"type\"] == \"node.heartbeat\"" &&
    wire_check link.out reply 4 "r[\"errnum\"] == 1 and \"Replayed credential\" in r[\"error\"]" &&
    grep -x closed link.out &&
    wait_until 10 grep -q "node ghost: connection lost" $CLUSTER/scheduler.log &&
    pbsnodes -o ghost
'

test_expect_success 'the scheduler signs what it sends on a worker link' '
    wire_check link.out reply 1 "r[\"cred\"].startswith(\"MUNGE:\")" &&
    wire_check link.out reply 3 "r[\"cred\"].startswith(\"MUNGE:\")"
'

test_expect_success 'a credential made for another link is refused' '
    other=$(printf "%032d:%032d" 0 1) &&
    wire_client $tcp open "json:$(hello_frame ghost2 1 | sign --binding $other)" recv:2 > other.out &&
    cat other.out &&
    wire_check other.out reply 2 "r[\"errnum\"] == 1 and \"not made for this node.hello on this connection\" in r[\"error\"]" &&
    grep -x closed other.out && ! pbsnodes -a | grep ghost2
'

test_expect_success 'a credential does not carry over to another body' '
    f=$(submit_frame tampered-a | sign) &&
    wire_client $tcp "json:${f/tampered-a/tampered-b}" > tamper.out && cat tamper.out &&
    wire_check tamper.out reply 1 "r[\"errnum\"] == 1 and \"not made for this job.submit\" in r[\"error\"]" &&
    test "$(jobs_named tampered-b)" = 0
'

test_expect_success 'a worker message without a credential on an open link is refused' '
    wire_client $tcp open "sjson:$(hello_frame ghost3 1)" "json:$heartbeat" recv:2 > bare.out &&
    cat bare.out &&
    wire_check bare.out reply 2 "r[\"errnum\"] == 0" &&
    wire_check bare.out reply 3 "r[\"errnum\"] == 1 and \"node.heartbeat carries no credential\" in r[\"error\"]" &&
    grep -x closed bare.out &&
    pbsnodes -o ghost3
'

test_expect_success 'an expired credential is refused' '
    f=$(echo "$stat_frame" | sign --ttl 1) &&
    sleep 2.5 &&
    wire_client $tcp "json:$f" > expired.out && cat expired.out &&
    wire_check expired.out reply 1 "r[\"errnum\"] == 1 and \"Expired credential\" in r[\"error\"]"
'

test_expect_success 'a credential made to live longer than munge_ttl is refused' '
    f=$(echo "$stat_frame" | sign --ttl 3600) &&
    wire_client $tcp "json:$f" > long.out && cat long.out &&
    wire_check long.out reply 1 "r[\"errnum\"] == 1 and \"more than munge_ttl (60 s)\" in r[\"error\"]" &&
    f=$(echo "$stat_frame" | sign --ttl 60) &&
    wire_client $tcp "json:$f" > ok.out &&
    wire_check ok.out reply 1 "r[\"errnum\"] == 0"
'

test_done
