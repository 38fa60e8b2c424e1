/* owner.h - doing something to a user's files as that user.
 *
 * A root worker never touches a job owner's paths with root's power: it
 * forks a child that becomes the owner first (groups, gid, uid) and does
 * the work there.  Nothing waits for it: the worker's SIGCHLD handler
 * reaps it like any child that is not a job.
 */
#ifndef HPCQ_WORKER_OWNER_H
#define HPCQ_WORKER_OWNER_H

#include <sys/types.h>

/* Run fn(arg) in a child process as uid (its primary group and groups
 * from the password database; as the worker itself when it is not root).
 * Returns the child's pid, or -1 with errno if it could not fork. */
pid_t owner_run (uid_t uid, void (*fn) (void *arg), void *arg);

/* Append line and a newline to path as uid (qmsg).  0 or -1. */
int owner_append (uid_t uid, const char *path, const char *line);

#endif
