/* test_place.c - fitting requests on hand-built nodes: MIG instances,
 * GPU models, best fit, all-or-nothing multi-node jobs, ib_switch groups,
 * and the allocation record surviving a restart (alloc JSON). */
#include <config.h>
#include <stdlib.h>
#include <string.h>

#include "common/test/tap.h"
#include "scheduler/node.h"
#include "scheduler/policy/place.h"
#include "sim/cluster.h"

#define GB (INT64_C (1) << 30)

static struct alloc *place (struct cluster *c, const char *list)
{
    struct job *job = cluster_job (c, c->njobs + 1, list, 0);
    struct alloc *a = place_job (c->ptr, c->nnodes, job, 0);

    if (a) {
        alloc_apply (a, job->rec.seq, 1);
        job->alloc = a; /* the cluster frees it */
    }
    return a;
}

static int node_of (const struct cluster *c, const struct alloc_slot *s)
{
    return (int)(s->node - c->node);
}

static void test_mig (void)
{
    struct cluster *c = cluster_create (2);
    struct alloc *a, *b;

    /* node 0: GPU 0 split 7 x 1g.5gb, GPU 1 split 3g.20gb + 4g.20gb,
     * GPU 2 whole; node 1: two whole GPUs. */
    cluster_node (c, 0, 16, 64 * GB, 3, "NVIDIA A100-SXM4-40GB", "");
    cluster_mig (c, 0, 0, "1g.5gb", 7);
    cluster_mig (c, 0, 1, "3g.20gb", 1);
    cluster_mig (c, 0, 1, "4g.20gb", 1);
    cluster_node (c, 1, 16, 64 * GB, 2, "NVIDIA A100-SXM4-40GB", "");

    a = place (c, "select=1:ncpus=1:mig=1g.5gb");
    ok (a && a->n == 1 && a->slot[0].nmig == 1 && node_of (c, &a->slot[0]) == 0
            && a->slot[0].mig_gpu == 0 && a->slot[0].ngpus == 0,
        "a 1g.5gb request gets one instance of GPU 0, no whole GPU");
    b = place (c, "select=1:ncpus=1:mig=1g.5gb");
    ok (b && b->slot[0].mig_gpu == 0 && b->slot[0].mig_inst != a->slot[0].mig_inst,
        "a second one packs onto the same GPU's next instance");
    ok (c->node[0].gpu[0].mig[a->slot[0].mig_inst].used_by != 0
            && c->node[0].use.mig[0]
                   == ((1u << a->slot[0].mig_inst) | (1u << b->slot[0].mig_inst)),
        "the instances are marked taken, in the record and its mirror");
    a = place (c, "select=1:ncpus=1:mig=4g.20gb");
    ok (a && a->slot[0].mig_gpu == 1 && a->slot[0].mig_inst == 1,
        "4g.20gb is GPU 1's second");
    ok (!place (c, "select=1:ncpus=1:mig=4g.20gb"), "there is no second 4g.20gb");
    ok (!place (c, "select=1:ncpus=1:mig=2g.10gb"),
        "a profile no GPU has does not fit");

    /* Whole-GPU jobs never get a GPU in MIG mode. */
    a = place (c, "select=1:ncpus=1:ngpus=3");
    ok (!a, "three whole GPUs do not fit: node 0 has one whole, node 1 two");
    a = place (c, "select=1:ncpus=1:ngpus=1");
    ok (a && node_of (c, &a->slot[0]) == 0 && a->slot[0].gpus[0] == 2,
        "one whole GPU: best fit takes node 0's last whole GPU, not one in MIG mode");
    a = place (c, "select=1:ncpus=1:ngpus=2");
    ok (a && node_of (c, &a->slot[0]) == 1, "two whole GPUs: node 1");
    ok (!place (c, "select=1:ncpus=1:ngpus=1"), "no whole GPU is left");
    cluster_destroy (c);
}

