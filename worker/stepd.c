/* hpcq-stepd - one node's part of an `srun --mpi=pmix` step (srun(1),
 * "--mpi"): started by srun through the task manager (common/tm.h) on each
 * node of the step, as the job's owner, in the job's cgroup; it runs a
 * PMIx server for the step (worker/pmix_server.h), forks the node's
 * ranks with the variables that lead them to it, and speaks to srun in
 * frames (common/stepframe.h) over its stdin and stdout: the ranks'
 * output and exit statuses and its fence contributions out, the fence
 * results and task 0's input in.  Slurm does this in each node's
 * slurmstepd; srun is the hub of the fence here, where Slurm's stepds
 * form a tree among themselves.
 *
 *   hpcq-stepd NSPACE JOBID.STEP NODEID NODES MAP INPUT -- COMMAND [ARGS]
 * NODES: the step's node names, comma-separated, in step order; MAP: each
 * rank's node (its index in NODES), comma-separated; INPUT: the rank
 * whose stdin srun sends, or -1.
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/stepframe.h"
#include "common/tm.h"
#include "common/util.h"
#include "worker/pmix_server.h"

extern char **environ;

struct rank {
    int id, local;
    pid_t pid;
    int out, err; /* pipes, -1 at end of file */
    int in;       /* its stdin pipe (the input rank), else -1 */
    int status;   /* TM status once reaped, else -1 */
};

static struct {
    struct rank *r;
    int n;                /* local ranks */
    int input;            /* the rank srun's stdin goes to, or -1 */
    unsigned char *inbuf; /* its input not yet written */
    size_t inlen;
    int in_eof;
    int wake[2]; /* SIGCHLD */
    int srun_open;
    pthread_mutex_t out_lock; /* stdout: the main thread and libpmix's */
    struct stepframe_reader rd;
    const char *tmpdir; /* libpmix's files */
} sd = { .input = -1, .wake = { -1, -1 }, .out_lock = PTHREAD_MUTEX_INITIALIZER };

static void send_frame (int type, uint32_t task, const void *data, size_t len)
{
    unsigned char h[STEPFRAME_HEADER];

    stepframe_header (h, type, task, (uint32_t)len);
    pthread_mutex_lock (&sd.out_lock);
    /* srun gone: the worker ends this session; nothing to do meanwhile. */
    if (util_write_all (1, h, sizeof (h)) == 0 && len)
        (void)util_write_all (1, data, len);
    pthread_mutex_unlock (&sd.out_lock);
}

/* On libpmix's thread. */
static void on_fence (unsigned char *data, size_t len, void *arg)
{
    (void)arg;
    send_frame (STEPFRAME_FENCE, 0, data, len);
    free (data);
}

static void on_abort (int status, const char *msg, void *arg)
{
    unsigned char p[4];

    (void)arg;
    if (msg && *msg)
        fprintf (stderr, "hpcq-stepd: PMIx_Abort: %s\n", msg);
    stepframe_u32 (p, (uint32_t)status);
    send_frame (STEPFRAME_ABORT, 0, p, sizeof (p));
}

static void on_sigchld (int signo)
{
    int e = errno;

    (void)signo;
    (void)!write (sd.wake[1], "", 1);
    errno = e;
}

/* The session's signals reach the ranks themselves (the worker signals
 * the process group); this one only outlives them, to report. */
static void on_passed (int signo)
{
    (void)signo;
}

static const int passed[] = { SIGINT,  SIGTERM, SIGHUP, SIGQUIT,
                              SIGUSR1, SIGUSR2, SIGALRM };

static char **split (const char *s, int *n)
{
    char **v = NULL, *copy = xstrdup (s), *tok, *save = NULL;

    *n = 0;
    for (tok = strtok_r (copy, ",", &save); tok; tok = strtok_r (NULL, ",", &save)) {
        v = xrealloc (v, (*n + 2) * sizeof (char *));
        v[(*n)++] = xstrdup (tok);
        v[*n] = NULL;
    }
    free (copy);
    return v;
}

