/* job_rpc.h - what users ask of jobs: submit, delete, hold, release,
 * alter, plus server status (qstat -B); job.stat is job_stat.c's,
 * registered with these, and queue.stat queue_rpc.c's. */
#ifndef HPCQ_SCHEDULER_RPC_JOB_RPC_H
#define HPCQ_SCHEDULER_RPC_JOB_RPC_H

#include "scheduler/server.h"

int job_rpc_register (struct server *srv);

struct job;

/* What qstat -B shows (server.stat's answer) and a state_count object
 * (Queued, Held, ... total_jobs) over all jobs or one queue's: new
 * references, for the REST API too (api.h). */
json_t *job_rpc_server_json (struct server *srv);
json_t *job_rpc_state_counts (struct server *srv, const char *queue);

#endif
