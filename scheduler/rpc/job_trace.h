/* job_trace.h - a job's history for tracejob (job.trace).
 *
 * The events table's rows of one job (each state change with its cause),
 * whether the job is still in memory or has left it (history.h): what the
 * database keeps, it can show.  The answer also says where the accounting
 * log and the scheduler's log are, which tracejob reads itself, as PBS's
 * does (they may be large; the scheduler's loop does not read them).
 * Owners, operators, and anyone when query_other_jobs is true may ask.
 */
#ifndef HPCQ_SCHEDULER_RPC_JOB_TRACE_H
#define HPCQ_SCHEDULER_RPC_JOB_TRACE_H

#include "scheduler/server.h"

int job_trace_register (struct server *srv);

/* seq and owner of the job id names, in memory or in the database; the id
 * it is shown by in idbuf.  -1 if unknown. */
int job_trace_find (struct server *srv, const char *id, int64_t *seq, int64_t *uid,
                    char *idbuf, size_t len);

#endif
