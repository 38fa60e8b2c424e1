#!/bin/bash
# tests/gpu/container.sh - a container job sees exactly its GPU (issue 26
# part 2), on a machine with an NVIDIA GPU and driver; run by hand or by
# device-run.sh (about 30 s).  Checks that:
#   - a container job asking for one GPU (qsub -l container_image=...,
#     run by an ordinary user: rootless runc) gets the CDI spec of exactly
#     that GPU, kind nvidia.com/gpu, not simulated;
#   - inside, /dev holds exactly one /dev/nvidiaN, the N that nvidia-smi
#     gives as that GPU's minor number (CUDA_VISIBLE_DEVICES names it);
#   - the CUDA runtime inside the image (a program built here, with its
#     libraries copied into the image, and the driver's libcuda bound in
#     by the spec) sees exactly one device;
#   - a container job with no GPU has no /dev/nvidiaN and sees none.
# Prints "N passed, N failed" last; exit status 0 only if all passed, 2 if
# it could not run here (no user namespaces, no runc or umoci, no other
# user), with the reason.
#
#   BUILD=DIR bash tests/gpu/container.sh    (DIR as scheduler.sh's BUILD:
#                                            a built tree; required)
set -u
out=${OUT:-/tmp}/gpu-container
mkdir -p "$out"
pass=0 fail=0
check() {
    if eval "$2"; then pass=$((pass + 1)); echo "ok - $1"
    else fail=$((fail + 1)); echo "not ok - $1"; fi
}
cannot() { echo "cannot run here: $*"; echo "0 passed, 0 failed (not run)"; exit 2; }

build=$(cd "${BUILD:-/nonexistent}" 2>/dev/null && pwd) || cannot "BUILD=DIR names no built tree"
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || cannot "no GPU (nvidia-smi)"
for p in runc umoci busybox setpriv python3; do
    command -v $p >/dev/null || cannot "no $p on PATH"
done
unshare --user true 2>/dev/null || cannot "no unprivileged user namespaces (rootless runc needs them)"
[ "$(id -u)" = 0 ] || cannot "run as root: the jobs run as nobody, as container jobs of root are refused"
id nobody >/dev/null 2>&1 || cannot "no user nobody"

dir=$(mktemp -d /tmp/hpcq-gpu-ct.XXXXXX)
chmod 755 "$dir"
pub=$dir/pub
mkdir -p "$pub" && chmod 1777 "$pub"
as_nobody() { (cd "$pub" && setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups "$@"); }

# The image: busybox, and a CUDA program with every library it links (the
# driver's libcuda comes from the spec, at /usr/local/nvidia/lib64).
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cat > "$dir/count.cu" <<'CU'
#include <cstdio>
#include <cuda_runtime.h>
int main () { int n = -1; cudaError_t e = cudaGetDeviceCount (&n);
    printf ("cuda_devices=%d (%s)\n", e == cudaSuccess ? n : -1, cudaGetErrorString (e)); return 0; }
CU
rootfs=$dir/rootfs
mkdir -p "$rootfs"/{bin,lib,lib64,etc,tmp,dev}
cp "$(command -v busybox)" "$rootfs/bin/"
for c in sh cat echo ls grep sed wc sleep; do ln -s busybox "$rootfs/bin/$c"; done
have_cuda=
if [ -x "$nvcc" ] && "$nvcc" -o "$rootfs/bin/count" "$dir/count.cu" 2>"$out/nvcc.txt"; then
    have_cuda=1
    for l in $(ldd "$rootfs/bin/count" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
        case $l in */ld-linux*) mkdir -p "$rootfs$(dirname "$l")"; cp -L "$l" "$rootfs$l" ;;
                   *) cp -L "$l" "$rootfs/lib/" ;; esac
    done
else
    echo "no nvcc, or it failed ($(tail -1 "$out/nvcc.txt" 2>/dev/null)): the CUDA runtime checks are left out"
fi
img=$pub/img
umoci init --layout "$img" && umoci new --image "$img:latest" &&
    umoci insert --image "$img:latest" "$rootfs" / >/dev/null &&
    umoci config --image "$img:latest" --config.env PATH=/bin \
        --config.env LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/lib >/dev/null &&
    chmod -R a+rX "$img" || cannot "umoci could not build the test image"

