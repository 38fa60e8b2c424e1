/* metrics_count.h - the counting side of metrics.h: what the scheduler's
 * core calls as things happen.
 *
 * Kept apart from metrics.h so that a module that counts (ckpt, preempt,
 * reclaim, cost, sched, http) depends on nothing of what the rendering
 * reads (queues, nodes, telemetry): the counters are web/metrics.c's, and
 * a NULL m counts nothing.  Names, labels and resets: metrics.h.
 */
#ifndef HPCQ_SCHEDULER_WEB_METRICS_COUNT_H
#define HPCQ_SCHEDULER_WEB_METRICS_COUNT_H

#include <stdint.h>

#include "scheduler/policy/job_state.h"

struct job;
struct node;
struct metrics;

/* lifecycle.h's hook: job moved from state old because of ev. */
void metrics_job_event (struct metrics *m, const struct job *job, char old,
                        enum job_event ev);

/* Issue 12's events, as they happen: v preempted by method (preempt.h's
 * 'S', 'C', 'R', 'D'); a reclaim notice for node n (taken 0), or n taken
 * by its provider (1); a job moved off a reclaimed node (how: 0 requeued
 * after its checkpoint, 1 requeued without one, 2 lost with the node); a
 * checkpoint recorded (seconds and bytes, -1 if unknown); an attempt's
 * cost, spot its part on spot nodes. */
void metrics_preempted (struct metrics *m, const struct job *job, char method);
void metrics_reclaim_notice (struct metrics *m, const struct node *n, int taken);
void metrics_reclaimed (struct metrics *m, const struct job *job, int how);
void metrics_checkpoint_observed (struct metrics *m, double seconds, int64_t bytes);
void metrics_cost (struct metrics *m, const struct job *job, double cost, double spot);

/* One scheduling pass, one commit and one HTTP answer, as they happen. */
void metrics_pass_observed (struct metrics *m, double seconds);
void metrics_commit_observed (struct metrics *m, double seconds);
void metrics_http_answered (struct metrics *m, int status);

#endif
