/* hpcq-container - run a job's script inside an OCI image (qsub -l
 * container_image=PATH; worker/container.h, docs/containers.md).
 *
 * The worker runs this instead of the script, as the job's owner, in the
 * job's session and cgroup, with the job's stdio and environment:
 *
 *   hpcq-container SCRIPT
 *     HPCQ_CONTAINER_IMAGE=/path/to/layout[:tag]
 *     HPCQ_CONTAINER_MOUNTS=SRC:DST[:ro]+...   (checked by the worker)
 *     HPCQ_CONTAINER_WORKDIR=DIR               (default: the job's folder)
 *
 * It unpacks the image with umoci --rootless into a private bundle,
 * writes the bundle's config.json (the job's folder, script, checkpoint
 * folder, node file and mounts bound in; the job's environment with the
 * image's PATH; the host's hostname and network, for MPI; no rlimits) and
 * runs it with rootless runc: a user namespace that maps only the owner
 * (uid 0 inside), no privilege of ours, and the container's processes
 * stay in the job's cgroup, so limits, accounting and qdel work as for
 * any job.  Exits with the script's status; removes the bundle.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static pid_t child;

static void die (const char *fmt, ...)
    __attribute__ ((format (printf, 1, 2), noreturn));
static void die (const char *fmt, ...)
{
    va_list ap;

    fprintf (stderr, "hpcq-container: ");
    va_start (ap, fmt);
    vfprintf (stderr, fmt, ap);
    va_end (ap);
    fputc ('\n', stderr);
    exit (1);
}

/* runc run passes signals on to the container's processes. */
static void forward (int sig)
{
    if (child > 0)
        kill (child, sig);
}

