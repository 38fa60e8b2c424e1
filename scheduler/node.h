/* node.h - a node as the scheduler models it (the model type).
 *
 * Its resources, what is taken of them, its state, power and labels.  The
 * registry that keeps them is nodes.h; placement and the policies read
 * these records (or a simulator's).  A model header: it includes nothing
 * of the server, the sockets or the database.
 */
#ifndef HPCQ_SCHEDULER_NODE_H
#define HPCQ_SCHEDULER_NODE_H

#include <stdint.h>

#include "common/gpu.h"
#include "common/ib.h"
#include "common/topoinfo.h"

struct conn;

enum node_state {
    NODE_UNKNOWN = 0, /* known from the database, not heard from yet */
    NODE_UP,
    NODE_DOWN,
};

/* Elastic (cloud) nodes, which the scheduler powers up and down through
 * the resume and suspend programs (power.h); every other node is ON. */
enum node_power {
    NODE_POWER_ON = 0,
    NODE_POWER_OFF,        /* known, powered off: "cloud" */
    NODE_POWER_RESUMING,   /* resume_program asked for it; no hello yet */
    NODE_POWER_SUSPENDING, /* suspend_program is taking it down */
};

/* Why a node that is up takes no new jobs, besides an administrator's
 * offline (node->drain bits). */
enum {
    NODE_DRAIN_RECLAIM = 1, /* its provider gave notice (reclaim.h) */
    NODE_DRAIN_POWER = 2,   /* it is being suspended (power.h) */
};

/* What is taken on a node, compactly: the node's own (struct node's use,
 * kept with the fields by alloc_slot_apply) or what a policy supposes at
 * some other time (a few dozen bytes, where a node record is kilobytes). */
struct node_use {
    int ncpus_used;
    int njobs;
    int64_t mem_used;
    int64_t excl_by;
    uint32_t gpus;        /* bit g: whole GPU g taken */
    uint8_t mig[GPU_MAX]; /* bit i: instance i of GPU g taken */
};

struct node {
    char name[64];
    enum node_state state;
    /* Placement may use it: its worker's link is up (node_set_link), or
     * it is a simulated node, which is always reachable. */
    int reachable;
    int ncpus, ncpus_used;
    int64_t mem, mem_used;
    int ngpus;
    int64_t excl_by; /* job seq holding it exclusively, 0 if none */
    int njobs;       /* allocations on this node */
    int pidx;        /* scratch: its position in a policy pass's array */
    /* Cached for placement (place_node_sync), next to what its scans
     * read first: the usage above compactly, which GPUs are in MIG mode,
     * and the value of its ib_switch=X label ("" if none). */
    struct node_use use;
    uint32_t whole_gpus; /* bit g: GPU g is not in MIG mode */
    uint32_t mig_gpus;   /* bit g: GPU g is in MIG mode */
    struct conn *conn;   /* link to its worker while up (node_set_link); it
                         * alone holds the name (node.hello refuses others) */
    char holder[64];     /* host of the worker that last held the name */
    int offline;         /* out of service (pbsnodes -o): no new jobs */
    int drain;           /* NODE_DRAIN_* bits: no new jobs either */
    int spot;            /* carries the label spot (or spot=true): cached */
    int ib_group;        /* 1 + ib_switch's number (place.c's), 0 if none: */
                         /* beside conn and offline, which the same scans read */
    char ib_switch[32];
    char labels[256];
    char comment[256]; /* an administrator's reason for offline, or why
                         * the scheduler took the node down */
    int64_t last_heard_ms;
    int64_t down_since_ms;
    /* Cloud nodes (power.h): power state and since when (monotonic ms),
     * and since when it has run no job (0: busy, or not a cloud node). */
    int cloud;
    enum node_power power;
    int64_t power_since_ms;
    int64_t idle_since_ms;
    /* Up time, counted by nodeclass.c from each change of state
     * (nodes_set_state): credited to class up_class (an index there) until
     * up_credited_ms; a failure or a hello before reclaim_until_ms is part
     * of a reclaim, not another interruption or a later boot. */
    int64_t up_credited_ms;
    int up_class;
    int64_t reclaim_until_ms;
    /* Last: kilobytes, where placement's scans want the fields above
     * close together in memory. */
    struct gpu gpu[GPU_MAX];
    /* InfiniBand ports as its worker last reported them (common/ib.h);
     * not stored: each hello brings them again. */
    struct ib_port ib[IB_PORT_MAX];
    int nib;
    /* Its topology as its worker reported it (nnuma 0: none), shown by
     * pbsnodes; the worker places cores by it (worker/topo.h). */
    struct topoinfo topo;
    /* Its worker can run jobs in OCI containers (runc and umoci found:
     * docs/containers.md); only such nodes take a container_image job. */
    int oci;
};

#endif
