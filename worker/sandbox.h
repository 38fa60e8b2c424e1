/* sandbox.h - PBS Pro's -W sandbox=PRIVATE: a scratch directory per job.
 *
 * The job runs in a directory of its own, PBS_JOBDIR and TMPDIR, made
 * for it (mode 0700, by the owner) under the worker's jobdir_root, or
 * under the owner's home directory as PBS Pro does when that is unset,
 * and removed with everything in it when the job ends.  Its name carries
 * the job id and random letters, so nobody can make it ahead of the job.
 */
#ifndef HPCQ_WORKER_SANDBOX_H
#define HPCQ_WORKER_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

#include "worker/privsep.h"

/* The directory's path for job jobid of uid: root/pbs.JOBID.XXXXXXXX
 * (root NULL: uid's home).  0, or -1 with errno. */
int sandbox_path (const char *root, uid_t uid, const char *jobid, char *buf,
                  size_t len);

/* In the job's child, already its owner: create it.  0 or -1 with errno. */
int sandbox_make (const char *path);

/* Remove path and all in it as c's user, in the background (a helper of
 * ps, given all the time it needs).  0, or -1 with errno (fork). */
int sandbox_remove (struct privsep *ps, const struct privsep_cred *c, const char *path);

#endif
