/* health.c - see health.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "worker/gpumon.h"
#include "worker/health.h"
#include "worker/worker.h"

#define HEALTH_OUTPUT_MAX (64 * 1024)
#define HEALTH_TIMEOUT_MAX 300

struct health {
    struct worker *w;
    char program[4096]; /* "" if none: GPUs only */
    int64_t interval_ms, timeout_ms;
    struct loop_timer *timer;
    /* The check running now. */
    pid_t pid; /* 0 if none */
    int64_t started_ms;
    int out_fd;
    struct loop_watch *out_watch;
    char *out;
    size_t out_len;
    int exited, status, eof, timed_out;
    /* What was last said, to say it again after a reconnect. */
    int have_verdict, ok;
    char reason[256];
    char last_problem[512]; /* why the program could not run (logged once) */
};

static void health_report (struct health *h, int ok, const char *reason)
{
    h->have_verdict = 1;
    h->ok = ok;
    snprintf (h->reason, sizeof (h->reason), "%s", reason);
    if (!ok)
        log_msg (LOG_WARNING, "health check failed: %s", reason);
    (void)worker_notify (h->w, "node.health",
                         json_pack ("{s:b s:s}", "ok", ok, "reason", reason));
}

void health_link_up (struct health *h)
{
    if (h && h->have_verdict)
        (void)worker_notify (h->w, "node.health",
                             json_pack ("{s:b s:s}", "ok", h->ok, "reason", h->reason));
}

/* The GPUs' part of the verdict: 0 healthy, -1 with reason. */
static int health_gpus (struct health *h, char *reason, size_t len)
{
    int n;
    const struct gpu_sample *s = gpumon_samples (h->w->gpumon, &n);

    return gpumon_verdict (s, n, reason, len);
}

/* The first line of text starting with "ERROR" (NHC's convention), or
 * NULL; *len its length. */
static const char *error_line (const char *text, size_t *len)
{
    for (const char *p = text; p && *p;) {
        size_t n = strcspn (p, "\n");
        if (strncmp (p, "ERROR", 5) == 0) {
            *len = n;
            return p;
        }
        p = p[n] ? p + n + 1 : NULL;
    }
    return NULL;
}

/* The check finished (exited and its output read to the end): judge it. */
static void health_judge (struct health *h)
{
    char reason[256], gpu[256];
    const char *line;
    size_t len = 0, first;
    int failed = 0;

    h->out = h->out ? h->out : xstrdup ("");
    if ((line = error_line (h->out, &len))) {
        snprintf (reason, sizeof (reason), "%.*s", (int)(len > 250 ? 250 : len), line);
        failed = 1;
    } else if (h->timed_out) {
        snprintf (reason, sizeof (reason), "health check %.200s timed out after %lld s",
                  h->program, (long long)(h->timeout_ms / 1000));
        failed = 1;
    } else if (WIFSIGNALED (h->status) || WEXITSTATUS (h->status) != 0) {
        first = strcspn (h->out, "\n");
        if (WIFSIGNALED (h->status))
            snprintf (reason, sizeof (reason), "health check killed by signal %d%s%.*s",
                      WTERMSIG (h->status), first ? ": " : "",
                      (int)(first > 200 ? 200 : first), h->out);
        else
            snprintf (reason, sizeof (reason),
                      "health check exited with status %d%s%.*s",
                      WEXITSTATUS (h->status), first ? ": " : "",
                      (int)(first > 200 ? 200 : first), h->out);
        failed = 1;
    }
    free (h->out);
    h->out = NULL;
    h->out_len = 0;
    h->pid = 0;
    if (!failed && health_gpus (h, gpu, sizeof (gpu)) < 0) {
        snprintf (reason, sizeof (reason), "%s", gpu);
        failed = 1;
    }
    health_report (h, !failed, failed ? reason : "");
}

static void health_output_done (struct health *h)
{
    loop_fd_remove (h->out_watch);
    h->out_watch = NULL;
    close (h->out_fd);
    h->out_fd = -1;
    h->eof = 1;
    if (h->exited)
        health_judge (h);
}

static void health_output (struct loop *l, int fd, int revents, void *arg)
{
    struct health *h = arg;
    char buf[4096];
    ssize_t n = read (fd, buf, sizeof (buf));

    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        health_output_done (h);
        return;
    }
    /* Keep the first HEALTH_OUTPUT_MAX bytes; read the rest away. */
    if (h->out_len < HEALTH_OUTPUT_MAX) {
        size_t take = (size_t)n < HEALTH_OUTPUT_MAX - h->out_len
                          ? (size_t)n
                          : HEALTH_OUTPUT_MAX - h->out_len;
        h->out = xrealloc (h->out, h->out_len + take + 1);
        memcpy (h->out + h->out_len, buf, take);
        h->out_len += take;
        h->out[h->out_len] = '\0';
    }
}

int health_child_exited (struct health *h, pid_t pid, int status)
{
    if (!h || !h->pid || pid != h->pid)
        return 0;
    h->exited = 1;
    h->status = status;
    if (h->eof)
        health_judge (h);
    return 1;
}

