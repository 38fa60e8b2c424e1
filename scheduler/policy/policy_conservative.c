/* policy_conservative.c - conservative backfill (Mu'alem and Feitelson).
 *
 * Every queued job gets a reservation, in priority order: the earliest
 * time and place at which it fits for its whole walltime beside the
 * running jobs and every reservation made so far.  A job starts when its
 * reservation is now.  Reservations are kept from pass to pass (job->resv)
 * and a job only ever moves earlier: each pass first puts back every
 * kept reservation, then lets each job in priority order look for an
 * earlier slot that collides with none of the others.  So a job may pass
 * another only if that delays nobody, and no job starts later than the
 * first reservation it was given (while running jobs end by their
 * walltimes and nodes stay).
 *
 * Time is a list of segments, each holding the nodes' usage (compact
 * records, struct node_use) from its start to the next one's.  The cost
 * grows with queued jobs times segments times nodes: meant for queues of
 * thousands, not of a hundred thousand (bench/RESULTS.md); EASY is the
 * default for that reason.
 */
#include <config.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/policy/backfill.h"
#include "scheduler/node.h"

/* A kept reservation: when, and where (the slots of an allocation). */
struct resv {
    int64_t start;
    int n;
    struct alloc_slot slot[];
};

struct seg {
    int64_t t;
    struct node_use *use;
    int64_t free_cpus; /* over all nodes: a cheap bound first */
    int free_gpus;     /* whole GPUs and MIG instances */
    /* 0: nothing is freer here than in the segment before (so what did
     * not fit there does not fit here); 1: something may be. */
    int freed;
};

struct timeline {
    struct policy_ctx *ctx;
    struct seg *v;
    int n, cap;
    /* The last job placed: where its search ended, and whether anything
     * was taken out of the timeline since (only then can an equal
     * request fit earlier than it did). */
    const struct job *last;
    int64_t last_start; /* T_NEVER: it found no slot */
    int removed;
};

static struct node_use *use_copy (const struct timeline *tl, const struct node_use *u)
{
    struct node_use *c = malloc ((tl->ctx->nnodes ? tl->ctx->nnodes : 1) * sizeof (*c));

    if (c)
        memcpy (c, u, tl->ctx->nnodes * sizeof (*c));
    return c;
}

static void timeline_release (struct timeline *tl)
{
    for (int i = 0; i < tl->n; i++)
        free (tl->v[i].use);
    free (tl->v);
}

/* Insert a segment at position k starting at t, a copy of segment k-1.
 * 0 or -1. */
static int timeline_insert (struct timeline *tl, int k, int64_t t)
{
    struct node_use *u;

    if (tl->n == tl->cap) {
        int cap = tl->cap ? tl->cap * 2 : 16;
        struct seg *nv = realloc (tl->v, cap * sizeof (*nv));
        if (!nv)
            return -1;
        tl->v = nv;
        tl->cap = cap;
    }
    if (!(u = use_copy (tl, tl->v[k - 1].use)))
        return -1;
    memmove (&tl->v[k + 1], &tl->v[k], (tl->n - k) * sizeof (*tl->v));
    tl->v[k] = tl->v[k - 1];
    tl->v[k].t = t;
    tl->v[k].use = u;
    tl->v[k].freed = 0; /* a copy of the one before */
    tl->n++;
    return 0;
}

/* The index of the segment starting at t (made if needed), or -1. */
static int timeline_split (struct timeline *tl, int64_t t)
{
    int k = tl->n;

    while (k > 0 && tl->v[k - 1].t > t)
        k--;
    if (k > 0 && tl->v[k - 1].t == t)
        return k - 1;
    return timeline_insert (tl, k, t) < 0 ? -1 : k;
}

/* Add (sign 1) or remove (-1) a's usage in segment k. */
static void seg_apply (struct timeline *tl, int k, const struct alloc *a, int64_t seq,
                       int sign)
{
    struct seg *sg = &tl->v[k];

    backfill_use_apply (tl->ctx, sg->use, a, seq, sign);
    for (int i = 0; i < a->n; i++) {
        sg->free_cpus -= sign * a->slot[i].ncpus;
        sg->free_gpus -= sign * (a->slot[i].ngpus + a->slot[i].nmig);
    }
}

