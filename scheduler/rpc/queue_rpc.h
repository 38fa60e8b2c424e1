/* queue_rpc.h - what users ask of queues: queue.stat (qstat -Q) and
 * queue.manage (qmgr), one message family in one handler table. */
#ifndef HPCQ_SCHEDULER_RPC_QUEUE_RPC_H
#define HPCQ_SCHEDULER_RPC_QUEUE_RPC_H

#include "scheduler/server.h"

int queue_rpc_register (struct server *srv);

#endif