/* NAME=VALUE into env (malloc'd, NULL-terminated), replacing NAME's. */
static void env_put (char ***env, const char *kv)
{
    size_t k = strcspn (kv, "=");
    int n = 0;

    for (; (*env)[n]; n++)
        if (strncmp ((*env)[n], kv, k) == 0 && (*env)[n][k] == '=') {
            free ((*env)[n]);
            (*env)[n] = xstrdup (kv);
            return;
        }
    *env = xrealloc (*env, (n + 2) * sizeof (char *));
    (*env)[n] = xstrdup (kv);
    (*env)[n + 1] = NULL;
}

static void env_set (char ***env, const char *key, int v)
{
    char kv[128];

    snprintf (kv, sizeof (kv), "%s=%d", key, v);
    env_put (env, kv);
}

/* srun's --gpus-per-task share of local rank l (HPCQ_STEPD_GPUS: "0,1;2,3"
 * in local rank order) as its CUDA_VISIBLE_DEVICES. */
static void rank_gpus (char ***env, int l)
{
    const char *p = getenv ("HPCQ_STEPD_GPUS");
    char kv[600];

    if (!p)
        return;
    for (int i = 0; i < l && p; i++)
        p = strchr (p, ';') ? strchr (p, ';') + 1 : NULL;
    if (!p)
        return;
    snprintf (kv, sizeof (kv), "CUDA_VISIBLE_DEVICES=%.*s", (int)strcspn (p, ";"), p);
    env_put (env, kv);
}

static int rank_fork (struct rank *r, char **argv)
{
    int out[2], err[2], in[2] = { -1, -1 };
    char **env;
    int n = 0;
    struct hpcq_error e;

    for (; environ[n]; n++)
        ;
    env = xzalloc ((n + 1) * sizeof (char *));
    for (int i = 0, k = 0; i < n; i++)
        if (strncmp (environ[i], "HPCQ_STEPD_", 11)) /* srun's word to us */
            env[k++] = xstrdup (environ[i]);
    env_set (&env, "SLURM_PROCID", r->id);
    env_set (&env, "SLURM_LOCALID", r->local);
    rank_gpus (&env, r->local);
    if (pmixsrv_fork_env (r->id, &env, &e) < 0) {
        fprintf (stderr, "hpcq-stepd: rank %d: %s\n", r->id, e.text);
        return -1;
    }
    if (pipe2 (out, O_CLOEXEC) < 0 || pipe2 (err, O_CLOEXEC) < 0
        || (r->id == sd.input && pipe2 (in, O_CLOEXEC) < 0))
        return -1;
    if ((r->pid = fork ()) < 0)
        return -1;
    if (r->pid == 0) {
        int null = in[0] < 0 ? open ("/dev/null", O_RDONLY) : in[0];
        for (size_t i = 0; i < ARRAY_SIZE (passed); i++)
            signal (passed[i], SIG_DFL);
        signal (SIGPIPE, SIG_DFL);
        signal (SIGCHLD, SIG_DFL);
        if (dup2 (null, 0) < 0 || dup2 (out[1], 1) < 0 || dup2 (err[1], 2) < 0)
            _exit (127);
        environ = env;
        execvp (argv[0], argv);
        fprintf (stderr, "hpcq-stepd: %s: %s\n", argv[0], strerror (errno));
        _exit (errno == ENOENT ? 127 : 126);
    }
    for (int i = 0; env[i]; i++)
        free (env[i]);
    free (env);
    close (out[1]);
    close (err[1]);
    if (in[0] >= 0)
        close (in[0]);
    r->out = out[0];
    r->err = err[0];
    r->in = in[1];
    if (r->in >= 0)
        (void)fcntl (r->in, F_SETFL, O_NONBLOCK);
    return 0;
}

