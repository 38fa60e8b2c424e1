/* cgroup_v1.c - the cgroup v1 back end: one hierarchy per controller.
 *
 * freezer is required: it lists the job's tasks and stops them while they
 * are killed.  memory (memory.limit_in_bytes, and memsw so the limit is
 * not dodged into swap; memory.oom_control counts OOM kills), cpuset,
 * pids and cpuacct are used where mounted.  A new cpuset cgroup starts
 * with no cores and no memory nodes, so each level is filled from its
 * parent.
 */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "worker/cgroup_impl.h"

static const char *v1_ctrls[] = { "freezer", "memory", "cpuset", "pids", "cpuacct" };

static void parent_of (const char *dir, char *buf, size_t len)
{
    const char *slash = strrchr (dir, '/');
    snprintf (buf, len, "%.*s", slash ? (int)(slash - dir) : 0, dir);
}

/* cpus or mems of a fresh cpuset from its parent's. */
static int cpuset_inherit (const char *dir, const char *file, const char *want)
{
    char parent[PATH_MAX], buf[4096];

    if (want)
        return cg_write (dir, file, "%s", want);
    parent_of (dir, parent, sizeof (parent));
    if (cg_read (parent, file, buf, sizeof (buf)) < 0)
        return -1;
    buf[strcspn (buf, "\n")] = '\0';
    return cg_write (dir, file, "%s", buf);
}

/* A cpuset with no cores or no memory nodes takes no task (ENOSPC). */
static int cpuset_fill (const char *dir)
{
    static const char *files[] = { "cpuset.cpus", "cpuset.mems" };
    char buf[4096];

    for (int i = 0; i < 2; i++) {
        if (cg_read (dir, files[i], buf, sizeof (buf)) < 0)
            return -1;
        if (buf[strspn (buf, " \n")] == '\0'
            && cpuset_inherit (dir, files[i], NULL) < 0)
            return -1;
    }
    return 0;
}

/* Every level below the worker's own cgroup, top down: another worker of
 * the cluster may have just made PREFIX and not filled it yet. */
static int cpuset_fill_levels (const char *own, const char *dir)
{
    char path[PATH_MAX];
    size_t olen = strlen (own);

    snprintf (path, sizeof (path), "%s", dir);
    for (char *p = path + olen + 1; (p = strchr (p, '/')); p++) {
        *p = '\0';
        if (cpuset_fill (path) < 0)
            return -1;
        *p = '/';
    }
    return cpuset_fill (dir);
}

static int v1_setup (struct cgroups *cg, const struct cgroup_conf *conf,
                     struct hpcq_error *err)
{
    char own[PATH_MAX], missing[128] = "";
    size_t used;

    for (size_t i = 0; i < ARRAY_SIZE (v1_ctrls); i++) {
        struct cgroup_hier *h = &cg->hier[cg->nhier];
        const char *ctrl = v1_ctrls[i];
        struct hpcq_error e;

        if (cg_worker_dir (ctrl, conf, own, sizeof (own), h->dir, sizeof (h->dir), &e)
            < 0) {
            if (i == 0)
                return errprintf (err, "%s", e.text);
            used = strlen (missing);
            snprintf (missing + used, sizeof (missing) - used, " %s", ctrl);
            continue;
        }
        if (util_mkdir_mode (h->dir, 0755) < 0
            || (strcmp (ctrl, "cpuset") == 0 && cpuset_fill_levels (own, h->dir) < 0))
            return errprintf (err, "cannot create %s: %s", h->dir, strerror (errno));
        snprintf (h->ctrl, sizeof (h->ctrl), "%s", ctrl);
        cg->nhier++;
    }
    used = snprintf (cg->desc, sizeof (cg->desc), "cgroup v1 (");
    for (int i = 0; i < cg->nhier; i++)
        used += snprintf (cg->desc + used, sizeof (cg->desc) - used, "%s%s",
                          i ? " " : "", cg->hier[i].ctrl);
    snprintf (cg->desc + used, sizeof (cg->desc) - used, ") at %s%s%s", cg->hier[0].dir,
              missing[0] ? "; not mounted:" : "", missing);
    return 0;
}

static int v1_limits (const struct cgroup_job *j, const struct cgroup_limits *lim,
                      struct hpcq_error *err)
{
    for (int i = 0; i < j->cg->nhier; i++) {
        const char *ctrl = j->cg->hier[i].ctrl, *dir = j->dir[i];
        int rc = 0;

        if (strcmp (ctrl, "cpuset") == 0)
            rc = cpuset_inherit (dir, "cpuset.cpus", lim->cpus) < 0
                         || cpuset_inherit (dir, "cpuset.mems", lim->mems) < 0
                     ? -1
                     : 0;
        else if (strcmp (ctrl, "memory") == 0 && lim->mem > 0) {
            rc = cg_write (dir, "memory.limit_in_bytes", "%lld", (long long)lim->mem);
            /* Without swap accounting (a boot option) there is no memsw. */
            if (rc == 0 && cg_exists (dir, "memory.memsw.limit_in_bytes"))
                rc = cg_write (dir, "memory.memsw.limit_in_bytes", "%lld",
                               (long long)lim->mem);
        } else if (strcmp (ctrl, "pids") == 0 && lim->pids > 0)
            rc = cg_write (dir, "pids.max", "%lld", (long long)lim->pids);
        if (rc < 0)
            return errprintf (err, "cannot set %s limits in %s: %s", ctrl, dir,
                              strerror (errno));
    }
    return 0;
}

static int v1_freeze (const struct cgroup_job *j, int frozen)
{
    return cg_write (j->dir[0], "freezer.state", "%s", frozen ? "FROZEN" : "THAWED");
}

static const char *job_dir_of (const struct cgroup_job *j, const char *ctrl)
{
    for (int i = 0; i < j->cg->nhier; i++)
        if (strcmp (j->cg->hier[i].ctrl, ctrl) == 0)
            return j->dir[i];
    return NULL;
}

static void v1_usage (const struct cgroup_job *j, struct cgroup_usage *u)
{
    const char *dir;

    if ((dir = job_dir_of (j, "cpuacct")))
        u->cpu_ns = cg_read_int (dir, "cpuacct.usage");
    if ((dir = job_dir_of (j, "memory"))) {
        int64_t oom = cg_read_key (dir, "memory.oom_control", "oom_kill");
        u->mem_peak = cg_read_int (dir, "memory.max_usage_in_bytes");
        u->oom_kills = oom > 0 ? oom : 0;
    }
}

const struct cgroup_ops cgroup_v1_ops = {
    .name = "v1",
    .setup = v1_setup,
    .limits = v1_limits,
    .freeze = v1_freeze,
    .kill = NULL,
    .usage = v1_usage,
    .enter_file = "tasks",
};
