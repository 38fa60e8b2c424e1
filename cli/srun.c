/* srun - run a parallel job step inside a job: N tasks across the job's
 * nodes, each started through the workers' task manager (common/tm.h, as
 * pbsdsh does: no ssh), with Slurm's per-task variables, its output here
 * (or in -o/-e files, labelled with -l), stdin to task 0, signals passed
 * on, and Slurm's exit status: the highest exit code of the tasks, or
 * 128 + the highest signal that killed one (srun(1), "RETURN VALUE").
 *
 * Where the tasks go is cli/srun_layout.h; where their output goes
 * cli/srun_io.h.  Outside a job, srun submits one that runs this srun,
 * waits for it and prints its output (cli/srun_alloc.c).
 *
 * Open MPI's mpirun inside an sbatch job starts its daemons with
 *   srun --ntasks-per-node=1 --kill-on-bad-exit --cpu_bind=none
 *        [--nodes=N --nodelist=h1,h2] --ntasks=N orted ...
 * (orte/mca/plm/slurm/plm_slurm_module.c); each orted computes its rank
 * from SLURM_NODEID and names its node from SLURMD_NODENAME
 * (orte/mca/ess/slurm/ess_slurm_module.c), both set here per task.
 */
#include <config.h>
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "cli/alloc.h"
#include "cli/slurm.h"
#include "cli/srun.h"
#include "cli/srun_run.h"
#include "cli/srun_io.h"
#include "cli/srun_layout.h"
#include "cli/tmclient.h"
#include "common/cliopt.h"
#include "common/hostlist.h"
#include "common/loop.h"
#include "common/tm.h"
#include "common/util.h"

extern char **environ;

#ifdef HAVE_PMIX
#define HAVE_PMIX_STEPD 1
#define PMIX_MAJOR HPCQ_PMIX_MAJOR
#else
#define HAVE_PMIX_STEPD 0
#define PMIX_MAJOR 0
#endif

static const char *usage_text =
    "Usage: srun [-n ntasks] [-N nodes] [--ntasks-per-node=n] [-c ncpus] [-l]\n"
    "            [-w hostlist] [-o out] [-e err] [-i in] [-m block|cyclic]\n"
    "            [--export=ALL|NONE|VARS] [-K] [-D dir] [-J name] [--mpi=none|pmix]\n"
    "            [--pty] COMMAND [ARGS...]\n"
    "Runs COMMAND as a job step of the current job (hpcq).  See srun(1), "
    "docs/compat.md.\n";

/* ---- options ---- */

enum {
    OPT_NTPN = 256,
    OPT_EXPORT,
    OPT_KILL_BAD,
    OPT_CPU_BIND,
    OPT_MPI,
    OPT_OPEN_MODE,
    OPT_MEM,
    OPT_IGNORED,
    OPT_REFUSED,
    OPT_PTY,
    OPT_GPT,
    OPT_GPU_BIND,
    OPT_HELP,
    OPT_USAGE,
};

static const struct option longopts[] = {
    { "ntasks", required_argument, NULL, 'n' },
    { "nodes", required_argument, NULL, 'N' },
    { "ntasks-per-node", required_argument, NULL, OPT_NTPN },
    { "cpus-per-task", required_argument, NULL, 'c' },
    { "label", no_argument, NULL, 'l' },
    { "nodelist", required_argument, NULL, 'w' },
    { "output", required_argument, NULL, 'o' },
    { "error", required_argument, NULL, 'e' },
    { "input", required_argument, NULL, 'i' },
    { "distribution", required_argument, NULL, 'm' },
    { "export", required_argument, NULL, OPT_EXPORT },
    { "kill-on-bad-exit", optional_argument, NULL, OPT_KILL_BAD },
    { "chdir", required_argument, NULL, 'D' },
    { "job-name", required_argument, NULL, 'J' },
    { "jobid", required_argument, NULL, OPT_IGNORED },
    { "overcommit", no_argument, NULL, 'O' },
    { "cpu-bind", required_argument, NULL, OPT_CPU_BIND },
    { "cpu_bind", required_argument, NULL, OPT_CPU_BIND },
    { "mpi", required_argument, NULL, OPT_MPI },
    { "open-mode", required_argument, NULL, OPT_OPEN_MODE },
    { "unbuffered", no_argument, NULL, 'u' },
    { "quiet", no_argument, NULL, 'Q' },
    { "verbose", no_argument, NULL, 'v' },
    { "time", required_argument, NULL, 't' },
    { "partition", required_argument, NULL, 'p' },
    { "account", required_argument, NULL, 'A' },
    { "mem", required_argument, NULL, OPT_MEM },
    { "mem-per-cpu", required_argument, NULL, OPT_IGNORED },
    { "exclusive", optional_argument, NULL, OPT_IGNORED },
    { "overlap", no_argument, NULL, OPT_IGNORED },
    { "exact", no_argument, NULL, OPT_IGNORED },
    { "wait", required_argument, NULL, 'W' },
    { "pty", no_argument, NULL, OPT_PTY },
    { "gpus-per-task", required_argument, NULL, OPT_GPT },
    { "gpu-bind", required_argument, NULL, OPT_GPU_BIND },
    { "gpus", required_argument, NULL, OPT_REFUSED },
    { "multi-prog", no_argument, NULL, OPT_REFUSED },
    { "help", no_argument, NULL, OPT_HELP },
    { "usage", no_argument, NULL, OPT_USAGE },
    { NULL, 0, NULL, 0 },
};

