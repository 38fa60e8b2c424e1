/* sim_engine.c - see sim_engine.h.
 *
 * Jobs exist as struct job only between arrival and end, so memory follows
 * the queue, not the trace.  Ends wait in a binary heap keyed by time;
 * the queue is an array in arrival order (the order the daemon hands a
 * policy its eligible jobs).
 */
#include <config.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scheduler/job_state.h"
#include "scheduler/jobs.h"
#include "scheduler/nodes.h"
#include "scheduler/place.h"
#include "scheduler/sim_engine.h"

struct pending_end {
    int64_t time;
    int idx;                /* trace index */
};

struct engine {
    const struct sim_trace *t;
    struct sim_run *run;
    struct node *node;
    struct node **nodep;
    int nnodes;
    struct job **queue;     /* eligible jobs, in arrival order */
    int nqueue;
    struct job **live;      /* per trace index: its job while queued or running */
    struct pending_end *heap;
    int nheap;
    int cores_used, gpus_used;
    int cores_total;
    int least_cores;        /* the fewest cores any queued job asks for */
    int64_t wake;           /* the earliest reservation after now, or INT64_MAX */
    int series_cap;
    struct job_list running;    /* started, not yet ended: newest first */
    struct policy_ctx ctx;
};

static int64_t min64 (int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static void heap_push (struct engine *e, int64_t time, int idx)
{
    int i = e->nheap++;

    while (i > 0) {
        int parent = (i - 1) / 2;
        if (e->heap[parent].time <= time)
            break;
        e->heap[i] = e->heap[parent];
        i = parent;
    }
    e->heap[i] = (struct pending_end){ time, idx };
}

static struct pending_end heap_pop (struct engine *e)
{
    struct pending_end top = e->heap[0], last = e->heap[--e->nheap];
    int i = 0;

    for (;;) {
        int c = 2 * i + 1;
        if (c >= e->nheap)
            break;
        if (c + 1 < e->nheap && e->heap[c + 1].time < e->heap[c].time)
            c++;
        if (last.time <= e->heap[c].time)
            break;
        e->heap[i] = e->heap[c];
        i = c;
    }
    if (e->nheap > 0)
        e->heap[i] = last;
    return top;
}

static void node_init (struct node *n, int i, const struct sim_cluster *c)
{
    snprintf (n->name, sizeof (n->name), "sim%05d", i + 1);
    n->state = NODE_UP;
    n->ncpus = c->cores;
    n->ngpus = c->gpus;
    for (int g = 0; g < c->gpus; g++) {
        n->gpu[g].index = g;
        n->gpu[g].simulated = 1;
        snprintf (n->gpu[g].model, sizeof (n->gpu[g].model), "simulated");
    }
    n->reachable = 1;      /* simulated: no worker link to lose */
}

int sim_cluster_check (const struct sim_cluster *c, struct hpcq_error *err)
{
    struct node n = { 0 };

    node_init (&n, 0, c);
    /* The worker's own mig_layout parser, so the two cannot disagree. */
    return c->mig_layout ? gpu_mig_layout (n.gpu, n.ngpus, c->mig_layout, n.name, err) : 0;
}

static int nodes_init (struct engine *e, const struct sim_cluster *c,
                       struct hpcq_error *err)
{
    e->nnodes = c->nodes;
    e->node = calloc (c->nodes, sizeof (*e->node));
    e->nodep = calloc (c->nodes, sizeof (*e->nodep));
    if (!e->node || !e->nodep)
        return errprintf (err, "out of memory");
    for (int i = 0; i < c->nodes; i++) {
        struct node *n = &e->node[i];
        node_init (n, i, c);
        if (c->mig_layout
            && gpu_mig_layout (n->gpu, n->ngpus, c->mig_layout, n->name, err) < 0)
            return -1;
        place_node_sync (n);
        e->nodep[i] = n;
    }
    return 0;
}

/* The run time the job gets: its real one, cut at its walltime. */
static int64_t run_time (const struct sim_job *sj)
{
    return sj->walltime > 0 ? min64 (sj->run, sj->walltime) : sj->run;
}

static struct alloc *eng_fit (struct policy_ctx *ctx, struct job *job)
{
    struct engine *e = ctx->arg;
    return place_job (e->nodep, e->nnodes, job, 0);
}

static int eng_start (struct policy_ctx *ctx, struct job *job, struct alloc *a)
{
    struct engine *e = ctx->arg;
    int idx = (int)(job->rec.seq - 1);
    struct sim_outcome *o = &e->run->out[idx];

    if (job_state_set (job, 'R', JOB_EV_STARTED, "hpcq-sim", __func__) < 0)
        return -1;
    alloc_apply (a, job->rec.seq, 1);
    job->alloc = a;
    job->rec.stime = ctx->now;
    LIST_INSERT_HEAD (&e->running, job, r_link);
    o->start = ctx->now;
    o->end = ctx->now + run_time (&e->t->job[idx]);
    for (int i = 0; i < a->n; i++) {
        o->cores += a->slot[i].ncpus;
        o->gpus += a->slot[i].ngpus;
    }
    e->cores_used += o->cores;
    e->gpus_used += o->gpus;
    heap_push (e, o->end, idx);     /* sized for every job: cannot fail */
    return 0;
}

static void job_finish (struct engine *e, int idx)
{
    struct job *job = e->live[idx];
    const struct sim_outcome *o = &e->run->out[idx];

    (void)job_state_set (job, 'F', JOB_EV_FINISHED, "hpcq-sim", __func__);
    alloc_apply (job->alloc, job->rec.seq, -1);
    LIST_REMOVE (job, r_link);
    e->cores_used -= o->cores;
    e->gpus_used -= o->gpus;
    free (job->alloc);
    free (job);
    e->live[idx] = NULL;
}

/* A job arrives: queued, or skipped if even the empty cluster cannot hold
 * it (what the daemon refuses at submission).  0 or -1 (ENOMEM). */
static int job_arrive (struct engine *e, int idx)
{
    const struct sim_job *sj = &e->t->job[idx];
    struct job *job = calloc (1, sizeof (*job));
    struct alloc *cap;

    if (!job)
        return -1;
    job->rec.seq = idx + 1;
    (void)job_state_set (job, 'Q', JOB_EV_SUBMITTED, "hpcq-sim", __func__);
    job->rec.ctime = sj->submit;
    job->spec.res = sj->res;    /* borrowed: the trace owns the chunks */
    snprintf (job->id, sizeof (job->id), "%lld.sim", (long long)sj->id);
    if (!(cap = place_job (e->nodep, e->nnodes, job, 1))) {
        e->run->out[idx].skipped = 1;
        free (job);
        return 0;
    }
    free (cap);
    e->live[idx] = job;
    e->queue[e->nqueue++] = job;
    if (e->nqueue == 1 || resource_total_ncpus (&job->spec.res) < e->least_cores)
        e->least_cores = resource_total_ncpus (&job->spec.res);
    return 0;
}

/* Keep only the jobs the pass left waiting, in their order, and note
 * the earliest reservation the policy gave one of them (job->est_start). */
static void queue_compact (struct engine *e, int64_t now)
{
    int k = 0;

    e->least_cores = 0;
    e->wake = INT64_MAX;
    for (int i = 0; i < e->nqueue; i++) {
        struct job *job = e->queue[i];
        int need = resource_total_ncpus (&job->spec.res);
        if (job->rec.state != 'Q')
            continue;
        if (k == 0 || need < e->least_cores)
            e->least_cores = need;
        if (job->est_start > now && job->est_start < e->wake)
            e->wake = job->est_start;
        e->queue[k++] = job;
    }
    e->nqueue = k;
}

static int sample (struct engine *e, int64_t now)
{
    struct sim_run *r = e->run;

    if (r->nseries == e->series_cap) {
        int ncap = e->series_cap ? e->series_cap * 2 : 4096;
        struct sim_sample *v = realloc (r->series, (size_t)ncap * sizeof (*v));
        if (!v)
            return -1;
        r->series = v;
        e->series_cap = ncap;
    }
    r->series[r->nseries++] = (struct sim_sample){
        now, e->nqueue, e->cores_used, e->gpus_used };
    return 0;
}

/* Everything that happens at one instant, then one policy pass, unless
 * no queued job could start: every chunk holds at least one core, so
 * with fewer free cores than the smallest request asks for, no policy can
 * place anything (this skips most passes on a saturated cluster). */
static int instant (struct engine *e, const struct policy_ops *ops, int64_t now,
                    int *next)
{
    while (e->nheap > 0 && e->heap[0].time == now)
        job_finish (e, heap_pop (e).idx);
    while (*next < e->t->njobs && e->t->job[*next].submit == now)
        if (job_arrive (e, (*next)++) < 0)
            return -1;
    if (e->nqueue > 0 && e->cores_total - e->cores_used >= e->least_cores) {
        e->ctx.now = now;
        e->ctx.jobs = e->queue;
        e->ctx.njobs = e->nqueue;
        ops->pass (&e->ctx);
        queue_compact (e, now);
    }
    return sample (e, now);
}

/* Instants are arrivals, ends, and the times the policy reserved for a
 * queued job: the daemon passes every few seconds, so a job whose
 * reservation falls between events starts then there too.  With nothing
 * running and nothing to come, one such wake-up is all a policy gets. */
static int replay (struct engine *e, const struct policy_ops *ops,
                   struct hpcq_error *err)
{
    int next = 0, idle_wakes = 0;

    e->wake = INT64_MAX;
    for (;;) {
        int64_t t_arr = next < e->t->njobs ? e->t->job[next].submit : INT64_MAX;
        int64_t t_end = e->nheap > 0 ? e->heap[0].time : INT64_MAX;
        int64_t t = min64 (min64 (t_arr, t_end), e->nqueue > 0 ? e->wake : INT64_MAX);
        int idle = t_arr == INT64_MAX && t_end == INT64_MAX;
        if (t == INT64_MAX || (idle && idle_wakes++ > 0))
            break;
        if (!idle)
            idle_wakes = 0;
        if (instant (e, ops, t, &next) < 0)
            return errprintf (err, "out of memory");
    }
    if (e->nqueue > 0)
        return errprintf (err, "policy %s left %d job(s) waiting on an idle cluster",
                          ops->name, e->nqueue);
    return 0;
}

static void engine_release (struct engine *e)
{
    for (int i = 0; e->live && i < e->t->njobs; i++) {
        if (e->live[i]) {
            free (e->live[i]->alloc);
            free (e->live[i]);
        }
    }
    free (e->live);
    free (e->queue);
    free (e->heap);
    free (e->node);
    free (e->nodep);
}

/* CPU time, not wall time: the replay is single-threaded, so on an idle
 * machine they agree, and on a shared one this stays comparable. */
static double seconds_now (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int sim_engine_run (const struct sim_trace *t, const struct sim_cluster *c,
                    const struct policy_ops *ops, struct sim_run *run,
                    struct hpcq_error *err)
{
    struct engine e = { 0 };
    size_t n = t->njobs ? (size_t)t->njobs : 1;
    double t0 = seconds_now ();
    int rc = -1;

    memset (run, 0, sizeof (*run));
    run->policy = ops->name;
    run->njobs = t->njobs;
    e.t = t;
    e.run = run;
    LIST_INIT (&e.running);
    e.ctx.running = &e.running;
    e.ctx.nodes = NULL;
    e.ctx.default_walltime = -1;
    e.ctx.fit = eng_fit;
    e.ctx.start = eng_start;
    e.ctx.arg = &e;
    if (!(run->out = calloc (n, sizeof (*run->out))) || !(e.live = calloc (n, sizeof (*e.live)))
        || !(e.queue = calloc (n, sizeof (*e.queue))) || !(e.heap = calloc (n, sizeof (*e.heap)))) {
        errprintf (err, "out of memory");
        goto out;
    }
    if (nodes_init (&e, c, err) < 0)
        goto out;
    e.ctx.nodes = e.nodep;
    e.cores_total = c->nodes * c->cores;
    e.ctx.nnodes = e.nnodes;
    rc = replay (&e, ops, err);
    run->cpu_s = seconds_now () - t0;
out:
    engine_release (&e);
    if (rc < 0)
        sim_run_release (run);
    return rc;
}

void sim_run_release (struct sim_run *run)
{
    if (run) {
        free (run->out);
        free (run->series);
        run->out = NULL;
        run->series = NULL;
    }
}
