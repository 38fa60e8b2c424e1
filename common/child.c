/* child.c - see child.h
 *
 * posix_spawn starts the program (glibc reports an exec that failed as its
 * error, so a missing program is known at once); pidfd_open (Linux 5.3)
 * gives a descriptor that becomes readable when the child ends, so the
 * loop needs no SIGCHLD handling of its own.
 */
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/child.h"
#include "common/util.h"

extern char **environ;

#define CHILD_TAIL 512 /* bytes of output kept */
#define CHILD_MAX_ENV 1024

struct child {
    struct loop *loop;
    pid_t pid;
    int pidfd, outfd;
    struct loop_watch *pidw, *outw;
    struct loop_timer *timer;
    int timed_out;
    child_done_f done;
    void *arg;
    char tail[CHILD_TAIL];
    size_t ntail;
};

static int pidfd_open_ (pid_t pid)
{
    return (int)syscall (SYS_pidfd_open, pid, 0);
}

/* Keep the last CHILD_TAIL bytes the program wrote. */
static void tail_add (struct child *c, const char *buf, size_t n)
{
    if (n >= CHILD_TAIL) {
        buf += n - CHILD_TAIL;
        n = CHILD_TAIL;
    }
    if (c->ntail + n > CHILD_TAIL) {
        size_t drop = c->ntail + n - CHILD_TAIL;
        memmove (c->tail, c->tail + drop, c->ntail - drop);
        c->ntail -= drop;
    }
    memcpy (c->tail + c->ntail, buf, n);
    c->ntail += n;
}

/* Read what is there (the pipe is non-blocking); at EOF stop watching. */
static void out_drain (struct child *c)
{
    char buf[4096];
    ssize_t n;

    while (c->outfd >= 0 && (n = read (c->outfd, buf, sizeof (buf))) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN)
                return;
            break;
        }
        tail_add (c, buf, (size_t)n);
    }
    loop_fd_remove (c->outw);
    c->outw = NULL;
    if (c->outfd >= 0)
        close (c->outfd);
    c->outfd = -1;
}

static void out_ready (struct loop *l, int fd, int revents, void *arg)
{
    out_drain (arg);
}

/* The last non-empty line of the output, without control characters. */
static void last_line (const struct child *c, char *buf, size_t len)
{
    size_t end = c->ntail, start;

    while (end > 0 && (c->tail[end - 1] == '\n' || c->tail[end - 1] == '\r'))
        end--;
    start = end;
    while (start > 0 && c->tail[start - 1] != '\n')
        start--;
    snprintf (buf, len, "%.*s", (int)(end - start), c->tail + start);
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
}

static void child_free (struct child *c)
{
    loop_fd_remove (c->pidw);
    loop_fd_remove (c->outw);
    loop_timer_remove (c->timer);
    if (c->pidfd >= 0)
        close (c->pidfd);
    if (c->outfd >= 0)
        close (c->outfd);
    free (c);
}

static void child_ended (struct loop *l, int fd, int revents, void *arg)
{
    struct child *c = arg;
    char line[CHILD_TAIL + 1];
    int status = 0;

    if (waitpid (c->pid, &status, WNOHANG) == 0)
        return; /* not yet (cannot happen once the pidfd is readable) */
    out_drain (c);
    last_line (c, line, sizeof (line));
    c->done (c, status, c->timed_out, line, c->arg);
    child_free (c);
}

static void child_timeout (struct loop *l, void *arg)
{
    struct child *c = arg;

    c->timer = NULL; /* a one-shot timer frees itself */
    c->timed_out = 1;
    (void)kill (-c->pid, SIGKILL);
}