static void die_opt (const char *fmt, const char *arg)
{
    fprintf (stderr, "srun: error: ");
    fprintf (stderr, fmt, arg);
    fputc ('\n', stderr);
    exit (1);
}

static int count_arg (const char *what, const char *arg)
{
    int v;
    char buf[64];

    /* -N MIN-MAX: the minimum (a step takes what it is given). */
    snprintf (buf, sizeof (buf), "%s", arg);
    buf[strcspn (buf, "-")] = '\0';
    if (util_parse_int (buf, 1, 1 << 20, &v) < 0) {
        fprintf (stderr, "srun: error: Invalid %s specification: %s\n", what, arg);
        exit (1);
    }
    return v;
}

/* The option the short name or long entry came from, as the user wrote it. */
static const char *opt_name (char **argv)
{
    return argv[optind - 1];
}

static void parse_bind (const char *arg)
{
    /* Binding is not done: accepted only where it asks for none. */
    if (strncmp (arg, "none", 4) && strncmp (arg, "q", 1) && strncmp (arg, "quiet", 5)
        && strncmp (arg, "v", 1))
        die_opt ("--cpu-bind=%s: hpcq does not bind tasks to CPUs (use none)", arg);
}

/* "srun: error: --mpi=X: why" (or SLURM_MPI_TYPE=X, where it came from). */
static void mpi_refused (const char *what, const char *arg, const char *why)
{
    fprintf (stderr, "srun: error: %s=%s: %s\n", what, arg, why);
    exit (1);
}

/* --mpi: none, or pmix (Slurm's plugin names, pmix_v4 among them); list
 * prints them as Slurm's srun does. */
static int parse_mpi (const char *arg, const char *what)
{
    if (strcmp (arg, "list") == 0) {
        printf ("MPI plugin types are...\n\tnone\n%s",
                HAVE_PMIX_STEPD ? "\tpmix\n" : "");
        if (HAVE_PMIX_STEPD)
            printf ("specific pmix plugin versions available: pmix_v%d\n", PMIX_MAJOR);
        exit (0);
    }
    if (strcmp (arg, "none") == 0)
        return 0;
    if (strcmp (arg, "pmix") && strncmp (arg, "pmix_v", 6))
        mpi_refused (what, arg,
                     "hpcq's srun has the MPI types none and pmix (see srun "
                     "--mpi=list); pmi2 and the others are not built");
    if (!HAVE_PMIX_STEPD)
        mpi_refused (what, arg, "this hpcq was built without PMIx (libpmix-dev)");
    return 1;
}

