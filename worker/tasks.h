/* tasks.h - the jobs running on this worker, and their results until the
 * scheduler has them.
 *
 * A task lives from launch until the scheduler acknowledges its result,
 * so results survive a scheduler restart: they are re-sent with the next
 * node.hello.  Walltime and kill escalation (SIGTERM, kill_delay, SIGKILL
 * of the whole process group) are timers on the loop.
 */
#ifndef HPCQ_WORKER_TASKS_H
#define HPCQ_WORKER_TASKS_H

#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#include "common/loop.h"

enum task_kill {
    KILL_NONE = 0,
    KILL_WALLTIME,
    KILL_DELETED,
    KILL_STALE,
};

struct task {
    int64_t seq;
    int attempt;
    char jobid[128];
    pid_t pid;                  /* also the process group and session */
    int64_t start_ms;
    int64_t walltime;           /* seconds, -1 = none */
    char stderr_path[4096];
    char stdout_path[4096];     /* for qmsg -O (stderr_path for -E) */
    char sandbox[4096];         /* removed when it ends; "" if none */
    int64_t uid;                /* its owner */
    struct loop_timer *warn_timer;  /* sbatch --signal, before the walltime */
    int warn_signo, warn_batch_only;
    struct loop_timer *walltime_timer;
    struct loop_timer *kill_timer;
    enum task_kill kill;
    int done;                   /* exited; result below */
    int exit_status;
    int64_t cput, wall, maxrss;
    char reason[256];
    int64_t report_id;          /* wire id of the job.finished in flight, 0 if
                                 * none, or one of the REPORT_ values */
    struct tasks *ts;
    struct task *next;
};

#define REPORT_IN_HELLO (-1)       /* carried by the unanswered node.hello */
#define REPORT_NONE_WANTED (-2)    /* a stale copy: drop the result */

struct tasks;
struct worker;

struct tasks *tasks_create (struct worker *w);
void tasks_destroy (struct tasks *ts);

struct task *tasks_add (struct tasks *ts, int64_t seq, int attempt,
                        const char *jobid, pid_t pid, int64_t walltime,
                        const char *stderr_path);
/* A task that failed before it started: done at once with exit_status. */
struct task *tasks_add_failed (struct tasks *ts, int64_t seq, int attempt,
                               const char *jobid, int exit_status, const char *why);
struct task *tasks_find (struct tasks *ts, int64_t seq, int attempt);
struct task *tasks_find_report (struct tasks *ts, int64_t report_id);
void tasks_remove (struct tasks *ts, struct task *t);
struct task *tasks_first (struct tasks *ts);

/* Signal a task's process group: SIGTERM now and SIGKILL after the
 * worker's kill delay, or SIGKILL at once (immediate). */
void tasks_kill (struct tasks *ts, struct task *t, enum task_kill why, int immediate);

/* sbatch --signal: send signo secs before the walltime to the task's
 * process group, or to its batch shell alone (batch_only).  A task
 * without a walltime gets none. */
void tasks_warn (struct tasks *ts, struct task *t, int signo, int secs, int batch_only);

/* Reap exited children (SIGCHLD).  Finished tasks are handed to the
 * worker to report. */
void tasks_reap (struct tasks *ts);

/* Results as JSON for job.finished / node.hello (new reference). */
json_t *task_result_json (const struct task *t);
/* Running tasks and unacknowledged results for node.hello. */
json_t *tasks_running_json (struct tasks *ts);
json_t *tasks_finished_json (struct tasks *ts);

int tasks_count (struct tasks *ts);

#endif
