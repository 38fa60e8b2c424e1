/* sim_engine.c - see sim_engine.h.
 *
 * Jobs exist as struct job only between arrival and end, so memory follows
 * the queue, not the trace.  Ends wait in a binary heap keyed by time;
 * the queue is an array in arrival order (the order the daemon hands a
 * policy its eligible jobs).
 */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scheduler/policy/job_state.h"
#include "scheduler/job.h"
#include "scheduler/node.h"
#include "scheduler/policy/place.h"
#include "scheduler/policy/spotcost.h"
#include "sim/sim_engine.h"

/* What the engine waits for, in one heap by time (then kind, then
 * index): a job's end, a job leaving after its notice checkpoint, and
 * what happens to nodes.  An entry whose gen no longer matches its job's
 * or node's is stale (the attempt ended otherwise, the node went down
 * first) and is dropped. */
enum ev_kind {
    EV_END,     /* a job's attempt ends: finished */
    EV_LEAVE,   /* its notice checkpoint is written: requeued */
    EV_BACK,    /* a node taken away is back (a replacement) */
    EV_NOTICE,  /* a spot node's reclaim notice: aux = the reclaim's time */
    EV_RECLAIM, /* the provider takes it */
    EV_FAIL,    /* a node fails, with no notice */
};

struct event {
    int64_t time;
    int kind;
    int idx; /* trace index (jobs), node index (nodes) */
    int gen;
    int64_t aux;
};

/* A job between arrival and end, beside its struct job. */
struct jstate {
    double rem;     /* work left: run time less what checkpoints hold */
    int has_ckpt;   /* its next attempt restarts from a checkpoint */
    int gen;        /* bumped when an attempt ends */
    int64_t astart; /* this attempt's start */
    struct sim_attempt att;
    double rate;                    /* what holding its allocation costs, per second */
    int leaving;                    /* its notice checkpoint is under way */
    int interrupts;                 /* attempts cut short so far */
    double notice_done, notice_ovh; /* its progress when the notice came */
};

/* A node's availability (nstate.out). */
enum { N_UP, N_DRAINING, N_DOWN };

struct nstate {
    int spot;
    int gen;      /* bumped when it goes down */
    int out;      /* N_UP, N_DRAINING (reclaim notice), N_DOWN */
    double lossy; /* rate per second of interruptions that lose work */
    double price; /* per hour */
};

struct engine {
    const struct sim_trace *t;
    const struct sim_scenario *sc;
    const struct sim_ckpt *ck;
    struct sim_run *run;
    struct node *node;
    struct node **nodep;
    struct nstate *ns;
    int nnodes, nout;   /* nodes draining or down */
    struct job **queue; /* eligible jobs, in arrival order */
    int nqueue;
    struct job **live; /* per trace index: its job while queued or running */
    struct jstate *js; /* per trace index */
    struct event *heap;
    int nheap, heap_cap;
    int nrunning;
    int cores_used, gpus_used;
    int cores_total;
    int least_cores; /* the fewest cores any queued job asks for */
    int64_t wake;    /* the earliest reservation after now, or INT64_MAX */
    int series_cap;
    int oom;                           /* an allocation failed: the replay is void */
    double reclaim_rate, failure_rate; /* per node per second */
    struct sim_rng rng;
    struct job_list running; /* started, not yet ended: newest first */
    struct policy_ctx ctx;
};

static int64_t min64 (int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int ev_before (const struct event *a, const struct event *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    if (a->kind != b->kind)
        return a->kind < b->kind;
    return a->idx < b->idx;
}

static int heap_push (struct engine *e, struct event ev)
{
    int i;

    if (e->nheap == e->heap_cap) {
        int cap = e->heap_cap ? e->heap_cap * 2 : 1024;
        struct event *v = realloc (e->heap, (size_t)cap * sizeof (*v));
        if (!v)
            return -1;
        e->heap = v;
        e->heap_cap = cap;
    }
    i = e->nheap++;
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (!ev_before (&ev, &e->heap[parent]))
            break;
        e->heap[i] = e->heap[parent];
        i = parent;
    }
    e->heap[i] = ev;
    return 0;
}

static struct event heap_pop (struct engine *e)
{
    struct event top = e->heap[0], last = e->heap[--e->nheap];
    int i = 0;

