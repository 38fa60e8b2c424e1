/* cores.h - which of this node's cores each job holds.
 *
 * The scheduler gives a job ncpus on a node; the worker picks which:
 * the lowest free slots of the node's ncpus, each slot mapped to one of
 * the CPUs the worker may use (its affinity).  A node that announces
 * more cpus than it has CPUs (hpcq-local on a laptop) maps slots round
 * robin, so jobs then share CPUs.  The job's cpuset cgroup gets the CPUs
 * of its slots.
 *
 * With the node's topology (worker/topo.h) slots follow its hardware
 * threads instead, each knowing its NUMA node and socket, and a job can be
 * placed near its GPUs: cores_take_near.
 */
#ifndef HPCQ_WORKER_CORES_H
#define HPCQ_WORKER_CORES_H

#include <stddef.h>

struct cores;

/* nslots: the node's ncpus.  NULL on ENOMEM. */
struct cores *cores_create (int nslots);
void cores_destroy (struct cores *c);

/* Take up to n free slots into slots[] (room for n); returns how many. */
int cores_take (struct cores *c, int n, int *slots);
void cores_release (struct cores *c, const int *slots, int n);

/* The CPUs of slots as a cpuset list ("0-3,6"), "" for none. */
void cores_format (const struct cores *c, const int *slots, int n, char *buf,
                   size_t len);

/* For tests: map slots to the given CPUs instead of the affinity. */
void cores_set_cpus (struct cores *c, const int *cpus, int ncpus);

/* Slot i is hardware thread pus[i % n] (an OS index) of NUMA node
 * numa[i % n] (an index, < CORES_NUMA_MAX) on socket socket_of[numa],
 * whose OS index (for cpuset.mems) is numa_os[numa].
 * real: these are this machine's threads, so the cgroup gets them; else
 * (a topology read from a file) the cgroup keeps the affinity mapping
 * and the threads are only reported.  Slots not yet taken are renamed,
 * not freed: call before any job. */
#define CORES_NUMA_MAX 64
void cores_set_topology (struct cores *c, const int *pus, const int *numa, int n,
                         const int *socket_of, const int *numa_os, int nnuma, int real);

/* Take up to n free slots, nearest first to the NUMA nodes near[] marks
 * (then the other nodes of their sockets, then the rest), and from the
 * nodes avoid[] marks last (the NUMA nodes of free GPUs, for a job with
 * none).  near and avoid: CORES_NUMA_MAX flags each, or NULL.  Without a
 * topology the same as cores_take.  Returns how many. */
int cores_take_near (struct cores *c, int n, const unsigned char *near,
                     const unsigned char *avoid, int *slots);

/* The threads of slots as the topology names them ("0-3,112-115"), and
 * their NUMA nodes' OS indices ("0" or "0-1"); the same as cores_format,
 * and "" for mems, without a topology. */
void cores_format_threads (const struct cores *c, const int *slots, int n, char *buf,
                           size_t len);
void cores_format_mems (const struct cores *c, const int *slots, int n, char *buf,
                        size_t len);
/* 1 if the cgroup should get cores_format_mems (a real topology). */
int cores_real_topology (const struct cores *c);

#endif
