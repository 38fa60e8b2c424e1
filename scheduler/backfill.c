/* backfill.c - EASY backfill (Lifka's Extensible Argonne Scheduling sYstem).
 *
 * Jobs are taken in priority order and start while they fit.  The first
 * one that does not fit gets a reservation: the earliest time at which the
 * running jobs' walltimes free enough room for it, and where.  Later jobs
 * may then start at once if they fit now and cannot delay that
 * reservation: either they end (by their walltime) before it, or they use
 * only resources the reserved job will not need.  Only the top job is
 * protected (conservative backfill protects every job: a later policy).
 *
 * Time is reasoned about on copies of the nodes ("views"), so the real
 * node records change only through ctx->start().
 */
#include <config.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/policy.h"
#include "scheduler/place.h"

#define T_NEVER INT64_MAX

/* The job's walltime, the default one, or -1 when it is unbounded. */
static int64_t walltime_of (const struct policy_ctx *ctx, const struct job *job)
{
    return job->spec.res.walltime >= 0 ? job->spec.res.walltime : ctx->default_walltime;
}

static int64_t end_of (const struct policy_ctx *ctx, const struct job *job)
{
    int64_t w = walltime_of (ctx, job);
    return w < 0 ? T_NEVER : job->rec.stime + w;
}

/* A copy of every node, and pointers to the copies for place_job(). */
struct view {
    struct node *copy;
    struct node **ptr;
    int n;
};

static int view_init (struct view *v, const struct policy_ctx *ctx)
{
    v->n = ctx->nnodes;
    v->copy = calloc (v->n ? v->n : 1, sizeof (*v->copy));
    v->ptr = calloc (v->n ? v->n : 1, sizeof (*v->ptr));
    if (!v->copy || !v->ptr)
        return -1;
    for (int i = 0; i < v->n; i++) {
        v->copy[i] = *ctx->nodes[i];
        v->ptr[i] = &v->copy[i];
    }
    return 0;
}

static void view_release (struct view *v)
{
    free (v->copy);
    free (v->ptr);
}

/* The copy standing for the node an allocation slot names (a slot may
 * point at a real node or, for a placement made on this view, a copy). */
static struct node *view_node (struct view *v, const struct policy_ctx *ctx,
                               const struct node *n)
{
    if (n >= v->copy && n < v->copy + v->n)
        return (struct node *)n;
    for (int i = 0; i < v->n; i++)
        if (ctx->nodes[i] == n)
            return &v->copy[i];
    return NULL;
}

static void view_apply (struct view *v, const struct policy_ctx *ctx,
                        const struct alloc *a, int64_t seq, int sign)
{
    for (int i = 0; i < a->n; i++) {
        const struct alloc_slot *s = &a->slot[i];
        struct node *n = view_node (v, ctx, s->node);
        if (n)
            alloc_slot_apply (n, s, seq, sign);
    }
}

