/* history.c - see history.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/resource.h"
#include "common/util.h"
#include "scheduler/history.h"
#include "scheduler/rpc/job_ops.h"
#include "scheduler/jobs.h"

#define HISTORY_DEFAULT (336 * 3600) /* PBS Pro's default: two weeks */

struct history {
    struct server *srv;
    int64_t duration; /* seconds a finished job stays */
    struct loop_timer *timer;
};

int64_t history_cutoff (const struct history *h)
{
    return util_wall_secs () - h->duration;
}

/* A job someone still waits on (qsub -W block) is answered first. */
static int history_keep (const struct job *job, void *arg)
{
    struct job_ops *ops = arg;

    if (job_ops_waited (ops, job))
        return 1;
    for (int i = 0; job->arr && i < job->arr->nsub; i++)
        if (job_ops_waited (ops, job->arr->sub[i]))
            return 1;
    return 0;
}

int history_purge (struct history *h)
{
    int n;

    /* Right after a restart the parsing threads still hold the jobs
     * (jobs.h): the next tick purges. */
    if (jobs_loading (h->srv->jobs))
        return 0;
    n = jobs_purge (h->srv->jobs, history_cutoff (h), history_keep, h->srv->job_ops);

    if (n > 0)
        log_msg (LOG_DEBUG, "history: %d finished jobs left memory", n);
    /* Many small blocks went: let the allocator give the pages back. */
    if (n >= 1000)
        (void)malloc_trim (0);
    return n;
}

static void history_tick (struct loop *l, void *arg)
{
    (void)history_purge (arg);
}

static int parse_bool (const char *s, int *out)
{
    if (!strcasecmp (s, "true") || !strcasecmp (s, "1") || !strcasecmp (s, "yes"))
        *out = 1;
    else if (!strcasecmp (s, "false") || !strcasecmp (s, "0") || !strcasecmp (s, "no"))
        *out = 0;
    else
        return -1;
    return 0;
}

struct history *history_create (struct server *srv, struct hpcq_error *err)
{
    struct history *h = xzalloc (sizeof (*h));
    const char *en = config_get (srv->cfg, "job_history_enable", "true");
    const char *dur = config_get (srv->cfg, "job_history_duration", NULL);
    int enable;
    int64_t every;

    h->srv = srv;
    h->duration = HISTORY_DEFAULT;
    if (parse_bool (en, &enable) < 0) {
        errprintf (err, "job_history_enable: invalid value '%s' (true or false)", en);
        goto error;
    }
    if (dur
        && (resource_parse_walltime (dur, &h->duration, NULL) < 0 || h->duration < 0)) {
        errprintf (err,
                   "job_history_duration: invalid value '%s' (HH:MM:SS or seconds)",
                   dur);
        goto error;
    }
    if (!enable)
        h->duration = 0;
    /* Often enough that the window is kept to about 1%, at most ten
     * seconds late (a purge walks the jobs in memory: well under a
     * millisecond per 100,000), at least a second apart. */
    every = h->duration / 100;
    every = every < 1 ? 1 : every > 10 ? 10 : every;
    if (!(h->timer = loop_timer_add (srv->loop, every * 1000, every * 1000,
                                     history_tick, h))) {
        errprintf (err, "event loop: %s", strerror (errno));
        goto error;
    }
    return h;
error:
    history_destroy (h);
    return NULL;
}

void history_destroy (struct history *h)
{
    if (!h)
        return;
    loop_timer_remove (h->timer);
    free (h);
}
