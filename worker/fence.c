/* fence.c - see fence.h
 *
 * The worker and its watchdog share only a pipe: each renewal is one
 * fixed-size write (atomic, under PIPE_BUF), the lease's start and the
 * fence time, both on CLOCK_MONOTONIC, which the two processes share.
 * A full pipe drops a renewal (the watchdog is stuck: it cannot fence
 * either way).  EOF is the worker gone: the watchdog fences at the end of
 * the lease it last had, unless a later worker kills it first, then exits.
 */
#include <config.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "worker/fence.h"
#include "worker/launch.h"

#define FENCE_RECORD "watchdog.fence" /* the watchdog's session record */
#define FENCE_LOG "fence.log"
#define FENCE_SENT 4 /* answers awaited at once (heartbeats, the hello) */

struct fence_msg {
    int64_t from_ms;  /* the lease's start, CLOCK_MONOTONIC */
    int64_t fence_ms; /* its length; 0: none yet; < 0: stop */
};

struct fence {
    pid_t pid; /* the watchdog */
    int fd;    /* the pipe's write end */
    int64_t fence_ms, from_ms;
    int lapsed;
    struct {
        int64_t id, sent_ms;
    } sent[FENCE_SENT];
    int next;
};

/* --- the watchdog (a child process: no loop, _exit only) --- */

struct watchdog {
    struct spool *sp;
    struct cgroups *cg;
    const char *why;
};

/* One line per job killed, to SPOOL/fence.log and the log: wall time
 * (seconds, milliseconds), the job's cgroup or session record, why. */
static void watchdog_record (const char *name, void *arg)
{
    const struct watchdog *wd = arg;
    char path[4200], line[512];
    struct timeval tv;
    int fd, n;

    gettimeofday (&tv, NULL);
    n = snprintf (line, sizeof (line), "%lld.%03d fenced %s: %s\n",
                  (long long)tv.tv_sec, (int)(tv.tv_usec / 1000), name, wd->why);
    snprintf (path, sizeof (path), "%s/%s", spool_dir (wd->sp), FENCE_LOG);
    if ((fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600))
        >= 0) {
        (void)util_write_all (fd, line, n > 0 && n < (int)sizeof (line) ? n : 0);
        close (fd);
    }
    log_msg (LOG_WARNING, "fence: killed %s: %s", name, wd->why);
}

static void watchdog_fence (struct watchdog *wd, int gone, int64_t silent_ms,
                            int64_t fence_ms)
{
    char why[200];

    snprintf (why, sizeof (why),
              "%s, no answer from the scheduler for %.1f s (fence time %.1f s)",
              gone ? "its worker is gone" : "its worker is alive", silent_ms / 1000.0,
              fence_ms / 1000.0);
    wd->why = why;
    if (wd->cg)
        (void)cgroups_kill_jobs (wd->cg, watchdog_record, wd);
    (void)launch_kill_recorded (wd->sp, ".session", 0, watchdog_record, wd);
}

/* Everything but the pipe and the log is closed: a listening socket or
 * the cgroup lock held here would keep the next worker from starting. */
static void watchdog_close_fds (int keep1, int keep2)
{
    int fds[1024], n = 0;
    DIR *d = opendir ("/proc/self/fd");
    struct dirent *de;

    if (!d) {
        for (int fd = 3; fd < 4096; fd++)
            if (fd != keep1 && fd != keep2)
                (void)close (fd);
        return;
    }
    while ((de = readdir (d)) && n < (int)ARRAY_SIZE (fds)) {
        int fd = atoi (de->d_name);
        if (fd > 2 && fd != keep1 && fd != keep2 && fd != dirfd (d))
            fds[n++] = fd;
    }
    closedir (d);
    for (int i = 0; i < n; i++)
        (void)close (fds[i]);
}

