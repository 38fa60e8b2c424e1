#!/bin/bash
# The status page as its users see it (issue 27, item 8): rendered by the
# scheduler, so it reads with JavaScript off; the Why column is each
# waiting job's comment; estimated start, walltime and elapsed time; one
# time format (ISO 8601, local, with the offset); a node with 1 of 2
# cores busy is "partly busy"; the header adds up to the queue rows and
# the job rows; a job's own view shows what qstat -f shows the caller and
# no more; filters by user, queue and state; a phone's width.  Headless
# Chromium with JavaScript on and off (--dump-dom, and tests/cdp.py for
# layout, a screenshot and the script's refresh).
. "$(dirname "$0")/lib.sh"

browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
[ -n "$browser" ] || { echo "1..0 # SKIP no chromium (quickstart.sh installs it)"; exit 0; }

cluster_start 2 --cpus-per-worker 2
http=$(sed -n 's/^http=//p' "$CLUSTER/state/scheduler.address")
other_users_setup curl -sf "http://$http/api"

cdp() { HOME=$TEST_ROOT timeout 120 python3 "$HPCQ_SRCDIR/tests/cdp.py" "$@" 2>> "$TEST_ROOT/chromium.log"; }
# nojs [QUERY]: the page as Chromium has it with JavaScript off (the
# DevTools protocol's setScriptExecutionDisabled; --dump-dom prints
# nothing when scripts are off), one tag a line for grep
nojs() {
    cdp --no-js "http://$http/${1:-}" "document.documentElement.outerHTML" | jq -r . |
        sed "s/<tr /\n<tr /g; s/<section /\n<section /g; s/<div class=\"node\"/\n&/g"
}
# row FILE ID: the job's row
row() { grep -o "<tr class=\"job\" data-id=\"$2\"[^>]*>.*" "$1" | sed 's|</tr>.*||'; }
# cell N: the Nth cell of a row on stdin, its text
cell() { sed 's|</td>|\n|g' | sed -n "$1p" | sed 's/<[^>]*>//g'; }
epoch() { date -d "$1" +%s; }
iso='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[+-][0-9]{2}:[0-9]{2}'

test_expect_success 'running, blocked, held and stopped-queue jobs; a stopped queue' '
    qmgr -c "create queue stopped enabled=true,started=false" &&
    a=$(echo "sleep 300" | qsub -N one-core -l select=1:ncpus=1:host=node1 -l walltime=00:10:00) &&
    b=$(echo "sleep 300" | qsub -N two-cores -l select=1:ncpus=2:host=node2 -l walltime=00:20:00) &&
    wait_state $a R && wait_state $b R &&
    c=$(echo true | qsub -N blocked -l select=1:ncpus=2 -l walltime=00:05:00) &&
    h=$(echo true | qsub -h -N held) && s=$(echo true | qsub -q stopped -N parked) &&
    wait_until 20 eval "test -n \"\$(job_attr $s comment)\"" &&
    wait_until 20 eval "test -n \"\$(job_attr $c estimated.start_time)\"" &&
    echo "$a $b $c $h $s" > ids
'

test_expect_success 'without JavaScript every job qstat shows is on the page, in its state' '
    nojs > dom.html && grep -q "id=\"running\"" dom.html && ! grep -q "<body[^>]*data-loaded" dom.html &&
    qstat | awk "NR > 2 { print \$1, \$5 }" > qstat.txt && test $(wc -l < qstat.txt) = 5 &&
    while read id st; do
        row dom.html $id | grep -q "data-state=\"$st\"" || { echo "$id: not $st"; exit 1; }
    done < qstat.txt &&
    test "$(grep -o "<tr class=\"job\"" dom.html | wc -l)" = 5
'

test_expect_success 'Why: each waiting job'"'"'s comment, as qstat -f has it' '
    read a b c h s < ids && want=$(job_attr $s comment) && echo "comment: $want" &&
    test "$(row dom.html $s | cell 9)" = "$want" &&
    sed -n "/id=\"waiting\"/,/<\/table>/p" dom.html | grep -q "<th>Why</th>"
'

