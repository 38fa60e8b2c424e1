/* sched.c - see sched.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/util.h"
#include "scheduler/depend.h"
#include "scheduler/nodes.h"
#include "scheduler/policy.h"
#include "scheduler/sched.h"

struct sched {
    struct server *srv;
    const struct policy_ops *policy;
    int64_t default_walltime;   /* -1: jobs without walltime are unbounded */
    int requested;
    struct loop_timer *tick;
};

/* Periodic pass as a safety net: decisions are event-driven, but nothing
 * should wait forever on a missed request. */
static void sched_tick (struct loop *l, void *arg)
{
    sched_request (arg);
}

struct sched *sched_create (struct server *srv, struct hpcq_error *err)
{
    struct sched *s = calloc (1, sizeof (*s));
    const char *name = config_get (srv->cfg, "sched_policy", "easy");
    const char *dw = config_get (srv->cfg, "default_walltime", NULL);
    int64_t ms;

    if (!s) {
        errprintf (err, "out of memory");
        return NULL;
    }
    s->srv = srv;
    s->default_walltime = -1;
    if (!(s->policy = policy_lookup (name))) {
        errprintf (err, "unknown sched_policy '%s' (fifo or easy)", name);
        free (s);
        return NULL;
    }
    if (dw && resource_parse_walltime (dw, &s->default_walltime, err) < 0) {
        free (s);
        return NULL;
    }
    s->requested = 1;
    ms = srv->sched_interval_ms;
    if (!(s->tick = loop_timer_add (srv->loop, ms, ms, sched_tick, s))) {
        errprintf (err, "event loop: %s", strerror (errno));
        free (s);
        return NULL;
    }
    return s;
}

void sched_destroy (struct sched *s)
{
    if (!s)
        return;
    loop_timer_remove (s->tick);
    free (s);
}

void sched_request (struct sched *s)
{
    s->requested = 1;
}

/* Tentative usage while placing one job, so its chunks do not overlap. */
struct scratch {
    int cpus;
    int64_t mem;
    int gpus_taken[NODE_MAX_GPUS];
    int used;               /* chunks of this job placed here */
};

