/* slurm.h - what the Slurm front-ends (sbatch, squeue, scancel, sinfo,
 * sacct) share: Slurm's job ids and states for hpcq's jobs, and the
 * jobs themselves as qstat -f -x sees them.
 *
 * A job prints as its number alone ("42"), an array task as "42_3", as
 * Slurm prints them; the workflow tools parse exactly that.
 */
#ifndef HPCQ_CLI_SLURM_H
#define HPCQ_CLI_SLURM_H

#include <stddef.h>
#include <jansson.h>

/* "42.srv" -> "42", "42[3].srv" -> "42_3", "42[].srv" -> "42". */
void slurm_id (const char *pbs_id, char *buf, size_t len);

/* A Slurm id ("42", "42_3", "42.batch") as hpcq names it ("42", "42[3]"). */
void slurm_to_pbs_id (const char *id, char *buf, size_t len);

/* Slurm's long state name for a job's attributes (PENDING, RUNNING,
 * COMPLETING, COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL). */
const char *slurm_state (json_t *attrs);

/* The compact code squeue's %t prints for a long state name (PD, R, ...). */
const char *slurm_state_code (const char *state);

/* Every job the scheduler knows (history too) with its subjobs, as a JSON
 * object id -> attributes (qstat -f -F json's "Jobs").  New reference;
 * exits with prog's error line if the scheduler cannot be asked. */
json_t *slurm_jobs (const char *prog, json_t *ids, int history);

/* Job steps (scheduler/rpc/job_step.h): those of the jobs ids names (PBS
 * ids, stolen), or without ids the running steps the caller may see; a
 * JSON array of {jobid, step, attempt, name, ntasks, nnodes, nodelist,
 * start, end, exit}.  New reference; exits as slurm_jobs does. */
json_t *slurm_steps (const char *prog, json_t *ids);

/* An array task's own number in Slurm's dialect (its SLURM_JOB_ID: the
 * array's number plus its position) into buf, or NULL if it has none. */
const char *slurm_raw_id (json_t *attrs, char *buf, size_t len);

/* The PBS id of the array task whose own number is num.  0, or -1 if no
 * task has it (or num is not a number). */
int slurm_task_of (const char *prog, const char *num, char *pbs, size_t len);

/* squeue's %r for a job in state (slurm_state): None, Dependency,
 * DependencyNeverSatisfied, JobHeldUser or Resources. */
const char *slurm_reason (json_t *attrs, const char *state);

/* A PBS size ("64mb", "4gb") as Slurm prints memory (22.05 on: "64M",
 * "4G"); "" if unset or unreadable. */
void slurm_mem (const char *pbs, char *buf, size_t len);

/* Seconds as Slurm prints durations: M:SS, H:MM:SS or D-HH:MM:SS. */
void slurm_duration (long long secs, char *buf, size_t len);

/* A job's nodes ("node1/0*2+node2/0*2" in exec_host) as a host list. */
void slurm_nodelist (json_t *attrs, char *buf, size_t len, int *nnodes);

/* An attribute's text ("" if unset). */
const char *slurm_attr (json_t *attrs, const char *key);

/* PBS's ctime text ("Thu Aug  6 15:27:48 2026") as seconds; 0 if unset. */
long long slurm_time (json_t *attrs, const char *key);

/* One field of a -o/--format line: "%[.][-][N]c" pieces with text between;
 * fmt points at '%'; fills width, right (1 for '.'), letter and returns
 * the length of the spec. */
int slurm_field_spec (const char *fmt, int *width, int *right, char *letter);

/* value padded or cut to width (0: as is), right-justified if right. */
void slurm_put (const char *value, int width, int right);

#endif
