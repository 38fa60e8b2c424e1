/* lifecycle_sub.h - hearing of jobs' lives: lifecycle.h's subscribers.
 *
 * A subsystem that must know when a job's state changes, an attempt
 * starts or ends, or a job finishes (accounting, metrics, limits,
 * fair-share, checkpoints, cost) subscribes in its _create; lifecycle.c
 * tells each subscriber at each point, in the order they subscribed, and
 * calls none of them by name.  Kept apart from lifecycle.h so that a
 * subscriber depends on nothing of lifecycle.c.
 */
#ifndef HPCQ_SCHEDULER_LIFECYCLE_SUB_H
#define HPCQ_SCHEDULER_LIFECYCLE_SUB_H

#include <errno.h>
#include <stdint.h>

#include "scheduler/policy/job_state.h"
#include "scheduler/server.h"

struct job;

/* The points of a job's life that other subsystems hear of. */
enum lifecycle_point {
    LC_CHANGED,         /* its state changed from ev->old (lists refiled) */
    LC_RECORDED,        /* the change is written with its event: ev->old,
                         * ev->event, ev->actor (a submission: old NEW) */
    LC_ATTEMPT_STARTED, /* an attempt starts (allocation applied, before R) */
    LC_ATTEMPT_ENDED,   /* an attempt ends (finished or requeued), before
                         * its allocation is released */
    LC_USAGE,           /* the attempt's usage is known: ev->walltime */
    LC_FINISHED,        /* the job ends, before it is F */
};

struct lifecycle_event {
    enum lifecycle_point point;
    char old;
    enum job_event event;
    const char *actor;
    int64_t walltime;
};

/* A subscriber: fn hears every point (and ignores those it has no use
 * for).  Those with in_txn run first, in the order they subscribed, inside
 * the open transaction: the first to fail (-1) fails the change.  The
 * others run after them, in order, and cannot fail it. */
struct lifecycle_sub {
    const char *name;
    int (*fn) (struct server *srv, struct job *job, const struct lifecycle_event *ev,
               void *arg);
    int in_txn;
};

/* Add sub (static, with arg for its fn) to the end of srv's subscribers:
 * each subsystem that hears of jobs' lives subscribes in its _create, so
 * lifecycle.c calls none of them by name.  0, or -1 with ENOSPC. */
static inline int lifecycle_subscribe (struct server *srv,
                                       const struct lifecycle_sub *sub, void *arg)
{
    int n = srv->nlc_subs;

    if (n == (int)(sizeof (srv->lc_subs) / sizeof (srv->lc_subs[0]))) {
        errno = ENOSPC;
        return -1;
    }
    srv->lc_subs[n].sub = sub;
    srv->lc_subs[n].arg = arg;
    srv->nlc_subs++;
    return 0;
}

#endif
