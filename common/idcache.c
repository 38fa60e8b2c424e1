/* idcache.c - who a uid is, looked up once a minute (see idcache.h). */
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/idcache.h"
#include "common/util.h"

struct entry {
    struct idcache_user u;
    int64_t expires_ms;
    UT_hash_handle hh;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *table;
static unsigned count;

static void entry_free (struct entry *e)
{
    free (e->u.groups);
    free (e);
}

/* Every group of pw's user, into u (malloc'ed).  0 or -1 (EOVERFLOW). */
static int lookup_groups (const struct passwd *pw, struct idcache_user *u)
{
    int n = 64;

    for (;;) {
        int want = n;
        u->groups = xzalloc (n * sizeof (gid_t));
        if (getgrouplist (pw->pw_name, pw->pw_gid, u->groups, &want) >= 0) {
            u->ngroups = want;
            return 0;
        }
        free (u->groups);
        u->groups = NULL;
        if (want <= n || want > 65536) {
            errno = EOVERFLOW;
            return -1;
        }
        n = want;
    }
}

/* Ask the databases (slow: outside the lock). */
static int lookup (uid_t uid, struct idcache_user *u)
{
    struct passwd pw, *res = NULL;
    struct group gr, *grp = NULL;
    char buf[16384];

    memset (u, 0, sizeof (*u));
    if (getpwuid_r (uid, &pw, buf, sizeof (buf), &res) != 0 || !res) {
        errno = ENOENT;
        return -1;
    }
    u->uid = pw.pw_uid;
    u->gid = pw.pw_gid;
    snprintf (u->name, sizeof (u->name), "%s", pw.pw_name);
    snprintf (u->home, sizeof (u->home), "%s", pw.pw_dir);
    snprintf (u->shell, sizeof (u->shell), "%s", pw.pw_shell);
    if (lookup_groups (&pw, u) < 0)
        return -1;
    if (getgrgid_r (u->gid, &gr, buf, sizeof (buf), &grp) == 0 && grp)
        snprintf (u->group, sizeof (u->group), "%s", gr.gr_name);
    else
        snprintf (u->group, sizeof (u->group), "%u", (unsigned)u->gid);
    return 0;
}

static void copy_out (const struct idcache_user *from, struct idcache_user *to)
{
    *to = *from;
    to->groups = xzalloc ((from->ngroups ? from->ngroups : 1) * sizeof (gid_t));
    memcpy (to->groups, from->groups, from->ngroups * sizeof (gid_t));
}

/* A fresh entry of uid copied to u, under the lock.  1 found, 0 not. */
static int cached (uid_t uid, struct idcache_user *u, int64_t now)
{
    struct entry *e;

    HASH_FIND (hh, table, &uid, sizeof (uid), e);
    if (!e)
        return 0;
    if (e->expires_ms <= now) {
        HASH_DEL (table, e);
        entry_free (e);
        count--;
        return 0;
    }
    copy_out (&e->u, u);
    return 1;
}

static void remember (const struct idcache_user *u, int64_t now)
{
    struct entry *e, *old;

    if (count >= IDCACHE_MAX) {
        HASH_FREE_ALL (table, entry_free);
        count = 0;
    }
    e = xzalloc (sizeof (*e));
    copy_out (u, &e->u);
    e->expires_ms = now + IDCACHE_TTL_S * 1000LL;
    HASH_FIND (hh, table, &e->u.uid, sizeof (e->u.uid), old);
    if (old) { /* another thread looked it up at the same time */
        HASH_DEL (table, old);
        entry_free (old);
        count--;
    }
    HASH_ADD (hh, table, u.uid, sizeof (e->u.uid), e);
    count++;
}

int idcache_user (uid_t uid, struct idcache_user *u)
{
    int64_t now = util_now_ms ();
    int hit;

    pthread_mutex_lock (&lock);
    hit = cached (uid, u, now);
    pthread_mutex_unlock (&lock);
    if (hit)
        return 0;
    if (lookup (uid, u) < 0) {
        int e = errno;
        idcache_user_release (u);
        errno = e;
        return -1;
    }
    pthread_mutex_lock (&lock);
    remember (u, now);
    pthread_mutex_unlock (&lock);
    return 0;
}

void idcache_user_release (struct idcache_user *u)
{
    if (!u)
        return;
    free (u->groups);
    u->groups = NULL;
    u->ngroups = 0;
}

void idcache_user_name (uid_t uid, char *buf, int len)
{
    struct idcache_user u;

    if (idcache_user (uid, &u) == 0)
        snprintf (buf, len, "%s", u.name);
    else
        snprintf (buf, len, "uid%u", (unsigned)uid);
    idcache_user_release (&u);
}

void idcache_forget (uid_t uid)
{
    struct entry *e;

    pthread_mutex_lock (&lock);
    HASH_FIND (hh, table, &uid, sizeof (uid), e);
    if (e) {
        HASH_DEL (table, e);
        entry_free (e);
        count--;
    }
    pthread_mutex_unlock (&lock);
}

void idcache_flush (void)
{
    pthread_mutex_lock (&lock);
    HASH_FREE_ALL (table, entry_free);
    count = 0;
    pthread_mutex_unlock (&lock);
}
