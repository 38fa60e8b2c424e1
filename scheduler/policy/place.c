/* place.c - see place.h */
#include <config.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/intern.h"
#include "scheduler/job.h"
#include "scheduler/node.h"
#include "scheduler/policy/place.h"

/* Slots an allocation being built keeps on the stack before it moves to
 * the heap: every job of up to this many chunks costs no allocation
 * until it fits (most attempts fail). */
#define SLOTS_ON_STACK 64
/* Copies of one chunk from which the candidates are scored once and kept
 * in a heap, rather than scanned again for each copy. */
#define PICK_MIN 4

struct alloc *alloc_new (int n)
{
    struct alloc *a =
        calloc (1, sizeof (*a) + (size_t)(n > 0 ? n : 0) * sizeof (a->slot[0]));

    if (a)
        a->n = n;
    return a;
}

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

/* ib_switch groups by number, so that a placement sorts nodes into
 * groups by indexing, not by comparing names: every value seen keeps its
 * number for good (a site has a few hundred switches, not millions). */
static struct intern switches = INTERN_INIT (0);

int place_label_true (const char *labels, const char *name)
{
    size_t len = strlen (name);

    for (const char *p = labels; *p;) {
        size_t n = strcspn (p, ",");
        if (n >= len && strncmp (p, name, len) == 0) {
            if (n == len)
                return 1;
            if (p[len] == '=') {
                char v[16];
                snprintf (v, sizeof (v), "%.*s", (int)(n - len - 1), p + len + 1);
                return resource_parse_bool (v) == 1;
            }
        }
        p += n + (p[n] == ',');
    }
    return 0;
}

