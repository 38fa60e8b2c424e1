#!/bin/bash
# GPU nodes' topology (issue 26 part 1): the worker reads it with hwloc, or
# from an hwloc XML file (a simulated DGX-H100-like node: 2 sockets, 8
# GPUs, 4 behind each socket), reports it (pbsnodes -a), and binds each
# job's cores and memory near its GPUs: a GPU job on its GPU's NUMA node,
# a CPU-only job away from free GPUs, -l gpu_bind=none off; qstat -f's
# exec_binding says where.  On this machine's own topology the job's
# cpuset cgroup holds those cores and memory nodes.
. "$(dirname "$0")/lib.sh"

dgx=$HPCQ_SRCDIR/tests/data/topo-dgx-h100.xml
cluster_start 1 --cpus-per-worker 224 --gpus-per-worker 8 --kill-delay 1 \
    --worker-conf 1 "topology_xml = $dgx"

# exec_binding comes with the worker's job.started, a moment after R.
has_binding() { [ -n "$(job_attr "$1" exec_binding)" ]; }
binding() { wait_until 10 has_binding "$1" && job_attr "$1" exec_binding; }
# the first threads of socket 0 (0-55) and socket 1 (56-111)
in_range() { # LIST LO HI: every CPU of LIST within LO..HI
    local part a b
    for part in ${1//,/ }; do
        a=${part%-*}; b=${part#*-}
        [ "$a" -ge "$2" ] && [ "$b" -le "$3" ] || return 1
    done
}
field() { echo "$1" | tr ':' '\n' | sed -n "s/^$2=//p"; }

test_expect_success 'pbsnodes -a shows the topology, labelled simulated' '
    pbsnodes -a node1 > n.out && cat n.out &&
    grep -qx "     topology = 2 sockets, 112 cores, 224 threads, 2 NUMA nodes (simulated)" n.out &&
    grep -qx "     resources_available.sockets = 2" n.out &&
    grep -qx "     topology.numa0 = socket 0, cpus 0-55,112-167, gpus 0,1,2,3" n.out &&
    grep -qx "     topology.numa1 = socket 1, cpus 56-111,168-223, gpus 4,5,6,7" n.out
'

test_expect_success 'pbsnodes -F json carries it too' '
    pbsnodes -a -F json node1 > n.json &&
    test "$(jq -r ".nodes.node1.topology.numa[1].gpus" n.json)" = "4,5,6,7" ||
    test "$(jq -r "[.. | objects | select(has(\"topology\"))][0].topology.numa[1].gpus" n.json)" = "4,5,6,7"
'

test_expect_success 'four 1-GPU jobs: the four GPUs of socket 0, its cores and memory' '
    for k in 1 2 3 4; do
        echo "echo cvd=\$CUDA_VISIBLE_DEVICES; sleep 30" |
            qsub -l select=1:ncpus=8:ngpus=1 > id$k || return 1
    done &&
    for k in 1 2 3 4; do wait_state $(cat id$k) R || return 1; done &&
    gpus="" &&
    for k in 1 2 3 4; do
        b=$(binding $(cat id$k)) && echo "$b" &&
        test "$(field "$b" mems)" = 0 && in_range "$(field "$b" cpus)" 0 55 &&
        gpus="$gpus $(field "$b" gpus)" || return 1
    done &&
    test "$(echo $gpus | tr " " "\n" | sort -n | tr "\n" " ")" = "0 1 2 3 "
'

test_expect_success 'a CPU-only job keeps off socket 1, whose GPUs are free' '
    c=$(echo "sleep 30" | qsub -l select=1:ncpus=16) && wait_state $c R &&
    b=$(binding $c) && echo "$b" &&
    test "$(field "$b" mems)" = 0 && in_range "$(field "$b" cpus)" 0 55 &&
    test -z "$(field "$b" gpus)" && qdel $c
'

test_expect_success 'a job on a socket-1 GPU gets socket 1 cores and memory' '
    g=$(echo "sleep 30" | qsub -l select=1:ncpus=4:ngpus=1) && wait_state $g R &&
    b=$(binding $g) && echo "$b" &&
    test "$(field "$b" gpus)" -ge 4 && test "$(field "$b" mems)" = 1 &&
    in_range "$(field "$b" cpus)" 56 111 && qdel $g
'

test_expect_success '-l gpu_bind=none turns it off: the lowest free cores instead' '
    g=$(echo "sleep 30" | qsub -l select=1:ncpus=4:ngpus=1 -l gpu_bind=none) &&
    wait_state $g R && b=$(binding $g) && echo "$b" &&
    test "$(field "$b" gpus)" -ge 4 && test "$(field "$b" mems)" = 0 &&
    test "$(job_attr $g Resource_List.gpu_bind)" = none && qdel $g
'

test_expect_success 'sbatch --gpu-bind=none: the same, as Slurm spells it' '
    n=$(sbatch --parsable -n 1 -c 4 --gres=gpu:1 --gpu-bind=none --wrap "sleep 30") &&
    g=$(qstat | awk -v n=$n "\$1 ~ \"^\" n \"[.]\" { print \$1 }") && echo "$g" &&
    wait_state $g R && b=$(binding $g) && echo "$b" &&
    test "$(field "$b" gpus)" -ge 4 && test "$(field "$b" mems)" = 0 &&
    test "$(job_attr $g Resource_List.gpu_bind)" = none && qdel $g
'

test_expect_success 'sbatch --cpu-bind=none and --gpu-bind=closest; map_gpu refused in one line' '
    n=$(sbatch --parsable --cpu-bind=verbose,none --gpu-bind=closest --wrap true) &&
    j=$(qstat -x | awk -v n=$n "\$1 ~ \"^\" n \"[.]\" { print \$1 }") &&
    test "$(job_attr $j Resource_List.cpu_bind)" = none &&
    test "$(job_attr $j Resource_List.gpu_bind)" = closest &&
    ! sbatch --gpu-bind=map_gpu:0 --wrap true 2> s.err && cat s.err &&
    test "$(wc -l < s.err)" -eq 1 &&
    grep -qx "sbatch: error: unsupported --gpu-bind .map_gpu:0. (closest or none)" s.err
'

test_expect_success 'bad gpu_bind and cpu_bind are refused in one line' '
    ! echo true | qsub -l gpu_bind=maybe > b.out 2> b.err &&
    test "$(wc -l < b.err)" -eq 1 && grep -q "invalid gpu_bind .maybe. (closest or none)" b.err &&
    ! echo true | qsub -l cpu_bind=sockets 2> c.err &&
    test "$(wc -l < c.err)" -eq 1 && grep -q "invalid cpu_bind" c.err
'

test_expect_success 'the GPU jobs end' '
    for k in 1 2 3 4; do qdel $(cat id$k); done &&
    for k in 1 2 3 4; do wait_state $(cat id$k) F || return 1; done
'

test_expect_success 'a worker given an unreadable topology_xml refuses to start, in one line' '
    printf "server = 127.0.0.1:1\nnode_name = bad\nspool_dir = %s/badspool\ntopology_xml = /no/such.xml\nauth = none\nlog_file = %s/bad.log\n" "$WORK" "$WORK" > bad.conf &&
    ! timeout 10 hpcq-worker --config bad.conf > bad.out 2> bad.err &&
    cat bad.err && test "$(wc -l < bad.err)" -eq 1 && grep -q "/no/such.xml" bad.err
'

cluster_stop
# This machine's own topology: the cgroup holds the cores and memory node.
CLUSTER=$WORK/c2
cluster_start 1 --cpus-per-worker 2 --kill-delay 1
cg=$(containment)
test_expect_success 'on this machine: the topology is read, not simulated' '
    pbsnodes -a node1 > r.out && grep "topology" r.out &&
    grep -q "^     topology = .* NUMA node" r.out && ! grep -q simulated r.out
'
case $cg in
"cgroup v1"*cpuset*|"cgroup v2"*cpuset*)
    test_expect_success 'the cpuset cgroup holds the bound cores and memory node (shown while it runs)' '
        id=$(echo "p=\$(awk -F: '\''\$2 ~ /cpuset/ {print \$3}'\'' /proc/self/cgroup);
                  d=/sys/fs/cgroup/cpuset\$p; [ -d \$d ] || d=/sys/fs/cgroup\$p;
                  echo cpus=\$(cat \$d/cpuset.cpus) mems=\$(cat \$d/cpuset.mems); sleep 3" |
             qsub -l ncpus=1) && b=$(binding $id) && echo "$b" && wait_state $id F &&
        cat STDIN.o$(seqno $id) && test -z "$(job_attr $id exec_binding)" &&
        grep -qx "cpus=$(field "$b" cpus) mems=$(field "$b" mems)" STDIN.o$(seqno $id)
    ' ;;
*) test_skip 'the cpuset cgroup holds the bound cores and memory node (shown while it runs)' "no cpuset cgroup: $cg" ;;
esac

test_done
