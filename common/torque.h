/* torque.h - Torque's resource requests, converted as PBS Pro converts them.
 *
 * Torque users write "-l nodes=2:ppn=8" with a job-wide "-l mem=8gb".
 * PBS Pro turns such a request into select and place:
 *   nodes=N:ppn=P[:cpp=C]  ->  select=N:ncpus=P*C:mpiprocs=P, place=scatter
 *   nodes=host1+host2      ->  select=1:host=host1+1:host=host2
 *   nodes=2:bigmem         ->  select=2:bigmem=True (a node label here)
 *   nodes=...#excl         ->  place=scatter:excl
 * and spreads the job-wide values over the chunks (PBS Pro's
 * node_manager.c): mem (and Torque's vmem, also for the whole job) is
 * divided evenly among the nodes; ncpus must be a multiple of the
 * processors nodes= asks for and multiplies each chunk's cores.  Torque's
 * pmem and pvmem are per process: a chunk gets at least that times its
 * processes.  gpus=G (Torque) is ngpus=G per chunk; procs=N is N chunks
 * of one core, wherever they fit.  qsub(1) documents the rules.
 */
#ifndef HPCQ_COMMON_TORQUE_H
#define HPCQ_COMMON_TORQUE_H

#include "common/error.h"
#include "common/resource.h"

/* "-l nodes=SPEC": the chunks of SPEC replace res's, res->torque is set.
 * 0 or -1 with err (EINVAL). */
int torque_parse_nodes (struct hpcq_resources *res, const char *spec,
                        struct hpcq_error *err);

/* "-l procs=N". */
int torque_parse_procs (struct hpcq_resources *res, const char *value,
                        struct hpcq_error *err);

/* At resource_finalize: spread the job-wide ncpus, mem, vmem, pmem and
 * pvmem over res's Torque chunks and clear them.  0 or -1 with err. */
int torque_finalize (struct hpcq_resources *res, struct hpcq_error *err);

/* Size each chunk's memory from vmem (whole job, divided among the
 * chunks) and pmem, pvmem (per process) where they ask for more than it
 * has, and clear them.  For the one chunk of a request without nodes=. */
void torque_spread_memory (struct hpcq_resources *res);

#endif
