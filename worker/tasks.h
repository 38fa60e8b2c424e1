/* tasks.h - the jobs running on this worker, and their results until the
 * scheduler has them.
 *
 * A task lives from launch until the scheduler acknowledges its result,
 * so results survive a scheduler restart: they are re-sent with the next
 * node.hello.  Launch, walltime and kill escalation (SIGTERM, kill_delay,
 * SIGKILL) are events and timers on the loop: nothing here waits for a
 * child or a user's file system.
 *
 * tasks also owns what running jobs need on this host: the spool, the
 * job cgroups (or, without them, process groups), the cores jobs hold, and
 * the helpers that do file operations as a job's owner.
 */
#ifndef HPCQ_WORKER_TASKS_H
#define HPCQ_WORKER_TASKS_H

#include <stdint.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <jansson.h>

#include "common/error.h"
#include "common/loop.h"
#include "worker/gpuuse.h"
#include "worker/launch.h"
#include "worker/privsep.h"

enum task_kill {
    KILL_NONE = 0,
    KILL_WALLTIME,
    KILL_DELETED,
    KILL_STALE,
    KILL_HOST,  /* another of its hosts failed */
    KILL_FENCE, /* the node's lease ended (fence.h) */
};

struct task {
    int64_t seq;
    int attempt;
    char jobid[128];
    pid_t pid; /* also the process group and session */
    int64_t start_ms;
    int64_t walltime;         /* seconds, -1 = none */
    int64_t mem;              /* the job's memory limit here, 0 = none */
    char stdout_path[4096];   /* where its stdout goes (qmsg -O) */
    char stderr_path[4096];   /* where its stderr goes: PBS's notes, qmsg -E */
    char sandbox[4096];       /* -W sandbox=PRIVATE: removed after it; "" if none */
    char remove_files[4];     /* qsub -R: o and/or e, removed after it */
    char *stageout;           /* qsub -W stageout (owned), copied after it */
    char *submit_dir;         /* its PBS_O_WORKDIR (owned), for stageout */
    struct privsep_cred cred; /* the job's owner */
    struct cgroup_job *cg;    /* NULL: process group only */
    int *slots;               /* the cores it holds (cores.h) */
    int nslots;
    char cpus[256]; /* those cores as a cpuset list */
    /* Where it is bound in the node's topology (worker/topo.h): its
     * threads and NUMA nodes as the topology numbers them ("" without
     * one), and its GPUs, whose NUMA nodes the next CPU-only jobs avoid. */
    char threads[256];
    char mems[64];
    int gpus[GPU_MAX];
    int ngpus;
    /* What it used of those GPUs (gpuuse.h); the figures for its result
     * once it ended (owned, NULL for a job without GPUs). */
    struct gpuuse gpu;
    json_t *gpu_result;

    /* Starting: the child has not exec'd yet. */
    int starting;
    int status_fd;
    struct loop_watch *status_watch;
    struct loop_timer *start_timer;
    struct launch_status *status;
    char start_error[1024];        /* why the child could not exec */
    uint64_t pending_signals;      /* qsig while starting: sent once it runs */
    struct task_msg *pending_msgs; /* qmsg while starting, the same */
    int reaped;                    /* the child's exit, kept until started */
    int wait_status;
    struct rusage ru;

    struct loop_timer *walltime_timer;
    struct loop_timer *kill_timer;
    struct loop_timer *warn_timer; /* sbatch --signal, before the walltime */
    int warn_signo, warn_secs, warn_batch_only;
    int ckpt_cpu;  /* -c c=MIN: its CPU time goes in heartbeats */
    int suspended; /* stopped (preemption's S) */
    enum task_kill kill;
    int done; /* exited; result below */
    int exit_status;
    int64_t cput, wall, maxrss;
    char reason[1024];
    char failed_host[64]; /* KILL_HOST: which (job.finished "host_failed") */
    int64_t report_id;    /* wire id of the job.finished in flight, 0 if
                                 * none, or one of the REPORT_ values */
    struct tasks *ts;
    TAILQ_ENTRY (task) link;
};

