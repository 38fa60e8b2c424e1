/* sched-pass.c - how long one scheduling pass takes, and how that grows.
 *
 * Builds a cluster in memory (nodes of 64 cores, 512 GB and 8 GPUs; a
 * tenth of the nodes with two GPUs in MIG mode; A100 and H100 halves; 32
 * nodes per ib_switch group), fills it to about nine tenths with running
 * jobs of random walltimes, queues a mixed workload (single-core to
 * whole-node jobs, whole-GPU and MIG jobs, multi-node jobs, runs of
 * identical jobs as arrays make, random walltimes and a few priorities)
 * and times the policy's pass: the very code the daemon runs (policy.c,
 * backfill.c, policy_conservative.c, place.c), with no server or database.
 * Each timed pass starts from the same state (the jobs a pass starts are
 * ended again, untimed).
 *
 *   sched-pass [--policy easy|conservative|fifo] [--jobs N] [--nodes N]
 *              [--passes N] [--scaling] [--big N]
 *
 * --big N puts one job of N whole GPU nodes (select=N:ncpus=32:ngpus=8,
 * place=scatter, 12 hours) at the head of the queue, with the highest
 * priority: the pass reserves the cluster for it and backfills the rest
 * around that reservation.  The other jobs are the same draws as without.
 *
 * --scaling also times 50k/100k/200k jobs on 2,000 nodes and 100k jobs on
 * 1k/2k/4k nodes.  Results: bench/RESULTS.md.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scheduler/node.h"
#include "scheduler/policy/place.h"
#include "scheduler/policy/policy.h"
#include "scheduler/policy/why.h"
#include "sim/cluster.h"

#define GB (INT64_C (1) << 30)

static unsigned long long rng_state = 88172645463325252ULL;

static unsigned rnd (unsigned n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

static double clock_ms (clockid_t id)
{
    struct timespec ts;
    clock_gettime (id, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void build_nodes (struct cluster *c)
{
    for (int i = 0; i < c->nnodes; i++) {
        char labels[64];
        snprintf (labels, sizeof (labels), "ib_switch=s%d%s", i / 32,
                  i % 5 == 0 ? ",spot" : "");
        cluster_node (c, i, 64, 512 * GB, 8, i % 2 ? "H100" : "A100", labels);
        if (i % 10 == 3) {
            cluster_mig (c, i, 0, i % 2 ? "1g.10gb" : "1g.5gb", 7);
            cluster_mig (c, i, 1, i % 2 ? "3g.40gb" : "3g.20gb", 1);
            cluster_mig (c, i, 1, i % 2 ? "4g.40gb" : "4g.20gb", 1);
        }
    }
}

/* One request of the mix, as an -l list. */
static void random_request (char *buf, size_t len)
{
    static const char *cpu[] = { "1", "2", "4", "8", "16", "32", "64" };
    static const char *mig[] = { "1g.5gb", "1g.10gb", "3g.20gb", "3g.40gb" };
    unsigned k = rnd (100);
    int wall = 600 + (int)rnd (48 * 3600);

    if (k < 40)
        snprintf (buf, len, "select=1:ncpus=%s:mem=%dgb,walltime=%d", cpu[rnd (7)],
                  1 << rnd (7), wall);
    else if (k < 65)
        snprintf (buf, len, "select=1:ncpus=%d:ngpus=%d%s,walltime=%d", 4 << rnd (3),
                  1 << rnd (4),
                  rnd (3) == 0 ? (rnd (2) ? ":gpu_model=A100" : ":gpu_model=H100") : "",
                  wall);
    else if (k < 75)
        snprintf (buf, len, "select=1:ncpus=2:mig=%s,walltime=%d", mig[rnd (4)], wall);
    else if (k < 90)
        snprintf (buf, len, "select=%d:ncpus=32:ngpus=8,place=scatter,walltime=%d",
                  2 << rnd (4), wall);
    else
        snprintf (buf, len, "select=%d:ncpus=16+1:ncpus=4,walltime=%d", 1 + rnd (8),
                  wall);
}

