#!/bin/bash
# tests/valgrind.sh BUILDDIR - the test suite under valgrind.
#
# Unit tests run under memcheck directly; integration tests run with both
# daemons under memcheck (through HPCQ_SCHEDULER_BIN / HPCQ_WORKER_BIN).
# Fails if any test fails or valgrind reports an error or a definite leak.
# VG_ONLY="t1000 t7007" limits the integration tests to those named.
set -u
build=$(cd "${1:-.}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
logs=$(mktemp -d /tmp/hpcq-vg.XXXXXX)
vg="valgrind -q --leak-check=full --show-leak-kinds=definite,indirect"
vg="$vg --errors-for-leak-kinds=definite,indirect --error-exitcode=99"
rc=0

for t in common/test/test_resource common/test/test_jobspec common/test/test_directive \
         common/test/test_sbatch common/test/test_wire common/test/test_config common/test/test_auth common/test/test_session \
         common/test/test_arrayspec \
         db/test/test_db scheduler/policy/test/test_priority scheduler/policy/test/test_place \
         scheduler/policy/test/test_backfill scheduler/test/test_limits worker/test/test_gpu scheduler/test/test_lifecycle \
         scheduler/test/test_jobs scheduler/test/test_queue scheduler/test/test_depend \
         scheduler/test/test_sched scheduler/test/test_nodes worker/test/test_launch \
         worker/test/test_cgroup worker/test/test_privsep worker/test/test_spool \
         worker/test/test_cores scheduler/policy/test/test_cadence common/test/test_ckptspec \
         scheduler/test/test_array scheduler/test/test_job_counts common/test/test_strpool \
         scheduler/test/test_acct_record scheduler/test/test_accounting scheduler/test/test_admin \
         worker/test/test_gpumon common/test/test_sockdiag common/test/test_ib common/test/test_ptylink \
         scheduler/test/test_node_state common/test/test_launch_msg common/test/test_intern; do
    if HPCQ_SRCDIR=$src $vg --log-file="$logs/$(basename $t).log" "$build/$t" > /dev/null; then
        echo "ok: $t"
    else
        echo "FAILED: $t (see $logs/$(basename $t).log)"; rc=1
    fi
done

for d in scheduler worker; do
    cat > "$logs/$d" <<W
#!/bin/sh
exec $vg --log-file=$logs/$d.%p.log $build/$d/hpcq-$d "\$@"
W
    chmod +x "$logs/$d"
done
cat > "$logs/sim" <<W
#!/bin/sh
exec $vg --log-file=$logs/sim.%p.log $build/sim/hpcq-sim "\$@"
W
chmod +x "$logs/sim"
for t in "$src"/tests/t[0-9]*.t; do
    if [ -n "${VG_ONLY:-}" ] && ! [[ " $VG_ONLY " == *" $(basename "$t" | cut -d- -f1) "* ]]; then
        continue
    fi
    if HPCQ_SCHEDULER_BIN=$logs/scheduler HPCQ_WORKER_BIN=$logs/worker HPCQ_SIM_BIN=$logs/sim \
       HPCQ_BUILDDIR=$build HPCQ_SRCDIR=$src bash "$t" > "$logs/$(basename "$t").out" 2>&1; then
        echo "ok: $(basename "$t")"
    else
        echo "FAILED: $(basename "$t") (see $logs/$(basename "$t").out)"; rc=1
    fi
done
# Daemon logs: valgrind writes nothing when it has nothing to say.
for f in "$logs"/scheduler.*.log "$logs"/worker.*.log "$logs"/sim.*.log; do
    [ -s "$f" ] || continue
    echo "valgrind reported, $f:"; head -30 "$f"; rc=1
done
[ $rc -eq 0 ] && rm -rf "$logs" && echo "valgrind: clean"
exit $rc
