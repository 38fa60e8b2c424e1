#!/bin/bash
# hpcq-md and hpcq-climate in a container (issue 26 part 2): the image is
# made here from the hpcq-md and hpcq-climate this tree built, with the
# libraries they link (and Open MPI's components, orted and help files when
# they link Open MPI), busybox for the shell.  A job of nobody's runs each
# through rootless runc: its final state is bitwise the state of the same
# run outside.  Then the same run
# on a spot node (-l spot=true -c auto) is reclaimed mid-run (hpcq-local's
# provider: a notice, then the instance dies): the app inside checkpoints
# on the signal and reports it through the worker's socket (bound in), the
# job moves, restarts from that checkpoint on the other node inside the
# image again, and ends bitwise identical to the uninterrupted run.
. "$(dirname "$0")/lib.sh"
MD=$HPCQ_BUILDDIR/apps/md/hpcq-md
CLIMATE=$HPCQ_BUILDDIR/apps/climate/hpcq-climate
export OMP_NUM_THREADS=1
unset HPCQ_CHECKPOINT_DIR HPCQ_CHECKPOINT_INTERVAL

container_prereqs 'hpcq-md in its image: bitwise the run outside'

# mkimage: hpcq-md and hpcq-climate at /bin, what they link in /lib (ld.so where it looks),
# and for Open MPI its components, data and orted at their own paths
# (a singleton MPI_Init starts orted, which wants an rsh agent to exist:
# OMPI_MCA_plm_rsh_agent=/bin/false, never called on one node).
img=$PUB/mdimg
copy_libs() { # FILE...: the libraries they link into the image's /lib
    local l
    for l in $(ldd "$@" 2>/dev/null | awk '/:$/ { next } $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u); do
        case $l in
        */ld-linux*) mkdir -p "$rootfs$(dirname "$l")" && cp -L "$l" "$rootfs$l" ;;
        *) [ -e "$rootfs/lib/$(basename "$l")" ] || cp -L "$l" "$rootfs/lib/" ;;
        esac || return 1
    done
}
mkimage() {
    rootfs=$WORK/mdroot
    rm -rf "$rootfs" && mkdir -p "$rootfs"/{bin,lib,etc,tmp,usr/bin} &&
    cp "$(command -v busybox)" "$MD" "$CLIMATE" "$rootfs/bin/" &&
    for c in sh cat false ls; do ln -s busybox "$rootfs/bin/$c"; done &&
    copy_libs "$MD" "$CLIMATE" || return 1
    local mpi plugins
    mpi=$(ldd "$MD" | awk '$1 ~ /^libmpi\.so/ { print $3 }')
    if [ -n "$mpi" ]; then
        local d
        # Where libmpi was built to find them (/usr/lib, not /lib, on a
        # merged /usr).
        plugins=$(readlink -f "$(dirname "$mpi")/openmpi")
        for d in "$plugins" /usr/share/openmpi /etc/openmpi; do
            [ -d "$d" ] && mkdir -p "$rootfs$(dirname "$d")" && cp -a "$d" "$rootfs$d"
        done
        cp -L "$(command -v orted)" "$rootfs/usr/bin/" &&
        copy_libs "$rootfs/usr/bin/orted" $(find "$rootfs$plugins" -name '*.so*' -type f) ||
            return 1
    fi
    umoci init --layout "$img" && umoci new --image "$img:latest" &&
    umoci insert --image "$img:latest" "$rootfs" / > /dev/null &&
    umoci config --image "$img:latest" --config.env PATH=/bin:/usr/bin \
        --config.env LD_LIBRARY_PATH=/lib > /dev/null &&
    chmod -R a+rX "$img"
}
mkimage || { echo "Bail out! cannot build the hpcq-md image"; exit 1; }
echo "# the image: $(du -sh "$WORK/mdroot" | cut -f1), Open MPI: $(ldd "$MD" | grep -c libmpi)"

# A run long enough to be reclaimed mid-way on this machine, however busy:
# about 30 s at the speed a short run shows (never fewer than 6,000 steps).
EVERY=200
t0=$(date +%s%N) && $MD --cpu --cells 5x5x5 --steps 2000 --thermo 0 > /dev/null 2>&1 &&
    t1=$(date +%s%N)
