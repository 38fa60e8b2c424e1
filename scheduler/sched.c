/* sched.c - see sched.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/launch_msg.h"
#include "common/log.h"
#include "common/util.h"
#include "scheduler/ckpt.h"
#include "scheduler/depend.h"
#include "scheduler/fairshare.h"
#include "scheduler/lifecycle.h"
#include "scheduler/nodes.h"
#include "scheduler/policy/place.h"
#include "scheduler/policy/policy.h"
#include "scheduler/policy/why.h"
#include "scheduler/preempt.h"
#include "scheduler/queue.h"
#include "scheduler/web/metrics_count.h"
#include "scheduler/sched.h"
#include "scheduler/spot_choice.h"

struct sched {
    struct server *srv;
    const struct policy_ops *policy;
    int64_t default_walltime; /* -1: jobs without walltime are unbounded */
    int64_t down_grace_ms;    /* node_down_grace: a down node counts this long */
    struct loop_timer *tick;
    int64_t why_next_ms;       /* when why_pass may run again (sched_why_due) */
    int max_starts;            /* sched_max_starts: jobs one pass starts, 0: any */
    int starts;                /* this pass's so far */
    int cut;                   /* this pass stopped at max_starts: go on next turn */
    struct loop_timer *resume; /* wakes the loop for that turn */
};

/* Why jobs wait is said at most once a second: passes come with every
 * submission and every end, a person reads the comment, and saying it
 * touches every waiting job (bench/RESULTS.md, bench/sched-pass). */
#define SCHED_WHY_INTERVAL_MS 1000
/* Jobs one pass starts at most: each start is a placement, rows and a
 * launch, and replies wait for the commit at the end of the loop turn,
 * so one submission of a large array on a large cluster would otherwise
 * hold the loop (10,000 starts took 3.6-8.5 s in bench/swarm.sh).  The
 * pass goes on at the next turn, replies and heartbeats answered between. */
#define SCHED_MAX_STARTS 1000

static int sched_why_due (struct sched *s)
{
    int64_t now = util_now_ms ();

    if (now < s->why_next_ms)
        return 0;
    s->why_next_ms = now + SCHED_WHY_INTERVAL_MS;
    return 1;
}

/* Periodic pass as a safety net: decisions are event-driven, but nothing
 * should wait forever on a missed request. */
static void sched_tick (struct loop *l, void *arg)
{
    struct sched *s = arg;
    server_request_pass (s->srv);
}

/* A pass cut short goes on at once, not at the next event or tick. */
static void sched_resume (struct loop *l, void *arg)
{
    struct sched *s = arg;

    s->resume = NULL; /* one-shot: freed by the loop */
    server_request_pass (s->srv);
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
        errprintf (err, "unknown sched_policy '%s' (fifo, easy or conservative)", name);
        free (s);
        return NULL;
    }
    if ((dw && resource_parse_walltime (dw, &s->default_walltime, err) < 0)
        || config_get_int (srv->cfg, "node_down_grace", 3600, 0, 86400 * 365, &ms, err)
               < 0) {
        free (s);
        return NULL;
    }
    s->down_grace_ms = ms * 1000;
    if (config_get_int (srv->cfg, "sched_max_starts", SCHED_MAX_STARTS, 0, 10000000,
                        &ms, err)
        < 0) {
        free (s);
        return NULL;
    }
    s->max_starts = (int)ms;
    server_request_pass (srv);
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
    loop_timer_remove (s->resume);
    free (s);
}

/* 1 if some known node has a GPU of model (any if ""), in MIG mode with
 * an instance of profile when profile is given. */
static int sched_have_gpu (struct node **nodes, int nnodes, const char *model,
                           const char *profile)
{
    for (int i = 0; i < nnodes; i++)
        for (int g = 0; g < nodes[i]->ngpus; g++) {
            const struct gpu *gpu = &nodes[i]->gpu[g];
            if (!place_model_match (gpu->model, model))
                continue;
            if (!profile[0])
                return 1;
            for (int k = 0; k < gpu->nmig; k++)
                if (strcmp (gpu->mig[k].profile, profile) == 0)
                    return 1;
        }
    return 0;
}

