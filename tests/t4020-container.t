#!/bin/bash
# Jobs in OCI containers (issue 26 part 2; docs/containers.md): qsub -l
# container_image=PATH runs the script inside a local OCI image layout the
# test builds from Debian's busybox-static with umoci, through rootless
# runc as the job's owner: the image's files, the node's hostname, the
# job's folder and id, the owner's files; in the job's cgroup; qdel ends
# it with nothing left.  Refused in one line: a missing image, a folder
# that is no OCI layout, a mount outside container_mount_allow, and a
# container on nodes without a runtime.
. "$(dirname "$0")/lib.sh"

container_prereqs 'a job runs inside its image'
img=$PUB/img
qsub_n() { as_user nobody qsub "$@"; }
out() { cat "$PUB/$1.o$(seqno $2)"; }
mkimage() {
    local rootfs=$WORK/rootfs
    rm -rf "$rootfs" && mkdir -p "$rootfs/bin" "$rootfs/etc" "$rootfs/tmp" &&
    cp "$(command -v busybox)" "$rootfs/bin/" &&
    for c in sh cat echo hostname id ls sleep pwd grep touch; do ln -s busybox "$rootfs/bin/$c"; done &&
    echo "hpcq test image" > "$rootfs/etc/hpcq-image" &&
    umoci init --layout "$img" && umoci new --image "$img:latest" &&
    umoci insert --image "$img:latest" "$rootfs" / > /dev/null &&
    umoci config --image "$img:latest" --config.env PATH=/bin > /dev/null &&
    chmod -R a+rX "$img"
}
mkimage || { echo "Bail out! cannot build the test image"; exit 1; }
mkdir -p "$PUB/data" && echo "shared data" > "$PUB/data/in.txt" && chmod -R a+rX "$PUB/data"

cluster_start 2 --cpus-per-worker 2 --gpus-per-worker 2 --kill-delay 1 \
    --worker-conf 1 "container_mount_allow = $PUB/data" \
    --worker-conf 2 'container_runtime = none'

test_expect_success 'pbsnodes: node1 has a container runtime, node2 none' '
    pbsnodes -a > n.out &&
    sed -n "/^node1/,/^$/p" n.out | grep -qx "     resources_available.container_runtime = runc" &&
    ! sed -n "/^node2/,/^$/p" n.out | grep -q container_runtime
'

cat > "$PUB/job.sh" <<'EOS'
cat /etc/hpcq-image
echo "host=$(hostname) id=$PBS_JOBID"
echo "pwd=$(pwd)"
grep freezer /proc/self/cgroup
ls /bin/busybox
echo written > made-inside.txt
EOS
chmod 644 "$PUB/job.sh"
test_expect_success 'a job runs inside its image, on node1, with the node'\''s hostname' '
    id=$(qsub_n -l container_image=$img job.sh) && wait_state $id F 60 && echo $id > j1 &&
    out job.sh $id && cat "$PUB/job.sh.e$(seqno $id)" &&
    test "$(job_attr $id exec_host)" = "node1/0*1" &&
    out job.sh $id | grep -qx "hpcq test image" &&
    out job.sh $id | grep -qx "host=$(hostname) id=$id" &&
    out job.sh $id | grep -qx "pwd=$PUB" && out job.sh $id | grep -qx /bin/busybox &&
    test "$(job_attr $id Exit_status)" = 0 && test "$(cat "$PUB/made-inside.txt")" = written &&
    test "$(job_attr $id Resource_List.container_image)" = "$img"
'

test_expect_success 'as its owner outside: the file it made is nobody'\''s' '
    test "$(stat -c %U "$PUB/made-inside.txt")" = nobody
'

test_expect_success 'in the job'\''s own cgroup, not a cgroup of runc'\''s' '
    id=$(cat j1) &&
    case "$(containment 1)" in
    "cgroup v1"*freezer*) out job.sh $id | grep -Eq "freezer:.*/job_$(seqno $id)\.[0-9]+$" ;;
    *) echo "no freezer cgroup here: $(containment 1)" ;;
    esac
'

test_expect_success 'an allowed mount, read-only, is there' '
    id=$(echo "cat /data/in.txt; touch /data/x 2>/dev/null && echo writable || echo read-only" |
         qsub_n -l container_image=$img -l container_mounts=$PUB/data:/data:ro) &&
    wait_state $id F 60 && out STDIN $id &&
    out STDIN $id | grep -qx "shared data" && out STDIN $id | grep -qx read-only
'

