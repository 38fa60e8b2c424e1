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

#include "scheduler/policy.h"

static int cmp_priority (const void *a, const void *b)
{
    const struct job *x = *(struct job *const *)a, *y = *(struct job *const *)b;

    if (x->rec.priority != y->rec.priority)
        return x->rec.priority > y->rec.priority ? -1 : 1;
    return x->rec.seq < y->rec.seq ? -1 : x->rec.seq > y->rec.seq;
}

void policy_sort_priority (struct job **jobs, int n)
{
    qsort (jobs, n, sizeof (*jobs), cmp_priority);
}

static void fifo_pass (struct policy_ctx *ctx)
{
    policy_sort_priority (ctx->jobs, ctx->njobs);
    for (int i = 0; i < ctx->njobs; i++) {
        struct alloc *a = ctx->fit (ctx, ctx->jobs[i]);
        if (!a)
            break;
        if (ctx->start (ctx, ctx->jobs[i], a) < 0)
            break;      /* start took a either way */
    }
}

const struct policy_ops policy_fifo = {
    .name = "fifo",
    .pass = fifo_pass,
};
