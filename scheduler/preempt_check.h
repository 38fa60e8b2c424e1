/* preempt_check.h - the words of preemption's settings, checked.
 *
 * A preempt_order and a preempt_targets value are checked where they are
 * set: the scheduler's by preempt.c at start, a queue's by qmgr
 * (queue.c).  Pure: apart from preempt.c, so that the queues depend on
 * nothing of preemption (preempt.c reads the queues).
 */
#ifndef HPCQ_SCHEDULER_PREEMPT_CHECK_H
#define HPCQ_SCHEDULER_PREEMPT_CHECK_H

#include "common/error.h"

/* Check a preempt_order ("SCR": S, C, R, D, each at most once) or a
 * preempt_targets value ("queue=a,queue=b" or "NONE").  0, or -1 with a
 * PBS-worded message in err (EINVAL). */
int preempt_check_order (const char *value, struct hpcq_error *err);
int preempt_check_targets (const char *value, struct hpcq_error *err);

#endif
