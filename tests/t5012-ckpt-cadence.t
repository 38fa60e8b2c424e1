#!/bin/bash
# The scheduler's checkpoint cadence: -c w and -c c every
# checkpoint_interval of wall or CPU time, -c auto at the Young/Daly
# interval from the job's measured cost and its node class's mean time
# between interruptions (mtbi_prior, then the failures it sees), bounded by
# checkpoint_min_interval and checkpoint_max_interval; the checkpoint
# signal the job chose; a checkpoint not reported within checkpoint_grace
# is an event and the cadence goes on.
. "$(dirname "$0")/lib.sh"

cluster_start 2 --cpus-per-worker 2 --node-timeout 2 --labels 2=class=flaky \
    --sched-config checkpoint_interval=2 --sched-config checkpoint_min_interval=1 \
    --sched-config checkpoint_max_interval=30 --sched-config checkpoint_grace=2 \
    --sched-config mtbi_prior=20 --sched-config mtbi_prior.flaky=5

# A job script that reports a checkpoint (after $2 seconds) on signal $1
# and otherwise sleeps, or burns CPU with "busy".
ckpt_script() {
    local sig=$1 delay=${2:-0} work="sleep 0.1"
    [ "${3:-}" = busy ] && work="i=0; while [ \$i -lt 20000 ]; do i=\$((i+1)); done"
    printf '#!/bin/bash\ntrap "sleep %s; hpcq-ckpt done --bytes 100" %s\nend=$((SECONDS + %s))\nwhile [ $SECONDS -lt $end ]; do %s; done\n' \
        "$delay" "$sig" "${4:-60}" "$work"
}

