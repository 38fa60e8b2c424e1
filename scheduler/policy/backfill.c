/* backfill.c - EASY backfill (Lifka's Extensible Argonne Scheduling sYstem).
 *
 * Jobs are taken in priority order and start while they fit.  The first
 * one that does not fit gets a reservation: the earliest time at which the
 * running jobs' walltimes free enough room for it, and where.  Later jobs
 * may then start at once if they fit now and cannot delay that
 * reservation: either they end (by their walltime) before it, or they use
 * only resources the reserved job will not need.  Only the top job is
 * protected (conservative backfill, policy_conservative.c, protects every
 * job).
 *
 * Time is reasoned about on compact usage records, one per node ("at
 * shadow": the nodes when the top job starts, with it placed), so the
 * real node records change only through ctx->start().  A pass over 100,000
 * jobs stays cheap because a request that failed once is not tried again
 * (struct reqcache), and the top job's reservation is searched with a
 * per-node bound that only the released nodes update (struct bound).
 */
#include <config.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "scheduler/policy/backfill.h"
#include "scheduler/node.h"

int64_t backfill_walltime (const struct policy_ctx *ctx, const struct job *job)
{
    return job->spec.res.walltime >= 0 ? job->spec.res.walltime : ctx->default_walltime;
}

int64_t backfill_end (const struct policy_ctx *ctx, const struct job *job)
{
    int64_t w = backfill_walltime (ctx, job);
    return w < 0 ? T_NEVER : job->rec.stime + w;
}

struct node_use *backfill_use_now (struct policy_ctx *ctx)
{
    struct node_use *use = calloc (ctx->nnodes ? ctx->nnodes : 1, sizeof (*use));

    for (int i = 0; use && i < ctx->nnodes; i++) {
        ctx->nodes[i]->pidx = i;
        use[i] = ctx->nodes[i]->use;
    }
    return use;
}

/* The index of the node a slot names in ctx->nodes, or -1. */
static int node_index (const struct policy_ctx *ctx, const struct node *n)
{
    if (n && n->pidx >= 0 && n->pidx < ctx->nnodes && ctx->nodes[n->pidx] == n)
        return n->pidx;
    return -1;
}

void backfill_use_apply (const struct policy_ctx *ctx, struct node_use *use,
                         const struct alloc *a, int64_t seq, int sign)
{
    for (int i = 0; i < a->n; i++) {
        int k = node_index (ctx, a->slot[i].node);
        if (k >= 0)
            node_use_apply (&use[k], &a->slot[i], seq, sign);
    }
}

/* A running job and when its walltime runs out, side by side for the
 * sort (not looked up through the job at each comparison). */
struct end_key {
    int64_t end;
    struct job *job;
};

/* By end time, then by address, so that a job listed twice sorts next
 * to itself. */
static int cmp_end (const void *a, const void *b)
{
    const struct end_key *p = a, *q = b;

    if (p->end != q->end)
        return p->end < q->end ? -1 : 1;
    return p->job < q->job ? -1 : p->job > q->job;
}

struct job **backfill_running_by_end (const struct policy_ctx *ctx,
                                      struct job **started, int nstarted, int *np)
{
    struct job **v, *j;
    struct end_key *k;
    int n = nstarted, m = 0, out = 0;

    LIST_FOREACH (j, ctx->running, r_link)
    n++;
    v = calloc (n ? n : 1, sizeof (*v));
    k = malloc ((n ? n : 1) * sizeof (*k));
    if (!v || !k) {
        free (v);
        free (k);
        return NULL;
    }
    LIST_FOREACH (j, ctx->running, r_link)
    if (j->alloc)
        k[m++] = (struct end_key){ backfill_end (ctx, j), j };
    for (int i = 0; i < nstarted; i++)
        if (started[i]->alloc)
            k[m++] = (struct end_key){ backfill_end (ctx, started[i]), started[i] };
    qsort (k, m, sizeof (*k), cmp_end);
    for (int i = 0; i < m; i++)
        if (out == 0 || v[out - 1] != k[i].job)
            v[out++] = k[i].job;
    free (k);
    *np = out;
    return v;
}

/* Request equivalence classes: the requests that failed in this pass, a
 * hash table per kind of attempt, keyed by what placement reads of a
 * request.  GPU models and MIG profiles are interned (resource_intern), so
 * equal texts are equal pointers; node labels are the queue's (borrowed),
 * so equal labels of two queues make two classes, which only costs a
 * placement.  A key is its header, its chunks and then its place text
 * (with its '\0'), packed: only those bytes are hashed and compared, and
 * they are zeroed before they are filled, padding included.  A job's key
 * and its hash are made once (arrays queue runs of equal requests: the
 * last job's are kept) and looked up in each kind's table. */