test_expect_success 'estimated start, walltime and elapsed, the times qstat -f gives' '
    read a b c h s < ids &&
    est=$(row dom.html $c | cell 8) && echo "est $est" && [[ $est =~ ^$iso$ ]] &&
    # The estimate is made again by each pass (from the ends of the running
    # jobs as they are then): the page and qstat, read a moment apart, may
    # differ by a second or two.
    d=$(( $(epoch "$est") - $(epoch "$(job_attr $c estimated.start_time)") )) &&
    test ${d#-} -le 2 &&
    test "$(row dom.html $c | cell 7)" = 00:05:00 &&
    test "$(row dom.html $a | cell 8)" = 00:10:00 && test "$(row dom.html $b | cell 8)" = 00:20:00 &&
    started=$(row dom.html $a | cell 9) && [[ $started =~ ^$iso$ ]] &&
    test $(epoch "$started") = $(epoch "$(job_attr $a stime)") &&
    el=$(row dom.html $a | cell 10) && [[ $el =~ ^[0-9]{2}:[0-9]{2}:[0-9]{2}$ ]] &&
    secs=$(echo $el | awk -F: "{ print \$1 * 3600 + \$2 * 60 + \$3 }") &&
    test $secs -ge 1 && test $secs -le $(( $(date +%s) - $(epoch "$started") + 1 ))
'

test_expect_success 'one time format: every time on the page is ISO 8601 with its offset' '
    grep -o "<time[^>]*>[^<]*</time>" dom.html > times && test $(wc -l < times) -ge 5 &&
    ! grep -vE "<time datetime=\"$iso\">$iso</time>" times &&
    sed "s/<[^>]*>/ /g" dom.html > text &&
    ! grep -E "(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)|[0-9] [AP]M|[0-9]+/[0-9]+/[0-9]{4}" text
'

test_expect_success 'a node with 1 of its 2 cores busy is partly busy, a full one job-busy' '
    grep -o "<div class=\"node\"[^>]*>.\{0,200\}" dom.html > nodes &&
    grep "data-name=\"node1\"" nodes | grep -q "data-cpus=\"2\" data-cpus-used=\"1\"" &&
    grep "data-name=\"node1\"" nodes | grep -q "<span class=\"badge partly\">partly busy</span>" &&
    test "$(pbsnodes node1 | sed -n "s/^     state = //p")" = free &&
    grep "data-name=\"node2\"" nodes | grep -q "<span class=\"badge job-busy\">job-busy</span>"
'

test_expect_success 'the header adds up to the queue rows and to the job rows' '
    sum() { grep -o "<tr class=\"queue\".*" dom.html | sed "s|</tbody>.*||; s|</tr>|\n|g" |
            awk -F"</td><td>" -v c="$1" "NF > 1 { s += \$c } END { print s + 0 }"; } &&
    run=$(( $(sum 7) + $(sum 8) + $(sum 9) )) && wait=$(( $(sum 4) + $(sum 5) + $(sum 6) )) &&
    echo "queues: $run running, $wait waiting" && test $run = 2 && test $wait = 3 &&
    grep -q "data-running=\"$run\" data-waiting=\"$wait\">$run running, $wait waiting, 2 nodes<" dom.html &&
    test "$(sed -n "/id=\"running\"/,/<\/table>/p" dom.html | grep -o "<tr class=\"job\"" | wc -l)" = $run &&
    test "$(sed -n "/id=\"waiting\"/,/<\/table>/p" dom.html | grep -o "<tr class=\"job\"" | wc -l)" = $wait
'

