/* cgroup_impl.h - what cgroup.c shares with its two back ends
 * (cgroup_v1.c, cgroup_v2.c).  Not for the rest of the worker. */
#ifndef HPCQ_WORKER_CGROUP_IMPL_H
#define HPCQ_WORKER_CGROUP_IMPL_H

#include <limits.h>

#include "worker/cgroup.h"

#define CGROUP_HIER_MAX 5

/* A hierarchy the worker uses: its controller ("" for v2) and the
 * worker's directory in it (.../PREFIX/NODE). */
struct cgroup_hier {
    char ctrl[16];
    char dir[PATH_MAX];
};

struct cgroup_ops {
    const char *name;
    /* Fill cg->hier (the first one lists the tasks) and create the dirs. */
    int (*setup) (struct cgroups *cg, const struct cgroup_conf *conf,
                  struct hpcq_error *err);
    /* The job's directories exist: set its limits. */
    int (*limits) (const struct cgroup_job *j, const struct cgroup_limits *lim,
                   struct hpcq_error *err);
    int (*freeze) (const struct cgroup_job *j, int frozen);
    /* SIGKILL all at once, or NULL: freeze, signal each, thaw. */
    int (*kill) (const struct cgroup_job *j);
    void (*usage) (const struct cgroup_job *j, struct cgroup_usage *u);
    /* Where a single-threaded process enters by writing "0" (itself):
     * v1's "tasks" moves the writing thread only, which spares the
     * kernel's global threadgroup lock that "cgroup.procs" takes (an RCU
     * grace period: 20-100 ms of each job's start on a busy host); NULL:
     * write its pid to cgroup.procs (v2 has no such file). */
    const char *enter_file;
};

struct cgroups {
    const struct cgroup_ops *ops;
    struct cgroup_hier hier[CGROUP_HIER_MAX];
    int nhier;
    char base[PATH_MAX]; /* v2: the cgroup the worker started in */
    int lock_fd;         /* hier[0].dir, flock'ed while we live */
    char desc[2 * PATH_MAX + 512];
};

struct cgroup_job {
    struct cgroups *cg;
    char name[64];
    char *dir[CGROUP_HIER_MAX]; /* hier[i].dir/name */
};

extern const struct cgroup_ops cgroup_v1_ops;
extern const struct cgroup_ops cgroup_v2_ops;

/* Small file helpers: cgroup files are short text.  -1 with errno. */
int cg_write (const char *dir, const char *file, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
int cg_read (const char *dir, const char *file, char *buf, size_t len);
/* The value after "key " on a line of a flat-keyed file (memory.events,
 * cpu.stat, memory.oom_control), or -1. */
int64_t cg_read_key (const char *dir, const char *file, const char *key);
/* A file holding one number, or -1. */
int64_t cg_read_int (const char *dir, const char *file);
int cg_exists (const char *dir, const char *file);
/* The hierarchy's own path for ctrl, joined as MOUNT/OWN/PREFIX/NODE. */
int cg_worker_dir (const char *ctrl, const struct cgroup_conf *conf, char *own_dir,
                   size_t own_len, char *buf, size_t len, struct hpcq_error *err);

#endif
