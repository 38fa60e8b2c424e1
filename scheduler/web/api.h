/* api.h - the read-only REST API (/api/v1/...), JSON over http.h.
 *
 *   GET /api                      the versions served: {"versions": ["v1"]}
 *   GET /api/v1/jobs[?user=U&state=S[,S...]&history=1&subjobs=1&limit=N]
 *   GET /api/v1/jobs/ID           one job ("42", "42.server", "7[3]")
 *   GET /api/v1/nodes             the nodes, as pbsnodes -a
 *   GET /api/v1/queues            the queues, as qstat -Q -f
 *   GET /api/v1/server            the server, as qstat -B -f
 *   GET /api/v1/events[?limit=N]  the newest job events (default 20, at most 200)
 *
 * The shape is slurmrestd's: every answer is an object with "meta" (what
 * answered, and to whom), "errors" and "warnings" (lists, empty when all
 * is well) and the data under its own key ("jobs", "nodes", ...); the
 * version is in the path, so a v2 can be served beside v1.  A job is the
 * object qstat -f -F json shows for it (job_attr.h) plus "id"; a job whose
 * owner is not the caller is shown in full only to operators or when
 * query_other_jobs is true, else as the qstat table shows it.  The job
 * list is streamed, a part at a time as the client reads.
 */
#ifndef HPCQ_SCHEDULER_WEB_API_H
#define HPCQ_SCHEDULER_WEB_API_H

#include "scheduler/web/http.h"

int api_register (struct server *srv, struct http *h);

/* The newest limit job events the caller may see (GET /api/v1/events's
 * list; the status page shows them too).  New reference, NULL with errno
 * on a database error. */
json_t *api_events_list (struct http_req *r, long limit);

#endif
