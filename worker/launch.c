/* launch.c - see launch.h
 *
 * Status pipe records, each ending in a NUL: 'O' PATH and 'E' PATH (the
 * output and error files the child resolved), then possibly 'X' TEXT (why
 * it could not exec).  The worker reads them without blocking.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/arrayspec.h"
#include "common/ckptspec.h"
#include "common/hostlist.h"
#include "common/util.h"
#include "worker/launch.h"
#include "worker/stage.h"
#include "worker/sandbox.h"

#define ENV_MAX 512

static void env_add (char **envp, int *n, const char *key, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

static void env_add (char **envp, int *n, const char *key, const char *fmt, ...)
{
    char value[8192], *kv;
    size_t klen = strlen (key);
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (value, sizeof (value), fmt, ap);
    va_end (ap);
    kv = xzalloc (klen + strlen (value) + 2);
    sprintf (kv, "%s=%s", key, value);
    for (int i = 0; i < *n; i++) {
        if (strncmp (envp[i], key, klen) == 0 && envp[i][klen] == '=') {
            free (envp[i]);
            envp[i] = kv;
            return;
        }
    }
    if (*n < ENV_MAX - 1)
        envp[(*n)++] = kv;
    else
        free (kv);
}

static void launch_env_compat (char **envp, int *n, const struct launch_req *req,
                               const struct launch_env *e);

/* key=value unless the job's own variables set key. */
static void env_default (char **envp, int *n, const char *key, const char *value)
{
    size_t klen = strlen (key);

    for (int i = 0; i < *n; i++)
        if (strncmp (envp[i], key, klen) == 0 && envp[i][klen] == '=')
            return;
    env_add (envp, n, key, "%s", value);
}

static void env_user (char **envp, int *n, const struct launch_req *req,
                      const struct privsep_cred *cred)
{
    if (cred && cred->home[0]) {
        env_add (envp, n, "HOME", "%s", cred->home);
        env_add (envp, n, "SHELL", "%s", cred->shell);
    }
    env_add (envp, n, "USER", "%s", req->owner);
    env_add (envp, n, "LOGNAME", "%s", req->owner);
}

/* Remote launch through the task manager (worker/tm.h).  Open MPI's
 * mpirun starts its daemons on the other hosts with its rsh agent
 * (OMPI_MCA_plm_rsh_agent, read by orte/mca/plm/rsh: "ssh : rsh" unless
 * set), here pbs_tmrsh, on the hosts of its default hostfile: the node
 * file, one slot per line, so `mpirun ./a.out` needs no flags.  Tree
 * spawn stays on (the default): without it plm rsh adds --daemonize, and
 * a daemon that leaves its pbs_tmrsh session is one the task manager no
 * longer holds (the sister's cgroup goes with the session).  Point-to-
 * point goes through UCX.  The job's own -v settings win (added before). */
static void launch_env_tm (char **envp, int *n, const struct launch_env *e,
                           const char *nodes)
{
    if (!e->tm_socket)
        return;
    env_add (envp, n, "HPCQ_TM_SOCKET", "%s", e->tm_socket);
    env_default (envp, n, "OMPI_MCA_plm_rsh_agent",
                 e->tm_agent ? e->tm_agent : "pbs_tmrsh");
    env_default (envp, n, "OMPI_MCA_orte_default_hostfile", nodes);
    /* The node file's lines are the slots (mpiprocs per chunk): without
     * this, ORTE resets each host's slots to the cores its daemon finds
     * there (orte_set_default_slots=cores), so select=4:mpiprocs=1 on
     * 2-core hosts started 7 ranks. */
    env_default (envp, n, "OMPI_MCA_orte_set_default_slots", "none");
    env_default (envp, n, "OMPI_MCA_pml", "ucx");
    /* Open MPI 4.1's UCX layer refuses TCP-only devices unless told: on
     * InfiniBand UCX still picks rc/dc itself. */
    env_default (envp, n, "OMPI_MCA_pml_ucx_tls", "any");
    env_default (envp, n, "OMPI_MCA_pml_ucx_devices", "any");
}

/* UCX on the node's active InfiniBand ports, where it has any (ib.h);
 * else nothing, and UCX picks TCP.  The job's own -v setting wins. */
static void launch_env_ucx (char **envp, int *n, const struct launch_env *e)
{
    if (e->ucx_devices && e->ucx_devices[0])
        env_default (envp, n, "UCX_NET_DEVICES", e->ucx_devices);
}

/* OpenMP threads per rank: the first chunk's ompthreads, by default its
 * ncpus (here the mother superior's cores).  PBS Pro sets NCPUS and
 * OMP_NUM_THREADS both to it (pbs_resources(7B), "ompthreads"; OpenPBS
 * src/resmom/start_exec.c sets both from the vnode's vn_threads). */