int srun_parse (int argc, char **argv, struct srun_opts *o)
{
    int c;
    const char *mpi = NULL;
    struct hpcq_error gerr;

    cliopt_only (&(struct cliopt){ .prog = "srun", .kind = CLIOPT_SLURM }, argc, argv);
    memset (o, 0, sizeof (*o));
    o->input = "0";
    optind = 1;
    opterr = 0;
    while ((c = getopt_long (argc, argv,
                             "+n:N:c:lw:o:e:i:m:KD:J:Oup:A:t:QvW:", longopts, NULL))
           != -1) {
        switch (c) {
        case 'n': o->req.ntasks = count_arg ("number of tasks", optarg); break;
        case 'N': o->req.nnodes = count_arg ("node count", optarg); break;
        case OPT_NTPN: o->req.per_node = count_arg ("ntasks-per-node", optarg); break;
        case 'c': o->cpus_per_task = count_arg ("cpus-per-task", optarg); break;
        case 'l': o->io.label = 1; break;
        case 'w': o->nodelist = optarg; break;
        case 'o': o->io.out = optarg; break;
        case 'e': o->io.err = optarg; break;
        case 'i': o->input = optarg; break;
        case 'm':
            if (strncmp (optarg, "block", 5) == 0)
                o->req.cyclic = 0;
            else if (strncmp (optarg, "cyclic", 6) == 0)
                o->req.cyclic = 1;
            else
                die_opt ("Invalid --distribution specification: %s", optarg);
            break;
        case OPT_EXPORT: o->export = optarg; break;
        case OPT_MEM: o->mem = optarg; break;
        case 'K':
        case OPT_KILL_BAD: o->kill_bad = !optarg || strcmp (optarg, "0") != 0; break;
        case 'D': o->chdir = optarg; break;
        case 'J': o->job_name = optarg; break;
        case 'O': o->req.overcommit = 1; break;
        case OPT_CPU_BIND: parse_bind (optarg); break;
        case OPT_MPI: mpi = optarg; break;
        case OPT_OPEN_MODE:
            if (strcmp (optarg, "append") && strcmp (optarg, "a")
                && strcmp (optarg, "truncate") && strcmp (optarg, "t"))
                die_opt ("Invalid --open-mode specification: %s", optarg);
            o->io.append = optarg[0] == 'a';
            break;
        case 'p': o->partition = optarg; break;
        case 'A': o->account = optarg; break;
        case 't': o->time = optarg; break;
        case 'u': o->io.unbuffered = 1; break;
        case 'Q':
        case 'v':
        case 'W':
        case OPT_IGNORED: break;
        case OPT_GPT:
            if (srun_gpu_per_task (&o->gpu, optarg, &gerr) < 0)
                die_opt ("%s", gerr.text);
            break;
        case OPT_GPU_BIND:
            if (srun_gpu_bind (&o->gpu, optarg, &gerr) < 0)
                die_opt ("%s", gerr.text);
            break;
        case OPT_PTY:
            o->pty = 1;
            o->io.unbuffered = 1; /* srun(1): --pty implies -u */
            break;
        case OPT_REFUSED:
            die_opt ("%s: not supported by hpcq's srun (docs/compat.md)",
                     opt_name (argv));
            break;
        case OPT_HELP:
        case OPT_USAGE: fputs (usage_text, stdout); exit (0);
        default:
            if (optopt && strchr ("nNcwoeimDJpAtW", optopt))
                fprintf (stderr, "srun: option requires an argument -- '%c'\n", optopt);
            else
                fprintf (stderr, "srun: unrecognized option '%s'\n", opt_name (argv));
            fprintf (stderr, "Try \"srun --help\" for more information\n");
            exit (1);
        }
    }
    if (mpi)
        o->mpi_pmix = parse_mpi (mpi, "--mpi");
    else if ((mpi = getenv ("SLURM_MPI_TYPE")) && *mpi)
        o->mpi_pmix = parse_mpi (mpi, "SLURM_MPI_TYPE");
    if (optind >= argc)
        die_opt ("%s", "No command given to execute.");
    if (o->pty && o->mpi_pmix)
        die_opt ("%s",
                 "--pty: not with --mpi=pmix (the ranks' streams are hpcq-stepd's)");
    o->argv = argv + optind;
    return 0;
}

/* ---- the job's hosts ---- */

static int read_hosts (struct srun_hosts *h)
{
    const char *path = getenv ("PBS_NODEFILE");
    char line[1024];
    FILE *f;

    if (!path || !(f = fopen (path, "r"))) {
        fprintf (stderr, "srun: error: cannot read the job's node file %s\n",
                 path ? path : "(PBS_NODEFILE is not set)");
        return -1;
    }
    while (fgets (line, sizeof (line), f)) {
        int i;
        line[strcspn (line, " \t\r\n")] = '\0';
        if (!line[0])
            continue;
        for (i = 0; i < h->n && strcmp (h->name[i], line); i++)
            ;
        if (i == h->n) {
            h->name = xrealloc (h->name, (h->n + 1) * sizeof (char *));
            h->slots = xrealloc (h->slots, (h->n + 1) * sizeof (int));
            h->name[h->n] = xstrdup (line);
            h->slots[h->n++] = 0;
        }
        h->slots[i]++;
    }
    fclose (f);
    if (h->n == 0)
        fprintf (stderr, "srun: error: the job's node file %s is empty\n", path);
    return h->n ? 0 : -1;
}

