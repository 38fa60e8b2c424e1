/* job_step.h - a job's steps (Slurm's JOBID.STEP): each srun inside a
 * running job asks for its number and says when it ended; squeue -s and
 * sacct list them.  Stored in the steps table (db/migrations/0013), a
 * step's number the next of its job's attempt, so sruns started at once
 * get numbers of their own.
 *
 *   job.step.begin {id, name, ntasks, nnodes, nodelist} -> {step}
 *                  the job must run; its owner (or an operator) asks
 *   job.step.end   {id, step, exit}  -> {}
 *   job.steps      {ids?: [...]} -> {steps: [{jobid, step, attempt, name,
 *                  ntasks, nnodes, nodelist, start, end?, exit?}]}: those
 *                  jobs' steps, or without ids the unfinished steps of
 *                  the running jobs the caller may see
 */
#ifndef HPCQ_SCHEDULER_RPC_JOB_STEP_H
#define HPCQ_SCHEDULER_RPC_JOB_STEP_H

#include "scheduler/server.h"

int job_step_register (struct server *srv);

#endif
