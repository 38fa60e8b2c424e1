/* test_backfill.c - the backfill policies' promises, on random workloads.
 *
 * Random nodes (cores, GPUs, some in MIG mode) and random jobs (sizes,
 * GPUs or MIG instances, walltimes, priorities, some arriving later) run
 * through a small virtual-time loop: a pass at every arrival and every
 * end, running jobs ending exactly when their walltime runs out.  EASY:
 * a job that was given a reservation as the top job never starts later
 * than that reservation.  Conservative: no job starts later than the
 * first reservation it was given.  Both: every job runs in the end, and
 * no node is ever overcommitted.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/test/tap.h"
#include "scheduler/node.h"
#include "scheduler/policy/place.h"
#include "scheduler/policy/policy.h"
#include "sim/cluster.h"

#define MAXJOBS 40

static unsigned long long rng = 1;

static int rnd (int n)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((rng >> 33) % (unsigned)n);
}

struct trial {
    struct cluster *c;
    struct job *job[MAXJOBS];
    int64_t arrive[MAXJOBS];
    int64_t promise[MAXJOBS]; /* the reservation held against it, 0 none */
    int njobs;
};

static void make_nodes (struct trial *t)
{
    int n = 1 + rnd (6);

    t->c = cluster_create (n);
    for (int i = 0; i < n; i++) {
        char labels[32];
        int ngpus = rnd (3) ? rnd (5) : 0;
        snprintf (labels, sizeof (labels), "ib_switch=s%d", rnd (2));
        cluster_node (t->c, i, 2 + rnd (15), 0, ngpus, rnd (2) ? "A100" : "H100",
                      labels);
        if (ngpus > 0 && rnd (3) == 0)
            cluster_mig (t->c, i, 0, "1g.5gb", 1 + rnd (7));
    }
}

/* A random request with one kind of chunk, that some empty node set
 * can hold (what submission checks). */
static void make_jobs (struct trial *t)
{
    int n = 5 + rnd (MAXJOBS - 5);

    for (int k = 0; k < n; k++) {
        char req[128];
        struct job *job;
        struct alloc *a;
        int late = rnd (4) == 0;
        int kind = rnd (6);
        snprintf (req, sizeof (req), "select=%d:ncpus=%d%s%s%s,walltime=%d",
                  1 + (rnd (4) == 0) * rnd (3), 1 + rnd (8),
                  kind == 0   ? ":ngpus=1"
                  : kind == 1 ? ":ngpus=2"
                              : "",
                  kind == 2 ? ":mig=1g.5gb" : "", rnd (4) == 0 ? ",place=scatter" : "",
                  1 + rnd (100));
        int64_t arrive = late ? 1 + rnd (150) : 0;
        /* Numbered in submission order, as the daemon numbers them: a
         * job never gets ahead of an earlier one of equal priority. */
        job = cluster_job (t->c, arrive * 1000 + k + 1, req, late ? 0 : rnd (4));
        if (!(a = place_job (t->c->ptr, t->c->nnodes, job, 1))) {
            job->rec.state = 'X'; /* would be refused at submission */
            continue;
        }
        free (a);
        t->job[t->njobs] = job;
        t->arrive[t->njobs++] = arrive;
        job->rec.state = 'A'; /* not yet arrived */
    }
}

/* No node holds more than it has. */
static int nodes_sane (const struct cluster *c)
{
    for (int i = 0; i < c->nnodes; i++) {
        const struct node *n = &c->node[i];
        if (n->use.ncpus_used > n->ncpus || n->use.ncpus_used < 0
            || n->ncpus_used != n->use.ncpus_used)
            return 0;
    }
    return 1;
}

/* Run the trial; 0 if every promise held and every job ran, else -1
 * with why. */
