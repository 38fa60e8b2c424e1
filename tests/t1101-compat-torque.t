#!/bin/bash
# Torque's request forms run as PBS Pro converts them: the issue's most
# common header (nodes=2:ppn=8 with a job-wide mem=8gb) runs on two nodes,
# with Torque's variables; host lists, node properties and procs place
# where they say.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 8 --mem-per-worker 16gb --labels 2=bigmem

cat > torque.sh <<'S'
#!/bin/bash
#PBS -N torque
#PBS -l nodes=2:ppn=8
#PBS -l mem=8gb,walltime=00:10:00
echo "nodes=$PBS_NUM_NODES ppn=$PBS_NUM_PPN np=$PBS_NP"
sort -u $PBS_NODEFILE | tr '\n' ' '; echo
S

test_expect_success 'nodes=2:ppn=8 with mem=8gb runs on two nodes, 4gb each' '
    id=$(qsub torque.sh) && wait_state $id F &&
    test "$(job_attr $id Exit_status)" = 0 &&
    test "$(job_attr $id Resource_List.select)" = "2:ncpus=8:mem=4gb:mpiprocs=8" &&
    test "$(job_attr $id Resource_List.place)" = scatter &&
    test "$(job_attr $id Resource_List.mem)" = 8gb &&
    job_attr $id exec_vnode | grep -q "(node1:ncpus=8:mem=4gb)+(node2:ncpus=8:mem=4gb)" &&
    grep -qx "nodes=2 ppn=8 np=16" torque.o$(seqno $id) &&
    grep -qx "node1 node2 " torque.o$(seqno $id)
'

test_expect_success 'nodes=1:ppn=4:gpus=0 with mem and walltime in one -l' '
    id=$(echo true | qsub -l nodes=1:ppn=4,mem=2gb,walltime=60) && wait_state $id F &&
    test "$(job_attr $id Resource_List.select)" = "1:ncpus=4:mem=2gb:mpiprocs=4"
'

test_expect_success 'nodes=host1+host2 runs on exactly those hosts' '
    id=$(echo "sort -u \$PBS_NODEFILE" | qsub -l nodes=node2+node1 -N hosts) &&
    wait_state $id F &&
    test "$(job_attr $id Resource_List.select)" = "1:ncpus=1:host=node2+1:ncpus=1:host=node1" &&
    test "$(cat hosts.o$(seqno $id) | tr "\n" " ")" = "node1 node2 "
'

test_expect_success 'a node property picks the nodes that carry it' '
    id=$(echo "hostname" | qsub -l nodes=1:ppn=2:bigmem -N prop) && wait_state $id F &&
    test "$(job_attr $id Resource_List.select)" = "1:ncpus=2:mpiprocs=2:bigmem=True" &&
    job_attr $id exec_host | grep -q "^node2/"
'

test_expect_success 'a property no node has is refused at submission, saying why' '
    ! echo true | qsub -l nodes=1:gpu80 2>err &&
    grep -q "no node can satisfy select=1:ncpus=1:gpu80=True" err
'

test_expect_success 'procs=N: N cores wherever they fit' '
    id=$(echo "wc -l < \$PBS_NODEFILE" | qsub -l procs=3 -N procs) && wait_state $id F &&
    test "$(job_attr $id Resource_List.select)" = "3:ncpus=1" &&
    grep -qx 3 procs.o$(seqno $id)
'

test_expect_success 'pmem is per process: nodes=2:ppn=2 with pmem=1gb has 2gb a node' '
    id=$(echo true | qsub -l nodes=2:ppn=2,pmem=1gb) && wait_state $id F &&
    test "$(job_attr $id Resource_List.select)" = "2:ncpus=2:mem=2gb:mpiprocs=2"
'

test_expect_success 'bad Torque requests are refused with one line naming the item' '
    ! echo true | qsub -l nodes=2:ppn=2,ncpus=3 2>err && test $(wc -l < err) = 1 &&
    grep -q "ncpus=3 is not a multiple of the 4 processors" err &&
    ! echo true | qsub -l nodes=2:mem=1gb 2>err && test $(wc -l < err) = 1 &&
    grep -q "unknown resource .mem. in nodes" err &&
    ! echo true | qsub -l select=1:ncpus=1,vmem=1gb 2>err && grep -q "vmem is Torque" err
'

test_expect_success 'Torque arrays (-t) see PBS_ARRAYID' '
    id=$(echo "echo idx=\$PBS_ARRAYID" | qsub -t 1-2 -N tarr) && wait_state $id F &&
    n=${id%%[*} && grep -qx idx=1 tarr.o$n.1 && grep -qx idx=2 tarr.o$n.2
'

test_expect_success 'PBS_O_LOGNAME comes from the password database, not LOGNAME' '
    id=$(echo "echo logname=\$PBS_O_LOGNAME" | env -u LOGNAME qsub -N logname) &&
    wait_state $id F && grep -qx "logname=$(id -un)" logname.o$(seqno $id)
'

test_done
