#!/bin/bash
# Long runs of the real workloads on spot nodes (issue 12, Done when): a
# hpcq-md run and a hpcq-climate run, each requested on spot nodes
# (-l spot=true) with -c auto, are reclaimed 3 times mid-run through the
# cloud's notices, AWS's instance-action and GCP's preempted (served by
# tests/spot-metadata.py on 127.0.0.1): each notice sends the checkpoint
# signal, the job moves once the app reports its checkpoint, then the
# provider takes the node; then the same with hosts that vanish with no
# notice (restarts from the last reported checkpoint).  Each run finishes
# on other nodes with final state bitwise identical to an uninterrupted
# run, loses at most one checkpoint interval per interruption, and qstat -f
# and the events show every attempt, checkpoint and reclaim.
#
# "The provider takes the node" is take_host: the worker and every process
# it started are killed at once (what a host that disappears does), never
# the worker alone, whose jobs would go on running.
. "$(dirname "$0")/lib.sh"
MD=$HPCQ_BUILDDIR/apps/md/hpcq-md
CLIMATE=$HPCQ_BUILDDIR/apps/climate/hpcq-climate
export OMP_NUM_THREADS=1
unset HPCQ_CHECKPOINT_DIR HPCQ_CHECKPOINT_INTERVAL

# Checkpoints every EVERY steps: the most an interruption may lose.
MD_EVERY=200
CL_EVERY=50
# Runs long enough to outlast three interruptions on this machine, however
# busy: about 40 s each at the speed a short run shows now (a host that
# vanishes is given up on only node_timeout after its last heartbeat, the
# fence's margin, worker/fence.h: each interruption takes that long too),
# and never fewer steps than three interruptions take.
# The speed is timed over N steps less the start-up (a run of N/10 steps):
# timed over a short run alone, the start-up made a quiet machine look
# several times slower than it runs, and the runs ended before their third
# interruption.
run_ns() {
    local t0 t1
    t0=$(date +%s%N) && "$@" >/dev/null 2>&1 && t1=$(date +%s%N) && echo $((t1 - t0))
}
steps_per_s() { # N SHORT LONG: steps a second from a run of N/10 steps and one of N
    local n=$1 short long
    short=$(run_ns $2) && long=$(run_ns $3) &&
    echo $(( n * 9 / 10 * 1000000000 / (long > short ? long - short : 1) ))
}
MD_STEPS=$(steps_per_s 3000 "$MD --cpu --cells 5x5x5 --steps 300 --thermo 0" \
    "$MD --cpu --cells 5x5x5 --steps 3000 --thermo 0")
MD_STEPS=$(( MD_STEPS * 40 > 8000 ? MD_STEPS * 40 : 8000 ))
CL_STEPS=$(steps_per_s 3000 \
    "$CLIMATE --case collision --nx 100 --nz 50 --sim-time $((300 * 4 / 9)) --quiet" \
    "$CLIMATE --case collision --nx 100 --nz 50 --sim-time $((3000 * 4 / 9)) --quiet")
CL_STEPS=$(( CL_STEPS * 40 > 3000 ? CL_STEPS * 40 : 3000 ))
echo "# hpcq-md: $MD_STEPS steps, hpcq-climate: $CL_STEPS steps"
MD_RUN="$MD --cpu --cells 5x5x5 --steps $MD_STEPS --thermo 50 --thermo-digits 17 --neigh-every 7 --checkpoint-every $MD_EVERY"
# (the collision case's step is 4/9 s)
CL_RUN="$CLIMATE --case collision --nx 100 --nz 50 --sim-time $((CL_STEPS * 4 / 9)) --checkpoint-every $CL_EVERY"

spot_metadata_start

# Four spot nodes of two cores: node1 and node3 on AWS, node2 and node4 on GCP.
aws_conf() {
    echo --worker-conf $1 "notice_provider=aws" --worker-conf $1 \
        "notice_url=http://127.0.0.1:$PORT/node$1/latest/meta-data/spot/instance-action"
}
gcp_conf() {
    echo --worker-conf $1 "notice_provider=gcp" --worker-conf $1 \
        "notice_url=http://127.0.0.1:$PORT/node$1/computeMetadata/v1/instance/preempted"
}
cluster_start 4 --cpus-per-worker 2 --node-timeout 3 \
    --labels 1=spot --labels 2=spot --labels 3=spot --labels 4=spot \
    $(aws_conf 1) $(gcp_conf 2) $(aws_conf 3) $(gcp_conf 4) \
    --worker-conf 1 "notice_interval = 0.2" --worker-conf 2 "notice_interval = 0.2" \
    --worker-conf 3 "notice_interval = 0.2" --worker-conf 4 "notice_interval = 0.2"

