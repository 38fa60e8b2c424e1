/* alloc.h - an allocation: where a job's chunks run (the model type).
 *
 * One slot per select chunk instance, each naming the node, cores, memory
 * and GPUs (or the one MIG instance) it holds.  Placement makes them
 * (scheduler/policy/place.h); the scheduler keeps one in job->alloc while
 * the job runs.  A model header: it includes nothing of the server, the
 * sockets or the database, so the policy code and hpcq-sim can use it.
 */
#ifndef HPCQ_SCHEDULER_ALLOC_H
#define HPCQ_SCHEDULER_ALLOC_H

#include <stdint.h>
#include <jansson.h>

struct node;
struct nodes;

/* Where one chunk of a job runs. */
struct alloc_slot {
    struct node *node;
    char node_name[64];
    int ncpus;
    int64_t mem;
    int ngpus;
    int gpus[16]; /* GPU indices on the node */
    int nmig;     /* 1: holds MIG instance mig_inst of GPU mig_gpu */
    int mig_gpu, mig_inst;
    int mpiprocs;
    int excl;
};

/* Sized to the job: n slots, one per chunk copy, in one block. */
struct alloc {
    int n;
    struct alloc_slot slot[];
};

/* A new allocation of n zeroed slots (release with free()), or NULL. */
struct alloc *alloc_new (int n);

/* Add (sign 1) or remove (-1) job seq's use of a on the real nodes
 * (scheduler/policy/place.c, which the simulator shares). */
void alloc_apply (struct alloc *a, int64_t seq, int sign);

/* The daemon's, in alloc.c: the allocation as JSON (new reference, NULL
 * if out of memory); an allocation from that JSON on the registry's nodes,
 * each slot's node being get (ns, its name) (nodes_get: placeholders for
 * those not known yet; passed in, so that alloc.c needs nothing of the
 * registry), NULL if malformed (release with free()); and PBS's exec_host
 * and exec_vnode for it (new strings). */
json_t *alloc_to_json (const struct alloc *a);
struct alloc *alloc_from_json (struct nodes *ns,
                               struct node *(*get) (struct nodes *ns, const char *name),
                               const char *text);
void alloc_format_exec (const struct alloc *a, char **exec_host, char **exec_vnode);

/* qstat -f's exec_binding of a running job: first, what its first host's
 * worker bound it to ("node1:cpus=0-7:mems=0:gpus=0"), then each chunk on
 * another host as allocated, which is not bound there
 * ("+node2:ncpus=8:gpus=1,3:unbound": a sister's processes share the
 * job's cgroup on that host, without a cpuset).  New string (free()), or
 * NULL if first is NULL. */
char *alloc_format_binding (const struct alloc *a, const char *first);

#endif
