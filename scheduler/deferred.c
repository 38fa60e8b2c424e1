/* deferred.c - see deferred.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/util.h"
#include "scheduler/deferred.h"
#include "scheduler/jobs.h"
#include "scheduler/lifecycle.h"

#define DEFERRED_TICK_MS 1000

struct deferred {
    struct server *srv;
    struct loop_timer *timer;
};

int deferred_tick_now (struct deferred *d)
{
    int64_t now = util_wall_secs ();
    int n, queued = 0;
    struct job **v;

    if (jobs_loading (d->srv->jobs) || jobs_count_state (d->srv->jobs, 'W') == 0)
        return 0;
    v = jobs_all (d->srv->jobs, &n);
    for (int i = 0; i < n; i++) {
        struct job *job = v[i];
        if (job->rec.state != 'W' || job->spec.execution_time > now)
            continue;
        if (lifecycle_change (d->srv, job, 'Q', JOB_EV_ELIGIBLE, "scheduler",
                              "execution time reached")
            < 0)
            log_error ("job %s: queue at its execution time", job->id);
        else
            queued++;
    }
    return queued;
}

static void deferred_tick (struct loop *l, void *arg)
{
    (void)deferred_tick_now (arg);
}

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
    return d;
}

void deferred_destroy (struct deferred *d)
{
    if (!d)
        return;
    loop_timer_remove (d->timer);
    free (d);
}