/* Run argv with stdout to /dev/null (quiet) or the job's; its status. */
static int run (char *const argv[], int quiet)
{
    int status;

    if ((child = fork ()) < 0)
        die ("cannot fork: %s", strerror (errno));
    if (child == 0) {
        if (quiet) {
            int null = open ("/dev/null", O_WRONLY);
            if (null >= 0)
                dup2 (null, 1);
        }
        execvp (argv[0], argv);
        fprintf (stderr, "hpcq-container: cannot run %s: %s\n", argv[0],
                 strerror (errno));
        _exit (127);
    }
    while (waitpid (child, &status, 0) < 0)
        if (errno != EINTR)
            die ("wait: %s", strerror (errno));
    child = 0;
    return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

/* "/path:tag" -> "/path:tag"; "/path" -> "/path:latest" (umoci's form). */
static char *image_ref (const char *image)
{
    const char *slash = strrchr (image, '/');
    char *ref;

    if (slash && strchr (slash, ':'))
        return strdup (image);
    if (asprintf (&ref, "%s:latest", image) < 0)
        return NULL;
    return ref;
}

static void add_bind (json_t *mounts, const char *src, const char *dst, int ro)
{
    json_array_append_new (mounts,
                           json_pack ("{s:s s:s s:s s:[s s s]}", "destination", dst,
                                      "type", "bind", "source", src, "options", "rbind",
                                      ro ? "ro" : "rw", "nosuid"));
}

/* A path from the environment, bound at the same place if it exists. */
static void bind_env (json_t *mounts, const char *var, int ro)
{
    const char *p = getenv (var);

    if (p && p[0] == '/' && access (p, F_OK) == 0)
        add_bind (mounts, p, p, ro);
}

/* HPCQ_CONTAINER_MOUNTS: SRC:DST[:ro] joined by '+' (checked by the worker
 * against container_mount_allow). */
static void bind_user (json_t *mounts, const char *list)
{
    char *copy = strdup (list ? list : ""), *save = NULL;

    for (char *item = strtok_r (copy, "+", &save); item;
         item = strtok_r (NULL, "+", &save)) {
        char *dst = strchr (item, ':'), *mode;
        if (!dst)
            continue;
        *dst++ = '\0';
        if ((mode = strchr (dst, ':')))
            *mode++ = '\0';
        if (access (item, F_OK) < 0)
            die ("container_mounts: %s: %s", item, strerror (errno));
        add_bind (mounts, item, dst, mode && strcmp (mode, "ro") == 0);
    }
    free (copy);
}

/* The image's environment, then the job's over it, but for the paths
 * that name the image's own programs and libraries (PATH, LD_LIBRARY_PATH:
 * the host's would point into nothing, or at the wrong libraries). */
static int image_only (const char *kv)
{
    return strncmp (kv, "PATH=", 5) == 0 || strncmp (kv, "LD_LIBRARY_PATH=", 16) == 0
           || strncmp (kv, "HPCQ_CONTAINER_", 15) == 0;
}

static json_t *job_env (json_t *image_env)
{
    json_t *env = json_deep_copy (image_env ? image_env : json_array ()), *v;
    size_t i;

    for (char **e = environ; *e; e++) {
        const char *eq = strchr (*e, '=');
        int replaced = 0;
        if (!eq || image_only (*e))
            continue;
        json_array_foreach (env, i, v)
        {
            const char *s = json_string_value (v);
            if (s && strncmp (s, *e, (size_t)(eq - *e) + 1) == 0) {
                json_array_set_new (env, i, json_string (*e));
                replaced = 1;
                break;
            }
        }
        if (!replaced)
            json_array_append_new (env, json_string (*e));
    }
    return env;
}

/* Without the uts namespace the container keeps the node's hostname:
 * what the job's node file and MPI expect. */
static void drop_uts (json_t *linux_)
{
    json_t *ns = json_object_get (linux_, "namespaces"), *v;
    size_t i;

    json_array_foreach (ns, i, v)
    {
        if (json_is_string (json_object_get (v, "type"))
            && strcmp (json_string_value (json_object_get (v, "type")), "uts") == 0) {
            json_array_remove (ns, i);
            break;
        }
    }
}

/* Rootless runc makes a cgroup of its own below the one it is in, where
 * it may; in the job's cgroup it may not (the worker's), so it leaves the
 * container's processes there, under the job's limits, accounting and
 * kill.  No cgroupsPath: one runc cannot make is fatal, not ignored. */
static void stay_in_job_cgroup (json_t *linux_)
{
    json_object_del (linux_, "cgroupsPath");
    json_object_del (linux_, "resources");
}

/* The host's NVIDIA driver files a CUDA program in the image needs, where
 * NGC's images look for them (LD_LIBRARY_PATH /usr/local/nvidia/lib64). */
static const char *const driver_libs[] = {
    "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
    "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
    "/usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.1",
};
static const char *const control_nodes[] = { "/dev/nvidiactl", "/dev/nvidia-uvm",
                                             "/dev/nvidia-uvm-tools" };

/* The CDI spec (the Container Device Interface's JSON) of the job's GPUs,
 * HPCQ_CONTAINER_GPUS "INDEX:/dev/nvidiaN,..." ("INDEX:" for a simulated
 * one, which has no device): kind nvidia.com/gpu, or hpcq.simulated/gpu
 * for simulated GPUs so nobody mistakes one for the other. */
static json_t *cdi_spec (void)
{
    const char *gpus = getenv ("HPCQ_CONTAINER_GPUS");
    int sim = getenv ("HPCQ_CONTAINER_GPUS_SIMULATED") != NULL;
    json_t *devices = json_array (), *common_nodes = json_array (),
           *mounts = json_array ();
    char *copy = strdup (gpus ? gpus : ""), *save = NULL;

    for (char *item = strtok_r (copy, ",", &save); item;
         item = strtok_r (NULL, ",", &save)) {
        char *dev = strchr (item, ':');
        json_t *nodes = json_array ();
        if (!dev)
            continue;
        *dev++ = '\0';
        if (dev[0] == '/')
            json_array_append_new (nodes, json_pack ("{s:s}", "path", dev));
        json_array_append_new (devices,
                               json_pack ("{s:s s:{s:o}}", "name", item,
                                          "containerEdits", "deviceNodes", nodes));
    }
    free (copy);
    for (size_t i = 0; !sim && i < sizeof (control_nodes) / sizeof (*control_nodes);
         i++)
        if (access (control_nodes[i], F_OK) == 0)
            json_array_append_new (common_nodes,
                                   json_pack ("{s:s}", "path", control_nodes[i]));
    for (size_t i = 0; !sim && i < sizeof (driver_libs) / sizeof (*driver_libs); i++)
        if (access (driver_libs[i], F_OK) == 0) {
            const char *base = strrchr (driver_libs[i], '/') + 1;
            char dst[256];
            snprintf (dst, sizeof (dst), "/usr/local/nvidia/lib64/%s", base);
            json_array_append_new (mounts, json_pack ("{s:s s:s s:[s s]}", "hostPath",
                                                      driver_libs[i], "containerPath",
                                                      dst, "options", "ro", "bind"));
        }
    return json_pack ("{s:s s:s s:o s:{s:o s:o}}", "cdiVersion", "0.5.0", "kind",
                      sim ? "hpcq.simulated/gpu" : "nvidia.com/gpu", "devices", devices,
                      "containerEdits", "deviceNodes", common_nodes, "mounts", mounts);
}

/* Apply the spec's edits (device nodes and driver files, bound in: a
 * rootless container cannot make device nodes) and put the spec itself at
 * /etc/cdi/hpcq-job.json, read-only, for the job to see what it got. */
static void apply_cdi (const char *bundle, json_t *mounts)
{
    json_t *spec = cdi_spec (), *d, *n;
    char path[4300];
    size_t i, k;

    json_array_foreach (json_object_get (spec, "devices"), i, d)
    {
        json_array_foreach (json_object_get (json_object_get (d, "containerEdits"),
                                             "deviceNodes"),
                            k, n)
        {
            const char *p = json_string_value (json_object_get (n, "path"));
            if (p && access (p, F_OK) == 0)
                add_bind (mounts, p, p, 0);
        }
    }
    json_array_foreach (json_object_get (json_object_get (spec, "containerEdits"),
                                         "deviceNodes"),
                        i, n)
        add_bind (mounts, json_string_value (json_object_get (n, "path")),
                  json_string_value (json_object_get (n, "path")), 0);
    json_array_foreach (json_object_get (json_object_get (spec, "containerEdits"),
                                         "mounts"),
                        i, n)
        add_bind (mounts, json_string_value (json_object_get (n, "hostPath")),
                  json_string_value (json_object_get (n, "containerPath")), 1);
    snprintf (path, sizeof (path), "%s/cdi.json", bundle);
    if (json_dump_file (spec, path, JSON_INDENT (1)) < 0)
        die ("cannot write %s", path);
    add_bind (mounts, path, "/etc/cdi/hpcq-job.json", 1);
    json_decref (spec);
}

static void write_config (const char *bundle, const char *script)
{
    char path[4300], cwd[4096];
    json_error_t jerr;
    json_t *cfg, *proc, *mounts, *args;
    const char *wd = getenv ("HPCQ_CONTAINER_WORKDIR");
    FILE *f;
    char head[2] = "";

    snprintf (path, sizeof (path), "%s/config.json", bundle);
    if (!(cfg = json_load_file (path, 0, &jerr)))
        die ("%s: %s", path, jerr.text);
    if (!getcwd (cwd, sizeof (cwd)))
        die ("cannot read the working folder: %s", strerror (errno));
    proc = json_object_get (cfg, "process");
    mounts = json_object_get (cfg, "mounts");
    if (!json_is_object (proc) || !json_is_array (mounts))
        die ("%s: not a runtime bundle's config", path);
    if ((f = fopen (script, "r"))) {
        if (fread (head, 1, 2, f) != 2)
            head[0] = '\0';
        fclose (f);
    }
    args = strncmp (head, "#!", 2) == 0 ? json_pack ("[s]", script)
                                        : json_pack ("[s s]", "/bin/sh", script);
    json_object_set_new (proc, "args", args);
    json_object_set_new (proc, "terminal", json_false ());
    json_object_set_new (proc, "cwd", json_string (wd ? wd : cwd));
    json_object_set_new (proc, "env", job_env (json_object_get (proc, "env")));
    json_object_del (proc, "rlimits"); /* the job keeps the limits it has */
    json_object_del (cfg, "hostname");
    drop_uts (json_object_get (cfg, "linux"));
    stay_in_job_cgroup (json_object_get (cfg, "linux"));
    add_bind (mounts, cwd, cwd, 0);
    add_bind (mounts, script, script, 1);
    bind_env (mounts, "HPCQ_CHECKPOINT_DIR", 0);
    bind_env (mounts, "PBS_NODEFILE", 1);
    /* The worker's socket for checkpoint reports (common/ckptreport.h):
     * an app inside reports its checkpoints as outside, so a preemption
     * or spot reclaim moves the job once its checkpoint is written. */
    bind_env (mounts, "HPCQ_CKPT_SOCKET", 0);
    bind_user (mounts, getenv ("HPCQ_CONTAINER_MOUNTS"));
    if (getenv ("HPCQ_CONTAINER_GPUS"))
        apply_cdi (bundle, mounts);
    if (json_dump_file (cfg, path, JSON_INDENT (1)) < 0)
        die ("cannot write %s", path);
    json_decref (cfg);
}

static int rm_one (const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return flag == FTW_DP ? rmdir (p) : unlink (p);
}

/* The container's name: the job id, with what runc does not take dropped,
 * and this process's id. */
static void container_name (char *buf, size_t len)
{
    const char *id = getenv ("PBS_JOBID");
    size_t o = (size_t)snprintf (buf, len, "hpcq-");

    for (const char *p = id ? id : "job"; *p && o + 1 < len; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
            || (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == '_')
            buf[o++] = *p;
    /* and this process's id: unique on the node, whatever was left */
    snprintf (buf + o, len - o, "-%ld", (long)getpid ());
}

int main (int argc, char **argv)
{
    const char *image = getenv ("HPCQ_CONTAINER_IMAGE"), *tmp = getenv ("TMPDIR");
    char top[4096], bundle[4200], root[4200], name[160];
    char *ref;
    int rc;

    if (argc != 2 || !image || !image[0])
        die ("usage: hpcq-container SCRIPT (with HPCQ_CONTAINER_IMAGE set)");
    snprintf (top, sizeof (top), "%s/hpcq-container.XXXXXX",
              tmp && tmp[0] == '/' ? tmp : "/tmp");
    if (!mkdtemp (top))
        die ("cannot make a bundle folder: %s", strerror (errno));
    snprintf (bundle, sizeof (bundle), "%s/bundle", top);
    snprintf (root, sizeof (root), "%s/run", top);
    if (!(ref = image_ref (image)))
        die ("out of memory");
    rc = run ((char *const[]){ "umoci", "unpack", "--rootless", "--image", ref, bundle,
                               NULL },
              1);
    free (ref);
    if (rc != 0) {
        fprintf (stderr, "hpcq-container: cannot unpack %s (umoci exit %d)\n", image,
                 rc);
        nftw (top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        return 1;
    }
    container_name (name, sizeof (name));
    write_config (bundle, argv[1]);
    signal (SIGTERM, forward);
    signal (SIGINT, forward);
    signal (SIGHUP, forward);
    signal (SIGUSR1, forward);
    signal (SIGUSR2, forward);
    rc = run ((char *const[]){ "runc", "--root", root, "run", "--bundle", bundle, name,
                               NULL },
              0);
    nftw (top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
}
