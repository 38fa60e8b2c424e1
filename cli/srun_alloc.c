/* srun_alloc.c - srun outside a job: as Slurm's srun does, it first makes
 * an allocation and then runs the step in it.  Here the allocation is a
 * job (sbatch --wait, asking for the nodes and tasks srun was given)
 * whose script is this same srun; the step's output is kept in two files
 * of the working directory and printed here when the job ends (not as it
 * comes: docs/compat.md), and the exit code is the step's.
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/srun.h"
#include "common/util.h"

/* s quoted for sh, appended to buf. */
static void sh_quote (char **buf, size_t *len, const char *s)
{
    size_t need = *len + 4 * strlen (s) + 4;

    *buf = xrealloc (*buf, need);
    (*buf)[(*len)++] = '\'';
    for (; *s; s++) {
        if (*s == '\'') {
            memcpy (*buf + *len, "'\\''", 4);
            *len += 4;
        } else
            (*buf)[(*len)++] = *s;
    }
    (*buf)[(*len)++] = '\'';
    (*buf)[(*len)++] = ' ';
    (*buf)[*len] = '\0';
}

/* The sbatch next to this srun (the build tree, or the install's bin). */
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

int srun_alloc_run (int argc, char **argv, const struct srun_opts *o)
{
    char *wrap = NULL, sbatch[PATH_MAX + 16], out[64], err[80], num[7][32];
    const char *av[40];
    size_t wlen = 0;
    int n = 0, status, fdo, fde;
    pid_t pid;

    snprintf (out, sizeof (out), ".srun-XXXXXX");
    if ((fdo = mkstemp (out)) < 0) {
        fprintf (stderr,
                 "srun: error: cannot make a file in the working directory: %s\n",
                 strerror (errno));
        return 1;
    }
    snprintf (err, sizeof (err), "%s.err", out);
    if ((fde = open (err, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
        fprintf (stderr, "srun: error: %s: %s\n", err, strerror (errno));
        (void)unlink (out);
        return 1;
    }
    close (fdo);
    close (fde);
    sh_quote (&wrap, &wlen, "srun");
    for (int i = 1; i < argc; i++)
        sh_quote (&wrap, &wlen, argv[i]);
    sbatch_path (sbatch, sizeof (sbatch));
    av[n++] = sbatch;
    av[n++] = "--wait";
    av[n++] = "--parsable";
    av[n++] = "--export=ALL";
#define NUMOPT(i, flag, v)                                    \
    if (v) {                                                  \
        snprintf (num[i], sizeof (num[i]), "%s=%d", flag, v); \
        av[n++] = num[i];                                     \
    }
    NUMOPT (0, "--ntasks", o->req.ntasks);
    NUMOPT (1, "--nodes", o->req.nnodes);
    NUMOPT (2, "--ntasks-per-node", o->req.per_node);
    NUMOPT (3, "--cpus-per-task", o->cpus_per_task);
#undef NUMOPT
    if (o->job_name)
        av[n++] = "-J", av[n++] = o->job_name;
    else
        av[n++] = "-J", av[n++] = o->argv[0];
    if (o->partition)
        av[n++] = "-p", av[n++] = o->partition;
    if (o->time)
        av[n++] = "-t", av[n++] = o->time;
    if (o->account)
        av[n++] = "-A", av[n++] = o->account;
    if (o->mem)
        av[n++] = "--mem", av[n++] = o->mem;
    av[n++] = "-o";
    av[n++] = out;
    av[n++] = "-e";
    av[n++] = err;
    av[n++] = "--wrap";
    av[n++] = wrap;
    av[n] = NULL;
    if ((pid = fork ()) == 0) {
        /* sbatch's "Submitted" number is not srun's to print. */
        int null = open ("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2 (null, 1);
        execvp (av[0], (char **)av);
        fprintf (stderr, "srun: error: %s: %s\n", av[0], strerror (errno));
        _exit (1);
    }
    free (wrap);
    if (pid < 0 || waitpid (pid, &status, 0) < 0) {
        fprintf (stderr, "srun: error: cannot run sbatch: %s\n", strerror (errno));
        return 1;
    }
    copy_out (out, 1);
    copy_out (err, 2);
    return WIFEXITED (status) ? WEXITSTATUS (status) : 1;
}