static void seg_totals (struct timeline *tl, struct seg *sg)
{
    sg->free_cpus = 0;
    sg->free_gpus = 0;
    for (int i = 0; i < tl->ctx->nnodes; i++) {
        const struct node *n = tl->ctx->nodes[i];
        sg->free_cpus += n->ncpus - sg->use[i].ncpus_used;
        for (int g = 0; g < n->ngpus && g < GPU_MAX; g++)
            sg->free_gpus += n->gpu[g].nmig
                                 ? __builtin_popcount (((1u << n->gpu[g].nmig) - 1)
                                                       & ~(unsigned)sg->use[i].mig[g])
                                 : !(sg->use[i].gpus & (1u << g));
    }
}

/* The running jobs' usage now and as each one's walltime runs out. */
static int timeline_init (struct timeline *tl, struct policy_ctx *ctx)
{
    struct job **ends;
    int n = 0, rc = -1;

    memset (tl, 0, sizeof (*tl));
    tl->ctx = ctx;
    if (!(tl->v = calloc (1, sizeof (*tl->v))))
        return -1;
    tl->cap = 1;
    tl->n = 1;
    if (!(ends = backfill_running_by_end (ctx, NULL, 0, &n)))
        return -1;
    tl->v[0].t = ctx->now;
    if (!(tl->v[0].use = backfill_use_now (ctx)))
        goto out;
    seg_totals (tl, &tl->v[0]);
    for (int i = 0; i < n; i++) {
        int64_t end = backfill_end (ctx, ends[i]);
        int k;
        if (end == T_NEVER)
            break;
        if (end <= ctx->now)
            end = ctx->now; /* overdue: it is about to go */
        if ((k = timeline_split (tl, end)) < 0)
            goto out;
        seg_apply (tl, k, ends[i]->alloc, ends[i]->rec.seq, -1);
        tl->v[k].freed = 1;
    }
    rc = 0;
out:
    free (ends);
    return rc;
}

/* Add (sign 1) or remove (-1) a's usage over [from, to).  0 or -1. */
static int timeline_apply (struct timeline *tl, const struct alloc *a, int64_t seq,
                           int64_t from, int64_t to, int sign)
{
    int k0 = timeline_split (tl, from);
    int k1 = to == T_NEVER ? tl->n : timeline_split (tl, to);

    if (k0 < 0 || k1 < 0)
        return -1;
    for (int k = k0; k < k1; k++)
        seg_apply (tl, k, a, seq, sign);
    /* Taken from k0 to k1: the segment at k1 has it back; removed: k0. */
    if (sign > 0 && k1 < tl->n)
        tl->v[k1].freed = 1;
    if (sign < 0)
        tl->v[k0].freed = 1;
    return 0;
}

static int64_t window_end (int64_t start, int64_t w)
{
    return w < 0 ? T_NEVER : start + w;
}

/* An allocation as a reservation record (one block), or NULL. */
static struct resv *resv_make (const struct alloc *a, int64_t start)
{
    struct resv *r = malloc (sizeof (*r) + a->n * sizeof (r->slot[0]));

    if (!r)
        return NULL;
    r->start = start;
    r->n = a->n;
    memcpy (r->slot, a->slot, a->n * sizeof (r->slot[0]));
    return r;
}

/* The reservation as an allocation (new), or NULL. */
static struct alloc *resv_alloc (const struct resv *r)
{
    struct alloc *a = alloc_new (r->n);

    if (a)
        memcpy (a->slot, r->slot, r->n * sizeof (r->slot[0]));
    return a;
}

/* Slots by node, then in their order. */
static int cmp_slot (const void *x, const void *y)
{
    const struct alloc_slot *p = *(const struct alloc_slot *const *)x;
    const struct alloc_slot *q = *(const struct alloc_slot *const *)y;

    if (p->node != q->node)
        return (uintptr_t)p->node < (uintptr_t)q->node ? -1 : 1;
    return p < q ? -1 : p > q;
}

/* 1 if the slots of one node (all of n's, in order) fit on it under u. */
static int node_slots_fit (const struct node *n, struct node_use u,
                           const struct alloc_slot *const *sl, int k)
{
    for (int s = 0; s < k; s++) {
        for (int g = 0; g < sl[s]->ngpus; g++)
            if (sl[s]->gpus[g] < 0 || sl[s]->gpus[g] >= n->ngpus
                || n->gpu[sl[s]->gpus[g]].nmig || (u.gpus & (1u << sl[s]->gpus[g])))
                return 0;
        if (sl[s]->nmig
            && (sl[s]->mig_gpu < 0 || sl[s]->mig_gpu >= n->ngpus
                || sl[s]->mig_inst >= n->gpu[sl[s]->mig_gpu].nmig
                || (u.mig[sl[s]->mig_gpu] & (1u << sl[s]->mig_inst))))
            return 0;
        if (u.excl_by || (sl[s]->excl && u.njobs > 0))
            return 0;
        node_use_apply (&u, sl[s], 0, 1);
        if (u.ncpus_used > n->ncpus || (sl[s]->mem > 0 && u.mem_used > n->mem))
            return 0;
    }
    return 1;
}

