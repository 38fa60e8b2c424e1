/* job_select.h - qselect's question: which jobs meet these criteria.
 *
 * job.select {users, states, queue, name, holds, resources: [[name, op,
 * value]...], history, arrays} answers {ids: [...]} in job order: the
 * ids only, so "qselect -u $USER -s Q | xargs qdel" stays cheap on a deep
 * queue.  Finished jobs only with history (qselect -x).
 */
#ifndef HPCQ_SCHEDULER_RPC_JOB_SELECT_H
#define HPCQ_SCHEDULER_RPC_JOB_SELECT_H

#include "scheduler/server.h"

int job_select_register (struct server *srv);

#endif
