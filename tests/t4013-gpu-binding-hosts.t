#!/bin/bash
# qstat -f's exec_binding for each host of a running job (issue 26 part
# 1): the first host as its worker bound the job (cores, memory nodes,
# GPUs), then every chunk on another host with the cores and GPUs the
# scheduler gave it there, marked unbound (a sister host runs the job's
# processes in its cgroup without a cpuset); a job on one host has one
# host's entry; gone when the job ends.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --gpus-per-worker 2 --kill-delay 1

has_binding() { [ -n "$(job_attr "$1" exec_binding)" ]; }
binding() { wait_until 10 has_binding "$1" && job_attr "$1" exec_binding; }

test_expect_success 'a 2-host GPU job: both hosts, the second as allocated and unbound' '
    id=$(echo "sleep 30" | qsub -l select=2:ncpus=1:ngpus=1 -l place=scatter) &&
    wait_state $id R && echo $id > j && b=$(binding $id) && echo "$b" &&
    test "$(job_attr $id exec_host)" = "node1/0*1+node2/0*1" &&
    echo "$b" | grep -Eqx "node1:cpus=[0-9,-]+(:mems=[0-9,-]+)?:gpus=[01]\+node2:ncpus=1:gpus=[01]:unbound"
'

test_expect_success 'the second host'\''s GPU is the one the job holds there' '
    id=$(cat j) && b=$(job_attr $id exec_binding) &&
    g=$(echo "$b" | sed -n "s/.*+node2:ncpus=1:gpus=\([0-9]*\):unbound$/\1/p") && test -n "$g" &&
    other=$(echo "sleep 30" | qsub -l select=1:ncpus=1:ngpus=1:host=node2) && wait_state $other R &&
    b2=$(binding $other) && echo "$b2" &&
    test "$(echo "$b2" | sed -n "s/.*:gpus=\([0-9]*\)$/\1/p")" = $((1 - g)) && qdel $other
'

test_expect_success 'a job on one host: that host alone' '
    id=$(echo "sleep 30" | qsub -l select=1:ncpus=1) && wait_state $id R && b=$(binding $id) &&
    echo "$b" && ! echo "$b" | grep -q + && qdel $id
'

test_expect_success 'gone when the job ends' '
    id=$(cat j) && qdel $id && wait_state $id F 30 && test -z "$(job_attr $id exec_binding)"
'

test_done