/* Fill nine tenths of the cluster's cores with running jobs. */
static void fill (struct cluster *c, int64_t *seq)
{
    int64_t total = 0, used = 0;
    int misses = 0;

    for (int i = 0; i < c->nnodes; i++)
        total += c->node[i].ncpus;
    while (misses < 3000 && used * 10 < total * 9) {
        char req[160];
        struct job *job;
        struct alloc *a;
        random_request (req, sizeof (req));
        job = cluster_job (c, ++*seq, req, 0);
        if (!(a = place_job (c->ptr, c->nnodes, job, 0))) {
            misses++;
            continue;
        }
        misses = 0;
        used += resource_total_ncpus (&job->spec.res);
        c->now = -(int64_t)rnd ((unsigned)job->spec.res.walltime); /* started earlier */
        cluster_start (c, job, a);
    }
    c->now = 0;
}

static int big_nodes; /* --big N: one N-node job first, 0 = none */

/* The queue: runs of identical jobs (arrays), a few with priority. */
static struct job **make_queue (struct cluster *c, int n, int64_t *seq)
{
    struct job **q = calloc (n, sizeof (*q));
    int k = 0;

    if (big_nodes > 0) {
        char req[160];
        snprintf (req, sizeof (req),
                  "select=%d:ncpus=32:ngpus=8,place=scatter,walltime=43200", big_nodes);
        q[k++] = cluster_job (c, ++*seq, req, 100);
    }

    while (k < n) {
        char req[160];
        int run = rnd (4) == 0 ? 1 + (int)rnd (500) : 1;
        int prio = rnd (20) == 0 ? (int)rnd (10) : 0;
        random_request (req, sizeof (req));
        for (int i = 0; i < run && k < n; i++)
            q[k++] = cluster_job (c, ++*seq, req, prio);
    }
    return q;
}

static int cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct result {
    double median, min, max;
    double cpu_median; /* CPU time: what the pass costs on a busy machine */
    int started, running;
    int full;          /* nodes without a free core before the pass */
    double sort;       /* CPU ms of the priority sort alone */
    int64_t big_start; /* --big: the big job's reservation (s from now), -1 none */
    double why_median; /* why_pass after the pass (the comments), median CPU ms */
};

/* What the daemon does with a reason (sched.c): set the comment only
 * when it changed. */
static void bench_why (struct job *job, const char *text, void *arg)
{
    if (!job->rec.comment || strcmp (job->rec.comment, text) != 0) {
        free (job->rec.comment);
        job->rec.comment = strdup (text);
    }
}

/* Time passes passes of policy over njobs queued on nnodes. */
static struct result run (const struct policy_ops *policy, int nnodes, int njobs,
                          int passes)
{
    struct cluster *c = cluster_create (nnodes);
    struct job **q, **copy = calloc (njobs, sizeof (*copy)), *j;
    double *t = calloc (passes, sizeof (*t)), *cpu = calloc (passes, sizeof (*cpu));
    double *why = calloc (passes, sizeof (*why));
    struct result r = { 0 };
    int64_t seq = 0;

    rng_state = 88172645463325252ULL;
    build_nodes (c);
    fill (c, &seq);
    LIST_FOREACH (j, &c->running, r_link)
    r.running++;
    q = make_queue (c, njobs, &seq);
    for (int i = 0; i < c->nnodes; i++)
        r.full += c->node[i].use.ncpus_used == c->node[i].ncpus;
    for (int p = 0; p < passes; p++) {
        struct policy_ctx ctx;
        struct job *first_new;
        double t0, c0;
        memcpy (copy, q, njobs * sizeof (*copy));
        first_new = LIST_FIRST (&c->running);
        cluster_ctx (c, &ctx, copy, njobs);
        c->nstarted = 0;
        c0 = clock_ms (CLOCK_PROCESS_CPUTIME_ID);
        t0 = clock_ms (CLOCK_MONOTONIC);
        policy->pass (&ctx);
        t[p] = clock_ms (CLOCK_MONOTONIC) - t0;
        cpu[p] = clock_ms (CLOCK_PROCESS_CPUTIME_ID) - c0;
        /* Then what sched.c does after every pass: say why the rest wait. */
        c0 = clock_ms (CLOCK_PROCESS_CPUTIME_ID);
        why_pass (&ctx, policy, bench_why, NULL);
        why[p] = clock_ms (CLOCK_PROCESS_CPUTIME_ID) - c0;
        r.started = c->nstarted;
        r.big_start = big_nodes && q[0]->est_start > 0 ? q[0]->est_start - c->now : -1;
        /* Back to the state before the pass: end what it started, forget
         * conservative's reservations (each pass is a first one). */
        while (LIST_FIRST (&c->running) != first_new)
            cluster_requeue (c, LIST_FIRST (&c->running));
        for (int k = 0; k < njobs; k++) {
            free (q[k]->resv);
            q[k]->resv = NULL;
        }
    }
    /* What the priority sort alone costs (policy.c's, shared by every
     * policy), on the same queue. */
    {
        double s0;
        memcpy (copy, q, njobs * sizeof (*copy));
        s0 = clock_ms (CLOCK_PROCESS_CPUTIME_ID);
        policy_sort_priority (copy, njobs);
        r.sort = clock_ms (CLOCK_PROCESS_CPUTIME_ID) - s0;
    }
    qsort (t, passes, sizeof (*t), cmp_double);
    qsort (cpu, passes, sizeof (*cpu), cmp_double);
    qsort (why, passes, sizeof (*why), cmp_double);
    r.why_median = why[passes / 2];
    free (why);
    for (int k = 0; k < njobs; k++) {
        free (q[k]->rec.comment);
        q[k]->rec.comment = NULL;
    }
    r.cpu_median = cpu[passes / 2];
    free (cpu);
    r.median = t[passes / 2];
    r.min = t[0];
    r.max = t[passes - 1];
    free (t);
    free (copy);
    free (q);
    cluster_destroy (c);
    return r;
}