/* environ with extra entries on top (a new array of borrowed strings). */
static char **env_merge (char *const extra[])
{
    int n = 0, k = 0;
    char **v;

    while (environ[n] && n < CHILD_MAX_ENV)
        n++;
    for (int i = 0; extra && extra[i]; i++)
        k++;
    if (!(v = calloc (n + k + 1, sizeof (*v))))
        return NULL;
    for (int i = 0; i < k; i++)
        v[i] = extra[i];
    for (int i = 0; i < n; i++)
        v[k + i] = environ[i];
    return v;
}

static int spawn (struct child *c, char *const argv[], char *const env[], int out,
                  struct hpcq_error *err)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, dfl;
    char **envp = env_merge (env);
    int rc;

    if (!envp)
        return errprintf (err, "out of memory");
    sigemptyset (&none);
    sigemptyset (&dfl);
    sigaddset (&dfl, SIGPIPE);
    posix_spawn_file_actions_init (&fa);
    posix_spawnattr_init (&at);
    posix_spawn_file_actions_addopen (&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2 (&fa, out, 1);
    posix_spawn_file_actions_adddup2 (&fa, out, 2);
    /* Its own process group, so a timeout kills all it started; the
     * daemon's blocked signals (its signalfd) unblocked. */
    posix_spawnattr_setpgroup (&at, 0);
    posix_spawnattr_setsigmask (&at, &none);
    posix_spawnattr_setsigdefault (&at, &dfl);
    posix_spawnattr_setflags (&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK
                                       | POSIX_SPAWN_SETSIGDEF);
    rc = posix_spawn (&c->pid, argv[0], &fa, &at, argv, envp);
    posix_spawn_file_actions_destroy (&fa);
    posix_spawnattr_destroy (&at);
    free (envp);
    if (rc != 0)
        return errprintf (err, "cannot run '%s': %s", argv[0], strerror (rc));
    return 0;
}

struct child *child_run (struct loop *loop, char *const argv[], char *const env[],
                         int64_t timeout_ms, child_done_f done, void *arg,
                         struct hpcq_error *err)
{
    struct child *c = xzalloc (sizeof (*c));
    int p[2] = { -1, -1 };

    c->loop = loop;
    c->pidfd = c->outfd = -1;
    c->done = done;
    c->arg = arg;
    if (pipe2 (p, O_CLOEXEC) < 0) {
        errprintf (err, "pipe: %s", strerror (errno));
        goto error;
    }
    if (spawn (c, argv, env, p[1], err) < 0)
        goto error;
    close (p[1]);
    p[1] = -1;
    c->outfd = p[0];
    p[0] = -1;
    (void)fcntl (c->outfd, F_SETFL, O_NONBLOCK);
    if ((c->pidfd = pidfd_open_ (c->pid)) < 0
        || !(c->pidw = loop_fd_add (loop, c->pidfd, LOOP_READ, child_ended, c))
        || !(c->outw = loop_fd_add (loop, c->outfd, LOOP_READ, out_ready, c))
        || (timeout_ms > 0
            && !(c->timer = loop_timer_add (loop, timeout_ms, 0, child_timeout, c)))) {
        errprintf (err, "cannot watch '%s': %s", argv[0], strerror (errno));
        child_destroy (c);
        return NULL;
    }
    return c;
error:
    if (p[0] >= 0)
        close (p[0]);
    if (p[1] >= 0)
        close (p[1]);
    free (c);
    return NULL;
}

pid_t child_pid (const struct child *c)
{
    return c->pid;
}

void child_destroy (struct child *c)
{
    if (!c)
        return;
    if (c->pid > 0) {
        (void)kill (-c->pid, SIGKILL);
        (void)waitpid (c->pid, NULL, 0);
    }
    child_free (c);
}

const char *child_status_text (int status, char *buf, size_t len)
{
    if (WIFEXITED (status))
        snprintf (buf, len, "exited with status %d", WEXITSTATUS (status));
    else if (WIFSIGNALED (status))
        snprintf (buf, len, "killed by signal %d", WTERMSIG (status));
    else
        snprintf (buf, len, "ended (status %d)", status);
    return buf;
}
