/* rtask.c - see rtask.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "common/tm.h"
#include "common/util.h"
#include "worker/rtask.h"

/* How long a process's output pipes may stay open after it exited (a
 * child it left behind holds them) before the exit is reported anyway. */
#define RTASK_DRAIN_MS 2000

extern char **environ;

struct rtask {
    struct loop *loop;
    const struct rtask_ops *ops;
    void *arg;
    pid_t pid;

    int in_fd; /* -1 once closed */
    struct loop_watch *in_watch;
    char *inq; /* input not written yet */
    size_t inq_len;
    int in_closing; /* close once inq is written */

    int out_fd[3]; /* [1] stdout, [2] stderr; -1 once at EOF */
    struct loop_watch *out_watch[3];
    size_t unacked; /* output handed over, not yet consumed */
    int paused;

    int reaped, reported;
    int status;
    int64_t cput, mem;
    struct loop_timer *drain_timer;

    int busy; /* inside a callback: destroy waits */
    int dead;
};

static void rtask_out_io (struct loop *l, int fd, int revents, void *arg);
static void rtask_in_io (struct loop *l, int fd, int revents, void *arg);

/* A signal to the process's session.  Until the child's setsid () it has
 * no group of its own (kill (-pid) fails with ESRCH): then to the child
 * itself, the only process there is yet (its exec comes after setsid),
 * unless reaped (its pid may be another's by now). */
static void rtask_kill (struct rtask *rt, int signo)
{
    if (kill (-rt->pid, signo) < 0 && errno == ESRCH && !rt->reaped)
        (void)kill (rt->pid, signo);
}

static void rtask_free (struct rtask *rt)
{
    for (int i = 1; i <= 2; i++) {
        loop_fd_remove (rt->out_watch[i]);
        if (rt->out_fd[i] >= 0)
            close (rt->out_fd[i]);
    }
    loop_fd_remove (rt->in_watch);
    if (rt->in_fd >= 0)
        close (rt->in_fd);
    loop_timer_remove (rt->drain_timer);
    free (rt->inq);
    free (rt);
}

void rtask_destroy (struct rtask *rt)
{
    if (!rt)
        return;
    int saved = errno;
    /* Whatever is left of its session goes with it. */
    if (rt->pid > 0 && (!rt->reaped || !rt->reported))
        rtask_kill (rt, SIGKILL);
    if (rt->busy)
        rt->dead = 1;
    else
        rtask_free (rt);
    errno = saved;
}

pid_t rtask_pid (const struct rtask *rt)
{
    return rt->pid;
}

int rtask_done (const struct rtask *rt)
{
    return rt->reported;
}

/* Callbacks may destroy rt: it is freed once the outermost returns. */
static void rtask_enter (struct rtask *rt)
{
    rt->busy++;
}

static int rtask_leave (struct rtask *rt)
{
    if (--rt->busy == 0 && rt->dead) {
        rtask_free (rt);
        return -1;
    }
    return rt->dead ? -1 : 0;
}

static void rtask_close_out (struct rtask *rt, int i)
{
    loop_fd_remove (rt->out_watch[i]);
    rt->out_watch[i] = NULL;
    if (rt->out_fd[i] >= 0)
        close (rt->out_fd[i]);
    rt->out_fd[i] = -1;
}

static void rtask_close_in (struct rtask *rt)
{
    loop_fd_remove (rt->in_watch);
    rt->in_watch = NULL;
    if (rt->in_fd >= 0)
        close (rt->in_fd);
    rt->in_fd = -1;
    rt->inq_len = 0;
}

/* Report the exit once the process is reaped and its output drained. */
static void rtask_check_done (struct rtask *rt)
{
    if (rt->reported || !rt->reaped || rt->dead)
        return;
    if (rt->out_fd[1] >= 0 || rt->out_fd[2] >= 0)
        return;
    rt->reported = 1;
    loop_timer_remove (rt->drain_timer);
    rt->drain_timer = NULL;
    rtask_close_in (rt);
    rtask_enter (rt);
    rt->ops->exited (rt, rt->status, rt->cput, rt->mem, rt->arg);
    (void)rtask_leave (rt);
}

/* Reading stops while the caller has TM_WINDOW bytes unconsumed: the
 * watches go (a paused pipe's hang-up would otherwise wake the loop). */
static void rtask_pause (struct rtask *rt, int pause)
{
    if (rt->paused == pause)
        return;
    rt->paused = pause;
    for (int i = 1; i <= 2; i++) {
        if (rt->out_fd[i] < 0)
            continue;
        if (pause) {
            loop_fd_remove (rt->out_watch[i]);
            rt->out_watch[i] = NULL;
        } else if (!(rt->out_watch[i] = loop_fd_add (rt->loop, rt->out_fd[i], LOOP_READ,
                                                     rtask_out_io, rt)))
            rtask_close_out (rt, i);
    }
}

