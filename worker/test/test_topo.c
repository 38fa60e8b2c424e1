/* test_topo.c - the node's topology read with hwloc from the shipped XML
 * files (simulated DGX-like and 4-GPU nodes), GPUs matched to their PCI
 * devices, and where jobs' cores go: near their GPUs, and away from free
 * GPUs for jobs without one. */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/test/tap.h"
#include "worker/cores.h"
#include "worker/topo.h"

static struct topo *load (const char *name)
{
    const char *src = getenv ("HPCQ_SRCDIR");
    char path[4096];
    struct hpcq_error err;
    struct topo *t;

    snprintf (path, sizeof (path), "%s/tests/data/%s", src ? src : ".", name);
    if (!(t = topo_load (path, &err)))
        diag ("%s", err.text);
    return t;
}

/* Slots of c following topology t. */
static void follow (struct cores *c, const struct topo *t)
{
    int pus[512], numa[512], sock[CORES_NUMA_MAX], os[CORES_NUMA_MAX];
    int n = topo_pus (t, pus, 512);

    for (int i = 0; i < n; i++)
        numa[i] = topo_pu_numa (t, pus[i]);
    for (int i = 0; i < CORES_NUMA_MAX; i++) {
        sock[i] = topo_numa_socket (t, i);
        os[i] = topo_numa_os (t, i);
    }
    cores_set_topology (c, pus, numa, n, sock, os, topo_nnuma (t), 0);
}

static void test_read (void)
{
    struct topo *t = load ("topo-dgx-h100.xml");
    struct gpu gpus[GPU_MAX];
    struct topoinfo info, back;
    json_t *j;

    ok (t != NULL, "the DGX-like XML topology loads");
    if (!t)
        return;
    topo_info (t, &info);
    ok (info.sockets == 2 && info.cores == 112 && info.threads == 224
            && info.nnuma == 2,
        "2 sockets, 112 cores, 224 threads, 2 NUMA nodes");
    ok (info.simulated, "labelled simulated");
    is (info.numa[1].cpus, "56-111,168-223",
        "NUMA node 1 holds socket 1's first and second threads");

    memset (gpus, 0, sizeof (gpus));
    for (int g = 0; g < 8; g++)
        gpus[g].simulated = 1;
    topo_match_gpus (t, gpus, 8);
    ok (topo_gpu_numa (t, 0) == 0 && topo_gpu_numa (t, 3) == 0
            && topo_gpu_numa (t, 4) == 1 && topo_gpu_numa (t, 7) == 1,
        "simulated GPUs take the NVIDIA devices in bus order: 0-3 socket 0, 4-7 socket "
        "1");
    topo_info (t, &info);
    is (info.numa[0].gpus, "0,1,2,3", "each NUMA node lists its GPUs");
    j = topoinfo_to_json (&info);
    ok (topoinfo_from_json (j, &back) == 0 && back.nnuma == 2
            && !strcmp (back.numa[1].gpus, "4,5,6,7") && back.threads == 224,
        "node.hello's topology reads back as it was written");
    json_object_set_new (json_array_get (json_object_get (j, "numa"), 0), "cpus",
                         json_string ("0-3\033[2J"));
    ok (topoinfo_from_json (j, &back) == -1 && back.nnuma == 0,
        "a cpus list with a control character is refused");
    json_decref (j);

    /* Real GPUs by NVML's bus id, whatever their order. */
    memset (gpus, 0, sizeof (gpus));
    snprintf (gpus[0].pci_busid, sizeof (gpus[0].pci_busid), "0000:9a:00.0");
    snprintf (gpus[1].pci_busid, sizeof (gpus[1].pci_busid), "0000:18:00.0");
    snprintf (gpus[2].pci_busid, sizeof (gpus[2].pci_busid), "0000:77:00.0");
    topo_match_gpus (t, gpus, 3);
    ok (topo_gpu_numa (t, 0) == 1 && topo_gpu_numa (t, 1) == 0,
        "a GPU is matched to hwloc's PCI device by its bus id");
    ok (topo_gpu_numa (t, 2) == -1, "a bus id hwloc does not know has no NUMA node");
    topo_destroy (t);
}