# Times (wall seconds, fractional) of a job's checkpoint requests of reason $2.
requests() { db_query "SELECT time FROM events WHERE job_seq = $(seqno $1)
                       AND type = 'checkpoint_requested' AND detail LIKE '$2%' ORDER BY id"; }
nreq() { requests $1 $2 | wc -l; }
nckpt() { db_query "SELECT count(*) FROM checkpoints WHERE job_seq = $(seqno $1)"; }
# has_ckpts ID N: the job has N checkpoints or more (for wait_until).
has_ckpts() { test "$(nckpt $1)" -ge $2; }
nmissed() { db_query "SELECT count(*) FROM events WHERE job_seq = $(seqno $1)
                      AND type = 'checkpoint_missed'"; }
has_missed() { test "$(nmissed $1)" -ge $2; }
has_interruption() { test "$(db_query "SELECT count(*) FROM interruptions WHERE class = '$1'
                                        AND kind = 'failure' AND node = '$2'")" = 1; }

test_expect_success '-c w: a checkpoint every checkpoint_interval (2 s) of wall time' '
    ckpt_script USR1 >w.sh && id=$(qsub -c w w.sh) && echo $id >id.w &&
    wait_state $id R && wait_until 20 has_ckpts $id 3 &&
    db_query "SELECT requested_at, duration, reason FROM checkpoints
              WHERE job_seq = $(seqno $id) ORDER BY rowid" >rows && cat rows &&
    awk -F"|" "NR > 1 { d = \$1 - prev; if (d < 1.8 || d > 4) bad = 1 } { prev = \$1 }
               END { exit bad }" rows &&
    awk -F"|" "\$2 < 0 || \$2 > 1.5 || \$3 != \"cadence\" { bad = 1 } END { exit bad }" rows
'

test_expect_success 'qstat -f shows the interval, the count and the cost' '
    id=$(cat id.w) && test "$(job_attr $id checkpoint.interval)" = 00:00:02 &&
    test "$(job_attr $id checkpoint.count)" -ge 3 && test -n "$(job_attr $id checkpoint.cost)" &&
    qdel $id && wait_state $id F
'

test_expect_success '-W checkpoint_signal=USR2: the cadence sends USR2' '
    ckpt_script USR2 >u2.sh && id=$(qsub -c w -W checkpoint_signal=USR2 u2.sh) &&
    wait_until 20 has_ckpts $id 1 && requests $id cadence | head -1 &&
    db_query "SELECT detail FROM events WHERE job_seq = $(seqno $id)
              AND type = \"checkpoint_requested\"" | grep -q "SIGUSR2" &&
    qdel $id && wait_state $id F
'

test_expect_success '-c c counts CPU time: a sleeping job is not asked, a busy one is' '
    ckpt_script USR1 0 sleep 6 >idle.sh && idle=$(qsub -c c idle.sh) &&
    ckpt_script USR1 0 busy 30 >busy.sh && busy=$(qsub -c c busy.sh) &&
    wait_state $busy R && wait_until 30 has_ckpts $busy 1 &&
    wait_state $idle F 30 && test $(nreq $idle cadence) = 0 &&
    qdel $busy && wait_state $busy F
'

test_expect_success '-c n, -c s and no -c: no cadence' '
    ckpt_script USR1 0 sleep 5 >q.sh &&
    a=$(qsub -c n q.sh) && b=$(qsub -c s q.sh) && c=$(qsub q.sh) &&
    wait_state $a F 30 && wait_state $b F 30 && wait_state $c F 30 &&
    test $(nreq $a cadence) = 0 && test $(nreq $b cadence) = 0 && test $(nreq $c cadence) = 0
'

test_expect_success 'a checkpoint not reported within checkpoint_grace is an event; the cadence goes on' '
    printf "#!/bin/bash\ntrap \"\" USR1\nsleep 60\n" >deaf.sh && id=$(qsub -c w deaf.sh) &&
    wait_until 20 has_missed $id 2 &&
    db_query "SELECT detail FROM events WHERE job_seq = $(seqno $id)
              AND type = \"checkpoint_missed\"" | head -1 | grep -q "cadence: no report within" &&
    test "$(job_state $id)" = R && qdel $id && wait_state $id F
'

# The Young/Daly interval the test expects from the median cost and the
# mean time between interruptions qstat -f shows (one answer, so both are
# of one moment), bounded by 1 and 30 s; exits 1 if the shown interval is
# more than a second off (the shown cost is rounded to milliseconds).
young_daly_matches() {
    qstat -f -1 $1 >f.$1 && python3 - f.$1 <<'PY'
import math, re, sys
a = dict(re.findall(r"^    (\S+) = (.*)$", open(sys.argv[1]).read(), re.M))
c, m = float(a["checkpoint.cost"]), float(a["checkpoint.mtbi"])
h, mi, s = map(int, a["checkpoint.interval"].split(":"))
got = h * 3600 + mi * 60 + s
t = m if c >= 2 * m else math.sqrt(2 * c * m) * (1 + math.sqrt(c / (2 * m)) / 3 + c / (18 * m)) - c
want = min(max(t, 1), 30)
print("C %.3f M %.0f: interval %d s, Young/Daly %.2f s" % (c, m, got, want))
sys.exit(0 if abs(got - want) <= 1 and got > 1 else 1)
PY
}

attr_n() { job_attr $1 $2 | cut -d. -f1; }

test_expect_success '-c auto: first checkpoint at checkpoint_min_interval, then Young/Daly' '
    ckpt_script USR1 0.5 >auto.sh && id=$(qsub -c auto -l select=host=node1 auto.sh) &&
    echo $id >id.auto && wait_until 20 has_ckpts $id 2 &&
    young_daly_matches $id &&
    exposure=$(db_query "SELECT coalesce (sum (node_seconds), 0) FROM class_exposure
                         WHERE class = \"default\"") &&
    m=$(attr_n $id checkpoint.mtbi) && echo "M $m, prior 20 + $exposure s up" &&
    test "$m" -ge 20 && test "$m" -le $(echo "$exposure" | cut -d. -f1 | awk "{ print \$1 + 21 + 120 }")
'

test_expect_success '-c auto on a class with a shorter prior: a shorter M and interval' '
    id=$(qsub -c auto -l select=host=node2 auto.sh) && wait_until 20 has_ckpts $id 2 &&
    young_daly_matches $id && echo $id >id.flaky &&
    test $(attr_n $id checkpoint.mtbi) -lt $(attr_n $(cat id.auto) checkpoint.mtbi)
'

test_expect_success 'a node that stops answering is an interruption of its class' '
    kill -9 $(cat $CLUSTER/worker2.pid) &&
    wait_until 20 has_interruption flaky node2 &&
    db_query "SELECT detail FROM interruptions" | grep -q "stopped sending heartbeats" &&
    qdel $(cat id.auto) && wait_state $(cat id.auto) F
'

test_done