static void rank_check_done (struct rank *r)
{
    unsigned char p[4];

    if (r->status >= 0 && r->out < 0 && r->err < 0 && r->pid) {
        stepframe_u32 (p, (uint32_t)r->status);
        send_frame (STEPFRAME_EXIT, r->id, p, sizeof (p));
        r->pid = 0;
    }
}

static int ranks_left (void)
{
    int left = 0;

    for (int i = 0; i < sd.n; i++)
        left += sd.r[i].pid != 0;
    return left;
}

static void reap (void)
{
    char b[64];
    int ws;
    pid_t pid;

    while (read (sd.wake[0], b, sizeof (b)) > 0)
        ;
    while ((pid = waitpid (-1, &ws, WNOHANG)) > 0)
        for (int i = 0; i < sd.n; i++)
            if (sd.r[i].pid == pid) {
                sd.r[i].status = tm_status_from_wait (ws);
                rank_check_done (&sd.r[i]);
            }
}

static void pump (struct rank *r, int *fd, int type)
{
    char buf[TM_CHUNK];
    ssize_t n = read (*fd, buf, sizeof (buf));

    if (n > 0)
        send_frame (type, r->id, buf, n);
    else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        close (*fd);
        *fd = -1;
        rank_check_done (r);
    }
}

static struct rank *input_rank (void)
{
    for (int i = 0; i < sd.n; i++)
        if (sd.r[i].id == sd.input && sd.r[i].in >= 0)
            return &sd.r[i];
    return NULL;
}

static void input_flush (void)
{
    struct rank *r = input_rank ();
    ssize_t n;

    if (!r)
        return;
    if (sd.inlen && (n = write (r->in, sd.inbuf, sd.inlen)) > 0) {
        memmove (sd.inbuf, sd.inbuf + n, sd.inlen - n);
        sd.inlen -= n;
    } else if (sd.inlen && errno == EPIPE)
        sd.inlen = 0;
    if (!sd.inlen && sd.in_eof) {
        close (r->in);
        r->in = -1;
    }
}

static int rm_entry (const char *path, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)flag;
    (void)f;
    (void)remove (path);
    return 0;
}

/* srun ends the step: no file of ours is left, then the session (this
 * process and its ranks, which share its process group) is killed. */
static void kill_all (void)
{
    (void)nftw (sd.tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    (void)kill (0, SIGKILL);
    _exit (137);
}

static void on_frame (int type, uint32_t task, const unsigned char *data, size_t len,
                      void *arg)
{
    (void)arg;
    if (type == STEPFRAME_KILL)
        kill_all ();
    else if (type == STEPFRAME_FENCE_DONE)
        pmixsrv_fence_done (data, len);
    else if (type == STEPFRAME_STDIN && (int)task == sd.input) {
        sd.inbuf = xrealloc (sd.inbuf, sd.inlen + len + 1);
        memcpy (sd.inbuf + sd.inlen, data, len);
        sd.inlen += len;
    } else if (type == STEPFRAME_STDIN_EOF && (int)task == sd.input)
        sd.in_eof = 1;
}

static void from_srun (void)
{
    char buf[TM_CHUNK];
    ssize_t n = read (0, buf, sizeof (buf));

    if (n > 0) {
        if (stepframe_feed (&sd.rd, buf, n, on_frame, NULL) < 0) {
            fprintf (stderr, "hpcq-stepd: a malformed frame from srun\n");
            sd.srun_open = 0;
        }
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN))
        sd.srun_open = 0;
}

