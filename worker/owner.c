/* owner.c - see owner.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "worker/owner.h"

/* In the child: become uid, or exit. */
static void become (uid_t uid)
{
    struct passwd pw, *res = NULL;
    char buf[4096];

    if (geteuid () != 0 || uid == 0)
        return;
    if (getpwuid_r (uid, &pw, buf, sizeof (buf), &res) != 0 || !res
        || initgroups (pw.pw_name, pw.pw_gid) < 0 || setgid (pw.pw_gid) < 0
        || setuid (uid) < 0)
        _exit (126);
}

pid_t owner_run (uid_t uid, void (*fn) (void *arg), void *arg)
{
    pid_t pid = fork ();
    sigset_t none;

    if (pid != 0)
        return pid;
    sigemptyset (&none);
    sigprocmask (SIG_SETMASK, &none, NULL);
    become (uid);
    fn (arg);
    _exit (0);
}

struct append {
    const char *path, *line;
};

static void do_append (void *arg)
{
    const struct append *a = arg;
    int fd = open (a->path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);

    if (fd < 0)
        _exit (1);
    if (util_write_all (fd, a->line, strlen (a->line)) < 0 || util_write_all (fd, "\n", 1) < 0)
        _exit (1);
    close (fd);
}

int owner_append (uid_t uid, const char *path, const char *line)
{
    struct append a = { path, line };

    return owner_run (uid, do_append, &a) < 0 ? -1 : 0;
}
