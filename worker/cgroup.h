/* cgroup.h - each job in its own cgroup on this host: containment, limits,
 * usage.
 *
 * A job's processes are found through its cgroup, not its process group,
 * so nothing escapes a kill by setsid() or a double fork.  The cgroup also
 * carries the job's limits (memory from mem, the cores it was given, a
 * process count) and reports its CPU time, peak memory and OOM kills.
 *
 * Layout, in each hierarchy used: the worker's own cgroup (as the kernel
 * lists it in /proc/self/cgroup), then PREFIX/NODE, then one directory per
 * job attempt (job_SEQ.ATTEMPT).  PREFIX (cgroup_prefix) and NODE keep the
 * workers of several clusters on one host apart; hpcq-local makes PREFIX
 * unique per cluster.
 *
 * Two back ends behind one interface, as in Slurm: cgroup v1 (a hierarchy
 * per controller: freezer is required; memory, cpuset, pids and cpuacct
 * are used when mounted) and cgroup v2 (one hierarchy: cgroup.procs,
 * cgroup.freeze, cgroup.kill, memory.max, memory.events, cpuset.cpus,
 * pids.max, cpu.stat).  "auto" picks v1 where the v1 freezer is mounted
 * (hybrid hosts keep their controllers there), else v2.
 *
 * Needs root.  Without a usable hierarchy cgroups_open() fails and the
 * worker falls back to process groups.
 */
#ifndef HPCQ_WORKER_CGROUP_H
#define HPCQ_WORKER_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

struct cgroup_conf {
    const char *mode;   /* "auto", "v1", "v2" ("off" is the caller's) */
    const char *prefix; /* cgroup_prefix, one path component */
    const char *node;   /* the node's name */
};

struct cgroup_limits {
    int64_t mem;      /* bytes, 0 = no limit */
    const char *cpus; /* cpuset list ("0-3,8"), NULL = the worker's */
    int64_t pids;     /* most tasks at once, 0 = no limit */
    const char *mems; /* cpuset memory nodes ("0"), NULL = the worker's */
};

struct cgroup_usage {
    int64_t cpu_ns;    /* user + system CPU time of every task, -1 unknown */
    int64_t mem_peak;  /* bytes, -1 unknown */
    int64_t oom_kills; /* tasks the OOM killer took inside the limit */
};

struct cgroups;
struct cgroup_job;

/* Find the hierarchies and create this worker's directory in each, and
 * hold it (flock) while the worker lives.  Returns NULL with err when
 * cgroups cannot be used here (not root, not mounted, no freezer...) or
 * another live worker holds the same PREFIX/NODE.  Caller destroys with
 * cgroups_close(). */
struct cgroups *cgroups_open (const struct cgroup_conf *conf, struct hpcq_error *err);

/* Remove the worker's directories (they must be empty by then). */
void cgroups_close (struct cgroups *cg);

/* "cgroup v1 (freezer memory cpuset pids cpuacct) at DIR" and what is
 * missing, for the worker's log.  Borrowed. */
const char *cgroups_describe (const struct cgroups *cg);

/* At start: kill every task of job cgroups a previous worker left and
 * remove them.  Returns how many job cgroups there were. */
int cgroups_sweep (struct cgroups *cg);

/* Kill every task of every job cgroup under this worker's directory,
 * leaving the directories (a live worker may hold them); each (may be
 * NULL) is called with the name of each cgroup that had tasks.  Returns
 * how many had. */
int cgroups_kill_jobs (struct cgroups *cg, void (*each) (const char *name, void *arg),
                       void *arg);

/* Create the cgroup of one job attempt, named name (job_SEQ.ATTEMPT), and
 * set its limits.  A leftover of the same name is emptied and replaced.
 * Returns NULL with err; caller frees with cgroup_job_destroy() or
 * cgroup_job_free(). */
struct cgroup_job *cgroup_job_create (struct cgroups *cg, const char *name,
                                      const struct cgroup_limits *lim,
                                      struct hpcq_error *err);

/* Move the calling process into the job's cgroup.  For the job's child
 * after fork, before it drops root and before it starts a thread (it
 * must be single-threaded: on v1 it moves its one thread): only
 * open/write/close.  0 or -1. */
int cgroup_job_enter (const struct cgroup_job *j);

/* Let the job's owner pass through its cgroup folders (0711; the worker's
 * umask makes them 0700): rootless runc looks in them for a cgroup of its
 * own, finds none and leaves the container in the job's (container.h).
 * 0 or -1 with errno. */
int cgroup_job_traversable (const struct cgroup_job *j);

/* Send sig to every task in the cgroup.  Returns how many, -1 on error. */
int cgroup_job_signal (const struct cgroup_job *j, int sig);

/* SIGKILL every task, none able to fork meanwhile (v2's cgroup.kill, or
 * freeze, signal each, thaw).  Returns how many tasks there were (0: the
 * cgroup is empty), -1 on error.  Repeat until 0. */
int cgroup_job_kill (const struct cgroup_job *j);

/* Stop every task of the job / let them run again (for suspend). */
int cgroup_job_freeze (const struct cgroup_job *j);
int cgroup_job_thaw (const struct cgroup_job *j);

/* Tasks in the cgroup, -1 on error. */
int cgroup_job_count (const struct cgroup_job *j);

/* What the job used so far; unknown values are -1. */
void cgroup_job_usage (const struct cgroup_job *j, struct cgroup_usage *u);

/* The job's directory in the first hierarchy (for logs).  Borrowed. */
const char *cgroup_job_path (const struct cgroup_job *j);

/* Remove the cgroup and free j.  -1 (EBUSY) while tasks remain: j stays
 * valid, kill and try again. */
int cgroup_job_destroy (struct cgroup_job *j);

/* Free j, leaving the cgroup as it is (the next worker's sweep removes it). */
void cgroup_job_free (struct cgroup_job *j);

/* Parsers, exposed for the unit tests.
 * cgroup_own_path: the path of this process's cgroup in the hierarchy of
 * controller ctrl ("" = the v2 hierarchy) from /proc/self/cgroup text.
 * cgroup_mount_dir: where that hierarchy's path root is mounted, from
 * /proc/self/mountinfo text, joined with own (a mount of a subtree, as in
 * containers, is allowed for).  Both 0 or -1 (ENOENT). */
int cgroup_own_path (const char *proc_cgroup, const char *ctrl, char *buf, size_t len);
int cgroup_mount_dir (const char *mountinfo, const char *ctrl, const char *own,
                      char *buf, size_t len);

#endif