auth=()
command -v munged >/dev/null || { echo "no munged on $(hostname): --auth none"; auth=(--auth none); }
eval "$("$build/cli/hpcq-local" start "$dir/c" --workers 1 --cpus-per-worker 2 "${auth[@]}")" ||
    cannot "hpcq-local start failed"
trap '"$build/cli/hpcq-local" stop "$dir/c" >/dev/null 2>&1; cp "$dir"/c/*.log "$out/" 2>/dev/null' EXIT
export PATH="$build/cli:$PATH"
wait_f() { for _ in $(seq 1 600); do qstat -x -f "$1" 2>/dev/null | grep -q "job_state = F" && return 0; sleep 0.1; done; return 1; }

check "the worker offers containers (pbsnodes: container_runtime = runc)" \
    'pbsnodes -a node1 | tee "$out/pbsnodes.txt" | grep -q "resources_available.container_runtime = runc"'

job='echo "cvd=$CUDA_VISIBLE_DEVICES"; echo "dev=$(ls /dev | grep -E "^nvidia[0-9]+$" | sed "s/^/\/dev\//" | tr "\n" " ")"
echo "ctl=$(ls /dev | grep -c "^nvidiactl$")"
[ -x /bin/count ] && /bin/count; echo "--- cdi"; cat /etc/cdi/hpcq-job.json 2>/dev/null; echo; echo "--- end"'
id=$(echo "$job" | as_nobody qsub -l select=1:ncpus=1:ngpus=1 -l container_image="$img")
check "the 1-GPU container job finished" '[ -n "$id" ] && wait_f "$id"'
o=$pub/STDIN.o${id%%.*}
cp "$o" "$out/gpu-container-job.txt" 2>/dev/null
cat "$o" "$pub/STDIN.e${id%%.*}" 2>/dev/null
qstat -x -f "$id" > "$out/gpu-container-qstat.txt" 2>&1
cdi() {   # a Python expression over the job's CDI spec, as spec
    sed -n '/^--- cdi$/,/^--- end$/p' "$o" | sed '1d;$d' |
        python3 -c 'import json, sys; spec = json.load(sys.stdin); print('"$1"')' 2>/dev/null
}
uuid=$(sed -n 's/^cvd=//p' "$o")
minor=$(nvidia-smi -q -i "$uuid" 2>/dev/null | sed -n 's/^ *Minor Number *: *//p' | head -1)
echo "job's GPU $uuid, minor number $minor"
check "CUDA_VISIBLE_DEVICES names a GPU ($uuid)" '[[ $uuid == GPU-* || $uuid == MIG-* ]]'
kind=$(cdi 'spec["kind"]') ndev=$(cdi 'len(spec["devices"])')
check "the CDI spec is of kind nvidia.com/gpu ($kind), with exactly one device ($ndev)" \
    '[ "$kind" = nvidia.com/gpu ] && [ "$ndev" = 1 ]'
nodes=$(cdi '" ".join(n["path"] for d in spec["devices"] for n in d["containerEdits"].get("deviceNodes", []))')
check "the spec's device is /dev/nvidia$minor, the job's GPU ($nodes)" \
    '[ -n "$minor" ] && [ "$nodes" = "/dev/nvidia$minor" ]'
check "inside, /dev holds exactly /dev/nvidia$minor (and nvidiactl)" \
    'grep -qx "dev=/dev/nvidia$minor " "$o" && grep -qx "ctl=1" "$o"'
if [ -n "$have_cuda" ]; then
    check "the CUDA runtime inside the image sees exactly one GPU" 'grep -q "^cuda_devices=1 " "$o"'
fi
check "not marked simulated" '! grep -q "hpcq.simulated" "$o"'

id2=$(echo "$job" | as_nobody qsub -l select=1:ncpus=1 -l container_image="$img")
check "the container job without a GPU finished" '[ -n "$id2" ] && wait_f "$id2"'
o2=$pub/STDIN.o${id2%%.*}
cp "$o2" "$out/cpu-container-job.txt" 2>/dev/null
cat "$o2" 2>/dev/null
check "it has no /dev/nvidiaN" 'grep -qx "dev=" "$o2"'
if [ -n "$have_cuda" ]; then
    check "and the CUDA runtime in it sees none" 'grep -Eq "^cuda_devices=(0|-1) " "$o2"'
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
