/* place.h - fitting a job's request onto nodes: the allocation model.
 *
 * An allocation is one slot per select chunk instance, each naming the
 * node, cores, memory and GPUs (or the one MIG instance) it holds.
 * place_alloc() finds one on the nodes' free resources, all or nothing,
 * or (empty=1) on empty nodes, to judge at submission whether a request
 * could ever run.  It works on any array of node records: the daemon's or
 * a simulator's; a policy that reasons about other times passes compact
 * usage records instead of copying nodes (place_alloc_use), so the
 * daemon, the backfill reasoning and hpcq-sim share this one code.
 * Nothing here touches sockets or the database.
 *
 * Where several nodes fit, the best fit wins: a GPU chunk goes where the
 * fewest matching GPUs (or MIG instances of its profile) stay free next
 * to it; CPU-only and MIG chunks go where they break up the fewest whole
 * free GPUs; then the fewest cores left over; then the first node.  A job
 * of several chunks prefers nodes of one ib_switch=X label group, the
 * tightest group that holds it all.  A job with -l spot=true or false
 * goes only on spot nodes (label spot) or never on them; where its queue
 * prefers one kind (res->prefer_spot) a node of that kind wins over any
 * other that fits.
 *
 * A job may hold any number of nodes: its allocation is sized to it, and
 * copies of one chunk (select=N) are placed from one scoring of the
 * nodes (a heap), not one scan of them per copy.
 */
#ifndef HPCQ_SCHEDULER_POLICY_PLACE_H
#define HPCQ_SCHEDULER_POLICY_PLACE_H

#include <stdint.h>
#include <jansson.h>

#include "common/resource.h"
#include "scheduler/alloc.h"

struct node;
struct node_use;
struct job;

/* Place res on the nodes (all-or-nothing) and return a new allocation, or
 * NULL if it does not fit.  labels: every node used must carry all of
 * these comma-separated labels (a queue's node_labels); NULL or "" = any.
 * With empty=1, on empty nodes (capacity) whatever their state. */
struct alloc *place_alloc (struct node **nodes, int nnodes,
                           const struct hpcq_resources *res, const char *labels,
                           int64_t seq, int empty);

/* place_alloc() with supposed usage: node i counts as using use[i]
 * (NULL: its own usage), and, where also is given, whatever also[i] uses
 * on top (the larger of the two for counts, either for GPUs). */
struct alloc *place_alloc_use (struct node **nodes, const struct node_use *use,
                               const struct node_use *also, int nnodes,
                               const struct hpcq_resources *res, const char *labels);

/* place_alloc_use() on the nodes cand[0..ncand) only (indices into
 * nodes, ascending; NULL: all): the same placement as on all nodes when
 * the others cannot take any chunk (a policy's list of nodes with free
 * cores), at a fraction of the cost on a full cluster. */
struct alloc *place_alloc_among (struct node **nodes, const int *cand, int ncand,
                                 const struct node_use *use,
                                 const struct node_use *also, int nnodes,
                                 const struct hpcq_resources *res, const char *labels);

/* place_alloc() for a job: its request and its queue's node labels. */
struct alloc *place_job (struct node **nodes, int nnodes, const struct job *job,
                         int empty);

/* How many copies of chunk c fit on node n alone under usage u (NULL: its
 * own), at most cap; 0 if n is not usable (state, labels, excl).  The
 * cheap bound a policy checks before trying a full placement. */
int place_chunk_copies (const struct node *n, const struct node_use *u,
                        const struct hpcq_chunk *c, const char *labels, int scatter,
                        int excl, int cap);

/* place_chunk_copies() on n empty, whatever its state: how many copies
 * of c it could ever hold (what submission judges by). */
int place_chunk_capacity (const struct node *n, const struct hpcq_chunk *c,
                          const char *labels, int scatter, int excl, int cap);

/* 1 if the comma-separated labels have include every one of want. */
int place_labels_match (const char *have, const char *want);

/* 1 if labels carry name as a bare label or as name=TRUE (a PBS boolean:
 * "spot", "spot=true"), else 0. */
int place_label_true (const char *labels, const char *name);

/* Allocation bookkeeping on nodes: add (sign 1) or remove (-1) job seq's
 * use of one slot on node n (a real record, or a policy's copy). */
void alloc_slot_apply (struct node *n, const struct alloc_slot *s, int64_t seq,
                       int sign);

/* The same on a compact usage record. */
void node_use_apply (struct node_use *u, const struct alloc_slot *s, int64_t seq,
                     int sign);
/* A node's own usage as a compact record, from its usage fields. */
void node_use_of (const struct node *n, struct node_use *u);

/* Recompute what placement caches in a node record (n->use, n->ib_switch,
 * the GPU masks) after its labels, GPUs or usage fields were set other
 * than through alloc_slot_apply(), which keeps n->use current.  Whoever
 * builds node records (nodes.c, a simulator, the tests) calls it once
 * they are filled in: placement reads the usage from n->use only. */
void place_node_sync (struct node *n);

/* 1 if a GPU of this model name satisfies gpu_model want ("" = any). */
int place_model_match (const char *model, const char *want);

#endif