static int launch_ompthreads (const struct launch_req *req)
{
    const struct hpcq_resources *res = &req->spec.res;

    if (res->nchunks > 0 && res->chunk[0].ompthreads > 0)
        return res->chunk[0].ompthreads;
    return req->ncpus;
}

/* The job's environment: its Variable_List (PBS_O_*, -v, -V), then what
 * the batch system defines, which the user cannot override. */
char **launch_environ (const struct launch_req *req, const struct launch_env *e,
                       const char *nodes)
{
    char **envp = xzalloc (ENV_MAX * sizeof (char *)), cvd[2048];
    const char *path = jobspec_getenv (&req->spec, "PBS_O_PATH");
    int n = 0;

    env_add (envp, &n, "PATH", "%s", path ? path : "/usr/local/bin:/usr/bin:/bin");
    env_user (envp, &n, req, e->cred);
    for (int i = 0; i < req->spec.nenv && n < ENV_MAX - 64; i++) {
        const char *kv = req->spec.env[i], *eq = strchr (kv, '=');
        char key[256];
        if (!eq || (size_t)(eq - kv) >= sizeof (key))
            continue;
        memcpy (key, kv, eq - kv);
        key[eq - kv] = '\0';
        env_add (envp, &n, key, "%s", eq + 1); /* replaces, never duplicates */
    }
    env_add (envp, &n, "PBS_JOBID", "%s", req->jobid);
    env_add (envp, &n, "PBS_JOBNAME", "%s", req->spec.name);
    env_add (envp, &n, "PBS_O_WORKDIR", "%s", req->spec.workdir);
    env_add (envp, &n, "PBS_O_HOST", "%s", req->spec.submit_host);
    env_add (envp, &n, "PBS_QUEUE", "%s", req->queue);
    env_add (envp, &n, "PBS_O_QUEUE", "%s", req->queue);
    env_add (envp, &n, "PBS_SERVER", "%s", req->server);
    env_add (envp, &n, "PBS_NODEFILE", "%s", nodes);
    env_add (envp, &n, "PBS_ENVIRONMENT", "PBS_BATCH");
    env_add (envp, &n, "PBS_TASKNUM", "1");
    env_add (envp, &n, "PBS_NODENUM", "0");
    env_add (envp, &n, "PBS_JOBDIR", "%s", req->spec.workdir);
    env_add (envp, &n, "ENVIRONMENT", "BATCH");
    env_add (envp, &n, "NCPUS", "%d", launch_ompthreads (req));
    env_add (envp, &n, "OMP_NUM_THREADS", "%d", launch_ompthreads (req));
    env_add (envp, &n, "HPCQ_JOB_UUID", "%s", req->uuid);
    env_add (envp, &n, "HPCQ_ATTEMPT", "%d", req->attempt);
    env_add (envp, &n, "HPCQ_RESTART_COUNT", "%d", req->attempt - 1);
    env_add (envp, &n, "HPCQ_NODE", "%s", e->node_name);
    env_add (envp, &n, "HPCQ_CHECKPOINT_DIR", "%s", req->ckpt_dir);
    if (req->ckpt_keep > 0)
        env_add (envp, &n, "HPCQ_CHECKPOINT_KEEP", "%d", req->ckpt_keep);
    env_add (envp, &n, "HPCQ_CHECKPOINT_SIGNAL", "%s",
             req->ckpt_signal[0] ? req->ckpt_signal : "USR1");
    if (e->ckpt_socket)
        env_add (envp, &n, "HPCQ_CKPT_SOCKET", "%s", e->ckpt_socket);
    if (req->array_index >= 0) {
        /* PBS Pro's names, Torque's, and Slurm's for scripts written for it. */
        env_add (envp, &n, "PBS_ARRAY_INDEX", "%d", req->array_index);
        env_add (envp, &n, "PBS_ARRAY_ID", "%lld[].%s", (long long)req->number,
                 req->server);
        env_add (envp, &n, "PBS_ARRAYID", "%d", req->array_index);
        env_add (envp, &n, "SLURM_ARRAY_TASK_ID", "%d", req->array_index);
        env_add (envp, &n, "SLURM_ARRAY_JOB_ID", "%lld", (long long)req->number);
    }
    launch_env_compat (envp, &n, req, e);
    launch_env_tm (envp, &n, e, nodes);
    launch_env_ucx (envp, &n, e);
    /* A node with GPUs hides the ones the job was not given. */
    if (e->ngpus > 0 || req->ngpus > 0) {
        gpu_visible_devices (e->gpus, e->ngpus, req->gpus, req->ngpus,
                             req->nmig ? req->mig : NULL, cvd, sizeof (cvd));
        env_add (envp, &n, "CUDA_VISIBLE_DEVICES", "%s", cvd);
    }
    envp[n] = NULL;
    return envp;
}