static int run_trial (struct trial *t, const struct policy_ops *policy, char *why,
                      size_t len)
{
    int64_t now = 0;
    int done = 0;

    for (int guard = 0; guard < 10000; guard++) {
        struct job *queued[MAXJOBS];
        struct policy_ctx ctx;
        int nq = 0;
        int64_t next = INT64_MAX;

        t->c->now = now;
        for (int k = 0; k < t->njobs; k++) {
            struct job *j = t->job[k];
            if (j->rec.state == 'R' && j->rec.stime + j->spec.res.walltime <= now) {
                cluster_end (t->c, j);
                done++;
            }
            if (j->rec.state == 'A' && t->arrive[k] <= now)
                j->rec.state = 'Q';
            if (j->rec.state == 'Q')
                queued[nq++] = j;
        }
        if (done == t->njobs)
            return 0;
        cluster_ctx (t->c, &ctx, queued, nq);
        if (nq > 0)
            policy->pass (&ctx);
        if (getenv ("TRACE")) {
            fprintf (stderr, "t=%lld\n", (long long)now);
            for (int k = 0; k < t->njobs; k++) {
                struct job *j = t->job[k];
                char sel[128];
                resource_format_select (&j->spec.res, sel, sizeof (sel));
                if (j->rec.state == 'R' || j->rec.state == 'Q')
                    fprintf (stderr,
                             "  %lld %c prio %d %s place=%s w=%lld %s%lld node %s\n",
                             (long long)j->rec.seq, j->rec.state, j->rec.priority, sel,
                             j->spec.res.place, (long long)j->spec.res.walltime,
                             j->rec.state == 'R' ? "stime " : "est ",
                             (long long)(j->rec.state == 'R' ? j->rec.stime
                                                             : j->est_start),
                             j->alloc ? j->alloc->slot[0].node_name : "-");
            }
        }
        if (!nodes_sane (t->c)) {
            snprintf (why, len, "a node is overcommitted at t=%lld", (long long)now);
            return -1;
        }
        for (int k = 0; k < t->njobs; k++) {
            struct job *j = t->job[k];
            if (j->rec.state == 'R' && j->rec.stime == now && t->promise[k]
                && now > t->promise[k]) {
                snprintf (why, len,
                          "job %lld started at %lld, after its reservation %lld",
                          (long long)j->rec.seq, (long long)now,
                          (long long)t->promise[k]);
                return -1;
            }
            /* EASY: every reservation the top job gets binds (the
             * earliest is the one to check); conservative: the first. */
            if (j->rec.state == 'Q' && j->est_start > 0
                && (!t->promise[k]
                    || (policy == &policy_easy && j->est_start < t->promise[k])))
                t->promise[k] = j->est_start;
            /* The daemon's periodic pass runs at a reservation's time. */
            if (j->rec.state == 'Q' && j->est_start > now && j->est_start < next)
                next = j->est_start;
            if (j->rec.state == 'R' && j->rec.stime + j->spec.res.walltime < next)
                next = j->rec.stime + j->spec.res.walltime;
            if (j->rec.state == 'A' && t->arrive[k] < next)
                next = t->arrive[k];
        }
        if (next == INT64_MAX) {
            snprintf (why, len, "stuck at t=%lld with jobs queued and nothing running",
                      (long long)now);
            return -1;
        }
        now = next;
    }
    snprintf (why, len, "did not finish");
    return -1;
}

static void property (const struct policy_ops *policy, int trials)
{
    int failed = 0;
    char why[256] = "";

    for (int i = 0; i < trials && !failed; i++) {
        struct trial t = { 0 };
        rng = 1000003ULL * (i + 1);
        make_nodes (&t);
        make_jobs (&t);
        if (run_trial (&t, policy, why, sizeof (why)) < 0) {
            diag ("trial %d (%d nodes, %d jobs): %s", i, t.c->nnodes, t.njobs, why);
            failed = 1;
        }
        for (int k = 0; k < t.c->njobs; k++) {
            free (t.c->job[k]->resv);
            t.c->job[k]->resv = NULL;
        }
        cluster_destroy (t.c);
    }
    ok (!failed, "%s: %d random workloads, every promise kept, every job run",
        policy->name, trials);
}

/* EASY as written before it was made fast: no request classes, no bound
 * on the reservation search, every node tried.  The optimised pass must
 * decide exactly as this one does. */
static struct node_use *ref_use (struct policy_ctx *ctx)
{
    struct node_use *u = calloc (ctx->nnodes, sizeof (*u));

