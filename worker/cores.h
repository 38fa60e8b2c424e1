/* cores.h - which of this node's cores each job holds.
 *
 * The scheduler gives a job ncpus on a node; the worker picks which:
 * the lowest free slots of the node's ncpus, each slot mapped to one of
 * the CPUs the worker may use (its affinity).  A node that announces
 * more cpus than it has CPUs (hpcq-local on a laptop) maps slots round
 * robin, so jobs then share CPUs.  The job's cpuset cgroup gets the CPUs
 * of its slots.
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

#endif