void launch_environ_free (char **envp)
{
    if (!envp)
        return;
    for (int i = 0; envp[i]; i++)
        free (envp[i]);
    free (envp);
}

void launch_cleanup (struct spool *sp, int64_t seq, int attempt)
{
    static const char *suffixes[] = { "SC", "nodes", "session" };
    char name[128];

    for (size_t i = 0; i < ARRAY_SIZE (suffixes); i++) {
        spool_name (name, sizeof (name), seq, attempt, suffixes[i]);
        spool_remove (sp, name);
    }
}

/* Field 22 of /proc/PID/stat (start time in clock ticks since boot), which
 * with the pid identifies a process across pid reuse; -1 if gone. */
static long long proc_start_time (pid_t pid, pid_t *sid)
{
    long long v[23];

    if (util_proc_stat ((int)pid, v, 22) < 0)
        return -1;
    *sid = (pid_t)v[6];
    return v[22];
}

void launch_record_process (struct spool *sp, const char *name, pid_t pid)
{
    char text[64];
    pid_t sid = 0;

    snprintf (text, sizeof (text), "%d %lld\n", (int)pid, proc_start_time (pid, &sid));
    (void)spool_write (sp, name, text, 0600, (uid_t)-1, (gid_t)-1, NULL);
}

static void launch_record_session (struct spool *sp, const struct launch_req *req,
                                   pid_t pid)
{
    char name[128];

    spool_name (name, sizeof (name), req->seq, req->attempt, "session");
    launch_record_process (sp, name, pid);
}

struct kill_recorded {
    int remove;
    void (*each) (const char *name, void *arg);
    void *arg;
};

/* The session a record names: killed if its leader is still the process
 * the record names (not a reused pid). */
static int kill_recorded (struct spool *sp, const char *name, void *arg)
{
    const struct kill_recorded *k = arg;
    char *text = spool_read (sp, name, 256);
    long long start = -2;
    pid_t sid = 0;
    int pid = 0, killed = 0;

    if (text && sscanf (text, "%d %lld", &pid, &start) == 2 && pid > 1
        && pid != getpid () && proc_start_time (pid, &sid) == start && sid == pid) {
        (void)kill (-pid, SIGKILL);
        killed = 1;
    }
    free (text);
    if (killed && k->each)
        k->each (name, k->arg);
    if (k->remove)
        spool_remove (sp, name);
    return killed;
}

int launch_kill_recorded (struct spool *sp, const char *suffix, int remove,
                          void (*each) (const char *name, void *arg), void *arg)
{
    struct kill_recorded k = { remove, each, arg };

    return spool_foreach (sp, suffix, kill_recorded, &k);
}

int launch_kill_leftovers (struct spool *sp, struct cgroups *cg)
{
    int n = cg ? cgroups_sweep (cg) : 0;
    int m = launch_kill_recorded (sp, ".session", 1, NULL, NULL);

    /* A job in a cgroup also left a session record: count it once. */
    return n > m ? n : m;
}

char *launch_nodefile (const struct launch_req *req)
{
    size_t total = 1;
    char *text;

    for (int i = 0; i < req->nnodefile; i++)
        total += strlen (req->nodefile[i]) + 1;
    text = xzalloc (total);
    for (int i = 0; i < req->nnodefile; i++) {
        strcat (text, req->nodefile[i]);
        strcat (text, "\n");
    }
    return text;
}

/* Script and node file in the spool, the job owner's, readable by nobody
 * else. */
static int launch_spool (const struct launch_req *req, const struct launch_env *e,
                         char *script, char *nodes, int len, struct hpcq_error *err)
{
    uid_t uid = e->cred ? e->cred->uid : (uid_t)-1;
    gid_t gid = e->cred ? e->cred->gid : (gid_t)-1;
    char sc_name[128], nodes_name[128], *text = launch_nodefile (req);
    int rc;

    spool_name (sc_name, sizeof (sc_name), req->seq, req->attempt, "SC");
    spool_name (nodes_name, sizeof (nodes_name), req->seq, req->attempt, "nodes");
    snprintf (script, len, "%s/%s", spool_dir (e->spool), sc_name);
    snprintf (nodes, len, "%s/%s", spool_dir (e->spool), nodes_name);
    rc = spool_write (e->spool, sc_name, req->spec.script, 0700, uid, gid, err) < 0
                 || spool_write (e->spool, nodes_name, text, 0600, uid, gid, err) < 0
             ? -1
             : 0;
    free (text);
    return rc;
}

static int array_pos (const struct launch_req *req);

/* Slurm's %j of an array task is its own number (SLURM_JOB_ID), not the
 * array's: given with each %j so written, into buf.  1 if it had one. */