node_state() { pbsnodes -F json "$1" | jq -r '.nodes[0].state'; }
reclaiming() { node_state $1 | grep -qxE "draining|reclaiming"; }
host_of() { job_attr $1 exec_host | cut -d/ -f1; }
descendants() { local c; for c in $(pgrep -P $1); do echo $c; descendants $c; done; }
take_host() {
    local w
    w=$(cat $CLUSTER/worker${1#node}.pid) && kill -9 $w $(descendants $w)
}
boot() {
    rm -f $META/$1 && hpcq-local start-worker $CLUSTER ${1#node} &&
    wait_until 60 eval "test \"\$(node_state $1)\" = free"
}
on() { test "$(job_attr $1 run_count)" = $2 && has_state $1 R && test "$(host_of $1)" = $3; }
# The last step attempt N of a run wrote (md: a thermo line, climate: a
# progress or checkpoint line), and the step attempt N restarted from.
md_last() {
    awk '/^ *[0-9]+ +-?[0-9]/ { s = $1 }
         /checkpoint written at step/ { sub (/.*at step /, ""); s = $1 + 0 }
         END { print s + 0 }' $1/out.$2
}
md_from() { sed -n 's/.*restarting from step \([0-9]*\).*/\1/p' $1/out.$2; }
cl_last() { sed -n 's/^\(step\|checkpoint at step\) \([0-9]*\).*/\2/p' $1/out.$2 | tail -1; }
cl_from() { sed -n 's/.*restarted from .* at step \([0-9]*\).*/\1/p' $1/out.$2; }
# Attempt N has got somewhere: AT steps past where it started.
under_way() { test "$(${3}_last $1 $2)" -ge $(( $(${3}_from $1 $2 || echo 0) + $4 )) 2>/dev/null; }

# interrupt ID DIR APP N FROM TO HOW: with the job's attempt N (0 = the
# first) running on FROM and under way, HOW takes FROM away (notice: its
# provider's notice, then the provider takes it once the job moved; kill:
# the host vanishes) and the job runs again on TO (the other nodes are
# offline meanwhile, so it goes there); FROM boots again.
interrupt() {
    local id=$1 dir=$2 app=$3 n=$4 from=$5 to=$6 how=$7 others
    others=$(for i in 1 2 3 4; do [ node$i = $from ] || [ node$i = $to ] || echo node$i; done)
    wait_until 300 under_way $dir $n $app $(( 2 * $(eval echo \$${app^^}_EVERY) )) || return 1
    pbsnodes -o $others || return 1
    case $how in
    notice)
        # AWS gives two minutes, GCP 30 s: the job's checkpoint signal goes
        # out at the notice, and it moves once its checkpoint is reported,
        # long before; then the provider takes the node.
        case $from in
        node1|node3) echo "aws 120" >$META/$from ;;
        *) echo gcp >$META/$from ;;
        esac &&
        wait_until 20 reclaiming $from &&
        wait_until 60 on $id $((n + 2)) $to && take_host $from ;;
    kill)
        take_host $from && wait_until 60 on $id $((n + 2)) $to ;;
    esac || return 1
    pbsnodes -r $others && wait_until 30 eval "test \"\$(node_state $from)\" = down" &&
    boot $from
}
# One thread, as the uninterrupted runs (the worker would give the job
# its cores, and a reduction over two threads adds in another order).
md_script() { echo "cd $1 && export OMP_NUM_THREADS=1 && exec stdbuf -oL $MD_RUN --restart-auto --dump-state final.state >out.\$HPCQ_RESTART_COUNT 2>&1"; }
cl_script() { echo "cd $1 && export OMP_NUM_THREADS=1 && exec stdbuf -oL $CL_RUN --restart --dump final.bin >out.\$HPCQ_RESTART_COUNT 2>&1"; }

# Every interruption lost at most one interval: attempt N+1 restarted from
# no earlier than EVERY steps before the last step attempt N wrote (it may
# be later: a checkpoint at a notice writes no progress line).
lost_at_most_one_interval() {
    local dir=$1 app=$2 every=$3 n from last
    for n in 0 1 2; do
        last=$(${app}_last $dir $n) && from=$(${app}_from $dir $((n + 1))) &&
        echo "attempt $n: last step $last, attempt $((n + 1)) from $from" &&
        test -n "$from" && test "$from" -gt 0 && test $((last - from)) -le $every ||
        return 1
    done
}

# The uninterrupted runs, meanwhile (the machine's other core).
mkdir $WORK/ref
(cd $WORK/ref && $MD_RUN --checkpoint-dir ck-md --dump-state md.state >md.out 2>&1 &&
    $CL_RUN --checkpoint-dir ck-cl --quiet --dump cl.bin >cl.out 2>&1; echo $? >done) &

