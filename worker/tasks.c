/* tasks.c - see tasks.h
 *
 * A task's life: tasks_launch() forks the job's child and watches its
 * status pipe (task_status_cb); EOF means the script runs (job.started)
 * or the child says why it could not (the job fails with exit status -1).
 * The child's exit comes through SIGCHLD (tasks_reap); the task finishes
 * once both are in (task_finish), in whichever order they came.  After
 * that the job's cgroup is emptied and removed on a timer (cleanup_tick),
 * not waited for.
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/resource.h"
#include "common/util.h"
#include "worker/cgroup.h"
#include "worker/checkpoint.h"
#include "worker/container.h"
#include "worker/cores.h"
#include "worker/sandbox.h"
#include "worker/stage.h"
#include "worker/tasks.h"
#include "worker/tm.h"
#include "worker/topo.h"
#include "worker/worker.h"

/* PBS Pro's exit status for a job killed for exceeding its walltime. */
#define JOB_EXEC_KILL_WALLTIME (-29)

/* How often, and how many times, an ended job's cgroup is tried. */
#define CLEANUP_MS 50
#define CLEANUP_TRIES 200

/* A job cgroup being emptied after its job ended. */
struct cleanup {
    struct cgroup_job *cg;
    int tries;
    LIST_ENTRY (cleanup) link;
};

struct tasks {
    struct worker *w;
    TAILQ_HEAD (, task) head;
    struct spool *spool;
    struct cgroups *cg; /* NULL: process groups only */
    struct cores *cores;
    struct privsep *ps;
    const char *acl_roots; /* users whose uid 0 jobs may run here */
    int64_t pids_max;
    int64_t io_timeout_ms;
    struct gpuuse_sim gpu_sim; /* simulated GPUs' figures (gpuuse.h) */
    LIST_HEAD (, cleanup) cleanups;
    struct loop_timer *cleanup_timer;
};

/* A qmsg line that came while the task was starting. */
struct task_msg {
    char to[4];
    char *text;
    struct task_msg *next;
};

#define PENDING_MSGS_MAX 64

static void cleanup_tick (struct loop *l, void *arg);

/* sim_gpu_util (%), sim_gpu_power (W), sim_gpu_mem_used: what each of
 * this node's simulated GPUs is said to do while a job holds it. */
static int tasks_gpu_sim (struct tasks *ts, struct config *cfg, struct hpcq_error *err)
{
    const char *s;

    ts->gpu_sim = (struct gpuuse_sim){ 0, 0, 0 };
    if ((s = config_get (cfg, "sim_gpu_util", NULL))
        && util_parse_double (s, 0, 100, &ts->gpu_sim.util) < 0)
        return errprintf (err, "invalid sim_gpu_util '%s' (a percentage, 0-100)", s);
    if ((s = config_get (cfg, "sim_gpu_power", NULL))
        && util_parse_double (s, 0, 100000, &ts->gpu_sim.power) < 0)
        return errprintf (err, "invalid sim_gpu_power '%s' (watts, 0-100000)", s);
    if ((s = config_get (cfg, "sim_gpu_mem_used", NULL))
        && resource_parse_size (s, &ts->gpu_sim.mem, err) < 0)
        return -1;
    return 0;
}

/* Slots follow the node's topology when the worker read one. */
static void tasks_topology (struct tasks *ts)
{
    const struct topo *topo = ts->w->topo;
    int n, *pus, *numa, socket_of[CORES_NUMA_MAX], numa_os[CORES_NUMA_MAX];

    if (!topo || (n = topo_pus (topo, NULL, 0)) <= 0)
        return;
    pus = xzalloc ((size_t)n * sizeof (int));
    numa = xzalloc ((size_t)n * sizeof (int));
    topo_pus (topo, pus, n);
    for (int i = 0; i < n; i++)
        numa[i] = topo_pu_numa (topo, pus[i]);
    for (int i = 0; i < CORES_NUMA_MAX; i++) {
        socket_of[i] = topo_numa_socket (topo, i);
        numa_os[i] = topo_numa_os (topo, i);
    }
    cores_set_topology (ts->cores, pus, numa, n, socket_of, numa_os, topo_nnuma (topo),
                        !topo_simulated (topo));
    free (pus);
    free (numa);
}
static void cleanup_add (struct tasks *ts, struct cgroup_job *cg);
static void task_note (struct tasks *ts, struct task *t, const char *text);

struct task *tasks_first (struct tasks *ts)
{
    return TAILQ_FIRST (&ts->head);
}

struct task *tasks_next (struct task *t)
{
    return TAILQ_NEXT (t, link);
}

struct cgroups *tasks_cgroups (struct tasks *ts)
{
    return ts->cg;
}

int64_t tasks_pids_max (struct tasks *ts)
{
    return ts->pids_max;
}

void tasks_cgroup_release (struct tasks *ts, struct cgroup_job *cg)
{
    cleanup_add (ts, cg);
}

int tasks_count (struct tasks *ts)
{
    struct task *t;
    int n = 0;

    TAILQ_FOREACH (t, &ts->head, link)
    n++;
    return n;
}

