/* job_ops.h - what else users and operators do to jobs, in PBS's terms.
 *
 *   job.wait    qsub -W block=true, sbatch --wait: the reply comes when the
 *               job has finished (and that is durable)
 *   job.sig     qsig -s SIG: a signal to a running job's processes
 *   job.rerun   qrerun: kill a running rerunnable job and queue it again
 *   job.run     qrun [-H hosts] (operators): start a queued job now
 *   job.order   qorder: two queued jobs exchange their places
 *   job.msg     qmsg: a line into a running job's output or error file
 *   job.print   printjob (managers): the stored script and attributes
 *
 * Every handler finds its job as qdel does (rpc_target_job) and changes
 * state through jobs.h, so the lifecycle rules stay in one place.
 */
#ifndef HPCQ_SCHEDULER_RPC_JOB_OPS_H
#define HPCQ_SCHEDULER_RPC_JOB_OPS_H

#include "common/conn.h"
#include "scheduler/server.h"

struct job;

/* Registers the handlers and a before-sleep hook (after the server's
 * commit) that answers waits.  NULL on failure. */
struct job_ops *job_ops_create (struct server *srv);
void job_ops_destroy (struct job_ops *ops);

/* Connection c is going away: forget its waits.  ops may be NULL. */
void job_ops_conn_closed (struct job_ops *ops, struct conn *c);

/* 1 if a job.wait on job is not answered yet (the job must stay). */
int job_ops_waited (const struct job_ops *ops, const struct job *job);

#endif
