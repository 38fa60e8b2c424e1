/* topoinfo.h - a node's topology as the scheduler keeps it: sockets,
 * cores, hardware threads, and per NUMA node its threads and GPUs.  One
 * description for the worker that reads it with hwloc (worker/topo.h) and
 * reports it in node.hello, and the scheduler that shows it (pbsnodes -av:
 * resources_available.topology and one line per NUMA node).
 */
#ifndef HPCQ_COMMON_TOPOINFO_H
#define HPCQ_COMMON_TOPOINFO_H

#include <jansson.h>
#include <stddef.h>

#define TOPOINFO_NUMA_MAX 16 /* NUMA nodes kept (an 8-socket node has 8) */

struct topoinfo_numa {
    int os;         /* the kernel's number (cpuset.mems) */
    int socket;     /* the socket (package) it belongs to */
    char cpus[256]; /* its hardware threads, "0-55,112-167" */
    char gpus[64];  /* the worker's GPU indices, "0,1,2,3", "" if none */
};

struct topoinfo {
    int simulated; /* read from an XML file, not this machine */
    int sockets, cores, threads;
    int nnuma; /* 0: no topology reported */
    struct topoinfo_numa numa[TOPOINFO_NUMA_MAX];
};

/* The JSON node.hello carries (new reference). */
json_t *topoinfo_to_json (const struct topoinfo *t);

/* Read it back (from a worker: checked); absent (o NULL) gives nnuma 0.
 * 0, or -1 if malformed (t then holds nothing). */
int topoinfo_from_json (json_t *o, struct topoinfo *t);

/* "2 sockets, 112 cores, 224 threads, 2 NUMA nodes" and " (simulated)". */
void topoinfo_summary (const struct topoinfo *t, char *buf, size_t len);

#endif