/* A GPU model or MIG profile that no node has: say which, plainly. */
static int sched_check_gpu_kinds (struct node **nodes, int nnodes,
                                  const struct hpcq_resources *res,
                                  struct hpcq_error *err)
{
    for (int c = 0; c < res->nchunks; c++) {
        const struct hpcq_chunk *ch = &res->chunk[c];
        if (chunk_model (ch)[0] && !sched_have_gpu (nodes, nnodes, ch->gpu_model, ""))
            return errprintf_code (err, E2BIG,
                                   "Job exceeds server resource limits: "
                                   "no node has GPUs of model '%s'",
                                   ch->gpu_model);
        if (chunk_mig (ch)[0]
            && !sched_have_gpu (nodes, nnodes, chunk_model (ch), ch->mig))
            return errprintf_code (err, E2BIG,
                                   "Job exceeds server resource limits: "
                                   "no node has MIG instances of profile '%s'%s%s",
                                   ch->mig,
                                   chunk_model (ch)[0] ? " on GPUs of model " : "",
                                   chunk_model (ch));
    }
    return 0;
}

/* -l spot=true with no spot node, spot=false with nothing else. */
static int sched_check_spot (struct node **nodes, int nnodes,
                             const struct hpcq_resources *res, struct hpcq_error *err)
{
    if (res->spot < 0)
        return 0;
    for (int i = 0; i < nnodes; i++)
        if (nodes[i]->ncpus > 0 && nodes[i]->spot == res->spot)
            return 0;
    return errprintf_code (err, E2BIG, "Job exceeds server resource limits: %s",
                           res->spot ? "spot=true, and no node is a spot node"
                                     : "spot=false, and every node is a spot node");
}

/* " place=X" when a place was asked for, else "". */
static const char *place_text (const struct hpcq_resources *res, char *buf, size_t len)
{
    snprintf (buf, len, "%s%s", res->place[0] ? " place=" : "", res->place);
    return buf;
}

/* One select term as PBS writes it, with its count: "100:ncpus=1". */
static void term_text (const struct hpcq_chunk *c, char *buf, int len)
{
    struct hpcq_resources one;

    resource_init (&one);
    one.nchunks = 1;
    one.chunk = (struct hpcq_chunk *)c; /* borrowed, only read */
    resource_format_select (&one, buf, len);
}

/* A select term that more nodes, or more room, than the cluster has
 * would hold: counted on the empty nodes (each copy fits on a node by
 * its size; with place=scatter or excl one copy per node).  -1 with err
 * saying so, 1 if a term fits on no node at all, 0 if every term alone
 * fits. */
static int sched_term_shortfall (struct node **nodes, int nnodes,
                                 const struct hpcq_resources *res, const char *labels,
                                 const char *sel, int usable, struct hpcq_error *err)
{
    int scatter = strncmp (res->place, "scatter", 7) == 0;
    int excl = strstr (res->place, "excl") != NULL;
    char where[300], term[256], one[256], pl[48], what[1100];

    snprintf (where, sizeof (where), "%s%s",
              labels && labels[0] ? " with node_labels=" : "",
              labels && labels[0] ? labels : "");
    for (int c = 0; c < res->nchunks; c++) {
        const struct hpcq_chunk *ch = &res->chunk[c];
        struct hpcq_chunk single = *ch;
        int64_t room = 0;
        int holders = 0, most = 0;
        for (int i = 0; i < nnodes; i++) {
            int k =
                place_chunk_capacity (nodes[i], ch, labels, scatter, excl, ch->count);
            room += k;
            holders += k > 0;
            most = k > most ? k : most;
        }
        if (holders == 0)
            return 1; /* fits on no node: the caller says so */
        if (room >= ch->count)
            continue;
        term_text (ch, term, sizeof (term));
        single.count = 1;
        term_text (&single, one, sizeof (one));
        place_text (res, pl, sizeof (pl));
        /* Of several terms, say which one. */
        snprintf (what, sizeof (what), "%s%s%s%s", res->nchunks > 1 ? sel : term, pl,
                  res->nchunks > 1 ? ": its term " : "", res->nchunks > 1 ? term : "");
        errno = E2BIG;
        if (most <= 1 && holders == usable)
            return errprintf (err,
                              "Job exceeds server resource limits: select=%s needs %d "
                              "nodes; the cluster has %d%s",
                              what, ch->count, usable, where);
        if (most <= 1)
            return errprintf (
                err,
                "Job exceeds server resource limits: select=%s needs %d "
                "nodes that can hold %s; %d of the cluster's %d nodes%s can",
                what, ch->count, one, holders, usable, where);
        return errprintf (err,
                          "Job exceeds server resource limits: select=%s needs room "
                          "for %d chunks of %s; the cluster's %d nodes%s hold %lld",
                          what, ch->count, one, usable, where, (long long)room);
    }
    return 0;
}

