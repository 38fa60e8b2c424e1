#!/bin/bash
# tests/gpu/build-device-tree.sh - build, on a machine that has the build's
# dependencies and the CUDA toolkit (no GPU needed), the tree that
# tests/gpu/device-run.sh runs on a GPU machine that cannot build hpcq.
#
#   bash tests/gpu/build-device-tree.sh [DEST]     (from the repository root;
#                                                  DEST defaults to .gpu)
#
# Builds from a copy of the working tree's files (tracked and untracked but
# not ignored; the checkout itself is left alone) in a scratch folder with
# configure --with-cuda --without-mpi --without-netcdf --without-ucx (the
# GPU checks are single-process, and Open MPI would not travel), then copies
# into DEST the binaries the checks use plus the shared libraries a bare
# CUDA image may lack.  Keep DEST ignored (echo /.gpu/ >>.git/info/exclude)
# and name it in the device tool's carry.  About 23 MB (runc, umoci and busybox are
# 16 of them); 2-3 minutes on 2 CPUs.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
dest=${1:-.gpu}
W=$(mktemp -d /tmp/gpu-tree.XXXXXX)
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$W" --one-top-level=src
(cd "$W/src" && ./autogen.sh >/dev/null 2>&1)
mkdir "$W/b"
(cd "$W/b" && "$W/src/configure" -q --with-cuda --without-mpi --without-netcdf --without-ucx \
    && make -j"${JOBS:-2}" -s >/dev/null)
grep -q '^#define HAVE_CUDA 1' "$W/b/config.h" || { echo "configure found no CUDA" >&2; exit 1; }
ldd "$W/b/apps/md/hpcq-md" | grep -q libcudart || { echo "hpcq-md has no cudart" >&2; exit 1; }

rm -rf "$dest"
mkdir -p "$dest"/{cli,scheduler,worker,apps/md,climate,lib,libomp,cudalib,ctools}
for f in "$W"/b/cli/*; do [ -f "$f" ] && [ -x "$f" ] && cp -p "$f" "$dest/cli/"; done
cp -p "$W/b/scheduler/hpcq-scheduler" "$dest/scheduler/"
cp -p "$W/b/worker/hpcq-worker" "$dest/worker/"
cp -p "$W/b/apps/md/hpcq-md" "$dest/apps/md/"
# The Makefile's hpcq-climate: the same nvcc targets and static cudart as
# climate.sh's own recipe; used there only when the GPU machine has no gcc.
cp -p "$W/b/apps/climate/hpcq-climate" "$dest/climate/"
lib() { ldd "$1" | awk -v n="$2" '$1 ~ "^" n { print $3 }'; }
for n in libjansson libsqlite3 libuuid libmunge libnettle; do
    p=$(lib "$W/b/scheduler/hpcq-scheduler" "$n" | head -1)
    [ -n "$p" ] && cp -L "$p" "$dest/lib/"
done
# The worker's topology: hwloc, and the udev it links.
for n in libhwloc libudev; do
    p=$(lib "$W/b/worker/hpcq-worker" "$n" | head -1)
    [ -n "$p" ] && cp -L "$p" "$dest/lib/"
done
# container.sh's runtime (a bare CUDA image has none): runc with its
# libseccomp, umoci (static), busybox (static) for the test image.
for t in runc umoci busybox; do
    p=$(command -v $t) && cp -pL "$p" "$dest/ctools/"
done
if p=$(command -v runc); then
    p=$(lib "$p" libseccomp | head -1)
    [ -n "$p" ] && cp -L "$p" "$dest/lib/"
fi
p=$(lib "$W/b/apps/md/hpcq-md" libxxhash | head -1)     # the apps' checkpoints
[ -n "$p" ] && cp -L "$p" "$dest/lib/"
cp -L "$(lib "$W/b/apps/md/hpcq-md" libgomp | head -1)" "$dest/libomp/"
c=$(lib "$W/b/apps/md/hpcq-md" libcudart | head -1)
cp -L "$c" "$dest/cudalib/"; cp -L "$c" "$dest/cudalib/libcudart.so"
rm -rf "$W"
du -sh "$dest"
