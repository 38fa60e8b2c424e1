#!/bin/bash
# The job's cgroup carries its limits and measures it (finding 10 of issue
# 10: -l mem=50mb did not stop a 400 MB job): memory from mem, with the
# OOM kill as the job's comment; the cores picked for it (cpuset); a cap
# on its tasks (job_pids_max); CPU time and peak memory of every process
# of the job, also those the script did not wait for.  Needs root and a
# cgroup hierarchy.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 2
cg=$(containment)
say "worker: ${cg:-(no containment line in its log)}"
case $cg in
"no cgroups"*) skip_all "$cg" \
    'a 400 MB allocation under -l mem=50mb is killed, and the comment says why' \
    'a job without mem is not limited' \
    'a 1-cpu job is confined to one CPU, which the worker names' \
    'cput counts CPU time the script did not wait for' \
    'resources_used.mem is the peak of the whole job' \
    'job_pids_max caps the tasks of a job' \
    'v2: a 400 MB allocation under -l mem=50mb is killed' ;;
esac
# Where the memory controller is missing, the worker says so in that line.
memory_limited=yes
case $cg in
"cgroup v1 ("*memory*) ;;
"cgroup v1"*|*"memory limits are not enforced"*) memory_limited= ;;
esac

alloc() { echo "python3 -c 'x = bytearray($1 * 1024 * 1024); print(\"alive\")'"; }

if [ -z "$memory_limited" ]; then
    test_skip 'a 400 MB allocation under -l mem=50mb is killed, and the comment says why' \
        "no memory controller: $cg"
else
    test_expect_success 'a 400 MB allocation under -l mem=50mb is killed, and the comment says why' '
        id=$(alloc 400 | qsub -l mem=50mb) && wait_state $id F 60 &&
        test "$(job_attr $id comment)" = "Job killed: memory limit 50mb exceeded" &&
        ! grep -q alive STDIN.o$(seqno $id) &&
        grep -q Killed STDIN.e$(seqno $id)
    '
fi

test_expect_success 'a job without mem is not limited' '
    id=$(alloc 64 | qsub) && wait_state $id F 60 &&
    grep -qx alive STDIN.o$(seqno $id) && test "$(job_attr $id Exit_status)" = 0
'

test_expect_success 'a 1-cpu job is confined to one CPU, which the worker names' '
    id=$(echo "grep Cpus_allowed_list /proc/self/status" | qsub -l ncpus=1) &&
    wait_state $id F && cpus=$(awk "{print \$2}" STDIN.o$(seqno $id)) &&
    echo "allowed: $cpus" && echo "$cpus" | grep -Eqx "[0-9]+" &&
    grep -q "job $id started as pid [0-9]* on cpus $cpus$" $CLUSTER/worker1.log
'

# A CPU burner in its own session, which the script does not wait for:
# it takes 80 MB and 1.5 s of CPU time, says so, and lives on; the script
# ends once it has said so (or after a minute).
cat > burn.sh <<'S'
#!/bin/sh
rm -f burned
setsid python3 -c '
import time
x = bytearray(80 * 1024 * 1024)
while time.process_time() < 1.5: pass
open("burned", "w").close()
time.sleep(300)' &
n=0
while [ ! -e burned ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
S

test_expect_success 'cput counts CPU time the script did not wait for' '
    id=$(qsub burn.sh) && wait_state $id F 60 && echo $id > burn_job &&
    cput=$(job_attr $id resources_used.cput) && echo "cput $cput" &&
    test "$cput" != 00:00:00
'

test_expect_success 'resources_used.mem is the peak of the whole job' '
    id=$(cat burn_job) && mem=$(job_attr $id resources_used.mem) && echo "mem $mem" &&
    case $mem in *kb) kb=${mem%kb} ;; *mb) kb=$(( ${mem%mb} * 1024 )) ;;
                 *gb) kb=$(( ${mem%gb} * 1048576 )) ;; *) kb=0 ;; esac &&
    test $kb -ge $(( 80 * 1024 ))
'

cluster_stop >/dev/null
CLUSTER=$TEST_ROOT/pids
cluster_start 1 --cpus-per-worker 2 --worker-conf 1 'job_pids_max = 40'

# Forks sleepers until the kernel refuses, and says how many it got.
cat > forks.py <<'S'
import os, time
n = 0
for i in range(60):
    try:
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
        n += 1
    except OSError:
        break
print(n)
S

test_expect_success 'job_pids_max caps the tasks of a job' '
    id=$(echo "python3 forks.py" | qsub -o pids.out) && wait_state $id F 60 &&
    n=$(cat pids.out) && echo "forked: $n" &&
    test "$n" -gt 0 && test "$n" -lt 40
'

# The same memory limit through cgroup v2 (memory.max, memory.events),
# where the memory controller is available to it.
cluster_stop >/dev/null
CLUSTER=$TEST_ROOT/c2
cluster_start 1 --cpus-per-worker 2 --worker-conf 1 'cgroup = v2'
cg=$(containment)
say "cgroup = v2: ${cg:-(no containment line in its log)}"
case $cg in
"no cgroups"*|*"memory limits are not enforced"*)
    test_skip 'v2: a 400 MB allocation under -l mem=50mb is killed' \
        "no memory controller for cgroup v2 here: $cg" ;;
*)
    test_expect_success 'v2: a 400 MB allocation under -l mem=50mb is killed' '
        id=$(alloc 400 | qsub -l mem=50mb -o v2.out) && wait_state $id F 60 &&
        test "$(job_attr $id comment)" = "Job killed: memory limit 50mb exceeded" &&
        ! grep -q alive v2.out
    ' ;;
esac

test_done