/* The whole request against the cluster's totals: nodes (scatter or
 * excl: one chunk each), cores, memory, GPUs.  -1 with err, or 0. */
static int sched_total_shortfall (struct node **nodes, int nnodes,
                                  const struct hpcq_resources *res, const char *labels,
                                  const char *sel, int usable, struct hpcq_error *err)
{
    int64_t cpus = 0, gpus = 0, mem = 0;
    int one_each =
        strncmp (res->place, "scatter", 7) == 0 || strstr (res->place, "excl");
    char pl[48], have[32], want[32];

    for (int i = 0; i < nnodes; i++) {
        if (nodes[i]->ncpus <= 0
            || (labels && labels[0] && !place_labels_match (nodes[i]->labels, labels)))
            continue;
        cpus += nodes[i]->ncpus;
        mem += nodes[i]->mem;
        gpus += nodes[i]->ngpus;
    }
    place_text (res, pl, sizeof (pl));
    errno = E2BIG;
    if (one_each && resource_total_chunks (res) > usable)
        return errprintf (err,
                          "Job exceeds server resource limits: select=%s%s needs %d "
                          "nodes; the cluster has %d",
                          sel, pl, resource_total_chunks (res), usable);
    if (resource_total_ncpus (res) > cpus)
        return errprintf (err,
                          "Job exceeds server resource limits: select=%s%s needs %d "
                          "cpus; the cluster's %d nodes have %lld",
                          sel, pl, resource_total_ncpus (res), usable, (long long)cpus);
    if (resource_total_ngpus (res) > gpus)
        return errprintf (err,
                          "Job exceeds server resource limits: select=%s%s needs %d "
                          "GPUs; the cluster's %d nodes have %lld",
                          sel, pl, resource_total_ngpus (res), usable, (long long)gpus);
    if (resource_total_mem (res) > mem) {
        resource_format_size (resource_total_mem (res), want, sizeof (want));
        resource_format_size (mem, have, sizeof (have));
        return errprintf (err,
                          "Job exceeds server resource limits: select=%s%s needs "
                          "mem=%s; the cluster's %d nodes have %s",
                          sel, pl, want, usable, have);
    }
    errno = 0;
    return 0;
}

/* Does a node count when judging whether a request could ever run?  Up,
 * not heard from yet since a restart, out of service by an administrator
 * (it comes back), or down for less than node_down_grace: a node gone for
 * longer may never return, and jobs that only it could hold would wait
 * forever. */
static int node_counts (const struct sched *s, const struct node *n, int64_t now)
{
    if (n->ncpus <= 0)
        return 0;
    return n->state != NODE_DOWN || now - n->down_since_ms < s->down_grace_ms;
}

/* The nodes left out of the judgement, named in err's message. */
static void list_left_out (struct node **nodes, int nnodes, const struct sched *s,
                           int64_t now, char *buf, size_t len)
{
    size_t used = 0;
    int k = 0;

    buf[0] = '\0';
    for (int i = 0; i < nnodes && used < len; i++) {
        if (nodes[i]->ncpus <= 0 || node_counts (s, nodes[i], now))
            continue;
        if (k++ < 3)
            used += snprintf (buf + used, len - used, "%s%s", k > 1 ? "," : "",
                              nodes[i]->name);
        else if (k == 4)
            used += snprintf (buf + used, len - used, ",...");
    }
}

