/* job_counts.h - how many jobs there are by queue and state, and how many
 * each user runs and has queued, kept as jobs change rather than counted
 * when asked.
 *
 * GET /metrics shows these numbers on every scrape (hpcq_jobs,
 * hpcq_user_jobs); counting them then walked every job in memory, about
 * 10 ms of CPU per scrape at 100,000 jobs (bench/RESULTS.md).  jobs.c,
 * which owns the index of jobs and hears of every state change
 * (jobs_refile), of every job added and of every subjob split out or given
 * back, keeps these counts; a scrape reads them in O(queues x states +
 * users).
 *
 * What counts: each job and each split-out subjob by its state, and each
 * array's untouched subjobs in the state they share
 * (array_untouched_state); F is not counted (the states are Q H W R E S).
 * After a restart the counts are made once from the loaded jobs.
 * jobs_counts_recount (jobs.h) makes the same numbers the slow way, for
 * tests and GET /metrics?recount=1 to check the kept ones against.
 */
#ifndef HPCQ_SCHEDULER_JOB_COUNTS_H
#define HPCQ_SCHEDULER_JOB_COUNTS_H

#include <stddef.h>

struct job;
struct job_counts;

/* The states counted, as PBS's letters, and their metric names. */
#define JOB_COUNTS_NSTATES 6
extern const char job_counts_states[]; /* "QHWRES" */
extern const char *const job_counts_state_names[JOB_COUNTS_NSTATES];

struct job_counts *job_counts_create (void);
void job_counts_destroy (struct job_counts *c);

/* n (may be negative) jobs of owner in queue are in state. */
void job_counts_add (struct job_counts *c, const char *queue, const char *owner,
                     char state, int n);

/* What job counts for in the index (sign 1) or no longer (-1): itself in
 * its state, or for an array its untouched subjobs in the state they
 * share; split-out subjobs count on their own. */
void job_counts_job (struct job_counts *c, const struct job *job, int sign);

/* job's state changed from old: move what it counts for. */
void job_counts_moved (struct job_counts *c, const struct job *job, char old);

/* Jobs of queue in state (a letter of job_counts_states). */
int job_counts_get (const struct job_counts *c, const char *queue, char state);

/* Each user with running or queued jobs: cb (name, running, queued, arg). */
void job_counts_users (const struct job_counts *c,
                       void (*cb) (const char *user, int running, int queued,
                                   void *arg),
                       void *arg);

/* 1 if a and b hold the same numbers, else 0 (and, if diff is not NULL,
 * the first difference in words into diff). */
int job_counts_equal (const struct job_counts *a, const struct job_counts *b,
                      char *diff, size_t len);

#endif