static void test_model (void)
{
    struct cluster *c = cluster_create (3);
    struct alloc *a;

    cluster_node (c, 0, 8, 0, 4, "NVIDIA A100-SXM4-40GB", "");
    cluster_node (c, 1, 8, 0, 4, "NVIDIA H100 80GB HBM3", "");
    cluster_node (c, 2, 8, 0, 4, "NVIDIA H200", "");
    a = place (c, "select=1:ngpus=2:gpu_model=h100");
    ok (a && node_of (c, &a->slot[0]) == 1,
        "gpu_model=h100 matches 'NVIDIA H100 80GB HBM3'");
    a = place (c, "select=1:ngpus=4:gpu_model=H200");
    ok (a && node_of (c, &a->slot[0]) == 2, "gpu_model=H200 goes to the H200 node");
    ok (!place (c, "select=1:ngpus=1:gpu_model=H200"),
        "no H200 left: no other model is used");
    ok (!place (c, "select=1:ngpus=1:gpu_model=V100"),
        "a model no node has does not fit");
    a = place (c, "select=2:ngpus=2:gpu_model=A100");
    ok (a && a->n == 2 && node_of (c, &a->slot[0]) == 0
            && node_of (c, &a->slot[1]) == 0,
        "two A100 chunks share the A100 node");
    cluster_destroy (c);
}

static void test_best_fit (void)
{
    struct cluster *c = cluster_create (3);
    struct alloc *a;

    cluster_node (c, 0, 32, 0, 4, "A100", "");
    cluster_node (c, 1, 32, 0, 2, "A100", "");
    cluster_node (c, 2, 32, 0, 0, "", "");
    a = place (c, "select=1:ncpus=4");
    ok (a && node_of (c, &a->slot[0]) == 2, "a CPU job leaves the GPU nodes alone");
    a = place (c, "select=1:ncpus=2:ngpus=2");
    ok (a && node_of (c, &a->slot[0]) == 1, "two GPUs go where exactly two are free");
    a = place (c, "select=1:ncpus=2:ngpus=1");
    ok (a && node_of (c, &a->slot[0]) == 0,
        "then one GPU goes to the node that has some");
    a = place (c, "select=1:ncpus=28");
    ok (a && node_of (c, &a->slot[0]) == 2,
        "a CPU job takes the node with the fewest cores left");
    a = place (c, "select=1:ncpus=4");
    ok (a && node_of (c, &a->slot[0]) == 1,
        "with the CPU node full, the node whose GPUs are all taken");
    cluster_destroy (c);
}

static void test_multi_node (void)
{
    struct cluster *c = cluster_create (4);
    struct alloc *a;
    int before;

    for (int i = 0; i < 4; i++)
        cluster_node (c, i, 8, 16 * GB, 2, "A100", "");
    ok (place (c, "select=1:ncpus=6") != NULL, "one node partly used");
    before = c->node[1].use.ncpus_used + c->node[2].use.ncpus_used
             + c->node[3].use.ncpus_used + c->node[0].use.ncpus_used;
    ok (!place (c, "select=4:ncpus=4,place=scatter"),
        "4 scattered chunks of 4 do not fit");
    ok (c->node[0].use.ncpus_used + c->node[1].use.ncpus_used
                + c->node[2].use.ncpus_used + c->node[3].use.ncpus_used
            == before,
        "a job that does not fit takes nothing");
    a = place (c, "select=3:ncpus=8:ngpus=2,place=scatter");
    ok (a && a->n == 3 && node_of (c, &a->slot[0]) != node_of (c, &a->slot[1])
            && node_of (c, &a->slot[1]) != node_of (c, &a->slot[2])
            && node_of (c, &a->slot[0]) != 0 && node_of (c, &a->slot[1]) != 0
            && node_of (c, &a->slot[2]) != 0,
        "3 whole nodes: all on the three free ones");
    a = place (c, "select=2:ncpus=1");
    ok (a && a->n == 2 && node_of (c, &a->slot[0]) == 0
            && node_of (c, &a->slot[1]) == 0,
        "two free-placed chunks pack onto the one node with room");
    ok (!place (c, "select=1:ncpus=1,place=excl"), "excl needs an empty node");
    cluster_destroy (c);
}