#define REPORT_IN_HELLO (-1)    /* carried by the unanswered node.hello */
#define REPORT_NONE_WANTED (-2) /* a stale copy: drop the result */

struct tasks;
struct worker;

/* Reads the worker's settings it owns (spool_dir, cgroup, cgroup_prefix,
 * acl_roots, job_pids_max, user_io_timeout), opens the spool and the
 * cgroups, and kills what a previous worker left.  NULL with err. */
struct tasks *tasks_create (struct worker *w, struct hpcq_error *err);
/* Kills every job left and removes its cgroup (waiting a moment). */
void tasks_destroy (struct tasks *ts);

/* Start a job (req is the caller's; launch_start fills in its sandbox).
 * The task is added at once; its job.started, or its failure as a result,
 * follows from the loop. */
void tasks_launch (struct tasks *ts, struct launch_req *req);

struct task *tasks_find (struct tasks *ts, int64_t seq, int attempt);
struct task *tasks_find_report (struct tasks *ts, int64_t report_id);
/* The task of job jobid ("42.server"), attempt attempt, or NULL. */
struct task *tasks_find_jobid (struct tasks *ts, const char *jobid, int attempt);
void tasks_remove (struct tasks *ts, struct task *t);
struct task *tasks_first (struct tasks *ts);
struct task *tasks_next (struct task *t);

/* Signal a task's processes (its cgroup, else its process group):
 * SIGTERM now and SIGKILL after the worker's kill delay, or SIGKILL at
 * once (immediate). */
void tasks_kill (struct tasks *ts, struct task *t, enum task_kill why, int immediate);

/* Stop every process of the task (on=1), or let them go on (0): its
 * cgroup's freezer, else SIGSTOP or SIGCONT to its process group.  A task
 * being killed is let go on so that it can die. */
void tasks_suspend (struct tasks *ts, struct task *t, int on);

/* The helpers that act as a job's owner (for other modules' work as the
 * owner, such as removing a checkpoint folder). */
struct privsep *tasks_privsep (struct tasks *ts);

/* Send signo to every process of the task (qsig); to a task still
 * starting, once its script runs. */
void tasks_signal (struct tasks *ts, struct task *t, int signo);

/* qmsg: append a line of text to the job's error file (to has 'E') and/or
 * its output file ('O'), as its owner, in the background; to a task still
 * starting (its files are not known yet), once its script runs. */
void tasks_message (struct tasks *ts, struct task *t, const char *to, const char *text);

/* Reap exited children (SIGCHLD).  Finished tasks are handed to the
 * worker to report. */
void tasks_reap (struct tasks *ts);

/* Count these NVML readings (gpumon.h) for the running jobs that hold
 * the GPUs read (gpuuse.h). */
void tasks_gpu_read (struct tasks *ts, const struct gpu_sample *s, int n);

/* The figures this node's simulated GPUs are given (borrowed). */
const struct gpuuse_sim *tasks_gpu_figures (const struct tasks *ts);

/* Results as JSON for job.finished / node.hello (new reference). */
json_t *task_result_json (const struct task *t);
/* Running tasks and unacknowledged results for node.hello. */
json_t *tasks_running_json (struct tasks *ts);
json_t *tasks_finished_json (struct tasks *ts);

int tasks_count (struct tasks *ts);

/* For the task manager (worker/tm.h), which runs a job's processes on its
 * sister hosts: the job cgroups (NULL without), their pids limit, and the
 * release of one (killed, removed now or on the cleanup timer). */
struct cgroups *tasks_cgroups (struct tasks *ts);
int64_t tasks_pids_max (struct tasks *ts);
void tasks_cgroup_release (struct tasks *ts, struct cgroup_job *cg);

/* A host of a job running here failed (its worker went while it ran a
 * process of the job): the job is killed, its comment names the host. */
void tasks_host_failed (struct tasks *ts, int64_t seq, int attempt, const char *host);

/* The node's lease ended (fence.h): every job here is killed at once, with
 * why as its reason; their results say "fenced". */
void tasks_fence (struct tasks *ts, const char *why);

/* The spool the jobs' records are in (borrowed), for the fence. */
struct spool *tasks_spool (struct tasks *ts);

#endif
