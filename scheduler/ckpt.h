/* ckpt.h - checkpoints as the scheduler manages them.
 *
 * A job says how it checkpoints with qsub -c and -W checkpoint_signal
 * (common/ckptspec.h).  This module decides when to ask it for one (its
 * cadence: every MIN minutes of wall or CPU time, or the Young/Daly
 * interval of scheduler/policy/cadence.h), asks for one on behalf of others
 * (preemption, spot reclaim, qrerun), delivers the checkpoint signal to the
 * job's processes through its mother superior's worker, and records each
 * completed checkpoint the worker reports (job.checkpoint, from
 * `hpcq-ckpt done` or common/ckptreport.h) in the database: generation,
 * time, size, and cost (seconds from the signal to the report).
 *
 * ---- The interface for preemption, reclaim and the simulator (stable) ----
 *
 *   ckpt_request (srv, job, reason, deadline_ms, done, arg)
 *       Ask a running job for a checkpoint now: its checkpoint signal goes
 *       to its processes, and the request is an event ("checkpoint_requested",
 *       its reason as detail).  If one is already under way, no second
 *       signal is sent: done waits for that one.  done (if not NULL) is
 *       called exactly once:
 *         CKPT_REPORTED  the job's worker reported a completed checkpoint;
 *         CKPT_EXPIRED   deadline_ms (util_now_ms clock) came first;
 *         CKPT_GONE      the attempt ended first (finished, requeued,
 *                        deleted, its node lost).
 *       done may change the job's state (requeue it: lifecycle.h).
 *   ckpt_cancel (srv, job, done, arg)
 *       Forget a done that is no longer wanted (never called then).
 *   ckpt_requeue_done
 *       A done that requeues the job (lifecycle_requeue_from_checkpoint)
 *       once its checkpoint is reported or the deadline is over; arg is a
 *       string that outlives the request (a literal) saying why:
 *       "preempted (C)", "rerun (qrerun)", "reclaimed".
 *   ckpt_job_checkpoints (srv, job)
 *       1 if the job takes checkpoint signals where it runs: its -c is
 *       anything but n and u, or it is u on a spot node.
 *   ckpt_grace_ms (srv)
 *       checkpoint_grace: how long preemption's C waits for a report.
 *
 * Requeuing a job once its checkpoint is reported is lifecycle's
 * lifecycle_requeue_from_checkpoint(); the next attempt finds the
 * checkpoint in the same folder ($HPCQ_CHECKPOINT_DIR) on whichever node
 * it runs.
 *
 * The counters other modules read (metrics, accounting) are on the job:
 * job->ck (struct job_ckpt, job_ckpt.h), and in the checkpoints, preemptions and
 * attempts tables (db/db_ckpt.h).
 */
#ifndef HPCQ_SCHEDULER_CKPT_H
#define HPCQ_SCHEDULER_CKPT_H

#include <stdint.h>
#include <jansson.h>

#include "common/ckptspec.h"
#include "common/error.h"
#include "scheduler/job_ckpt.h"
#include "scheduler/server.h"

struct job;
struct node;

struct ckpt *ckpt_create (struct server *srv, struct hpcq_error *err);
void ckpt_destroy (struct ckpt *ck);

/* After the jobs are loaded: each job's checkpoints and preemptions from
 * the database.  0 or -1. */
int ckpt_load (struct ckpt *ck);

/* What job asked for with -c (CKPT_UNSET if nothing). */
void ckpt_job_spec (const struct job *job, struct ckptspec *out);

/* The job's checkpoint cost (the median of its latest), seconds; -1 if
 * none was measured. */
double ckpt_job_cost (const struct job *job);
/* Its checkpoint signal's name ("USR1"). */
const char *ckpt_job_signal (const struct job *job);

int ckpt_job_checkpoints (struct server *srv, const struct job *job);
int64_t ckpt_grace_ms (struct server *srv);

int ckpt_request (struct server *srv, struct job *job, const char *reason,
                  int64_t deadline_ms, ckpt_done_f done, void *arg);
void ckpt_cancel (struct server *srv, struct job *job, ckpt_done_f done, void *arg);
void ckpt_requeue_done (struct server *srv, struct job *job, enum ckpt_outcome outcome,
                        void *why);

/* The cadence interval now, seconds (Young/Daly for auto); 0 if the job has
 * none. */
double ckpt_interval (struct server *srv, const struct job *job);

/* The job's checkpoint folder: checkpoint_root/UUID, or
 * WORKDIR/.hpcq/checkpoints/UUID without checkpoint_root. */
void ckpt_job_dir (struct server *srv, const struct job *job, char *buf, size_t len);

/* Lifecycle's hooks: an attempt started / ended (its waiters are told
 * CKPT_GONE, its request and cadence forgotten). */
void ckpt_attempt_started (struct server *srv, struct job *job);
void ckpt_attempt_ended (struct server *srv, struct job *job);

/* A job's app exited with CKPT_EXIT_INVALID (common/ckptreport.h): none
 * of its checkpoints is usable.  Those recorded are marked invalid (not
 * counted, not restarted from) and ckpt_corrupt says what comes next:
 *   hold (the default)  requeued and held (u), the reason in its comment:
 *                       its owner looks at the folder, qrls runs it again;
 *   restart             requeued and held (o) until its folder is removed
 *                       (as its owner), then run again from the beginning;
 *   fail                it ends, with that exit status and the reason.
 * Returns 1 if it took the job (held), 0 if the caller ends it (why, if
 * not "", is its reason), -1 on error.  A job with no checkpoint recorded
 * is an ordinary exit (0, why ""). */
int ckpt_corrupt (struct server *srv, struct job *job, char *why, size_t len);

/* The job ended for good (finished): its checkpoint folder is removed as
 * its owner, at once for exit status 0, checkpoint_keep_failed days later
 * otherwise.  0 or -1. */
int ckpt_job_finished (struct server *srv, struct job *job);

/* The launch's checkpoint settings (dir, keep, signal, cpu) into req. */
struct launch_req;
void ckpt_launch_fill (struct server *srv, const struct job *job,
                       struct launch_req *req);

/* qstat -f: Checkpoint, checkpoint.*, preemption.* into o. */
void ckpt_attr_json (struct server *srv, const struct job *job, json_t *o);

/* A worker's heartbeat told the CPU seconds of its jobs ("jobs":
 * [{"seq", "attempt", "cput"}]). */
void ckpt_note_usage (struct server *srv, struct node *n, json_t *jobs);

#endif