static void test_ib_switch (void)
{
    struct cluster *c = cluster_create (6);
    struct alloc *a;

    /* Switch s1: nodes 0, 2, 4; s2: nodes 1, 3 (and node 5 has none). */
    for (int i = 0; i < 5; i++)
        cluster_node (c, i, 8, 0, 0, "", i % 2 ? "ib_switch=s2" : "spot,ib_switch=s1");
    cluster_node (c, 5, 8, 0, 0, "", "");
    a = place (c, "select=2:ncpus=8,place=scatter");
    ok (a && node_of (c, &a->slot[0]) % 2 == 1 && node_of (c, &a->slot[1]) % 2 == 1
            && node_of (c, &a->slot[0]) != 5 && node_of (c, &a->slot[1]) != 5,
        "2 nodes: both on switch s2, the tightest group that holds them");
    a = place (c, "select=3:ncpus=8,place=scatter");
    ok (a && node_of (c, &a->slot[0]) % 2 == 0 && node_of (c, &a->slot[1]) % 2 == 0
            && node_of (c, &a->slot[2]) % 2 == 0 && node_of (c, &a->slot[2]) != 5,
        "3 nodes: all on switch s1");
    ok (!place (c, "select=2:ncpus=8,place=scatter"), "one node left: 2 do not fit");
    cluster_destroy (c);

    c = cluster_create (4);
    for (int i = 0; i < 4; i++)
        cluster_node (c, i, 8, 0, 0, "", i < 2 ? "ib_switch=a" : "ib_switch=b");
    a = place (c, "select=3:ncpus=8,place=scatter");
    ok (a && a->n == 3, "no group holds 3 nodes: the job spans switches");
    cluster_destroy (c);
}

static void test_labels (void)
{
    ok (place_labels_match ("spot,ib_switch=s1", "spot"), "spot matches");
    ok (place_labels_match ("spot,ib_switch=s1", "ib_switch=s1,spot"), "both match");
    ok (!place_labels_match ("spot,ib_switch=s1", "ib_switch=s"), "a prefix does not");
    ok (!place_labels_match ("", "ondemand"), "no labels match nothing asked");
    ok (place_model_match ("NVIDIA A100-SXM4-40GB", "a100"),
        "models match case-insensitively");
    ok (place_model_match ("anything", ""), "no model asked matches all");
}

static void test_empty (void)
{
    struct cluster *c = cluster_create (1);
    struct job *job;
    struct alloc *a;

    cluster_node (c, 0, 4, 0, 1, "A100", "");
    cluster_mig (c, 0, 0, "1g.5gb", 2);
    ok (place (c, "select=1:ncpus=4:mig=1g.5gb") != NULL, "fills the node");
    job = cluster_job (c, 99, "select=1:ncpus=4:mig=1g.5gb", 0);
    ok (!place_job (c->ptr, 1, job, 0), "a second does not fit now");
    a = place_job (c->ptr, 1, job, 1);
    ok (a != NULL, "but fits an empty node (the submit-time check)");
    free (a);
    c->node[0].state = NODE_DOWN;
    a = place_job (c->ptr, 1, job, 1);
    ok (a != NULL, "also while the node is down");
    free (a);
    cluster_destroy (c);
}

/* How many slots list gets on c (its free resources, or empty), 0 if it
 * does not fit; nothing is applied. */
static int slots (struct cluster *c, const char *list, int empty)
{
    struct job *job = cluster_job (c, c->njobs + 1, list, 0);
    struct alloc *a = place_job (c->ptr, c->nnodes, job, empty);
    int n = a ? a->n : 0;

    free (a);
    return n;
}

/* A job of more nodes than the old 64-slot allocation held, sized to
 * itself; one more than the cluster refused (fast: counted first). */
static void test_big (void)
{
    struct cluster *c = cluster_create (100);
    struct alloc *a;
    int distinct = 1;

    for (int i = 0; i < 100; i++)
        cluster_node (c, i, 2, 8 * GB, 0, "", "");
    a = place (c, "select=100:ncpus=1,place=scatter");
    for (int s = 1; a && s < a->n; s++)
        distinct &= node_of (c, &a->slot[s]) != node_of (c, &a->slot[s - 1]);
    ok (a && a->n == 100 && distinct, "select=100 scatter: 100 slots on 100 nodes");
    ok (slots (c, "select=65:ncpus=1", 0) == 65,
        "select=65:ncpus=1 fits beside it (one core left on each)");
    ok (slots (c, "select=101:ncpus=1,place=scatter", 1) == 0,
        "select=101 scatter never fits 100 nodes");
    ok (slots (c, "select=201:ncpus=1", 1) == 0,
        "nor 201 one-core chunks on 200 cores");
    ok (slots (c, "select=200:ncpus=1", 1) == 200,
        "but 200 fit the empty cluster, two to a node");
    ok (slots (c, "select=2000000000:ncpus=1", 1) == 0,
        "select=2000000000 fails at once");
    cluster_destroy (c);
}

