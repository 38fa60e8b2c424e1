/* srun_pmix.c - srun --mpi=pmix's side of a step (cli/srun_run.h): one
 * hpcq-stepd per node, started through the task manager with that node's
 * share of the step; their frames give the ranks' output and exit
 * statuses, and srun is the fence's hub: once every node's contribution
 * is in, the whole goes back to each (docs/compat.md, "srun").
 */
#include <config.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/srun_run.h"
#include "common/tm.h"
#include "common/util.h"

static void node_send (struct snode *nd, int type, uint32_t task, const void *data,
                       size_t len)
{
    unsigned char h[STEPFRAME_HEADER];

    stepframe_header (h, type, task, (uint32_t)len);
    tmc_write (nd->t, h, sizeof (h));
    tmc_write (nd->t, data, len);
}

/* Every node's contribution is in: the whole, in node order, to each. */
static void fence_complete (struct step *st)
{
    size_t len = 0, o = 0;
    unsigned char *all;

    for (int k = 0; k < st->lay.nnodes; k++)
        len += st->nodes[k].fence_len;
    all = xzalloc (len + 1);
    for (int k = 0; k < st->lay.nnodes; k++) {
        struct snode *nd = &st->nodes[k];
        if (nd->fence_len)
            memcpy (all + o, nd->fence, nd->fence_len);
        o += nd->fence_len;
        free (nd->fence);
        nd->fence = NULL;
        nd->fence_len = 0;
        nd->fenced = 0;
    }
    st->fences_in = 0;
    for (int k = 0; k < st->lay.nnodes; k++)
        if (!st->nodes[k].done)
            node_send (&st->nodes[k], STEPFRAME_FENCE_DONE, 0, all, len);
    free (all);
}

static void on_node_frame (int type, uint32_t task, const unsigned char *data,
                           size_t len, void *arg)
{
    struct snode *nd = arg;
    struct step *st = nd->st;
    int mine = task < (uint32_t)st->lay.ntasks && st->lay.task_node[task] == nd->k;

    if ((type == STEPFRAME_STDOUT || type == STEPFRAME_STDERR) && mine)
        srun_io_write (st->io, task, type == STEPFRAME_STDOUT ? 1 : 2,
                       (const char *)data, len);
    else if (type == STEPFRAME_EXIT && mine && len == 4)
        srun_task_finish (st, task, (int)stepframe_get_u32 (data), NULL);
    else if (type == STEPFRAME_FENCE && !nd->fenced) {
        nd->fence = xzalloc (len + 1);
        memcpy (nd->fence, data, len);
        nd->fence_len = len;
        nd->fenced = 1;
        if (++st->fences_in == st->lay.nnodes)
            fence_complete (st);
    } else if (type == STEPFRAME_ABORT && len == 4) {
        int status = (int)stepframe_get_u32 (data);
        fprintf (stderr, "srun: error: %s: MPI_Abort with status %d\n",
                 st->node_name[nd->k], status);
        if (!st->abort_status)
            st->abort_status = status > 0 && status < 256 ? status : 1;
        srun_step_terminate (st);
    }
}

static void on_node_output (struct tmc *t, int fd, const char *buf, size_t len,
                            void *arg)
{
    struct snode *nd = arg;

    (void)t;
    if (fd == 2) /* the stepd's own complaints */
        (void)util_write_all (2, buf, len);
    else if (stepframe_feed (&nd->rd, buf, len, on_node_frame, nd) < 0
             && !nd->st->killing) {
        fprintf (stderr, "srun: error: %s: a malformed frame from hpcq-stepd\n",
                 nd->st->node_name[nd->k]);
        srun_step_terminate (nd->st);
    }
}

static void on_node_done (struct tmc *t, int status, const char *error, void *arg)
{
    struct snode *nd = arg;
    struct step *st = nd->st;

    (void)t;
    if (nd->done)
        return;
    nd->done = 1;
    /* Ranks it never reported: what became of it. */
    for (int i = 0; i < st->lay.ntasks; i++)
        if (st->lay.task_node[i] == nd->k && !st->tasks[i].done)
            srun_task_finish (st, i, status > 0 ? status : -1,
                              error ? error : "hpcq-stepd ended before the task");
    if (st->fences_in && !st->killing)
        srun_step_terminate (st); /* a fence that can no longer complete */
    if (--st->running == 0)
        loop_stop (st->loop);
}

/* srun's stdin, framed, to the node of the task it goes to; read only
 * while that node's queue is short. */
static void pmix_stdin_watch (struct step *st);

static void pmix_stdin_io (struct loop *l, int fd, int revents, void *arg)
{
    struct step *st = arg;
    struct snode *nd = &st->nodes[st->lay.task_node[st->input_to]];
    char buf[TM_CHUNK];
    ssize_t n;

    (void)l;
    (void)revents;
    n = read (fd, buf, sizeof (buf));
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n > 0)
        node_send (nd, STEPFRAME_STDIN, st->input_to, buf, n);
    else {
        node_send (nd, STEPFRAME_STDIN_EOF, st->input_to, NULL, 0);
        st->input_to = -1;
    }
    pmix_stdin_watch (st);
}

static void pmix_stdin_watch (struct step *st)
{
    int want = st->input_to >= 0 && !st->nodes[st->lay.task_node[st->input_to]].done
               && tmc_queued (st->nodes[st->lay.task_node[st->input_to]].t) < TM_WINDOW;

    if (want && !st->in_watch)
        st->in_watch = loop_fd_add (st->loop, 0, LOOP_READ, pmix_stdin_io, st);
    else if (!want && st->in_watch) {
        loop_fd_remove (st->in_watch);
        st->in_watch = NULL;
    }
}

