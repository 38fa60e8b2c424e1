#!/bin/bash
# The read-only REST API (/api/v1/...): slurmrestd's shape (meta, errors,
# warnings, the data under its key), the attributes of qstat -f -F json,
# filters, 404s; who sees what (loopback users known by uid,
# query_other_jobs), and other addresses only with http_token_file's token
# (from a network namespace the test makes).
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --gpus-per-worker 1 --sched-config max_array_size=5000
http=$(sed -n 's/^http=//p' "$CLUSTER/state/scheduler.address")
api() { curl -sf "http://$http/api/v1/$1"; }
code() { curl -s -o /dev/null -w "%{http_code}" "http://$http/$1"; }
other_users_setup curl -sf "http://$http/api"

test_expect_success 'jobs running and queued' '
    a=$(echo "sleep 300" | qsub -N api-a -A proj1 -M alice@example.org -l select=1:ncpus=2) && wait_state $a R &&
    b=$(echo true | qsub -h -N api-b) && echo "$a $b" > ids
'

test_expect_success 'GET /api/v1/jobs: meta, errors, warnings and the jobs qstat shows' '
    api jobs > jobs.json && jq -e ".meta.plugin.type == \"api/v1\" and .errors == [] and .warnings == []" jobs.json &&
    test "$(jq -r .meta.client.user jobs.json)" = "$(id -un)" &&
    jq -r ".jobs[].id" jobs.json | sort > api.ids && qstat -f -F json | jq -r ".Jobs | keys[]" | sort > qstat.ids &&
    test -s api.ids && diff api.ids qstat.ids
'

test_expect_success 'a job has the attributes of qstat -f -F json' '
    read a b < ids &&
    api jobs/$a | jq ".jobs[0] | del(.id)" > one.json &&
    qstat -f -F json $a | jq ".Jobs[\"$a\"]" > q.json &&
    for k in Job_Name Job_Owner job_state queue exec_host Resource_List Hold_Types; do
        test "$(jq -c .$k one.json)" = "$(jq -c .$k q.json)" || { echo "$k differs"; exit 1; }
    done && test "$(api jobs/$a | jq -r .jobs[0].id)" = $a
'

test_expect_success 'filters: state (letters or names), user, history' '
    read a b < ids &&
    test "$(api "jobs?state=R" | jq -r ".jobs[].id")" = $a &&
    test "$(api "jobs?state=held" | jq -r ".jobs[].id")" = $b &&
    test "$(api "jobs?user=nobody-here" | jq ".jobs | length")" = 0 &&
    c=$(echo true | qsub) && wait_state $c F &&
    ! api jobs | jq -r ".jobs[].id" | grep -qx $c &&
    api "jobs?history=1" | jq -r ".jobs[].id" | grep -qx $c &&
    test "$(code "api/v1/jobs?state=bogus")" = 400 &&
    test "$(api "jobs?history=1&limit=2" | jq ".jobs | length")" = 2 &&
    test "$(code "api/v1/jobs?limit=0")" = 400 && test "$(code "api/v1/jobs?limit=x")" = 400 &&
    test "$(code "api/v1/events?limit=-3")" = 400 && test "$(code "api/v1/events?limit=2x")" = 400 &&
    curl -s "http://$http/api/v1/jobs?state=R,zz" | jq -e ".errors[0].error_number == 400 and (.errors[0].description | test(\"bad state\"))"
'

test_expect_success 'an unknown job: 404 with the error in slurmrestd'"'"'s shape' '
    test "$(code api/v1/jobs/99999)" = 404 &&
    curl -s "http://$http/api/v1/jobs/99999" | jq -e ".errors[0].error_number == 404 and (.errors[0].description | test(\"Unknown Job Id\"))"
'

test_expect_success 'nodes, queues, server, events and the versions' '
    api nodes | jq -e "[.nodes[].name] == [\"node1\", \"node2\"]" &&
    api nodes | jq -e ".nodes[] | select(.state == \"job-busy\") | .ncpus_used == 2" &&
    api queues | jq -e ".queues[0].name == \"workq\" and .queues[0].state_count.Running == 1" &&
    api server | jq -e ".server.state_count.Held == 1" &&
    api "events?limit=3" | jq -e "(.events | length) == 3 and (.events[0].type | type) == \"string\"" &&
    curl -sf "http://$http/api" | jq -e ".versions == [\"v1\"]"
'

test_expect_success 'a long list is streamed whole, a part per loop turn (an array of 3000 subjobs)' '
    j=$(echo true | qsub -h -J 1-3000) && lines=$(wc -l < $CLUSTER/scheduler.log) &&
    timeout 20 curl -sf "http://$http/api/v1/jobs?subjobs=1&state=H" > long.json &&
    test "$(jq ".jobs | length" long.json)" = 3002 &&
    ! tail -n +$((lines + 1)) $CLUSTER/scheduler.log | grep "stopped sending heartbeats" &&
    qdel $j
'

