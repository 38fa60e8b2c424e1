/* pmix_server.h - the PMIx server of one node of an `srun --mpi=pmix`
 * step, inside hpcq-stepd (worker/stepd.c), as Slurm's mpi/pmix plugin
 * runs one inside each node's slurmstepd (src/plugins/mpi/pmix/
 * pmixp_client.c, pmixp_server.c): the step's namespace registered with
 * its sizes, node and process maps and each rank's place, each local
 * rank registered as a client before it is forked, and the fence (the
 * modex) handed to the caller, who exchanges the nodes' contributions
 * and gives the whole back.
 *
 * libpmix is a process-wide singleton with its own progress thread, so
 * this module is too: one step per process.  The callbacks run on
 * libpmix's thread.
 */
#ifndef HPCQ_WORKER_PMIX_SERVER_H
#define HPCQ_WORKER_PMIX_SERVER_H

#include <stddef.h>

#include "common/error.h"

struct pmixsrv_step {
    const char *nspace;
    const char *jobid; /* "JOB.STEP", PMIX_JOBID */
    const char *tmpdir;
    int ntasks;
    int nnodes;
    int nodeid;           /* this node's place in nodes */
    char **nodes;         /* [nnodes] the step's node names, in step order */
    const int *task_node; /* [ntasks] each rank's node */
};

/* This node's contribution to a fence (data may be empty): the caller
 * sends it on and later calls pmixsrv_fence_done.  data is the callee's
 * to free. */
typedef void (*pmixsrv_fence_f) (unsigned char *data, size_t len, void *arg);
/* A local rank called PMIx_Abort (MPI_Abort) with status. */
typedef void (*pmixsrv_abort_f) (int status, const char *msg, void *arg);

/* Start the server and register the step.  0, or -1 with err. */
int pmixsrv_start (const struct pmixsrv_step *s, pmixsrv_fence_f fence,
                   pmixsrv_abort_f abort_cb, void *arg, struct hpcq_error *err);
/* The variables rank needs to reach this server, appended to *env
 * (a malloc'd NULL-terminated array).  0, or -1 with err. */
int pmixsrv_fork_env (int rank, char ***env, struct hpcq_error *err);
/* The fence is over: data is every node's contributions, in node order
 * (copied). */
void pmixsrv_fence_done (const unsigned char *data, size_t len);
void pmixsrv_stop (void);

#endif
