/* test_idcache.c - users looked up once a minute, not on every call
 * (common/idcache.h).  The real password database of this machine; the
 * link wraps getpwuid_r (to count how often the database is asked) and
 * util_now_ms (to move the clock past the time to live). */
#include <config.h>
#include <errno.h>
#include <pwd.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "common/idcache.h"
#include "common/test/tap.h"

static int asked;
static int64_t skew_ms;

int __real_getpwuid_r (uid_t uid, struct passwd *pw, char *buf, size_t len,
                       struct passwd **res);
int __wrap_getpwuid_r (uid_t uid, struct passwd *pw, char *buf, size_t len,
                       struct passwd **res);
int64_t __real_util_now_ms (void);
int64_t __wrap_util_now_ms (void);

int __wrap_getpwuid_r (uid_t uid, struct passwd *pw, char *buf, size_t len,
                       struct passwd **res)
{
    asked++;
    return __real_getpwuid_r (uid, pw, buf, len, res);
}

int64_t __wrap_util_now_ms (void)
{
    return __real_util_now_ms () + skew_ms;
}

static int has_group (const struct idcache_user *u, gid_t g)
{
    for (int i = 0; i < u->ngroups; i++)
        if (u->groups[i] == g)
            return 1;
    return 0;
}

int main (void)
{
    struct idcache_user u, v;
    char name[64];
    int n;

    plan (NO_PLAN);
    ok (idcache_user (0, &u) == 0 && strcmp (u.name, "root") == 0 && u.gid == 0
            && strcmp (u.group, "root") == 0 && has_group (&u, 0) && u.home[0] == '/',
        "uid 0 is root, group root, with its home (%s)", u.home);
    n = asked;
    ok (n == 1, "the database was asked once (%d)", n);
    ok (idcache_user (0, &v) == 0 && strcmp (v.name, u.name) == 0
            && v.ngroups == u.ngroups && v.groups != u.groups && asked == n,
        "asked again: the same answer, its own copy of the groups, from the cache");
    idcache_user_release (&v);
    idcache_user_name (0, name, sizeof (name));
    ok (strcmp (name, "root") == 0 && asked == n,
        "the name alone comes from the cache too");

    errno = 0;
    ok (idcache_user (3999999, &v) < 0 && errno == ENOENT, "an unknown uid: ENOENT");
    idcache_user_name (3999999, name, sizeof (name));
    ok (strcmp (name, "uid3999999") == 0 && asked == n + 2,
        "its name is uid3999999, and an unknown user is asked for every time");

    skew_ms = (IDCACHE_TTL_S + 1) * 1000LL;
    ok (idcache_user (0, &v) == 0 && asked == n + 3 && strcmp (v.name, "root") == 0,
        "after %d s the entry is stale: asked again", IDCACHE_TTL_S);
    idcache_user_release (&v);
    ok (idcache_user (0, &v) == 0 && asked == n + 3, "and then cached again");
    idcache_user_release (&v);

    idcache_flush ();
    ok (idcache_user (0, &v) == 0 && asked == n + 4, "after a flush: asked again");
    idcache_user_release (&v);
    idcache_forget (0);
    ok (idcache_user (0, &v) == 0 && asked == n + 5, "forgotten: asked again");
    idcache_user_release (&v);
    idcache_user_release (&u);
    ok (u.groups == NULL && u.ngroups == 0, "released: no groups left");
    idcache_flush ();
    return done_testing ();
}
