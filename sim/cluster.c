/* cluster.c - see cluster.h */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "scheduler/policy/job_state.h"
#include "scheduler/node.h"
#include "scheduler/policy/place.h"
#include "sim/cluster.h"

struct cluster *cluster_create (int nnodes)
{
    struct cluster *c = xzalloc (sizeof (*c));

    c->nnodes = nnodes;
    c->node = xzalloc (nnodes * sizeof (*c->node));
    c->ptr = xzalloc (nnodes * sizeof (*c->ptr));
    LIST_INIT (&c->running);
    for (int i = 0; i < nnodes; i++)
        c->ptr[i] = &c->node[i];
    return c;
}

void cluster_destroy (struct cluster *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->njobs; i++) {
        free (c->job[i]->alloc);
        resource_release (&c->job[i]->spec.res);
        free (c->job[i]);
    }
    free (c->job);
    free (c->node);
    free (c->ptr);
    free (c);
}

void cluster_node (struct cluster *c, int i, int ncpus, int64_t mem, int ngpus,
                   const char *model, const char *labels)
{
    struct node *n = &c->node[i];

    memset (n, 0, sizeof (*n));
    snprintf (n->name, sizeof (n->name), "n%05d", i);
    n->state = NODE_UP;
    n->reachable = 1;
    n->ncpus = ncpus;
    n->mem = mem;
    n->ngpus = ngpus;
    for (int g = 0; g < ngpus; g++) {
        n->gpu[g].index = g;
        snprintf (n->gpu[g].model, sizeof (n->gpu[g].model), "%s", model);
    }
    snprintf (n->labels, sizeof (n->labels), "%s", labels);
    place_node_sync (n);
}

void cluster_mig (struct cluster *c, int i, int g, const char *profile, int n)
{
    struct gpu *gpu = &c->node[i].gpu[g];

    for (int k = 0; k < n && gpu->nmig < GPU_MIG_MAX; k++) {
        struct gpu_mig *m = &gpu->mig[gpu->nmig++];
        snprintf (m->profile, sizeof (m->profile), "%s", profile);
        snprintf (m->uuid, sizeof (m->uuid), "MIG-SIM-%d-%d-%d", i, g, k);
    }
    place_node_sync (&c->node[i]);
}

struct job *cluster_job (struct cluster *c, int64_t seq, const char *list, int priority)
{
    struct job *job = xzalloc (sizeof (*job));
    struct hpcq_error err;

    resource_init (&job->spec.res);
    if (resource_parse_list (&job->spec.res, list, &err) < 0
        || resource_finalize (&job->spec.res, &err) < 0) {
        fprintf (stderr, "cluster_job: %s: %s\n", list, err.text);
        abort ();
    }
    job->rec.seq = seq;
    job->rec.priority = priority;
    (void)job_state_set (job, 'Q', JOB_EV_SUBMITTED, "cluster", __func__);
    snprintf (job->id, sizeof (job->id), "%lld", (long long)seq);
    if (c->njobs == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->job = xrealloc (c->job, c->cap * sizeof (*c->job));
    }
    c->job[c->njobs++] = job;
    return job;
}

void cluster_start (struct cluster *c, struct job *job, struct alloc *a)
{
    (void)job_state_set (job, 'R', JOB_EV_STARTED, "cluster", __func__);
    job->alloc = a;
    job->rec.stime = c->now;
    alloc_apply (a, job->rec.seq, 1);
    LIST_INSERT_HEAD (&c->running, job, r_link);
    c->nstarted++;
}

/* Release a running job's allocation and take it off the running list. */
static void cluster_release (struct job *job)
{
    alloc_apply (job->alloc, job->rec.seq, -1);
    free (job->alloc);
    job->alloc = NULL;
    LIST_REMOVE (job, r_link);
}

void cluster_end (struct cluster *c, struct job *job)
{
    (void)job_state_set (job, 'F', JOB_EV_FINISHED, "cluster", __func__);
    cluster_release (job);
}

void cluster_requeue (struct cluster *c, struct job *job)
{
    (void)job_state_set (job, 'Q', JOB_EV_REQUEUED, "cluster", __func__);
    cluster_release (job);
}

static struct alloc *cluster_fit (struct policy_ctx *ctx, struct job *job)
{
    return place_job (ctx->nodes, ctx->nnodes, job, 0);
}

static int cluster_start_cb (struct policy_ctx *ctx, struct job *job, struct alloc *a)
{
    cluster_start (ctx->arg, job, a);
    return 0;
}

void cluster_ctx (struct cluster *c, struct policy_ctx *ctx, struct job **queued,
                  int nqueued)
{
    memset (ctx, 0, sizeof (*ctx));
    ctx->jobs = queued;
    ctx->njobs = nqueued;
    ctx->nodes = c->ptr;
    ctx->nnodes = c->nnodes;
    ctx->running = &c->running;
    ctx->now = c->now;
    ctx->default_walltime = -1;
    ctx->fit = cluster_fit;
    ctx->start = cluster_start_cb;
    ctx->arg = c;
}
