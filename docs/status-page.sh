#!/bin/bash
# docs/status-page.sh - make docs/status-page.png, the status page's
# screenshot in docs/admin.md and the README: a small cluster (one node
# with a GPU split into MIG instances, one taken offline), jobs running and
# waiting (one in a stopped queue, to show why), drawn by headless Chromium.
#
# Usage: docs/status-page.sh [BUILDDIR] [OUT.png]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/..}" && pwd)
out=${2:-$here/status-page.png}
export PATH="$build/cli:$PATH"
dir=$(mktemp -d /tmp/hpcq-shot.XXXXXX)
trap 'hpcq-local stop "$dir/c" >/dev/null 2>&1; rm -rf "$dir"' EXIT
eval "$(hpcq-local start "$dir/c" --workers 4 --cpus-per-worker 8 --gpus-per-worker 2 \
        --server-name head --worker-conf 3 'mig_layout = 0:1g.10gb*7;1:3g.40gb+4g.40gb')"
cd "$dir"
qmgr -c "create queue debug enabled=true,started=false"
qsub -N md-lj -l select=2:ncpus=6:ngpus=2:mpiprocs=6 -l walltime=04:00:00 <<< "sleep 600" > /dev/null
qsub -N climate -l select=1:ncpus=4:ngpus=1 -l walltime=12:00:00 <<< "sleep 600" > /dev/null
for i in 1 2 3; do qsub -N "infer-$i" -l select=1:ncpus=1:mig=1g.10gb -l walltime=00:30:00 <<< "sleep 600" > /dev/null; done
qsub -N train -l select=1:ncpus=2:mig=4g.40gb -l walltime=08:00:00 <<< "sleep 600" > /dev/null
qsub -N sweep -J 1-4 -l select=1:ncpus=1 -l walltime=01:00:00 <<< "sleep 600" > /dev/null
qsub -N big -l select=2:ncpus=8:ngpus=2 -l walltime=02:00:00 <<< "sleep 600" > /dev/null
qsub -N later -h <<< "true" > /dev/null
qsub -N try-it -q debug -l walltime=00:10:00 <<< "true" > /dev/null
pbsnodes -o -C "ERROR: /scratch is full" node4
sleep 3
http=$(sed -n 's/^http=//p' "$dir/c/state/scheduler.address")
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
HOME=$dir "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --user-data-dir="$dir/chromium" --hide-scrollbars --window-size=1280,1400 \
    --virtual-time-budget=5000 --screenshot="$out" "http://$http/" 2> /dev/null
echo "wrote $out"
