/* spool.c - see spool.h */
#include <config.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "worker/spool.h"

struct spool {
    char path[4096];
    int fd; /* the directory: files are opened relative to it */
};

/* Jobs of other users must pass through every parent: say so if one
 * cannot be (the job would fail with "Permission denied"). */
static void check_parents (const char *path)
{
    char tmp[4096], *slash;
    struct stat st;

    snprintf (tmp, sizeof (tmp), "%s", path);
    while ((slash = strrchr (tmp, '/')) && slash != tmp) {
        *slash = '\0';
        if (stat (tmp, &st) == 0 && !(st.st_mode & S_IXOTH)) {
            log_msg (LOG_WARNING,
                     "spool_dir %s: %s (mode %04o) cannot be passed "
                     "through by other users: their jobs will fail to start",
                     path, tmp, (unsigned)(st.st_mode & 07777));
            return;
        }
    }
}

static int make_parents (const char *path)
{
    char parent[4096], *slash;

    snprintf (parent, sizeof (parent), "%s", path);
    if (!(slash = strrchr (parent, '/')) || slash == parent)
        return 0;
    *slash = '\0';
    return util_mkdir_mode (parent, 0755);
}

struct spool *spool_open (const char *path, struct hpcq_error *err)
{
    struct spool *sp = xzalloc (sizeof (*sp));
    mode_t mode = geteuid () == 0 ? 0711 : 0700;
    struct stat st;

    snprintf (sp->path, sizeof (sp->path), "%s", path);
    sp->fd = -1;
    if (path[0] != '/') {
        errprintf (err, "spool_dir '%s' is not an absolute path", path);
        goto error;
    }
    /* Parents 0755: they hold nothing secret, and users pass through. */
    if (make_parents (path) < 0 || (mkdir (path, mode) < 0 && errno != EEXIST)) {
        errprintf (err, "cannot create spool_dir '%s': %s", path, strerror (errno));
        goto error;
    }
    if ((sp->fd = open (path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
        int saved = errno;
        errprintf (err, "cannot open spool_dir '%s': %s", path,
                   lstat (path, &st) == 0 && S_ISLNK (st.st_mode) ? "it is a symlink"
                                                                  : strerror (saved));
        goto error;
    }
    if (fstat (sp->fd, &st) < 0 || st.st_uid != geteuid ()) {
        errprintf (err, "spool_dir '%s' is owned by uid %u, not by the worker (uid %u)",
                   path, (unsigned)st.st_uid, (unsigned)geteuid ());
        goto error;
    }
    if ((st.st_mode & 07777) != mode && fchmod (sp->fd, mode) < 0) {
        errprintf (err, "cannot set mode %04o on spool_dir '%s': %s", (unsigned)mode,
                   path, strerror (errno));
        goto error;
    }
    if (geteuid () == 0)
        check_parents (path);
    return sp;
error:
    spool_close (sp);
    return NULL;
}

void spool_close (struct spool *sp)
{
    if (!sp)
        return;
    if (sp->fd >= 0)
        close (sp->fd);
    free (sp);
}

const char *spool_dir (const struct spool *sp)
{
    return sp->path;
}

void spool_name (char *buf, size_t len, int64_t seq, int attempt, const char *suffix)
{
    snprintf (buf, len, "%lld.%d.%s", (long long)seq, attempt, suffix);
}

int spool_write (struct spool *sp, const char *name, const char *text, mode_t mode,
                 uid_t uid, gid_t gid, struct hpcq_error *err)
{
    int fd, rc;

    if (unlinkat (sp->fd, name, 0) < 0 && errno != ENOENT)
        return errprintf (err, "cannot remove stale %s/%s: %s", sp->path, name,
                          strerror (errno));
    fd = openat (sp->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                 mode);
    if (fd < 0)
        return errprintf (err, "cannot create %s/%s: %s", sp->path, name,
                          strerror (errno));
    rc = util_write_all (fd, text, strlen (text));
    /* fchmod: the mode must not depend on the worker's umask. */
    if (rc == 0 && fchmod (fd, mode) < 0)
        rc = -1;
    if (rc == 0 && uid != (uid_t)-1 && uid != geteuid () && fchown (fd, uid, gid) < 0)
        rc = -1;
    if (close (fd) < 0)
        rc = -1;
    if (rc < 0) {
        int saved = errno;
        (void)unlinkat (sp->fd, name, 0);
        return errprintf (err, "cannot write %s/%s: %s", sp->path, name,
                          strerror (saved));
    }
    return 0;
}

char *spool_read (struct spool *sp, const char *name, size_t max)
{
    int fd = openat (sp->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    char *text = NULL;

    if (fd < 0)
        return NULL;
    if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == geteuid ())
        text = util_read_fd (fd, max, NULL);
    close (fd);
    return text;
}

void spool_remove (struct spool *sp, const char *name)
{
    (void)unlinkat (sp->fd, name, 0);
}

int spool_foreach (struct spool *sp, const char *suffix,
                   int (*fn) (struct spool *sp, const char *name, void *arg), void *arg)
{
    int dfd = dup (sp->fd), n = 0;
    size_t slen = strlen (suffix);
    struct dirent *de;
    DIR *d;

    if (dfd < 0 || !(d = fdopendir (dfd))) {
        if (dfd >= 0)
            close (dfd);
        return 0;
    }
    rewinddir (d);
    while ((de = readdir (d))) {
        size_t len = strlen (de->d_name);
        if (len > slen && strcmp (de->d_name + len - slen, suffix) == 0)
            n += fn (sp, de->d_name, arg) == 1;
    }
    closedir (d);
    return n;
}