#define REQCACHE_KINDS 4

struct reqkey {
    int nchunks;
    int spot;           /* -l spot= (-1 either) */
    const char *labels; /* NULL: any node */
    struct {
        int count, ncpus, ngpus;
        int64_t mem;
        const char *model, *mig;
    } chunk[HPCQ_MAX_CHUNKS];
    char place_room[sizeof (((struct hpcq_resources *)0)->place)];
};

struct reqent {
    UT_hash_handle hh;
    struct reqkey key; /* its first bytes, as many as the key's length */
};

struct reqcache {
    struct reqent *set[REQCACHE_KINDS];
    const struct job *last; /* the last job keyed, its key and hash */
    struct reqkey key;
    size_t len;
    unsigned hashv;
};

/* Fill k from job's request; returns the key's length. */
static size_t reqkey_fill (struct reqkey *k, const struct job *job)
{
    const struct hpcq_resources *r = &job->spec.res;
    char *place = (char *)&k->chunk[r->nchunks];
    size_t n = 0;

    memset (k, 0, place - (char *)k);
    k->nchunks = r->nchunks;
    k->spot = r->spot;
    k->labels = job->node_labels && job->node_labels[0] ? job->node_labels : NULL;
    for (int c = 0; c < r->nchunks; c++) {
        const struct hpcq_chunk *ch = &r->chunk[c];
        k->chunk[c].count = ch->count;
        k->chunk[c].ncpus = ch->ncpus;
        k->chunk[c].ngpus = ch->ngpus;
        k->chunk[c].mem = ch->mem;
        k->chunk[c].model = ch->gpu_model;
        k->chunk[c].mig = ch->mig;
    }
    while (r->place[n] && n < sizeof (r->place) - 1) {
        place[n] = r->place[n];
        n++;
    }
    place[n] = '\0';
    return place + n + 1 - (char *)k;
}

/* Two strings equal, the first byte checked inline (mostly both empty). */
static int same (const char *a, const char *b)
{
    return a[0] == b[0] && (!a[0] || strcmp (a, b) == 0);
}

/* Equal requests fit the same way: chunks, place, spot= and node labels. */
int backfill_same_request (const struct job *a, const struct job *b)
{
    const struct hpcq_resources *x = &a->spec.res, *y = &b->spec.res;

    if (x->nchunks != y->nchunks || x->spot != y->spot || !same (x->place, y->place)
        || !same (a->node_labels ? a->node_labels : "",
                  b->node_labels ? b->node_labels : ""))
        return 0;
    for (int c = 0; c < x->nchunks; c++) {
        const struct hpcq_chunk *p = &x->chunk[c], *q = &y->chunk[c];
        if (p->count != q->count || p->ncpus != q->ncpus || p->ngpus != q->ngpus
            || p->mem != q->mem || !same (chunk_model (p), chunk_model (q))
            || !same (chunk_mig (p), chunk_mig (q))
            || !same (chunk_host (p), chunk_host (q))
            || !same (chunk_labels (p), chunk_labels (q)))
            return 0;
    }
    return 1;
}

struct reqcache *reqcache_create (void)
{
    return calloc (1, sizeof (struct reqcache));
}

void reqcache_destroy (struct reqcache *rc)
{
    struct reqent *e, *tmp;

    if (!rc)
        return;
    for (int k = 0; k < REQCACHE_KINDS; k++)
        HASH_ITER (hh, rc->set[k], e, tmp)
        {
            HASH_DEL (rc->set[k], e);
            free (e);
        }
    free (rc);
}

/* Make rc's key and hash job's, unless they are already. */
static void req_key (struct reqcache *rc, const struct job *job)
{
    if (rc->last == job)
        return;
    if (!rc->last || !backfill_same_request (rc->last, job)) {
        rc->len = reqkey_fill (&rc->key, job);
        HASH_VALUE (&rc->key, rc->len, rc->hashv);
    }
    rc->last = job;
}

int reqcache_failed (struct reqcache *rc, const struct job *job, int kind)
{
    struct reqent *e = NULL;

    if (rc && kind >= 0 && kind < REQCACHE_KINDS) {
        req_key (rc, job);
        HASH_FIND_BYHASHVALUE (hh, rc->set[kind], &rc->key, rc->len, rc->hashv, e);
    }
    return e != NULL;
}

