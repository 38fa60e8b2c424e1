/* container.h - jobs in OCI containers (qsub -l container_image=PATH;
 * docs/containers.md).
 *
 * The worker starts such a job as any other, as its owner, in its session
 * and cgroup, but runs hpcq-container (cli/hpcq-container.c) instead of
 * the script: as the owner, it unpacks the image with umoci --rootless,
 * writes the bundle's config.json (the job's folders, mounts, environment
 * and GPUs) and runs it with rootless runc, whose processes stay in the
 * job's cgroup.  Nothing here runs with root's power on the user's image.
 * This module finds the runtime at start and checks a job's request
 * against what the node allows.
 */
#ifndef HPCQ_WORKER_CONTAINER_H
#define HPCQ_WORKER_CONTAINER_H

#include <stddef.h>

#include "common/config.h"
#include "common/error.h"
#include "common/launch_msg.h"

/* container_runtime (runc, the default, or none) and the helper's path
 * (container_helper, else beside this worker in a build tree, else the
 * installed one) into helper[len]; "" where the node has no runtime
 * (runc and umoci on PATH), which is logged, not an error.  -1 with err
 * for a bad setting. */
int container_setup (struct config *cfg, char *helper, size_t len,
                     struct hpcq_error *err);

/* May this job run here?  0, or -1 with one line in why: no runtime on
 * node, a job of root (rootless runc needs an ordinary owner), or a
 * container_mounts source outside allow (container_mount_allow:
 * comma-separated folders; "" allows none). */
int container_check (const struct launch_req *req, const char *helper,
                     const char *allow, const char *node, char *why, size_t len);

#endif