static void task_free (struct task *t)
{
    loop_timer_remove (t->walltime_timer);
    loop_timer_remove (t->kill_timer);
    loop_timer_remove (t->warn_timer);
    loop_timer_remove (t->start_timer);
    loop_fd_remove (t->status_watch);
    if (t->status_watch)
        close (t->status_fd);
    free (t->status);
    free (t->slots);
    free (t->stageout);
    free (t->submit_dir);
    while (t->pending_msgs) {
        struct task_msg *m = t->pending_msgs;
        t->pending_msgs = m->next;
        free (m->text);
        free (m);
    }
    privsep_cred_release (&t->cred);
    cgroup_job_free (t->cg);
    json_decref (t->gpu_result);
    free (t);
}

static struct task *task_new (struct tasks *ts, int64_t seq, int attempt,
                              const char *jobid)
{
    struct task *t = xzalloc (sizeof (*t));

    t->seq = seq;
    t->attempt = attempt;
    snprintf (t->jobid, sizeof (t->jobid), "%s", jobid);
    t->ts = ts;
    t->start_ms = util_now_ms ();
    t->walltime = -1;
    t->status_fd = -1;
    TAILQ_INSERT_HEAD (&ts->head, t, link);
    return t;
}

/* A task's timers are removed before the task is freed, and a removed
 * timer never fires, so the task itself is the timer's argument. */
static struct loop_timer *task_timer (struct tasks *ts, struct task *t, int64_t ms,
                                      loop_cb_f cb)
{
    return loop_timer_add (ts->w->loop, ms, 0, cb, t);
}

struct task *tasks_find (struct tasks *ts, int64_t seq, int attempt)
{
    struct task *t;

    TAILQ_FOREACH (t, &ts->head, link)
    if (t->seq == seq && t->attempt == attempt)
        return t;
    return NULL;
}

struct task *tasks_find_report (struct tasks *ts, int64_t report_id)
{
    struct task *t;

    TAILQ_FOREACH (t, &ts->head, link)
    if (t->report_id == report_id)
        return t;
    return NULL;
}

struct task *tasks_find_jobid (struct tasks *ts, const char *jobid, int attempt)
{
    struct task *t;

    TAILQ_FOREACH (t, &ts->head, link)
    if (t->attempt == attempt && strcmp (t->jobid, jobid) == 0)
        return t;
    return NULL;
}

struct privsep *tasks_privsep (struct tasks *ts)
{
    return ts->ps;
}

void tasks_remove (struct tasks *ts, struct task *t)
{
    TAILQ_REMOVE (&ts->head, t, link);
    task_free (t);
}

/* An ended job's cgroup: removed now if it is empty, else on the timer. */
static void cleanup_add (struct tasks *ts, struct cgroup_job *cg)
{
    struct cleanup *c;

    if (cgroup_job_kill (cg) == 0 && cgroup_job_destroy (cg) == 0)
        return;
    c = xzalloc (sizeof (*c));
    c->cg = cg;
    LIST_INSERT_HEAD (&ts->cleanups, c, link);
    if (!ts->cleanup_timer)
        ts->cleanup_timer =
            loop_timer_add (ts->w->loop, CLEANUP_MS, CLEANUP_MS, cleanup_tick, ts);
}

static void cleanup_tick (struct loop *l, void *arg)
{
    struct tasks *ts = arg;
    struct cleanup *c, *next;

    for (c = LIST_FIRST (&ts->cleanups); c; c = next) {
        next = LIST_NEXT (c, link);
        if (cgroup_job_kill (c->cg) == 0 && cgroup_job_destroy (c->cg) == 0)
            c->cg = NULL;
        else if (++c->tries >= CLEANUP_TRIES) {
            log_msg (LOG_WARNING,
                     "cgroup %s still has tasks after %d s; the next worker "
                     "start removes it",
                     cgroup_job_path (c->cg), CLEANUP_TRIES * CLEANUP_MS / 1000);
            cgroup_job_free (c->cg);
            c->cg = NULL;
        }
        if (!c->cg) {
            LIST_REMOVE (c, link);
            free (c);
        }
    }
    if (LIST_EMPTY (&ts->cleanups)) {
        loop_timer_remove (ts->cleanup_timer);
        ts->cleanup_timer = NULL;
    }
}

/* What a finished or failed task gives back: cores, cgroup, spool files,
 * its sandbox. */
void tasks_host_failed (struct tasks *ts, int64_t seq, int attempt, const char *host)
{
    struct task *t = tasks_find (ts, seq, attempt);

    if (!t || t->done || t->kill != KILL_NONE)
        return;
    snprintf (t->failed_host, sizeof (t->failed_host), "%s", host);
    snprintf (t->reason, sizeof (t->reason),
              "host %s failed: its worker went while it "
              "ran a process of the job",
              host);
    log_msg (LOG_ERR, "job %s: killed: host %s failed", t->jobid, host);
    tasks_kill (ts, t, KILL_HOST, 1);
}