    for (int i = 0; i < ctx->nnodes; i++) {
        ctx->nodes[i]->pidx = i;
        node_use_of (ctx->nodes[i], &u[i]);
    }
    return u;
}

static void ref_apply (struct policy_ctx *ctx, struct node_use *u,
                       const struct alloc *a, int sign)
{
    for (int s = 0; s < a->n; s++)
        node_use_apply (&u[a->slot[s].node->pidx], &a->slot[s], 0, sign);
}

static int64_t ref_end (const struct job *j)
{
    return j->rec.stime + j->spec.res.walltime;
}

static int cmp_ref_end (const void *a, const void *b)
{
    const struct job *x = *(struct job *const *)a, *y = *(struct job *const *)b;
    return ref_end (x) < ref_end (y) ? -1 : ref_end (x) > ref_end (y);
}

static void ref_easy_pass (struct policy_ctx *ctx)
{
    struct cluster *c = ctx->arg;
    struct node_use *shadow_use = NULL;
    int64_t shadow = INT64_MAX;
    struct job *top = NULL;

    policy_sort_priority (ctx->jobs, ctx->njobs);
    for (int i = 0; i < ctx->njobs; i++) {
        struct job *job = ctx->jobs[i];
        struct alloc *a = NULL;
        job->est_start = 0;
        if (!top) {
            if ((a = place_job (ctx->nodes, ctx->nnodes, job, 0))) {
                cluster_start (c, job, a);
                continue;
            }
            struct job *ends[256], *j;
            int n = 0;
            top = job;
            shadow_use = ref_use (ctx);
            LIST_FOREACH (j, &c->running, r_link)
            ends[n++] = j;
            qsort (ends, n, sizeof (*ends), cmp_ref_end);
            for (int k = 0; k < n; k++) {
                ref_apply (ctx, shadow_use, ends[k]->alloc, -1);
                if (k + 1 < n && ref_end (ends[k + 1]) == ref_end (ends[k]))
                    continue;
                if ((a = place_alloc_use (ctx->nodes, shadow_use, NULL, ctx->nnodes,
                                          &job->spec.res, job->node_labels))) {
                    ref_apply (ctx, shadow_use, a, 1);
                    free (a);
                    shadow = ref_end (ends[k]);
                    break;
                }
            }
            job->est_start = shadow == INT64_MAX ? 0 : shadow;
            continue;
        }
        if (shadow == INT64_MAX)
            continue;
        if (ctx->now + job->spec.res.walltime <= shadow)
            a = place_job (ctx->nodes, ctx->nnodes, job, 0);
        else if ((a = place_alloc_use (ctx->nodes, NULL, shadow_use, ctx->nnodes,
                                       &job->spec.res, job->node_labels)))
            ref_apply (ctx, shadow_use, a, 1);
        if (a)
            cluster_start (c, job, a);
    }
    free (shadow_use);
}

static const struct policy_ops ref_easy = { .name = "reference easy",
                                            .pass = ref_easy_pass };

/* Bigger trials with runs of equal requests (arrays): the optimised EASY
 * starts the same jobs at the same times on the same nodes, and gives the
 * same reservations, as the reference. */
static void equivalence (int trials)
{
    int differ = 0;

    for (int i = 0; i < trials && !differ; i++) {
        struct trial t[2];
        char why[256];
        for (int v = 0; v < 2; v++) {
            memset (&t[v], 0, sizeof (t[v]));
            rng = 7919ULL * (i + 1);
            make_nodes (&t[v]);
            make_jobs (&t[v]);
            (void)run_trial (&t[v], v ? &ref_easy : &policy_easy, why, sizeof (why));
        }
        for (int k = 0; k < t[0].njobs && !differ; k++) {
            const struct job *a = t[0].job[k], *b = t[1].job[k];
            if (a->rec.stime != b->rec.stime || a->est_start != b->est_start) {
                diag ("trial %d: job %lld starts at %lld (reference %lld)", i,
                      (long long)a->rec.seq, (long long)a->rec.stime,
                      (long long)b->rec.stime);
                differ = 1;
            }
        }
        for (int v = 0; v < 2; v++)
            cluster_destroy (t[v].c);
    }
    ok (!differ, "easy decides as the unoptimised reference on %d random workloads",
        trials);
}