static int slurm_own_id (const char *given, const struct launch_req *req, char *buf,
                         size_t len)
{
    size_t o = 0;
    int any = 0;

    for (const char *p = given; *p && o + 24 < len; p++) {
        if (p[0] == '%' && p[1] == '%') {
            buf[o++] = *p++;
            buf[o++] = *p;
        } else if (p[0] == '%' && p[1] == 'j') {
            o += snprintf (buf + o, len - o, "%lld",
                           (long long)req->number + array_pos (req));
            p++;
            any = 1;
        } else
            buf[o++] = *p;
    }
    buf[o] = '\0';
    return any;
}

/* PBS rules: -o/-e relative to the submission directory; a directory
 * gets NAME.oNUM inside it; the default is WORKDIR/NAME.oNUM. */
void launch_resolve_output (const struct launch_req *req, const char *given, char kind,
                            char *buf, int len)
{
    const struct hpcq_jobspec *s = &req->spec;
    char path[3072]; /* shorter than buf: room for the directory */
    char num[64], own[3072];
    struct stat st;

    /* A subjob's files are NAME.oN.I, as in PBS. */
    if (req->array_index >= 0)
        snprintf (num, sizeof (num), "%lld.%d", (long long)req->number,
                  req->array_index);
    else
        snprintf (num, sizeof (num), "%lld", (long long)req->number);
    if (given && req->spec.slurm && req->array_index >= 0
        && slurm_own_id (given, req, own, sizeof (own)))
        given = own;
    if (given)
        jobspec_expand_path (given, (long long)req->number, req->array_index, s->name,
                             path, sizeof (path));
    if (!given)
        snprintf (buf, len, "%s/%s.%c%s", s->workdir, s->name, kind, num);
    else if (path[0] == '/')
        snprintf (buf, len, "%s", path);
    else
        snprintf (buf, len, "%s/%s", s->workdir, path);
    /* "logs/" names a directory even before it exists. */
    if (given
        && ((stat (buf, &st) == 0 && S_ISDIR (st.st_mode))
            || given[strlen (given) - 1] == '/')) {
        size_t l = strlen (buf);
        snprintf (buf + l, len - l, "%s%s.%c%s", buf[l - 1] == '/' ? "" : "/", s->name,
                  kind, num);
    }
}

/* In the child: one status record. */
static void child_say (int fd, char type, const char *text)
{
    size_t len = strlen (text);
    char *rec = xzalloc (len + 2);

    rec[0] = type;
    memcpy (rec + 1, text, len + 1);
    (void)util_write_all (fd, rec, len + 2);
    free (rec);
}

/* In the child: report why we could not exec, then exit (freeing envp:
 * memory checkers look at a child that leaves by _exit too). */
static void child_fail (int fd, char **envp, const char *what, const char *path)
{
    char msg[1024];

    snprintf (msg, sizeof (msg), "%s %s: %s", what, path, strerror (errno));
    child_say (fd, 'X', msg);
    launch_environ_free (envp);
    _exit (127);
}

/* 0666 less the job's umask, as a shell's redirection would create them. */
static int open_output (const char *path)
{
    return open (path, O_WRONLY | O_CREAT | O_APPEND | O_NOCTTY | O_CLOEXEC, 0666);
}

static void child_stdio (const struct launch_req *req, const char *out_path,
                         const char *err_path, char **envp, int fd)
{
    int out, errf, in = open ("/dev/null", O_RDONLY);
    int join = req->spec.join;
    const char *out_file = join == JOIN_EO ? err_path : out_path;

    out = open_output (out_file);
    if (out < 0)
        child_fail (fd, envp, "cannot open output file", out_file);
    errf = join != JOIN_NONE ? out : open_output (err_path);
    if (errf < 0)
        child_fail (fd, envp, "cannot open error file", err_path);
    if (in < 0 || dup2 (in, 0) < 0 || dup2 (out, 1) < 0 || dup2 (errf, 2) < 0)
        child_fail (fd, envp, "cannot set up", "stdio");
}

/* In the child, as the owner: the checkpoint folder, made if missing (its
 * parents too, 0700), and then it must be the owner's own folder: a
 * symlink or someone else's folder planted under its name (a shared
 * checkpoint_root is world-writable) is refused. */
static void child_ckpt_dir (const struct launch_req *req, char **envp, int fd)
{
    struct stat st;

    if (util_mkdir_p (req->ckpt_dir) < 0 && errno != EEXIST)
        child_fail (fd, envp, "cannot create checkpoint folder", req->ckpt_dir);
    if (lstat (req->ckpt_dir, &st) < 0)
        child_fail (fd, envp, "cannot create checkpoint folder", req->ckpt_dir);
    if (!S_ISDIR (st.st_mode) || st.st_uid != geteuid ()) {
        errno = EPERM;
        child_fail (fd, envp, "checkpoint folder is not the job owner's own folder",
                    req->ckpt_dir);
    }
}