STEPS=$(( 2000 * 30 * 1000000000 / ((t1 - t0) > 0 ? t1 - t0 : 1) ))
STEPS=$(( STEPS > 6000 ? STEPS : 6000 ))
echo "# $STEPS steps"
RUN="hpcq-md --cpu --cells 5x5x5 --steps $STEPS --thermo 50 --thermo-digits 17 --neigh-every 7 --checkpoint-every $EVERY"
# The uninterrupted run outside, meanwhile.
mkdir -p "$WORK/ref"
(cd "$WORK/ref" && $MD ${RUN#hpcq-md} --checkpoint-dir ck --dump-state md.state > md.out 2>&1; echo $? > done) &

cluster_start 2 --cpus-per-worker 2 --node-timeout 3 --kill-delay 1 \
    --labels 1=spot --labels 2=spot
qsub_n() { as_user nobody qsub "$@"; }
node_state() { pbsnodes -F json "$1" | jq -r '.nodes[0].state'; }
host_of() { job_attr "$1" exec_host | cut -d/ -f1; }
on() { test "$(job_attr "$1" run_count)" = "$2" && has_state "$1" R && test "$(host_of "$1")" = "$3"; }
# The script: inside the image, from its own folder (shared: $PUB).
md_script() {
    echo "cd $1 && export OMP_NUM_THREADS=1 OMPI_MCA_plm_rsh_agent=/bin/false && exec $RUN --restart-auto --dump-state final.state > out.\$HPCQ_RESTART_COUNT 2>&1"
}
md_last() { awk '/^ *[0-9]+ +-?[0-9]/ { s = $1 } END { print s + 0 }' "$1/out.$2" 2>/dev/null; }
under_way() { test "$(md_last "$1" "$2")" -ge "$3" 2>/dev/null; }

test_expect_success 'hpcq-md in its image: bitwise the run outside' '
    d=$PUB/plain && mkdir -p $d && chmod 777 $d &&
    id=$(md_script $d | sed "s/--steps $STEPS/--steps 600/" | qsub_n -l container_image=$img -l select=1:ncpus=2 $(app_vars)) &&
    wait_state $id F 120 && cat $d/out.0 && test "$(job_attr $id Exit_status)" = 0 &&
    ! grep -q "restarting" $d/out.0 &&
    (cd $WORK && $MD ${RUN#hpcq-md} --steps 600 --checkpoint-dir ck-out --dump-state outside.state > outside.out 2>&1) &&
    cmp $WORK/outside.state $d/final.state &&
    test "$(grep "^ *600 " $d/out.0)" = "$(grep "^ *600 " $WORK/outside.out)"
'

test_expect_success 'hpcq-climate in its image: bitwise the run outside' '
    d=$PUB/climate && mkdir -p $d && chmod 777 $d &&
    cl="hpcq-climate --case collision --nx 100 --nz 50 --sim-time 40 --checkpoint-every 20" &&
    id=$(echo "cd $d && export OMP_NUM_THREADS=1 OMPI_MCA_plm_rsh_agent=/bin/false && exec $cl --dump final.bin > out 2>&1" |
         qsub_n -l container_image=$img -l select=1:ncpus=2 $(app_vars)) &&
    wait_state $id F 120 && cat $d/out && test "$(job_attr $id Exit_status)" = 0 &&
    (cd $WORK && $CLIMATE ${cl#hpcq-climate} --checkpoint-dir ck-cl --dump climate.bin > climate.out 2>&1) &&
    test -s $d/final.bin && cmp $WORK/climate.bin $d/final.bin
'

test_expect_success 'on a spot node, reclaimed mid-run: checkpointed inside, moved, restarted in the image' '
    d=$PUB/spot && mkdir -p $d && chmod 777 $d && pbsnodes -o node2 &&
    id=$(md_script $d | qsub_n -N md-spot -l container_image=$img -l select=1:ncpus=2 \
         -l spot=true -c auto $(app_vars)) && echo $id > spot.id &&
    wait_until 60 on $id 1 node1 && pbsnodes -r node2 &&
    wait_until 120 under_way $d 0 $((2 * EVERY)) &&
    hpcq-local reclaim $CLUSTER node1 30 &&
    wait_until 60 on $id 2 node2 && cat $d/out.0 | tail -3 &&
    wait_state $id F 300 && test "$(job_attr $id Exit_status)" = 0 &&
    cat $d/out.1 | head -5 && grep -q "restarting from step" $d/out.1
'

test_expect_success 'the move waited for the checkpoint the app reported from inside' '
    id=$(cat spot.id) &&
    db_query "SELECT detail FROM events WHERE job_seq = $(seqno $id) AND type = '\''requeued'\''" > r.txt &&
    cat r.txt && grep -q "^reclaimed: node node1 (.*); checkpoint reported" r.txt &&
    from=$(sed -n "s/.*restarting from step \([0-9]*\).*/\1/p" $PUB/spot/out.1) &&
    last=$(md_last $PUB/spot 0) && echo "last step $last, restarted from $from" &&
    test "$from" -gt 0 && test $((last - from)) -le $EVERY
'

test_expect_success 'and it ended bitwise identical to the uninterrupted run outside' '
    wait_until 300 test -s $WORK/ref/done && test "$(cat $WORK/ref/done)" = 0 &&
    cmp $WORK/ref/md.state $PUB/spot/final.state
'

test_done