/* Can the program be run?  If not, say why once (until it changes). */
static int health_runnable (struct health *h)
{
    struct stat sb;
    char problem[512] = "";

    if (stat (h->program, &sb) < 0)
        snprintf (problem, sizeof (problem), "%s", strerror (errno));
    else if (!S_ISREG (sb.st_mode))
        snprintf (problem, sizeof (problem), "not a regular file");
    else if (access (h->program, X_OK) < 0)
        snprintf (problem, sizeof (problem), "not executable (%s)", strerror (errno));
    if (problem[0] && strcmp (problem, h->last_problem) != 0)
        log_msg (LOG_ERR,
                 "health_check_program %s cannot be run: %s; the node's state "
                 "is left as it is",
                 h->program, problem);
    snprintf (h->last_problem, sizeof (h->last_problem), "%s", problem);
    return problem[0] == '\0';
}

static int health_spawn (struct health *h)
{
    char name[128];
    char *argv[] = { h->program, NULL };
    char *envp[] = {
        (char *)"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        name, NULL
    };
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, dflt;
    int fds[2], rc;

    snprintf (name, sizeof (name), "HPCQ_NODE_NAME=%s", h->w->name);
    if (pipe2 (fds, O_CLOEXEC) < 0)
        return -1;
    posix_spawn_file_actions_init (&fa);
    posix_spawn_file_actions_addopen (&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2 (&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2 (&fa, fds[1], 2);
    posix_spawnattr_init (&attr);
    /* Its own process group (to kill all of it), and the signals the
     * worker blocks or ignores as a program expects them. */
    sigemptyset (&none);
    sigemptyset (&dflt);
    sigaddset (&dflt, SIGPIPE);
    posix_spawnattr_setpgroup (&attr, 0);
    posix_spawnattr_setsigmask (&attr, &none);
    posix_spawnattr_setsigdefault (&attr, &dflt);
    posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK
                                         | POSIX_SPAWN_SETSIGDEF);
    rc = posix_spawn (&h->pid, h->program, &fa, &attr, argv, envp);
    posix_spawn_file_actions_destroy (&fa);
    posix_spawnattr_destroy (&attr);
    close (fds[1]);
    if (rc != 0) {
        close (fds[0]);
        h->pid = 0;
        errno = rc;
        return -1;
    }
    (void)fcntl (fds[0], F_SETFL, O_NONBLOCK);
    h->out_fd = fds[0];
    h->out_watch = loop_fd_add (h->w->loop, h->out_fd, LOOP_READ, health_output, h);
    h->started_ms = util_now_ms ();
    h->exited = h->eof = h->timed_out = 0;
    return 0;
}

static void health_tick (struct loop *l, void *arg)
{
    struct health *h = arg;
    char reason[256];

    if (h->pid) {
        /* Still running: past its time it is killed, and that is the verdict. */
        if (!h->timed_out && util_now_ms () - h->started_ms > h->timeout_ms) {
            h->timed_out = 1;
            (void)kill (-h->pid, SIGKILL);
        }
        return;
    }
    if (h->w->gpumon)
        gpumon_sample (h->w->gpumon);
    if (!h->program[0]) {
        int bad = health_gpus (h, reason, sizeof (reason)) < 0;
        health_report (h, !bad, bad ? reason : "");
        return;
    }
    if (!health_runnable (h)) {
        /* No verdict of the program; a failing GPU is one anyway. */
        if (health_gpus (h, reason, sizeof (reason)) < 0)
            health_report (h, 0, reason);
        return;
    }
    if (health_spawn (h) < 0)
        log_error ("health_check_program %s: cannot start it", h->program);
}

int health_create (struct worker *w, struct health **hp, struct hpcq_error *err)
{
    const char *prog = config_get (w->cfg, "health_check_program", NULL);
    struct health *h;
    int64_t every;

    *hp = NULL;
    if (config_get_int (w->cfg, "health_check_interval", 60, 1, 86400, &every, err) < 0)
        return -1;
    if (prog && prog[0] != '/')
        return errprintf (err, "health_check_program must be an absolute path: '%s'",
                          prog);
    if ((!prog || !*prog) && !w->gpumon)
        return 0;
    h = xzalloc (sizeof (*h));
    h->w = w;
    h->out_fd = -1;
    snprintf (h->program, sizeof (h->program), "%s", prog ? prog : "");
    h->interval_ms = every * 1000;
    h->timeout_ms = (every < HEALTH_TIMEOUT_MAX ? every : HEALTH_TIMEOUT_MAX) * 1000;
    if (!(h->timer = loop_timer_add (w->loop, 1000, h->interval_ms, health_tick, h))) {
        free (h);
        return errprintf (err, "event loop: %s", strerror (errno));
    }
    *hp = h;
    return 0;
}

void health_destroy (struct health *h)
{
    if (!h)
        return;
    loop_timer_remove (h->timer);
    loop_fd_remove (h->out_watch);
    if (h->out_fd >= 0)
        close (h->out_fd);
    if (h->pid > 0) {
        (void)kill (-h->pid, SIGKILL);
        (void)waitpid (h->pid, NULL, 0);
    }
    free (h->out);
    free (h);
}
