/* why.c - see why.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/resource.h"
#include "scheduler/policy/why.h"

enum why_code { WHY_RESOURCE = 1, WHY_TOP_JOB, WHY_ORDER, WHY_NODES };
enum why_res { RES_NCPUS, RES_MEM, RES_NGPUS, NRES };

static const char *res_name[NRES] = { "ncpus", "mem", "ngpus" };

/* What is free (avail) and what there is (total) on the nodes a job
 * could be placed on now: up, reachable, in service. */
struct why_room {
    int64_t avail[NRES], total[NRES];
};

static int popcount32 (uint32_t x)
{
    return __builtin_popcount (x);
}

static void room_of (const struct policy_ctx *ctx, struct why_room *r)
{
    memset (r, 0, sizeof (*r));
    for (int i = 0; i < ctx->nnodes; i++) {
        const struct node *n = ctx->nodes[i];
        if (n->ncpus <= 0 || n->state != NODE_UP || !n->reachable || n->offline
            || n->drain)
            continue;
        r->total[RES_NCPUS] += n->ncpus;
        r->total[RES_MEM] += n->mem;
        r->total[RES_NGPUS] += n->ngpus;
        if (n->use.ncpus_used < n->ncpus)
            r->avail[RES_NCPUS] += n->ncpus - n->use.ncpus_used;
        if (n->use.mem_used < n->mem)
            r->avail[RES_MEM] += n->mem - n->use.mem_used;
        r->avail[RES_NGPUS] += popcount32 (n->whole_gpus & ~n->use.gpus);
    }
}

/* One reason: the code, and for WHY_RESOURCE which resource and how much
 * the job asks for.  Jobs with equal reasons get one text. */
struct why {
    int code, res;
    int64_t want;
};

/* want: the job's totals, kept while jobs share one request (an array's
 * subjobs share their array's). */
struct want_cache {
    const struct hpcq_chunk *chunk;
    int nchunks;
    int64_t v[NRES];
};

static struct why why_of (const struct job *job, const struct why_room *room,
                          int behind, const struct policy_ops *policy,
                          struct want_cache *wc)
{
    const struct hpcq_resources *res = &job->spec.res;

    if (res->chunk != wc->chunk || res->nchunks != wc->nchunks) {
        wc->chunk = res->chunk;
        wc->nchunks = res->nchunks;
        wc->v[RES_NCPUS] = resource_total_ncpus (res);
        wc->v[RES_MEM] = resource_total_mem (res);
        wc->v[RES_NGPUS] = resource_total_ngpus (res);
    }
    for (int k = 0; k < NRES; k++)
        if (wc->v[k] > room->avail[k])
            return (struct why){ WHY_RESOURCE, k, wc->v[k] };
    if (behind)
        return (struct why){ policy == &policy_fifo ? WHY_ORDER : WHY_TOP_JOB, 0, 0 };
    return (struct why){ WHY_NODES, 0, 0 };
}

static void amount_text (int res, int64_t v, char *buf, int len)
{
    if (res == RES_MEM)
        resource_format_size (v, buf, len);
    else
        snprintf (buf, len, "%" PRId64, v);
}

static void why_text (const struct why *w, const struct why_room *room, char *buf,
                      size_t len)
{
    char r[32], a[32], t[32];

    switch (w->code) {
    case WHY_RESOURCE:
        amount_text (w->res, w->want, r, sizeof (r));
        amount_text (w->res, room->avail[w->res], a, sizeof (a));
        amount_text (w->res, room->total[w->res], t, sizeof (t));
        snprintf (
            buf, len,
            "Not Running: Insufficient amount of resource: %s (R: %s A: %s T: %s)",
            res_name[w->res], r, a, t);
        break;
    case WHY_TOP_JOB:
        snprintf (buf, len,
                  "Not Running: Job would conflict with reservation or top job");
        break;
    case WHY_ORDER:
        snprintf (buf, len, "Not Running: Job would break strict sorted order");
        break;
    default: snprintf (buf, len, "Not Running: Not enough free nodes available"); break;
    }
}

void why_pass (struct policy_ctx *ctx, const struct policy_ops *policy, why_f cb,
               void *arg)
{
    struct why_room room;
    struct why last = { 0, 0, 0 };
    struct want_cache wc = { NULL, -1, { 0 } };
    char text[160] = "";
    int behind = 0;

    room_of (ctx, &room);
    for (int i = 0; i < ctx->njobs; i++) {
        struct job *job = ctx->jobs[i];
        struct why w;
        int64_t avail;
        if (job->rec.state != 'Q')
            continue; /* it started */
        if (job->why_kept) {
            job->why_kept = 0;
            job->why_code = 0;
            continue;
        }
        /* No node up: nothing could start, and the comments keep saying
         * what happened (a requeue, say), as sched.c's down-node check. */
        if (room.total[RES_NCPUS] == 0)
            continue;
        w = why_of (job, &room, behind, policy, &wc);
        behind = 1;
        avail = w.code == WHY_RESOURCE ? room.avail[w.res] : 0;
        /* The same reason as the last pass gave it: its comment says so. */
        if (job->why_code == w.code && job->why_res == w.res && job->why_want == w.want
            && job->why_avail == avail)
            continue;
        if (w.code != last.code || w.res != last.res || w.want != last.want) {
            why_text (&w, &room, text, sizeof (text));
            last = w;
        }
        cb (job, text, arg);
        job->why_code = (unsigned char)w.code;
        job->why_res = (unsigned char)w.res;
        job->why_want = w.want;
        job->why_avail = avail;
    }
}
