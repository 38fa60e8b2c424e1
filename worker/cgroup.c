/* cgroup.c - see cgroup.h.  What both back ends share: finding the
 * hierarchies, job directories, listing and signalling their tasks. */
#include <config.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "worker/cgroup_impl.h"

/* A cgroup.procs listing: the task count of a job is small, but a fork
 * bomb's is not; more than this is read in part (and killed in rounds). */
#define PROCS_MAX (1 << 20)

int cg_write (const char *dir, const char *file, const char *fmt, ...)
{
    char path[PATH_MAX + 64], text[256];
    va_list ap;
    int fd, len, rc = 0;

    va_start (ap, fmt);
    len = vsnprintf (text, sizeof (text), fmt, ap);
    va_end (ap);
    snprintf (path, sizeof (path), "%s/%s", dir, file);
    if ((fd = open (path, O_WRONLY | O_CLOEXEC)) < 0)
        return -1;
    if (write (fd, text, len) != len)
        rc = -1;
    if (close (fd) < 0)
        rc = -1;
    return rc;
}

int cg_read (const char *dir, const char *file, char *buf, size_t len)
{
    char path[PATH_MAX + 64];
    ssize_t n;
    int fd;

    snprintf (path, sizeof (path), "%s/%s", dir, file);
    if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    n = read (fd, buf, len - 1);
    close (fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return 0;
}

/* Next line of text, or NULL. */
static const char *next_line (const char *p)
{
    p = strchr (p, '\n');
    return p ? p + 1 : NULL;
}

int64_t cg_read_key (const char *dir, const char *file, const char *key)
{
    char buf[4096];
    size_t klen = strlen (key);

    if (cg_read (dir, file, buf, sizeof (buf)) < 0)
        return -1;
    for (const char *line = buf; line && *line; line = next_line (line))
        if (strncmp (line, key, klen) == 0 && line[klen] == ' ')
            return strtoll (line + klen + 1, NULL, 10);
    return -1;
}

int64_t cg_read_int (const char *dir, const char *file)
{
    char buf[64], *end;
    long long v;

    if (cg_read (dir, file, buf, sizeof (buf)) < 0)
        return -1;
    errno = 0;
    v = strtoll (buf, &end, 10);
    if (errno || end == buf)
        return -1;
    return v;
}

int cg_exists (const char *dir, const char *file)
{
    char path[PATH_MAX + 64];

    snprintf (path, sizeof (path), "%s/%s", dir, file);
    return access (path, F_OK) == 0;
}

static int in_list (const char *list, size_t len, const char *word)
{
    size_t wlen = strlen (word);

    for (const char *p = list; p < list + len;) {
        size_t n = strcspn (p, ",");
        if (n > (size_t)(list + len - p))
            n = list + len - p;
        if (n == wlen && strncmp (p, word, n) == 0)
            return 1;
        p += n + 1;
    }
    return 0;
}

int cgroup_own_path (const char *text, const char *ctrl, char *buf, size_t len)
{
    for (const char *line = text; line && *line; line = next_line (line)) {
        const char *c1 = strchr (line, ':'), *c2, *end;
        if (!c1 || !(c2 = strchr (c1 + 1, ':')))
            continue;
        end = strchr (c2, '\n');
        if (!end)
            end = c2 + strlen (c2);
        int v2 = ctrl[0] == '\0';
        if (v2 ? (c1 - line == 1 && line[0] == '0' && c2 == c1 + 1)
               : in_list (c1 + 1, c2 - c1 - 1, ctrl)) {
            if ((size_t)(end - c2) > len)
                break;
            snprintf (buf, len, "%.*s", (int)(end - c2 - 1), c2 + 1);
            return 0;
        }
    }
    errno = ENOENT;
    return -1;
}

/* Fields of a mountinfo line: root (4th), mount point (5th), and after
 * " - ": the file system type and the super block options. */
struct mountinfo_line {
    char root[PATH_MAX], point[PATH_MAX], type[32], opts[256];
};

static int mountinfo_parse (const char *line, struct mountinfo_line *m)
{
    const char *sep = strstr (line, " - ");
    const char *eol = strchr (line, '\n');

    if (!sep || (eol && sep > eol))
        return -1;
    if (sscanf (line, "%*s %*s %*s %4095s %4095s", m->root, m->point) != 2
        || sscanf (sep + 3, "%31s %*s %255s", m->type, m->opts) != 2)
        return -1;
    return 0;
}

int cgroup_mount_dir (const char *text, const char *ctrl, const char *own, char *buf,
                      size_t len)
{
    struct mountinfo_line m;

    for (const char *line = text; line && *line; line = next_line (line)) {
        size_t rlen;
        if (mountinfo_parse (line, &m) < 0)
            continue;
        if (ctrl[0] ? strcmp (m.type, "cgroup") != 0
                          || !in_list (m.opts, strlen (m.opts), ctrl)
                    : strcmp (m.type, "cgroup2") != 0)
            continue;
        rlen = strcmp (m.root, "/") == 0 ? 0 : strlen (m.root);
        if (strncmp (own, m.root, rlen) != 0 || (own[rlen] != '/' && own[rlen] != '\0'))
            continue; /* a mount of another subtree */
        if ((size_t)snprintf (buf, len, "%s%s", m.point,
                              strcmp (own + rlen, "/") == 0 ? "" : own + rlen)
            >= len)
            break;
        return 0;
    }
    errno = ENOENT;
    return -1;
}

int cg_worker_dir (const char *ctrl, const struct cgroup_conf *conf, char *own_dir,
                   size_t own_len, char *buf, size_t len, struct hpcq_error *err)
{
    char *cg = util_read_file ("/proc/self/cgroup", 1 << 16, NULL);
    char *mi = util_read_file ("/proc/self/mountinfo", 1 << 20, NULL);
    char own[PATH_MAX];
    int rc = -1;

    if (!cg || !mi)
        errprintf (err, "cannot read /proc/self/cgroup or mountinfo: %s",
                   strerror (errno));
    else if (cgroup_own_path (cg, ctrl, own, sizeof (own)) < 0
             || cgroup_mount_dir (mi, ctrl, own, own_dir, own_len) < 0)
        errprintf (err, "no %s%s hierarchy mounted", ctrl[0] ? ctrl : "cgroup2",
                   ctrl[0] ? " cgroup" : "");
    else if ((size_t)snprintf (buf, len, "%s/%s/%s", own_dir, conf->prefix, conf->node)
             >= len)
        errprintf (err, "cgroup path too long under %s", own_dir);
    else
        rc = 0;
    free (cg);
    free (mi);
    return rc;
}

/* The tasks of a job (pids), or NULL with *n -1. */
static pid_t *job_pids (const struct cgroup_job *j, int *n)
{
    char path[PATH_MAX + 32], *text, *p;
    pid_t *pids;
    size_t len;
    int count = 0;

    snprintf (path, sizeof (path), "%s/cgroup.procs", j->dir[0]);
    if (!(text = util_read_file (path, PROCS_MAX, &len))) {
        *n = -1;
        return NULL;
    }
    pids = xzalloc ((len / 2 + 1) * sizeof (pid_t));
    for (p = text; *p;) {
        char *end;
        long v = strtol (p, &end, 10);
        if (end == p)
            break;
        if (v > 0)
            pids[count++] = (pid_t)v;
        p = end;
    }
    free (text);
    *n = count;
    return pids;
}

int cgroup_job_count (const struct cgroup_job *j)
{
    int n;

    free (job_pids (j, &n));
    return n;
}

int cgroup_job_signal (const struct cgroup_job *j, int sig)
{
    int n;
    pid_t *pids = job_pids (j, &n);

    for (int i = 0; i < n; i++)
        (void)kill (pids[i], sig);
    free (pids);
    return n;
}

int cgroup_job_kill (const struct cgroup_job *j)
{
    int n;

    if (j->cg->ops->kill)
        return j->cg->ops->kill (j);
    /* An empty cgroup stays empty (only its tasks' forks enter it), and a
     * freeze is dear: v1's freezer flips a kernel static key on its first
     * frozen cgroup and back on the thaw, patching code on every CPU,
     * twice for each job that ended. */
    if (cgroup_job_count (j) == 0)
        return 0;
    /* Frozen tasks cannot fork; the SIGKILL waits for the thaw. */
    (void)j->cg->ops->freeze (j, 1);
    n = cgroup_job_signal (j, SIGKILL);
    (void)j->cg->ops->freeze (j, 0);
    return n;
}

int cgroup_job_freeze (const struct cgroup_job *j)
{
    return j->cg->ops->freeze (j, 1);
}

int cgroup_job_thaw (const struct cgroup_job *j)
{
    return j->cg->ops->freeze (j, 0);
}

void cgroup_job_usage (const struct cgroup_job *j, struct cgroup_usage *u)
{
    u->cpu_ns = u->mem_peak = -1;
    u->oom_kills = 0;
    j->cg->ops->usage (j, u);
}

const char *cgroup_job_path (const struct cgroup_job *j)
{
    return j->dir[0];
}

int cgroup_job_traversable (const struct cgroup_job *j)
{
    for (int i = 0; i < j->cg->nhier; i++)
        if (chmod (j->dir[i], 0711) < 0)
            return -1;
    return 0;
}

int cgroup_job_enter (const struct cgroup_job *j)
{
    const char *file = j->cg->ops->enter_file;

    for (int i = 0; i < j->cg->nhier; i++)
        if ((file ? cg_write (j->dir[i], file, "0")
                  : cg_write (j->dir[i], "cgroup.procs", "%d", (int)getpid ()))
            < 0)
            return -1;
    return 0;
}

void cgroup_job_free (struct cgroup_job *j)
{
    if (!j)
        return;
    for (int i = 0; i < CGROUP_HIER_MAX; i++)
        free (j->dir[i]);
    free (j);
}

int cgroup_job_destroy (struct cgroup_job *j)
{
    int busy = 0;

    for (int i = j->cg->nhier - 1; i >= 0; i--)
        if (rmdir (j->dir[i]) < 0 && errno != ENOENT)
            busy = 1;
    if (busy) {
        errno = EBUSY;
        return -1;
    }
    cgroup_job_free (j);
    return 0;
}

static struct cgroup_job *job_new (struct cgroups *cg, const char *name)
{
    struct cgroup_job *j = xzalloc (sizeof (*j));

    j->cg = cg;
    snprintf (j->name, sizeof (j->name), "%s", name);
    for (int i = 0; i < cg->nhier; i++) {
        j->dir[i] = xzalloc (PATH_MAX);
        snprintf (j->dir[i], PATH_MAX, "%s/%s", cg->hier[i].dir, name);
    }
    return j;
}

/* Kill until empty and remove, waiting at most about two seconds: for
 * leftovers, at start or replaced, not in the loop's normal course. */
static int job_clear (struct cgroup_job *j)
{
    struct timespec pause = { 0, 10 * 1000 * 1000 };

    for (int round = 0; round < 200; round++) {
        if (cgroup_job_kill (j) <= 0 && cgroup_job_destroy (j) == 0)
            return 0;
        nanosleep (&pause, NULL);
    }
    errno = EBUSY;
    return -1;
}

struct cgroup_job *cgroup_job_create (struct cgroups *cg, const char *name,
                                      const struct cgroup_limits *lim,
                                      struct hpcq_error *err)
{
    struct cgroup_job *j = job_new (cg, name);
    int i;

    if (access (j->dir[0], F_OK) == 0) {
        struct cgroup_job *old = job_new (cg, name);
        if (job_clear (old) < 0) {
            cgroup_job_free (old);
            errprintf (err, "cgroup %s is left over and cannot be emptied", j->dir[0]);
            goto error;
        }
    }
    for (i = 0; i < cg->nhier; i++)
        if (mkdir (j->dir[i], 0755) < 0 && errno != EEXIST) {
            errprintf (err, "cannot create cgroup %s: %s", j->dir[i], strerror (errno));
            goto error;
        }
    if (cg->ops->limits (j, lim, err) < 0)
        goto error;
    return j;
error:
    for (i = cg->nhier - 1; i >= 0; i--)
        (void)rmdir (j->dir[i]);
    cgroup_job_free (j);
    return NULL;
}

int cgroups_sweep (struct cgroups *cg)
{
    DIR *d = opendir (cg->hier[0].dir);
    struct dirent *de;
    int n = 0;

    if (!d)
        return 0;
    while ((de = readdir (d))) {
        if (strncmp (de->d_name, "job_", 4) != 0)
            continue;
        struct cgroup_job *j = job_new (cg, de->d_name);
        if (job_clear (j) < 0)
            cgroup_job_free (j);
        n++;
    }
    closedir (d);
    /* A job cgroup may exist in another hierarchy only (a worker killed
     * while creating one): remove those too, they hold no tasks. */
    for (int i = 1; i < cg->nhier; i++) {
        if (!(d = opendir (cg->hier[i].dir)))
            continue;
        while ((de = readdir (d))) {
            char path[PATH_MAX + 256];
            if (strncmp (de->d_name, "job_", 4) != 0)
                continue;
            snprintf (path, sizeof (path), "%s/%s", cg->hier[i].dir, de->d_name);
            (void)rmdir (path);
        }
        closedir (d);
    }
    return n;
}

int cgroups_kill_jobs (struct cgroups *cg, void (*each) (const char *name, void *arg),
                       void *arg)
{
    struct timespec pause = { 0, 10 * 1000 * 1000 };
    DIR *d = opendir (cg->hier[0].dir);
    struct dirent *de;
    int n = 0;

    if (!d)
        return 0;
    while ((de = readdir (d))) {
        struct cgroup_job *j;
        int hit = 0;
        if (strncmp (de->d_name, "job_", 4) != 0)
            continue;
        j = job_new (cg, de->d_name);
        /* Until empty (a task may fork while the first kill goes out). */
        for (int round = 0; round < 200 && cgroup_job_kill (j) > 0; round++) {
            hit = 1;
            nanosleep (&pause, NULL);
        }
        if (hit && each)
            each (de->d_name, arg);
        n += hit;
        cgroup_job_free (j);
    }
    closedir (d);
    return n;
}

/* PREFIX/NODE belongs to one live worker: a second one (the same config
 * started twice) must not sweep the first one's jobs as leftovers. */
static int cgroups_lock (struct cgroups *cg, struct hpcq_error *err)
{
    cg->lock_fd = open (cg->hier[0].dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cg->lock_fd < 0)
        return errprintf (err, "cannot open %s: %s", cg->hier[0].dir, strerror (errno));
    if (flock (cg->lock_fd, LOCK_EX | LOCK_NB) < 0) {
        int saved = errno;
        close (cg->lock_fd);
        cg->lock_fd = -1;
        if (saved == EWOULDBLOCK)
            return errprintf (err,
                              "%s is in use by another live worker (the same "
                              "cgroup_prefix and node name)",
                              cg->hier[0].dir);
        return errprintf (err, "cannot lock %s: %s", cg->hier[0].dir, strerror (saved));
    }
    return 0;
}

struct cgroups *cgroups_open (const struct cgroup_conf *conf, struct hpcq_error *err)
{
    struct cgroups *cg;
    struct hpcq_error e1;

    if (geteuid () != 0) {
        errprintf (err, "not running as root");
        return NULL;
    }
    if (!conf->prefix[0] || strchr (conf->prefix, '/') || !strcmp (conf->prefix, ".")
        || !strcmp (conf->prefix, "..")) {
        errprintf (err, "invalid cgroup_prefix '%s' (one path component)",
                   conf->prefix);
        return NULL;
    }
    cg = xzalloc (sizeof (*cg));
    if (strcmp (conf->mode, "v1") == 0 || strcmp (conf->mode, "auto") == 0) {
        cg->ops = &cgroup_v1_ops;
        if (cgroup_v1_ops.setup (cg, conf, &e1) == 0)
            return cgroups_lock (cg, err) == 0 ? cg : (free (cg), NULL);
        if (strcmp (conf->mode, "v1") == 0) {
            errprintf (err, "cgroup v1: %s", e1.text);
            goto error;
        }
    }
    if (strcmp (conf->mode, "v2") == 0 || strcmp (conf->mode, "auto") == 0) {
        memset (cg, 0, sizeof (*cg));
        cg->ops = &cgroup_v2_ops;
        if (cgroup_v2_ops.setup (cg, conf, err) == 0)
            return cgroups_lock (cg, err) == 0 ? cg : (free (cg), NULL);
        if (strcmp (conf->mode, "auto") == 0)
            errprintf (err, "cgroup v1: %s; cgroup v2: %s", e1.text, err->text);
        goto error;
    }
    errprintf (err, "invalid cgroup '%s' (want auto, v1, v2 or off)", conf->mode);
error:
    free (cg);
    return NULL;
}

const char *cgroups_describe (const struct cgroups *cg)
{
    return cg->desc;
}

void cgroups_close (struct cgroups *cg)
{
    if (!cg)
        return;
    close (cg->lock_fd);
    for (int i = 0; i < cg->nhier; i++) {
        char *slash;
        if (rmdir (cg->hier[i].dir) < 0)
            continue;
        /* PREFIX goes with its last node. */
        if ((slash = strrchr (cg->hier[i].dir, '/'))) {
            *slash = '\0';
            (void)rmdir (cg->hier[i].dir);
        }
    }
    free (cg);
}
