#!/bin/bash
# tests/gpu/scheduler.sh - the scheduler's GPU path on a machine with an
# NVIDIA GPU and driver (run by hand or through the device tool; about a
# minute including the build).  Checks that:
#   - the worker finds the GPUs through NVML (not simulated) and reports them;
#   - a job asking for one GPU gets CUDA_VISIBLE_DEVICES = that GPU's UUID
#     and the CUDA runtime inside it sees exactly one device;
#   - a job asking for none on that node sees no GPU;
#   - NVML's report (model, memory, UUID, MIG instances, as pbsnodes shows
#     it) matches nvidia-smi: the same UUIDs, and MIG instances
#     only on a GPU whose MIG mode nvidia-smi says is enabled;
#   - hwloc's topology (issue 26): every GPU matched by NVML's PCI bus id
#     to a NUMA node of the real (not simulated) topology, the NUMA node
#     Linux gives that PCI device; a GPU job bound to that NUMA node;
#   - NVML's readings charged to a GPU job: resources_used.gpu_energy_j and
#     gpu_util_mean above 0 for a busy job, not marked simulated.
# Prints "N passed, N failed" last; exit status 0 only if all passed.
#
# BUILD=DIR uses an already built tree (DIR/cli/{hpcq-local,qsub,qstat,
# pbsnodes}, DIR/scheduler/hpcq-scheduler, DIR/worker/hpcq-worker) instead
# of running autogen, configure and make here: for a GPU machine without
# the build's dependencies (jansson, sqlite3, uuid headers), e.g. the tree
# tests/gpu/build-device-tree.sh makes for device-run.sh.  Unset, it builds
# as before.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp}/gpu-scheduler
mkdir -p "$out"
pass=0 fail=0
check() {
    if eval "$2"; then pass=$((pass + 1)); echo "ok - $1"
    else fail=$((fail + 1)); echo "not ok - $1"; fi
}

if ! command -v nvidia-smi >/dev/null; then
    echo "no nvidia-smi: not a GPU machine"; echo "0 passed, 1 failed"; exit 1
fi
nvidia-smi -L | tee "$out/nvidia-smi.txt"
if [ -n "${BUILD:-}" ]; then
    build=$(cd "$BUILD" && pwd) || { echo "no BUILD $BUILD"; echo "0 passed, 1 failed"; exit 1; }
    echo "using the build in $build"
else
build=$(mktemp -d /tmp/hpcq-gpu-build.XXXXXX)
(cd "$top" && ./autogen.sh >/dev/null 2>&1) &&
(cd "$build" && "$top/configure" -q && make -j"$(nproc)" -s >/dev/null) || {
    echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
fi
dir=$(mktemp -d /tmp/hpcq-gpu.XXXXXX)
# The daemons authenticate with MUNGE; a GPU machine without munged runs
# this check (which is about GPUs) without, and says so.
auth=()
command -v munged >/dev/null || { echo "no munged on $(hostname): --auth none"; auth=(--auth none); }
eval "$("$build/cli/hpcq-local" start "$dir/c" --workers 1 --cpus-per-worker 2 "${auth[@]}" \
    --worker-conf 1 'telemetry_interval = 1')"
trap '"$build/cli/hpcq-local" stop "$dir/c" >/dev/null 2>&1' EXIT
cd "$dir"
export PATH="$build/cli:$PATH"

check "the worker found GPUs through NVML" 'grep -Eq "found [1-9][0-9]* GPUs through NVML" "$dir/c/worker1.log"'
ngpu=$(nvidia-smi -L | grep -c "^GPU ")
check "the scheduler was told of all $ngpu GPUs" \
    'grep -q "node node1 up: .* $ngpu gpus" "$dir/c/scheduler.log"'

# What NVML told the worker, as the scheduler reports it (pbsnodes).
pbsnodes -a node1 | tee "$out/pbsnodes.txt"
pbsnodes -F json node1 > "$out/pbsnodes.json" 2>&1
nvidia-smi --query-gpu=index,name,uuid,memory.total,mig.mode.current --format=csv \
    | tee "$out/nvidia-smi-query.txt"
nvml() {    # a Python expression over gpus, the node's real GPUs
    python3 -c 'import json, sys
gpus = [g for n in json.load(sys.stdin)["nodes"] for g in n["gpus"] if not g["simulated"]]
print('"$1"')' < "$out/pbsnodes.json" 2>/dev/null
}
uuids_nvml=$(nvml '",".join(sorted(g["uuid"] for g in gpus))')
mig_nvml=$(nvml 'sum(len(g.get("mig", [])) for g in gpus)')
uuids_smi=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | sort | paste -sd,)
echo "NVML (pbsnodes): uuids=$uuids_nvml mig_instances=$mig_nvml"
check "NVML's GPU UUIDs are nvidia-smi's ($uuids_smi)" '[ -n "$uuids_smi" ] && [ "$uuids_nvml" = "$uuids_smi" ]'
if nvidia-smi --query-gpu=mig.mode.current --format=csv,noheader | grep -q Enabled; then
    check "NVML found the MIG instances of the GPUs in MIG mode" \
        'grep -q "is in MIG mode" "$dir/c/worker1.log" && [ "${mig_nvml:-0}" -gt 0 ]'
else
    check "no MIG instances reported on GPUs not in MIG mode" \
        '! grep -q "is in MIG mode" "$dir/c/worker1.log" && [ "$mig_nvml" = 0 ]'
