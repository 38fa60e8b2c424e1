/* srun_gpu.h - which of its node's GPUs each task of a step sees, as
 * srun's --gpus-per-task and --gpu-bind say (srun(1)): the node's GPUs are
 * those the job was given there (its CUDA_VISIBLE_DEVICES); with
 * --gpus-per-task=N (or --gpu-bind=per_task:N) local task l gets the
 * N after the first l*N of them, in order (so closest, as hpcq binds no
 * CPUs: docs/compat.md); --gpu-bind=map_gpu:A,B,... gives local task l
 * the GPU at place list[l % n] of the node's; none leaves every task all
 * of them.  Pure: no I/O (cli/test/test_srun_gpu.c).
 */
#ifndef HPCQ_CLI_SRUN_GPU_H
#define HPCQ_CLI_SRUN_GPU_H

#include <stddef.h>

#include "common/error.h"

struct srun_gpu {
    int per_task; /* --gpus-per-task, per_task:N; 0: not given */
    int none;     /* --gpu-bind=none */
    int map[64];  /* map_gpu: places in the node's list */
    int nmap;
};

/* --gpus-per-task's value.  0, or -1 with err in Slurm's words. */
int srun_gpu_per_task (struct srun_gpu *g, const char *arg, struct hpcq_error *err);
/* --gpu-bind's value ([verbose,]none|closest|per_task:N|map_gpu:L).  0, or
 * -1 with err. */
int srun_gpu_bind (struct srun_gpu *g, const char *arg, struct hpcq_error *err);
/* Whether any task's GPUs differ from the node's. */
int srun_gpu_splits (const struct srun_gpu *g);

/* The GPUs of local task l of the node (node_gpus: "0,1,2,3", the
 * node's) into buf.  0, or -1 with err when the node has too few. */
int srun_gpu_task (const struct srun_gpu *g, const char *node_gpus, int l, char *buf,
                   size_t len, struct hpcq_error *err);

#endif