/* The job's GPUs for its container, as "INDEX:/dev/nvidiaN" items (none
 * for a simulated GPU: it has no device), and whether they are simulated:
 * hpcq-container writes the CDI spec of exactly these. */
static void container_gpus (const struct launch_req *req, const struct launch_env *e,
                            char **envp, int *n)
{
    char list[1024] = "";
    size_t o = 0;
    int simulated = 0;

    for (int i = 0; i < req->ngpus; i++) {
        const struct gpu *g;
        if (req->gpus[i] < 0 || req->gpus[i] >= e->ngpus)
            continue;
        g = &e->gpus[req->gpus[i]];
        simulated |= g->simulated;
        if (o >= sizeof (list))
            break;
        if (g->minor >= 0)
            o += (size_t)snprintf (list + o, sizeof (list) - o, "%s%d:/dev/nvidia%d",
                                   o ? "," : "", req->gpus[i], g->minor);
        else
            o += (size_t)snprintf (list + o, sizeof (list) - o, "%s%d:", o ? "," : "",
                                   req->gpus[i]);
    }
    if (!list[0])
        return;
    env_add (envp, n, "HPCQ_CONTAINER_GPUS", "%s", list);
    if (simulated)
        env_add (envp, n, "HPCQ_CONTAINER_GPUS_SIMULATED", "1");
}

/* A container job: hpcq-container, as the owner, runs the script inside
 * the image (container.h); what it needs comes in its environment. */
static void child_container (const struct launch_req *req, const struct launch_env *e,
                             const char *script, char **envp, int fd)
{
    const struct hpcq_resources *res = &req->spec.res;
    int n = 0;

    while (envp[n])
        n++;
    env_add (envp, &n, "HPCQ_CONTAINER_IMAGE", "%s", res->container_image);
    if (res->container_mounts)
        env_add (envp, &n, "HPCQ_CONTAINER_MOUNTS", "%s", res->container_mounts);
    if (res->container_workdir)
        env_add (envp, &n, "HPCQ_CONTAINER_WORKDIR", "%s", res->container_workdir);
    container_gpus (req, e, envp, &n);
    envp[n] = NULL;
    execve (e->container_helper, (char *[]){ "hpcq-container", (char *)script, NULL },
            envp);
    child_fail (fd, envp, "cannot execute", e->container_helper);
}

/* Slurm's SLURM_JOB_STDOUT and SLURM_JOB_STDERR (Slurm 22.05 on; Parsl's
 * SrunLauncher writes beside the first), once the child has resolved the
 * paths: appended to envp (which child_fail frees). */
static void child_slurm_stdio (const struct launch_req *req, char **envp,
                               const char *out, const char *err)
{
    int n = 0;

    if (!req->spec.slurm)
        return;
    while (envp[n])
        n++;
    if (n + 3 >= ENV_MAX)
        return;
    env_add (envp, &n, "SLURM_JOB_STDOUT", "%s", out);
    env_add (envp, &n, "SLURM_JOB_STDERR", "%s", req->spec.join == JOIN_OE ? out : err);
    envp[n] = NULL;
}

/* A job that says it checkpoints (-c s, c, w or auto) has its folder made
 * before it starts; another finds $HPCQ_CHECKPOINT_DIR not made until it
 * writes a checkpoint (common/ckptfile.c makes it, with the same check of
 * its owner; a script makes it with mkdir -p).  Most jobs never do: their
 * submit folders stay free of .hpcq (issue 27) and their start is a mkdir
 * shorter (issue 22). */
static int wants_ckpt_dir (const struct launch_req *req)
{
    struct ckptspec ck;
    struct hpcq_error err;

    return req->spec.checkpoint && ckptspec_parse (req->spec.checkpoint, &ck, &err) == 0
           && ck.mode != CKPT_UNSET && ck.mode != CKPT_NEVER;
}

/* qsub -k o|e (without d): PBS Pro keeps that file in the owner's home
 * directory, as NAME.oNUM (NAME.eNUM), instead of where -o/-e say. */
static void keep_in_home (const struct launch_req *req, const struct launch_env *e,
                          char kind, char *buf, int len)
{
    const char *keep = req->spec.keep_files;
    char std[4096];

    if (!keep || !strchr (keep, kind) || strchr (keep, 'd') || !e->cred
        || !e->cred->home[0])
        return;
    launch_resolve_output (req, NULL, kind, std, sizeof (std));
    snprintf (buf, len, "%s/%s", e->cred->home, strrchr (std, '/') + 1);
}

/* Everything from here on that touches a path the user named runs after
 * privsep_drop(): the stat in launch_resolve_output, the checkpoint
 * directory, the output files. */