static void rtask_out_io (struct loop *l, int fd, int revents, void *arg)
{
    struct rtask *rt = arg;
    int i = fd == rt->out_fd[1] ? 1 : 2;
    char buf[TM_CHUNK];
    ssize_t n;

    (void)l;
    (void)revents;
    if ((n = tm_read_window (fd, buf, rt->unacked)) < 0)
        return;
    if (n == 0) {
        rtask_close_out (rt, i);
        rtask_check_done (rt);
        return;
    }
    rt->unacked += n;
    rtask_enter (rt);
    rt->ops->output (rt, i, buf, n, rt->arg);
    if (rtask_leave (rt) < 0)
        return;
    if (rt->unacked >= TM_WINDOW)
        rtask_pause (rt, 1);
}

void rtask_ack (struct rtask *rt, size_t n)
{
    rt->unacked = n > rt->unacked ? 0 : rt->unacked - n;
    if (rt->unacked < TM_WINDOW)
        rtask_pause (rt, 0);
}

/* Write what the pipe takes; watch for room while something is left. */
static void rtask_flush_in (struct rtask *rt)
{
    size_t done = 0;

    while (rt->in_fd >= 0 && done < rt->inq_len) {
        ssize_t n = write (rt->in_fd, rt->inq + done, rt->inq_len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n < 0) { /* EPIPE: the process closed its input */
            rtask_close_in (rt);
            return;
        }
        done += n;
    }
    if (rt->in_fd < 0)
        return;
    memmove (rt->inq, rt->inq + done, rt->inq_len - done);
    rt->inq_len -= done;
    if (done) {
        rtask_enter (rt);
        rt->ops->input_ack (rt, done, rt->arg);
        if (rtask_leave (rt) < 0)
            return;
    }
    if (rt->inq_len == 0 && rt->in_closing) {
        rtask_close_in (rt);
        return;
    }
    if (rt->inq_len && !rt->in_watch)
        rt->in_watch = loop_fd_add (rt->loop, rt->in_fd, LOOP_WRITE, rtask_in_io, rt);
    else if (!rt->inq_len && rt->in_watch) {
        loop_fd_remove (rt->in_watch);
        rt->in_watch = NULL;
    }
}

static void rtask_in_io (struct loop *l, int fd, int revents, void *arg)
{
    (void)l;
    (void)fd;
    (void)revents;
    rtask_flush_in (arg);
}

int rtask_write (struct rtask *rt, const char *buf, size_t len)
{
    if (rt->in_fd < 0 || rt->in_closing) {
        errno = EPIPE;
        return -1;
    }
    if (rt->inq_len + len > TM_WINDOW) {
        errno = ENOBUFS;
        return -1;
    }
    if (!rt->inq)
        rt->inq = xzalloc (TM_WINDOW);
    memcpy (rt->inq + rt->inq_len, buf, len);
    rt->inq_len += len;
    rtask_flush_in (rt);
    return 0;
}

void rtask_close_input (struct rtask *rt)
{
    rt->in_closing = 1;
    if (rt->in_fd >= 0 && rt->inq_len == 0)
        rtask_close_in (rt);
}

void rtask_signal (struct rtask *rt, int signo)
{
    if (rt->pid > 0 && !rt->reaped)
        rtask_kill (rt, signo);
}

static void rtask_drained (struct loop *l, void *arg)
{
    struct rtask *rt = arg;

    (void)l;
    rt->drain_timer = NULL; /* one-shot: gone after this call */
    rtask_close_out (rt, 1);
    rtask_close_out (rt, 2);
    rtask_check_done (rt);
}

int rtask_reaped (struct rtask *rt, pid_t pid, int wstatus, const struct rusage *ru)
{
    if (rt->pid != pid || rt->reaped)
        return 0;
    rt->reaped = 1;
    rt->status = tm_status_from_wait (wstatus);
    rt->cput = ru->ru_utime.tv_sec + ru->ru_stime.tv_sec
               + (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec >= 1000000 ? 1 : 0);
    rt->mem = (int64_t)ru->ru_maxrss * 1024;
    /* Whatever it left in its session goes with it, as with a job. */
    (void)kill (-pid, SIGKILL);
    if (rt->out_fd[1] >= 0 || rt->out_fd[2] >= 0)
        rt->drain_timer =
            loop_timer_add (rt->loop, RTASK_DRAIN_MS, 0, rtask_drained, rt);
    rtask_check_done (rt);
    return 1;
}

