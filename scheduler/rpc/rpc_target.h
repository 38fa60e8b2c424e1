/* rpc_target.h - the job a user's request names, found once for every
 * rpc/ family that acts on one job (job_rpc: qdel, qhold, qrls, qalter;
 * job_ops: qsig, qrerun, qrun, qorder, qmsg).
 */
#ifndef HPCQ_SCHEDULER_RPC_RPC_TARGET_H
#define HPCQ_SCHEDULER_RPC_RPC_TARGET_H

#include "scheduler/server.h"

struct job;

/* The job named by the request's "id" that the caller may act on (its
 * owner, an operator), or NULL after replying with PBS's reason. */
struct job *rpc_target_job (struct server *srv, struct conn *c, struct wire_msg *msg);

#endif
