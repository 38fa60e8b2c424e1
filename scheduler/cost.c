/* cost.c - see cost.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/util.h"
#include "db/db_ckpt.h"
#include "scheduler/lifecycle_sub.h"
#include "scheduler/job_ckpt.h"
#include "scheduler/cost.h"
#include "scheduler/jobs.h"
#include "scheduler/web/metrics_count.h"
#include "scheduler/nodeclass.h"
#include "scheduler/nodes.h"

/* The ended attempts' cost per queue (a few queues: a list). */
struct queue_cost {
    char queue[64];
    double cost, spot;
};

struct cost {
    struct queue_cost *v;
    int n;
};

static struct queue_cost *queue_cost (struct cost *co, const char *queue)
{
    for (int i = 0; i < co->n; i++)
        if (!strcmp (co->v[i].queue, queue))
            return &co->v[i];
    co->v = xrealloc (co->v, (co->n + 1) * sizeof (*co->v));
    memset (&co->v[co->n], 0, sizeof (*co->v));
    snprintf (co->v[co->n].queue, sizeof (co->v[co->n].queue), "%s", queue);
    return &co->v[co->n++];
}

static double ratio (double part, double whole)
{
    return whole > 0 ? part / whole : 0;
}

/* The share of node n that the slots of a on it hold, at most 1. */
static double node_share (const struct alloc *a, const struct node *n)
{
    int ncpus = 0, ngpus = 0, excl = 0;
    int64_t mem = 0;
    double share;

    for (int i = 0; i < a->n; i++)
        if (a->slot[i].node == n) {
            ncpus += a->slot[i].ncpus;
            ngpus += a->slot[i].ngpus + a->slot[i].nmig;
            mem += a->slot[i].mem;
            excl |= a->slot[i].excl;
        }
    if (excl)
        return 1;
    share = ratio (ncpus, n->ncpus);
    if (ratio (ngpus, n->ngpus) > share)
        share = ratio (ngpus, n->ngpus);
    if (ratio ((double)mem, (double)n->mem) > share)
        share = ratio ((double)mem, (double)n->mem);
    return share < 1 ? share : 1;
}

/* The running attempt's cost so far; its part on spot nodes into *spot and
 * what it would have cost on demand into *ondemand (each if not NULL). */
static double attempt_cost (struct server *srv, const struct job *job, double *spot,
                            double *ondemand)
{
    const struct alloc *a = job->alloc;
    const struct job_ckpt *jc = job->ck;
    double hours, total = 0, on_spot = 0, od = 0;
    int64_t suspended = 0;

    if (spot)
        *spot = 0;
    if (ondemand)
        *ondemand = 0;
    if (!a || job->rec.stime <= 0)
        return 0;
    if (jc) {
        suspended = jc->suspended_ms;
        if (jc->suspend_since_ms)
            suspended += util_now_ms () - jc->suspend_since_ms;
    }
    hours = ((double)(util_wall_secs () - job->rec.stime) - suspended / 1000.0) / 3600;
    if (hours <= 0)
        return 0;
    for (int i = 0; i < a->n; i++) {
        const struct node *n = a->slot[i].node;
        double c;
        int seen = 0;
        for (int k = 0; k < i; k++)
            seen |= a->slot[k].node == n;
        if (!n || seen)
            continue;
        c = nodeclass_price (srv->nodeclass, n) * hours * node_share (a, n);
        total += c;
        if (nodeclass_is_spot (n))
            on_spot += c;
        od += nodeclass_ondemand_price (srv->nodeclass, n) * hours * node_share (a, n);
    }
    if (spot)
        *spot = on_spot;
    if (ondemand)
        *ondemand = od;
    return total;
}

double cost_attempt (struct server *srv, const struct job *job, double *spot)
{
    return attempt_cost (srv, job, spot, NULL);
}

int cost_attempt_ended (struct server *srv, struct job *job)
{
    struct job_ckpt *jc = ckpt_job_state (job);
    struct queue_cost *q;
    double spot, od, c = attempt_cost (srv, job, &spot, &od);
    int64_t suspended = jc->suspended_ms;

    if (jc->suspend_since_ms)
        suspended += util_now_ms () - jc->suspend_since_ms;
    jc->cost_prev += c;
    jc->cost_prev_spot += spot;
    q = queue_cost (srv->cost, job->rec.queue);
    q->cost += c;
    q->spot += spot;
    metrics_cost (srv->metrics, job, c, spot);
    return db_attempt_set_cost (srv->db, job->rec.seq, job->rec.run_count, c, spot,
                                suspended / 1000.0, od);
}

double cost_job (struct server *srv, const struct job *job)
{
    double c = job->ck ? job->ck->cost_prev : 0;

    if (job->alloc && strchr ("RES", job->rec.state))
        c += cost_attempt (srv, job, NULL);
    return c;
}

/* job's cost so far if it is of queue (its spot part added to *spot). */
static double queue_job_cost (struct server *srv, const struct job *job,
                              const char *queue, double *spot)
{
    double c, s;

    if (strcmp (job->rec.queue, queue) != 0)
        return 0;
    c = cost_attempt (srv, job, &s);
    *spot += s;
    return c;
}

json_t *cost_queue_json (struct server *srv, const char *queue)
{
    struct job *j;
    const struct queue_cost *q = queue_cost (srv->cost, queue);
    double total = q->cost, spot = q->spot;
    char a[32], b[32], c[32];

    /* The running attempts so far, and the suspended ones. */
    LIST_FOREACH (j, jobs_running (srv->jobs), r_link)
    total += queue_job_cost (srv, j, queue, &spot);
    LIST_FOREACH (j, jobs_suspended (srv->jobs), s_link)
    total += queue_job_cost (srv, j, queue, &spot);
    snprintf (a, sizeof (a), "%.4f", total);
    snprintf (b, sizeof (b), "%.4f", spot);
    snprintf (c, sizeof (c), "%.4f", total - spot);
    return json_pack ("{s:s s:s s:s}", "cost", a, "cost_spot", b, "cost_ondemand", c);
}

struct load {
    struct server *srv;
    struct cost *co;
};

static int load_cost (int64_t seq, const char *queue, double cost, double spot,
                      void *arg)
{
    struct load *l = arg;
    struct job *job = jobs_lookup (l->srv->jobs, seq);
    struct queue_cost *q = queue_cost (l->co, queue);

    q->cost += cost;
    q->spot += spot;
    if (job) {
        ckpt_job_state (job)->cost_prev = cost;
        job->ck->cost_prev_spot = spot;
    }
    return 0;
}

/* An attempt's cost is recorded as it ends, in the change's transaction
 * (after ckpt's, which subscribed first). */
static int cost_on_job (struct server *srv, struct job *job,
                        const struct lifecycle_event *ev, void *arg)
{
    return ev->point == LC_ATTEMPT_ENDED ? cost_attempt_ended (srv, job) : 0;
}

static const struct lifecycle_sub cost_sub = { "cost", cost_on_job, 1 };

struct cost *cost_create (struct server *srv)
{
    struct cost *co = xzalloc (sizeof (*co));
    struct load l = { srv, co };

    if (db_cost_foreach (srv->db, load_cost, &l) < 0
        || lifecycle_subscribe (srv, &cost_sub, co) < 0) {
        cost_destroy (co);
        return NULL;
    }
    return co;
}

void cost_destroy (struct cost *co)
{
    if (!co)
        return;
    free (co->v);
    free (co);
}