/* argv joined by spaces, for the shell (what rsh and ssh send). */
static char *child_join (char **argv)
{
    size_t len = 1;
    char *s;

    for (int i = 0; argv[i]; i++)
        len += strlen (argv[i]) + 1;
    s = xzalloc (len);
    for (int i = 0; argv[i]; i++) {
        if (i)
            strcat (s, " ");
        strcat (s, argv[i]);
    }
    return s;
}

static void child_run (const struct rtask_spec *spec, pid_t parent, int in, int out,
                       int err)
{
    const struct privsep_cred *c = spec->cred;
    const char *sh = c->shell[0] ? c->shell : "/bin/sh";
    sigset_t none;

    sigemptyset (&none);
    sigprocmask (SIG_SETMASK, &none, NULL);
    signal (SIGPIPE, SIG_DFL);
    (void)setsid ();
    if (dup2 (in, 0) < 0 || dup2 (out, 1) < 0 || dup2 (err, 2) < 0)
        _exit (126);
    /* Nothing of the worker's reaches the user's process. */
    (void)close_range (3, ~0U, 0);
    /* Into the job's cgroup while still root, then the owner for good. */
    if (spec->cg && cgroup_job_enter (spec->cg) < 0) {
        dprintf (2, "hpcq-worker: cannot enter the job's cgroup: %s\n",
                 strerror (errno));
        _exit (126);
    }
    if (privsep_drop (c) < 0) {
        dprintf (2, "hpcq-worker: cannot become %s: %s\n", c->name, strerror (errno));
        _exit (126);
    }
    /* A worker that dies (kill -9) takes it along: nobody else would end
     * it when the job ends.  Set after the drop, which clears it. */
    if (prctl (PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid () != parent)
        _exit (126);
    if (!spec->cwd || chdir (spec->cwd) < 0)
        if (!c->home[0] || chdir (c->home) < 0)
            (void)!chdir ("/");
    environ = spec->envp;
    if (spec->shell) {
        execl (sh, sh, "-c", child_join (spec->argv), (char *)NULL);
        dprintf (2, "%s: %s\n", sh, strerror (errno));
    } else {
        execvp (spec->argv[0], spec->argv);
        dprintf (2, "%s: %s\n", spec->argv[0], strerror (errno));
    }
    _exit (errno == ENOENT ? 127 : 126);
}

/* The parent's ends are non-blocking; the child's are plain. */
static int rtask_pipes (int in[2], int out[2], int err[2], int want_stdin)
{
    in[0] = in[1] = out[0] = out[1] = err[0] = err[1] = -1;
    if (pipe2 (out, O_CLOEXEC) < 0 || pipe2 (err, O_CLOEXEC) < 0)
        return -1;
    if (want_stdin ? pipe2 (in, O_CLOEXEC) < 0
                   : (in[0] = open ("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    (void)fcntl (out[0], F_SETFL, O_NONBLOCK);
    (void)fcntl (err[0], F_SETFL, O_NONBLOCK);
    if (in[1] >= 0)
        (void)fcntl (in[1], F_SETFL, O_NONBLOCK);
    return 0;
}

static void close_all (int *fds, int n)
{
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0)
            close (fds[i]);
}

struct rtask *rtask_start (struct loop *loop, const struct rtask_spec *spec,
                           const struct rtask_ops *ops, void *arg,
                           struct hpcq_error *err)
{
    int p[6], *in = p, *out = p + 2, *errp = p + 4;
    struct rtask *rt;
    pid_t parent;

    if (rtask_pipes (in, out, errp, spec->want_stdin) < 0) {
        int saved = errno;
        close_all (p, 6);
        errno = saved;
        errprintf (err, "cannot make pipes: %s", strerror (saved));
        return NULL;
    }
    rt = xzalloc (sizeof (*rt));
    rt->loop = loop;
    rt->ops = ops;
    rt->arg = arg;
    parent = getpid ();
    if ((rt->pid = fork ()) < 0) {
        int saved = errno;
        close_all (p, 6);
        free (rt);
        errno = saved;
        errprintf (err, "fork: %s", strerror (saved));
        return NULL;
    }
    if (rt->pid == 0)
        child_run (spec, parent, in[0], out[1], errp[1]);
    close (in[0]);
    close (out[1]);
    close (errp[1]);
    rt->in_fd = in[1];
    rt->out_fd[0] = -1;
    rt->out_fd[1] = out[0];
    rt->out_fd[2] = errp[0];
    for (int i = 1; i <= 2; i++)
        if (!(rt->out_watch[i] =
                  loop_fd_add (loop, rt->out_fd[i], LOOP_READ, rtask_out_io, rt)))
            rtask_close_out (rt, i);
    return rt;
}