test_expect_success 'filters by user, queue and state, without script, as qselect selects' '
    for f in "queue=stopped:-q stopped" "state=H:-s H" "state=R%2CE:-s RE" "user=$(id -un):-u $(id -un)" \
             "user=nobody-here:-u nobody-here" "queue=workq&state=Q:-q workq -s Q"; do
        nojs "?${f%%:*}" > f.html &&
        grep -o "<tr class=\"job\" data-id=\"[^\"]*\"" f.html | sed "s/.*data-id=\"//; s/\"//" | sort > got &&
        { qselect ${f#*:} || true; } | sort > want &&
        diff want got || { echo "filter ${f%%:*}"; exit 1; }
    done &&
    nojs "?queue=stopped" | grep -q "<option selected=\"\">stopped</option>" &&
    test "$(curl -s -o /dev/null -w "%{http_code}" "http://$http/?state=bogus")" = 400
'

test_expect_success 'a job of ones own: every attribute of qstat -f, times in the same format' '
    read a b c h s < ids && nojs "?job=$a" > job.html &&
    grep -q "id=\"job-view\" data-view=\"full\"" job.html &&
    qstat -f -F json $a | jq -r ".Jobs[] | paths(scalars) | map(tostring) | join(\".\")" |
        grep -v "^Variable_List\." | sort -u > want &&
    grep -o "<tr class=\"attr\" data-name=\"[^\"]*\"" job.html | sed "s/.*data-name=\"//; s/\"//" |
        grep -v "^Variable_List\." | sort -u > got && diff want got &&
    grep "data-name=\"Variable_List" job.html | grep -q PBS_O_HOME &&
    grep -o "<tr class=\"attr\" data-name=\"ctime\">.*" job.html | sed "s|</tr>.*||" | grep -qE "<time datetime=\"$iso\">" &&
    test "$(curl -s -o /dev/null -w "%{http_code}" "http://$http/?job=99999")" = 404 &&
    curl -s "http://$http/?job=99999" | grep -q "Unknown Job Id 99999"
'

if [ -n "$other_users" ]; then
    test_expect_success 'another user sees of the job what qstat -f shows them, no private field' '
        read a b c h s < ids && as_user nobody curl -sf "http://$http/?job=$a" > other.html &&
        grep -q "id=\"job-view\" data-view=\"public\"" other.html &&
        grep -q "data-name=\"Job_Name\"" other.html && grep -q "data-name=\"exec_host\"" other.html &&
        for k in Variable_List Submit_arguments Output_Path Error_Path Account_Name Mail_Users jobdir; do
            ! grep -q "data-name=\"$k" other.html || { echo "$k shown"; exit 1; }
        done &&
        ! grep -q "PBS_O_HOME\|$WORK" other.html &&
        as_user nobody qstat -f -F json $a | jq -r ".Jobs[] | paths(scalars) | map(tostring) | join(\".\")" | sort -u > want &&
        grep -o "<tr class=\"attr\" data-name=\"[^\"]*\"" other.html | sed "s/.*data-name=\"//; s/\"//" | sort -u > got &&
        diff want got && as_user nobody curl -sf "http://$http/" | grep -q "id=\"viewer\" class=\"dim\">as nobody<"
    '
else
    test_skip 'another user sees of the job what qstat -f shows them, no private field' \
        'cannot run as nobody here (needs root)'
fi

test_expect_success 'a phone: the page fits 390 pixels, with script on and off' '
    for js in "" --no-js; do
        cdp $js --size 390x844 --shot phone$js.png "http://$http/" \
            "innerWidth" "document.documentElement.scrollWidth <= innerWidth" \
            "document.querySelectorAll(\"tr.job\").length" > m.txt && cat m.txt &&
        test "$(sed -n 1p m.txt)" = 390 && test "$(sed -n 2p m.txt)" = true &&
        test "$(sed -n 3p m.txt)" = 5 && test -s phone$js.png || exit 1
    done &&
    curl -sf "http://$http/" | grep -q "<meta name=\"viewport\" content=\"width=device-width"
'

test_expect_success 'with script the page refreshes itself: a new job shows without a reload' '
    cdp "http://$http/?refresh=1" "document.querySelectorAll(\"tr.job\").length" \
        "!sh echo true | qsub -h -N late-comer" "!sleep 4" \
        "Number(document.body.dataset.refreshed) >= 1" \
        "[...document.querySelectorAll(\"tr.job td:nth-child(2)\")].some(td => td.textContent === \"late-comer\")" \
        "/^updated .*, every 1 s$/.test(document.getElementById(\"updated\").textContent)" > r.txt &&
    cat r.txt && test "$(sed -n 1p r.txt)" = 5 && test "$(sed -n 2p r.txt)" = true &&
    test "$(sed -n 3p r.txt)" = true && test "$(sed -n 4p r.txt)" = true
'

test_expect_success 'a job name with markup is text, with script on and off' '
    echo true | qsub -h -N "x<b>y" > /dev/null &&
    nojs > esc.html && grep -q "x&lt;b&gt;y" esc.html && ! grep -q "x<b>y" esc.html &&
    cdp "http://$http/" "document.querySelectorAll(\"#content b\").length" > e.txt && test "$(cat e.txt)" = 0
'

test_expect_success 'an array with subjobs running and others to start is a waiting row (B)' '
    read a b c h s < ids && qdel $c && wait_state $c F &&
    j=$(echo "sleep 300" | qsub -J 1-4 -N sweep -l select=1:ncpus=1 -l walltime=00:05:00) &&
    wait_state $j B && nojs > arr.html &&
    sed -n "/id=\"waiting\"/,/<\/table>/p" arr.html |
        grep -q "data-id=\"${j%%[*}\\[\\]\.[^\"]*\" data-state=\"B\"" &&
    sed -n "/id=\"running\"/,/<\/table>/p" arr.html | grep -q "data-id=\"${j%%[*}\\[1\\]\." &&
    qdel $j
'

test_expect_success 'cleanup' 'qdel $(cat ids) 2>/dev/null; true'

test_done
