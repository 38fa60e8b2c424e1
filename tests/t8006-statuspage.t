#!/bin/bash
# The status page at /: headless Chromium loads it from a running cluster
# (the scheduler renders it; t8020 reads it with JavaScript off), and the
# DOM holds the jobs qstat shows (in their states) and the nodes pbsnodes
# shows (in theirs), the queue, and the page refreshes itself.
. "$(dirname "$0")/lib.sh"

browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
[ -n "$browser" ] || { echo "1..0 # SKIP no chromium (quickstart.sh installs it)"; exit 0; }
command -v jq >/dev/null || { echo "1..0 # SKIP jq not installed"; exit 0; }

cluster_start 2 --cpus-per-worker 2 --gpus-per-worker 1 \
    --worker-conf 2 'mig_layout = 0:1g.5gb*7'
http=$(sed -n 's/^http=//p' "$CLUSTER/state/scheduler.address")

# dom [QUERY]: the page as the browser has drawn it
dom() {
    HOME=$TEST_ROOT timeout 90 "$browser" --headless --no-sandbox --disable-gpu \
        --disable-dev-shm-usage --user-data-dir="$TEST_ROOT/chromium" \
        --virtual-time-budget=8000 --dump-dom "http://$http/${1:-}" 2>> "$TEST_ROOT/chromium.log"
}
# attr_of FILE SELECTOR-ATTR VALUE ATTR: another attribute of the element
attr_of() {
    grep -o "<[a-z]* class=\"$2\"[^>]*>" "$1" | grep "data-$3=\"$4\"" |
        sed -n "s/.* data-$5=\"\([^\"]*\)\".*/\1/p"
}

test_expect_success 'the page is served from the binary: HTML, rendered, with its own script' '
    curl -sf -D headers "http://$http/" > page.html && grep -qi "^content-type: text/html" headers &&
    grep -qi "^content-security-policy: default-src .none." headers &&
    grep -q "<title>hpcq status</title>" page.html && grep -q "<table id=\"running\">" page.html &&
    ! grep -qE "<script[^>]+src=" page.html
'

test_expect_success 'jobs running, waiting and held; a node taken offline' '
    c=$(echo "sleep 300" | qsub -N mig -l select=1:ncpus=1:mig=1g.5gb) && wait_state $c R &&
    b=$(echo "sleep 300" | qsub -N gpu -l select=1:ncpus=1:ngpus=1) && wait_state $b R &&
    a=$(echo "sleep 300" | qsub -N small) && wait_state $a R &&
    d=$(echo true | qsub -N waits -l select=1:ncpus=2) && e=$(echo true | qsub -h -N held) &&
    wait_state $d Q && echo "$a $b $c $d $e" > ids
'

test_expect_success 'Chromium draws the page and runs its script' '
    dom > dom.html && grep -q "data-loaded=\"1\"" dom.html &&
    grep -q "<h1 id=\"server\">hpcq — " dom.html
'

test_expect_success 'every job qstat shows is on the page, in its state' '
    qstat | awk "NR > 2 { print \$1, \$5 }" > qstat.txt && test $(wc -l < qstat.txt) = 5 &&
    while read id st; do
        test "$(attr_of dom.html job id "$id" state)" = "$st" || { echo "$id: not $st"; exit 1; }
    done < qstat.txt &&
    grep -q "id=\"running\"" dom.html &&
    test "$(grep -o "class=\"job\" data-id" dom.html | wc -l)" = 5
'

test_expect_success 'running jobs in the running table, the others in the waiting one' '
    read a b c d e < ids &&
    sed -n "/id=\"running\"/,/<\/table>/p" dom.html | grep -q "data-id=\"$a\"" &&
    sed -n "/id=\"waiting\"/,/<\/table>/p" dom.html | grep -q "data-id=\"$d\"" &&
    sed -n "/id=\"waiting\"/,/<\/table>/p" dom.html | grep -q "data-id=\"$e\""
'

test_expect_success 'every node pbsnodes shows, in its state, with its cores and GPUs in use' '
    for n in node1 node2; do
        st=$(pbsnodes $n | sed -n "s/^     state = //p") &&
        used=$(pbsnodes $n | sed -n "s/^     resources_assigned.ncpus = //p") &&
        test "$(attr_of dom.html node name $n state)" = "$st" &&
        test "$(attr_of dom.html node name $n cpus-used)" = "$used" &&
        badge=$st && { [ "$st" != free ] || [ "$used" = 0 ] || badge="partly busy"; } &&
        test "$(attr_of dom.html node name $n badge)" = "$badge" &&
        grep -q "<span class=\"name\">$n</span><span class=\"badge [a-z-]*\">$badge</span>" dom.html ||
        { echo "$n"; exit 1; }
    done &&
    test "$(grep -o "class=\"cell cpu used\"" dom.html | wc -l)" = 3 &&
    test "$(grep -o "class=\"cell mig used\"" dom.html | wc -l)" = 1 &&
    test "$(grep -o "class=\"cell mig\"" dom.html | wc -l)" = 6 &&
    grep -q "class=\"cell gpu used\"" dom.html
'

test_expect_success 'the queue with its depth, and recent events' '
    grep -q "class=\"queue\" data-name=\"workq\"" dom.html &&
    grep -o "<tr class=\"queue\" data-name=\"workq\">.*</tr>" dom.html | grep -q "<td>1</td><td>1</td><td>0</td><td>3</td><td>0</td><td>0</td><td>5</td>" &&
    grep -q "class=\"event\"" dom.html
'

test_expect_success 'it refreshes itself: a change shows without reloading' '
    read a b c d e < ids && pbsnodes -o -C "fan" node2 &&
    dom "?refresh=1" > dom2.html &&
    grep -q "data-name=\"node2\" data-state=\"draining\"" dom2.html &&
    grep -q "data-refreshed=" dom2.html && grep -q "setInterval(update, refresh \* 1000)" page.html
'

test_expect_success 'nothing in the page is taken from the API as HTML' '
    id=$(echo true | qsub -h -N "x<img>") 2>/dev/null || id=$(echo true | qsub -h -N "xlt") ;
    dom > dom3.html && ! grep -q "<img" dom3.html
'

test_expect_success 'cleanup' 'qdel $(cat ids) 2>/dev/null; pbsnodes -r node2'

test_done