struct names {
    char **v;
    int n;
};

static int add_name (const char *name, void *arg)
{
    struct names *nm = arg;

    nm->v = xrealloc (nm->v, (nm->n + 2) * sizeof (char *));
    nm->v[nm->n++] = xstrdup (name);
    nm->v[nm->n] = NULL;
    return 0;
}

/* -w: a host list ("node[1-2],gpu1"), or a file of names if it has a '/'. */
static char **parse_nodelist (const char *arg)
{
    struct names nm = { 0 };
    char line[1024];
    FILE *f;

    if (strchr (arg, '/')) {
        if (!(f = fopen (arg, "r")))
            die_opt ("Unable to open nodelist file %s", arg);
        while (fgets (line, sizeof (line), f)) {
            line[strcspn (line, " \t\r\n")] = '\0';
            if (line[0] && hostlist_expand (line, 1 << 16, add_name, &nm) < 0)
                die_opt ("Invalid node name specified: %s", line);
        }
        fclose (f);
    } else if (hostlist_expand (arg, 1 << 16, add_name, &nm) < 0)
        die_opt ("Invalid node name specified: %s", arg);
    return nm.v;
}

/* ---- the tasks' environment ---- */

static int env_is_slurm (const char *kv)
{
    return strncmp (kv, "SLURM_", 6) == 0 || strncmp (kv, "SLURMD_", 7) == 0;
}

static void env_put (char ***env, int *n, const char *kv)
{
    const char *eq = strchr (kv, '=');
    size_t k = eq ? (size_t)(eq - kv) : strlen (kv);

    for (int i = 0; i < *n; i++)
        if (strncmp ((*env)[i], kv, k) == 0 && (*env)[i][k] == '=') {
            free ((*env)[i]);
            (*env)[i] = xstrdup (kv);
            return;
        }
    *env = xrealloc (*env, (*n + 2) * sizeof (char *));
    (*env)[(*n)++] = xstrdup (kv);
    (*env)[*n] = NULL;
}

