#!/bin/bash
# qsub -I on hosts of their own (hpcq-local --hosts, network namespaces):
# the shell runs on the job's first allocated host, with that host's name,
# and reaches back to qsub on this host through the cluster's bridge.
. "$(dirname "$0")/lib.sh"

hosts_require
cluster_start 2 --cpus-per-worker 1 --hosts
drive() { python3 "$HPCQ_SRCDIR/tests/pty-drive.py" "$@"; }

test_expect_success 'qsub -I on a 2-host job: the shell is on the first host' '
    drive --log h.log --expect "job .* ready" \
        --send "echo \"H=[\$(hostname)] N=[\$(sort -u \$PBS_NODEFILE | tr \"\\n\" +)]\"; exit 5\n" \
        -- qsub -I -l select=2:ncpus=1,place=scatter; echo "rc=$?" > h.rc &&
    tr -d "\r" < h.log > h.txt && cat h.txt &&
    id=$(sed -n "s/^qsub: waiting for job \([^ ]*\) to start.*/\1/p" h.txt) &&
    first=$(job_attr $id exec_host | sed "s|/.*||") && echo "first host: $first" &&
    test -n "$first" && test "$first" != "$(hostname -s)" &&
    grep -q "H=\[$first\] N=\[node1+node2+\]" h.txt &&
    grep -qx "rc=5" h.rc && test "$(job_attr $id Exit_status)" = 5
'

test_done
