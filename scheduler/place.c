/* place.c - see place.h */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/jobs.h"
#include "scheduler/nodes.h"
#include "scheduler/place.h"

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

/* Tentative usage while placing one job, so its chunks do not overlap. */
struct scratch {
    int cpus;
    int64_t mem;
    int gpus_taken[NODE_MAX_GPUS];
    int used;               /* chunks of this job placed here */
};

static int node_usable (const struct node *n, const char *labels, int empty)
{
    if (labels && labels[0] && !place_labels_match (n->labels, labels))
        return 0;
    if (empty)
        return n->ncpus > 0;
    /* Up and connected: a node whose link just dropped may still be "up"
     * until its heartbeat times out, but a launch could not reach it. */
    return n->state == NODE_UP && n->conn && n->excl_by == 0;
}

static int chunk_fits (const struct node *n, const struct scratch *sc,
                       const struct hpcq_chunk *c, int empty, int scatter, int excl)
{
    int cpus_used = empty ? 0 : n->ncpus_used;
    int64_t mem_used = empty ? 0 : n->mem_used;
    int free_gpus = 0;

    if ((scatter || excl) && sc->used)
        return 0;
    if (excl && !empty && n->njobs > 0)
        return 0;
    for (int g = 0; g < n->ngpus; g++)
        if ((empty || !n->gpu[g].used_by) && !sc->gpus_taken[g])
            free_gpus++;
    return n->ncpus - cpus_used - sc->cpus >= c->ncpus
           && (c->mem == 0 || n->mem - mem_used - sc->mem >= c->mem)
           && free_gpus >= c->ngpus;
}

static void chunk_take (struct alloc_slot *slot, struct node *n, struct scratch *sc,
                        const struct hpcq_chunk *c, int empty, int excl)
{
    slot->node = n;
    snprintf (slot->node_name, sizeof (slot->node_name), "%s", n->name);
    slot->ncpus = c->ncpus;
    slot->mem = c->mem;
    slot->mpiprocs = c->mpiprocs > 0 ? c->mpiprocs : 1;
    slot->excl = excl;
    slot->ngpus = 0;
    for (int g = 0; g < n->ngpus && slot->ngpus < c->ngpus; g++) {
        if ((empty || !n->gpu[g].used_by) && !sc->gpus_taken[g]) {
            sc->gpus_taken[g] = 1;
            slot->gpus[slot->ngpus++] = g;
        }
    }
    sc->cpus += c->ncpus;
    sc->mem += c->mem;
    sc->used++;
}

struct alloc *place_alloc (struct node **nodes, int nnodes,
                           const struct hpcq_resources *res, const char *labels,
                           int64_t seq, int empty)
{
    struct scratch *sc = calloc (nnodes ? nnodes : 1, sizeof (*sc));
    struct alloc *a = calloc (1, sizeof (*a));
    int scatter = strncmp (res->place, "scatter", 7) == 0;
    int excl = strstr (res->place, "excl") != NULL;

    if (!sc || !a)
        goto fail;
    for (int c = 0; c < res->nchunks; c++) {
        const struct hpcq_chunk *ch = &res->chunk[c];
        for (int k = 0; k < ch->count; k++) {
            int i;
            if (a->n == (int)(sizeof (a->slot) / sizeof (a->slot[0])))
                goto fail;
            for (i = 0; i < nnodes; i++)
                if (node_usable (nodes[i], labels, empty)
                    && chunk_fits (nodes[i], &sc[i], ch, empty, scatter, excl))
                    break;
            if (i == nnodes)
                goto fail;
            chunk_take (&a->slot[a->n++], nodes[i], &sc[i], ch, empty, excl);
        }
    }
    free (sc);
    return a;
fail:
    free (sc);
    free (a);
    return NULL;
}

void alloc_slot_apply (struct node *n, const struct alloc_slot *s, int64_t seq,
                       int sign)
{
    n->ncpus_used += sign * s->ncpus;
    n->mem_used += sign * s->mem;
    n->njobs += sign;
    if (s->excl)
        n->excl_by = sign > 0 ? seq : 0;
    for (int g = 0; g < s->ngpus; g++)
        if (s->gpus[g] >= 0 && s->gpus[g] < NODE_MAX_GPUS)
            n->gpu[s->gpus[g]].used_by = sign > 0 ? seq : 0;
}

void alloc_apply (struct alloc *a, int64_t seq, int sign)
{
    for (int i = 0; i < a->n; i++)
        alloc_slot_apply (a->slot[i].node, &a->slot[i], seq, sign);
}


struct alloc *place_job (struct node **nodes, int nnodes, const struct job *job,
                         int empty)
{
    return place_alloc (nodes, nnodes, &job->spec.res, job->node_labels,
                        job->rec.seq, empty);
}