void tasks_fence (struct tasks *ts, const char *why)
{
    char note[1100];
    struct task *t;

    snprintf (note, sizeof (note), "=>> PBS: job killed: %s\n", why);
    TAILQ_FOREACH (t, &ts->head, link)
    {
        if (t->done || t->kill != KILL_NONE)
            continue;
        snprintf (t->reason, sizeof (t->reason), "%s", why);
        log_msg (LOG_ERR, "job %s: killed: %s", t->jobid, why);
        if (!t->starting)
            task_note (ts, t, note);
        tasks_kill (ts, t, KILL_FENCE, 1);
    }
}

struct spool *tasks_spool (struct tasks *ts)
{
    return ts->spool;
}

static int file_remove (void *arg)
{
    return unlink (arg) < 0 && errno != ENOENT;
}

/* qsub -R: the output and/or error file go once the job has ended,
 * removed by a helper that is the owner, never by root. */
static void task_remove_files (struct tasks *ts, struct task *t)
{
    for (const char *k = t->remove_files; *k; k++) {
        char *path = *k == 'o' ? t->stdout_path : t->stderr_path;
        if (path[0]
            && privsep_run (ts->ps, &t->cred, ts->io_timeout_ms, file_remove, path,
                            NULL, NULL)
                   < 0)
            log_error ("job %s: remove %s", t->jobid, path);
    }
}

/* What a stage-out helper does, in order: the copies, then qsub -R's
 * removals (a file may be staged out and then removed). */
struct stage_job {
    struct stage_out_req out;
    const char *remove, *stdout_path;
};

static int stage_then_remove (void *arg)
{
    const struct stage_job *s = arg;
    int rc = stage_out ((void *)&s->out);

    for (const char *k = s->remove; *k; k++)
        (void)file_remove ((void *)(*k == 'o' ? s->stdout_path : s->out.err_path));
    return rc;
}

/* After the copies: the sandbox they were made from may go. */
struct stage_after {
    struct privsep *ps;
    struct privsep_cred cred;
    char jobid[128];
    char sandbox[4096];
};

static void stage_done (int status, void *arg)
{
    struct stage_after *a = arg;

    if (status != 0)
        log_msg (LOG_ERR, "job %s: stageout: %d file(s) not copied%s", a->jobid,
                 status < 0 ? 1 : status, status < 0 ? " (the copy was killed)" : "");
    if (a->sandbox[0] && sandbox_remove (a->ps, &a->cred, a->sandbox) < 0)
        log_error ("job %s: remove its sandbox %s", a->jobid, a->sandbox);
    privsep_cred_release (&a->cred);
    free (a);
}

/* qsub -W stageout: copied back by a helper that is the owner (no time
 * limit: big files take long, and nothing waits for it), then -R's
 * removals, then the sandbox.  1 if that is under way, else 0. */
static int task_stage_out (struct tasks *ts, struct task *t)
{
    struct stage_job s = { { t->stageout, t->submit_dir,
                             t->sandbox[0] ? t->sandbox : t->submit_dir,
                             t->stderr_path },
                           t->remove_files,
                           t->stdout_path };
    struct stage_after *a;

    if (!t->stageout || t->start_error[0])
        return 0;
    a = xzalloc (sizeof (*a));
    a->ps = ts->ps;
    privsep_cred_copy (&a->cred, &t->cred);
    snprintf (a->jobid, sizeof (a->jobid), "%s", t->jobid);
    snprintf (a->sandbox, sizeof (a->sandbox), "%s", t->sandbox);
    if (privsep_run (ts->ps, &t->cred, 0, stage_then_remove, &s, stage_done, a) < 0) {
        log_error ("job %s: stageout", t->jobid);
        privsep_cred_release (&a->cred);
        free (a);
        return 0;
    }
    t->sandbox[0] = '\0'; /* stage_done removes it */
    return 1;
}

static void task_release (struct tasks *ts, struct task *t)
{
    if (!task_stage_out (ts, t))
        task_remove_files (ts, t);
    if (t->sandbox[0] && sandbox_remove (ts->ps, &t->cred, t->sandbox) < 0)
        log_error ("job %s: remove its sandbox %s", t->jobid, t->sandbox);
    cores_release (ts->cores, t->slots, t->nslots);
    t->nslots = 0;
    t->ngpus = 0;
    if (t->cg) {
        cleanup_add (ts, t->cg);
        t->cg = NULL;
    }
    launch_cleanup (ts->spool, t->seq, t->attempt);
}

/* Signal what the job runs: its cgroup (nothing escapes it), and its
 * process group, which covers the moment before the child enters the
 * cgroup and workers without cgroups. */
static void task_signal (struct task *t, int sig)
{
    if (t->cg)
        (void)(sig == SIGKILL ? cgroup_job_kill (t->cg)
                              : cgroup_job_signal (t->cg, sig));
    if (t->pid > 0 && kill (-t->pid, sig) < 0)
        (void)kill (t->pid, sig);
}

static void task_kill_now (struct loop *l, void *arg)
{
    struct task *t = arg;

    t->kill_timer = NULL; /* one-shot: gone after this call */
    if (!t->done) {
        log_msg (LOG_INFO, "job %s: still alive after SIGTERM, sending SIGKILL",
                 t->jobid);
        task_signal (t, SIGKILL);
    }
}

