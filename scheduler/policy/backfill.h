/* backfill.h - what the backfill policies share (backfill.c: EASY;
 * policy_conservative.c: conservative).
 *
 * Both reason about the nodes at future times on compact usage records
 * (struct node_use, one per node in ctx->nodes order), never on copies of
 * the node records, and both skip a job whose exact request already
 * failed to fit in this pass (an equivalence class: the same chunks,
 * place and node labels fail the same way while nodes only fill up).
 */
#ifndef HPCQ_SCHEDULER_POLICY_BACKFILL_H
#define HPCQ_SCHEDULER_POLICY_BACKFILL_H

#include <stdint.h>

#include "scheduler/policy/place.h"
#include "scheduler/policy/policy.h"

#define T_NEVER INT64_MAX

/* The job's walltime, the default one, or -1 when it is unbounded. */
int64_t backfill_walltime (const struct policy_ctx *ctx, const struct job *job);
/* When a running job's walltime runs out; T_NEVER if unbounded. */
int64_t backfill_end (const struct policy_ctx *ctx, const struct job *job);

/* Running jobs (ctx->running, and those of started[] holding an
 * allocation: jobs this pass started), each once, by the time their
 * walltime runs out (new array, caller frees; *np receives its length).
 * NULL on allocation failure. */
struct job **backfill_running_by_end (const struct policy_ctx *ctx,
                                      struct job **started, int nstarted, int *np);

/* Number the nodes (node->pidx) and return their usage now (new array of
 * ctx->nnodes records, caller frees), or NULL. */
struct node_use *backfill_use_now (struct policy_ctx *ctx);

/* Add (sign 1) or remove (-1) an allocation on usage records. */
void backfill_use_apply (const struct policy_ctx *ctx, struct node_use *use,
                         const struct alloc *a, int64_t seq, int sign);

/* 1 if a and b ask for the same: chunks, place and node labels. */
int backfill_same_request (const struct job *a, const struct job *b);

/* Requests that failed to fit in this pass, by kind of attempt. */
struct reqcache;
struct reqcache *reqcache_create (void);
void reqcache_destroy (struct reqcache *rc);
/* 1 if a request equal to job's failed attempt kind (0 to 3) already in
 * this pass. */
int reqcache_failed (struct reqcache *rc, const struct job *job, int kind);
void reqcache_add (struct reqcache *rc, const struct job *job, int kind);

#endif
