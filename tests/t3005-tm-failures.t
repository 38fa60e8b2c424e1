#!/bin/bash
# Failures across hosts (issue 11 part 5), on hosts of their own: a sister
# host whose worker is killed (kill -9) or whose namespace loses its link,
# and a mother superior that dies.  The job ends on every host with no
# process left; a rerunnable job is requeued as a new attempt on other
# hosts; the comment says which host failed.
. "$(dirname "$0")/lib.sh"

hosts_require
cluster_start 4 --cpus-per-worker 1 --hosts --node-timeout 4

# procs PATTERN: how many processes run exactly that command line.
procs() { pgrep -x -f "$1" | wc -l; }
procs_are() { [ "$(procs "$1")" -eq "$2" ]; }
free_nodes_are() { [ "$(pbsnodes -a | grep -c "state = free")" -eq "$1" ]; }
# the host of the Nth (1-based) chunk of a job's exec_host
chunk_host() { job_attr $1 exec_host | tr + "\n" | sed -n "$2p" | cut -d/ -f1; }

# Every vnode runs "sleep 10<attempt><tag>": each attempt's processes apart.
cat > hold.sh <<'S'
#!/bin/bash
pbsdsh sleep 10$HPCQ_ATTEMPT$TAG
S

test_expect_success 'a sister worker killed: the job is requeued on other hosts, naming the host' '
    id=$(qsub -v TAG=1 -l select=2:ncpus=1,place=scatter -o a.out -j oe hold.sh) &&
    echo $id > a.id &&
    wait_until 30 procs_are "sleep 1011" 2 &&
    sister=$(chunk_host $id 2) && i=${sister#node} && echo $sister > a.sister &&
    kill -9 $(cat "$CLUSTER/worker$i.pid") &&
    wait_until 30 procs_are "sleep 1011" 0 &&
    wait_until 30 procs_are "sleep 1021" 2 &&
    test "$(job_attr $id run_count)" = 2 &&
    db_query "SELECT reason FROM attempts WHERE job_seq = $(seqno $id) AND attempt = 1" |
        grep -q "host $sister failed" &&
    ! job_attr $id exec_host | grep -q "$sister/" &&
    qdel $id && wait_state $id F 30 &&
    wait_until 10 procs_are "sleep 1021" 0
'
hpcq-local start-worker "$CLUSTER" "$(sed s/node// a.sister)" >/dev/null 2>&1

test_expect_success 'a sister host loses its link: a non-rerunnable job fails, naming it' '
    wait_until 30 free_nodes_are 4 &&
    id=$(qsub -r n -v TAG=2 -l select=2:ncpus=1,place=scatter -o b.out -j oe hold.sh) &&
    wait_until 30 procs_are "sleep 1012" 2 &&
    sister=$(chunk_host $id 2) && i=${sister#node} && echo $i > b.sister &&
    on_host $i ip link set eth0 down &&
    wait_state $id F 60 &&
    test "$(job_attr $id Exit_status)" != 0 &&
    qstat -f -x $id | grep -q "$sister" &&
    wait_until 30 procs_are "sleep 1012" 0
'
on_host "$(cat b.sister)" ip link set eth0 up

test_expect_success 'the mother superior dies: the sisters end its processes; the job fails' '
    wait_until 60 free_nodes_are 4 &&
    id=$(qsub -r n -v TAG=3 -l select=3:ncpus=1,place=scatter -o c.out -j oe hold.sh) &&
    wait_until 30 procs_are "sleep 1013" 3 &&
    mother=$(chunk_host $id 1) && i=${mother#node} && echo $i > c.mother &&
    kill -9 $(cat "$CLUSTER/worker$i.pid") &&
    wait_until 30 procs_are "sleep 1013" 0 &&
    wait_state $id F 60 &&
    qstat -f -x $id | grep -q "node $mother" &&
    hpcq-local start-worker "$CLUSTER" $i >/dev/null &&
    wait_until 30 free_nodes_are 4
'

test_done