/* Stop or thaw what the job runs: with the cgroup's freezer (the job
 * cannot tell; a process that sleeps through a SIGSTOP or forks meanwhile
 * is caught too), else SIGSTOP/SIGCONT to its process group. */
static void task_freeze (struct task *t, int on)
{
    if (t->cg && (on ? cgroup_job_freeze (t->cg) : cgroup_job_thaw (t->cg)) == 0)
        return;
    if (t->cg)
        log_error ("job %s: %s its cgroup; signalling instead", t->jobid,
                   on ? "freeze" : "thaw");
    task_signal (t, on ? SIGSTOP : SIGCONT);
}

void tasks_suspend (struct tasks *ts, struct task *t, int on)
{
    (void)ts;
    if (t->done || t->suspended == on || t->pid <= 0)
        return;
    /* One still starting stops once its script runs (task_started). */
    if (!t->starting)
        task_freeze (t, on);
    t->suspended = on;
    log_msg (LOG_INFO, "job %s %s%s", t->jobid, on ? "suspended" : "resumed",
             t->cg ? " (cgroup freezer)" : "");
}

void tasks_kill (struct tasks *ts, struct task *t, enum task_kill why, int immediate)
{
    if (t->done)
        return;
    /* A stopped job gets its signal only once it runs again. */
    if (t->suspended) {
        task_freeze (t, 0);
        t->suspended = 0;
    }
    if (t->kill == KILL_NONE)
        t->kill = why;
    if (immediate || ts->w->kill_delay_ms == 0) {
        task_signal (t, SIGKILL);
        return;
    }
    task_signal (t, SIGTERM);
    if (!t->kill_timer)
        t->kill_timer = task_timer (ts, t, ts->w->kill_delay_ms, task_kill_now);
}

void tasks_signal (struct tasks *ts, struct task *t, int signo)
{
    if (t->done || signo <= 0 || signo >= 64)
        return;
    if (t->starting)
        t->pending_signals |= 1ULL << signo;
    else
        task_signal (t, signo);
}

struct note {
    const char *path;
    const char *text;
};

/* As the job's owner (privsep_run): append to a file that exists.  Not
 * O_CREAT: a note where the job has no file would be a file nobody asked
 * for; O_NONBLOCK: a FIFO without a reader is refused, not waited on. */
