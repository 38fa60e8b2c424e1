/* job_attr.h - a job as PBS tools see it: the qstat -f attributes.
 *
 * Builds the PBS Pro attribute set (Job_Name, Job_Owner, job_state,
 * Resource_List, resources_used, exec_host, Exit_status, ...) as a JSON
 * object, the shape of one entry in `qstat -f -F json`.  qstat prints it
 * as JSON or as "attribute = value" lines, so both views come from here.
 */
#ifndef HPCQ_SCHEDULER_JOB_ATTR_H
#define HPCQ_SCHEDULER_JOB_ATTR_H

#include <jansson.h>
#include <stdio.h>

#include "scheduler/jobs.h"

/* New reference, NULL on ENOMEM. */
json_t *job_attr_json (struct server *srv, const struct job *job);

/* The first attributes of qstat -f (Job_Name, Job_Owner, resources_used,
 * job_state, queue), which job_attr_json starts with. */
json_t *job_attr_summary (struct server *srv, const struct job *job);

/* What any user may see of another's job when query_other_jobs is False:
 * the fields of PBS's job tables and Slurm's squeue (name, owner, state,
 * queue, times, requested and used resources, where it runs, its comment,
 * its array), never its environment (Variable_List), Submit_arguments,
 * paths, account, mail or dependencies.  New reference, NULL on ENOMEM. */
json_t *job_attr_public (struct server *srv, const struct job *job);

/* One row of the default qstat table, the columns JOB_ATTR_ROW_COLUMNS
 * name, written to f as one line of tab-separated text (tabs and newlines
 * inside values become spaces).  A list of many thousand jobs costs far
 * less as such lines, one JSON string per chunk, than as an object per
 * job, to build and to parse.  -1 on a write error. */
#define JOB_ATTR_ROW_COLUMNS "id", "Job_Name", "user", "cput", "job_state", "queue"
int job_attr_row (FILE *f, const struct job *job);

#endif