static void watchdog_run (int rfd, const char *spool, struct cgroups *cg)
{
    struct watchdog wd = { NULL, cg, "" };
    struct fence_msg m = { 0, 0 };
    struct hpcq_error err;
    int64_t fenced_for = -1; /* the lease already fenced */
    int gone = 0;
    sigset_t none;

    sigemptyset (&none);
    (void)sigprocmask (SIG_SETMASK, &none, NULL); /* the worker's signalfd's */
    (void)setsid ();
    (void)prctl (PR_SET_NAME, "hpcq-fence"); /* what ps -o comm and top show */
    watchdog_close_fds (rfd, log_fileno ());
    if (!(wd.sp = spool_open (spool, &err))) {
        log_msg (LOG_ERR, "fence: %s", err.text);
        _exit (1);
    }
    for (;;) {
        int64_t now = util_now_ms (), left = m.from_ms + m.fence_ms - now;
        int armed = m.fence_ms > 0 && m.from_ms > 0 && fenced_for != m.from_ms;
        struct pollfd p = { rfd, POLLIN, 0 };
        ssize_t got;

        if (armed && left <= 0) {
            watchdog_fence (&wd, gone, now - m.from_ms, m.fence_ms);
            fenced_for = m.from_ms;
            armed = 0;
        }
        if (gone && !armed)
            _exit (0);
        if (poll (&p, gone ? 0 : 1, armed ? (int)left : -1) <= 0)
            continue;
        got = read (rfd, &m, sizeof (m));
        if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN))
            gone = 1;
        else if (got == (ssize_t)sizeof (m) && m.fence_ms < 0)
            _exit (0);
    }
}

/* --- the worker's side --- */

static void fence_tell (struct fence *f, int64_t fence_ms)
{
    struct fence_msg m = { f->from_ms, fence_ms };

    if (f->fd >= 0 && write (f->fd, &m, sizeof (m)) < 0 && errno != EAGAIN)
        log_error ("fence: tell the watchdog");
}

struct fence *fence_create (struct spool *sp, struct cgroups *cg,
                            struct hpcq_error *err)
{
    struct fence *f = xzalloc (sizeof (*f));
    int p[2];
    int n;

    if ((n = launch_kill_recorded (sp, FENCE_RECORD, 1, NULL, NULL)) > 0)
        log_msg (LOG_INFO, "fence: stopped the watchdog of a previous worker");
    if (pipe2 (p, O_CLOEXEC) < 0) {
        errprintf (err, "fence: pipe: %s", strerror (errno));
        free (f);
        return NULL;
    }
    if ((f->pid = fork ()) < 0) {
        errprintf (err, "fence: fork: %s", strerror (errno));
        close (p[0]);
        close (p[1]);
        free (f);
        return NULL;
    }
    if (f->pid == 0) {
        close (p[1]);
        watchdog_run (p[0], spool_dir (sp), cg);
        _exit (0);
    }
    close (p[0]);
    f->fd = p[1];
    (void)fcntl (f->fd, F_SETFL, O_NONBLOCK);
    launch_record_process (sp, FENCE_RECORD, f->pid);
    return f;
}

void fence_destroy (struct fence *f)
{
    if (!f)
        return;
    fence_tell (f, -1);
    close (f->fd);
    free (f);
}

int fence_exited (struct fence *f, pid_t pid)
{
    if (!f || pid != f->pid)
        return 0;
    log_msg (LOG_ERR,
             "fence: the watchdog (pid %d) ended: if this worker dies, its jobs run on "
             "until it is restarted",
             (int)pid);
    f->pid = 0;
    return 1;
}

void fence_sent (struct fence *f, int64_t id, int64_t now_ms)
{
    if (!f || id <= 0)
        return;
    f->sent[f->next].id = id;
    f->sent[f->next].sent_ms = now_ms;
    f->next = (f->next + 1) % FENCE_SENT;
}

int fence_answered (struct fence *f, int64_t id)
{
    for (int i = 0; f && id > 0 && i < FENCE_SENT; i++) {
        if (f->sent[i].id != id)
            continue;
        f->sent[i].id = 0;
        if (f->sent[i].sent_ms <= f->from_ms)
            return 0; /* an older one, answered late */
        f->from_ms = f->sent[i].sent_ms;
        f->lapsed = 0;
        fence_tell (f, f->fence_ms);
        return 1;
    }
    return 0;
}

void fence_set_time (struct fence *f, int64_t fence_ms)
{
    if (!f || fence_ms == f->fence_ms)
        return;
    f->fence_ms = fence_ms > 0 ? fence_ms : 0;
    fence_tell (f, f->fence_ms);
}

int fence_lapsed (struct fence *f, int64_t now_ms, char *why, int len)
{
    if (!f || f->lapsed || f->fence_ms <= 0 || f->from_ms <= 0
        || now_ms < f->from_ms + f->fence_ms)
        return 0;
    f->lapsed = 1;
    snprintf (why, len,
              "fenced: no answer from the scheduler for %.1f s (fence time %.1f s), "
              "so it may run elsewhere",
              (now_ms - f->from_ms) / 1000.0, f->fence_ms / 1000.0);
    return 1;
}