static void child_exec (const struct launch_req *req, const struct launch_env *e,
                        const char *script, char **envp, int fd, int make_ckpt)
{
    char out_path[4096], err_path[4096];
    sigset_t none;

    /* The worker blocks signals for its signalfd; the job must not inherit
     * that, nor ignored SIGPIPE. */
    sigemptyset (&none);
    sigprocmask (SIG_SETMASK, &none, NULL);
    signal (SIGPIPE, SIG_DFL);
    if (setsid () < 0)
        child_fail (fd, envp, "setsid", "");
    if (e->cg && cgroup_job_enter (e->cg) < 0)
        child_fail (fd, envp, "cannot enter cgroup", cgroup_job_path (e->cg));
    if (e->cred && privsep_drop (e->cred) < 0)
        child_fail (fd, envp, "cannot become user", req->owner);
    umask (req->spec.umask >= 0 ? (mode_t)req->spec.umask : LAUNCH_DEFAULT_UMASK);
    if (req->sandbox[0] && sandbox_make (req->sandbox) < 0)
        child_fail (fd, envp, "cannot create sandbox", req->sandbox);
    if (chdir (req->sandbox[0] ? req->sandbox : req->spec.workdir) < 0)
        child_fail (fd, envp, "cannot enter working directory", req->spec.workdir);
    launch_resolve_output (req, req->spec.output_path, 'o', out_path,
                           sizeof (out_path));
    launch_resolve_output (req, req->spec.error_path, 'e', err_path, sizeof (err_path));
    keep_in_home (req, e, 'o', out_path, sizeof (out_path));
    keep_in_home (req, e, 'e', err_path, sizeof (err_path));
    /* Where stdout and stderr go, -j counted: the worker's notes go where
     * stderr does. */
    child_say (fd, 'O', req->spec.join == JOIN_EO ? err_path : out_path);
    child_say (fd, 'E', req->spec.join == JOIN_OE ? out_path : err_path);
    if (make_ckpt)
        child_ckpt_dir (req, envp, fd);
    child_slurm_stdio (req, envp, out_path, err_path);
    child_stdio (req, out_path, err_path, envp, fd);
    if (req->spec.stagein) {
        char why[4400];
        if (stage_in (req->spec.stagein, req->spec.workdir, why, sizeof (why)) < 0) {
            child_say (fd, 'X', why);
            launch_environ_free (envp);
            _exit (127);
        }
    }
    if (req->spec.res.container_image)
        child_container (req, e, script, envp, fd);
    /* qsub -S: PBS Pro runs "SHELL SCRIPT", whatever the #! line says. */
    if (req->spec.shell)
        execve (req->spec.shell, (char *[]){ req->spec.shell, (char *)script, NULL },
                envp);
    else if (strncmp (req->spec.script, "#!", 2) == 0)
        execve (script, (char *[]){ (char *)script, NULL }, envp);
    else
        execve ("/bin/sh", (char *[]){ "sh", (char *)script, NULL }, envp);
    child_fail (fd, envp, "cannot execute", req->spec.shell ? req->spec.shell : script);
}

static void status_parse (struct launch_status *st)
{
    st->buf[st->len < sizeof (st->buf) ? st->len : sizeof (st->buf) - 1] = '\0';
    for (size_t o = 0; o < st->len;) {
        const char *rec = st->buf + o;
        size_t n = strlen (rec);
        if (rec[0] == 'O')
            snprintf (st->stdout_path, sizeof (st->stdout_path), "%s", rec + 1);
        else if (rec[0] == 'E')
            snprintf (st->stderr_path, sizeof (st->stderr_path), "%s", rec + 1);
        else if (rec[0] == 'X')
            snprintf (st->error, sizeof (st->error), "%s", rec + 1);
        o += n + 1;
    }
}