static int note_append (void *arg)
{
    const struct note *n = arg;
    int fd = open (n->path, O_WRONLY | O_APPEND | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    int rc;

    if (fd < 0)
        return 1;
    rc = util_write_all (fd, n->text, strlen (n->text));
    return close (fd) < 0 || rc < 0 ? 1 : 0;
}

/* Append text to path as the job's owner, by a helper that has become
 * the owner, never by root; not waited for. */
static void task_append (struct tasks *ts, struct task *t, const char *path,
                         const char *text)
{
    struct note n = { path, text };

    if (path[0]
        && privsep_run (ts->ps, &t->cred, ts->io_timeout_ms, note_append, &n, NULL,
                        NULL)
               < 0)
        log_error ("job %s: append to %s", t->jobid, path);
}

/* PBS tells the user in the error file why the job was killed. */
static void task_note (struct tasks *ts, struct task *t, const char *text)
{
    task_append (ts, t, t->stderr_path, text);
}

static void task_deliver_message (struct tasks *ts, struct task *t, const char *to,
                                  const char *text)
{
    size_t len = strlen (text);
    char *line = xzalloc (len + 2);

    memcpy (line, text, len);
    line[len] = '\n';
    if (strchr (to, 'E'))
        task_append (ts, t, t->stderr_path, line);
    /* -j oe or eo: one file, one line. */
    if (strchr (to, 'O')
        && (!strchr (to, 'E') || strcmp (t->stdout_path, t->stderr_path)))
        task_append (ts, t, t->stdout_path, line);
    free (line);
}

void tasks_message (struct tasks *ts, struct task *t, const char *to, const char *text)
{
    struct task_msg *m, **tail = &t->pending_msgs;
    int n = 0;

    if (t->done)
        return;
    if (!t->starting) {
        task_deliver_message (ts, t, to, text);
        return;
    }
    for (; *tail; tail = &(*tail)->next)
        n++;
    if (n >= PENDING_MSGS_MAX) {
        log_msg (LOG_WARNING, "job %s: qmsg dropped (%d wait for it to start)",
                 t->jobid, n);
        return;
    }
    m = xzalloc (sizeof (*m));
    snprintf (m->to, sizeof (m->to), "%s", to);
    m->text = xstrdup (text);
    *tail = m;
}

/* What came for the task while it started, now that its script runs. */
static void task_deliver_pending (struct tasks *ts, struct task *t)
{
    while (t->pending_msgs) {
        struct task_msg *m = t->pending_msgs;
        t->pending_msgs = m->next;
        task_deliver_message (ts, t, m->to, m->text);
        free (m->text);
        free (m);
    }
    for (int signo = 1; signo < 64; signo++)
        if (t->pending_signals & (1ULL << signo))
            task_signal (t, signo);
    t->pending_signals = 0;
}

/* sbatch --signal: the signal, secs before the walltime, to every process
 * of the job or to its batch shell alone (B:). */
static void task_warn (struct loop *l, void *arg)
{
    struct task *t = arg;

    t->warn_timer = NULL;
    if (t->done)
        return;
    log_msg (LOG_INFO, "job %s: signal %d ahead of its walltime", t->jobid,
             t->warn_signo);
    if (t->warn_batch_only)
        (void)kill (t->pid, t->warn_signo);
    else
        task_signal (t, t->warn_signo);
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
    snprintf (note, sizeof (note),
              "=>> PBS: job killed: walltime %lld exceeded "
              "limit %lld\n",
              (long long)(util_now_ms () - t->start_ms) / 1000, (long long)t->walltime);
    task_note (t->ts, t, note);
    tasks_kill (t->ts, t, KILL_WALLTIME, 0);
}

static void task_result (struct task *t, const struct cgroup_usage *u)
{
    int status = t->wait_status;

    if (t->start_error[0])
        t->exit_status = -1;
    else if (t->kill == KILL_WALLTIME)
        t->exit_status = JOB_EXEC_KILL_WALLTIME;
    else if (WIFSIGNALED (status))
        t->exit_status = 256 + WTERMSIG (status); /* PBS convention */
    else
        t->exit_status = WEXITSTATUS (status);
    t->wall = (util_now_ms () - t->start_ms + 500) / 1000;
    /* The cgroup counts every process of the job, also those the script
     * did not wait for; rusage only those it did. */
    t->cput = u->cpu_ns >= 0 ? u->cpu_ns / 1000000000
                             : t->ru.ru_utime.tv_sec + t->ru.ru_stime.tv_sec;
    t->maxrss = u->mem_peak >= 0 ? u->mem_peak : (int64_t)t->ru.ru_maxrss * 1024;
    if (!t->gpu_result && !t->start_error[0])
        t->gpu_result = gpuuse_json (&t->gpu, t->wall, &t->ts->gpu_sim, 0);
    if (t->start_error[0])
        snprintf (t->reason, sizeof (t->reason), "%s", t->start_error);
    else if (t->kill == KILL_WALLTIME)
        snprintf (t->reason, sizeof (t->reason), "Job killed: walltime %lld exceeded",
                  (long long)t->walltime);
    else if (u->oom_kills > 0) {
        char mem[32];
        resource_format_size (t->mem, mem, sizeof (mem));
        snprintf (t->reason, sizeof (t->reason), "Job killed: memory limit %s exceeded",
                  mem);
    }
}

/* Started (or failed to) and exited: the result is known. */
static void task_finish (struct tasks *ts, struct task *t)
{
    struct cgroup_usage u = { -1, -1, 0 };

    t->done = 1;
    /* Whatever the script left behind goes with it. */
    if (t->cg) {
        (void)cgroup_job_kill (t->cg);
        cgroup_job_usage (t->cg, &u);
    } else if (t->pid > 0)
        (void)kill (-t->pid, SIGKILL);
    task_result (t, &u);
    /* Its processes on the other hosts go, and count in its usage. */
    tm_job_end (ts->w->tm, t->seq, t->attempt, &t->cput, &t->maxrss);
    loop_timer_remove (t->walltime_timer);
    loop_timer_remove (t->kill_timer);
    loop_timer_remove (t->warn_timer);
    t->walltime_timer = t->kill_timer = t->warn_timer = NULL;
    task_release (ts, t);
    if (t->start_error[0])
        log_msg (LOG_ERR, "job %s: cannot start: %s", t->jobid, t->start_error);
    else
        log_msg (LOG_INFO, "job %s exited with status %d after %lld s%s%s", t->jobid,
                 t->exit_status, (long long)t->wall, t->reason[0] ? ": " : "",
                 t->reason);
    worker_report (ts->w, t);
}

static void task_stop_watching (struct task *t)
{
    loop_fd_remove (t->status_watch);
    t->status_watch = NULL;
    close (t->status_fd);
    t->status_fd = -1;
    loop_timer_remove (t->start_timer);
    t->start_timer = NULL;
    t->starting = 0;
}

/* The child has exec'd the script, or said why it could not. */
static void task_started (struct tasks *ts, struct task *t)
{
    const struct launch_status *st = t->status;

    task_stop_watching (t);
    snprintf (t->stdout_path, sizeof (t->stdout_path), "%s", st->stdout_path);
    snprintf (t->stderr_path, sizeof (t->stderr_path), "%s", st->stderr_path);
    if (st->error[0])
        snprintf (t->start_error, sizeof (t->start_error), "%s", st->error);
    else {
        log_msg (LOG_INFO, "job %s started as pid %d%s%s", t->jobid, (int)t->pid,
                 t->cpus[0] ? " on cpus " : "", t->cpus);
        worker_job_started (ts->w, t);
        if (t->walltime >= 0)
            t->walltime_timer = task_timer (ts, t, t->walltime * 1000, task_walltime);
        if (t->walltime >= 0 && t->warn_signo > 0)
            t->warn_timer = task_timer (ts, t,
                                        t->walltime > t->warn_secs
                                            ? (t->walltime - t->warn_secs) * 1000
                                            : 0,
                                        task_warn);
        if (t->kill != KILL_NONE)
            task_signal (t, SIGKILL); /* deleted while it started */
        else {
            task_deliver_pending (ts, t);
            if (t->suspended)
                task_freeze (t, 1); /* suspended while it started */
        }
    }
    free (t->status);
    t->status = NULL;
    if (t->reaped)
        task_finish (ts, t);
}

static void task_status_cb (struct loop *l, int fd, int revents, void *arg)
{
    struct task *t = arg;

    if (launch_status_read (fd, t->status) != 0)
        task_started (t->ts, t);
}

/* A child stuck before exec (a user's file system that does not answer)
 * is not waited for. */
static void task_start_timeout (struct loop *l, void *arg)
{
    struct task *t = arg;

    t->start_timer = NULL; /* one-shot: freed by the loop */
    snprintf (t->start_error, sizeof (t->start_error),
              "job start did not complete in "
              "%lld s (a file system not responding?)",
              (long long)t->ts->io_timeout_ms / 1000);
    task_signal (t, SIGKILL);
    task_stop_watching (t);
    free (t->status);
    t->status = NULL;
    task_finish (t->ts, t);
}

/* Failed before the child was forked. */
static void task_fail (struct tasks *ts, struct task *t, const char *why)
{
    snprintf (t->start_error, sizeof (t->start_error), "%s", why);
    task_finish (ts, t);
}

/* The job's owner as this node knows them.  A worker that is not root
 * runs jobs as itself and only needs HOME and SHELL, so an unknown user
 * is not fatal there. */
static int task_cred (struct tasks *ts, struct task *t, const struct launch_req *req,
                      struct hpcq_error *err)
{
    if (privsep_cred_lookup ((uid_t)req->uid, &t->cred, err) == 0)
        return req->spec.group_list
                   ? privsep_cred_set_group (&t->cred, req->spec.group_list, err)
                   : 0;
    if (geteuid () == 0)
        return errprintf (err, "unknown user %s (uid %lld) on this node", req->owner,
                          (long long)req->uid);
    memset (&t->cred, 0, sizeof (t->cred));
    t->cred.uid = geteuid ();
    t->cred.gid = getegid ();
    snprintf (t->cred.name, sizeof (t->cred.name), "%s", req->owner);
    return 0;
}

/* The NUMA nodes a job should be near (its GPUs', unless gpu_bind=none)
 * and, for a job without GPUs, those to keep free (the free GPUs'), so the
 * GPUs stay usable with their own cores. */
static void task_numa_masks (struct tasks *ts, const struct launch_req *req,
                             unsigned char *near, unsigned char *avoid)
{
    const struct topo *topo = ts->w->topo;
    int busy[GPU_MAX] = { 0 };
    struct task *o;

    memset (near, 0, CORES_NUMA_MAX);
    memset (avoid, 0, CORES_NUMA_MAX);
    if (!topo)
        return;
    if (req->ngpus > 0) {
        if (strcmp (req->spec.res.gpu_bind, "none") != 0)
            for (int i = 0; i < req->ngpus; i++) {
                int numa = topo_gpu_numa (topo, req->gpus[i]);
                if (numa >= 0 && numa < CORES_NUMA_MAX)
                    near[numa] = 1;
            }
        return;
    }
    TAILQ_FOREACH (o, &ts->head, link)
    for (int i = 0; i < o->ngpus; i++)
        if (o->gpus[i] >= 0 && o->gpus[i] < GPU_MAX)
            busy[o->gpus[i]] = 1;
    for (int g = 0; g < ts->w->ngpus && g < GPU_MAX; g++) {
        int numa = topo_gpu_numa (topo, g);
        if (!busy[g] && numa >= 0 && numa < CORES_NUMA_MAX)
            avoid[numa] = 1;
    }
}

/* Which cores the job gets, and their cpuset lists. */
static void task_bind (struct tasks *ts, struct task *t, const struct launch_req *req)
{
    unsigned char near[CORES_NUMA_MAX], avoid[CORES_NUMA_MAX];

    task_numa_masks (ts, req, near, avoid);
    t->slots = xzalloc ((req->ncpus > 0 ? req->ncpus : 1) * sizeof (int));
    t->nslots = cores_take_near (ts->cores, req->ncpus, near, avoid, t->slots);
    cores_format (ts->cores, t->slots, t->nslots, t->cpus, sizeof (t->cpus));
    if (ts->w->topo) {
        cores_format_threads (ts->cores, t->slots, t->nslots, t->threads,
                              sizeof (t->threads));
        cores_format_mems (ts->cores, t->slots, t->nslots, t->mems, sizeof (t->mems));
    }
    for (int i = 0; i < req->ngpus && i < GPU_MAX; i++)
        t->gpus[t->ngpus++] = req->gpus[i];
}

static int task_cgroup (struct tasks *ts, struct task *t, const struct launch_req *req,
                        struct hpcq_error *err)
{
    struct cgroup_limits lim = { req->mem, NULL, ts->pids_max, NULL };
    char name[64];

    task_bind (ts, t, req);
    if (!ts->cg)
        return 0;
    /* cpu_bind=none: the job's cores are counted, not fenced. */
    lim.cpus =
        t->cpus[0] && strcmp (req->spec.res.cpu_bind, "none") != 0 ? t->cpus : NULL;
    lim.mems =
        lim.cpus && cores_real_topology (ts->cores) && t->mems[0] ? t->mems : NULL;
    snprintf (name, sizeof (name), "job_%lld.%d", (long long)req->seq, req->attempt);
    if (!(t->cg = cgroup_job_create (ts->cg, name, &lim, err)))
        return -1;
    if (req->spec.res.container_image && cgroup_job_traversable (t->cg) < 0)
        return errprintf (err, "cannot open cgroup %s to the job's owner: %s",
                          cgroup_job_path (t->cg), strerror (errno));
    return 0;
}

void tasks_launch (struct tasks *ts, struct launch_req *req)
{
    struct worker *w = ts->w;
    struct task *t = task_new (ts, req->seq, req->attempt, req->jobid);
    struct launch_env env = { ts->spool,
                              w->name,
                              w->gpus,
                              w->ngpus,
                              config_get (w->cfg, "jobdir_root", NULL),
                              &t->cred,
                              NULL,
                              checkpoint_socket (w->ckpt),
                              NULL,
                              NULL,
                              NULL,
                              NULL };
    struct hpcq_error err;
    char why[512];

    t->walltime = req->walltime;
    t->mem = req->mem;
    t->ckpt_cpu = req->ckpt_cpu;
    if (req->spec.signal
        && jobspec_parse_signal (req->spec.signal, &t->warn_signo, &t->warn_secs,
                                 &t->warn_batch_only, NULL)
               < 0)
        t->warn_signo = 0;
    /* PBS's acl_roots: the scheduler checks it at submission, and this
     * node again, in case the launch did not come from that scheduler. */
    if (req->uid == 0 && !util_user_listed (ts->acl_roots, req->owner)) {
        snprintf (why, sizeof (why),
                  "Bad UID for job execution: uid 0 (%s) is not in "
                  "acl_roots on %s",
                  req->owner, w->name);
        task_fail (ts, t, why);
        return;
    }
    if (container_check (req, w->container_helper, w->mount_allow, w->name, why,
                         sizeof (why))
        < 0) {
        task_fail (ts, t, why);
        return;
    }
    if (task_cred (ts, t, req, &err) < 0 || task_cgroup (ts, t, req, &err) < 0) {
        task_fail (ts, t, err.text);
        return;
    }
    env.cg = t->cg;
    env.tm_socket = tm_socket_path (w->tm);
    env.tm_agent = config_get (w->cfg, "tm_rsh_agent", "pbs_tmrsh");
    env.ucx_devices = w->ucx_devices;
    env.container_helper = w->container_helper;
    t->pid = launch_start (req, &env, &t->status_fd, &err);
    snprintf (t->sandbox, sizeof (t->sandbox), "%s", req->sandbox);
    snprintf (t->remove_files, sizeof (t->remove_files), "%s",
              req->spec.remove_files ? req->spec.remove_files : "");
    if (req->spec.stageout) {
        t->stageout = xstrdup (req->spec.stageout);
        t->submit_dir = xstrdup (req->spec.workdir);
    }
    if (t->pid < 0) {
        t->pid = 0;
        task_fail (ts, t, err.text);
        return;
    }
    tm_job_start (w->tm, req, t);
    gpuuse_start (&t->gpu, t->gpus, t->ngpus,
                  t->ngpus > 0 && w->gpus[t->gpus[0]].simulated, util_now_ms ());
    t->starting = 1;
    t->status = xzalloc (sizeof (*t->status));
    t->status_watch = loop_fd_add (w->loop, t->status_fd, LOOP_READ, task_status_cb, t);
    t->start_timer = task_timer (ts, t, ts->io_timeout_ms, task_start_timeout);
    if (!t->status_watch) {
        log_error ("job %s: watch its start", t->jobid);
        task_start_timeout (w->loop, t);
    }
}

void tasks_reap (struct tasks *ts)
{
    struct rusage ru;
    struct task *t;
    int status;
    pid_t pid;

    worker_fence_check (ts->w);
    while ((pid = wait4 (-1, &status, WNOHANG, &ru)) > 0) {
        if (privsep_reaped (ts->ps, pid, status)
            || tm_reaped (ts->w->tm, pid, status, &ru))
            continue;
        TAILQ_FOREACH (t, &ts->head, link)
        if (t->pid == pid && !t->done && !t->reaped)
            break;
        if (!t) {
            /* The health check's, or a child given up on (start timeout). */
            worker_child_exited (ts->w, pid, status);
            continue;
        }
        t->reaped = 1;
        t->wait_status = status;
        t->ru = ru;
        if (!t->starting)
            task_finish (ts, t);
    }
}

json_t *task_result_json (const struct task *t)
{
    json_t *o = json_pack ("{s:I s:i s:i s:I s:I s:I}", "seq", (json_int_t)t->seq,
                           "attempt", t->attempt, "exit_status", t->exit_status, "cput",
                           (json_int_t)t->cput, "walltime", (json_int_t)t->wall,
                           "maxrss", (json_int_t)t->maxrss);
    if (o && t->reason[0])
        json_object_set_new (o, "reason", json_string (t->reason));
    if (o && t->kill == KILL_HOST)
        json_object_set_new (o, "host_failed", json_string (t->failed_host));
    if (o && t->kill == KILL_FENCE)
        json_object_set_new (o, "fenced", json_true ());
    if (o && t->gpu_result)
        json_object_update (o, t->gpu_result);
    return o;
}

const struct gpuuse_sim *tasks_gpu_figures (const struct tasks *ts)
{
    return &ts->gpu_sim;
}

void tasks_gpu_read (struct tasks *ts, const struct gpu_sample *s, int n)
{
    struct task *t;
    int64_t now = util_now_ms ();

    TAILQ_FOREACH (t, &ts->head, link)
    if (!t->done && t->pid > 0)
        gpuuse_read (&t->gpu, s, n, now);
}

json_t *tasks_running_json (struct tasks *ts)
{
    json_t *arr = json_array ();
    struct task *t;

    TAILQ_FOREACH (t, &ts->head, link)
    if (arr && !t->done)
        json_array_append_new (arr,
                               json_pack ("{s:I s:i s:i}", "seq", (json_int_t)t->seq,
                                          "attempt", t->attempt, "pid", (int)t->pid));
    return arr;
}

json_t *tasks_finished_json (struct tasks *ts)
{
    json_t *arr = json_array ();
    struct task *t;

    TAILQ_FOREACH (t, &ts->head, link)
    if (arr && t->done)
        json_array_append_new (arr, task_result_json (t));
    return arr;
}

/* Containment, said once: with cgroups or by process group. */
static void tasks_open_cgroups (struct tasks *ts, struct config *cfg, const char *node)
{
    struct cgroup_conf conf = { config_get (cfg, "cgroup", "auto"),
                                config_get (cfg, "cgroup_prefix", "hpcq"), node };
    struct hpcq_error err;

    if (strcmp (conf.mode, "off") == 0)
        snprintf (err.text, sizeof (err.text), "cgroup = off");
    else if ((ts->cg = cgroups_open (&conf, &err))) {
        log_msg (LOG_INFO, "containment: %s", cgroups_describe (ts->cg));
        return;
    }
    log_msg (LOG_WARNING,
             "containment: no cgroups (%s): jobs are tracked by process "
             "group only, so processes that leave it (setsid) escape kills, and mem is "
             "not enforced",
             err.text);
}

struct tasks *tasks_create (struct worker *w, struct hpcq_error *err)
{
    struct tasks *ts = xzalloc (sizeof (*ts));
    int64_t timeout;
    int n;

    ts->w = w;
    TAILQ_INIT (&ts->head);
    LIST_INIT (&ts->cleanups);
    ts->acl_roots = config_get (w->cfg, "acl_roots", "");
    if (config_get_int (w->cfg, "job_pids_max", 0, 0, 1 << 22, &ts->pids_max, err) < 0
        || config_get_int (w->cfg, "user_io_timeout", 30, 1, 3600, &timeout, err) < 0)
        goto error;
    ts->io_timeout_ms = timeout * 1000;
    if (tasks_gpu_sim (ts, w->cfg, err) < 0)
        goto error;
    if (!(ts->spool = spool_open (w->spool, err)))
        goto error;
    ts->cores = cores_create (w->ncpus);
    tasks_topology (ts);
    ts->ps = privsep_create (w->loop);
    tasks_open_cgroups (ts, w->cfg, w->name);
    if ((n = launch_kill_leftovers (ts->spool, ts->cg)) > 0)
        log_msg (LOG_WARNING, "killed %d job sessions left by a previous worker", n);
    return ts;
error:
    tasks_destroy (ts);
    return NULL;
}

/* At exit the loop no longer runs: empty the cgroups here, a moment at
 * most, so that stopping a worker leaves nothing behind. */
static void tasks_drain (struct tasks *ts)
{
    struct timespec pause = { 0, 10 * 1000 * 1000 };
    struct task *t;

    TAILQ_FOREACH (t, &ts->head, link)
    if (t->cg) {
        (void)cgroup_job_kill (t->cg);
        cleanup_add (ts, t->cg);
        t->cg = NULL;
    }
    for (int round = 0; round < 200 && !LIST_EMPTY (&ts->cleanups); round++) {
        nanosleep (&pause, NULL);
        cleanup_tick (ts->w->loop, ts);
    }
    while (!LIST_EMPTY (&ts->cleanups)) {
        struct cleanup *c = LIST_FIRST (&ts->cleanups);
        log_msg (LOG_WARNING,
                 "cgroup %s still has tasks; the next worker start removes it",
                 cgroup_job_path (c->cg));
        LIST_REMOVE (c, link);
        cgroup_job_free (c->cg);
        free (c);
    }
}

void tasks_destroy (struct tasks *ts)
{
    if (!ts)
        return;
    tasks_drain (ts);
    loop_timer_remove (ts->cleanup_timer);
    while (!TAILQ_EMPTY (&ts->head))
        tasks_remove (ts, TAILQ_FIRST (&ts->head));
    privsep_destroy (ts->ps);
    cgroups_close (ts->cg);
    cores_destroy (ts->cores);
    spool_close (ts->spool);
    free (ts);
}
