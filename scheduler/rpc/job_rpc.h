/* job_rpc.h - what users ask of jobs: submit, delete, hold, release,
 * alter; job.stat is job_stat.c's and server.stat (qstat -B)
 * server_rpc.c's, registered with these, and queue.stat queue_rpc.c's. */
#ifndef HPCQ_SCHEDULER_RPC_JOB_RPC_H
#define HPCQ_SCHEDULER_RPC_JOB_RPC_H

#include "scheduler/server.h"

int job_rpc_register (struct server *srv);

struct job;

#endif