/* 1 if every slot of a still fits under use (nodes known and usable, and
 * nothing it holds taken by another).  use is left as it is: each node's
 * slots are added to a copy of its record. */
static int alloc_still_fits (struct policy_ctx *ctx, const struct alloc *a,
                             const struct node_use *use)
{
    const struct alloc_slot *small[64], **ord = small;
    int fits = 1;

    if (a->n > 64 && !(ord = malloc (a->n * sizeof (*ord))))
        return 0;
    for (int s = 0; s < a->n; s++)
        ord[s] = &a->slot[s];
    qsort (ord, a->n, sizeof (*ord), cmp_slot);
    for (int s = 0, e; fits && s < a->n; s = e) {
        const struct node *n = ord[s]->node;
        for (e = s + 1; e < a->n && ord[e]->node == n; e++)
            ;
        fits = n && n->pidx >= 0 && n->pidx < ctx->nnodes && ctx->nodes[n->pidx] == n
               && n->state == NODE_UP && n->reachable && !n->offline
               && node_slots_fit (n, use[n->pidx], ord + s, e - s);
    }
    if (ord != small)
        free (ord);
    return fits;
}

/* The earliest segment start from which job fits for its walltime: the
 * allocation, and *start.  NULL if none. */
static struct alloc *earliest (struct timeline *tl, struct job *job, int64_t *start)
{
    struct policy_ctx *ctx = tl->ctx;
    int64_t w = backfill_walltime (ctx, job);
    int64_t cpus = resource_total_ncpus (&job->spec.res);
    int gpus = 0;

    for (int c = 0; c < job->spec.res.nchunks; c++)
        gpus += job->spec.res.chunk[c].count
                * (job->spec.res.chunk[c].ngpus
                   + (chunk_mig (&job->spec.res.chunk[c])[0] != 0));
    int failed_at = -2; /* the segment where placement last failed */

    int64_t from = tl->ctx->now;

    /* Runs of equal requests and walltimes (arrays): the slots before the
     * last one's are still too full for this one. */
    if (tl->last && !tl->removed && backfill_walltime (ctx, tl->last) == w
        && backfill_same_request (tl->last, job)) {
        if (tl->last_start == T_NEVER)
            return NULL;
        from = tl->last_start;
    }
    for (int k = 0; k < tl->n; k++) {
        int64_t to = window_end (tl->v[k].t, w);
        struct alloc *a;
        int j;
        if (tl->v[k].t < from)
            continue;
        if (failed_at == k - 1 && !tl->v[k].freed) {
            failed_at = k; /* no freer than where it just failed */
            continue;
        }
        /* A segment of the window without the free cores or GPUs in all
         * rules out every start up to it. */
        for (j = k; j < tl->n && (to == T_NEVER || tl->v[j].t < to); j++)
            if (tl->v[j].free_cpus < cpus || tl->v[j].free_gpus < gpus)
                break;
        if (j < tl->n && (to == T_NEVER || tl->v[j].t < to)) {
            k = j;
            continue;
        }
        /* Placed where it fits at the window's start, checked against
         * the rest of the window: slot by slot, not node by node. */
        if (!(a = place_alloc_use (ctx->nodes, tl->v[k].use, NULL, ctx->nnodes,
                                   &job->spec.res, job->node_labels)))
            failed_at = k;
        else {
            for (j = k + 1; j < tl->n && (to == T_NEVER || tl->v[j].t < to); j++)
                if (!alloc_still_fits (ctx, a, tl->v[j].use))
                    break;
            if (j == tl->n || (to != T_NEVER && tl->v[j].t >= to)) {
                *start = tl->v[k].t;
                return a;
            }
            free (a);
            /* A window of two segments: placed on both at once, another
             * place may hold for the whole of it. */
            if (j != k + 1 || (k + 2 < tl->n && (to == T_NEVER || tl->v[k + 2].t < to)))
                continue;
            if ((a = place_alloc_use (ctx->nodes, tl->v[k].use, tl->v[k + 1].use,
                                      ctx->nnodes, &job->spec.res, job->node_labels))) {
                *start = tl->v[k].t;
                return a;
            }
        }
    }
    return NULL;
}

