/* spool.h - the worker's spool directory and the job files in it.
 *
 * The spool holds each job attempt's script (SEQ.ATTEMPT.SC), node file
 * (.nodes) and session record (.session).  A root worker's spool is owned
 * by root with mode 0711: a job's owner reaches their own script and node
 * file by name (the script is executed as them, PBS_NODEFILE is read by
 * them) but can neither list the directory nor create anything in it.  A
 * worker that is not root keeps it 0700.
 *
 * Every file is created with O_CREAT|O_EXCL|O_NOFOLLOW after the name is
 * unlinked (which removes a symlink, never its target), relative to a
 * descriptor of the directory, and given to its owner with fchown() on the
 * open descriptor: a symlink or another file planted under the name is
 * never followed, written or chowned.
 */
#ifndef HPCQ_WORKER_SPOOL_H
#define HPCQ_WORKER_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

struct spool;

/* Create path if missing (parents 0755), check that it is a directory
 * (not a symlink) owned by the worker, and set its mode.  NULL with err. */
struct spool *spool_open (const char *path, struct hpcq_error *err);
void spool_close (struct spool *sp);

/* The directory's path (borrowed). */
const char *spool_dir (const struct spool *sp);

/* The name of a job attempt's file: "SEQ.ATTEMPT.SUFFIX". */
void spool_name (char *buf, size_t len, int64_t seq, int attempt, const char *suffix);

/* Write text to a new file name (replacing a stale one), with mode, owned
 * by uid:gid ((uid_t)-1: the worker's).  0, or -1 with err. */
int spool_write (struct spool *sp, const char *name, const char *text, mode_t mode,
                 uid_t uid, gid_t gid, struct hpcq_error *err);

/* The content of name, if it is a regular file the worker owns (never
 * through a symlink); NULL otherwise.  Caller frees. */
char *spool_read (struct spool *sp, const char *name, size_t max);

void spool_remove (struct spool *sp, const char *name);

/* Call fn for each file whose name ends in suffix.  Returns how many
 * calls returned 1. */
int spool_foreach (struct spool *sp, const char *suffix,
                   int (*fn) (struct spool *sp, const char *name, void *arg),
                   void *arg);

#endif
