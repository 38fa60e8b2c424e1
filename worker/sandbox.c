/* sandbox.c - see sandbox.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <ftw.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "worker/sandbox.h"

int sandbox_path (const char *root, uid_t uid, const char *jobid, char *buf, size_t len)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char rnd[8];
    char tag[sizeof (rnd) + 1], home[4096];

    if (!root || !root[0]) {
        struct passwd pw, *res = NULL;
        char pbuf[4096];
        if (getpwuid_r (uid, &pw, pbuf, sizeof (pbuf), &res) != 0 || !res) {
            errno = ENOENT;
            return -1;
        }
        snprintf (home, sizeof (home), "%s", pw.pw_dir);
        root = home;
    }
    if (getrandom (rnd, sizeof (rnd), 0) != (ssize_t)sizeof (rnd))
        return -1;
    for (size_t i = 0; i < sizeof (rnd); i++)
        tag[i] = letters[rnd[i] % (sizeof (letters) - 1)];
    tag[sizeof (rnd)] = '\0';
    if ((size_t)snprintf (buf, len, "%s/pbs.%s.%s", root, jobid, tag) >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

int sandbox_make (const char *path)
{
    return mkdir (path, 0700);
}

static int remove_one (const char *path, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)f;
    if (flag == FTW_DP)
        (void)rmdir (path);
    else
        (void)unlink (path);
    return 0;
}

static int remove_tree (void *arg)
{
    /* Depth first, never following links nor leaving the file system. */
    return nftw ((const char *)arg, remove_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT)
                   == 0
               ? 0
               : 1;
}

int sandbox_remove (struct privsep *ps, const struct privsep_cred *c, const char *path)
{
    return privsep_run (ps, c, 0, remove_tree, (void *)path, NULL, NULL);
}
