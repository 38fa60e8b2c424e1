/* place.c - see place.h */
#include <config.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/jobs.h"
#include "scheduler/nodes.h"
#include "scheduler/place.h"

#define MAX_SLOTS ((int)(sizeof (((struct alloc *)0)->slot) / sizeof (struct alloc_slot)))
#define MAX_GROUPS 256

/* 1 if the comma-separated list have holds the item want (a label is
 * "name" or "name=value" and matches only exactly). */
static int label_in (const char *have, const char *want, size_t wlen)
{
    const char *p = have;

    while (*p) {
        size_t len = strcspn (p, ",");
        if (len == wlen && strncmp (p, want, wlen) == 0)
            return 1;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

int place_labels_match (const char *have, const char *want)
{
    const char *p = want;

    while (*p) {
        size_t len = strcspn (p, ",");
        if (len > 0 && !label_in (have, p, len))
            return 0;
        p += len;
        if (*p == ',')
            p++;
    }
    return 1;
}

int place_model_match (const char *model, const char *want)
{
    return !want[0] || strcasestr (model, want) != NULL;
}

static void ib_switch_find (struct node *n)
{
    const char *p = n->labels;

    n->ib_switch[0] = '\0';
    while ((p = strstr (p, "ib_switch="))) {
        if (p == n->labels || p[-1] == ',') {
            p += strlen ("ib_switch=");
            snprintf (n->ib_switch, sizeof (n->ib_switch), "%.*s",
                      (int)strcspn (p, ","), p);
            return;
        }
        p++;
    }
}

/* The node's GPUs not in MIG mode (whole) or in it, as bit masks: the
 * cached ones, or worked out when a record was filled in without
 * place_node_sync() (they must cover every GPU). */
static uint32_t gpu_mask (const struct node *n, int mig)
{
    uint32_t m = 0;

    if (__builtin_popcount (n->whole_gpus | n->mig_gpus) == n->ngpus)
        return mig ? n->mig_gpus : n->whole_gpus;
    for (int g = 0; g < n->ngpus && g < NODE_MAX_GPUS; g++)
        if ((n->gpu[g].nmig > 0) == mig)
            m |= 1u << g;
    return m;
}

void place_node_sync (struct node *n)
{
    node_use_of (n, &n->use);
    ib_switch_find (n);
    n->whole_gpus = n->mig_gpus = 0;
    for (int g = 0; g < n->ngpus && g < NODE_MAX_GPUS; g++) {
        if (n->gpu[g].nmig)
            n->mig_gpus |= 1u << g;
        else
            n->whole_gpus |= 1u << g;
    }
}

void node_use_of (const struct node *n, struct node_use *u)
{
    memset (u, 0, sizeof (*u));
    u->ncpus_used = n->ncpus_used;
    u->mem_used = n->mem_used;
    u->njobs = n->njobs;
    u->excl_by = n->excl_by;
    for (int g = 0; g < n->ngpus && g < NODE_MAX_GPUS; g++) {
        const struct node_gpu *gpu = &n->gpu[g];
        if (gpu->used_by)
            u->gpus |= 1u << g;
        for (int i = 0; i < gpu->nmig && i < NODE_MAX_MIG; i++)
            if (gpu->mig[i].used_by)
                u->mig[g] |= (uint8_t)(1u << i);
    }
}

static int64_t max64 (int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Usage u as it would be with also taken as well. */
static void use_combine (struct node_use *u, const struct node_use *also)
{
    u->ncpus_used = (int)max64 (u->ncpus_used, also->ncpus_used);
    u->mem_used = max64 (u->mem_used, also->mem_used);
    u->njobs = (int)max64 (u->njobs, also->njobs);
    if (!u->excl_by)
        u->excl_by = also->excl_by;
    u->gpus |= also->gpus;
    for (int g = 0; g < NODE_MAX_GPUS; g++)
        u->mig[g] |= also->mig[g];
}

void node_use_apply (struct node_use *u, const struct alloc_slot *s, int64_t seq,
                     int sign)
{
    u->ncpus_used += sign * s->ncpus;
    u->mem_used += sign * s->mem;
    u->njobs += sign;
    if (s->excl)
        u->excl_by = sign > 0 ? seq : 0;
    for (int g = 0; g < s->ngpus; g++) {
        if (s->gpus[g] < 0 || s->gpus[g] >= NODE_MAX_GPUS)
            continue;
        if (sign > 0)
            u->gpus |= 1u << s->gpus[g];
        else
            u->gpus &= ~(1u << s->gpus[g]);
    }
    if (s->nmig && s->mig_gpu >= 0 && s->mig_gpu < NODE_MAX_GPUS && s->mig_inst >= 0
        && s->mig_inst < NODE_MAX_MIG) {
        if (sign > 0)
            u->mig[s->mig_gpu] |= (uint8_t)(1u << s->mig_inst);
        else
            u->mig[s->mig_gpu] &= (uint8_t)~(1u << s->mig_inst);
    }
}

void alloc_slot_apply (struct node *n, const struct alloc_slot *s, int64_t seq,
                       int sign)
{
    node_use_apply (&n->use, s, seq, sign);
    n->ncpus_used += sign * s->ncpus;
    n->mem_used += sign * s->mem;
    n->njobs += sign;
    if (s->excl)
        n->excl_by = sign > 0 ? seq : 0;
    for (int g = 0; g < s->ngpus; g++)
        if (s->gpus[g] >= 0 && s->gpus[g] < NODE_MAX_GPUS)
            n->gpu[s->gpus[g]].used_by = sign > 0 ? seq : 0;
    if (s->nmig && s->mig_gpu >= 0 && s->mig_gpu < NODE_MAX_GPUS && s->mig_inst >= 0
        && s->mig_inst < NODE_MAX_MIG)
        n->gpu[s->mig_gpu].mig[s->mig_inst].used_by = sign > 0 ? seq : 0;
}

void alloc_apply (struct alloc *a, int64_t seq, int sign)
{
    for (int i = 0; i < a->n; i++)
        alloc_slot_apply (a->slot[i].node, &a->slot[i], seq, sign);
}

/* One placement: where to look and what usage to suppose. */
struct place_in {
    struct node **nodes;
    const struct node_use *use, *also;
    int nnodes;
    const char *labels;
    int empty, scatter, excl;
    const int *cand;            /* only these nodes may be used (in index */
    int ncand;                  /* order), NULL = all */
    const int *sub;             /* of those, only these (an ib_switch group), */
    int nsub;                   /* NULL = all */
};

/* The k-th node index to consider and how many there are. */
static int cand_count (const struct place_in *in)
{
    return in->sub ? in->nsub : in->cand ? in->ncand : in->nnodes;
}

static int cand_at (const struct place_in *in, int k)
{
    return in->sub ? in->sub[k] : in->cand ? in->cand[k] : k;
}

/* This job's own tentative usage on the nodes it has chunks on so far. */
struct tentative {
    int n;
    int idx[MAX_SLOTS];
    struct node_use u[MAX_SLOTS];
};

static struct node_use *tentative_of (struct tentative *t, int i)
{
    for (int k = 0; k < t->n; k++)
        if (t->idx[k] == i)
            return &t->u[k];
    return NULL;
}

static int node_usable (const struct node *n, const char *labels, int empty)
{
    if (labels && labels[0] && !place_labels_match (n->labels, labels))
        return 0;
    if (empty)
        return n->ncpus > 0;
    /* Up and connected: a node whose link just dropped may still be "up"
     * until its heartbeat times out, but a launch could not reach it. */
    return n->state == NODE_UP && n->conn && !n->offline;
}

/* Cores node i uses as the placement supposes (cheap: no GPU walk). */
static int cpus_used_quick (const struct place_in *in, int i)
{
    int used;

    if (in->empty)
        return 0;
    used = in->use ? in->use[i].ncpus_used : in->nodes[i]->use.ncpus_used;
    if (in->also && in->also[i].ncpus_used > used)
        used = in->also[i].ncpus_used;
    return used;
}

static void use_effective (const struct place_in *in, int i, struct node_use *u)
{
    if (in->empty) {
        memset (u, 0, sizeof (*u));
        return;
    }
    *u = in->use ? in->use[i] : in->nodes[i]->use;
    if (in->also)
        use_combine (u, &in->also[i]);
}

/* Free whole GPUs (not in MIG mode) of a matching model under u. */
static int whole_free (const struct node *n, const struct node_use *u, const char *model)
{
    int k = 0;

    if (!model[0])
        return __builtin_popcount (gpu_mask (n, 0) & ~u->gpus);

    for (int g = 0; g < n->ngpus && g < NODE_MAX_GPUS; g++)
        if (!n->gpu[g].nmig && !(u->gpus & (1u << g))
            && place_model_match (n->gpu[g].model, model))
            k++;
    return k;
}

/* Free MIG instances of profile on GPU g under u. */
static int mig_free_on (const struct node *n, const struct node_use *u, int g,
                        const char *profile)
{
    const struct node_gpu *gpu = &n->gpu[g];
    int k = 0;

    for (int i = 0; i < gpu->nmig && i < NODE_MAX_MIG; i++)
        if (!(u->mig[g] & (1u << i)) && (!profile || !strcmp (gpu->mig[i].profile, profile)))
            k++;
    return k;
}

static int mig_free_total (const struct node *n, const struct node_use *u,
                           const char *profile, const char *model)
{
    uint32_t m = gpu_mask (n, 1);
    int k = 0;

    while (m) {
        int g = __builtin_ctz (m);
        m &= m - 1;
        if (place_model_match (n->gpu[g].model, model))
            k += mig_free_on (n, u, g, profile);
    }
    return k;
}

/* The GPU whose matching free instances are fewest (packing MIG jobs onto
 * GPUs already in use), or -1. */
static int mig_tightest (const struct node *n, const struct node_use *u,
                         const struct hpcq_chunk *c, int *left)
{
    int best = -1, best_free = 0;

    for (int g = 0; g < n->ngpus && g < NODE_MAX_GPUS; g++) {
        int f;
        if (!n->gpu[g].nmig || !place_model_match (n->gpu[g].model, chunk_model (c)))
            continue;
        f = mig_free_on (n, u, g, chunk_mig (c));
        if (f > 0 && (best < 0 || f < best_free)) {
            best = g;
            best_free = f;
        }
    }
    *left = best_free - 1;
    return best;
}

static int64_t clamp20 (int64_t v)
{
    return v < 0 ? 0 : v > 0xfffff ? 0xfffff : v;
}

/* The chunk's own conditions on the node: its host= and node labels. */
static int chunk_node_ok (const struct node *n, const struct hpcq_chunk *c)
{
    return (!c->host || strcmp (n->name, c->host) == 0)
           && (!c->labels || place_labels_match (n->labels, c->labels));
}

/* How badly placing c on n (usage u) fits, lower is better; -1 if it
 * does not fit at all.  See place.h for the order. */
static int64_t chunk_score (const struct node *n, const struct node_use *u,
                            const struct hpcq_chunk *c, int *mig_gpu)
{
    int64_t cpus_left = n->ncpus - u->ncpus_used - c->ncpus;
    int whole = 0, left = 0;

    if (cpus_left < 0 || (c->mem > 0 && n->mem - u->mem_used < c->mem)
        || !chunk_node_ok (n, c))
        return -1;
    if (chunk_mig (c)[0]) {
        if ((*mig_gpu = mig_tightest (n, u, c, &left)) < 0)
            return -1;
        whole = whole_free (n, u, "");
        return (clamp20 (left) << 40) | (clamp20 (whole) << 20) | clamp20 (cpus_left);
    }
    if (c->ngpus > 0) {
        int free_gpus = whole_free (n, u, chunk_model (c));
        if (free_gpus < c->ngpus)
            return -1;
        return (clamp20 (free_gpus - c->ngpus) << 40) | clamp20 (cpus_left);
    }
    if (gpu_mask (n, 0))
        whole = whole_free (n, u, "");
    if (gpu_mask (n, 1))
        whole += mig_free_total (n, u, NULL, "");
    return (clamp20 (whole) << 40) | clamp20 (cpus_left);
}

/* The node usage for node i with this job's chunks so far, if it may
 * take another chunk at all.  0 or -1. */
static int candidate (const struct place_in *in, struct tentative *t, int i,
                      const struct hpcq_chunk *c, struct node_use *u)
{
    const struct node *n = in->nodes[i];
    struct node_use *mine = tentative_of (t, i);

    /* Cheapest test first: most nodes of a busy cluster fail on cores. */
    if (n->ncpus - cpus_used_quick (in, i) - (mine ? mine->ncpus_used : 0) < c->ncpus
        || !node_usable (n, in->labels, in->empty))
        return -1;
    if (mine && (in->scatter || in->excl))
        return -1;
    use_effective (in, i, u);
    if (u->excl_by || (in->excl && u->njobs > 0))
        return -1;
    if (mine) {
        u->ncpus_used += mine->ncpus_used;
        u->mem_used += mine->mem_used;
        u->gpus |= mine->gpus;
        for (int g = 0; g < NODE_MAX_GPUS; g++)
            u->mig[g] |= mine->mig[g];
    }
    return 0;
}

static void chunk_take (struct alloc_slot *slot, struct node *n, struct node_use *u,
                        const struct hpcq_chunk *c, int mig_gpu, int excl)
{
    memset (slot, 0, sizeof (*slot));
    slot->node = n;
    snprintf (slot->node_name, sizeof (slot->node_name), "%s", n->name);
    slot->ncpus = c->ncpus;
    slot->mem = c->mem;
    slot->mpiprocs = c->mpiprocs > 0 ? c->mpiprocs : 1;
    slot->excl = excl;
    for (int g = 0; g < n->ngpus && slot->ngpus < c->ngpus; g++)
        if (!n->gpu[g].nmig && !(u->gpus & (1u << g))
            && place_model_match (n->gpu[g].model, chunk_model (c)))
            slot->gpus[slot->ngpus++] = g;
    if (chunk_mig (c)[0]) {
        const struct node_gpu *gpu = &n->gpu[mig_gpu];
        for (int i = 0; i < gpu->nmig; i++) {
            if (!(u->mig[mig_gpu] & (1u << i)) && !strcmp (gpu->mig[i].profile, c->mig)) {
                slot->nmig = 1;
                slot->mig_gpu = mig_gpu;
                slot->mig_inst = i;
                break;
            }
        }
    }
}

/* The best node for one more copy of c, or -1. */
static int best_node (const struct place_in *in, struct tentative *t,
                      const struct hpcq_chunk *c, int *mig_gpu)
{
    int best = -1;
    int64_t best_score = 0;

    int nn = cand_count (in);

    for (int k = 0; k < nn; k++) {
        struct node_use u;
        int64_t s;
        int g = -1, i = cand_at (in, k);
        /* The scan waits on memory, node after node: ask ahead. */
        if (k + 8 < nn) {
            const struct node *ahead = in->nodes[cand_at (in, k + 8)];
            __builtin_prefetch (&ahead->ncpus);
            __builtin_prefetch (&ahead->use);
        }
        if (candidate (in, t, i, c, &u) < 0
            || (s = chunk_score (in->nodes[i], &u, c, &g)) < 0)
            continue;
        if (best < 0 || s < best_score) {
            best = i;
            best_score = s;
            *mig_gpu = g;
            if (s == 0)
                break;      /* nothing fits tighter */
        }
    }
    return best;
}

static struct alloc *place_core (const struct place_in *in,
                                 const struct hpcq_resources *res)
{
    struct tentative tent, *t = &tent;
    struct alloc work, *a = &work, *out;

    /* On the stack: most attempts fail, and should cost no allocation. */
    t->n = 0;
    a->n = 0;
    for (int c = 0; c < res->nchunks; c++) {
        const struct hpcq_chunk *ch = &res->chunk[c];
        for (int k = 0; k < ch->count; k++) {
            struct node_use u, *mine;
            int g = -1, i;
            if (a->n == MAX_SLOTS || (i = best_node (in, t, ch, &g)) < 0)
                goto fail;
            (void)candidate (in, t, i, ch, &u);
            chunk_take (&a->slot[a->n], in->nodes[i], &u, ch, g, in->excl);
            if (!(mine = tentative_of (t, i))) {
                t->idx[t->n] = i;
                mine = &t->u[t->n++];
                memset (mine, 0, sizeof (*mine));
            }
            node_use_apply (mine, &a->slot[a->n], 0, 1);
            a->n++;
        }
    }
    if (!(out = malloc (sizeof (*out))))
        return NULL;
    memcpy (out, a, offsetof (struct alloc, slot) + a->n * sizeof (a->slot[0]));
    memset (&out->slot[a->n], 0, (MAX_SLOTS - a->n) * sizeof (a->slot[0]));
    return out;
fail:
    return NULL;
}

struct group {
    const char *name;
    int64_t free_cpus;
    int first, n;               /* its members in the member array */
    int order;                  /* first seen, for ties */
};

static int cmp_group (const void *a, const void *b)
{
    const struct group *x = a, *y = b;

    if (x->free_cpus != y->free_cpus)
        return x->free_cpus < y->free_cpus ? -1 : 1;
    return x->order - y->order;
}

/* The ib_switch groups of the usable nodes, tightest (fewest free cores)
 * first, each with its node indices in member[].  Returns how many. */
static int groups_collect (const struct place_in *in, struct group *gr, int *member)
{
    int nn = cand_count (in);
    int *gid = malloc ((nn ? nn : 1) * sizeof (*gid));
    int n = 0, last = -1, pos = 0;

    if (!gid)
        return 0;
    for (int c = 0; c < nn; c++) {
        int i = cand_at (in, c);
        const struct node *node = in->nodes[i];
        int k = last;
        gid[c] = -1;
        if (!node->ib_switch[0] || !node_usable (node, in->labels, in->empty))
            continue;
        /* Nodes of a switch are usually neighbours by name: try the last. */
        if (k < 0 || strcmp (gr[k].name, node->ib_switch) != 0)
            for (k = 0; k < n && strcmp (gr[k].name, node->ib_switch); k++)
                ;
        if (k == n) {
            if (n == MAX_GROUPS)
                continue;
            gr[n++] = (struct group){ .name = node->ib_switch, .order = n };
        }
        gid[c] = last = k;
        gr[k].n++;
        gr[k].free_cpus += node->ncpus - cpus_used_quick (in, i);
    }
    for (int k = 0; k < n; k++) {
        gr[k].first = pos;
        pos += gr[k].n;
        gr[k].n = 0;
    }
    for (int c = 0; c < nn; c++)
        if (gid[c] >= 0) {
            struct group *g = &gr[gid[c]];
            member[g->first + g->n++] = cand_at (in, c);
        }
    free (gid);
    qsort (gr, n, sizeof (*gr), cmp_group);
    return n;
}

static struct alloc *place_grouped (struct place_in *in, const struct hpcq_resources *res)
{
    struct group gr[MAX_GROUPS];
    int ng, *member;
    struct alloc *a = NULL;

    /* Within one switch, a multi-node job's traffic stays off the
     * spine; a single chunk has no traffic to keep together. */
    if (resource_total_chunks (res) < 2 || in->empty
        || !(member = malloc ((cand_count (in) ? cand_count (in) : 1) * sizeof (*member))))
        return place_core (in, res);
    ng = groups_collect (in, gr, member);
    for (int k = 0; k < ng && !a; k++) {
        if (gr[k].free_cpus < resource_total_ncpus (res))
            continue;
        in->sub = member + gr[k].first;
        in->nsub = gr[k].n;
        a = place_core (in, res);
        in->sub = NULL;
    }
    free (member);
    return a ? a : place_core (in, res);
}

static void place_in_init (struct place_in *in, struct node **nodes, int nnodes,
                           const struct hpcq_resources *res, const char *labels)
{
    memset (in, 0, sizeof (*in));
    in->nodes = nodes;
    in->nnodes = nnodes;
    in->labels = labels;
    in->scatter = strncmp (res->place, "scatter", 7) == 0;
    in->excl = strstr (res->place, "excl") != NULL;
}

struct alloc *place_alloc (struct node **nodes, int nnodes,
                           const struct hpcq_resources *res, const char *labels,
                           int64_t seq, int empty)
{
    struct place_in in;

    (void)seq;
    place_in_init (&in, nodes, nnodes, res, labels);
    in.empty = empty;
    return place_grouped (&in, res);
}

struct alloc *place_alloc_use (struct node **nodes, const struct node_use *use,
                               const struct node_use *also, int nnodes,
                               const struct hpcq_resources *res, const char *labels)
{
    return place_alloc_among (nodes, NULL, 0, use, also, nnodes, res, labels);
}

struct alloc *place_alloc_among (struct node **nodes, const int *cand, int ncand,
                                 const struct node_use *use, const struct node_use *also,
                                 int nnodes, const struct hpcq_resources *res,
                                 const char *labels)
{
    struct place_in in;

    place_in_init (&in, nodes, nnodes, res, labels);
    in.cand = cand;
    in.ncand = ncand;
    in.use = use;
    in.also = also;
    return place_grouped (&in, res);
}

int place_chunk_copies (const struct node *n, const struct node_use *u,
                        const struct hpcq_chunk *c, const char *labels,
                        int scatter, int excl, int cap)
{
    int k;

    if (!node_usable (n, labels, 0) || !chunk_node_ok (n, c))
        return 0;
    if (!u)
        u = &n->use;
    if (u->excl_by || (excl && u->njobs > 0))
        return 0;
    k = (n->ncpus - u->ncpus_used) / c->ncpus;
    if (c->mem > 0) {
        int64_t m = (n->mem - u->mem_used) / c->mem;
        if (m < k)
            k = (int)m;
    }
    if (chunk_mig (c)[0]) {
        int m = mig_free_total (n, u, chunk_mig (c), chunk_model (c));
        if (m < k)
            k = m;
    }
    else if (c->ngpus > 0) {
        int m = whole_free (n, u, chunk_model (c)) / c->ngpus;
        if (m < k)
            k = m;
    }
    if ((scatter || excl) && k > 1)
        k = 1;
    if (k < 0)
        k = 0;
    return k < cap ? k : cap;
}

struct alloc *place_job (struct node **nodes, int nnodes, const struct job *job,
                         int empty)
{
    return place_alloc (nodes, nnodes, &job->spec.res, job->node_labels,
                        job->rec.seq, empty);
}
