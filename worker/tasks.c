/* tasks.c - see tasks.h */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "worker/launch.h"
#include "worker/sandbox.h"
#include "worker/tasks.h"
#include "worker/worker.h"

/* PBS Pro's exit status for a job killed for exceeding its walltime. */
#define JOB_EXEC_KILL_WALLTIME (-29)

struct tasks {
    struct worker *w;
    struct task *head;
};

struct tasks *tasks_create (struct worker *w)
{
    struct tasks *ts = calloc (1, sizeof (*ts));
    if (ts)
        ts->w = w;
    return ts;
}

static void task_free (struct task *t)
{
    loop_timer_remove (t->warn_timer);
    loop_timer_remove (t->walltime_timer);
    loop_timer_remove (t->kill_timer);
    free (t);
}

void tasks_destroy (struct tasks *ts)
{
    if (!ts)
        return;
    while (ts->head) {
        struct task *t = ts->head;
        ts->head = t->next;
        task_free (t);
    }
    free (ts);
}

struct task *tasks_first (struct tasks *ts)
{
    return ts->head;
}

int tasks_count (struct tasks *ts)
{
    int n = 0;
    for (struct task *t = ts->head; t; t = t->next)
        n++;
    return n;
}

static void task_walltime (struct loop *l, void *arg);

static struct task *task_new (struct tasks *ts, int64_t seq, int attempt,
                              const char *jobid)
{
    struct task *t = xzalloc (sizeof (*t));

    t->seq = seq;
    t->attempt = attempt;
    snprintf (t->jobid, sizeof (t->jobid), "%s", jobid);
    t->ts = ts;
    t->start_ms = util_now_ms ();
    t->next = ts->head;
    ts->head = t;
    return t;
}

/* A task's timers are removed before the task is freed, and a removed
 * timer never fires, so the task itself is the timer's argument. */
static struct loop_timer *task_timer (struct tasks *ts, struct task *t,
                                      int64_t ms, loop_cb_f cb)
{
    return loop_timer_add (ts->w->loop, ms, 0, cb, t);
}

struct task *tasks_add (struct tasks *ts, int64_t seq, int attempt,
                        const char *jobid, pid_t pid, int64_t walltime,
                        const char *stderr_path)
{
    struct task *t = task_new (ts, seq, attempt, jobid);

    t->pid = pid;
    t->walltime = walltime;
    snprintf (t->stderr_path, sizeof (t->stderr_path), "%s", stderr_path);
    if (walltime >= 0)
        t->walltime_timer = task_timer (ts, t, walltime * 1000, task_walltime);
    return t;
}

struct task *tasks_add_failed (struct tasks *ts, int64_t seq, int attempt,
                               const char *jobid, int exit_status, const char *why)
{
    struct task *t = task_new (ts, seq, attempt, jobid);

    t->done = 1;
    t->exit_status = exit_status;
    snprintf (t->reason, sizeof (t->reason), "%s", why);
    return t;
}

struct task *tasks_find (struct tasks *ts, int64_t seq, int attempt)
{
    for (struct task *t = ts->head; t; t = t->next)
        if (t->seq == seq && t->attempt == attempt)
            return t;
    return NULL;
}

struct task *tasks_find_report (struct tasks *ts, int64_t report_id)
{
    for (struct task *t = ts->head; t; t = t->next)
        if (t->report_id == report_id)
            return t;
    return NULL;
}

void tasks_remove (struct tasks *ts, struct task *t)
{
    struct task **tp = &ts->head;

    while (*tp && *tp != t)
        tp = &(*tp)->next;
    if (*tp)
        *tp = t->next;
    task_free (t);
}

static void task_kill_now (struct loop *l, void *arg)
{
    struct task *t = arg;

    t->kill_timer = NULL;   /* one-shot: gone after this call */
    if (!t->done) {
        log_msg (LOG_INFO, "job %s: still alive after SIGTERM, sending SIGKILL", t->jobid);
        (void)kill (-t->pid, SIGKILL);
    }
}

void tasks_kill (struct tasks *ts, struct task *t, enum task_kill why, int immediate)
{
    if (t->done)
        return;
    if (t->kill == KILL_NONE)
        t->kill = why;
    if (immediate || ts->w->kill_delay_ms == 0) {
        (void)kill (-t->pid, SIGKILL);
        return;
    }
    (void)kill (-t->pid, SIGTERM);
    if (!t->kill_timer)
        t->kill_timer = task_timer (ts, t, ts->w->kill_delay_ms, task_kill_now);
}

/* PBS tells the user in the error file why the job was killed. */
static void task_note (const struct task *t, const char *text)
{
    int fd = open (t->stderr_path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd >= 0) {
        (void)util_write_all (fd, text, strlen (text));
        close (fd);
    }
}