static void resv_drop (struct job *job)
{
    free (job->resv);
    job->resv = NULL;
}

/* 1 if the kept reservation is for the request as it is now (qalter may
 * have changed it since): slot by slot, in chunk order. */
static int resv_matches (const struct job *job, const struct resv *r)
{
    const struct hpcq_resources *res = &job->spec.res;
    int s = 0;

    for (int c = 0; c < res->nchunks; c++)
        for (int k = 0; k < res->chunk[c].count; k++, s++) {
            const struct hpcq_chunk *ch = &res->chunk[c];
            if (s >= r->n || r->slot[s].ncpus != ch->ncpus || r->slot[s].mem != ch->mem
                || r->slot[s].ngpus != ch->ngpus
                || r->slot[s].nmig != (chunk_mig (ch)[0] != 0))
                return 0;
        }
    return s == r->n;
}

/* Put back a kept reservation if it still holds; else forget it. */
static int resv_restore (struct timeline *tl, struct job *job)
{
    struct policy_ctx *ctx = tl->ctx;
    int64_t w = backfill_walltime (ctx, job);
    struct alloc *a;
    int k, rc = 0;

    if (!job->resv)
        return 0;
    if (job->resv->start < ctx->now || !resv_matches (job, job->resv)
        || !(a = resv_alloc (job->resv))) {
        resv_drop (job);
        return 0;
    }
    if ((k = timeline_split (tl, job->resv->start)) < 0)
        rc = -1;
    else {
        int64_t to = window_end (job->resv->start, w);
        int j;
        for (j = k; j < tl->n && (to == T_NEVER || tl->v[j].t < to); j++)
            if (!alloc_still_fits (ctx, a, tl->v[j].use))
                break;
        if (j < tl->n && (to == T_NEVER || tl->v[j].t < to))
            resv_drop (job);
        else
            rc = timeline_apply (tl, a, job->rec.seq, job->resv->start, to, 1);
    }
    free (a);
    return rc;
}

/* Find job the earliest slot among the others' reservations (its own
 * kept one taken out: it stays if nothing earlier fits); start it if
 * that is now.  0 or -1 (stop the pass). */
static int resv_place (struct timeline *tl, struct job *job)
{
    struct policy_ctx *ctx = tl->ctx;
    int64_t w = backfill_walltime (ctx, job), start = 0;
    struct alloc *a, *kept = NULL;
    struct resv *r;

    if (job->resv) {
        if (!(kept = resv_alloc (job->resv))
            || timeline_apply (tl, kept, job->rec.seq, job->resv->start,
                               window_end (job->resv->start, w), -1)
                   < 0
            || timeline_split (tl, job->resv->start) < 0) {
            free (kept);
            return -1;
        }
        tl->removed = 1;
    }
    a = earliest (tl, job, &start);
    tl->last = job;
    tl->last_start = a ? start : T_NEVER;
    tl->removed = 0;
    if (kept && (!a || start > job->resv->start)) {
        /* Greedy placement missed the kept slot: it still holds. */
        free (a);
        a = kept;
        start = job->resv->start;
        kept = NULL;
    }
    free (kept);
    resv_drop (job);
    job->est_start = 0;
    if (!a)
        return 0; /* never fits beside unbounded jobs: no promise */
    if (timeline_apply (tl, a, job->rec.seq, start, window_end (start, w), 1) < 0) {
        free (a);
        return -1;
    }
    if (start <= ctx->now)
        return ctx->start (ctx, job, a) < 0 ? -1 : 0;
    if (!(r = resv_make (a, start))) {
        free (a);
        return -1;
    }
    free (a);
    job->resv = r;
    job->est_start = start;
    return 0;
}

static void conservative_pass (struct policy_ctx *ctx)
{
    struct timeline tl = { 0 };

    policy_sort_priority (ctx->jobs, ctx->njobs);
    if (timeline_init (&tl, ctx) < 0)
        goto out;
    for (int i = 0; i < ctx->njobs; i++)
        if (resv_restore (&tl, ctx->jobs[i]) < 0)
            goto out;
    for (int i = 0; i < ctx->njobs; i++)
        if (resv_place (&tl, ctx->jobs[i]) < 0)
            break;
out:
    timeline_release (&tl);
}

const struct policy_ops policy_conservative = {
    .name = "conservative",
    .pass = conservative_pass,
};