/* A hand-made case: the top job's reservation and a backfill that fits
 * before it, one that would delay it, and one beside it. */
static void test_easy_case (void)
{
    struct cluster *c = cluster_create (2);
    struct job *q[4], *run;
    struct policy_ctx ctx;
    struct alloc *a;

    cluster_node (c, 0, 4, 0, 0, "", "");
    cluster_node (c, 1, 4, 0, 0, "", "");
    run = cluster_job (c, 1, "select=1:ncpus=4,walltime=100", 0);
    a = place_job (c->ptr, 2, run, 0);
    cluster_start (c, run, a);
    q[0] = cluster_job (c, 2, "select=2:ncpus=4,place=scatter,walltime=50", 0);
    q[1] = cluster_job (c, 3, "select=1:ncpus=2,walltime=200", 0);
    q[2] = cluster_job (c, 4, "select=1:ncpus=2,walltime=100", 0);
    q[3] = cluster_job (c, 5, "select=1:ncpus=2,walltime=100", 0);
    cluster_ctx (c, &ctx, q, 4);
    policy_easy.pass (&ctx);
    ok (q[0]->rec.state == 'Q' && q[0]->est_start == 100,
        "the top job waits for t=100");
    ok (q[1]->rec.state == 'Q', "a job that would run past it waits");
    ok (q[2]->rec.state == 'R' && q[3]->rec.state == 'R',
        "jobs that end by t=100 start now");
    cluster_destroy (c);
}

static void test_conservative_case (void)
{
    struct cluster *c = cluster_create (1);
    struct job *q[3], *run;
    struct policy_ctx ctx;

    cluster_node (c, 0, 4, 0, 0, "", "");
    run = cluster_job (c, 1, "select=1:ncpus=2,walltime=100", 0);
    cluster_start (c, run, place_job (c->ptr, 1, run, 0));
    q[0] = cluster_job (c, 2, "select=1:ncpus=4,walltime=50", 0);
    q[1] = cluster_job (c, 3, "select=1:ncpus=2,walltime=500", 0);
    q[2] = cluster_job (c, 4, "select=1:ncpus=2,walltime=60", 0);
    cluster_ctx (c, &ctx, q, 3);
    policy_conservative.pass (&ctx);
    ok (q[0]->est_start == 100,
        "conservative: the whole-node job is reserved for t=100");
    ok (q[1]->rec.state == 'Q' && q[1]->est_start == 150,
        "a long job would delay it: reserved after it, at t=150");
    ok (q[2]->rec.state == 'R', "a job that ends before t=100 starts now");
    for (int k = 0; k < 3; k++)
        free (q[k]->resv);
    cluster_destroy (c);
}

int main (int argc, char *argv[])
{
    int trials = argc > 1 ? atoi (argv[1]) : 300;

    if (argc > 2) { /* one trial, traced: test_backfill 1 SEED easy|conservative */
        struct trial t = { 0 };
        char why[256] = "";
        rng = 1000003ULL * (atoi (argv[2]) + 1);
        make_nodes (&t);
        make_jobs (&t);
        for (int i = 0; i < t.c->nnodes; i++)
            fprintf (stderr, "node %s: %d cpus %d gpus %s\n", t.c->node[i].name,
                     t.c->node[i].ncpus, t.c->node[i].ngpus, t.c->node[i].labels);
        setenv ("TRACE", "1", 1);
        if (run_trial (&t,
                       argc > 3 && !strcmp (argv[3], "easy") ? &policy_easy
                                                             : &policy_conservative,
                       why, sizeof (why))
            < 0)
            fprintf (stderr, "%s\n", why);
        return 0;
    }

    plan (NO_PLAN);
    test_easy_case ();
    test_conservative_case ();
    property (&policy_easy, trials);
    property (&policy_conservative, trials);
    equivalence (trials);
    return done_testing ();
}
