/* server_rpc.h - what users ask of the server: server.stat (qstat -B),
 * and the same status for the REST API and qstat -Q's counts.
 * Registered by job_rpc_register, with the job family. */
#ifndef HPCQ_SCHEDULER_RPC_SERVER_RPC_H
#define HPCQ_SCHEDULER_RPC_SERVER_RPC_H

#include <jansson.h>

#include "scheduler/server.h"

int server_rpc_register (struct server *srv);

/* What qstat -B shows (server.stat's answer) and a state_count object
 * (Queued, Held, ... total_jobs) over all jobs or one queue's: new
 * references, for the REST API too (api.h). */
json_t *server_rpc_json (struct server *srv);
json_t *server_rpc_state_counts (struct server *srv, const char *queue);

#endif
