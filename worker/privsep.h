/* privsep.h - doing things as a job's owner, never with root's power.
 *
 * A root worker touches a user's paths (output and error files, the notes
 * it appends to them, the stat that finds whether -o names a directory,
 * the checkpoint directory) only in a child process that has become the
 * user for good: supplementary groups, then group, then user.
 *
 * A child rather than setfsuid()/setfsgid() in the worker itself:
 * - setfsuid() does not cover supplementary groups, and setgroups() is
 *   process-wide, so every call would have to set them and restore root's;
 * - a user's file system may hang (NFS): a child can be waited for
 *   through the loop and killed by a timer, while a worker blocked in
 *   open() would stop serving every job;
 * - a bug in the code between "become" and "come back" cannot leave the
 *   worker running as the user, or the user's file open as root.
 *
 * The job itself starts the same way (launch.c forks, drops with
 * privsep_drop(), opens its files and execs); privsep_run() is for the
 * small operations after that, such as the walltime note.
 */
#ifndef HPCQ_WORKER_PRIVSEP_H
#define HPCQ_WORKER_PRIVSEP_H

#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "common/loop.h"

/* Who a job runs as, looked up once in the worker (getpwuid_r and
 * getgrouplist) so the children need no name service. */
struct privsep_cred {
    uid_t uid;
    gid_t gid;
    gid_t *groups; /* supplementary groups (owned) */
    int ngroups;
    char name[64];
    char home[1024];
    char shell[256];
};

/* Fill c for uid.  -1 with err (ENOENT) if this node does not know the
 * user.  Release with privsep_cred_release(). */
int privsep_cred_lookup (uid_t uid, struct privsep_cred *c, struct hpcq_error *err);
void privsep_cred_release (struct privsep_cred *c);

/* qsub -W group_list: make group (a name) c's group, if c's user is a
 * member of it on this node; else -1 with err (EPERM or ENOENT). */
int privsep_cred_set_group (struct privsep_cred *c, const char *group,
                            struct hpcq_error *err);
/* A deep copy of from into to (to is overwritten, not released). */
void privsep_cred_copy (struct privsep_cred *to, const struct privsep_cred *from);

/* In a child: become c's user with no way back (checked).  A worker that
 * is not root runs everything as itself: then this does nothing.
 * 0, or -1 with errno. */
int privsep_drop (const struct privsep_cred *c);

/* fn runs in the child, as the user; its return value (0..255) is the
 * child's exit status.  done gets that status, or -1 if the child was
 * killed (by the timeout or otherwise). */
typedef int (*privsep_fn) (void *arg);
typedef void (*privsep_done_f) (int status, void *arg);

struct privsep;

struct privsep *privsep_create (struct loop *loop);
/* Kills the helpers still running (their done is not called). */
void privsep_destroy (struct privsep *ps);

/* Run fn(arg) as c's user in a child, killed after timeout_ms (0: never,
 * for work that may take long but holds nothing up).  Never
 * waits: done (may be NULL) is called from privsep_reaped().  arg is
 * read in the child only (it has a copy of the worker's memory); done_arg
 * must live until done is called.  0, or -1 with errno (fork). */
int privsep_run (struct privsep *ps, const struct privsep_cred *c, int64_t timeout_ms,
                 privsep_fn fn, void *arg, privsep_done_f done, void *done_arg);

/* For the SIGCHLD handler: 1 if pid was a helper (now finished), else 0. */
int privsep_reaped (struct privsep *ps, pid_t pid, int status);

/* Helpers still running. */
int privsep_count (const struct privsep *ps);

#endif