static void run (void)
{
    struct pollfd *p = xzalloc ((3 + 3 * sd.n) * sizeof (*p));

    while (ranks_left ()) {
        int np = 0;
        struct rank *ir = input_rank ();

        p[np++] = (struct pollfd){ .fd = sd.wake[0], .events = POLLIN };
        /* More input waits until the rank has taken what it was given. */
        p[np++] = (struct pollfd){ .fd = sd.srun_open && sd.inlen < TM_WINDOW ? 0 : -1,
                                   .events = POLLIN };
        p[np++] = (struct pollfd){ .fd = ir && (sd.inlen || sd.in_eof) ? ir->in : -1,
                                   .events = POLLOUT };
        for (int i = 0; i < sd.n; i++) {
            p[np++] = (struct pollfd){ .fd = sd.r[i].out, .events = POLLIN };
            p[np++] = (struct pollfd){ .fd = sd.r[i].err, .events = POLLIN };
        }
        if (poll (p, np, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[0].revents)
            reap ();
        if (p[1].revents)
            from_srun ();
        if (p[2].revents)
            input_flush ();
        for (int i = 0; i < sd.n; i++) {
            if (p[3 + 2 * i].revents && sd.r[i].out >= 0)
                pump (&sd.r[i], &sd.r[i].out, STEPFRAME_STDOUT);
            if (p[4 + 2 * i].revents && sd.r[i].err >= 0)
                pump (&sd.r[i], &sd.r[i].err, STEPFRAME_STDERR);
        }
    }
    free (p);
}

static void die (const char *what)
{
    fprintf (stderr, "hpcq-stepd: %s\n", what);
    exit (1);
}

int main (int argc, char **argv)
{
    struct pmixsrv_step s = { 0 };
    struct hpcq_error err;
    char **map, tmpdir[4096];
    const char *tmp = getenv ("TMPDIR");
    int nmap, *task_node, rc = 0;
    struct sigaction sa = { .sa_handler = on_sigchld, .sa_flags = SA_RESTART };

    if (argc < 9 || strcmp (argv[7], "--"))
        die ("usage: hpcq-stepd NSPACE JOBID.STEP NODEID NODES MAP INPUT -- COMMAND");
    s.nspace = argv[1];
    s.jobid = argv[2];
    s.nodes = split (argv[4], &s.nnodes);
    map = split (argv[5], &nmap);
    if (util_parse_int (argv[3], 0, s.nnodes - 1, &s.nodeid) < 0 || nmap < 1
        || util_parse_int (argv[6], -1, nmap - 1, &sd.input) < 0)
        die ("bad NODEID or INPUT");
    task_node = xzalloc (nmap * sizeof (int));
    sd.r = xzalloc (nmap * sizeof (*sd.r));
    for (int t = 0; t < nmap; t++) {
        if (util_parse_int (map[t], 0, s.nnodes - 1, &task_node[t]) < 0)
            die ("bad MAP");
        if (task_node[t] == s.nodeid) {
            sd.r[sd.n] = (struct rank){
                .id = t, .local = sd.n, .out = -1, .err = -1, .in = -1, .status = -1
            };
            sd.n++;
        }
    }
    s.ntasks = nmap;
    s.task_node = task_node;
    snprintf (tmpdir, sizeof (tmpdir), "%s/hpcq-pmix.XXXXXX",
              tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp (tmpdir))
        die ("cannot make the PMIx directory");
    s.tmpdir = sd.tmpdir = tmpdir;
    if (pipe2 (sd.wake, O_CLOEXEC | O_NONBLOCK) < 0)
        die ("pipe");
    sigaction (SIGCHLD, &sa, NULL);
    sa.sa_handler = on_passed;
    for (size_t i = 0; i < ARRAY_SIZE (passed); i++)
        sigaction (passed[i], &sa, NULL);
    signal (SIGPIPE, SIG_IGN);
    sd.srun_open = 1;
    if (pmixsrv_start (&s, on_fence, on_abort, NULL, &err) < 0) {
        fprintf (stderr, "hpcq-stepd: %s\n", err.text);
        rc = 1;
        goto done;
    }
    for (int i = 0; i < sd.n; i++)
        if (rank_fork (&sd.r[i], argv + 8) < 0) {
            fprintf (stderr, "hpcq-stepd: cannot start rank %d: %s\n", sd.r[i].id,
                     strerror (errno));
            sd.r[i].status = 1;
            sd.r[i].pid = -1; /* reported as failed below */
            rank_check_done (&sd.r[i]);
        }
    run ();
done:
    pmixsrv_stop ();
    (void)nftw (tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
}
