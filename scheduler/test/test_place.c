/* test_place.c - fitting requests on hand-built nodes: MIG instances,
 * GPU models, best fit, all-or-nothing multi-node jobs, ib_switch groups,
 * and the allocation record surviving a restart (alloc JSON). */
#include <config.h>
#include <stdlib.h>
#include <string.h>

#include "common/test/tap.h"
#include "scheduler/nodes.h"
#include "scheduler/place.h"
#include "scheduler/cluster.h"

#define GB (INT64_C (1) << 30)

static struct alloc *place (struct cluster *c, const char *list)
{
    struct job *job = cluster_job (c, c->njobs + 1, list, 0);
    struct alloc *a = place_job (c->ptr, c->nnodes, job, 0);

    if (a) {
        alloc_apply (a, job->rec.seq, 1);
        job->alloc = a;     /* the cluster frees it */
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
        && c->node[0].use.mig[0] == ((1u << a->slot[0].mig_inst) | (1u << b->slot[0].mig_inst)),
        "the instances are marked taken, in the record and its mirror");
    a = place (c, "select=1:ncpus=1:mig=4g.20gb");
    ok (a && a->slot[0].mig_gpu == 1 && a->slot[0].mig_inst == 1, "4g.20gb is GPU 1's second");
    ok (!place (c, "select=1:ncpus=1:mig=4g.20gb"), "there is no second 4g.20gb");
    ok (!place (c, "select=1:ncpus=1:mig=2g.10gb"), "a profile no GPU has does not fit");

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
    ok (a && node_of (c, &a->slot[0]) == 1, "gpu_model=h100 matches 'NVIDIA H100 80GB HBM3'");
    a = place (c, "select=1:ngpus=4:gpu_model=H200");
    ok (a && node_of (c, &a->slot[0]) == 2, "gpu_model=H200 goes to the H200 node");
    ok (!place (c, "select=1:ngpus=1:gpu_model=H200"), "no H200 left: no other model is used");
    ok (!place (c, "select=1:ngpus=1:gpu_model=V100"), "a model no node has does not fit");
    a = place (c, "select=2:ngpus=2:gpu_model=A100");
    ok (a && a->n == 2 && node_of (c, &a->slot[0]) == 0 && node_of (c, &a->slot[1]) == 0,
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
    ok (a && node_of (c, &a->slot[0]) == 0, "then one GPU goes to the node that has some");
    a = place (c, "select=1:ncpus=28");
    ok (a && node_of (c, &a->slot[0]) == 2, "a CPU job takes the node with the fewest cores left");
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
    before = c->node[1].use.ncpus_used + c->node[2].use.ncpus_used + c->node[3].use.ncpus_used
             + c->node[0].use.ncpus_used;
    ok (!place (c, "select=4:ncpus=4,place=scatter"), "4 scattered chunks of 4 do not fit");
    ok (c->node[0].use.ncpus_used + c->node[1].use.ncpus_used + c->node[2].use.ncpus_used
        + c->node[3].use.ncpus_used == before, "a job that does not fit takes nothing");
    a = place (c, "select=3:ncpus=8:ngpus=2,place=scatter");
    ok (a && a->n == 3 && node_of (c, &a->slot[0]) != node_of (c, &a->slot[1])
        && node_of (c, &a->slot[1]) != node_of (c, &a->slot[2])
        && node_of (c, &a->slot[0]) != 0 && node_of (c, &a->slot[1]) != 0
        && node_of (c, &a->slot[2]) != 0, "3 whole nodes: all on the three free ones");
    a = place (c, "select=2:ncpus=1");
    ok (a && a->n == 2 && node_of (c, &a->slot[0]) == 0 && node_of (c, &a->slot[1]) == 0,
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
    ok (place_model_match ("NVIDIA A100-SXM4-40GB", "a100"), "models match case-insensitively");
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
    return done_testing ();
}