static void test_place (void)
{
    struct topo *t = load ("topo-dgx-h100.xml");
    struct cores *c = cores_create (224);
    unsigned char near[CORES_NUMA_MAX], avoid[CORES_NUMA_MAX];
    int slots[4][8], cpu[16], n;
    char buf[256], mems[16];

    if (!t)
        return;
    follow (c, t);
    /* Four 1-GPU jobs of 8 cores on GPUs 0-3 (socket 0). */
    for (int j = 0; j < 4; j++) {
        memset (near, 0, sizeof (near));
        memset (avoid, 0, sizeof (avoid));
        near[0] = 1;
        n = cores_take_near (c, 8, near, avoid, slots[j]);
        cores_format_threads (c, slots[j], n, buf, sizeof (buf));
        cores_format_mems (c, slots[j], n, mems, sizeof (mems));
        ok (n == 8 && !strcmp (mems, "0"), "GPU job %d: 8 cores on memory node 0 (%s)",
            j, buf);
    }
    cores_format_threads (c, slots[3], 8, buf, sizeof (buf));
    is (buf, "24-31", "the fourth: socket 0's next whole cores, not hyperthreads");
    /* A CPU-only job while GPUs 4-7 (socket 1) are free: socket 0 first. */
    memset (near, 0, sizeof (near));
    memset (avoid, 0, sizeof (avoid));
    avoid[1] = 1;
    n = cores_take_near (c, 16, near, avoid, cpu);
    cores_format_threads (c, cpu, n, buf, sizeof (buf));
    cores_format_mems (c, cpu, n, mems, sizeof (mems));
    is (buf, "32-47", "a CPU-only job keeps off the free GPUs' socket");
    cores_release (c, cpu, n);
    /* Socket 0 full: it spills to socket 1 only then. */
    n = cores_take_near (c, 100, near, avoid, cpu);
    ok (n == 100, "a big CPU-only job still gets its cores");
    cores_release (c, cpu, n);
    /* A GPU job on socket 1 whose own node is short spreads to the nearest. */
    memset (near, 0, sizeof (near));
    near[1] = 1;
    n = cores_take_near (c, 8, near, NULL, cpu);
    cores_format_mems (c, cpu, n, mems, sizeof (mems));
    is (mems, "1", "a GPU job on GPU 4 gets socket 1's memory node");
    cores_release (c, cpu, n);
    cores_destroy (c);
    topo_destroy (t);
}

static void test_four (void)
{
    struct topo *t = load ("topo-4gpu.xml");
    struct gpu gpus[GPU_MAX];

    ok (t != NULL, "the 4-GPU single-socket topology loads");
    if (!t)
        return;
    memset (gpus, 0, sizeof (gpus));
    for (int g = 0; g < 4; g++)
        gpus[g].simulated = 1;
    topo_match_gpus (t, gpus, 4);
    ok (topo_nnuma (t) == 1 && topo_gpu_numa (t, 3) == 0,
        "its 4 GPUs share NUMA node 0");
    topo_destroy (t);
}

static void test_errors (void)
{
    struct hpcq_error err;
    struct topo *t;

    t = topo_load ("/no/such/topology.xml", &err);
    ok (t == NULL && strstr (err.text, "/no/such/topology.xml"),
        "a missing XML file is refused, naming it: %s", t ? "" : err.text);
    t = topo_load (NULL, &err);
    ok (t != NULL && !topo_simulated (t) && topo_pus (t, NULL, 0) >= 1,
        "this machine's own topology loads, not simulated");
    topo_destroy (t);
}

int main (void)
{
    plan (NO_PLAN);
    test_read ();
    test_place ();
    test_four ();
    test_errors ();
    return done_testing ();
}
