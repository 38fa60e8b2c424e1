/* test_why.c - why_pass's reasons, on a small cluster in memory: too few
 * free cores or memory (R: A: T:), a top job's reservation, fifo's strict
 * order, room in total but not on one node, an unchanged reason not
 * written again, a reason kept by the caller, nothing with no node up.
 */
#include <config.h>
#include <stdlib.h>
#include <string.h>

#include "common/test/tap.h"
#include "scheduler/policy/policy.h"
#include "scheduler/policy/why.h"
#include "sim/cluster.h"

#define GB (INT64_C (1) << 30)

static int ncalls;

static void note (struct job *job, const char *text, void *arg)
{
    ncalls++;
    free (job->rec.comment);
    job->rec.comment = strdup (text);
}

/* One pass of policy over queued[], then why_pass. */
static void pass (struct cluster *c, const struct policy_ops *policy, struct job **q,
                  int n)
{
    struct job *copy[8];
    struct policy_ctx ctx;

    memcpy (copy, q, n * sizeof (*q));
    cluster_ctx (c, &ctx, copy, n);
    policy->pass (&ctx);
    ncalls = 0;
    why_pass (&ctx, policy, note, NULL);
}

static const char *comment (const struct job *job)
{
    return job->rec.comment ? job->rec.comment : "";
}

int main (void)
{
    struct cluster *c = cluster_create (2);
    struct job *run, *big, *small, *mem, *q[4];

    plan (NO_PLAN);
    cluster_node (c, 0, 4, 8 * GB, 0, "", "");
    cluster_node (c, 1, 4, 8 * GB, 0, "", "");
    /* 6 of the 8 cores busy until t=100. */
    run = cluster_job (c, 1, "select=1:ncpus=4+1:ncpus=2,walltime=100", 0);
    q[0] = run;
    pass (c, &policy_easy, q, 1);
    ok (run->rec.state == 'R', "the first job runs");

    big = cluster_job (c, 2, "select=2:ncpus=4,walltime=50", 0);
    small = cluster_job (c, 3, "select=1:ncpus=1,walltime=500", 0);
    mem = cluster_job (c, 4, "select=1:ncpus=1:mem=20gb,walltime=5", 0);
    q[0] = big, q[1] = small, q[2] = mem;
    pass (c, &policy_easy, q, 3);
    is (comment (big),
        "Not Running: Insufficient amount of resource: ncpus (R: 8 A: 2 T: 8)",
        "the top job: too few free cores, with R, A and T");
    is (comment (small), "Not Running: Job would conflict with reservation or top job",
        "a job that fits now but would delay the top job");
    is (comment (mem),
        "Not Running: Insufficient amount of resource: mem (R: 20gb A: 16gb T: 16gb)",
        "memory is named with sizes");
    ok (ncalls == 3, "three reasons said");

    pass (c, &policy_easy, q, 3);
    ok (ncalls == 0, "the same reasons again: nothing written (%d)", ncalls);

    small->why_kept = 1;
    free (small->rec.comment);
    small->rec.comment =
        strdup ("Not Running: Queue workq job limit has been reached.");
    pass (c, &policy_easy, q, 3);
    is (comment (small), "Not Running: Queue workq job limit has been reached.",
        "a reason the caller set is kept");
    ok (!small->why_kept, "and its flag cleared");

    pass (c, &policy_fifo, q, 3);
    is (comment (small), "Not Running: Job would break strict sorted order",
        "fifo: behind a job that cannot start");

    /* One free core on each of two nodes: two in total, on no one node. */
    {
        struct cluster *c2 = cluster_create (2);
        struct job *r2, *two, *q2[1];
        cluster_node (c2, 0, 4, 8 * GB, 0, "", "");
        cluster_node (c2, 1, 4, 8 * GB, 0, "", "");
        r2 = cluster_job (c2, 1, "select=2:ncpus=3,walltime=100", 0);
        q2[0] = r2;
        pass (c2, &policy_easy, q2, 1);
        two = cluster_job (c2, 2, "select=1:ncpus=2,walltime=5", 0);
        q2[0] = two;
        pass (c2, &policy_easy, q2, 1);
        ok (r2->rec.state == 'R', "three cores of each node run");
        is (comment (two), "Not Running: Not enough free nodes available",
            "enough in total but not on a node its chunk fits");
        free (two->rec.comment);
        two->rec.comment = NULL;
        cluster_destroy (c2);
    }

    for (int i = 0; i < c->nnodes; i++)
        c->node[i].state = NODE_DOWN;
    free (big->rec.comment);
    big->rec.comment = strdup ("Requeued: node node1 stopped sending heartbeats");
    big->why_code = 0;
    pass (c, &policy_easy, q, 3);
    is (comment (big), "Requeued: node node1 stopped sending heartbeats",
        "no node up: the comment keeps what happened");
    for (int k = 0; k < 3; k++) {
        free (q[k]->rec.comment);
        q[k]->rec.comment = NULL;
    }
    cluster_destroy (c);
    return done_testing ();
}
