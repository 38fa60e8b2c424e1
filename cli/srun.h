/* srun.h - what srun's parts share: its options, the job step's record
 * (cli/srun_step.c) and the allocation srun makes outside a job
 * (cli/srun_alloc.c).
 */
#ifndef HPCQ_CLI_SRUN_H
#define HPCQ_CLI_SRUN_H

#include "cli/srun_gpu.h"
#include "cli/srun_io.h"
#include "cli/srun_layout.h"

struct srun_opts {
    struct srun_request req;
    struct srun_io_opts io;
    int cpus_per_task;
    int kill_bad;
    int mpi_pmix;         /* --mpi=pmix (or SLURM_MPI_TYPE): a PMIx server per node */
    struct srun_gpu gpu;  /* --gpus-per-task, --gpu-bind */
    int pty;              /* --pty: task 0 on a pseudo-terminal (script(1)) */
    const char *nodelist; /* -w as written */
    const char *input;    /* -i: "0" (the default), a task, "none", "all" */
    const char *export;
    const char *chdir;
    const char *job_name;
    const char *partition, *time, *account, *mem; /* for an allocation */
    char **argv;                                  /* the command */
    int step;
};

/* Parse argv (exits with Slurm's error line on bad input). */
int srun_parse (int argc, char **argv, struct srun_opts *o);

/* The step's number in job pbsid (a new one), recorded as started with
 * layout l; 0 if the scheduler cannot be asked (said on stderr). */
int srun_step_begin (const char *pbsid, const struct srun_layout *l,
                     const char *nodelist, const char *name);
/* It ended with srun's exit code rc. */
void srun_step_end (const char *pbsid, int step, int rc);

/* Outside a job: an allocation (a job that runs this srun), its output
 * here once it ends; srun's exit code. */
int srun_alloc_run (int argc, char **argv, const struct srun_opts *o);
/* Outside a job with --pty: an interactive allocation whose task 0 runs
 * the command on a pty, this terminal relayed; the command's exit code. */
int srun_alloc_pty (const struct srun_opts *o);

#endif
