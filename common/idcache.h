/* idcache.h - who a uid is: the password and group databases, asked once a
 * minute per user rather than on every submission and every launch.
 *
 * With files in nsswitch.conf each getpwuid_r() opens and reads
 * /etc/passwd, and getgrouplist() reads the whole of /etc/group; with LDAP
 * or SSSD each is a round trip.  The scheduler asks for a user's name
 * several times per submission and the worker for a user's groups at every
 * launch, so both go through this cache.  An entry lives IDCACHE_TTL_S
 * (a changed group membership is seen within a minute, as with nscd's
 * default positive time to live of 600 s, and Slurm's GroupUpdateTime of
 * 600 s); unknown users are not cached (a user just added is found at
 * once).  At most IDCACHE_MAX users are kept; past that the table starts
 * again empty.  Thread-safe: the scheduler's loader threads may ask too.
 */
#ifndef HPCQ_COMMON_IDCACHE_H
#define HPCQ_COMMON_IDCACHE_H

#include <sys/types.h>

#define IDCACHE_TTL_S 60
#define IDCACHE_MAX 4096

struct idcache_user {
    uid_t uid;
    gid_t gid; /* primary group */
    char name[64];
    char home[1024];
    char shell[256];
    char group[64]; /* the primary group's name, or its number */
    gid_t *groups;  /* every group of the user, the primary one included */
    int ngroups;
};

/* Fill u (its groups malloc'ed: release with idcache_user_release) for
 * uid.  0, or -1 with errno ENOENT (no such user here) or EOVERFLOW (more
 * than 65,536 groups). */
int idcache_user (uid_t uid, struct idcache_user *u);
void idcache_user_release (struct idcache_user *u);

/* uid's name, or "uid<N>" when the user is unknown. */
void idcache_user_name (uid_t uid, char *buf, int len);

/* Forget uid (a refusal is checked against the database itself). */
void idcache_forget (uid_t uid);

/* Forget everything (SIGHUP; tests). */
void idcache_flush (void);

#endif
