/* policy_fifo.c - first in, first out within priority.
 *
 * Jobs are taken by priority, then submission order; each starts on the
 * first nodes whose free cores, memory and GPUs fit it.  The first job
 * that does not fit stops the pass (strict order: without backfill,
 * letting smaller jobs pass would starve large ones).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdlib.h>

#include "scheduler/policy/policy.h"

static void fifo_pass (struct policy_ctx *ctx)
{
    policy_sort_priority (ctx->jobs, ctx->njobs);
    for (int i = 0; i < ctx->njobs; i++) {
        struct alloc *a = ctx->fit (ctx, ctx->jobs[i]);
        if (!a)
            break;
        if (ctx->start (ctx, ctx->jobs[i], a) < 0)
            break; /* start took a either way */
    }
}

const struct policy_ops policy_fifo = {
    .name = "fifo",
    .pass = fifo_pass,
};