static int64_t max64 (int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Place job where it fits both now and at the reservation: on a view whose
 * every node has, of each resource, the lesser of what is free now and
 * what will be free at the shadow time.  Returns an allocation on the real
 * nodes, or NULL. */
static struct alloc *place_both (struct policy_ctx *ctx, struct job *job,
                                 const struct view *at_shadow)
{
    struct view both;
    struct alloc *a = NULL;

    if (view_init (&both, ctx) < 0)
        goto out;
    for (int i = 0; i < both.n; i++) {
        struct node *n = &both.copy[i];
        const struct node *s = &at_shadow->copy[i];
        n->ncpus_used = (int)max64 (n->ncpus_used, s->ncpus_used);
        n->mem_used = max64 (n->mem_used, s->mem_used);
        n->njobs = (int)max64 (n->njobs, s->njobs);
        if (!n->excl_by)
            n->excl_by = s->excl_by;
        for (int g = 0; g < n->ngpus; g++)
            if (!n->gpu[g].used_by)
                n->gpu[g].used_by = s->gpu[g].used_by;
    }
    if ((a = place_job (both.ptr, both.n, job, 0)))
        for (int k = 0; k < a->n; k++)
            a->slot[k].node = ctx->nodes[a->slot[k].node - both.copy];
out:
    view_release (&both);
    return a;
}

static const struct policy_ctx *sort_ctx;

static int cmp_end (const void *a, const void *b)
{
    int64_t x = end_of (sort_ctx, *(struct job *const *)a);
    int64_t y = end_of (sort_ctx, *(struct job *const *)b);
    return x < y ? -1 : x > y;
}

/* Running jobs by the time their walltime runs out. */
static struct job **running_by_end (const struct policy_ctx *ctx, int *np)
{
    struct job **v;
    int n = 0, k = 0;

    for (struct job *j = ctx->running; j; j = j->r_next)
        n++;
    if (!(v = calloc (n ? n : 1, sizeof (*v))))
        return NULL;
    for (struct job *j = ctx->running; j; j = j->r_next)
        v[k++] = j;
    sort_ctx = ctx;
    qsort (v, n, sizeof (*v), cmp_end);
    *np = n;
    return v;
}

/* The earliest time job fits as running jobs end; shadow receives it and
 * view the nodes at that time with job placed.  T_NEVER if no bounded
 * sequence of ends makes room. */
static int64_t reserve (struct policy_ctx *ctx, struct job *job, struct view *view)
{
    struct job **ends;
    int n = 0;
    int64_t shadow = T_NEVER;

    if (!(ends = running_by_end (ctx, &n)))
        return T_NEVER;
    for (int i = 0; i < n && end_of (ctx, ends[i]) != T_NEVER; i++) {
        struct alloc *a;
        view_apply (view, ctx, ends[i]->alloc, ends[i]->rec.seq, -1);
        if (i + 1 < n && end_of (ctx, ends[i + 1]) == end_of (ctx, ends[i]))
            continue;   /* release everything ending at the same moment */
        if ((a = place_job (view->ptr, view->n, job, 0))) {
            view_apply (view, ctx, a, job->rec.seq, 1);
            free (a);
            shadow = end_of (ctx, ends[i]);
            break;
        }
    }
    free (ends);
    return shadow;
}

/* Start job now if that cannot delay the reservation: it ends before the
 * shadow time, or it fits in what the reserved job leaves. */
static int backfill (struct policy_ctx *ctx, struct job *job, int64_t shadow,
                     struct view *at_shadow)
{
    int64_t w = walltime_of (ctx, job);
    struct alloc *a;

    if (shadow == T_NEVER)
        return 0;   /* nothing is known about when the top job can run */
    if (w >= 0 && ctx->now + w <= shadow)
        a = ctx->fit (ctx, job);    /* gone before the reserved job starts */
    else if ((a = place_both (ctx, job, at_shadow)))
        view_apply (at_shadow, ctx, a, job->rec.seq, 1);
    if (!a)
        return 0;
    return ctx->start (ctx, job, a);
}

static void easy_pass (struct policy_ctx *ctx)
{
    struct view at_shadow = { 0 };
    struct job *top = NULL;
    int64_t shadow = T_NEVER;

    policy_sort_priority (ctx->jobs, ctx->njobs);
    for (int i = 0; i < ctx->njobs; i++) {
        struct job *job = ctx->jobs[i];
        struct alloc *a;

        job->est_start = 0;
        if (!top) {
            if ((a = ctx->fit (ctx, job))) {
                if (ctx->start (ctx, job, a) < 0)
                    break;
                continue;
            }
            top = job;
            if (view_init (&at_shadow, ctx) < 0)
                break;
            shadow = reserve (ctx, job, &at_shadow);
            job->est_start = shadow == T_NEVER ? 0 : shadow;
            continue;
        }
        if (backfill (ctx, job, shadow, &at_shadow) < 0)
            break;
    }
    view_release (&at_shadow);
}

const struct policy_ops policy_easy = {
    .name = "easy",
    .pass = easy_pass,
};