static void task_warn (struct loop *l, void *arg)
{
    struct task *t = arg;

    t->warn_timer = NULL;
    if (t->done)
        return;
    log_msg (LOG_INFO, "job %s: signal %d ahead of its walltime", t->jobid, t->warn_signo);
    (void)kill (t->warn_batch_only ? t->pid : -t->pid, t->warn_signo);
}

void tasks_warn (struct tasks *ts, struct task *t, int signo, int secs, int batch_only)
{
    int64_t at;

    if (t->walltime < 0 || t->done)
        return;
    at = t->walltime > secs ? (t->walltime - secs) * 1000 : 0;
    t->warn_signo = signo;
    t->warn_batch_only = batch_only;
    loop_timer_remove (t->warn_timer);
    t->warn_timer = task_timer (ts, t, at, task_warn);
}

static void task_walltime (struct loop *l, void *arg)
{
    struct task *t = arg;
    char note[256];

    t->walltime_timer = NULL;
    if (t->done)
        return;
    log_msg (LOG_INFO, "job %s: walltime %lld s exceeded, killing it", t->jobid,
             (long long)t->walltime);
    snprintf (note, sizeof (note), "=>> PBS: job killed: walltime %lld exceeded "
              "limit %lld\n", (long long)(util_now_ms () - t->start_ms) / 1000,
              (long long)t->walltime);
    task_note (t, note);
    tasks_kill (t->ts, t, KILL_WALLTIME, 0);
}

static void task_exited (struct tasks *ts, struct task *t, int status,
                         const struct rusage *ru)
{
    t->done = 1;
    if (t->kill == KILL_WALLTIME)
        t->exit_status = JOB_EXEC_KILL_WALLTIME;
    else if (WIFSIGNALED (status))
        t->exit_status = 256 + WTERMSIG (status);   /* PBS convention */
    else
        t->exit_status = WEXITSTATUS (status);
    t->wall = (util_now_ms () - t->start_ms + 500) / 1000;
    t->cput = ru->ru_utime.tv_sec + ru->ru_stime.tv_sec;
    t->maxrss = (int64_t)ru->ru_maxrss * 1024;
    if (t->kill == KILL_WALLTIME)
        snprintf (t->reason, sizeof (t->reason), "Job killed: walltime %lld exceeded",
                  (long long)t->walltime);
    /* Whatever the script left behind in its session goes with it. */
    (void)kill (-t->pid, SIGKILL);
    loop_timer_remove (t->walltime_timer);
    loop_timer_remove (t->kill_timer);
    loop_timer_remove (t->warn_timer);
    t->walltime_timer = t->kill_timer = t->warn_timer = NULL;
    launch_cleanup (ts->w->spool, t->seq, t->attempt);
    if (t->sandbox[0])
        sandbox_remove (t->sandbox, (uid_t)t->uid);
    log_msg (LOG_INFO, "job %s exited with status %d after %lld s", t->jobid,
             t->exit_status, (long long)t->wall);
}

void tasks_reap (struct tasks *ts)
{
    struct rusage ru;
    int status;
    pid_t pid;

    while ((pid = wait4 (-1, &status, WNOHANG, &ru)) > 0) {
        struct task *t;
        for (t = ts->head; t; t = t->next)
            if (t->pid == pid && !t->done)
                break;
        if (!t) {
            /* The health check's, or a child whose launch had failed. */
            worker_child_exited (ts->w, pid, status);
            continue;
        }
        task_exited (ts, t, status, &ru);
        worker_report (ts->w, t);
    }
}

json_t *task_result_json (const struct task *t)
{
    json_t *o = json_pack ("{s:I s:i s:i s:I s:I s:I}", "seq", (json_int_t)t->seq,
                           "attempt", t->attempt, "exit_status", t->exit_status,
                           "cput", (json_int_t)t->cput, "walltime", (json_int_t)t->wall,
                           "maxrss", (json_int_t)t->maxrss);
    if (o && t->reason[0])
        json_object_set_new (o, "reason", json_string (t->reason));
    return o;
}

json_t *tasks_running_json (struct tasks *ts)
{
    json_t *arr = json_array ();
    for (struct task *t = ts->head; arr && t; t = t->next)
        if (!t->done)
            json_array_append_new (arr, json_pack ("{s:I s:i s:i}", "seq",
                                                   (json_int_t)t->seq, "attempt",
                                                   t->attempt, "pid", (int)t->pid));
    return arr;
}

json_t *tasks_finished_json (struct tasks *ts)
{
    json_t *arr = json_array ();
    for (struct task *t = ts->head; arr && t; t = t->next)
        if (t->done)
            json_array_append_new (arr, task_result_json (t));
    return arr;
}
