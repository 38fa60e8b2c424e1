/* checkpoint.h - the worker's part in checkpoints.
 *
 * - Jobs report each completed checkpoint to their own worker, never to
 *   the scheduler: `hpcq-ckpt done` (or common/ckptreport.h from an app)
 *   connects to the Unix socket SPOOL/ckpt.sock (path in the job's
 *   $HPCQ_CKPT_SOCKET) and says "ckpt.done" for its job and attempt.  The
 *   kernel says who connected (SO_PEERCRED): only the job's owner (or
 *   root) may report for it.  The worker passes the report on as
 *   job.checkpoint, holding it while the scheduler is away, until the
 *   scheduler has it.
 * - Jobs that checkpoint every MIN minutes of CPU time (-c c=MIN) have
 *   their CPU time in each heartbeat: the user and system time of their
 *   session's processes, and of the children those waited for.
 * - (Removing a finished job's folder is ckpt_remove.h's.)
 *
 * The socket serves one request per connection; a connection that sends
 * nothing whole within a few seconds is closed, and at most
 * CHECKPOINT_MAX_CONNS are open at once, so no job can hold the worker.
 */
#ifndef HPCQ_WORKER_CHECKPOINT_H
#define HPCQ_WORKER_CHECKPOINT_H

#include <sys/types.h>
#include <jansson.h>

#include "common/conn.h"
#include "common/error.h"

struct worker;
struct task;
struct checkpoint;

/* Open SPOOL/ckpt.sock.  NULL with err. */
struct checkpoint *checkpoint_create (struct worker *w, struct hpcq_error *err);
void checkpoint_destroy (struct checkpoint *cp);

/* The socket's path, for the jobs' $HPCQ_CKPT_SOCKET (borrowed). */
const char *checkpoint_socket (const struct checkpoint *cp);

/* The scheduler link is usable (its hello acknowledged): send what waits. */
void checkpoint_link_up (struct checkpoint *cp);
/* The link is gone: what was in flight is sent again on the next one. */
void checkpoint_link_down (struct checkpoint *cp);
/* A reply from the scheduler: 1 if it was to one of ours. */
int checkpoint_reply (struct checkpoint *cp, const struct wire_msg *msg);

/* Deliver the checkpoint signal signo to the task's processes that catch
 * or block it (an app's handler, or its signalfd), never to one that
 * would die of it: the batch shell running the app in the foreground
 * does not trap it, and a job is never killed by a request for a
 * checkpoint.  Returns how many processes got it. */
int checkpoint_signal (struct checkpoint *cp, const struct task *t, int signo);

/* For the heartbeat: [{seq, attempt, cput}] of the jobs that checkpoint
 * on CPU time, or NULL if none (new reference). */
json_t *checkpoint_usage_json (struct checkpoint *cp);

/* The CPU seconds (user + system) of the processes of session sid and of
 * the children they waited for; -1 if none is left.  Exposed for tests. */
long checkpoint_session_cpu (pid_t sid);

#endif