/* Add the nodes left out of a judgement to its refusal, if any. */
static void note_left_out (struct hpcq_error *err, const char *gone)
{
    size_t n = strlen (err->text);

    if (gone[0] && n + 40 < sizeof (err->text))
        snprintf (err->text + n, sizeof (err->text) - n,
                  " (down longer than node_down_grace: %s)", gone);
}

int sched_feasible (struct server *srv, const struct hpcq_resources *res,
                    const char *labels, struct hpcq_error *err)
{
    int nall, nnodes = 0, maxcpus = 0, maxgpus = 0, usable = 0, rc = -1;
    int64_t maxmem = 0, now = util_now_ms ();
    struct node **all = nodes_all (srv->nodes, &nall), **nodes;
    struct alloc *a;
    char sel[512], mem[32], gone[96];

    /* Judged on the nodes that count (node_counts): a node down for long
     * neither lets a request in nor keeps it waiting forever. */
    if (!(nodes = calloc (nall ? nall : 1, sizeof (*nodes))))
        return errprintf_code (err, ENOMEM, "out of memory");
    for (int i = 0; i < nall; i++) {
        if (!node_counts (srv->sched, all[i], now))
            continue;
        nodes[nnodes++] = all[i];
        if (all[i]->ncpus > maxcpus)
            maxcpus = all[i]->ncpus;
        if (all[i]->mem > maxmem)
            maxmem = all[i]->mem;
        if (all[i]->ngpus > maxgpus)
            maxgpus = all[i]->ngpus;
    }
    list_left_out (all, nall, srv->sched, now, gone, sizeof (gone));
    if (nnodes == 0) {
        rc = 0; /* no worker has registered yet: nothing to judge by */
        goto out;
    }
    if (sched_check_gpu_kinds (nodes, nnodes, res, err) < 0
        || sched_check_spot (nodes, nnodes, res, err) < 0)
        goto refused;
    if ((a = place_alloc (nodes, nnodes, res, labels, 0, 1))) {
        free (a);
        rc = 0;
        goto out;
    }
    resource_format_select (res, sel, sizeof (sel));
    if (labels && labels[0] && (a = place_alloc (nodes, nnodes, res, NULL, 0, 1))) {
        free (a);
        errno = E2BIG;
        errprintf (err,
                   "Job exceeds queue resource limits: no node with the "
                   "queue's node_labels=%s can satisfy select=%s%s%s",
                   labels, sel, res->place[0] ? " place=" : "", res->place);
        goto refused;
    }
    /* Counted reasons first: a request the cluster is too small for is
     * told so, not that "no node" can take it. */
    for (int i = 0; i < nnodes; i++)
        usable +=
            !labels || !labels[0] || place_labels_match (nodes[i]->labels, labels);
    if ((rc = sched_term_shortfall (nodes, nnodes, res, labels, sel, usable, err)) < 0
        || (rc == 0
            && sched_total_shortfall (nodes, nnodes, res, labels, sel, usable, err)
                   < 0))
        goto refused;
    resource_format_size (maxmem, mem, sizeof (mem));
    errno = E2BIG;
    errprintf (err,
               "Job exceeds server resource limits: no node can "
               "satisfy select=%s%s%s (%d node%s, largest has %d cpus, "
               "mem=%s, %d gpus)",
               sel, res->place[0] ? " place=" : "", res->place, nnodes,
               nnodes == 1 ? "" : "s", maxcpus, mem, maxgpus);
refused:
    rc = -1;
    note_left_out (err, gone);
out:
    free (nodes);
    return rc;
}

/* The node file: one line per MPI process, its slot's node (borrowed). */
static char **sched_nodefile (struct alloc *a, int *n)
{
    char **lines;
    int k = 0;

    for (int i = 0; i < a->n; i++)
        k += a->slot[i].mpiprocs;
    lines = xzalloc ((k > 0 ? k : 1) * sizeof (*lines));
    for (int i = 0; i < a->n; i++)
        for (int p = 0; p < a->slot[i].mpiprocs; p++)
            lines[(*n)++] = a->slot[i].node_name;
    return lines;
}

/* The launch of job's attempt on its mother superior (ms), borrowing the
 * job's request and node names: encoded at once, never released. */