static void env_set (char ***env, int *n, const char *key, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

static void env_set (char ***env, int *n, const char *key, const char *fmt, ...)
{
    char val[8192], kv[8400];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (val, sizeof (val), fmt, ap);
    va_end (ap);
    snprintf (kv, sizeof (kv), "%s=%s", key, val);
    env_put (env, n, kv);
}

/* --export: ALL (the default), NONE (Slurm's variables only), or a list
 * of NAME and NAME=VALUE, with ALL among them or only them (srun(1)). */
static char **env_base (const char *export, int *n)
{
    char **env = NULL, *copy, *tok, *save = NULL;
    int all = !export || strcmp (export, "ALL") == 0;

    *n = 0;
    env = xzalloc (sizeof (char *));
    if (export && !all) {
        copy = xstrdup (export);
        for (tok = strtok_r (copy, ",", &save); tok; tok = strtok_r (NULL, ",", &save))
            all |= strcmp (tok, "ALL") == 0;
        free (copy);
    }
    for (char **e = environ; *e; e++)
        if (all || env_is_slurm (*e) || strncmp (*e, "PBS_", 4) == 0
            || strncmp (*e, TM_SOCKET_ENV "=", strlen (TM_SOCKET_ENV) + 1) == 0)
            env_put (&env, n, *e);
    if (!export || strcmp (export, "ALL") == 0 || strcmp (export, "NONE") == 0)
        return env;
    copy = xstrdup (export);
    for (tok = strtok_r (copy, ",", &save); tok; tok = strtok_r (NULL, ",", &save)) {
        const char *v;
        if (strcmp (tok, "ALL") == 0 || strcmp (tok, "NONE") == 0)
            continue;
        if (strchr (tok, '='))
            env_put (&env, n, tok);
        else if ((v = getenv (tok)))
            env_set (&env, n, tok, "%s", v);
    }
    free (copy);
    return env;
}

/* Slurm's SLURM_STEP_TASKS_PER_NODE: "2(x3),1". */
static void step_tpn (const struct srun_layout *l, char *buf, size_t len)
{
    size_t o = 0;

    buf[0] = '\0';
    for (int k = 0; k < l->nnodes;) {
        int reps = 1;
        while (k + reps < l->nnodes && l->node_tasks[k + reps] == l->node_tasks[k])
            reps++;
        o += snprintf (buf + o, o < len ? len - o : 0, reps > 1 ? "%s%d(x%d)" : "%s%d",
                       o ? "," : "", l->node_tasks[k], reps);
        k += reps;
    }
}

/* Task t's environment: the base with the step's and its own variables. */
char **srun_task_env (struct step *st, int t)
{
    const struct srun_layout *l = &st->lay;
    int n, k = l->task_node[t];
    char **env = env_base (st->o->export, &n), gtids[4096] = "";
    size_t o = 0;

    for (int i = 0; i < l->ntasks; i++)
        if (l->task_node[i] == k)
            o += snprintf (gtids + o, o < sizeof (gtids) ? sizeof (gtids) - o : 0,
                           "%s%d", o ? "," : "", i);
    env_set (&env, &n, "SLURM_STEP_ID", "%d", st->o->step);
    env_set (&env, &n, "SLURM_STEPID", "%d", st->o->step);
    env_set (&env, &n, "SLURM_STEP_NUM_TASKS", "%d", l->ntasks);
    env_set (&env, &n, "SLURM_STEP_NUM_NODES", "%d", l->nnodes);
    env_set (&env, &n, "SLURM_STEP_NODELIST", "%s", st->nodelist);
    env_set (&env, &n, "SLURM_STEP_TASKS_PER_NODE", "%s", st->tpn);
    env_set (&env, &n, "SLURM_NTASKS", "%d", l->ntasks);
    env_set (&env, &n, "SLURM_NPROCS", "%d", l->ntasks);
    env_set (&env, &n, "SLURM_NNODES", "%d", l->nnodes);
    env_set (&env, &n, "SLURM_NODELIST", "%s", st->nodelist);
    env_set (&env, &n, "SLURM_TASKS_PER_NODE", "%s", st->tpn);
    env_set (&env, &n, "SLURM_PROCID", "%d", t);
    env_set (&env, &n, "SLURM_LOCALID", "%d", l->task_local[t]);
    env_set (&env, &n, "SLURM_NODEID", "%d", k);
    env_set (&env, &n, "SLURM_GTIDS", "%s", gtids);
    env_set (&env, &n, "SLURMD_NODENAME", "%s", st->node_name[k]);
    env_set (&env, &n, "SLURM_TOPOLOGY_ADDR", "%s", st->node_name[k]);
    env_set (&env, &n, "SLURM_DISTRIBUTION", "%s",
             st->o->req.cyclic ? "cyclic" : "block");
    env_set (&env, &n, "SLURM_JOB_ID", "%s", st->jobid);
    env_set (&env, &n, "SLURM_JOBID", "%s", st->jobid);
    if (st->o->cpus_per_task)
        env_set (&env, &n, "SLURM_CPUS_PER_TASK", "%d", st->o->cpus_per_task);
    if (st->task_gpus)
        env_set (&env, &n, "CUDA_VISIBLE_DEVICES", "%s", st->task_gpus[t]);
    if (st->o->gpu.per_task)
        env_set (&env, &n, "SLURM_GPUS_PER_TASK", "%d", st->o->gpu.per_task);
    if (st->o->job_name)
        env_set (&env, &n, "SLURM_JOB_NAME", "%s", st->o->job_name);
    return env;
}

void srun_env_free (char **env)
{
    for (int i = 0; env && env[i]; i++)
        free (env[i]);
    free (env);
}

/* ---- running ---- */

/* A signal to every task.  One not started yet gets it too: the worker
 * reads it after the spawn, on the same connection; a relayed one (whose
 * sister may not have it yet) gets SIGKILL again once started.  Every
 * task ends with its tm.exit, as its worker saw it. */
static void step_kill (struct step *st, int signo)
{
    /* --mpi=pmix: each node's stepd shares its session with its ranks. */
    for (int k = 0; st->nodes && k < st->lay.nnodes; k++)
        if (!st->nodes[k].done && st->nodes[k].t)
            tmc_signal (st->nodes[k].t, signo);
    for (int t = 0; !st->nodes && t < st->lay.ntasks; t++) {
        struct task *tk = &st->tasks[t];
        if (!tk->done && tk->st && tk->t) /* running, or being spawned */
            tmc_signal (tk->t, signo);
    }
}

/* A task failed (-K, a lost one, MPI_Abort): every task is killed. */
void srun_step_terminate (struct step *st)
{
    if (!st->killing)
        fprintf (stderr, "srun: Terminating StepId=%s.%d\n", st->jobid, st->o->step);
    st->killing = 1;
    if (st->nodes)
        srun_pmix_kill (st);
    else
        step_kill (st, SIGKILL);
}

static void on_started (struct tmc *t, void *arg)
{
    struct task *tk = arg;

    tk->started = 1;
    if (tk->st->killing)
        tmc_signal (t, SIGKILL);
}

static void on_output (struct tmc *t, int fd, const char *buf, size_t len, void *arg)
{
    struct task *tk = arg;

    (void)t;
    srun_io_write (tk->st->io, tk->id, fd, buf, len);
}

/* Task t is over with TM status (-1: lost, error says why). */
void srun_task_finish (struct step *st, int t, int status, const char *error)
{
    struct task *tk = &st->tasks[t];
    const char *host = st->node_name[st->lay.task_node[t]];

    if (tk->done)
        return;
    tk->done = 1;
    tk->status = status;
    srun_io_task_end (st->io, t);
    if (status < 0) {
        fprintf (stderr, "srun: error: %s: task %d: %s\n", host, t,
                 error ? error : "lost");
        st->launch_failed = 1;
    } else if (status >= TM_STATUS_SIGNALED)
        fprintf (stderr, "srun: error: %s: task %d: %s\n", host, t,
                 strsignal (status - TM_STATUS_SIGNALED));
    else if (status > 0)
        fprintf (stderr, "srun: error: %s: task %d: Exited with exit code %d\n", host,
                 t, status);
    if ((status != 0 && st->o->kill_bad) || status < 0)
        srun_step_terminate (st);
}

static void on_done (struct tmc *t, int status, const char *error, void *arg)
{
    struct task *tk = arg;
    struct step *st = tk->st;

    (void)t;
    if (tk->done)
        return;
    srun_task_finish (st, tk->id, status, error);
    st->running--;
    if (st->running == 0)
        loop_stop (st->loop);
}

static void on_signal (struct loop *l, int signo, void *arg)
{
    struct step *st = arg;

    (void)l;
    step_kill (st, signo);
}

/* ---- --pty ---- */

/* Task 0's command under script(1) (util-linux), which gives it a
 * pseudo-terminal on its host and relays it over the task's streams; the
 * terminal's size first, as srun --pty passes it on. */
static char **pty_argv (char **argv)
{
    struct winsize ws = { 0 };
    char *cmd = NULL, head[96];
    size_t len = 0;
    char **v = xzalloc (6 * sizeof (char *));

    if (ioctl (0, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
        snprintf (head, sizeof (head), "stty rows %u cols %u 2>/dev/null; exec ",
                  ws.ws_row, ws.ws_col);
    } else
        snprintf (head, sizeof (head), "exec ");
    len = strlen (head);
    cmd = xstrdup (head);
    for (int i = 0; argv[i]; i++)
        util_sh_quote (&cmd, &len, argv[i]);
    v[0] = xstrdup ("script");
    v[1] = xstrdup ("-qfec");
    v[2] = cmd;
    v[3] = xstrdup ("/dev/null");
    return v;
}

/* srun's own terminal raw while task 0 has its pty (keys go as typed:
 * ^C to the remote program); put back by pty_restore. */
static struct termios pty_saved;
static int pty_raw;

static void pty_restore (void)
{
    if (pty_raw)
        (void)tcsetattr (0, TCSADRAIN, &pty_saved);
    pty_raw = 0;
}

static void pty_make_raw (void)
{
    struct termios t;

    if (!isatty (0) || tcgetattr (0, &pty_saved) < 0)
        return;
    t = pty_saved;
    cfmakeraw (&t);
    if (tcsetattr (0, TCSADRAIN, &t) == 0) {
        pty_raw = 1;
        atexit (pty_restore);
    }
}

/* -i: the task srun's stdin goes to, -1 for none; -2 if refused. */
static int input_task (const struct step *st)
{
    int to = -1;

    if (strcmp (st->o->input, "none") != 0
        && util_parse_int (st->o->input, 0, 1 << 30, &to) < 0) {
        if (strcmp (st->o->input, "all") != 0 || st->lay.ntasks > 1) {
            fprintf (stderr,
                     "srun: error: --input=%s: hpcq's srun sends its standard input to "
                     "one task (--input=N) or none\n",
                     st->o->input);
            return -2;
        }
        to = 0;
    }
    return to < st->lay.ntasks ? to : -1;
}

static int step_start (struct step *st)
{
    struct hpcq_error err;
    int to = input_task (st);

    if (to == -2)
        return -1;
    st->input_to = to;
    if (st->o->mpi_pmix)
        return srun_pmix_start (st);
    for (int t = 0; t < st->lay.ntasks; t++) {
        struct task *tk = &st->tasks[t];
        char **env = srun_task_env (st, t),
             **pargv = st->o->pty && t == 0 ? pty_argv (st->o->argv) : NULL;
        struct tmc_spawn s = { .host = st->node_name[st->lay.task_node[t]],
                               .vnode = t,
                               .argv = pargv ? pargv : st->o->argv,
                               .forward_stdin = t == to,
                               .env = env,
                               .output = on_output };
        tk->st = st;
        tk->id = t;
        st->running++;
        tk->t = tmc_spawn (st->loop, &s, on_started, on_done, tk, &err);
        srun_env_free (env);
        srun_env_free (pargv);
        if (!tk->t) {
            on_done (NULL, -1, err.text, tk);
            return -1;
        }
    }
    if (st->o->pty)
        pty_make_raw ();
    return 0;
}

/* srun(1): the highest exit code, or 128 + the highest signal. */
static int step_exit (const struct step *st)
{
    int rc = 0, sig = 0;

    for (int t = 0; t < st->lay.ntasks; t++) {
        int s = st->tasks[t].status;
        if (s >= TM_STATUS_SIGNALED && s - TM_STATUS_SIGNALED > sig)
            sig = s - TM_STATUS_SIGNALED;
        else if (s >= 0 && s < TM_STATUS_SIGNALED && s > rc)
            rc = s;
    }
    if (st->abort_status)
        return st->abort_status;
    if (st->launch_failed)
        return rc > 1 ? rc : 1;
    return sig ? 128 + sig : rc;
}

/* --gpus-per-task, --gpu-bind: each task's share of its node's GPUs.  The
 * job's GPUs are known here only for its first host (CUDA_VISIBLE_DEVICES
 * of this, the job's first process), so a split step runs there. */
static int srun_gpu_split (struct step *st, struct hpcq_error *err)
{
    const char *cvd = getenv ("CUDA_VISIBLE_DEVICES");
    char buf[512];
    struct hpcq_error e;

    if (!srun_gpu_splits (&st->o->gpu))
        return 0;
    for (int k = 0; k < st->lay.nnodes; k++)
        if (st->lay.node[k] != 0)
            return errprintf (err,
                              "Requested node configuration is not available (GPUs "
                              "per task: the job's GPUs on %s are not known to srun; "
                              "a step with --gpus-per-task runs on %s)",
                              st->node_name[k], st->hosts.name[0]);
    st->task_gpus = xzalloc ((st->lay.ntasks + 1) * sizeof (char *));
    for (int t = 0; t < st->lay.ntasks; t++) {
        if (srun_gpu_task (&st->o->gpu, cvd, st->lay.task_local[t], buf, sizeof (buf),
                           &e)
            < 0)
            return errprintf (err, "Requested node configuration is not available (%s)",
                              e.text);
        st->task_gpus[t] = xstrdup (buf);
    }
    return 0;
}

static int step_prepare (struct step *st, struct hpcq_error *err)
{
    const char **names;
    const char *nt = getenv ("SLURM_NTASKS");
    int v;

    if (read_hosts (&st->hosts) < 0)
        return -1;
    if (nt && util_parse_int (nt, 1, 1 << 20, &v) == 0)
        st->o->req.env_ntasks = v;
    if (st->o->nodelist)
        st->o->req.nodelist = parse_nodelist (st->o->nodelist);
    if (srun_layout_make (&st->hosts, &st->o->req, &st->lay, err) < 0)
        return -1;
    st->node_name = xzalloc ((st->lay.nnodes + 1) * sizeof (char *));
    names = xzalloc ((st->lay.nnodes + 1) * sizeof (char *));
    for (int k = 0; k < st->lay.nnodes; k++)
        names[k] = st->node_name[k] = st->hosts.name[st->lay.node[k]];
    hostlist_format (names, st->lay.nnodes, st->nodelist, sizeof (st->nodelist));
    free (names);
    step_tpn (&st->lay, st->tpn, sizeof (st->tpn));
    st->tasks = xzalloc ((st->lay.ntasks + 1) * sizeof (*st->tasks));
    return srun_gpu_split (st, err);
}

static void step_release (struct step *st)
{
    srun_pmix_release (st);
    for (int t = 0; st->tasks && t < st->lay.ntasks; t++)
        tmc_destroy (st->tasks[t].t);
    srun_io_destroy (st->io);
    loop_destroy (st->loop);
    free (st->tasks);
    free (st->node_name);
    srun_env_free (st->task_gpus);
    srun_layout_release (&st->lay);
    for (int i = 0; i < st->hosts.n; i++)
        free (st->hosts.name[i]);
    free (st->hosts.name);
    free (st->hosts.slots);
    for (int i = 0; st->o->req.nodelist && st->o->req.nodelist[i]; i++)
        free (st->o->req.nodelist[i]);
    free (st->o->req.nodelist);
}

/* The step's I/O names: the job's number, its name, the user. */
static struct srun_io *step_io (struct step *st, struct hpcq_error *err)
{
    struct passwd *pw = getpwuid (getuid ());
    struct srun_io_names nm = { .job = st->jobid,
                                .step = st->o->step,
                                .user = pw ? pw->pw_name : "",
                                .job_name = st->o->job_name ? st->o->job_name
                                                            : getenv ("SLURM_JOB_NAME"),
                                .array_job = getenv ("SLURM_ARRAY_JOB_ID"),
                                .array_task = getenv ("SLURM_ARRAY_TASK_ID") };

    if (!nm.job_name)
        nm.job_name = getenv ("PBS_JOBNAME");
    return srun_io_create (&st->o->io, &nm, st->lay.ntasks, st->lay.task_node,
                           st->node_name, err);
}

static int run_in_job (struct srun_opts *o)
{
    static const int sigs[] = { SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,
                                SIGUSR1, SIGUSR2, SIGCONT, SIGALRM };
    struct step st = { .o = o };
    struct hpcq_error err;
    int rc = 1;
    const char *pbsid = getenv ("PBS_JOBID");

    /* An array task's SLURM_JOB_ID is its own number (not "N_I"). */
    if (getenv ("SLURM_JOB_ID") && getenv ("SLURM_JOB_ID")[0]
        && !getenv ("SLURM_JOB_ID")[strspn (getenv ("SLURM_JOB_ID"), "0123456789")])
        snprintf (st.jobid, sizeof (st.jobid), "%s", getenv ("SLURM_JOB_ID"));
    else
        slurm_id (pbsid, st.jobid, sizeof (st.jobid));
    if (o->chdir && chdir (o->chdir) < 0) {
        fprintf (stderr, "srun: error: chdir %s: %s\n", o->chdir, strerror (errno));
        return 1;
    }
    if (step_prepare (&st, &err) < 0) {
        if (st.hosts.n)
            fprintf (stderr, "srun: error: Unable to create step for job %s: %s\n",
                     st.jobid, err.text);
        goto done;
    }
    o->step = srun_step_begin (pbsid, &st.lay, st.nodelist,
                               o->job_name ? o->job_name : o->argv[0]);
    if (!(st.io = step_io (&st, &err))) {
        fprintf (stderr, "srun: error: %s\n", err.text);
        goto done;
    }
    if (!(st.loop = loop_create ())
        || loop_signals (st.loop, sigs, sizeof (sigs) / sizeof (sigs[0]), on_signal,
                         &st)
               < 0) {
        perror ("srun: error: loop");
        goto done;
    }
    signal (SIGPIPE, SIG_IGN);
    if (step_start (&st) == 0 || st.running > 0)
        (void)loop_run (st.loop);
    pty_restore ();
    rc = step_exit (&st);
    srun_step_end (pbsid, o->step, rc);
done:
    step_release (&st);
    return rc;
}

int main (int argc, char **argv)
{
    struct srun_opts o;

    srun_parse (argc, argv, &o);
    if (!getenv ("PBS_JOBID") && o.pty)
        return srun_alloc_pty (&o);
    if (!getenv ("PBS_JOBID"))
        return srun_alloc_run (argc, argv, &o);
    if (!getenv (TM_SOCKET_ENV)) {
        fprintf (stderr,
                 "srun: error: no task manager on this host (%s is not set: the "
                 "worker has no tm_socket)\n",
                 TM_SOCKET_ENV);
        return 1;
    }
    return run_in_job (&o);
}
