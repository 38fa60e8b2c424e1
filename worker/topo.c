/* topo.c - see topo.h.  hwloc does the reading; this keeps the few facts
 * placement needs in plain arrays, so nothing else includes hwloc.h. */
#include <config.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "worker/topo.h"

#define CPU_LIST_MAX 4096 /* OS indices of threads a cpus list can name */

struct topo_numa {
    int os;
    int socket;
};

struct topo {
    int simulated;
    int nsockets, ncores, nthreads;
    int nnuma;
    struct topo_numa numa[TOPO_NUMA_MAX];
    int npu;
    int *pu;      /* OS index of each thread, in slot order */
    int *pu_numa; /* its NUMA node index */
    /* NVIDIA PCI devices in bus order: "dddd:bb:dd.f" and NUMA index. */
    int npci;
    char (*pci_bus)[16];
    int *pci_numa;
    int gpu_numa[GPU_MAX];
};

static int numa_index (const struct topo *t, unsigned os)
{
    for (int i = 0; i < t->nnuma; i++)
        if (t->numa[i].os == (int)os)
            return i;
    return -1;
}

static void read_numa (struct topo *t, hwloc_topology_t h)
{
    hwloc_obj_t o = NULL;

    while ((o = hwloc_get_next_obj_by_type (h, HWLOC_OBJ_NUMANODE, o))
           && t->nnuma < TOPO_NUMA_MAX) {
        hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type (h, HWLOC_OBJ_PACKAGE, o);
        t->numa[t->nnuma].os = (int)o->os_index;
        t->numa[t->nnuma].socket = pkg ? (int)pkg->logical_index : 0;
        t->nnuma++;
    }
}

/* The NUMA node whose CPUs hold this thread: the first of its nodeset. */
static int pu_numa_of (const struct topo *t, hwloc_obj_t pu)
{
    int os = pu->nodeset ? hwloc_bitmap_first (pu->nodeset) : -1;
    int i = os >= 0 ? numa_index (t, (unsigned)os) : -1;

    return i >= 0 ? i : 0;
}

/* Slot order: NUMA node by NUMA node, each core's first thread before any
 * core's second, so a job of n slots takes n cores before it doubles up
 * on hyperthreads. */
static void read_pus (struct topo *t, hwloc_topology_t h)
{
    int n = hwloc_get_nbobjs_by_type (h, HWLOC_OBJ_PU);
    int depth = hwloc_get_type_depth (h, HWLOC_OBJ_CORE);

    t->pu = xzalloc ((size_t)(n > 0 ? n : 1) * sizeof (int));
    t->pu_numa = xzalloc ((size_t)(n > 0 ? n : 1) * sizeof (int));
    t->nthreads = n;
    t->ncores = hwloc_get_nbobjs_by_type (h, HWLOC_OBJ_CORE);
    t->nsockets = hwloc_get_nbobjs_by_type (h, HWLOC_OBJ_PACKAGE);
    for (int numa = 0; numa < (t->nnuma ? t->nnuma : 1); numa++)
        for (int rank = 0; rank < 8; rank++)
            for (int i = 0; i < n; i++) {
                hwloc_obj_t pu = hwloc_get_obj_by_type (h, HWLOC_OBJ_PU, (unsigned)i);
                hwloc_obj_t core = depth >= 0 ? pu->parent : NULL;
                int r =
                    core && core->type == HWLOC_OBJ_CORE ? (int)pu->sibling_rank : 0;
                if (r != rank || (t->nnuma && pu_numa_of (t, pu) != numa))
                    continue;
                t->pu[t->npu] = (int)pu->os_index;
                t->pu_numa[t->npu++] = t->nnuma ? numa : 0;
            }
}

static int is_nvidia_gpu (hwloc_obj_t o)
{
    unsigned cls = o->attr->pcidev.class_id;

    return o->attr->pcidev.vendor_id == 0x10de && (cls == 0x0300 || cls == 0x0302);
}

static void read_pci (struct topo *t, hwloc_topology_t h)
{
    hwloc_obj_t o = NULL;
    int n = 0;

    while ((o = hwloc_get_next_pcidev (h, o)))
        n += is_nvidia_gpu (o);
    t->pci_bus = xzalloc ((size_t)(n > 0 ? n : 1) * sizeof (*t->pci_bus));
    t->pci_numa = xzalloc ((size_t)(n > 0 ? n : 1) * sizeof (int));
    /* hwloc lists PCI devices in bus order within each host bridge. */
    while ((o = hwloc_get_next_pcidev (h, o))) {
        hwloc_obj_t anc;
        int os;
        if (!is_nvidia_gpu (o))
            continue;
        snprintf (t->pci_bus[t->npci], sizeof (t->pci_bus[0]), "%04x:%02x:%02x.%01x",
                  o->attr->pcidev.domain, o->attr->pcidev.bus, o->attr->pcidev.dev,
                  o->attr->pcidev.func);
        anc = hwloc_get_non_io_ancestor_obj (h, o);
        os = anc && anc->nodeset ? hwloc_bitmap_first (anc->nodeset) : -1;
        t->pci_numa[t->npci++] = os >= 0 ? numa_index (t, (unsigned)os) : -1;
    }
}

