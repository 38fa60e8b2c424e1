/* job_rpc.h - what users ask of jobs: submit, stat, delete, hold, release,
 * plus server and queue status (qstat -B, -Q). */
#ifndef HPCQ_SCHEDULER_JOB_RPC_H
#define HPCQ_SCHEDULER_JOB_RPC_H

#include "scheduler/server.h"

int job_rpc_register (struct server *srv);

#endif
