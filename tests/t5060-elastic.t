#!/bin/bash
# Elastic cloud nodes (Slurm's power saving): nothing powered at first;
# waiting jobs resume exactly the nodes they need, the cheapest first
# (spot before on-demand) and never one twice; idle nodes are suspended
# after suspend_time; a resume that fails, or whose node never registers,
# marks the node down with the reason; bad settings are refused before
# anything changes.  The cloud provider is hpcq-local's (it starts and
# stops workers), behind a script that logs each call and fails on demand.
. "$(dirname "$0")/lib.sh"

cat >provider.sh <<EOF
#!/bin/bash
# resume|suspend DIR NODE...: hpcq-local's provider, with a log; a node
# with a fail.NODE file fails to resume, one with silent.NODE is accepted
# but never started.
what=\$1 dir=\$2; shift 2
echo "\$what \$*" >>$WORK/calls.log
for n in "\$@"; do
    if [ "\$what" = resume ] && [ -e $WORK/fail.\$n ]; then echo "no capacity for \$n"; exit 3; fi
done
ok=()
for n in "\$@"; do [ "\$what" = resume ] && [ -e $WORK/silent.\$n ] || ok+=("\$n"); done
[ \${#ok[@]} -eq 0 ] || exec $HPCQ_BUILDDIR/cli/hpcq-local power-\$what "\$dir" "\${ok[@]}"
EOF
chmod +x provider.sh

# Six cloud nodes of 8 cores: node5 a spot node at 0.3 an hour, node6
# on-demand at 0.9, node1-4 on-demand at 1.0.
cluster_start 0 --cloud 6 --cpus-per-worker 8 \
    --labels 1=price_per_hour=1 --labels 2=price_per_hour=1 --labels 3=price_per_hour=1 \
    --labels 4=price_per_hour=1 --labels 5=spot,price_per_hour=0.3 \
    --labels 6=price_per_hour=0.9 \
    --sched-config "resume_program=$WORK/provider.sh resume $CLUSTER" \
    --sched-config "suspend_program=$WORK/provider.sh suspend $CLUSTER" \
    --sched-config suspend_time=3 --sched-config resume_timeout=6

node_state() { pbsnodes -F json "$1" | jq -r '.nodes[0].state'; }
node_comment() { pbsnodes -F json "$1" | jq -r '.nodes[0].comment'; }
states() { pbsnodes -F json | jq -r '[.nodes[].state] | join(" ")'; }
workers_alive() { ls $CLUSTER/worker*.pid 2>/dev/null | wc -l; }
resumed() { grep "^resume " calls.log 2>/dev/null | cut -d" " -f2- | tr " " "\n" | sort; }
suspended() { grep "^suspend " calls.log 2>/dev/null | cut -d" " -f2- | tr " " "\n" | sort; }
all_cloud() { test "$(states)" = "cloud cloud cloud cloud cloud cloud"; }
all_done() { for j in $(cat "$1"); do has_state $j F || return 1; done; }
nevents() { db_query "SELECT count(*) FROM events WHERE job_seq IS NULL AND type = '$1'"; }
host_of() { job_attr $1 exec_host | cut -d/ -f1; }

test_expect_success '0 nodes powered at first: six cloud nodes, no worker' '
    all_cloud && test "$(workers_alive)" = 0 && ! test -e calls.log &&
    pbsnodes -F json | jq -e "[.nodes[] | select(.cloud and .power == \"off\")] | length == 6" &&
    pbsnodes -l | grep -c cloud | grep -qx 6
'

test_expect_success '20 queued jobs resume exactly the nodes needed, the cheapest first' '
    for i in $(seq 20); do echo "sleep 2" | qsub -h -l select=1:ncpus=1; done >ids &&
    qrls $(cat ids) && wait_until 90 all_done ids &&
    for j in $(cat ids); do test "$(job_attr $j Exit_status)" = 0 || exit 1; done &&
    resumed >r && cat calls.log && test "$(cat r | tr "\n" " ")" = "node1 node5 node6 " &&
    test "$(sort -u r | wc -l)" = 3 && test "$(nevents node_resumed)" = 3 &&
    for n in node2 node3 node4; do test "$(node_state $n)" = cloud || exit 1; done
'

test_expect_success 'idle nodes are suspended after suspend_time' '
    wait_until 30 all_cloud && test "$(suspended | tr "\n" " ")" = "node1 node5 node6 " &&
    wait_until 10 eval "test \$(workers_alive) = 0" &&
    test "$(nevents node_suspended)" = 3
'

test_expect_success 'a failed resume marks the node down with the reason' '
    touch fail.node5 silent.node6 && : >calls.log &&
    j=$(echo "hostname" | qsub -l select=1:ncpus=8) && wait_state $j F 60 &&
    test "$(job_attr $j Exit_status)" = 0 && test "$(host_of $j)" = node1 &&
    cat calls.log && test "$(head -2 calls.log)" = "$(printf "resume node5\nresume node6")" &&
    test "$(node_state node5)" = down && test "$(node_state node6)" = down &&
    test "$(node_comment node5)" = "resume failed: resume_program exited with status 3: no capacity for node5" &&
    test "$(node_comment node6)" = "resume failed: its worker did not register within resume_timeout (6 s)" &&
    test "$(nevents node_resume_failed)" = 2 && pbsnodes -l | grep -q "^node5 *down *resume failed"
'

test_expect_success 'pbsnodes -r makes them cloud nodes again' '
    rm -f fail.node5 silent.node6 && pbsnodes -r node5 node6 &&
    test "$(node_state node5)" = cloud && test "$(node_state node6)" = cloud &&
    wait_until 30 all_cloud
'

test_expect_success 'a spot node first; -l spot=false on the cheapest on-demand node' '
    a=$(echo "sleep 1" | qsub -l select=1:ncpus=8) && wait_state $a F 60 &&
    test "$(host_of $a)" = node5 &&
    b=$(echo "sleep 1" | qsub -l select=1:ncpus=8 -l spot=false) && wait_state $b F 60 &&
    test "$(host_of $b)" = node6 && test "$(job_attr $b Resource_List.spot)" = False &&
    c=$(echo "sleep 1" | qsub -l select=1:ncpus=8,spot=true) && wait_state $c F 60 &&
    test "$(host_of $c)" = node5
'

test_expect_success 'a resumed node that runs a job survives a scheduler kill -9' '
    wait_until 30 all_cloud &&
    j=$(echo "sleep 6" | qsub -l select=1:ncpus=8) && wait_state $j R 60 &&
    n=$(host_of $j) && pid=$(cat $CLUSTER/scheduler.pid) && kill -9 $pid &&
    wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" &&
    hpcq-local start-scheduler $CLUSTER && wait_state $j F 60 &&
    test "$(job_attr $j Exit_status)" = 0 && test "$(job_attr $j run_count)" = 1 &&
    wait_until 30 eval "test \"\$(node_state $n)\" = cloud"
'

# Refused settings: one line on stderr, exit 1, and no database made.
refused() {
    local want=$1 dir=$WORK/fresh.$RANDOM
    shift
    sed -e "/^state_dir/d" -e "/^socket/d" -e "/^listen/d" $CLUSTER/scheduler.conf >bad.conf &&
    printf "%s\n" "$@" >>bad.conf &&
    ! hpcq-scheduler --config bad.conf --state-dir $dir --socket $dir.sock \
        --listen 127.0.0.1:0 --log-file $WORK/bad.log 2>bad.err &&
    cat bad.err && test "$(wc -l <bad.err)" = 1 &&
    test "$(cat bad.err)" = "hpcq-scheduler: $want" && ! test -e $dir/hpcq.sqlite
}

test_expect_success 'bad settings: one line, nothing changes' '
    echo "not a program" >plain.txt &&
    refused "resume_program '\''/nonexistent/resume'\'': No such file or directory" \
        "resume_program = /nonexistent/resume" &&
    refused "suspend_program '\''$WORK/plain.txt'\'': not an executable file" \
        "suspend_program = $WORK/plain.txt" &&
    refused "resume_program '\''provider.sh'\'': not an absolute path" \
        "resume_program = provider.sh" &&
    refused "cloud_nodes: bad host list '\''n[3-1]'\'' (malformed, a name given twice or too long)" \
        "cloud_nodes = n[3-1] ncpus=2" &&
    refused "cloud_nodes: '\''n1'\'' has no ncpus=N" "cloud_nodes = n1 mem=2gb" &&
    refused "cloud_nodes: unknown key '\''cpus'\'' (ncpus, mem, ngpus, gpu_model, labels, price_per_hour)" \
        "cloud_nodes = n1 cpus=2" &&
    test "$(states)" = "cloud cloud cloud cloud cloud cloud"
'

test_expect_success 'no change of state was refused as illegal' '
    ! grep "illegal state change" $CLUSTER/scheduler.log
'

test_done
