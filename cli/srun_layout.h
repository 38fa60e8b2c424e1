/* srun_layout.h - where srun's tasks go: a job step's nodes and the task
 * on each, from the job's hosts and srun's -n, -N, --ntasks-per-node,
 * --nodelist and --distribution, as Slurm lays a step out (srun(1),
 * "-m, --distribution"; https://slurm.schedmd.com/cpu_management.html).
 *
 * Pure: no I/O, so it has a unit test of its own (cli/test/test_srun_layout.c).
 */
#ifndef HPCQ_CLI_SRUN_LAYOUT_H
#define HPCQ_CLI_SRUN_LAYOUT_H

#include "common/error.h"

/* The job's hosts, each once, in node file order, with its lines there
 * (the tasks it holds room for). */
struct srun_hosts {
    char **name;
    int *slots;
    int n;
};

struct srun_request {
    int ntasks;      /* -n; 0: not given */
    int nnodes;      /* -N; 0: not given */
    int per_node;    /* --ntasks-per-node; 0: not given */
    int env_ntasks;  /* SLURM_NTASKS of the job (srun's input variable); 0: unset */
    int cyclic;      /* -m cyclic; else block */
    int overcommit;  /* -O: more tasks than slots */
    char **nodelist; /* -w hosts (NULL-terminated) or NULL */
};

/* The step: node k of it is host node[k] of the job; task t runs on step
 * node task_node[t] as its local task task_local[t]. */
struct srun_layout {
    int ntasks;
    int nnodes;
    int *node;       /* [nnodes] indices into srun_hosts */
    int *node_tasks; /* [nnodes] tasks on each */
    int *task_node;  /* [ntasks] */
    int *task_local; /* [ntasks] */
};

/* Lay the step out.  0, or -1 with err in Slurm's words. */
int srun_layout_make (const struct srun_hosts *h, const struct srun_request *r,
                      struct srun_layout *l, struct hpcq_error *err);
void srun_layout_release (struct srun_layout *l);

#endif