static void ib_switch_find (struct node *n)
{
    const char *p = n->labels;

    n->ib_switch[0] = '\0';
    n->ib_group = 0;
    while ((p = strstr (p, "ib_switch="))) {
        if (p == n->labels || p[-1] == ',') {
            p += strlen ("ib_switch=");
            snprintf (n->ib_switch, sizeof (n->ib_switch), "%.*s",
                      (int)strcspn (p, ","), p);
            if (n->ib_switch[0])
                n->ib_group = intern_number (&switches, n->ib_switch) + 1;
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
    for (int g = 0; g < n->ngpus && g < GPU_MAX; g++)
        if ((n->gpu[g].nmig > 0) == mig)
            m |= 1u << g;
    return m;
}

void place_node_sync (struct node *n)
{
    node_use_of (n, &n->use);
    ib_switch_find (n);
    n->spot = place_label_true (n->labels, "spot");
    n->whole_gpus = n->mig_gpus = 0;
    for (int g = 0; g < n->ngpus && g < GPU_MAX; g++) {
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
    for (int g = 0; g < n->ngpus && g < GPU_MAX; g++) {
        const struct gpu *gpu = &n->gpu[g];
        if (gpu->used_by)
            u->gpus |= 1u << g;
        for (int i = 0; i < gpu->nmig && i < GPU_MIG_MAX; i++)
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
    for (int g = 0; g < GPU_MAX; g++)
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
        if (s->gpus[g] < 0 || s->gpus[g] >= GPU_MAX)
            continue;
        if (sign > 0)
            u->gpus |= 1u << s->gpus[g];
        else
            u->gpus &= ~(1u << s->gpus[g]);
    }
    if (s->nmig && s->mig_gpu >= 0 && s->mig_gpu < GPU_MAX && s->mig_inst >= 0
        && s->mig_inst < GPU_MIG_MAX) {
        if (sign > 0)
            u->mig[s->mig_gpu] |= (uint8_t)(1u << s->mig_inst);
        else
            u->mig[s->mig_gpu] &= (uint8_t) ~(1u << s->mig_inst);
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
        if (s->gpus[g] >= 0 && s->gpus[g] < GPU_MAX)
            n->gpu[s->gpus[g]].used_by = sign > 0 ? seq : 0;
    if (s->nmig && s->mig_gpu >= 0 && s->mig_gpu < GPU_MAX && s->mig_inst >= 0
        && s->mig_inst < GPU_MIG_MAX)
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
    int spot;        /* the job's spot= (-1 any) */
    int prefer_spot; /* its queue's preference (-1 none) */
    int oci;         /* it runs in a container: only nodes with an OCI runtime */
    const int *cand; /* only these nodes may be used (in index */
    int ncand;       /* order), NULL = all */
    const int *sub;  /* of those, only these (an ib_switch group), */
    int nsub;        /* NULL = all */
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

/* This job's own tentative usage on the nodes it has chunks on so far:
 * node index -> usage, open addressing, at most half full.  On the stack
 * for jobs of a few nodes; a big job's moves to the heap as it grows. */
#define TENT_SMALL 128 /* a power of two */

struct tent_ent {
    int key; /* node index + 1; 0: empty */
    struct node_use u;
};

struct tentative {
    int n, cap;
    struct tent_ent *v;
    struct tent_ent small[TENT_SMALL];
};

static void tentative_init (struct tentative *t)
{
    t->n = 0;
    t->cap = 0; /* the small table is cleared on first use */
    t->v = NULL;
}

static void tentative_release (struct tentative *t)
{
    if (t->v != t->small)
        free (t->v);
}

static unsigned tent_hash (int i, int cap)
{
    return (unsigned)(((uint64_t)(unsigned)i * 0x9e3779b97f4a7c15ULL) >> 32)
           & (cap - 1);
}

static struct tent_ent *tent_find (struct tent_ent *v, int cap, int i)
{
    unsigned h = tent_hash (i, cap);

    while (v[h].key && v[h].key != i + 1)
        h = (h + 1) & (cap - 1);
    return &v[h];
}

static struct node_use *tentative_of (struct tentative *t, int i)
{
    struct tent_ent *e;

    if (t->n == 0)
        return NULL;
    e = tent_find (t->v, t->cap, i);
    return e->key ? &e->u : NULL;
}

/* Node i's entry, made empty if new; NULL if memory is short. */
static struct node_use *tentative_add (struct tentative *t, int i)
{
    struct tent_ent *e;

    if (t->cap == 0) {
        t->v = t->small;
        t->cap = TENT_SMALL;
        for (int k = 0; k < TENT_SMALL; k++)
            t->small[k].key = 0;
    }
    if ((t->n + 1) * 2 > t->cap) {
        int cap = t->cap * 2;
        struct tent_ent *nv = calloc (cap, sizeof (*nv));
        if (!nv)
            return NULL;
        for (int k = 0; k < t->cap; k++)
            if (t->v[k].key)
                *tent_find (nv, cap, t->v[k].key - 1) = t->v[k];
        tentative_release (t);
        t->v = nv;
        t->cap = cap;
    }
    e = tent_find (t->v, t->cap, i);
    if (!e->key) {
        e->key = i + 1;
        memset (&e->u, 0, sizeof (e->u));
        t->n++;
    }
    return &e->u;
}

/* spot: the job's spot= request (-1: either kind of node). */
static int node_usable (const struct node *n, const char *labels, int spot, int empty)
{
    if (labels && labels[0] && !place_labels_match (n->labels, labels))
        return 0;
    if (spot >= 0 && n->spot != spot)
        return 0;
    if (empty)
        return n->ncpus > 0;
    /* Up and connected: a node whose link just dropped may still be "up"
     * until its heartbeat times out, but a launch could not reach it.
     * Neither out of service nor draining (a reclaim, a suspension). */
    return n->state == NODE_UP && n->reachable && !n->offline && !n->drain;
}

/* What placing on n costs beyond its fit: a node of the kind its queue
 * does not prefer comes after every node of the kind it does. */
static int64_t preference_penalty (const struct place_in *in, const struct node *n)
{
    return in->prefer_spot >= 0 && n->spot != in->prefer_spot ? INT64_C (1) << 61 : 0;
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
static int whole_free (const struct node *n, const struct node_use *u,
                       const char *model)
{
    int k = 0;

    if (!model[0])
        return __builtin_popcount (gpu_mask (n, 0) & ~u->gpus);

    for (int g = 0; g < n->ngpus && g < GPU_MAX; g++)
        if (!n->gpu[g].nmig && !(u->gpus & (1u << g))
            && place_model_match (n->gpu[g].model, model))
            k++;
    return k;
}

/* Free MIG instances of profile on GPU g under u. */
static int mig_free_on (const struct node *n, const struct node_use *u, int g,
                        const char *profile)
{
    const struct gpu *gpu = &n->gpu[g];
    int k = 0;

    for (int i = 0; i < gpu->nmig && i < GPU_MIG_MAX; i++)
        if (!(u->mig[g] & (1u << i))
            && (!profile || !strcmp (gpu->mig[i].profile, profile)))
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

    for (int g = 0; g < n->ngpus && g < GPU_MAX; g++) {
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
        || !node_usable (n, in->labels, in->spot, in->empty) || (in->oci && !n->oci))
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
        for (int g = 0; g < GPU_MAX; g++)
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
        const struct gpu *gpu = &n->gpu[mig_gpu];
        for (int i = 0; i < gpu->nmig; i++) {
            if (!(u->mig[mig_gpu] & (1u << i))
                && !strcmp (gpu->mig[i].profile, c->mig)) {
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
        s += preference_penalty (in, in->nodes[i]);
        if (best < 0 || s < best_score) {
            best = i;
            best_score = s;
            *mig_gpu = g;
            if (s == 0)
                break; /* nothing fits tighter */
        }
    }
    return best;
}

/* An allocation being built: its slots (on the stack while few) and the
 * job's usage so far on the nodes it holds. */
struct build {
    struct tentative t;
    int n, cap;
    struct alloc_slot *v;
    struct alloc_slot small[SLOTS_ON_STACK];
};

static void build_init (struct build *b)
{
    tentative_init (&b->t);
    b->n = 0;
    b->cap = SLOTS_ON_STACK;
    b->v = b->small;
}

static void build_release (struct build *b)
{
    tentative_release (&b->t);
    if (b->v != b->small)
        free (b->v);
}

/* Take one copy of c on node i (which candidate() accepted).  0 or -1
 * (ENOMEM). */
static int build_take (const struct place_in *in, struct build *b, int i,
                       const struct hpcq_chunk *c, int mig_gpu)
{
    struct node_use u, *mine;

    if (b->n == b->cap) {
        int cap = b->cap * 2;
        struct alloc_slot *nv = malloc (cap * sizeof (*nv));
        if (!nv)
            return -1;
        memcpy (nv, b->v, b->n * sizeof (*nv));
        if (b->v != b->small)
            free (b->v);
        b->v = nv;
        b->cap = cap;
    }
    (void)candidate (in, &b->t, i, c, &u);
    chunk_take (&b->v[b->n], in->nodes[i], &u, c, mig_gpu, in->excl);
    if (!(mine = tentative_add (&b->t, i)))
        return -1;
    node_use_apply (mine, &b->v[b->n], 0, 1);
    b->n++;
    return 0;
}

/* Candidates for many copies of one chunk, best first: a binary heap on
 * (score, scan position), so the order is best_node()'s. */
struct pick {
    int64_t score;
    int k; /* position in the scan */
    int mig_gpu;
};

static int pick_before (const struct pick *x, const struct pick *y)
{
    return x->score < y->score || (x->score == y->score && x->k < y->k);
}

static void pick_down (struct pick *h, int n, int at)
{
    for (;;) {
        int l = 2 * at + 1, best = at;
        struct pick tmp;
        if (l < n && pick_before (&h[l], &h[best]))
            best = l;
        if (l + 1 < n && pick_before (&h[l + 1], &h[best]))
            best = l + 1;
        if (best == at)
            return;
        tmp = h[at];
        h[at] = h[best];
        h[best] = tmp;
        at = best;
    }
}

/* How node i scores for one more copy of c: 0 with *p filled, or -1. */
static int pick_score (const struct place_in *in, struct tentative *t, int k,
                       const struct hpcq_chunk *c, struct pick *p)
{
    struct node_use u;
    int i = cand_at (in, k);

    p->k = k;
    p->mig_gpu = -1;
    if (candidate (in, t, i, c, &u) < 0
        || (p->score = chunk_score (in->nodes[i], &u, c, &p->mig_gpu)) < 0)
        return -1;
    p->score += preference_penalty (in, in->nodes[i]);
    return 0;
}

/* Every copy of c, each on the best node for it as best_node() would
 * choose, with the nodes scored once: only the node just taken changes.
 * 0, or -1 if they do not all fit (or memory is short). */
static int place_copies (const struct place_in *in, struct build *b,
                         const struct hpcq_chunk *c)
{
    int nn = cand_count (in), np = 0, rc = -1;
    struct pick *h = malloc ((nn ? nn : 1) * sizeof (*h));

    if (!h)
        return -1;
    for (int k = 0; k < nn; k++)
        if (pick_score (in, &b->t, k, c, &h[np]) == 0)
            np++;
    for (int k = np / 2 - 1; k >= 0; k--)
        pick_down (h, np, k);
    for (int copy = 0; copy < c->count; copy++) {
        struct pick top;
        if (np == 0)
            goto out;
        top = h[0];
        if (build_take (in, b, cand_at (in, top.k), c, top.mig_gpu) < 0)
            goto out;
        if (pick_score (in, &b->t, top.k, c, &h[0]) < 0)
            h[0] = h[--np];
        pick_down (h, np, 0);
    }
    rc = 0;
out:
    free (h);
    return rc;
}

/* Copies of c that fit on node n under usage u, at most cap (0 if u holds
 * it exclusively, or excl and anything runs there). */
static int copies_on (const struct node *n, const struct node_use *u,
                      const struct hpcq_chunk *c, int scatter, int excl, int cap)
{
    int k;

    if (u->excl_by || (excl && u->njobs > 0) || !chunk_node_ok (n, c))
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
    } else if (c->ngpus > 0) {
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

/* 1 if the candidates hold every chunk of res, each select term counted
 * alone and node by node: a necessary condition that a big job checks in
 * one pass over the nodes before it is placed, so that a request far
 * beyond the nodes fails at that cost. */
static int room_for (const struct place_in *in, const struct hpcq_resources *res)
{
    int nn = cand_count (in);

    for (int c = 0; c < res->nchunks; c++) {
        const struct hpcq_chunk *ch = &res->chunk[c];
        int room = 0;
        for (int k = 0; k < nn && room < ch->count; k++) {
            int i = cand_at (in, k);
            struct node_use u;
            if (!node_usable (in->nodes[i], in->labels, in->spot, in->empty)
                || (in->oci && !in->nodes[i]->oci))
                continue;
            use_effective (in, i, &u);
            room += copies_on (in->nodes[i], &u, ch, in->scatter, in->excl,
                               ch->count - room);
        }
        if (room < ch->count)
            return 0;
    }
    return 1;
}

static struct alloc *place_core (const struct place_in *in,
                                 const struct hpcq_resources *res)
{
    struct build b;
    struct alloc *out = NULL;

    if (resource_total_chunks (res) > SLOTS_ON_STACK && !room_for (in, res))
        return NULL;
    build_init (&b);
    for (int c = 0; c < res->nchunks; c++) {
        const struct hpcq_chunk *ch = &res->chunk[c];
        if (ch->count >= PICK_MIN) {
            if (place_copies (in, &b, ch) < 0)
                goto out;
            continue;
        }
        for (int k = 0; k < ch->count; k++) {
            int g = -1, i;
            if ((i = best_node (in, &b.t, ch, &g)) < 0
                || build_take (in, &b, i, ch, g) < 0)
                goto out;
        }
    }
    if ((out = alloc_new (b.n)))
        memcpy (out->slot, b.v, b.n * sizeof (b.v[0]));
out:
    build_release (&b);
    return out;
}

struct group {
    const char *name;
    int64_t free_cpus;
    int first, n; /* its members in the member array */
    int order;    /* first seen, for ties */
};

static int cmp_group (const void *a, const void *b)
{
    const struct group *x = a, *y = b;

    if (x->free_cpus != y->free_cpus)
        return x->free_cpus < y->free_cpus ? -1 : 1;
    return x->order - y->order;
}

/* The ib_switch groups of the usable nodes, tightest (fewest free cores)
 * first, each with its node indices in member[]: *grp (new, freed by the
 * caller) and how many, or -1 (memory short). */
static int groups_collect (const struct place_in *in, struct group **grp, int *member)
{
    int nn = cand_count (in), nsw = intern_count (&switches);
    int *gid = malloc (((size_t)nn + nsw + 1) * sizeof (*gid)), *of = gid + nn;
    struct group *gr = malloc ((nsw ? nsw : 1) * sizeof (*gr));
    int n = 0, pos = 0;

    if (!gid || !gr) {
        free (gid);
        free (gr);
        return -1;
    }
    memset (of, 0, nsw * sizeof (*of)); /* switch number -> group + 1 */
    for (int c = 0; c < nn; c++) {
        int i = cand_at (in, c), k;
        const struct node *node = in->nodes[i];
        gid[c] = -1;
        /* A record never synced (place_node_sync) has no group (0). */
        if (node->ib_group <= 0 || node->ib_group > nsw
            || !node_usable (node, in->labels, in->spot, in->empty)
            || (in->oci && !node->oci))
            continue;
        if ((k = of[node->ib_group - 1] - 1) < 0) {
            k = n++;
            gr[k] = (struct group){ .name = node->ib_switch, .order = k };
            of[node->ib_group - 1] = k + 1;
        }
        gid[c] = k;
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
    *grp = gr;
    return n;
}

static struct alloc *place_grouped (struct place_in *in,
                                    const struct hpcq_resources *res)
{
    struct group *gr = NULL;
    int ng, *member;
    struct alloc *a = NULL;

    /* Within one switch, a multi-node job's traffic stays off the
     * spine; a single chunk has no traffic to keep together. */
    if (resource_total_chunks (res) < 2 || in->empty
        || !(member =
                 malloc ((cand_count (in) ? cand_count (in) : 1) * sizeof (*member))))
        return place_core (in, res);
    ng = groups_collect (in, &gr, member);
    for (int k = 0; k < ng && !a; k++) {
        if (gr[k].free_cpus < resource_total_ncpus (res))
            continue;
        in->sub = member + gr[k].first;
        in->nsub = gr[k].n;
        a = place_core (in, res);
        in->sub = NULL;
    }
    free (gr);
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
    in->spot = res->force_spot >= 0 ? res->force_spot : res->spot;
    in->prefer_spot = res->prefer_spot;
    in->oci = res->container_image != NULL;
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
                                 const struct node_use *use,
                                 const struct node_use *also, int nnodes,
                                 const struct hpcq_resources *res, const char *labels)
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
                        const struct hpcq_chunk *c, const char *labels, int scatter,
                        int excl, int cap)
{
    if (!node_usable (n, labels, -1, 0))
        return 0;
    return copies_on (n, u ? u : &n->use, c, scatter, excl, cap);
}

int place_chunk_capacity (const struct node *n, const struct hpcq_chunk *c,
                          const char *labels, int scatter, int excl, int cap)
{
    struct node_use none;

    if (!node_usable (n, labels, -1, 1))
        return 0;
    memset (&none, 0, sizeof (none));
    return copies_on (n, &none, c, scatter, excl, cap);
}

struct alloc *place_job (struct node **nodes, int nnodes, const struct job *job,
                         int empty)
{
    return place_alloc (nodes, nnodes, &job->spec.res, job->node_labels, job->rec.seq,
                        empty);
}