static void on_node_started (struct tmc *t, void *arg)
{
    struct snode *nd = arg;

    if (nd->st->killing)
        tmc_signal (t, SIGKILL);
    pmix_stdin_watch (nd->st);
}

static void on_node_taken (struct tmc *t, void *arg)
{
    struct snode *nd = arg;

    (void)t;
    pmix_stdin_watch (nd->st);
}

/* hpcq-stepd NSPACE JOBID.STEP NODEID NODES MAP INPUT -- COMMAND... */
static char **stepd_argv (struct step *st, int k, const char *path)
{
    int argc = 0, n = 0;
    char **argv, buf[160];
    size_t len = 1, o = 0;
    char *nodes, *map;

    for (int i = 0; i < st->lay.nnodes; i++)
        len += strlen (st->node_name[i]) + 1;
    nodes = xzalloc (len);
    for (int i = 0; i < st->lay.nnodes; i++)
        o += snprintf (nodes + o, len - o, "%s%s", i ? "," : "", st->node_name[i]);
    len = (size_t)st->lay.ntasks * 12 + 1;
    map = xzalloc (len);
    for (int t = 0, mo = 0; t < st->lay.ntasks; t++)
        mo += snprintf (map + mo, len - mo, "%s%d", t ? "," : "", st->lay.task_node[t]);
    while (st->o->argv[argc])
        argc++;
    argv = xzalloc ((argc + 9) * sizeof (char *));
    argv[n++] = xstrdup (path);
    snprintf (buf, sizeof (buf), "hpcq.pmix.%s.%d", st->jobid, st->o->step);
    argv[n++] = xstrdup (buf);
    snprintf (buf, sizeof (buf), "%s.%d", st->jobid, st->o->step);
    argv[n++] = xstrdup (buf);
    snprintf (buf, sizeof (buf), "%d", k);
    argv[n++] = xstrdup (buf);
    argv[n++] = nodes;
    argv[n++] = map;
    snprintf (buf, sizeof (buf), "%d", st->input_to);
    argv[n++] = xstrdup (buf);
    argv[n++] = xstrdup ("--");
    for (int i = 0; i < argc; i++)
        argv[n++] = xstrdup (st->o->argv[i]);
    return argv;
}

/* The node's ranks' GPUs for hpcq-stepd: "0,1;2,3" in local rank order. */
static void stepd_gpu_env (struct step *st, int k, char ***env)
{
    size_t len = 32, o = 0;
    char *v;
    int n = 0;

    if (!st->task_gpus)
        return;
    for (int t = 0; t < st->lay.ntasks; t++)
        len += strlen (st->task_gpus[t]) + 1;
    v = xzalloc (len);
    o = snprintf (v, len, "HPCQ_STEPD_GPUS=");
    for (int t = 0; t < st->lay.ntasks; t++)
        if (st->lay.task_node[t] == k)
            o += snprintf (v + o, len - o, "%s%s", n++ ? ";" : "", st->task_gpus[t]);
    for (n = 0; (*env)[n]; n++)
        ;
    *env = xrealloc (*env, (n + 2) * sizeof (char *));
    (*env)[n] = v;
    (*env)[n + 1] = NULL;
}

int srun_pmix_start (struct step *st)
{
    char path[4096];
    struct hpcq_error err;

    if (util_helper_path ("../worker/hpcq-stepd", HPCQ_LIBEXECDIR "/hpcq-stepd", path,
                          sizeof (path))
        < 0) {
        fprintf (stderr, "srun: error: --mpi=pmix: cannot run %s: %s\n", path,
                 strerror (errno));
        return -1;
    }
    st->nodes = xzalloc (st->lay.nnodes * sizeof (*st->nodes));
    for (int t = 0; t < st->lay.ntasks; t++) {
        st->tasks[t].st = st;
        st->tasks[t].id = t;
    }
    for (int k = 0; k < st->lay.nnodes; k++) {
        struct snode *nd = &st->nodes[k];
        int first = 0;
        while (st->lay.task_node[first] != k)
            first++;
        char **env = srun_task_env (st, first), **argv = stepd_argv (st, k, path);
        stepd_gpu_env (st, k, &env);
        struct tmc_spawn s = { .host = st->node_name[k],
                               .vnode = first,
                               .argv = argv,
                               .write_stdin = 1,
                               .env = env,
                               .output = on_node_output,
                               .taken = on_node_taken };
        nd->st = st;
        nd->k = k;
        st->running++;
        nd->t = tmc_spawn (st->loop, &s, on_node_started, on_node_done, nd, &err);
        srun_env_free (env);
        srun_env_free (argv);
        if (!nd->t) {
            on_node_done (NULL, -1, err.text, nd);
            return -1;
        }
    }
    return 0;
}

void srun_pmix_kill (struct step *st)
{
    for (int k = 0; k < st->lay.nnodes; k++)
        if (!st->nodes[k].done && st->nodes[k].t)
            node_send (&st->nodes[k], STEPFRAME_KILL, 0, NULL, 0);
}

void srun_pmix_release (struct step *st)
{
    loop_fd_remove (st->in_watch);
    for (int k = 0; st->nodes && k < st->lay.nnodes; k++) {
        tmc_destroy (st->nodes[k].t);
        stepframe_reader_release (&st->nodes[k].rd);
        free (st->nodes[k].fence);
    }
    free (st->nodes);
    st->nodes = NULL;
}
