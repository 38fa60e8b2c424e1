#!/bin/bash
# Walltime is bounded wherever it enters (issue 10, finding 12): a
# walltime whose milliseconds would overflow int64 (the worker's timer) or
# whose end would (backfill's start + walltime) is refused with one clear
# line, from qsub, from #SBATCH and from a raw request; the longest
# allowed walltime is accepted and does not kill the job at once.
. "$(dirname "$0")/lib.sh"

cluster_start 1

test_expect_success 'qsub -l walltime past 2^31-1 s is refused' '
    ! echo true | qsub -l walltime=9223372036854776 2> w1.err && cat w1.err &&
    grep -q "walltime .9223372036854776. is more than the longest allowed" w1.err &&
    ! echo true | qsub -l walltime=596524:00:00 2> w2.err &&
    grep -q "more than the longest allowed" w2.err
'

test_expect_success '#SBATCH --time past it is refused' '
    printf "#!/bin/sh\n#SBATCH --time=99999999-0\ntrue\n" > s.sh &&
    ! qsub s.sh 2> s.err && cat s.err && grep -q "longest allowed" s.err
'

test_expect_success 'a raw request with such a walltime is refused as malformed' '
    python3 "$HPCQ_SRCDIR/tests/wire-client.py" "${HPCQ_SERVER#unix:}" \
        "json:{\"v\":1,\"type\":\"job.submit\",\"id\":1,\"cred\":null,\"body\":{\"spec\":{\"name\":\"w\",\"script\":\"true\n\",\"workdir\":\"/tmp\",\"resources\":{\"walltime\":9223372036854775,\"place\":\"\",\"chunks\":[{\"count\":1,\"ncpus\":1,\"mem\":0,\"ngpus\":0,\"mpiprocs\":1}]}}}}" \
        > raw.out && cat raw.out &&
    grep -q "\"errnum\": 71" raw.out && grep -q "walltime 9223372036854775 out of range" raw.out &&
    test "$(db_query "SELECT count(*) FROM jobs")" = 0
'

test_expect_success 'the longest walltime is accepted, and the job runs to its end' '
    id=$(echo "sleep 2; echo done" | qsub -l walltime=2147483647) &&
    test "$(job_attr $id Resource_List.walltime)" = 596523:14:07 &&
    wait_state $id F 30 && test "$(job_attr $id Exit_status)" = 0
'

test_done
