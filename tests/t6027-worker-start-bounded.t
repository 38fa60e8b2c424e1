#!/bin/bash
# The worker never waits for a user's file system: a job whose output file
# does not open (here a FIFO nobody reads, as a hung NFS server would
# behave) holds up nobody else, fails after user_io_timeout seconds, and
# what comes for it while it starts (qmsg, qsig) is delivered once its
# script runs.
. "$(dirname "$0")/lib.sh"

cluster_start 1 --cpus-per-worker 4 --kill-delay 1 --worker-conf 1 'user_io_timeout = 4'

mkfifo hang.fifo live.fifo

test_expect_success 'a job stuck opening its output file holds up no other job' '
    stuck=$(echo "sleep 30" | qsub -j oe -o "$PWD/hang.fifo") && echo $stuck > stuck_job &&
    wait_state $stuck R &&
    other=$(echo "echo other ran" | qsub) && wait_state $other F 10 &&
    grep -qx "other ran" STDIN.o$(seqno $other)
'

test_expect_success 'after user_io_timeout it fails, saying why' '
    id=$(cat stuck_job) && wait_state $id F 30 &&
    test "$(job_attr $id Exit_status)" = -1 &&
    job_attr $id comment | grep -q "job start did not complete in 4 s"
'

test_expect_success 'qmsg and qsig to a job still starting reach it once it runs' '
    id=$(echo "sleep 30" | qsub -N live -o "$PWD/live.fifo") && wait_state $id R &&
    qmsg "sent while starting" $id && qsig -s TERM $id &&
    { cat live.fifo > /dev/null & } &&
    wait_state $id F 20 && test "$(job_attr $id Exit_status)" = 271 &&
    grep -qx "sent while starting" live.e$(seqno $id)
'

test_done