if [ -n "$other_users" ]; then
    test_expect_success 'another local user is known by uid; sees others'"'"' jobs as the qstat table' '
        read a b < ids && as_user nobody curl -sf "http://$http/api/v1/jobs/$a" > n.json &&
        jq -e ".meta.client.user == \"nobody\"" n.json &&
        jq -e ".jobs[0] | .Job_Name == \"api-a\" and .job_state == \"R\" and (has(\"exec_host\") | not) and (has(\"Variable_List\") | not)" n.json &&
        as_user nobody curl -sf "http://$http/metrics" > n.metrics &&
        grep -q "^hpcq_jobs{" n.metrics && ! grep -q "^hpcq_user_jobs" n.metrics &&
        test "$(as_user nobody curl -sf "http://$http/api/v1/events" | jq ".events | length")" = 0
    '
    test_expect_success 'with query_other_jobs = true they see them in full, as qstat -f shows them' '
        read a b < ids && hpcq-local stop $CLUSTER >/dev/null &&
        echo "query_other_jobs = true" >> $CLUSTER/scheduler.conf &&
        hpcq-local start-scheduler $CLUSTER && hpcq-local start-worker $CLUSTER 1 &&
        hpcq-local start-worker $CLUSTER 2 &&
        as_user nobody curl -sf "http://$http/api/v1/jobs/$a" > q.json &&
        jq -e ".jobs[0] | has(\"exec_host\") and has(\"Resource_List\") and has(\"ctime\")" q.json &&
        for k in Variable_List Submit_arguments Output_Path Error_Path Account_Name; do
            jq -e ".jobs[0] | has(\"$k\")" q.json || return 1
        done &&
        as_user nobody qstat -x -f -F json $a > qs.json &&
        jq -e ".Jobs[] | .Variable_List" qs.json > /dev/null &&
        as_user nobody curl -sf "http://$http/api/v1/jobs?history=1" > ql.json &&
        jq -e "[.jobs[] | has(\"Variable_List\")] | any" ql.json &&
        jq -e "(.jobs | length) >= 2" ql.json &&
        curl -sf "http://$http/api/v1/jobs/$a" | jq -e ".jobs[0] | has(\"Variable_List\") and has(\"Submit_arguments\") and .Account_Name == \"proj1\" and has(\"Mail_Users\")" &&
        as_user nobody curl -sf "http://$http/metrics" | grep -q "^# HELP hpcq_user_jobs"
    '
else
    test_skip 'another local user is known by uid; sees others'"'"' jobs as the qstat table' \
        'cannot run as nobody here (needs root)'
    test_skip 'with query_other_jobs = true they see them in full, as qstat -f shows them' 'cannot run as nobody here'
fi

# Other addresses: a network namespace whose end of a veth pair is another
# host as far as the scheduler can tell.
ns=hpcq-t8005-$$
net=10.251.$(( $$ % 200 + 20 ))
netns_up() {
    ip netns add $ns && ip link add h$$ type veth peer name n$$ &&
    ip link set n$$ netns $ns && ip addr add $net.1/24 dev h$$ && ip link set h$$ up &&
    ip -n $ns addr add $net.2/24 dev n$$ && ip -n $ns link set n$$ up &&
    ip -n $ns link set lo up
}
netns_down() { ip link del h$$ 2>/dev/null; ip netns del $ns 2>/dev/null; }
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null && netns_up 2>/dev/null; then
    trap 'netns_down; test_cleanup' EXIT
    port=${http##*:}
    token=$(head -c 24 /dev/urandom | base64 | tr -d "/+=")
    test_expect_success 'a token file others may read stops the scheduler at start with one line' '
        hpcq-local stop $CLUSTER >/dev/null &&
        echo $token > $TEST_ROOT/token && chmod 644 $TEST_ROOT/token &&
        sed -i "s/^metrics_listen = .*/metrics_listen = 0.0.0.0:$port/" $CLUSTER/scheduler.conf &&
        echo "http_token_file = $TEST_ROOT/token" >> $CLUSTER/scheduler.conf &&
        ! hpcq-scheduler --config $CLUSTER/scheduler.conf --log-file $TEST_ROOT/t.log 2> err &&
        test $(wc -l < err) = 1 && grep -q "must be readable by its owner only" err
    '
    test_expect_success 'from another address: 403 without the token, 200 with it' '
        chmod 600 $TEST_ROOT/token && hpcq-local start-scheduler $CLUSTER &&
        hpcq-local start-worker $CLUSTER 1 && hpcq-local start-worker $CLUSTER 2 &&
        test "$(ip netns exec $ns curl -s -o /dev/null -w "%{http_code}" http://$net.1:$port/metrics)" = 403 &&
        test "$(ip netns exec $ns curl -s -o /dev/null -w "%{http_code}" -H "Authorization: Bearer wrong-token-0123456789" http://$net.1:$port/api/v1/jobs)" = 403 &&
        ip netns exec $ns curl -sf -H "Authorization: Bearer $token" http://$net.1:$port/metrics | grep -q "^# HELP hpcq_user_jobs" &&
        ip netns exec $ns curl -sf -H "Authorization: Bearer $token" http://$net.1:$port/api/v1/jobs |
            jq -e ".meta.client.source == \"$net.2\" and (.jobs | length) >= 1 and (.jobs[0] | has(\"Variable_List\"))" &&
        test "$(code metrics)" = 200
    '
else
    test_skip 'a token file others may read stops the scheduler at start with one line' \
        'needs root and ip(8) for a network namespace'
    test_skip 'from another address: 403 without the token, 200 with it' \
        'needs root and ip(8) for a network namespace'
fi

test_done