void reqcache_add (struct reqcache *rc, const struct job *job, int kind)
{
    struct reqent *e;

    /* A cache that cannot grow only means more placements are tried. */
    if (!rc || kind < 0 || kind >= REQCACHE_KINDS || reqcache_failed (rc, job, kind)
        || !(e = malloc (sizeof (*e))))
        return;
    memcpy (&e->key, &rc->key, rc->len);
    HASH_ADD_BYHASHVALUE (hh, rc->set[kind], key, rc->len, rc->hashv, e);
}

/* Attempt kinds for the cache. */
enum { FAIL_NOW = 1, FAIL_BOTH = 2 };

/* The reservation search's cheap necessary condition: for each chunk of
 * the job (the first BOUND_TERMS select terms: a condition on some terms
 * is still a necessary one, and the counts stay nodes x 16 at most), how
 * many copies fit node by node. */
#define BOUND_TERMS 16

struct bound {
    const struct hpcq_resources *res;
    const char *labels;
    int scatter, excl;
    int nterms;
    int *copies; /* [node][term] */
    int64_t total[BOUND_TERMS];
};

static void bound_node (struct bound *b, const struct policy_ctx *ctx,
                        const struct node_use *use, int i, int sign)
{
    for (int c = 0; c < b->nterms; c++) {
        int *k = &b->copies[i * b->nterms + c];
        if (sign > 0)
            *k = place_chunk_copies (ctx->nodes[i], &use[i], &b->res->chunk[c],
                                     b->labels, b->scatter, b->excl,
                                     b->res->chunk[c].count);
        b->total[c] += sign * *k;
    }
}

static int bound_init (struct bound *b, const struct policy_ctx *ctx,
                       const struct job *job, const struct node_use *use)
{
    memset (b, 0, sizeof (*b));
    b->res = &job->spec.res;
    b->labels = job->node_labels;
    b->scatter = strncmp (b->res->place, "scatter", 7) == 0;
    b->excl = strstr (b->res->place, "excl") != NULL;
    b->nterms = b->res->nchunks < BOUND_TERMS ? b->res->nchunks : BOUND_TERMS;
    if (!(b->copies = calloc ((size_t)(ctx->nnodes ? ctx->nnodes : 1) * b->nterms,
                              sizeof (int))))
        return -1;
    for (int i = 0; i < ctx->nnodes; i++)
        bound_node (b, ctx, use, i, 1);
    return 0;
}

static int bound_ok (const struct bound *b)
{
    for (int c = 0; c < b->nterms; c++)
        if (b->total[c] < b->res->chunk[c].count)
            return 0;
    return 1;
}

/* Release a's slots from use, keeping the bound current. */
static void bound_release (struct bound *b, const struct policy_ctx *ctx,
                           struct node_use *use, const struct alloc *a, int64_t seq)
{
    for (int s = 0; s < a->n; s++) {
        int i = node_index (ctx, a->slot[s].node);
        if (i < 0)
            continue;
        bound_node (b, ctx, use, i, -1);
        node_use_apply (&use[i], &a->slot[s], seq, -1);
        bound_node (b, ctx, use, i, 1);
    }
}

/* The earliest time job fits as running jobs end; use becomes the nodes at
 * that time with job placed.  T_NEVER if no bounded sequence of ends
 * makes room. */
static int64_t reserve (struct policy_ctx *ctx, struct job *job, struct node_use *use,
                        struct job **started, int nstarted)
{
    struct job **ends;
    struct bound b;
    int n = 0;
    int64_t shadow = T_NEVER;

    if (!(ends = backfill_running_by_end (ctx, started, nstarted, &n)))
        return T_NEVER;
    if (bound_init (&b, ctx, job, use) < 0) {
        free (ends);
        return T_NEVER;
    }
    for (int i = 0; i < n && backfill_end (ctx, ends[i]) != T_NEVER; i++) {
        struct alloc *a;
        bound_release (&b, ctx, use, ends[i]->alloc, ends[i]->rec.seq);
        if (i + 1 < n && backfill_end (ctx, ends[i + 1]) == backfill_end (ctx, ends[i]))
            continue; /* release everything ending at the same moment */
        if (!bound_ok (&b))
            continue; /* cannot fit yet: skip the full placement */
        if ((a = place_alloc_use (ctx->nodes, use, NULL, ctx->nnodes, &job->spec.res,
                                  job->node_labels))) {
            backfill_use_apply (ctx, use, a, job->rec.seq, 1);
            free (a);
            shadow = backfill_end (ctx, ends[i]);
            break;
        }
    }
    free (b.copies);
    free (ends);
    return shadow;
}