static int node_usable (const struct node *n, int empty)
{
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

struct alloc *sched_place (struct node **nodes, int nnodes,
                           const struct hpcq_resources *res, int64_t seq,
                           int empty)
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
                if (node_usable (nodes[i], empty)
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

int sched_feasible (struct server *srv, const struct hpcq_resources *res,
                    struct hpcq_error *err)
{
    int nnodes, known = 0, maxcpus = 0, maxgpus = 0;
    int64_t maxmem = 0;
    struct node **nodes = nodes_all (srv->nodes, &nnodes);
    struct alloc *a;
    char sel[512], mem[32];

    for (int i = 0; i < nnodes; i++) {
        if (nodes[i]->ncpus <= 0)
            continue;
        known++;
        if (nodes[i]->ncpus > maxcpus)
            maxcpus = nodes[i]->ncpus;
        if (nodes[i]->mem > maxmem)
            maxmem = nodes[i]->mem;
        if (nodes[i]->ngpus > maxgpus)
            maxgpus = nodes[i]->ngpus;
    }
    if (known == 0)
        return 0;   /* no worker has registered yet: nothing to judge by */
    if ((a = sched_place (nodes, nnodes, res, 0, 1))) {
        free (a);
        return 0;
    }
    resource_format_select (res, sel, sizeof (sel));
    resource_format_size (maxmem, mem, sizeof (mem));
    errno = E2BIG;
    return errprintf (err, "Job exceeds server resource limits: no node can "
                      "satisfy select=%s%s%s (%d node%s, largest has %d cpus, "
                      "mem=%s, %d gpus)", sel, res->place[0] ? " place=" : "",
                      res->place, known, known == 1 ? "" : "s", maxcpus, mem, maxgpus);
}

static json_t *sched_nodefile (const struct alloc *a)
{
    json_t *lines = json_array ();
    for (int i = 0; lines && i < a->n; i++)
        for (int p = 0; p < a->slot[i].mpiprocs; p++)
            json_array_append_new (lines, json_string (a->slot[i].node_name));
    return lines;
}

void sched_launch (struct server *srv, struct job *job)
{
    const struct alloc_slot *ms = &job->alloc->slot[0];
    json_t *gpus = json_array (), *body;
    struct wire_msg m;

    for (int g = 0; g < ms->ngpus; g++)
        json_array_append_new (gpus, json_integer (ms->gpus[g]));
    body = json_pack ("{s:I s:i s:s s:s s:s s:I s:s s:s s:o s:i s:I s:o s:o s:I}",
                      "seq", (json_int_t)job->rec.seq, "attempt", job->rec.run_count,
                      "jobid", job->id, "uuid", job->rec.uuid, "owner", job->rec.owner,
                      "uid", (json_int_t)job->rec.uid, "queue", job->rec.queue,
                      "server", srv->name, "spec", jobspec_to_json (&job->spec),
                      "ncpus", ms->ncpus, "mem", (json_int_t)ms->mem, "gpus", gpus,
                      "nodefile", sched_nodefile (job->alloc),
                      "walltime", (json_int_t)job->spec.res.walltime);
    if (!body || !ms->node->conn) {
        log_msg (LOG_ERR, "job %s: cannot send launch to %s", job->id, ms->node_name);
        json_decref (body);
        return;
    }
    json_object_set_new (body, "number", json_integer (job->parent ? job->parent->rec.seq
                                                                   : job->rec.seq));
    json_object_set_new (body, "array_index", json_integer (job->parent ? job->array_index
                                                                        : -1));
    wire_request_init (&m, "job.launch", job->rec.seq, body);
    server_send_after_commit (srv, ms->node->conn, &m);
}

static struct alloc *sched_fit (struct policy_ctx *ctx, struct job *job)
{
    return sched_place (ctx->nodes, ctx->nnodes, &job->spec.res, job->rec.seq, 0);
}

static int sched_start (struct policy_ctx *ctx, struct job *job, struct alloc *a)
{
    struct server *srv = ctx->arg;

    /* An array's %LIMIT: its subjobs wait while that many run. */
    if (job->parent && job->parent->array_limit
        && job->parent->array_running >= job->parent->array_limit) {
        free (a);
        return 0;
    }
    if (job_start (srv, job, a) < 0) {
        log_error ("job %s: start", job->id);
        return -1;
    }
    log_msg (LOG_INFO, "job %s (%s) starts on %s", job->id, job->rec.owner,
             job->rec.exec_host);
    sched_launch (srv, job);
    return 0;
}

void sched_run (struct sched *s)
{
    struct server *srv = s->srv;
    struct policy_ctx ctx = { .fit = sched_fit, .start = sched_start, .arg = srv };
    int n;

    if (!s->requested)
        return;
    s->requested = 0;
    if (depend_count (srv) > 0)
        depend_update (srv);
    if ((n = jobs_queued_count (srv->jobs)) == 0)
        return;
    ctx.jobs = calloc (n, sizeof (*ctx.jobs));
    if (!ctx.jobs)
        return;
    for (struct job *j = jobs_queued_first (srv->jobs); j; j = j->q_next)
        ctx.jobs[ctx.njobs++] = j;
    ctx.nodes = nodes_all (srv->nodes, &ctx.nnodes);
    ctx.running = jobs_running_first (srv->jobs);
    ctx.default_walltime = s->default_walltime;
    ctx.now = util_wall_secs ();
    if (ctx.njobs > 0)
        s->policy->pass (&ctx);
    free (ctx.jobs);
    /* Jobs that just started may release "after" dependents. */
    if (depend_count (srv) > 0 && jobs_queued_count (srv->jobs) != n)
        s->requested = 1;
}