static void sched_launch_req (struct server *srv, struct job *job,
                              const struct alloc_slot *ms, struct launch_req *req)
{
    req->seq = job->rec.seq;
    req->number = job->parent ? job->parent->rec.seq : job->rec.seq;
    req->array_index = job->parent ? job->array_index : -1;
    req->attempt = job->rec.run_count;
    snprintf (req->jobid, sizeof (req->jobid), "%s", job->id);
    snprintf (req->uuid, sizeof (req->uuid), "%s", job->rec.uuid);
    snprintf (req->owner, sizeof (req->owner), "%s", job->rec.owner);
    req->uid = job->rec.uid;
    snprintf (req->queue, sizeof (req->queue), "%s", job->rec.queue);
    snprintf (req->server, sizeof (req->server), "%s", srv->name);
    req->spec = job->spec;
    req->ncpus = ms->ncpus;
    req->mem = ms->mem;
    req->ngpus = ms->ngpus;
    memcpy (req->gpus, ms->gpus, ms->ngpus * sizeof (req->gpus[0]));
    req->nmig = ms->nmig;
    req->mig[0] = ms->mig_gpu;
    req->mig[1] = ms->mig_inst;
    req->walltime = job->spec.res.walltime;
    ckpt_launch_fill (srv, job, req);
}

void sched_launch (struct server *srv, struct job *job)
{
    const struct alloc_slot *ms = &job->alloc->slot[0];
    struct launch_req *req = xzalloc (sizeof (*req));
    struct wire_msg m;
    json_t *body;

    sched_launch_req (srv, job, ms, req);
    req->nodefile = sched_nodefile (job->alloc, &req->nnodefile);
    body = launch_msg_encode (req);
    free (req->nodefile);
    free (req);
    if (!body || !ms->node->conn) {
        log_msg (LOG_ERR, "job %s: cannot send launch to %s", job->id, ms->node_name);
        json_decref (body);
        return;
    }
    wire_request_init (&m, "job.launch", job->rec.seq, body);
    server_send_after_commit (srv, ms->node->conn, &m);
}

int sched_start_now_at (struct server *srv, struct job *job, struct alloc *a,
                        const char *how, const char *caller)
{
    struct node **nodes;
    int nn;

    if (!a) {
        nodes = nodes_all (srv->nodes, &nn);
        if (!(a = place_job (nodes, nn, job, 0)))
            return 1;
    }
    if (lifecycle_start_at (srv, job, a, caller) < 0) {
        if (job->alloc != a) /* refused before it took a */
            free (a);
        return -1;
    }
    /* A pass's routine start is logged at debug (a 10,000-task array
     * would write 10,000 lines at info); qrun's and a reclaim's at info. */
    log_msg (strcmp (how, "starts on") == 0 ? LOG_DEBUG : LOG_INFO, "job %s (%s) %s %s",
             job->id, job->rec.owner, how, job->rec.exec_host);
    queue_note_start (srv->queues, job);
    sched_launch (srv, job);
    return 0;
}

static struct alloc *sched_fit (struct policy_ctx *ctx, struct job *job)
{
    return place_job (ctx->nodes, ctx->nnodes, job, 0);
}

/* A waiting job's comment, changed only when its reason did; a subjob's
 * also goes to its array, which is what qstat shows while the subjobs
 * are untouched. */
static void sched_why_set (struct job *job, const char *text)
{
    if (!job->rec.comment || strcmp (job->rec.comment, text) != 0)
        job_set_comment (job, "%s", text);
    if (job->parent && job->parent->rec.state == 'Q'
        && (!job->parent->rec.comment || strcmp (job->parent->rec.comment, text) != 0))
        job_set_comment (job->parent, "%s", text);
}

static void sched_why_cb (struct job *job, const char *text, void *arg)
{
    sched_why_set (job, text);
}

