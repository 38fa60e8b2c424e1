/* deferred.c - see deferred.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/util.h"
#include "scheduler/deferred.h"
#include "scheduler/jobs.h"
#include "scheduler/lifecycle.h"
#include "scheduler/lifecycle_sub.h"

#define DEFERRED_TICK_MS 1000

struct deferred {
    struct server *srv;
    struct loop_timer *timer;
    int64_t next; /* the earliest waiting job's time; 0: not known yet
                     (after a start, the loaded jobs are walked once) */
};

void deferred_due (struct deferred *d, int64_t when)
{
    if (d && when < d->next)
        d->next = when;
}

int deferred_tick_now (struct deferred *d)
{
    int64_t now = util_wall_secs (), next = INT64_MAX;
    int n, queued = 0;
    struct job **v;

    if (jobs_loading (d->srv->jobs) || now < d->next)
        return 0;
    v = jobs_all (d->srv->jobs, &n);
    for (int i = 0; i < n; i++) {
        struct job *job = v[i];
        if (job->rec.state != 'W')
            continue;
        if (job->spec.execution_time > now) {
            next = job->spec.execution_time < next ? job->spec.execution_time : next;
            continue;
        }
        if (lifecycle_change (d->srv, job, 'Q', JOB_EV_ELIGIBLE, "scheduler",
                              "execution time reached")
            < 0)
            log_error ("job %s: queue at its execution time", job->id);
        else
            queued++;
    }
    d->next = next;
    return queued;
}

static void deferred_tick (struct loop *l, void *arg)
{
    (void)deferred_tick_now (arg);
}

/* A job that enters W, changed to it or submitted into it. */
static int deferred_on_job (struct server *srv, struct job *job,
                            const struct lifecycle_event *ev, void *arg)
{
    if (job->rec.state == 'W'
        && (ev->point == LC_CHANGED
            || (ev->point == LC_RECORDED && ev->old == JOB_STATE_NEW)))
        deferred_due (arg, job->spec.execution_time);
    return 0;
}

static const struct lifecycle_sub deferred_sub = { "deferred", deferred_on_job, 0 };

struct deferred *deferred_create (struct server *srv, struct hpcq_error *err)
{
    struct deferred *d = xzalloc (sizeof (*d));

    d->srv = srv;
    if (!(d->timer = loop_timer_add (srv->loop, DEFERRED_TICK_MS, DEFERRED_TICK_MS,
                                     deferred_tick, d))) {
        errprintf (err, "event loop: %s", strerror (errno));
        free (d);
        return NULL;
    }
    if (lifecycle_subscribe (srv, &deferred_sub, d) < 0) {
        errprintf (err, "deferred: %s", strerror (errno));
        deferred_destroy (d);
        return NULL;
    }
    return d;
}

void deferred_destroy (struct deferred *d)
{
    if (!d)
        return;
    loop_timer_remove (d->timer);
    free (d);
}
