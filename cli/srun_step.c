/* srun_step.c - a job step's number: the next one of its job, counted in
 * a file of the job's owner on the job's first host (where its batch
 * script, and so every srun of it, runs), under a lock, so sruns started
 * at once get numbers of their own.  The directory must be the caller's
 * and closed to others, or the count is not trusted and the step is 0.
 *
 * The step is not recorded by the scheduler yet: squeue -s and sacct do
 * not list steps (docs/compat.md).
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/srun.h"

static int step_dir (char *buf, size_t len)
{
    struct stat st;

    snprintf (buf, len, "/tmp/hpcq-steps.%u", (unsigned)getuid ());
    if (mkdir (buf, 0700) < 0 && errno != EEXIST)
        return -1;
    if (lstat (buf, &st) < 0 || !S_ISDIR (st.st_mode) || st.st_uid != getuid ()
        || (st.st_mode & 077))
        return -1;
    return 0;
}

int srun_step_begin (const char *pbsid, const struct srun_layout *l,
                     const char *nodelist, const char *name)
{
    char dir[128], path[512], buf[32] = "";
    int fd, step = 0;
    ssize_t n;

    (void)l;
    (void)nodelist;
    (void)name;
    if (!pbsid || strchr (pbsid, '/') || step_dir (dir, sizeof (dir)) < 0)
        return 0;
    snprintf (path, sizeof (path), "%s/%s", dir, pbsid);
    if ((fd = open (path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
        return 0;
    if (flock (fd, LOCK_EX) == 0 && (n = pread (fd, buf, sizeof (buf) - 1, 0)) >= 0) {
        buf[n] = '\0';
        step = atoi (buf);
        n = snprintf (buf, sizeof (buf), "%d\n", step + 1);
        if (pwrite (fd, buf, n, 0) != n)
            step = 0;
    }
    close (fd);
    return step;
}

void srun_step_end (const char *pbsid, int step, int rc)
{
    (void)pbsid;
    (void)step;
    (void)rc;
}