    for (;;) {
        int c = 2 * i + 1;
        if (c >= e->nheap)
            break;
        if (c + 1 < e->nheap && ev_before (&e->heap[c + 1], &e->heap[c]))
            c++;
        if (!ev_before (&e->heap[c], &last))
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
    n->reachable = 1; /* simulated: no worker link to lose */
}

int sim_cluster_check (const struct sim_cluster *c, struct hpcq_error *err)
{
    struct node n = { 0 };

    node_init (&n, 0, c);
    /* The worker's own mig_layout parser, so the two cannot disagree. */
    return c->mig_layout ? gpu_mig_layout (n.gpu, n.ngpus, c->mig_layout, n.name, err)
                         : 0;
}

/* Node i's class and the interruptions it may have; its first ones are
 * scheduled from time 0. */
static int node_class_init (struct engine *e, int i)
{
    const struct sim_scenario *sc = e->sc;
    struct nstate *st = &e->ns[i];
    double reclaim;

    st->spot = sc && sc->interrupts && i < sc->spot_nodes;
    st->price = !sc ? 1.0 : st->spot ? sc->price_spot : sc->price_ondemand;
    if (st->spot)
        snprintf (e->node[i].labels, sizeof (e->node[i].labels), "spot");
    if (!sc || !sc->interrupts)
        return 0;
    /* A reclaim loses work only where the job cannot checkpoint in its
     * notice: that is what the Young/Daly interval guards against. */
    reclaim = st->spot ? e->reclaim_rate : 0;
    st->lossy = e->failure_rate
                + (sim_ckpt_at_notice (e->ck, sc->ckpt_cost, sc->notice) ? 0 : reclaim);
    if (e->failure_rate > 0
        && heap_push (e, (struct event){ sim_rng_exp (&e->rng, e->failure_rate),
                                         EV_FAIL, i, 0, 0 })
               < 0)
        return -1;
    return 0;
}

/* The next reclaim of spot node i, from time now (rate-driven only). */
static int schedule_reclaim (struct engine *e, int i, int64_t now)
{
    int64_t dt = sim_rng_exp (&e->rng, e->reclaim_rate), at;

    if (!e->ns[i].spot || e->sc->trace || dt == INT64_MAX)
        return 0;
    at = now + dt;
    return heap_push (e, (struct event){ at - e->sc->notice > now ? at - e->sc->notice
                                                                  : now,
                                         EV_NOTICE, i, e->ns[i].gen, at });
}

static int nodes_init (struct engine *e, const struct sim_cluster *c,
                       struct hpcq_error *err)
{
    e->nnodes = c->nodes;
    e->node = calloc (c->nodes, sizeof (*e->node));
    e->nodep = calloc (c->nodes, sizeof (*e->nodep));
    e->ns = calloc (c->nodes, sizeof (*e->ns));
    if (!e->node || !e->nodep || !e->ns)
        return errprintf (err, "out of memory");
    for (int i = 0; i < c->nodes; i++) {
        struct node *n = &e->node[i];
        node_init (n, i, c);
        if (c->mig_layout
            && gpu_mig_layout (n->gpu, n->ngpus, c->mig_layout, n->name, err) < 0)
            return -1;
        if (node_class_init (e, i) < 0
            || (e->sc && e->sc->interrupts && schedule_reclaim (e, i, 0) < 0))
            return errprintf (err, "out of memory");
        place_node_sync (n);
        e->nodep[i] = n;
    }
    /* A trace of reclaims: each one's notice, as it comes. */
    for (int k = 0; e->sc && e->sc->interrupts && k < e->sc->ntrace; k++) {
        const struct sim_reclaim *r = &e->sc->trace[k];
        if (r->node < 0 || r->node >= c->nodes || !e->ns[r->node].spot)
            return errprintf (err,
                              "reclaim trace: node %d is not a spot node of the "
                              "cluster (1..%d)",
                              r->node + 1, e->sc->spot_nodes);
        if (heap_push (e,
                       (struct event){ r->time > e->sc->notice ? r->time - e->sc->notice
                                                               : 0,
                                       EV_NOTICE, r->node, -1, r->time })
            < 0)
            return errprintf (err, "out of memory");
    }
    return 0;
}

/* The run time the job gets: its real one, cut at its walltime. */
static int64_t run_time (const struct sim_job *sj)
{
    return sj->walltime > 0 ? min64 (sj->run, sj->walltime) : sj->run;
}

/* --spot-policy: the job's spot preference for this placement, as the
 * scheduler's spot_choice.c gives it (spotcost_decide for expected-cost,
 * with M from the spot nodes' rate of interruptions that lose work). */
static void spot_pref (struct engine *e, struct job *job)
{
    const struct sim_scenario *sc = e->sc;
    const struct jstate *js = &e->js[job->rec.seq - 1];
    const struct sim_job *sj = &e->t->job[job->rec.seq - 1];
    struct hpcq_resources *res = &job->spec.res;
    struct spotcost_in in = { 0 };
    struct spotcost_out out;

    res->prefer_spot = res->force_spot = -1;
    if (!sc || !sc->interrupts || sc->spot_nodes == 0)
        return;
    switch (sc->spot_policy) {
    case SIM_SPOT_NONE: return;
    case SIM_SPOT_ALWAYS: res->prefer_spot = 1; return;
    case SIM_SPOT_ONDEMAND: res->prefer_spot = 0; return;
    case SIM_SPOT_MAX_RECLAIMS:
        if (js->interrupts >= sc->spot_max_reclaims)
            res->force_spot = 0;
        else
            res->prefer_spot = 1;
        return;
    default: break;
    }
    in.work = (double)(sj->walltime > 0 ? sj->walltime : run_time (sj));
    in.mtbi = e->ns[0].lossy > 0 ? 1 / e->ns[0].lossy : 0;
    in.ckpt_cost = e->ck && e->ck->kind != SIM_CKPT_NONE ? sc->ckpt_cost : -1;
    in.restart_cost = in.ckpt_cost > 0 ? in.ckpt_cost : 0;
    in.spot_price = sc->price_spot;
    in.ondemand_price = sc->price_ondemand;
    in.want = RES_SPOT_ANY;
    spotcost_decide (&in, &out);
    res->prefer_spot = out.spot;
}

static struct alloc *eng_fit (struct policy_ctx *ctx, struct job *job)
{
    struct engine *e = ctx->arg;

