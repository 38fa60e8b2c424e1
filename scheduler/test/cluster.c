/* cluster.c - see cluster.h */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/nodes.h"
#include "scheduler/place.h"
#include "scheduler/test/cluster.h"

/* Placement needs a connected node; tests have no connections. */
static char fake_conn;

static void *xcalloc (size_t n, size_t size)
{
    void *p = calloc (n ? n : 1, size);
    if (!p)
        abort ();
    return p;
}

struct cluster *cluster_create (int nnodes)
{
    struct cluster *c = xcalloc (1, sizeof (*c));

    c->nnodes = nnodes;
    c->node = xcalloc (nnodes, sizeof (*c->node));
    c->ptr = xcalloc (nnodes, sizeof (*c->ptr));
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
    n->conn = (struct conn *)&fake_conn;
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
    struct node_gpu *gpu = &c->node[i].gpu[g];

    for (int k = 0; k < n && gpu->nmig < NODE_MAX_MIG; k++) {
        struct node_mig *m = &gpu->mig[gpu->nmig++];
        snprintf (m->profile, sizeof (m->profile), "%s", profile);
        snprintf (m->uuid, sizeof (m->uuid), "MIG-SIM-%d-%d-%d", i, g, k);
    }
    place_node_sync (&c->node[i]);
}

struct job *cluster_job (struct cluster *c, int64_t seq, const char *list, int priority)
{
    struct job *job = xcalloc (1, sizeof (*job));
    struct hpcq_error err;

    resource_init (&job->spec.res);
    if (resource_parse_list (&job->spec.res, list, &err) < 0
        || resource_finalize (&job->spec.res, &err) < 0) {
        fprintf (stderr, "cluster_job: %s: %s\n", list, err.text);
        abort ();
    }
    job->rec.seq = seq;
    job->rec.priority = priority;
    job->rec.state = 'Q';
    snprintf (job->id, sizeof (job->id), "%lld", (long long)seq);
    if (c->njobs == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        if (!(c->job = realloc (c->job, c->cap * sizeof (*c->job))))
            abort ();
    }
    c->job[c->njobs++] = job;
    return job;
}

void cluster_start (struct cluster *c, struct job *job, struct alloc *a)
{
    job->alloc = a;
    job->rec.stime = c->now;
    job->rec.state = 'R';
    alloc_apply (a, job->rec.seq, 1);
    job->r_prev = NULL;
    job->r_next = c->running;
    if (c->running)
        c->running->r_prev = job;
    c->running = job;
    c->nstarted++;
}

void cluster_end (struct cluster *c, struct job *job)
{
    alloc_apply (job->alloc, job->rec.seq, -1);
    free (job->alloc);
    job->alloc = NULL;
    job->rec.state = 'F';
    if (job->r_prev)
        job->r_prev->r_next = job->r_next;
    else
        c->running = job->r_next;
    if (job->r_next)
        job->r_next->r_prev = job->r_prev;
    job->r_prev = job->r_next = NULL;
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
    ctx->running = c->running;
    ctx->now = c->now;
    ctx->default_walltime = -1;
    ctx->fit = cluster_fit;
    ctx->start = cluster_start_cb;
    ctx->arg = c;
}