# run_app APP HOW: the run on spot nodes, its first attempt on node1 (the
# others offline until it starts), interrupted 3 times by HOW, moving on
# to node2, node3, node4.
run_app() {
    local app=$1 how=$2 dir=$WORK/$1-$2 id
    mkdir -p $dir && pbsnodes -o node2 node3 node4 &&
    id=$(${app}_script $dir | qsub -N $app-$how -l select=1:ncpus=2 -l spot=true -c auto $(app_vars)) &&
    echo $id >$dir/id && wait_until 20 on $id 1 node1 && pbsnodes -r node2 node3 node4 &&
    interrupt $id $dir $app 0 node1 node2 $how &&
    interrupt $id $dir $app 1 node2 node3 $how &&
    interrupt $id $dir $app 2 node3 node4 $how &&
    wait_state $id F 900 && test "$(job_attr $id Exit_status)" = 0
}
id_of() { cat $WORK/$1/id; }
requeues() {
    db_query "SELECT detail FROM events WHERE job_seq = $(seqno $1) AND type = 'requeued' ORDER BY id"
}
notices() {
    db_query "SELECT detail FROM events WHERE job_seq IS NULL AND type = 'node_reclaim_notice' ORDER BY id"
}

test_expect_success 'hpcq-md on spot nodes: reclaimed 3 times by AWS and GCP notices' '
    n0=$(notices | wc -l) && run_app md notice && notices >n.txt && cat n.txt &&
    test $(wc -l <n.txt) = $((n0 + 3)) && tail -3 n.txt >n3.txt &&
    grep -q "^node1: aws terminate" n3.txt && grep -q "^node2: gcp preempt" n3.txt &&
    grep -q "^node3: aws terminate" n3.txt
'

test_expect_success 'hpcq-climate on spot nodes: reclaimed 3 times by AWS and GCP notices' '
    run_app cl notice && notices | tail -3 >n3.txt && cat n3.txt &&
    grep -q "^node1: aws terminate" n3.txt && grep -q "^node2: gcp preempt" n3.txt &&
    grep -q "^node3: aws terminate" n3.txt
'

test_expect_success 'both finished bitwise identical to the uninterrupted runs' '
    wait_until 900 test -s $WORK/ref/done && cat $WORK/ref/*.out &&
    test "$(cat $WORK/ref/done)" = 0 &&
    cmp $WORK/ref/md.state $WORK/md-notice/final.state &&
    cmp $WORK/ref/cl.bin $WORK/cl-notice/final.bin
'

test_expect_success 'each reclaim lost at most one checkpoint interval' '
    lost_at_most_one_interval $WORK/md-notice md $MD_EVERY &&
    lost_at_most_one_interval $WORK/cl-notice cl $CL_EVERY
'

test_expect_success 'qstat -f and the events show every attempt and reclaim' '
    for d in md-notice cl-notice; do
        id=$(id_of $d) && test "$(job_attr $id run_count)" = 4 &&
        qstat -f -x $id | grep -q "Resource_List.spot = True" &&
        requeues $id >r.txt && cat r.txt && test $(wc -l <r.txt) = 3 &&
        sed -n 1p r.txt | grep -q "^reclaimed: node node1 (aws terminate); checkpoint reported" &&
        sed -n 2p r.txt | grep -q "^reclaimed: node node2 (gcp preempt); checkpoint reported" &&
        sed -n 3p r.txt | grep -q "^reclaimed: node node3 (aws terminate); checkpoint reported" &&
        qstat -f -x $id >f.txt && grep "checkpoint\.\|Checkpoint" f.txt &&
        grep -q "Checkpoint = auto" f.txt &&
        test "$(sed -n "s/^ *checkpoint.count = //p" f.txt)" -ge 3 &&
        test "$(db_query "SELECT count(*) FROM events WHERE job_seq = $(seqno $id)
                AND type = \"checkpoint_requested\" AND detail LIKE \"%reclaim%\"")" = 3 &&
        test "$(db_query "SELECT count(*) FROM attempts WHERE job_seq = $(seqno $id)")" = 4 &&
        test "$(db_query "SELECT group_concat(node, \",\") FROM (SELECT node FROM attempts
                WHERE job_seq = $(seqno $id) ORDER BY attempt)")" = node1,node2,node3,node4 ||
        exit 1
    done
'

test_expect_success 'hpcq-md and hpcq-climate on hosts that vanish 3 times, no notice' '
    run_app md kill && run_app cl kill &&
    cmp $WORK/ref/md.state $WORK/md-kill/final.state &&
    cmp $WORK/ref/cl.bin $WORK/cl-kill/final.bin &&
    lost_at_most_one_interval $WORK/md-kill md $MD_EVERY &&
    lost_at_most_one_interval $WORK/cl-kill cl $CL_EVERY &&
    for d in md-kill cl-kill; do
        id=$(id_of $d) && test "$(job_attr $id run_count)" = 4 &&
        test "$(requeues $id | grep -c "stopped sending heartbeats")" = 3 || exit 1
    done
'

test_expect_success 'four attempts of each run, no change of state refused as illegal' '
    for d in md-notice cl-notice md-kill cl-kill; do
        test "$(ls $WORK/$d/out.* | wc -l)" = 4 || exit 1
    done &&
    ! grep "illegal state change" $CLUSTER/scheduler.log
'

test_done