    spot_pref (e, job);
    return place_job (e->nodep, e->nnodes, job, 0);
}

static int node_index (const struct engine *e, const struct node *n)
{
    return (int)(n - e->node);
}

/* The share of its node a slot holds: the larger of its cores' and GPUs'. */
static double slot_share (const struct alloc_slot *s)
{
    double cpu = s->node->ncpus > 0 ? (double)s->ncpus / s->node->ncpus : 0;
    double gpu = s->node->ngpus > 0 ? (double)(s->ngpus + s->nmig) / s->node->ngpus : 0;

    return cpu > gpu ? cpu : gpu;
}

/* The attempt a starting job makes on alloc a: its share, price, and the
 * checkpoint interval its nodes' interruptions call for. */
static void attempt_plan (struct engine *e, int idx, const struct alloc *a)
{
    struct jstate *js = &e->js[idx];
    struct sim_outcome *o = &e->run->out[idx];
    double lossy = 0, cost = e->sc ? e->sc->ckpt_cost : 0;

    o->share = 0;
    js->rate = 0;
    for (int i = 0; i < a->n; i++) {
        const struct nstate *st = &e->ns[node_index (e, a->slot[i].node)];
        int first = 1;
        double sh = slot_share (&a->slot[i]);
        o->share += sh;
        js->rate += sh * st->price / 3600;
        for (int k = 0; k < i; k++)
            first &= a->slot[k].node != a->slot[i].node;
        if (first)
            lossy += st->lossy; /* a job is interrupted when any node is */
    }
    js->att.work = js->rem;
    js->att.cost = cost;
    js->att.restart = js->has_ckpt ? cost : 0;
    js->att.interval = e->ck ? sim_ckpt_interval (e->ck, cost, lossy) : 0;
}

static int eng_start (struct policy_ctx *ctx, struct job *job, struct alloc *a)
{
    struct engine *e = ctx->arg;
    int idx = (int)(job->rec.seq - 1);
    struct sim_outcome *o = &e->run->out[idx];
    struct jstate *js = &e->js[idx];
    int64_t end;

    if (job_state_set (job, 'R', JOB_EV_STARTED, "hpcq-sim", __func__) < 0)
        return -1;
    alloc_apply (a, job->rec.seq, 1);
    job->alloc = a;
    job->rec.stime = ctx->now;
    LIST_INSERT_HEAD (&e->running, job, r_link);
    e->nrunning++;
    attempt_plan (e, idx, a);
    js->astart = ctx->now;
    js->leaving = 0;
    if (o->attempts++ == 0)
        o->start = ctx->now;
    /* Without checkpoints or restarts this is the run time exactly. */
    end = ctx->now + (int64_t)ceil (sim_attempt_duration (&js->att) - 1e-9);
    o->end = end;
    o->cores = o->gpus = 0;
    for (int i = 0; i < a->n; i++) {
        o->cores += a->slot[i].ncpus;
        o->gpus += a->slot[i].ngpus;
    }
    e->cores_used += o->cores;
    e->gpus_used += o->gpus;
    if (heap_push (e, (struct event){ end, EV_END, idx, js->gen, 0 }) < 0) {
        e->oom = 1;
        return -1;
    }
    return 0;
}

/* The attempt of job idx stops at now: usage and cost counted, the
 * allocation released.  overhead: its seconds restarting and checkpointing;
 * lost: its seconds of work thrown away. */
static void attempt_close (struct engine *e, int idx, int64_t now, double overhead,
                           double lost)
{
    struct job *job = e->live[idx];
    struct sim_outcome *o = &e->run->out[idx];
    double held = (double)(now - e->js[idx].astart);

    o->core_s += (double)o->cores * held;
    o->gpu_s += (double)o->gpus * held;
    o->cost += e->js[idx].rate * held;
    o->ckpt_node_s += overhead * o->share;
    o->lost_node_s += lost * o->share;
    alloc_apply (job->alloc, job->rec.seq, -1);
    LIST_REMOVE (job, r_link);
    e->nrunning--;
    e->cores_used -= o->cores;
    e->gpus_used -= o->gpus;
    free (job->alloc);
    job->alloc = NULL;
    e->js[idx].gen++;
}

static void job_finish (struct engine *e, int idx, int64_t now)
{
    struct job *job = e->live[idx];
    double done, saved, ovh;

    sim_attempt_progress (&e->js[idx].att, (double)(now - e->js[idx].astart), &done,
                          &saved, &ovh);
    (void)job_state_set (job, 'F', JOB_EV_FINISHED, "hpcq-sim", __func__);
    attempt_close (e, idx, now, ovh, 0);
    e->run->out[idx].end = now;
    free (job);
    e->live[idx] = NULL;
}

/* Back to the queue for a new attempt, saved seconds of work the richer:
 * its walltime estimate (what backfill reasons with) shrinks by them. */
static void job_requeue (struct engine *e, int idx, double saved)
{
    struct job *job = e->live[idx];
    struct jstate *js = &e->js[idx];
    const struct sim_job *sj = &e->t->job[idx];
    double ovh, est;

    js->rem -= saved;
    if (js->rem < 0)
        js->rem = 0;
    js->has_ckpt |= saved > 0;
    ovh =
        (js->has_ckpt ? js->att.cost : 0)
        + (js->att.interval > 0 ? js->att.cost * ceil (js->rem / js->att.interval) : 0);
    est = ceil ((double)sj->walltime - ((double)run_time (sj) - js->rem) + ovh);
    job->spec.res.walltime = est < 1 ? 1 : (int64_t)est;
    (void)job_state_set (job, 'Q', JOB_EV_REQUEUED, "hpcq-sim", __func__);
    job->est_start = 0;
    js->interrupts++;
    e->run->interrupted++;
    e->queue[e->nqueue++] = job;
    if (e->nqueue == 1 || resource_total_ncpus (&job->spec.res) < e->least_cores)
        e->least_cores = resource_total_ncpus (&job->spec.res);
}

/* Job idx loses its node at now: what its last checkpoint holds is kept,
 * the rest is lost (a notice checkpoint under way too). */
static void job_interrupt (struct engine *e, int idx, int64_t now)
{
    double done, saved, ovh, elapsed = (double)(now - e->js[idx].astart);

    sim_attempt_progress (&e->js[idx].att, elapsed, &done, &saved, &ovh);
    attempt_close (e, idx, now, ovh, elapsed - saved - ovh);
    job_requeue (e, idx, saved);
}

/* Its notice checkpoint is written: it leaves with the work done at the
 * notice. */
static void job_leave (struct engine *e, int idx, int64_t now)
{
    struct jstate *js = &e->js[idx];
    double elapsed = (double)(now - js->astart), ovh = js->notice_ovh + js->att.cost;
    double lost = elapsed - js->notice_done - ovh;

    attempt_close (e, idx, now, ovh, lost > 0 ? lost : 0);
    job_requeue (e, idx, js->notice_done);
}

/* The running jobs with a slot on node i, by trace index: a new array
 * (caller frees) of *n, or NULL (ENOMEM). */
static int *jobs_on (struct engine *e, int i, int *n)
{
    int *out = malloc ((e->nrunning > 0 ? e->nrunning : 1) * sizeof (*out));
    struct job *job;

    *n = 0;
    if (!out)
        return NULL;
    LIST_FOREACH (job, &e->running, r_link)
    for (int s = 0; s < job->alloc->n; s++)
        if (node_index (e, job->alloc->slot[s].node) == i) {
            out[(*n)++] = (int)(job->rec.seq - 1);
            break;
        }
    return out;
}

/* Node i is taken away at now (reclaimed or failed): its jobs are
 * interrupted, and it is back after the scenario's replace time. */
static int node_down (struct engine *e, int i, int64_t now)
{
    struct nstate *st = &e->ns[i];
    int k, *ids = jobs_on (e, i, &k);

    if (!ids)
        return -1;
    for (int j = 0; j < k; j++)
        job_interrupt (e, ids[j], now);
    free (ids);
    if (st->out == N_UP)
        e->nout++;
    st->out = N_DOWN;
    st->gen++;
    e->node[i].state = NODE_DOWN;
    e->node[i].offline = 0;
    return heap_push (e,
                      (struct event){ now + e->sc->replace, EV_BACK, i, st->gen, 0 });
}

/* A reclaim notice for node i: it drains; each job on it that checkpoints
 * at a notice starts one now and leaves when it is written; the others run
 * on and may finish before the reclaim. */
static int node_notice (struct engine *e, const struct event *ev, int64_t now)
{
    struct nstate *st = &e->ns[ev->idx];
    int k, *ids;

    if (st->out != N_UP || (ev->gen >= 0 && ev->gen != st->gen))
        return 0;
    if (!(ids = jobs_on (e, ev->idx, &k)))
        return -1;
    st->out = N_DRAINING;
    e->nout++;
    e->node[ev->idx].offline = 1;
    for (int j = 0; j < k; j++) {
        struct jstate *js = &e->js[ids[j]];
        double saved;
        if (js->leaving || !sim_ckpt_at_notice (e->ck, e->sc->ckpt_cost, ev->aux - now))
            continue;
        sim_attempt_progress (&js->att, (double)(now - js->astart), &js->notice_done,
                              &saved, &js->notice_ovh);
        js->leaving = 1;
        if (heap_push (e, (struct event){ now + (int64_t)ceil (e->sc->ckpt_cost),
                                          EV_LEAVE, ids[j], js->gen, 0 })
            < 0) {
            free (ids);
            return -1;
        }
    }
    free (ids);
    return heap_push (e, (struct event){ ev->aux, EV_RECLAIM, ev->idx, st->gen, 0 });
}

static int node_event (struct engine *e, const struct event *ev, int64_t now)
{
    struct nstate *st = &e->ns[ev->idx];

    switch (ev->kind) {
    case EV_NOTICE: return node_notice (e, ev, now);
    case EV_RECLAIM:
        if (st->out == N_DOWN || ev->gen != st->gen)
            return 0;
        e->run->reclaims++;
        return node_down (e, ev->idx, now);
    case EV_FAIL:
        if (st->out != N_DOWN) {
            e->run->failures++;
            if (node_down (e, ev->idx, now) < 0)
                return -1;
        }
        return heap_push (e,
                          (struct event){ now + sim_rng_exp (&e->rng, e->failure_rate),
                                          EV_FAIL, ev->idx, 0, 0 });
    default: /* EV_BACK */
        if (ev->gen != st->gen || st->out != N_DOWN)
            return 0;
        st->out = N_UP;
        e->nout--;
        e->node[ev->idx].state = NODE_UP;
        return schedule_reclaim (e, ev->idx, now);
    }
}

static int process_event (struct engine *e, const struct event *ev, int64_t now)
{
    switch (ev->kind) {
    case EV_END:
        if (e->live[ev->idx] && ev->gen == e->js[ev->idx].gen)
            job_finish (e, ev->idx, now);
        return 0;
    case EV_LEAVE:
        if (e->live[ev->idx] && ev->gen == e->js[ev->idx].gen)
            job_leave (e, ev->idx, now);
        return 0;
    default: return node_event (e, ev, now);
    }
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
    job->spec.res = sj->res; /* borrowed: the trace owns the chunks */
    snprintf (job->id, sizeof (job->id), "%lld.sim", (long long)sj->id);
    e->run->out[idx].work = run_time (sj);
    if (!(cap = place_job (e->nodep, e->nnodes, job, 1))) {
        e->run->out[idx].skipped = 1;
        free (job);
        return 0;
    }
    free (cap);
    e->js[idx].rem = (double)run_time (sj);
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
    r->series[r->nseries++] =
        (struct sim_sample){ now, e->nqueue, e->cores_used, e->gpus_used };
    return 0;
}

/* Everything that happens at one instant (and what was left waiting
 * before it: node events while nothing could use them), then one policy
 * pass, unless no queued job could start: every chunk holds at least one
 * core, so with fewer free cores than the smallest request asks for, no
 * policy can place anything (this skips most passes on a saturated
 * cluster). */
static int instant (struct engine *e, const struct policy_ops *ops, int64_t now,
                    int *next)
{
    while (e->nheap > 0 && e->heap[0].time <= now) {
        struct event ev = heap_pop (e);
        if (process_event (e, &ev, now) < 0)
            return -1;
    }
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
    /* A reservation that came with no pass (the job it waited for runs on
     * past its walltime, checkpointing) is no reason to wake again now. */
    if (e->wake <= now)
        e->wake = INT64_MAX;
    return sample (e, now);
}

/* Instants are arrivals, ends, what happens to nodes, and the times the
 * policy reserved for a queued job: the daemon passes every few seconds,
 * so a job whose reservation falls between events starts then there too.
 * With nothing running, nothing to come and no node to come back, one
 * such wake-up is all a policy gets; node events alone (the next reclaim
 * of an idle cluster) do not keep a finished replay going. */
static int replay (struct engine *e, const struct policy_ops *ops,
                   struct hpcq_error *err)
{
    int next = 0, idle_wakes = 0;