static void report (const char *policy, int nnodes, int njobs, struct result r)
{
    printf (
        "%-12s%s %4d nodes %6d jobs  median %6.2f ms  min %6.2f  max %6.2f"
        "  cpu median %7.2f ms (sort %5.2f)  (%d running, %d nodes full, %d started)\n",
        policy, big_nodes ? " +big" : "", nnodes, njobs, r.median, r.min, r.max,
        r.cpu_median, r.sort, r.running, r.full, r.started);
    printf (
        "             why_pass after it: cpu median %.2f ms (pass + why / pass, CPU: "
        "%.3f)\n",
        r.why_median,
        r.cpu_median > 0 ? (r.cpu_median + r.why_median) / r.cpu_median : 0);
    if (big_nodes)
        printf ("             the %d-node job: %s %.1f h from now\n", big_nodes,
                r.big_start >= 0 ? "reserved" : "NOT reserved", r.big_start / 3600.0);
    fflush (stdout);
}

int main (int argc, char *argv[])
{
    const char *name = "easy";
    int njobs = 100000, nnodes = 2000, passes = 7, scaling = 0;
    const struct policy_ops *policy;

    for (int i = 1; i < argc; i++) {
        if (!strcmp (argv[i], "--policy") && i + 1 < argc)
            name = argv[++i];
        else if (!strcmp (argv[i], "--jobs") && i + 1 < argc)
            njobs = atoi (argv[++i]);
        else if (!strcmp (argv[i], "--nodes") && i + 1 < argc)
            nnodes = atoi (argv[++i]);
        else if (!strcmp (argv[i], "--passes") && i + 1 < argc)
            passes = atoi (argv[++i]);
        else if (!strcmp (argv[i], "--scaling"))
            scaling = 1;
        else if (!strcmp (argv[i], "--big") && i + 1 < argc)
            big_nodes = atoi (argv[++i]);
        else {
            fprintf (stderr,
                     "usage: sched-pass [--policy easy|conservative|fifo] "
                     "[--jobs N] [--nodes N] [--passes N] [--scaling] [--big N]\n");
            return 2;
        }
    }
    if (!(policy = policy_lookup (name)) || njobs < 1 || nnodes < 1 || passes < 1) {
        fprintf (stderr, "sched-pass: bad policy, jobs, nodes or passes\n");
        return 2;
    }
    report (name, nnodes, njobs, run (policy, nnodes, njobs, passes));
    if (scaling) {
        for (int j = njobs / 2; j <= njobs * 2; j *= 2)
            if (j != njobs)
                report (name, nnodes, j, run (policy, nnodes, j, passes));
        for (int n = nnodes / 2; n <= nnodes * 2; n *= 2)
            if (n != nnodes)
                report (name, n, njobs, run (policy, n, njobs, passes));
    }
    return 0;
}
