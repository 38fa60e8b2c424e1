/* job_stat.h - job.stat, qstat's view of jobs: which jobs (ids, -u, -x,
 * -t), how much of each the caller may see (query_other_jobs), and the
 * answer streamed in parts as the client reads it. */
#ifndef HPCQ_SCHEDULER_RPC_JOB_STAT_H
#define HPCQ_SCHEDULER_RPC_JOB_STAT_H

#include "scheduler/server.h"

int job_stat_register (struct server *srv);

#endif