    e->wake = INT64_MAX;
    for (;;) {
        int64_t t_arr = next < e->t->njobs ? e->t->job[next].submit : INT64_MAX;
        int stuck = t_arr == INT64_MAX && e->nrunning == 0 && e->nout == 0;
        int64_t t_ev = e->nheap > 0 && !stuck ? e->heap[0].time : INT64_MAX;
        int64_t t = min64 (min64 (t_arr, t_ev), e->nqueue > 0 ? e->wake : INT64_MAX);
        if (t_arr == INT64_MAX && e->nrunning == 0 && e->nqueue == 0)
            break;
        if (t == INT64_MAX || (stuck && idle_wakes++ > 0))
            break;
        if (!stuck)
            idle_wakes = 0;
        if (instant (e, ops, t, &next) < 0 || e->oom)
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
    free (e->js);
    free (e->queue);
    free (e->heap);
    free (e->node);
    free (e->nodep);
    free (e->ns);
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
                    const struct policy_ops *ops, const struct sim_scenario *sc,
                    const struct sim_ckpt *ck, struct sim_run *run,
                    struct hpcq_error *err)
{
    struct engine e = { 0 };
    size_t n = t->njobs ? (size_t)t->njobs : 1;
    double t0 = seconds_now ();
    int rc = -1;

    memset (run, 0, sizeof (*run));
    run->policy = ops->name;
    run->njobs = t->njobs;
    if (sc) {
        run->scenario = sc->name;
        run->ckpt = ck ? ck->name : "none";
        e.reclaim_rate =
            sc->trace ? sc->trace_rate : sim_rate_per_second (sc->reclaim_rate);
        e.failure_rate = sim_rate_per_second (sc->failure_rate);
        sim_rng_seed (&e.rng, sc->seed);
    }
    e.t = t;
    e.sc = sc;
    e.ck = ck;
    e.run = run;
    LIST_INIT (&e.running);
    e.ctx.running = &e.running;
    e.ctx.nodes = NULL;
    e.ctx.default_walltime = -1;
    e.ctx.fit = eng_fit;
    e.ctx.start = eng_start;
    e.ctx.arg = &e;
    if (!(run->out = calloc (n, sizeof (*run->out)))
        || !(e.live = calloc (n, sizeof (*e.live)))
        || !(e.js = calloc (n, sizeof (*e.js)))
        || !(e.queue = calloc (n, sizeof (*e.queue)))) {
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
