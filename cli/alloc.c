/* alloc.c - see alloc.h */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/alloc.h"
#include "cli/slurm.h"
#include "common/util.h"

/* The sbatch next to this program (the build tree, or the install's bin). */
static void sbatch_path (char *buf, size_t len)
{
    char self[PATH_MAX - 16];
    ssize_t n = readlink ("/proc/self/exe", self, sizeof (self) - 1);
    char *slash;

    snprintf (buf, len, "sbatch");
    if (n <= 0)
        return;
    self[n] = '\0';
    if ((slash = strrchr (self, '/'))) {
        *slash = '\0';
        snprintf (buf, len, "%s/sbatch", self);
        if (access (buf, X_OK) != 0)
            snprintf (buf, len, "sbatch");
    }
}

static void copy_out (const char *path, int fd)
{
    char buf[65536];
    ssize_t n;
    int in = open (path, O_RDONLY | O_CLOEXEC);

    if (in < 0)
        return;
    while ((n = read (in, buf, sizeof (buf))) > 0)
        (void)util_write_all (fd, buf, n);
    close (in);
    (void)unlink (path);
}

/* The job's number from sbatch --parsable's line ("N" or "N;cluster"),
 * once it is there; the pipe is closed when read. */
static void read_jobid (int *fd, char *id, size_t len)
{
    size_t o = strlen (id);
    ssize_t n;

    while (o + 1 < len && (n = read (*fd, id + o, len - 1 - o)) > 0)
        o += n;
    id[o] = '\0';
    id[strcspn (id, ";\n")] = '\0';
    close (*fd);
    *fd = -1;
}

/* Whether job id runs (or ran). */
static int job_started (const char *prog, const char *id)
{
    char pbs[128];
    json_t *jobs, *job;
    const char *k;
    int started = 0;

    slurm_to_pbs_id (id, pbs, sizeof (pbs));
    jobs = slurm_jobs (prog, json_pack ("[s]", pbs), 1);
    json_object_foreach (jobs, k, job) started |=
        strcmp (slurm_state (job), "PENDING") != 0;
    json_decref (jobs);
    return started;
}

/* Wait for sbatch (pid), saying "Granted" when the job starts. */
static int wait_announcing (const char *prog, pid_t pid, int idfd, int *status,
                            char *id, size_t len)
{
    int granted = 0;
    pid_t r;

    read_jobid (&idfd, id, len);
    while ((r = waitpid (pid, status, WNOHANG)) == 0) {
        if (id[0] && !granted && (granted = job_started (prog, id)))
            fprintf (stderr, "salloc: Granted job allocation %s\n", id);
        usleep (500 * 1000);
    }
    if (r < 0)
        return -1;
    if (id[0] && !granted)
        fprintf (stderr, "salloc: Granted job allocation %s\n", id);
    return id[0] ? 1 : 0;
}

int alloc_run (const char *prog, const char *const *opts, const char *wrap,
               int announce)
{
    int idp[2] = { -1, -1 }, said = 0;
    char idbuf[64] = "";
    char sbatch[PATH_MAX + 16], out[64], err[80];
    const char **av;
    int n = 0, k = 0, status, fdo, fde;
    pid_t pid;

    snprintf (out, sizeof (out), ".%s-XXXXXX", prog);
    if ((fdo = mkstemp (out)) < 0) {
        fprintf (stderr, "%s: error: cannot make a file in the working directory: %s\n",
                 prog, strerror (errno));
        return 1;
    }
    snprintf (err, sizeof (err), "%s.err", out);
    if ((fde = open (err, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
        fprintf (stderr, "%s: error: %s: %s\n", prog, err, strerror (errno));
        (void)unlink (out);
        return 1;
    }
    close (fdo);
    close (fde);
    while (opts[k])
        k++;
    av = xzalloc ((k + 16) * sizeof (char *));
    sbatch_path (sbatch, sizeof (sbatch));
    av[n++] = sbatch;
    av[n++] = "--wait";
    av[n++] = "--parsable";
    av[n++] = "--export=ALL";
    for (int i = 0; i < k; i++)
        av[n++] = opts[i];
    av[n++] = "-o";
    av[n++] = out;
    av[n++] = "-e";
    av[n++] = err;
    av[n++] = "--wrap";
    av[n++] = wrap;
    av[n] = NULL;
    if (announce && pipe2 (idp, O_CLOEXEC) < 0)
        announce = 0;
    if ((pid = fork ()) == 0) {
        /* sbatch's number is not ours to print (salloc reads it). */
        int null = announce ? idp[1] : open ("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2 (null, 1);
        execvp (av[0], (char **)av);
        fprintf (stderr, "%s: error: %s: %s\n", prog, av[0], strerror (errno));
        _exit (1);
    }
    free (av);
    if (idp[1] >= 0)
        close (idp[1]);
    if (pid >= 0 && announce)
        said = wait_announcing (prog, pid, idp[0], &status, idbuf, sizeof (idbuf));
    else if (pid >= 0)
        said = waitpid (pid, &status, 0) < 0 ? -1 : 0;
    if (pid < 0 || said < 0) {
        fprintf (stderr, "%s: error: cannot run sbatch: %s\n", prog, strerror (errno));
        return 1;
    }
    copy_out (out, 1);
    copy_out (err, 2);
    if (idbuf[0])
        fprintf (stderr, "salloc: Relinquishing job allocation %s\n", idbuf);
    return WIFEXITED (status) ? WEXITSTATUS (status) : 1;
}
