/* sim_trace.h - the workloads hpcq-sim replays, read into job records.
 *
 * Two formats:
 *  - Standard Workload Format (.swf, optionally gzip-compressed .swf.gz),
 *    as published by the Parallel Workloads Archive: one job per line,
 *    18 whitespace-separated fields, -1 for unknown, ';' header comments
 *    (MaxProcs, MaxNodes are read from them).
 *  - hpcq's GPU workload format, one job per line ('#' comments):
 *        ARRIVAL WALLTIME RUNTIME NODES GPUS QUEUE [CORES]
 *    ARRIVAL and RUNTIME in seconds, WALLTIME as [[HH:]MM:]SS, GPUS a
 *    per-node count or a MIG profile "mig=PROFILE", CORES per node
 *    (default 1).
 * Each record keeps its request as the resource list a user would give
 * qsub -l; sim_trace_resolve() turns it into the parsed request the
 * placement code reads, once the cluster's node size is known.
 */
#ifndef HPCQ_SIM_SIM_TRACE_H
#define HPCQ_SIM_SIM_TRACE_H

#include <stdint.h>

#include "common/error.h"
#include "common/resource.h"
#include "sim/sim_interrupt.h"

struct sim_job {
    int64_t id;       /* SWF job number, or line number */
    int64_t submit;   /* arrival, seconds from the trace's start */
    int64_t run;      /* real run time */
    int64_t walltime; /* the user's estimate (the job's walltime) */
    int procs;        /* SWF: processors; GPU format: 0 */
    char gpu_req[96]; /* GPU format: the select without walltime */
    char queue[32];
    struct hpcq_resources res; /* filled by sim_trace_resolve() */
};

struct sim_trace {
    struct sim_job *job; /* in arrival order */
    int njobs;
    int max_procs; /* SWF header MaxProcs (else MaxNodes), 0 if absent */
    int largest;   /* most processors any job asks for */
    int invalid;   /* records skipped: run time or processors <= 0 */
    int gpu_format;
};

/* Read an SWF trace (plain or gzip-compressed; "-" is stdin).  limit > 0
 * reads only that many job records.  Returns 0, or -1 with err naming the
 * file and line.  The caller releases t with sim_trace_release(). */
int sim_trace_read_swf (struct sim_trace *t, const char *path, int limit,
                        struct hpcq_error *err);

/* Read a GPU workload file (format above); same contract. */
int sim_trace_read_gpu (struct sim_trace *t, const char *path, int limit,
                        struct hpcq_error *err);

/* Build each job's request for nodes of cores_per_node cores.  An SWF job
 * of P processors becomes P / C whole nodes plus one chunk of the
 * remainder: select=(P/C):ncpus=C+1:ncpus=(P%C).  0, or -1 with err. */
int sim_trace_resolve (struct sim_trace *t, int cores_per_node, struct hpcq_error *err);

void sim_trace_release (struct sim_trace *t);

/* A trace of spot reclaims, one a line ('#' comments): TIME NODE, TIME
 * when the provider takes the node (seconds from the workload's start,
 * or [[HH:]MM:]SS), NODE its number (1..N) or name (sim00001).  Into a
 * new array *v (caller frees) of *n, in time order.  0, or -1 with err
 * naming the file and line. */
int sim_trace_read_reclaims (const char *path, struct sim_reclaim **v, int *n,
                             struct hpcq_error *err);

#endif