test_expect_success 'a GPU job sees its GPU, and the CDI spec of exactly it, labelled simulated' '
    id=$(echo "echo cvd=\$CUDA_VISIBLE_DEVICES; cat /etc/cdi/hpcq-job.json; echo; echo nvidia=\$(ls /dev | grep -c nvidia)" |
         qsub_n -l select=1:ncpus=1:ngpus=1 -l container_image=$img) && wait_state $id F 60 &&
    out STDIN $id && g=$(out STDIN $id | sed -n "s/^cvd=//p") && test -n "$g" &&
    sed -n "/^{/,/^}/p" "$PUB/STDIN.o$(seqno $id)" > cdi.json && jq . cdi.json &&
    test "$(jq -r .kind cdi.json)" = hpcq.simulated/gpu &&
    test "$(jq -r "[.devices[].name] | join(\",\")" cdi.json)" = "$g" &&
    out STDIN $id | grep -qx nvidia=0
'

test_expect_success 'sbatch --container-image and --container-mounts, as Pyxis spells them' '
    n=$(as_user nobody sbatch --parsable --container-image=$img \
        --container-mounts=$PUB/data:/data:ro --container-workdir=/data \
        --wrap "cat /etc/hpcq-image; cat in.txt; pwd") &&
    id=$(qstat -x | awk -v n=$n "\$1 ~ \"^\" n \"[.]\" { print \$1 }") && echo "$id" &&
    wait_state $id F 60 && cat "$PUB/slurm-$n.out" &&
    test "$(job_attr $id Resource_List.container_image)" = "$img" &&
    test "$(job_attr $id Resource_List.container_mounts)" = "$PUB/data:/data:ro" &&
    grep -qx "hpcq test image" "$PUB/slurm-$n.out" && grep -qx "shared data" "$PUB/slurm-$n.out" &&
    grep -qx /data "$PUB/slurm-$n.out"
'

test_expect_success 'the image'\''s PATH and LD_LIBRARY_PATH, the job'\''s other variables' '
    id=$(echo "echo path=\$PATH; echo ldp=\$LD_LIBRARY_PATH; echo v=\$MYVAR" |
         LD_LIBRARY_PATH=/host/lib qsub_n -V -v MYVAR=hello -l container_image=$img) &&
    wait_state $id F 60 && out STDIN $id &&
    out STDIN $id | grep -qx "path=/bin" && out STDIN $id | grep -qx "ldp=" &&
    out STDIN $id | grep -qx "v=hello"
'

test_expect_success 'qdel ends a container job with nothing left' '
    id=$(echo "echo started; sleep 317" | qsub_n -l container_image=$img) && wait_state $id R &&
    wait_until 20 pgrep -f "slee[p] 317" > /dev/null && qdel $id && wait_state $id F 30 &&
    wait_until 10 sh -c "! pgrep -f \"slee[p] 317\" > /dev/null" &&
    ! pgrep -f "runc.*hpcq-$id-" > /dev/null
'

test_expect_success 'a missing image and a folder that is no OCI layout are refused in one line' '
    ! echo true | qsub_n -l container_image=/no/such/image 2> m.err && cat m.err &&
    test "$(wc -l < m.err)" -eq 1 && grep -q "container_image /no/such/image: No such file" m.err &&
    mkdir -p "$PUB/notoci" && ! echo true | qsub_n -l container_image=$PUB/notoci 2> n.err &&
    cat n.err && test "$(wc -l < n.err)" -eq 1 && grep -q "not an OCI image layout" n.err &&
    ! echo true | qsub_n -l container_image=$img:nosuchtag 2> t.err && cat t.err &&
    test "$(wc -l < t.err)" -eq 1 && grep -q "no image tagged .nosuchtag." t.err &&
    ! echo true | qsub_n -l container_image=relative/img 2> r.err &&
    test "$(wc -l < r.err)" -eq 1 && grep -q "invalid container_image" r.err
'

test_expect_success 'a mount outside container_mount_allow: the job does not start, and says why' '
    id=$(echo "echo ran" | qsub_n -l container_image=$img -l container_mounts=/etc:/host-etc) &&
    wait_state $id F 60 && c=$(job_attr $id comment) && echo "$c" &&
    echo "$c" | grep -q "container_mounts: /etc is outside what node node1 allows" &&
    ! grep -qx ran "$PUB/STDIN.o$(seqno $id)" 2>/dev/null
'

test_expect_success 'root'\''s container job does not start, and says why' '
    id=$(echo "echo ran" | qsub -l container_image=$img) && wait_state $id F 60 &&
    c=$(job_attr $id comment) && echo "$c" &&
    echo "$c" | grep -q "jobs of root do not run in containers"
'

test_expect_success 'bad container_mounts is refused at qsub in one line' '
    ! echo true | qsub_n -l container_image=$img -l container_mounts=data:/data 2> b.err &&
    test "$(wc -l < b.err)" -eq 1 && grep -q "invalid container_mounts" b.err
'

cluster_stop
CLUSTER=$WORK/c2
cluster_start 1 --cpus-per-worker 2 --worker-conf 1 'container_runtime = none'
test_expect_success 'no node with a runtime: a container job is refused at qsub' '
    ! echo true | qsub_n -l container_image=$img 2> x.err && cat x.err &&
    test "$(wc -l < x.err)" -eq 1
'

test_done
