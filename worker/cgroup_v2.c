/* cgroup_v2.c - the cgroup v2 back end: one hierarchy.
 *
 * cgroup.procs lists the tasks, cgroup.freeze stops them, cgroup.kill
 * (Linux 5.14) kills them all at once; memory.max and memory.swap.max,
 * cpuset.cpus and pids.max carry the limits where those controllers are
 * delegated; memory.events counts OOM kills, memory.peak (5.19) the peak,
 * cpu.stat the CPU time (present without the cpu controller).
 *
 * Controllers reach a job's cgroup only if every level above enables them
 * in cgroup.subtree_control, and a cgroup that holds processes cannot
 * (the "no internal processes" rule; the root is exempt).  As Slurm does
 * under systemd's Delegate=yes, a worker alone in its cgroup moves itself
 * into a leaf (PREFIX/NODE/worker) to free it; a worker sharing its cgroup
 * with other processes gets no controllers, says so, and still kills and
 * freezes through the cgroup.
 */
#include <config.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "worker/cgroup_impl.h"

static const char *v2_wanted[] = { "memory", "cpuset", "pids" };

static int word_in (const char *text, const char *word)
{
    size_t n = strlen (word);

    for (const char *p = text; (p = strstr (p, word)); p += n)
        if ((p == text || p[-1] == ' ')
            && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
            return 1;
    return 0;
}

/* Enable what is available of v2_wanted below dir; -1 with errno of the
 * first refusal (EBUSY: dir holds processes). */
static int enable_controllers (const char *dir)
{
    char avail[512];

    if (cg_read (dir, "cgroup.controllers", avail, sizeof (avail)) < 0)
        return -1;
    for (size_t i = 0; i < ARRAY_SIZE (v2_wanted); i++)
        if (word_in (avail, v2_wanted[i])
            && cg_write (dir, "cgroup.subtree_control", "+%s", v2_wanted[i]) < 0)
            return -1;
    return 0;
}

/* Only this process in dir's cgroup.procs. */
static int alone_in (const char *dir)
{
    char buf[256], *nl;

    if (cg_read (dir, "cgroup.procs", buf, sizeof (buf)) < 0)
        return 0;
    nl = strchr (buf, '\n');
    return atoi (buf) == (int)getpid () && (!nl || nl[1] == '\0');
}

/* Move the worker out of the base cgroup to a leaf, so the base may
 * delegate controllers.  It stays there until it exits: going back would
 * need every level's controllers switched off first. */
static int move_to_leaf (struct cgroups *cg)
{
    char leaf[PATH_MAX + 16];

    snprintf (leaf, sizeof (leaf), "%s/worker", cg->hier[0].dir);
    if ((mkdir (leaf, 0755) < 0 && errno != EEXIST)
        || cg_write (leaf, "cgroup.procs", "%d", (int)getpid ()) < 0)
        return -1;
    return 0;
}

static int v2_setup (struct cgroups *cg, const struct cgroup_conf *conf,
                     struct hpcq_error *err)
{
    struct cgroup_hier *h = &cg->hier[0];
    char prefix_dir[PATH_MAX + 256], active[512];
    const char *why = NULL;
    int rc;

    if (cg_worker_dir ("", conf, cg->base, sizeof (cg->base), h->dir, sizeof (h->dir),
                       err)
        < 0)
        return -1;
    if (!cg_exists (cg->base, "cgroup.procs") || util_mkdir_mode (h->dir, 0755) < 0)
        return errprintf (err, "cannot create %s: %s", h->dir, strerror (errno));
    cg->nhier = 1;
    snprintf (prefix_dir, sizeof (prefix_dir), "%s/%s", cg->base, conf->prefix);
    rc = enable_controllers (cg->base);
    if (rc < 0 && errno == EBUSY && alone_in (cg->base) && move_to_leaf (cg) == 0)
        rc = enable_controllers (cg->base);
    if (rc < 0)
        why = errno == EBUSY ? "it holds other processes" : strerror (errno);
    else if (enable_controllers (prefix_dir) < 0 || enable_controllers (h->dir) < 0)
        why = strerror (errno);
    if (cg_read (h->dir, "cgroup.subtree_control", active, sizeof (active)) < 0)
        active[0] = '\0';
    active[strcspn (active, "\n")] = '\0';
    snprintf (cg->desc, sizeof (cg->desc), "cgroup v2 at %s (controllers: %s)%s%s%s%s",
              h->dir, active[0] ? active : "none", why ? "; cannot delegate from " : "",
              why ? cg->base : "", why ? ": " : "", why ? why : "");
    if (!word_in (active, "memory"))
        snprintf (cg->desc + strlen (cg->desc), sizeof (cg->desc) - strlen (cg->desc),
                  "; memory limits are not enforced");
    return 0;
}

static int v2_limits (const struct cgroup_job *j, const struct cgroup_limits *lim,
                      struct hpcq_error *err)
{
    const char *dir = j->dir[0];

    if (lim->mem > 0 && cg_exists (dir, "memory.max")
        && (cg_write (dir, "memory.max", "%lld", (long long)lim->mem) < 0
            || (cg_exists (dir, "memory.swap.max")
                && cg_write (dir, "memory.swap.max", "0") < 0)))
        return errprintf (err, "cannot set memory.max in %s: %s", dir,
                          strerror (errno));
    if (lim->cpus && cg_exists (dir, "cpuset.cpus")
        && cg_write (dir, "cpuset.cpus", "%s", lim->cpus) < 0)
        return errprintf (err, "cannot set cpuset.cpus in %s: %s", dir,
                          strerror (errno));
    if (lim->mems && cg_exists (dir, "cpuset.mems")
        && cg_write (dir, "cpuset.mems", "%s", lim->mems) < 0)
        return errprintf (err, "cannot set cpuset.mems in %s: %s", dir,
                          strerror (errno));
    if (lim->pids > 0 && cg_exists (dir, "pids.max")
        && cg_write (dir, "pids.max", "%lld", (long long)lim->pids) < 0)
        return errprintf (err, "cannot set pids.max in %s: %s", dir, strerror (errno));
    return 0;
}

static int v2_freeze (const struct cgroup_job *j, int frozen)
{
    return cg_write (j->dir[0], "cgroup.freeze", "%d", frozen ? 1 : 0);
}

static int v2_kill (const struct cgroup_job *j)
{
    int n = cgroup_job_count (j);

    if (n <= 0)
        return n;
    if (cg_exists (j->dir[0], "cgroup.kill"))
        return cg_write (j->dir[0], "cgroup.kill", "1") < 0 ? -1 : n;
    /* Before 5.14: stop them, then kill each. */
    (void)v2_freeze (j, 1);
    n = cgroup_job_signal (j, SIGKILL);
    (void)v2_freeze (j, 0);
    return n;
}

static void v2_usage (const struct cgroup_job *j, struct cgroup_usage *u)
{
    int64_t usec = cg_read_key (j->dir[0], "cpu.stat", "usage_usec");
    int64_t oom = cg_read_key (j->dir[0], "memory.events", "oom_kill");

    u->cpu_ns = usec >= 0 ? usec * 1000 : -1;
    u->mem_peak = cg_read_int (j->dir[0], "memory.peak");
    u->oom_kills = oom > 0 ? oom : 0;
}

const struct cgroup_ops cgroup_v2_ops = {
    .name = "v2",
    .setup = v2_setup,
    .limits = v2_limits,
    .freeze = v2_freeze,
    .kill = v2_kill,
    .usage = v2_usage,
};