int launch_status_read (int fd, struct launch_status *st)
{
    char chunk[4096];
    ssize_t n;

    for (;;) {
        n = read (fd, chunk, sizeof (chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return 0;
        if (n <= 0)
            break;
        /* More than the records can hold is not from our child. */
        size_t room = sizeof (st->buf) - 1 - st->len;
        memcpy (st->buf + st->len, chunk, (size_t)n < room ? (size_t)n : room);
        st->len += (size_t)n < room ? (size_t)n : room;
    }
    status_parse (st);
    return n < 0 ? -1 : 1;
}

pid_t launch_start (struct launch_req *req, const struct launch_env *e, int *status_fd,
                    struct hpcq_error *err)
{
    char script[4096], nodes[4096];
    char **envp;
    int pfd[2], make_ckpt = wants_ckpt_dir (req);
    pid_t pid;

    if (req->spec.sandbox && strcmp (req->spec.sandbox, "PRIVATE") == 0
        && sandbox_path (e->jobdir_root, geteuid () == 0 ? (uid_t)req->uid : geteuid (),
                         req->jobid, req->sandbox, sizeof (req->sandbox))
               < 0)
        return errprintf (err, "cannot name a sandbox for %s: %s", req->jobid,
                          strerror (errno));
    /* A scheduler that names no folder: the one in the job's workdir. */
    if (!req->ckpt_dir[0]
        && snprintf (req->ckpt_dir, sizeof (req->ckpt_dir), "%s/.hpcq/checkpoints/%s",
                     req->spec.workdir, req->uuid)
               >= (int)sizeof (req->ckpt_dir))
        return errprintf (err, "checkpoint folder path too long");
    if (launch_spool (req, e, script, nodes, sizeof (script), err) < 0)
        return -1;
    if (pipe2 (pfd, O_CLOEXEC) < 0)
        return errprintf (err, "pipe: %s", strerror (errno));
    envp = launch_environ (req, e, nodes);
    if ((pid = fork ()) < 0) {
        int saved = errno;
        close (pfd[0]);
        close (pfd[1]);
        launch_environ_free (envp);
        errno = saved;
        return errprintf (err, "fork: %s", strerror (saved));
    }
    if (pid == 0) {
        close (pfd[0]);
        child_exec (req, e, script, envp, pfd[1], make_ckpt);
    }
    close (pfd[1]);
    launch_environ_free (envp);
    (void)fcntl (pfd[0], F_SETFL, O_NONBLOCK);
    *status_fd = pfd[0];
    launch_record_session (e->spool, req, pid);
    return pid;
}

/* The nodefile's hosts, each once, in order; *ppn: lines of the first. */
static int nodefile_hosts (const struct launch_req *req, const char **hosts, int *ppn)
{
    int k = 0;

    *ppn = 0;
    for (int i = 0; i < req->nnodefile; i++) {
        int seen = 0;
        for (int j = 0; j < k && !seen; j++)
            seen = strcmp (hosts[j], req->nodefile[i]) == 0;
        if (!seen)
            hosts[k++] = req->nodefile[i];
        if (strcmp (req->nodefile[i], req->nodefile[0]) == 0)
            (*ppn)++;
    }
    return k;
}

/* Slurm's SLURM_TASKS_PER_NODE: "2(x3),1", the tasks on each node. */
static void tasks_per_node (const struct launch_req *req, const char **hosts, int nh,
                            char *buf, size_t len)
{
    size_t o = 0;

    buf[0] = '\0';
    for (int i = 0; i < nh;) {
        int c = 0, reps = 1;
        for (int l = 0; l < req->nnodefile; l++)
            c += strcmp (req->nodefile[l], hosts[i]) == 0;
        while (i + reps < nh) {
            int d = 0;
            for (int l = 0; l < req->nnodefile; l++)
                d += strcmp (req->nodefile[l], hosts[i + reps]) == 0;
            if (d != c)
                break;
            reps++;
        }
        o += snprintf (buf + o, o < len ? len - o : 0, reps > 1 ? "%s%d(x%d)" : "%s%d",
                       o ? "," : "", c, reps);
        i += reps;
    }
}

/* Slurm's array variables beyond the task's own index. */
static void env_slurm_array (char **envp, int *n, const struct launch_req *req)
{
    struct arrayspec a;

    if (req->array_index < 0 || !req->spec.array
        || arrayspec_parse (req->spec.array, &a, NULL) < 0)
        return;
    if (a.n > 0) {
        env_add (envp, n, "SLURM_ARRAY_TASK_MIN", "%d", arrayspec_index (&a, 0));
        env_add (envp, n, "SLURM_ARRAY_TASK_MAX", "%d", arrayspec_index (&a, a.n - 1));
        env_add (envp, n, "SLURM_ARRAY_TASK_COUNT", "%d", a.n);
    }
    arrayspec_release (&a);
}

/* The position of the subjob's index in its array (0 if unknown). */
static int array_pos (const struct launch_req *req)
{
    struct arrayspec a;
    int pos = 0;

    if (req->spec.array && arrayspec_parse (req->spec.array, &a, NULL) == 0) {
        pos = arrayspec_pos (&a, req->array_index);
        arrayspec_release (&a);
    }
    return pos > 0 ? pos : 0;
}

/* Slurm's variables, for a job in Slurm's dialect. */
static void env_slurm (char **envp, int *n, const struct launch_req *req,
                       const struct launch_env *e, const char **hosts, int nh, int ppn)
{
    const struct hpcq_jobspec *s = &req->spec;
    const char *subdir = jobspec_getenv (s, "PBS_O_WORKDIR");
    char id[64], list[8192], tpn[1024], gpus[256] = "";
    size_t o = 0;

    /* A task of array N has a number of its own, N + its position (the
     * scheduler keeps them for it), as sbatch numbers array tasks. */
    if (req->array_index >= 0)
        snprintf (id, sizeof (id), "%lld", (long long)req->number + array_pos (req));
    else
        snprintf (id, sizeof (id), "%lld", (long long)req->number);
    hostlist_format (hosts, nh, list, sizeof (list));
    tasks_per_node (req, hosts, nh, tpn, sizeof (tpn));
    env_add (envp, n, "SLURM_JOB_ID", "%s", id);
    env_add (envp, n, "SLURM_JOBID", "%s", id);
    env_add (envp, n, "SLURM_JOB_NAME", "%s", s->name);
    env_add (envp, n, "SLURM_SUBMIT_DIR", "%s", subdir ? subdir : s->workdir);
    env_add (envp, n, "SLURM_SUBMIT_HOST", "%s", s->submit_host ? s->submit_host : "");
    env_add (envp, n, "SLURM_JOB_PARTITION", "%s", req->queue);
    env_add (envp, n, "SLURM_CLUSTER_NAME", "%s", req->server);
    env_add (envp, n, "SLURM_JOB_USER", "%s", req->owner);
    env_add (envp, n, "SLURM_JOB_UID", "%lld", (long long)req->uid);
    if (s->account)
        env_add (envp, n, "SLURM_JOB_ACCOUNT", "%s", s->account);
    env_add (envp, n, "SLURM_JOB_NUM_NODES", "%d", nh);
    env_add (envp, n, "SLURM_NNODES", "%d", nh);
    env_add (envp, n, "SLURM_JOB_NODELIST", "%s", list);
    env_add (envp, n, "SLURM_NODELIST", "%s", list);
    env_add (envp, n, "SLURMD_NODENAME", "%s", e->node_name);
    env_add (envp, n, "SLURM_NTASKS", "%d", req->nnodefile);
    env_add (envp, n, "SLURM_NPROCS", "%d", req->nnodefile);
    env_add (envp, n, "SLURM_TASKS_PER_NODE", "%s", tpn);
    if (!strchr (tpn, ','))
        env_add (envp, n, "SLURM_NTASKS_PER_NODE", "%d", ppn);
    if (ppn > 0 && req->ncpus % ppn == 0)
        env_add (envp, n, "SLURM_CPUS_PER_TASK", "%d", req->ncpus / ppn);
    env_add (envp, n, "SLURM_CPUS_ON_NODE", "%d", req->ncpus);
    /* sbatch's chunks are alike: each node has the first one's cores. */
    if (nh > 1)
        env_add (envp, n, "SLURM_JOB_CPUS_PER_NODE", "%d(x%d)", req->ncpus, nh);
    else
        env_add (envp, n, "SLURM_JOB_CPUS_PER_NODE", "%d", req->ncpus);
    env_add (envp, n, "SLURM_JOB_START_TIME", "%lld", (long long)time (NULL));
    if (req->walltime > 0)
        env_add (envp, n, "SLURM_JOB_END_TIME", "%lld",
                 (long long)time (NULL) + (long long)req->walltime);
    if (req->mem > 0)
        env_add (envp, n, "SLURM_MEM_PER_NODE", "%lld", (long long)(req->mem >> 20));
    env_add (envp, n, "SLURM_GPUS_ON_NODE", "%d", req->ngpus);
    for (int g = 0; g < req->ngpus; g++)
        o += snprintf (gpus + o, o < sizeof (gpus) ? sizeof (gpus) - o : 0, "%s%d",
                       g ? "," : "", req->gpus[g]);
    if (req->ngpus > 0)
        env_add (envp, n, "SLURM_JOB_GPUS", "%s", gpus);
    env_add (envp, n, "SLURM_NODEID", "0");
    env_add (envp, n, "SLURM_PROCID", "0");
    env_add (envp, n, "SLURM_LOCALID", "0");
    env_slurm_array (envp, n, req);
}

/* What Torque's and Slurm's scripts read.  Torque's are set for every job
 * (PBS scripts from Torque read them, and no library acts on them);
 * Slurm's only for jobs in Slurm's dialect: Open MPI, for one, switches to
 * launching through srun when it sees SLURM_JOBID (docs/compat.md). */
static void launch_env_compat (char **envp, int *n, const struct launch_req *req,
                               const struct launch_env *e)
{
    const char **hosts = xzalloc ((req->nnodefile + 1) * sizeof (*hosts));
    int ppn, nh = nodefile_hosts (req, hosts, &ppn);

    env_add (envp, n, "PBS_NUM_NODES", "%d", nh);
    env_add (envp, n, "PBS_NUM_PPN", "%d", ppn);
    env_add (envp, n, "PBS_NP", "%d", req->nnodefile);
    if (req->sandbox[0]) {
        env_add (envp, n, "PBS_JOBDIR", "%s", req->sandbox);
        env_add (envp, n, "TMPDIR", "%s", req->sandbox);
    }
    if (req->spec.slurm)
        env_slurm (envp, n, req, e, hosts, nh, ppn);
    free (hosts);
}
