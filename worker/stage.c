/* stage.c - see stage.h */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/stage.h"
#include "common/util.h"
#include "worker/stage.h"

/* dir/path, or path if it is absolute.  0, or -1 with errno
 * ENAMETOOLONG. */
static int join (const char *dir, const char *path, char *buf, size_t len)
{
    int n = path[0] == '/' || !dir ? snprintf (buf, len, "%s", path)
                                   : snprintf (buf, len, "%s/%s", dir, path);

    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* Copy the regular file from to to (created 0600 less the umask, or
 * truncated).  0 or -1 with errno. */
static int copy_file (const char *from, const char *to)
{
    int in = open (from, O_RDONLY | O_CLOEXEC | O_NOCTTY), out = -1, rc = -1;
    struct stat st;
    char buf[65536];
    ssize_t n;

    if (in < 0)
        return -1;
    if (fstat (in, &st) < 0 || !S_ISREG (st.st_mode)) {
        errno = S_ISDIR (st.st_mode) ? EISDIR : EINVAL;
        goto done;
    }
    if ((out = open (to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0666))
        < 0)
        goto done;
    while ((n = read (in, buf, sizeof (buf))) > 0)
        if (util_write_all (out, buf, (size_t)n) < 0)
            goto done;
    rc = n < 0 ? -1 : 0;
done:
    if (out >= 0 && close (out) < 0)
        rc = -1;
    close (in);
    return rc;
}

int stage_in (const char *list, const char *submit_dir, char *buf, size_t len)
{
    struct stage_file f[STAGE_MAX];
    struct hpcq_error err;
    char from[2048];
    int n = stage_parse (list, f, STAGE_MAX, &err);

    if (n < 0) {
        snprintf (buf, len, "stagein: %s", err.text);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (join (submit_dir, f[i].remote, from, sizeof (from)) < 0
            || copy_file (from, f[i].local) < 0) {
            snprintf (buf, len, "stagein of %s to %s failed: %s", from, f[i].local,
                      strerror (errno));
            return -1;
        }
    }
    return 0;
}

/* A line in the job's error file, as its owner (this helper is). */
static void note (const char *path, const char *text)
{
    int fd =
        path && path[0] ? open (path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY) : -1;

    if (fd < 0)
        return;
    (void)util_write_all (fd, text, strlen (text));
    close (fd);
}

int stage_out (void *arg)
{
    const struct stage_out_req *r = arg;
    struct stage_file f[STAGE_MAX];
    struct hpcq_error err;
    char from[2048] = "", to[2048] = "", line[4400];
    int n = stage_parse (r->list, f, STAGE_MAX, &err), failed = 0;

    if (n < 0) {
        snprintf (line, sizeof (line), "=>> PBS: stageout: %s\n", err.text);
        note (r->err_path, line);
        return 1;
    }
    for (int i = 0; i < n; i++) {
        if (join (r->job_dir, f[i].local, from, sizeof (from)) == 0
            && join (r->submit_dir, f[i].remote, to, sizeof (to)) == 0
            && copy_file (from, to) == 0)
            continue;
        snprintf (line, sizeof (line), "=>> PBS: stageout of %s to %s failed: %s\n",
                  from, to, strerror (errno));
        note (r->err_path, line);
        failed++;
    }
    return failed > 255 ? 255 : failed;
}