static void sched_why (struct job *job, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Set a reason of sched.c's own, which why_pass keeps. */
static void sched_why (struct job *job, const char *fmt, ...)
{
    char buf[256];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    sched_why_set (job, buf);
    job->why_kept = 1;
}

static int sched_start (struct policy_ctx *ctx, struct job *job, struct alloc *a)
{
    struct server *srv = ctx->arg;

    /* An array's %LIMIT: its subjobs wait while that many run. */
    if (job->parent && job->parent->arr->range.limit
        && job->parent->arr->running >= job->parent->arr->range.limit) {
        sched_why (job, "Not Running: Array job limit (%d) reached",
                   job->parent->arr->range.limit);
        free (a);
        return 0;
    }
    /* Its queue's max_run and max_run_user count this pass's starts. */
    if (!queue_may_start (srv->queues, job)) {
        job->why_kept = 1; /* the queue said why */
        free (a);
        return 0;
    }
    if (sched_start_now (srv, job, a, "starts on") < 0) {
        log_error ("job %s: start", job->id);
        return -1;
    }
    if (srv->sched->max_starts && ++srv->sched->starts >= srv->sched->max_starts) {
        srv->sched->cut = 1;
        return -1; /* the policy stops here; the next turn goes on */
    }
    return 0;
}

/* What is free on all nodes together: no more copies of a request can
 * start in one pass than these hold. */
struct sched_free {
    int64_t cpus, gpus, mem;
};

static void sched_free_totals (struct server *srv, struct sched_free *f)
{
    int nn;
    struct node **nodes = nodes_all (srv->nodes, &nn);

    *f = (struct sched_free){ 0, 0, 0 };
    for (int i = 0; i < nn; i++) {
        f->cpus += nodes[i]->ncpus > nodes[i]->ncpus_used
                       ? nodes[i]->ncpus - nodes[i]->ncpus_used
                       : 0;
        f->gpus += nodes_free_gpus (nodes[i]);
        f->mem +=
            nodes[i]->mem > nodes[i]->mem_used ? nodes[i]->mem - nodes[i]->mem_used : 0;
    }
}

/* How many of an array's untouched subjobs this pass needs as jobs: those
 * that could start, and one more, which may be the job the policy holds
 * a reservation for.  A pass takes an array's subjobs in index order, all
 * with one request and one priority, so the ones that start are the first
 * queued ones and the first that cannot start stops the rest (policy.h):
 * the pass decides exactly as it would with every subjob a job.
 * Conservative backfill gives each queued job a reservation of its own,
 * so it takes them all. */
static int sched_array_take (struct sched *s, const struct job_array *a,
                             const struct sched_free *f)
{
    const struct hpcq_resources *res = &a->job->spec.res;
    int64_t cpus = resource_total_ncpus (res), gpus = resource_total_ngpus (res);
    int64_t mem = resource_total_mem (res), k = a->untouched;

    if (s->policy == &policy_conservative)
        return a->untouched;
    if (cpus > 0 && f->cpus / cpus < k)
        k = f->cpus / cpus;
    if (gpus > 0 && f->gpus / gpus < k)
        k = f->gpus / gpus;
    if (mem > 0 && f->mem / mem < k)
        k = f->mem / mem;
    if (a->range.limit && a->range.limit - a->running < k)
        k = a->range.limit > a->running ? a->range.limit - a->running : 0;
    return (int)(k + 1 < a->untouched ? k + 1 : a->untouched);
}

/* Split out the subjobs this pass needs from every array with untouched
 * queued ones (for this pass only, but with conservative backfill). */
static void sched_take_subjobs (struct sched *s)
{
    struct server *srv = s->srv;
    struct job_array *a, *next;
    struct sched_free f;
    int transient = s->policy != &policy_conservative;

    if (!jobs_pending_arrays_first (srv->jobs))
        return;
    sched_free_totals (srv, &f);
    for (a = jobs_pending_arrays_first (srv->jobs); a; a = next) {
        int take = sched_array_take (s, a, &f), pos = 0;
        next = jobs_pending_arrays_next (a); /* a may leave the list */
        while (take-- > 0 && (pos = array_next_untouched (a, pos)) >= 0)
            if (!jobs_subjob (srv->jobs, a->job, pos, transient))
                break;
    }
}

/* --- jobs the nodes up now cannot hold --- */

/* One chunk as a request key holds it: everything placement looks at.
 * Interned strings are compared by address, as placement does. */
struct upfit_chunk {
    int count, ncpus, ngpus;
    int64_t mem;
    const char *gpu_model, *mig;
};

/* Could a job of this request run on the nodes up now, were they empty?
 * Answered once per distinct request in a pass: a deep queue has few.
 * The key is the request as bytes: its chunks, place and labels (the
 * queue's, borrowed, by address), zeroed first so padding compares too. */
struct upfit {
    struct node **up;
    int nup;
    char *key; /* the key being looked up, reused */
    size_t keycap;
    struct upfit_ent {
        char *key;
        int fits;
        UT_hash_handle hh;
    } * seen;
};

/* job's request as a key in u->key; its length, or 0 (out of memory). */
static size_t upfit_key_of (struct upfit *u, const struct job *job)
{
    const struct hpcq_resources *r = &job->spec.res;
    size_t len = sizeof (int) + 32 + sizeof (const char *)
                 + (size_t)r->nchunks * sizeof (struct upfit_chunk);
    char *p;

    if (len > u->keycap) {
        char *k = realloc (u->key, len);
        if (!k)
            return 0;
        u->key = k;
        u->keycap = len;
    }
    memset (u->key, 0, len);
    p = u->key;
    memcpy (p, &r->nchunks, sizeof (int));
    p += sizeof (int);
    snprintf (p, 32, "%s", r->place);
    p += 32;
    {
        const char *labels = job->node_labels;
        memcpy (p, &labels, sizeof (labels));
        p += sizeof (labels);
    }
    for (int c = 0; c < r->nchunks; c++, p += sizeof (struct upfit_chunk)) {
        struct upfit_chunk ch;
        memset (&ch, 0, sizeof (ch));
        ch.count = r->chunk[c].count;
        ch.ncpus = r->chunk[c].ncpus;
        ch.ngpus = r->chunk[c].ngpus;
        ch.mem = r->chunk[c].mem;
        ch.gpu_model = r->chunk[c].gpu_model;
        ch.mig = r->chunk[c].mig;
        memcpy (p, &ch, sizeof (ch));
    }
    return len;
}

/* 1 if the job could run on the nodes up (were they empty), else 0. */
static int upfit_job (struct upfit *u, const struct job *job)
{
    size_t len = upfit_key_of (u, job);
    struct upfit_ent *e;
    struct alloc *a;

    if (len == 0)
        return 1; /* cannot tell: the policy decides, as before */
    HASH_FIND (hh, u->seen, u->key, len, e);
    if (e)
        return e->fits;
    e = xzalloc (sizeof (*e));
    e->key = xzalloc (len);
    memcpy (e->key, u->key, len);
    a = place_alloc (u->up, u->nup, &job->spec.res, job->node_labels, 0, 1);
    e->fits = a != NULL;
    free (a);
    HASH_ADD_KEYPTR (hh, u->seen, e->key, len, e);
    return e->fits;
}

/* Can a launch reach node n now? */
static int node_up (const struct node *n)
{
    return n->state == NODE_UP && n->conn && !n->offline && n->ncpus > 0;
}

/* Drop from ctx the jobs that could not run on the nodes up now even if
 * they were empty (some need a node that is down or out of service): a
 * down node takes no placement and no reservation, so such a job would
 * be the top job forever and hold the queue behind it.  They wait, with
 * a comment saying why, until the nodes return.  Nothing to do, and
 * nothing spent, while every node is up. */
static void sched_drop_unplaceable (struct policy_ctx *ctx)
{
    static const char why[] = "Not Running: needs nodes that are down or offline";
    struct upfit u = { 0 };
    struct upfit_ent *e, *tmp;
    int k = 0;

    if (!(u.up = calloc (ctx->nnodes ? ctx->nnodes : 1, sizeof (*u.up))))
        return;
    for (int i = 0; i < ctx->nnodes; i++)
        if (node_up (ctx->nodes[i]))
            u.up[u.nup++] = ctx->nodes[i];
    /* Every node up: nothing to do.  None up: nothing starts, so nothing
     * is held up either, and the comments keep saying what happened (a
     * requeue, say). */
    if (u.nup == 0 || u.nup == ctx->nnodes) {
        free (u.up);
        return;
    }
    for (int i = 0; i < ctx->njobs; i++) {
        struct job *job = ctx->jobs[i];
        if (upfit_job (&u, job)) {
            ctx->jobs[k++] = job;
            continue;
        }
        if (!job->rec.comment || strcmp (job->rec.comment, why) != 0)
            job_set_comment (job, "%s", why);
    }
    ctx->njobs = k;
    HASH_ITER (hh, u.seen, e, tmp)
    {
        HASH_DEL (u.seen, e);
        free (e->key);
        free (e);
    }
    free (u.key);
    free (u.up);
}

/* One pass of the policy over the queued jobs; with preemption after it
 * (preempt=1), and a second pass if preempting freed resources at once. */
static void sched_pass (struct sched *s, int preempt)
{
    struct server *srv = s->srv;
    struct policy_ctx ctx = { .fit = sched_fit, .start = sched_start, .arg = srv };
    struct job *j;
    int n, k = 0, again = 0;
    int64_t t0;

    sched_take_subjobs (s); /* untouched subjobs this pass may start */
    if ((n = jobs_queued_count (srv->jobs)) == 0)
        return;
    t0 = util_now_us ();
    ctx.jobs = calloc (n, sizeof (*ctx.jobs));
    if (!ctx.jobs) {
        jobs_unsplit_transient (srv->jobs);
        return;
    }
    TAILQ_FOREACH (j, jobs_queued (srv->jobs), q_link)
    ctx.jobs[ctx.njobs++] = j;
    ctx.nodes = nodes_all (srv->nodes, &ctx.nnodes);
    ctx.running = jobs_running (srv->jobs);
    ctx.default_walltime = s->default_walltime;
    ctx.now = util_wall_secs ();
    /* Every queued job gets its priority (qstat -f shows it); only those
     * whose queue lets them start now go to the policy. */
    fairshare_rank (srv->fairshare, ctx.jobs, ctx.njobs, ctx.now);
    for (int i = 0; i < ctx.njobs; i++) /* what its untouched subjobs show */
        if (ctx.jobs[i]->parent) {
            ctx.jobs[i]->parent->prio = ctx.jobs[i]->prio;
            ctx.jobs[i]->parent->prio_f = ctx.jobs[i]->prio_f;
        }
    queue_pass_begin (srv->queues, ctx.running);
    spot_choice_pass (srv->spot_choice, s->default_walltime);
    for (int i = 0, all = ctx.njobs; i < all; i++)
        if (queue_may_start (srv->queues, ctx.jobs[i])) {
            spot_choice_apply (srv->spot_choice, ctx.jobs[i]);
            ctx.jobs[k++] = ctx.jobs[i];
        }
    ctx.njobs = k;
    sched_drop_unplaceable (&ctx);
    s->starts = s->cut = 0;
    if (ctx.njobs > 0) {
        s->policy->pass (&ctx);
        /* A pass cut short judged only some of the jobs: why the others
         * wait, and whom to preempt, is for the pass that ends. */
        if (!s->cut && sched_why_due (s)) /* qstat -s, -f, the API */
            why_pass (&ctx, s->policy, sched_why_cb, NULL);
    }
    if (s->cut) {
        if (!s->resume)
            s->resume = loop_timer_add (srv->loop, 0, 0, sched_resume, s);
    }
    /* Those still waiting, in the policy's order, may preempt. */
    else if (preempt && ctx.njobs > 0)
        again = preempt_pass (srv->preempt, ctx.jobs, ctx.njobs);
    free (ctx.jobs);
    metrics_pass_observed (srv->metrics, (double)(util_now_us () - t0) / 1e6);
    if (again)
        sched_pass (s, 0);
}

void sched_run (struct sched *s)
{
    struct server *srv = s->srv;
    int n;

    if (!srv->pass_requested || jobs_loading (srv->jobs))
        return; /* after a restart: once the requests are parsed */
    srv->pass_requested = 0;
    if (depend_count (srv) > 0)
        depend_update (srv);
    /* Suspended jobs whose resources came free go first. */
    preempt_resume_pass (srv->preempt);
    n = jobs_queued_count (srv->jobs);
    sched_pass (s, 1);
    /* Jobs that just started may release "after" dependents. */
    if (depend_count (srv) > 0 && jobs_queued_count (srv->jobs) != n)
        server_request_pass (srv);
    jobs_unsplit_transient (srv->jobs);
}