/* The nodes with a free core when the top job was found: the only ones a
 * backfill candidate can use, as nodes only fill up during the pass.  On
 * a busy cluster most are full, and skipping them is most of the speed
 * of a pass over a long queue. */
struct open_nodes {
    int *idx;
    int n;
    int starts; /* since the list was last pruned */
};

/* Drop the nodes that filled up, now and then (the scans shrink as the
 * pass fills the cluster; pruning after every start would cost as much
 * as it saves). */
static void open_prune (struct open_nodes *o, const struct policy_ctx *ctx)
{
    int k = 0;

    if (++o->starts < 32)
        return;
    o->starts = 0;
    for (int i = 0; i < o->n; i++)
        if (ctx->nodes[o->idx[i]]->use.ncpus_used < ctx->nodes[o->idx[i]]->ncpus)
            o->idx[k++] = o->idx[i];
    o->n = k;
}

static int open_init (struct open_nodes *o, const struct policy_ctx *ctx)
{
    o->n = 0;
    if (!(o->idx = malloc ((ctx->nnodes ? ctx->nnodes : 1) * sizeof (*o->idx))))
        return -1;
    for (int i = 0; i < ctx->nnodes; i++)
        if (ctx->nodes[i]->use.ncpus_used < ctx->nodes[i]->ncpus)
            o->idx[o->n++] = i;
    return 0;
}

/* Try fit now, remembering a failure for the job's whole class.  The
 * same placement as ctx->fit's in the daemon (place_job on all nodes),
 * on the open nodes only. */
static struct alloc *fit_now (struct policy_ctx *ctx, struct job *job,
                              struct reqcache *rc, const struct open_nodes *o)
{
    struct alloc *a;

    if (reqcache_failed (rc, job, FAIL_NOW))
        return NULL;
    if (!(a = place_alloc_among (ctx->nodes, o->idx, o->n, NULL, NULL, ctx->nnodes,
                                 &job->spec.res, job->node_labels)))
        reqcache_add (rc, job, FAIL_NOW);
    return a;
}

/* Start job now if that cannot delay the reservation: it ends before the
 * shadow time, or it fits in what the reserved job leaves (on nodes as
 * they are now and as they will be at the shadow time). */
static int backfill (struct policy_ctx *ctx, struct job *job, int64_t shadow,
                     struct node_use *at_shadow, struct reqcache *rc,
                     struct open_nodes *o)
{
    int64_t w = backfill_walltime (ctx, job);
    struct alloc *a;

    if (shadow == T_NEVER)
        return 0; /* nothing is known about when the top job can run */
    if (w >= 0 && ctx->now + w <= shadow)
        a = fit_now (ctx, job, rc, o); /* gone before the reserved job starts */
    else if (reqcache_failed (rc, job, FAIL_NOW)
             || reqcache_failed (rc, job, FAIL_BOTH))
        return 0;
    else if ((a = place_alloc_among (ctx->nodes, o->idx, o->n, NULL, at_shadow,
                                     ctx->nnodes, &job->spec.res, job->node_labels)))
        backfill_use_apply (ctx, at_shadow, a, job->rec.seq, 1);
    else
        reqcache_add (rc, job, FAIL_BOTH);
    if (!a)
        return 0;
    open_prune (o, ctx);
    return ctx->start (ctx, job, a);
}

static void easy_pass (struct policy_ctx *ctx)
{
    struct node_use *at_shadow = NULL;
    struct reqcache *rc = reqcache_create ();
    struct job *top = NULL;
    struct open_nodes open = { NULL, 0, 0 };
    int64_t shadow = T_NEVER;
    int ntop = 0;

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
            /* The jobs before it that started in this pass hold room until
             * their walltimes run out too, whether or not ctx->running,
             * taken before the pass, lists them. */
            ntop = i;
            top = job;
            reqcache_add (rc, job, FAIL_NOW);
            if (!(at_shadow = backfill_use_now (ctx)) || open_init (&open, ctx) < 0)
                break;
            shadow = reserve (ctx, job, at_shadow, ctx->jobs, ntop);
            job->est_start = shadow == T_NEVER ? 0 : shadow;
            continue;
        }
        if (backfill (ctx, job, shadow, at_shadow, rc, &open) < 0)
            break;
    }
    free (open.idx);
    free (at_shadow);
    reqcache_destroy (rc);
}

const struct policy_ops policy_easy = {
    .name = "easy",
    .pass = easy_pass,
};
