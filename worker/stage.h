/* stage.h - the worker's side of qsub -W stagein/stageout (common/stage.h):
 * the copies, always made by a process that is the job's owner, never by
 * root.  Stage-in runs in the job's child after it dropped to the owner
 * and entered the job's working directory; stage-out runs in a privsep
 * helper after the job ended. */
#ifndef HPCQ_WORKER_STAGE_H
#define HPCQ_WORKER_STAGE_H

#include <stddef.h>

/* Copy each remote file of list to its local name (relative remote paths
 * from submit_dir, relative local ones from the current directory).
 * 0, or -1 with why (what failed, and the error) in buf. */
int stage_in (const char *list, const char *submit_dir, char *buf, size_t len);

/* What a stage-out helper needs (borrowed). */
struct stage_out_req {
    const char *list;       /* -W stageout */
    const char *submit_dir; /* where relative remote paths start */
    const char *job_dir;    /* where relative local paths start */
    const char *err_path;   /* the job's error file: a failed copy is said there */
};

/* A privsep_fn: copy each local file to its remote name; a failure is
 * written to the job's error file (as PBS Pro reports it) and the rest go
 * on.  Returns the number of copies that failed (0: all done). */
int stage_out (void *arg);

#endif