static int topo_read (struct topo *t, const char *xml, struct hpcq_error *err)
{
    hwloc_topology_t h;
    int rc = -1;

    if (hwloc_topology_init (&h) < 0)
        return errprintf (err, "hwloc: cannot initialise a topology");
    hwloc_topology_set_io_types_filter (h, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (xml && xml[0] && hwloc_topology_set_xml (h, xml) < 0) {
        errprintf (err, "topology_xml %s: cannot be read as an hwloc XML topology",
                   xml);
        goto done;
    }
    if (hwloc_topology_load (h) < 0) {
        errprintf (err, "hwloc: cannot load %s",
                   xml && xml[0] ? xml : "this machine's topology");
        goto done;
    }
    read_numa (t, h);
    read_pus (t, h);
    read_pci (t, h);
    rc = 0;
done:
    hwloc_topology_destroy (h);
    return rc;
}

struct topo *topo_load (const char *xml, struct hpcq_error *err)
{
    struct topo *t = xzalloc (sizeof (*t));

    t->simulated = xml && xml[0];
    for (int g = 0; g < GPU_MAX; g++)
        t->gpu_numa[g] = -1;
    if (topo_read (t, xml, err) < 0) {
        topo_destroy (t);
        return NULL;
    }
    return t;
}

void topo_destroy (struct topo *t)
{
    if (!t)
        return;
    free (t->pu);
    free (t->pu_numa);
    free (t->pci_bus);
    free (t->pci_numa);
    free (t);
}

int topo_simulated (const struct topo *t)
{
    return t->simulated;
}

int topo_pus (const struct topo *t, int *pus, int n)
{
    for (int i = 0; i < t->npu && i < n; i++)
        pus[i] = t->pu[i];
    return t->npu;
}

int topo_pu_numa (const struct topo *t, int pu)
{
    for (int i = 0; i < t->npu; i++)
        if (t->pu[i] == pu)
            return t->pu_numa[i];
    return -1;
}

int topo_numa_socket (const struct topo *t, int numa)
{
    return numa >= 0 && numa < t->nnuma ? t->numa[numa].socket : -1;
}

int topo_nnuma (const struct topo *t)
{
    return t->nnuma;
}

int topo_numa_os (const struct topo *t, int numa)
{
    return numa >= 0 && numa < t->nnuma ? t->numa[numa].os : -1;
}

static int pci_find (const struct topo *t, const char *bus)
{
    for (int i = 0; i < t->npci; i++)
        if (strcasecmp (t->pci_bus[i], bus) == 0)
            return i;
    return -1;
}

void topo_match_gpus (struct topo *t, const struct gpu *gpus, int ngpus)
{
    int next = 0; /* the next unclaimed PCI device, for simulated GPUs */

    for (int g = 0; g < ngpus && g < GPU_MAX; g++) {
        int p = gpus[g].pci_busid[0] && !gpus[g].simulated
                    ? pci_find (t, gpus[g].pci_busid)
                    : next++;
        t->gpu_numa[g] = p >= 0 && p < t->npci ? t->pci_numa[p] : -1;
    }
}

int topo_gpu_numa (const struct topo *t, int g)
{
    return g >= 0 && g < GPU_MAX ? t->gpu_numa[g] : -1;
}

/* "0-55,112-167" for the threads of NUMA node numa. */
static void numa_cpus (const struct topo *t, int numa, char *buf, size_t len)
{
    unsigned char *on = xzalloc (CPU_LIST_MAX);

    for (int i = 0; i < t->npu; i++)
        if (t->pu_numa[i] == numa && t->pu[i] >= 0 && t->pu[i] < CPU_LIST_MAX)
            on[t->pu[i]] = 1;
    util_format_cpulist (on, CPU_LIST_MAX, buf, len);
    free (on);
}

void topo_info (const struct topo *t, struct topoinfo *info)
{
    memset (info, 0, sizeof (*info));
    info->simulated = t->simulated;
    info->sockets = t->nsockets;
    info->cores = t->ncores;
    info->threads = t->nthreads;
    for (int i = 0; i < t->nnuma && i < TOPOINFO_NUMA_MAX; i++) {
        struct topoinfo_numa *n = &info->numa[info->nnuma++];
        size_t o = 0;
        n->os = t->numa[i].os;
        n->socket = t->numa[i].socket;
        numa_cpus (t, i, n->cpus, sizeof (n->cpus));
        for (int g = 0; g < GPU_MAX && o < sizeof (n->gpus); g++)
            if (t->gpu_numa[g] == i)
                o += (size_t)snprintf (n->gpus + o, sizeof (n->gpus) - o, "%s%d",
                                       o ? "," : "", g);
    }
}