/* select=N:X places its copies from one scoring of the nodes (a heap);
 * N terms 1:X each scan the nodes: both must choose the same nodes, GPUs
 * and MIG instances, on any cluster. */
static void test_copies_same (void)
{
    static const char *shape[] = {
        "ncpus=1",
        "ncpus=3",
        "ncpus=8:ngpus=2",
        "ncpus=2:ngpus=1:gpu_model=H100",
        "ncpus=2:mig=1g.5gb",
        "ncpus=4:mem=20gb",
    };
    static const char *place_kw[] = { "", ",place=scatter", ",place=pack",
                                      ",place=free" };
    unsigned seed = 7;
    int same = 0, tried = 0, placed = 0;

    for (int round = 0; round < 200; round++) {
        struct cluster *c = cluster_create (24);
        char one[256], many[4096];
        struct job *x, *y;
        struct alloc *a, *b;
        int n, k;
        for (int i = 0; i < 24; i++) {
            seed = seed * 1103515245 + 12345;
            cluster_node (c, i, 4 + (int)(seed >> 16) % 13, 64 * GB,
                          (int)(seed >> 20) % 5, i % 2 ? "H100" : "A100",
                          i % 3 ? "ib_switch=a" : "ib_switch=b");
            if (i % 5 == 1 && c->node[i].ngpus > 1)
                cluster_mig (c, i, 0, "1g.5gb", 3);
        }
        for (int j = 0; j < 30; j++) { /* some load */
            seed = seed * 1103515245 + 12345;
            snprintf (one, sizeof (one), "select=1:%s", shape[(seed >> 16) % 6]);
            place (c, one);
        }
        seed = seed * 1103515245 + 12345;
        n = 4 + (int)(seed >> 16) % 20;
        k = (int)(seed >> 8) % 6;
        snprintf (one, sizeof (one), "select=%d:%s%s", n, shape[k],
                  place_kw[(seed >> 4) % 4]);
        int len = snprintf (many, sizeof (many), "select=");
        for (int i = 0; i < n; i++)
            len += snprintf (many + len, sizeof (many) - len, "%s1:%s", i ? "+" : "",
                             shape[k]);
        snprintf (many + len, sizeof (many) - len, "%s", place_kw[(seed >> 4) % 4]);
        x = cluster_job (c, 1000, one, 0);
        y = cluster_job (c, 1001, many, 0);
        for (int empty = 0; empty < 2; empty++) {
            a = place_job (c->ptr, c->nnodes, x, empty);
            b = place_job (c->ptr, c->nnodes, y, empty);
            tried++;
            placed += a != NULL;
            if (!a || !b)
                same += !a && !b;
            else if (a->n == b->n) {
                int eq = 1;
                for (int s = 0; s < a->n; s++)
                    eq &= a->slot[s].node == b->slot[s].node
                          && a->slot[s].ngpus == b->slot[s].ngpus
                          && !memcmp (a->slot[s].gpus, b->slot[s].gpus,
                                      sizeof (a->slot[s].gpus))
                          && a->slot[s].nmig == b->slot[s].nmig
                          && a->slot[s].mig_inst == b->slot[s].mig_inst
                          && a->slot[s].mig_gpu == b->slot[s].mig_gpu;
                same += eq;
            }
            free (a);
            free (b);
        }
        cluster_destroy (c);
    }
    ok (same == tried && placed > tried / 4,
        "select=N and N terms of one place alike: %d of %d (%d placed)", same, tried,
        placed);
}

int main (void)
{
    plan (NO_PLAN);
    test_mig ();
    test_model ();
    test_best_fit ();
    test_multi_node ();
    test_ib_switch ();
    test_labels ();
    test_empty ();
    test_big ();
    test_copies_same ();
    return done_testing ();
}