fi

# nvidia-smi ignores CUDA_VISIBLE_DEVICES; ask the CUDA runtime instead.
cat > count.cu <<'CU'
#include <cstdio>
#include <cuda_runtime.h>
int main () { int n = -1; cudaGetDeviceCount (&n); printf ("cuda_devices=%d\n", n); return 0; }
CU
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$nvcc" -o count count.cu 2>"$out/nvcc.txt"
id=$(printf 'echo "cvd=$CUDA_VISIBLE_DEVICES"\nnvidia-smi -L\n./count\n' | qsub -l select=1:ncpus=1:ngpus=1)
wait_f() { [ -n "${1:-}" ] || return 1; for i in $(seq 1 600); do qstat -x -f "$1" | grep -q "job_state = F" && return 0; sleep 0.1; done; return 1; }
check "the GPU job finished" 'wait_f $id'
o=STDIN.o${id%%.*}
cp "$o" "$out/gpu-job.txt" 2>/dev/null
check "CUDA_VISIBLE_DEVICES is a GPU UUID" 'grep -Eq "^cvd=(GPU|MIG)-[0-9a-f-]+$" "$o"'
check "the CUDA runtime in the job sees exactly one GPU" 'grep -qx "cuda_devices=1" "$o"'
check "it is the GPU named by the UUID" \
    'grep -q "UUID: $(sed -n "s/^cvd=//p" "$o"))" "$o"'

id2=$(printf 'echo "cvd=[$CUDA_VISIBLE_DEVICES]"\n./count\n' | qsub)
check "the CPU job finished" 'wait_f $id2'
o2=STDIN.o${id2%%.*}
cp "$o2" "$out/cpu-job.txt" 2>/dev/null
check "a job without GPUs gets an empty CUDA_VISIBLE_DEVICES" 'grep -qx "cvd=\[\]" "$o2"'
check "and the CUDA runtime in it sees no GPU" 'grep -Eqx "cuda_devices=(0|-1)" "$o2"'
# Issue 26: NVML's PCI ids matched to hwloc, and Linux's NUMA node of each.
sysfs_numa() {  # a bus id as nvidia-smi prints it (00000000:18:00.0) -> its NUMA node
    local b; b=$(echo "$1" | tr 'A-F' 'a-f' | sed 's/^0000//')
    cat "/sys/bus/pci/devices/$b/numa_node" 2>/dev/null || echo -1
}
nvidia-smi --query-gpu=index,pci.bus_id --format=csv,noheader | tee "$out/pci.txt"
check "pbsnodes shows the real topology (not simulated)" \
    'grep -q "^     topology = .*NUMA node" "$out/pbsnodes.txt" && ! grep -q "topology = .*simulated" "$out/pbsnodes.txt"'
topo_gpus=$(sed -n 's/^     topology.numa[0-9]* = .*gpus //p' "$out/pbsnodes.txt" | tr ',' '\n' | sort -n | paste -sd,)
check "every GPU is on a NUMA node of hwloc's topology ($topo_gpus)" \
    '[ "$topo_gpus" = "$(seq 0 $((ngpu - 1)) | paste -sd,)" ]'
while IFS=', ' read -r gi bus; do
    want=$(sysfs_numa "$bus"); [ "$want" -lt 0 ] && want=0
    check "GPU $gi ($bus) is on NUMA node $want, as Linux says" \
        'grep -Eq "^     topology.numa$want = .*gpus ([0-9]+,)*$gi(,|\$)" "$out/pbsnodes.txt"'
done < "$out/pci.txt"

cat > busy.cu <<'CU'
#include <cstdio>
#include <cuda_runtime.h>
__global__ void spin (double *x, long n) { long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) for (int k = 0; k < 20000; k++) x[i] = x[i] * 0.999999 + 1e-9; }
int main () { long n = 1 << 24; double *x; cudaMalloc (&x, n * sizeof (double));
    for (int r = 0; r < 400; r++) spin<<<(n + 255) / 256, 256>>> (x, n);
    cudaDeviceSynchronize (); printf ("busy done\n"); return 0; }
CU
"$nvcc" -o busy busy.cu 2>>"$out/nvcc.txt"
id3=$(printf 'timeout 12 ./busy; sleep 2\n' | qsub -l select=1:ncpus=1:ngpus=1)
sleep 3; qstat -f "$id3" | grep exec_binding > "$out/busy-binding.txt"
check "the busy GPU job finished" 'wait_f $id3'
qstat -x -f "$id3" | tee "$out/busy-job.txt" | grep -E "resources_used|exec_binding"
ru() { sed -n "s/^    resources_used.$1 = //p" "$out/busy-job.txt"; }
check "NVML's energy is charged to the job ($(ru gpu_energy_j) J)" \
    'awk -v e="$(ru gpu_energy_j)" "BEGIN { exit !(e > 0) }"'
check "and its utilisation ($(ru gpu_util_mean) %)" \
    'awk -v u="$(ru gpu_util_mean)" "BEGIN { exit !(u > 0) }"'
check "not marked simulated" '! grep -q gpu_simulated "$out/busy-job.txt"'
check "the job was bound to its GPU's NUMA node while it ran" \
    'grep -q "^    exec_binding = node1:cpus=" "$out/busy-binding.txt"'

cp "$dir"/c/*.log "$out/" 2>/dev/null
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
