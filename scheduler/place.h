/* place.h - fitting a job's request onto nodes: the allocation model.
 *
 * An allocation is one slot per select chunk instance, each naming the
 * node, cores, memory and GPUs it holds.  place_alloc() finds one on the
 * nodes' free resources, all or nothing, or (empty=1) on empty nodes, to
 * judge at submission whether a request could ever run.  It works on any
 * array of node records: the daemon's, a policy's copies ("views") or a
 * simulator's, so the daemon, the backfill reasoning and hpcq-sim share
 * this one code.  Nothing here touches sockets or the database.
 */
#ifndef HPCQ_SCHEDULER_PLACE_H
#define HPCQ_SCHEDULER_PLACE_H

#include <stdint.h>
#include <jansson.h>

#include "common/resource.h"

struct node;
struct job;

/* Where one chunk of a job runs. */
struct alloc_slot {
    struct node *node;
    char node_name[64];
    int ncpus;
    int64_t mem;
    int ngpus;
    int gpus[16];           /* GPU indices on the node */
    int mpiprocs;
    int excl;
};

struct alloc {
    int n;
    struct alloc_slot slot[64];
};

/* Place res on the nodes (all-or-nothing) and return a new allocation, or
 * NULL if it does not fit.  labels: every node used must carry all of
 * these comma-separated labels (a queue's node_labels); NULL or "" = any.
 * With empty=1, on empty nodes (capacity) whatever their state. */
struct alloc *place_alloc (struct node **nodes, int nnodes,
                           const struct hpcq_resources *res, const char *labels,
                           int64_t seq, int empty);

/* place_alloc() for a job: its request and its queue's node labels. */
struct alloc *place_job (struct node **nodes, int nnodes, const struct job *job,
                         int empty);

/* 1 if the comma-separated labels have include every one of want. */
int place_labels_match (const char *have, const char *want);

/* Allocation bookkeeping on nodes: add (sign 1) or remove (-1) job seq's
 * use of one slot on node n (a real record, or a policy's copy). */
void alloc_slot_apply (struct node *n, const struct alloc_slot *s, int64_t seq,
                       int sign);

#endif
