/* topo.h - this node's hardware topology, read with hwloc: sockets, NUMA
 * nodes, cores, hardware threads, and the NUMA node each GPU hangs off.
 *
 * The worker places a job's cores near its GPUs with it (worker/cores.h)
 * and reports it in node.hello, so pbsnodes -av can show it.  A GPU is
 * matched to hwloc's PCI device by its PCI bus id (NVML's, worker/gpu.c).
 * The topology can instead be read from an hwloc XML file (the worker's
 * topology_xml; lstopo --of xml writes one): for tests and simulation, on
 * a machine that is not the one described.  Such a topology is labelled
 * simulated, its simulated GPUs take the NVIDIA PCI devices in bus order,
 * and the job's cgroup then keeps the real machine's memory nodes.
 */
#ifndef HPCQ_WORKER_TOPO_H
#define HPCQ_WORKER_TOPO_H

#include <jansson.h>

#include "common/error.h"
#include "common/gpu.h"
#include "common/topoinfo.h"

#define TOPO_NUMA_MAX 64

struct topo;

/* Read the topology: this machine's (xml NULL or "") or an XML file's.
 * NULL with err when hwloc cannot load it. */
struct topo *topo_load (const char *xml, struct hpcq_error *err);
void topo_destroy (struct topo *t);

/* 1 if read from an XML file rather than this machine. */
int topo_simulated (const struct topo *t);

/* Hardware threads, in the order slots take them: NUMA node by NUMA node,
 * first threads of each core before second ones.  pus[] gets the OS
 * indices (room for n); returns how many there are. */
int topo_pus (const struct topo *t, int *pus, int n);

/* The NUMA node (index 0.. topo_nnuma-1) of the thread with OS index pu,
 * or -1.  The socket of a NUMA node index, or -1. */
int topo_pu_numa (const struct topo *t, int pu);
int topo_numa_socket (const struct topo *t, int numa);
int topo_nnuma (const struct topo *t);
/* The OS index of a NUMA node index (what cpuset.mems takes). */
int topo_numa_os (const struct topo *t, int numa);

/* Attach the GPUs to the NUMA nodes of their PCI devices: by each GPU's
 * pci_busid, or for simulated GPUs (or GPUs without one) the n-th NVIDIA
 * PCI device in bus order.  A GPU found nowhere gets -1. */
void topo_match_gpus (struct topo *t, const struct gpu *gpus, int ngpus);
/* The NUMA node index of GPU g (its index in the worker's list), or -1. */
int topo_gpu_numa (const struct topo *t, int g);

/* What node.hello reports of it (common/topoinfo.h). */
void topo_info (const struct topo *t, struct topoinfo *info);

#endif
